/* agent/creds.c: broker credentials from the credentials folder
 * (design.md section 4): `--credentials DIR`, else $CREDENTIALS_DIRECTORY
 * (systemd LoadCredential=). A node's `credentials: NAME` is the file NAME
 * there, one line `user:password`. Never a silent anonymous login: every
 * problem is an error naming the node and the file. */
#include "creds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/xalloc.h"

#define CREDS_MAX 4096

const char *
agent_creds_dir(const char *opt)
{
	const char *env;

	if (opt != NULL && opt[0] != '\0')
		return opt;
	env = getenv("CREDENTIALS_DIRECTORY");
	if (env != NULL && env[0] != '\0')
		return env;
	return NULL;
}

void
agent_creds_free(char *s)
{
	if (s == NULL)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

static int
check_content(const char *buf, size_t len, const char **why)
{
	const char *colon = memchr(buf, ':', len);
	size_t i;

	*why = NULL;
	if (len == 0)
		*why = "is empty";
	for (i = 0; *why == NULL && i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			*why = "must hold one line 'user:password'";
	if (*why == NULL && colon == NULL)
		*why = "has no ':' (expected one line 'user:password')";
	else if (*why == NULL && colon == buf)
		*why = "has an empty user name";
	else if (*why == NULL && colon == buf + len - 1)
		*why = "has an empty password";
	return *why == NULL ? 0 : -1;
}

/* Read at most CREDS_MAX bytes of fd into buf (NUL-terminated). */
static ssize_t
read_small(int fd, char *buf)
{
	size_t got = 0;
	ssize_t r;

	for (;;) {
		r = read(fd, buf + got, CREDS_MAX + 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got > CREDS_MAX)
			break;
	}
	buf[got] = '\0';
	return r < 0 ? -1 : (ssize_t)got;
}

int
agent_creds_read(char **out, const char *dir, const char *node,
    const char *name, struct err *err)
{
	char *path = NULL, *buf = xmalloc(CREDS_MAX + 2);
	const char *why = NULL;
	struct err e = {0};
	struct stat st;
	ssize_t n = -1;
	size_t len;
	int fd = -1, rc = -1;

	if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		err_setf(err, NULL,
		    "node '%s': credentials name '%s' is not a file name", node,
		    name != NULL ? name : "");
		goto done;
	}
	path = xasprintf("%s/%s", dir, name);
	if (afile_open(&fd, &st, path, AFILE_NOFOLLOW | AFILE_AT_PATH, &e) <
	    0) {
		err_setf(err, NULL, "node '%s': credentials file '%s': %s",
		    node, path, e.msg);
		err_release(&e);
		goto done;
	}
	if (st.st_mode & S_IROTH)
		why = "is readable by others (chmod 600 it)";
	else
		n = read_small(fd, buf);
	if (why == NULL && n < 0)
		why = "could not be read";
	else if (why == NULL && n > CREDS_MAX)
		why = "is too large";
	len = n > 0 ? (size_t)n : 0;
	if (why == NULL && len > 0 && buf[len - 1] == '\n')
		len--;
	if (why == NULL && len > 0 && buf[len - 1] == '\r')
		len--;
	if (why == NULL && check_content(buf, len, &why) == 0) {
		*out = xstrndup(buf, len);
		rc = 0;
	}
	if (rc < 0)
		err_setf(err, NULL, "node '%s': credentials file '%s' %s", node,
		    path, why);
done:
	if (fd >= 0)
		close(fd);
	explicit_bzero(buf, CREDS_MAX + 2);
	free(buf);
	free(path);
	return rc;
}
