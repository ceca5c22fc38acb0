/* agent/creds.c: broker credentials from the credentials folder
 * (design.md section 4): `--credentials DIR`, else $CREDENTIALS_DIRECTORY
 * (systemd LoadCredential=). A node's `credentials: NAME` is the file NAME
 * there, one line `user:password`. Never a silent anonymous login: every
 * problem is an error naming the node and the file. The private key of
 * mutual TLS with brokers is read under the same rules. */
#include "creds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/xalloc.h"

#define CREDS_MAX 4096
#define KEY_MAX   ((size_t)64 * 1024) /* bytes of a PEM private key file */

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

/* Read at most max + 1 bytes of fd into buf (max + 2 bytes,
 * NUL-terminated). */
static ssize_t
read_small(int fd, char *buf, size_t max)
{
	size_t got = 0;
	ssize_t r;

	for (;;) {
		r = read(fd, buf + got, max + 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got > max)
			break;
	}
	buf[got] = '\0';
	return r < 0 ? -1 : (ssize_t)got;
}

/* Open path as a secret's file: not a symbolic link, a regular file, not
 * readable by others. The descriptor, or -1 with *why (a static text) or,
 * when it cannot be opened at all, with *why NULL and errno set. */
static int
secret_open(const char *path, const char **why)
{
	struct stat st;
	int fd, e;

	*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		*why = "is not a regular file";
	else if (st.st_mode & S_IROTH)
		*why = "is readable by others (chmod 600 it)";
	if (*why == NULL)
		return fd;
	close(fd);
	return -1;
}

int
agent_creds_read(char **out, const char *dir, const char *node,
    const char *name, struct err *err)
{
	char *path = NULL, *buf = xmalloc(CREDS_MAX + 2);
	const char *why = NULL;
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
	fd = secret_open(path, &why);
	if (fd < 0 && why == NULL) {
		err_setf(err, NULL,
		    "node '%s': cannot read credentials file '%s': %m", node,
		    path);
		goto done;
	}
	if (why == NULL)
		n = read_small(fd, buf, CREDS_MAX);
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

/* Why the PEM text buf (len bytes) is not one unencrypted private key, or
 * NULL. */
static const char *
key_problem(const char *buf, size_t len)
{
	const char *begin = strstr(buf, "-----BEGIN ");

	if (len == 0)
		return "is empty";
	if (strlen(buf) != len)
		return "is not PEM text (it holds a NUL byte)";
	if (strstr(buf, "ENCRYPTED") != NULL)
		return "holds an encrypted key: the agent reads unencrypted "
		       "PEM keys only (openssl pkey -in KEY -out PLAIN)";
	if (begin == NULL || strstr(begin, "PRIVATE KEY-----") == NULL)
		return "holds no PEM private key ('-----BEGIN ... PRIVATE "
		       "KEY-----')";
	return NULL;
}

int
agent_creds_read_key(char **out, const char *path, const char *what,
    struct err *err)
{
	char *buf = xmalloc(KEY_MAX + 2);
	const char *why = NULL;
	ssize_t n = -1;
	int fd, rc = -1;

	fd = secret_open(path, &why);
	if (fd < 0 && why == NULL) {
		err_setf(err, NULL, "%s: cannot read key file '%s': %m", what,
		    path);
		goto done;
	}
	if (why == NULL)
		n = read_small(fd, buf, KEY_MAX);
	if (why == NULL && n < 0)
		why = "could not be read";
	else if (why == NULL && (size_t)n > KEY_MAX)
		why = "is too large";
	if (why == NULL)
		why = key_problem(buf, (size_t)n);
	if (why == NULL) {
		*out = xstrndup(buf, (size_t)n);
		rc = 0;
	} else {
		err_setf(err, NULL, "%s: key file '%s' %s", what, path, why);
	}
done:
	if (fd >= 0)
		close(fd);
	explicit_bzero(buf, KEY_MAX + 2);
	free(buf);
	return rc;
}
