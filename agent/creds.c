/* agent/creds.c: broker credentials from the credentials folder
 * (design.md section 4): `--credentials DIR`, else $CREDENTIALS_DIRECTORY
 * (systemd LoadCredential=). A node's `credentials: NAME` is the file NAME
 * there, one line `user:password`. Never a silent anonymous login: every
 * problem is an error naming the node and the file. Every secret of the
 * folder (broker credentials, the git token and SSH key) is refused unless
 * it is as private as sshd wants a private key (creds.h), and so is the
 * private key of mutual TLS with brokers. */
#include "creds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/sbuf.h"
#include "../lib/xalloc.h"

#define CREDS_MAX        4096
#define CREDS_SECRET_MAX 16384               /* bytes of a token file */
#define KEY_MAX          ((size_t)64 * 1024) /* bytes of a PEM private key */

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

/* Who may do what to a file of this mode besides its owner, or NULL:
 * "its group can read it, others can read and write it". Owned. */
static char *
others_can(mode_t mode)
{
	static const char *const verbs[] = {"read", "write", "execute"};
	static const mode_t bits[2][3] = {{S_IRGRP, S_IWGRP, S_IXGRP},
	    {S_IROTH, S_IWOTH, S_IXOTH}};
	static const char *const who[] = {"its group", "others"};
	struct sbuf b = {0};
	size_t c, v, k;

	for (c = 0; c < 2; c++) {
		for (v = 0, k = 0; v < 3; v++) {
			if (!(mode & bits[c][v]))
				continue;
			if (k == 0)
				sbuf_addf(&b, "%s%s can ",
				    b.len > 0 ? ", " : "", who[c]);
			else
				sbuf_adds(&b, " and ");
			sbuf_adds(&b, verbs[v]);
			k++;
		}
		if (k > 0)
			sbuf_adds(&b, " it");
	}
	return b.len > 0 ? sbuf_take(&b) : NULL;
}

/* The owner rule: the agent's own user, or root. */
static char *
owner_problem(const struct stat *st)
{
	uid_t me = geteuid();

	if (st->st_uid == me || st->st_uid == 0)
		return NULL;
	return xasprintf("owned by uid %lu, not by the agent's user (uid %lu) "
	                 "or root",
	    (unsigned long)st->st_uid, (unsigned long)me);
}

/* Why the secret path (opened as fd, fstat st) may not be used, or NULL. */
static char *
secret_problem(const char *path, const struct stat *st)
{
	struct stat ds;
	char *dir, *slash, *who, *why;

	why = owner_problem(st);
	if (why != NULL)
		return why;
	who = others_can(st->st_mode & 077);
	if (who != NULL) {
		why =
		    xasprintf("mode %04o: %s; a secret must be readable by its "
		              "owner only (chmod 600 '%s')",
		        (unsigned)(st->st_mode & 07777), who, path);
		free(who);
		return why;
	}
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash == dir) {
		slash[1] = '\0';
	} else if (slash != NULL) {
		*slash = '\0';
	} else {
		free(dir);
		dir = xstrdup(".");
	}
	if (stat(dir, &ds) < 0) {
		why = xasprintf("its folder '%s' cannot be read: %s", dir,
		    strerror(errno));
		free(dir);
		return why;
	}
	who = owner_problem(&ds);
	if (who != NULL) {
		why = xasprintf("its folder '%s' is %s", dir, who);
		free(who);
	} else if (ds.st_mode & 022) {
		who = others_can(ds.st_mode & 022);
		why = xasprintf(
		    "its folder '%s' has mode %04o: %s, and so "
		    "replace the file; the folder must be writable by "
		    "its owner only (chmod 700 '%s')",
		    dir, (unsigned)(ds.st_mode & 07777), who, dir);
		free(who);
	}
	free(dir);
	return why;
}

int
agent_creds_open_secret(int *fd_out, const char *path, char **why)
{
	struct err e = {0};
	struct stat st;
	int fd = -1;

	*why = NULL;
	if (afile_open(&fd, &st, path, AFILE_NOFOLLOW | AFILE_AT_PATH, &e) <
	    0) {
		*why = e.msg;
		e.msg = NULL;
		err_release(&e);
		return -1;
	}
	*why = secret_problem(path, &st);
	if (*why != NULL) {
		(void)close(fd);
		return -1;
	}
	*fd_out = fd;
	return 0;
}

int
agent_creds_read(char **out, const char *dir, const char *node,
    const char *name, struct err *err)
{
	char *path = NULL, *buf = xmalloc(CREDS_MAX + 2), *bad = NULL;
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
	if (agent_creds_open_secret(&fd, path, &bad) < 0) {
		err_setf(err, NULL, "node '%s': credentials file '%s': %s",
		    node, path, bad);
		goto done;
	}
	n = read_small(fd, buf, CREDS_MAX);
	if (n < 0)
		why = "could not be read";
	else if (n > CREDS_MAX)
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
	free(bad);
	free(path);
	return rc;
}

int
agent_creds_read_secret(char **out, const char *dir, const char *name,
    const char *key, struct err *err)
{
	char *path = xasprintf("%s/%s", dir, name), *why = NULL, *text = NULL;
	size_t len = 0, n;
	int fd = -1, rc = -1;

	if (agent_creds_open_secret(&fd, path, &why) < 0) {
		err_setf(err, NULL, "%s '%s': %s", key, path, why);
		goto done;
	}
	if (afile_read_fd(&text, &len, fd, path, CREDS_SECRET_MAX, err) < 0)
		goto done;
	n = strcspn(text, "\r\n");
	explicit_bzero(text + n, len - n); /* the first line only is kept */
	*out = text;
	text = NULL;
	rc = 0;
done:
	if (fd >= 0)
		close(fd);
	free(why);
	free(path);
	return rc;
}

int
agent_creds_check_secret(const char *dir, const char *name, const char *key,
    struct err *err)
{
	char *path = xasprintf("%s/%s", dir, name), *why = NULL;
	int fd = -1, rc;

	rc = agent_creds_open_secret(&fd, path, &why);
	if (rc < 0)
		err_setf(err, NULL, "%s '%s': %s", key, path, why);
	else
		close(fd);
	free(why);
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
	char *buf = xmalloc(KEY_MAX + 2), *bad = NULL;
	const char *why = NULL;
	ssize_t n;
	int fd = -1, rc = -1;

	if (agent_creds_open_secret(&fd, path, &bad) < 0) {
		err_setf(err, NULL, "%s: key file '%s': %s", what, path, bad);
		free(bad);
		goto done;
	}
	n = read_small(fd, buf, KEY_MAX);
	if (n < 0)
		why = "could not be read";
	else if ((size_t)n > KEY_MAX)
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
