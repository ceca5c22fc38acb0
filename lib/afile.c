#include "afile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

static int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
fsync_dir_of(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int fd, rc;

	if (slash == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int
afile_writer_open(struct afile_writer *w, const char *path, mode_t mode,
    struct err *err)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (w->fd < 0) {
		err_setf(err, NULL, "cannot create '%s': %s", w->tmp,
		    strerror(errno));
		free(w->tmp);
		w->tmp = NULL;
		return -1;
	}
	w->path = xstrdup(path);
	return 0;
}

void
afile_writer_add(struct afile_writer *w, const void *data, size_t len)
{
	if (w->fd < 0 || w->errnum != 0)
		return;
	if (write_all(w->fd, data, len) < 0)
		w->errnum = errno;
}

void
afile_writer_abort(struct afile_writer *w)
{
	if (w->fd >= 0) {
		(void)close(w->fd);
		(void)unlink(w->tmp);
	}
	free(w->tmp);
	free(w->path);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

int
afile_writer_commit(struct afile_writer *w, struct err *err)
{
	int rc = -1;

	if (w->errnum == 0 && fsync(w->fd) < 0)
		w->errnum = errno;
	if (w->errnum != 0) {
		err_setf(err, NULL, "cannot write '%s': %s", w->tmp,
		    strerror(w->errnum));
		afile_writer_abort(w);
		return -1;
	}
	if (close(w->fd) < 0) {
		w->fd = -1;
		err_setf(err, NULL, "cannot write '%s': %s", w->tmp,
		    strerror(errno));
		(void)unlink(w->tmp);
		goto done;
	}
	w->fd = -1;
	if (rename(w->tmp, w->path) < 0) {
		err_setf(err, NULL, "cannot rename '%s' to '%s': %s", w->tmp,
		    w->path, strerror(errno));
		(void)unlink(w->tmp);
		goto done;
	}
	if (fsync_dir_of(w->path) < 0) {
		err_setf(err, NULL, "cannot sync the folder of '%s': %s",
		    w->path, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	afile_writer_abort(w);
	return rc;
}

int
afile_write(const char *path, const void *data, size_t len, mode_t mode,
    struct err *err)
{
	struct afile_writer w;

	if (afile_writer_open(&w, path, mode, err) < 0)
		return -1;
	afile_writer_add(&w, data, len);
	return afile_writer_commit(&w, err);
}

int
afile_append_sync(const char *path, const void *data, size_t len, mode_t mode,
    struct err *err)
{
	int fd, created;
	struct stat st;

	created = stat(path, &st) < 0;
	/* O_NONBLOCK: a FIFO put there fails the open (ENXIO) or is refused
	 * below instead of blocking the writer */
	fd = open(path,
	    O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
	    mode);
	if (fd < 0)
		return err_setf(err, NULL, "cannot open '%s': %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0) {
		err_setf(err, NULL, "cannot stat '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return err_setf(err, NULL,
		    "cannot append to '%s': it is %s, not a regular file", path,
		    afile_mode_name(st.st_mode));
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		err_setf(err, NULL, "cannot append to '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return err_setf(err, NULL, "cannot append to '%s': %s", path,
		    strerror(errno));
	if (created && fsync_dir_of(path) < 0)
		return err_setf(err, NULL, "cannot sync the folder of '%s': %s",
		    path, strerror(errno));
	return 0;
}

const char *
afile_mode_name(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a folder";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "an unknown kind of file";
}

static int open_failed(struct err *err, const char *path, unsigned flags,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* err: "'P' <what>" or, AFILE_AT_PATH, "<what>" at {P}; fmt gives <what>
 * as the first form wants it when it starts with "is ". */
static int
open_failed(struct err *err, const char *path, unsigned flags, const char *fmt,
    ...)
{
	struct pos at = {path, 0, 0};
	va_list ap;
	char *what;

	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	if (what == NULL)
		(void)err_setf(err, NULL, "cannot open '%s'", path);
	else if (flags & AFILE_AT_PATH)
		(void)err_setf(err, &at, "%s",
		    strncmp(what, "is ", 3) == 0 ? what + 3 : what);
	else if (strncmp(what, "is ", 3) == 0)
		(void)err_setf(err, NULL, "'%s' %s", path, what);
	else
		(void)err_setf(err, NULL, "%s", what);
	free(what);
	return -1;
}

/* Why open(path) failed with errno e, said of what is there. */
static int
why_not_opened(struct err *err, const char *path, unsigned flags, int e)
{
	struct stat st;

	if ((e == ENOENT || e == ELOOP) && lstat(path, &st) == 0 &&
	    S_ISLNK(st.st_mode)) {
		if (e == ENOENT)
			return open_failed(err, path, flags,
			    "is a dangling symbolic link");
		if (flags & AFILE_NOFOLLOW)
			return open_failed(err, path, flags,
			    "is a symbolic link, not a regular file");
		return open_failed(err, path, flags,
		    "is a symbolic link loop (too many levels of symbolic "
		    "links)");
	}
	/* open() refuses a socket (ENXIO) before fstat could say what it is */
	if (e == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return open_failed(err, path, flags,
		    "is %s, not a regular file", afile_mode_name(st.st_mode));
	if (flags & AFILE_AT_PATH)
		return open_failed(err, path, flags, "cannot open: %s",
		    strerror(e));
	return open_failed(err, path, flags, "cannot open '%s': %s", path,
	    strerror(e));
}

int
afile_open(int *fd_out, struct stat *st_out, const char *path, unsigned flags,
    struct err *err)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	struct stat st;
	int fd;

	if (flags & AFILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = open(path, oflags);
	if (fd < 0)
		return why_not_opened(err, path, flags, errno);
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		if (flags & AFILE_AT_PATH)
			return open_failed(err, path, flags, "cannot stat: %s",
			    strerror(e));
		return open_failed(err, path, flags, "cannot stat '%s': %s",
		    path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return open_failed(err, path, flags,
		    "is %s, not a regular file", afile_mode_name(st.st_mode));
	}
	*fd_out = fd;
	if (st_out != NULL)
		*st_out = st;
	return 0;
}

int
afile_read_fd(char **out, size_t *len_out, int fd, const char *path, size_t max,
    struct err *err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap;
	int rc = -1;

	if (fstat(fd, &st) < 0)
		return err_setf(err, NULL, "cannot stat '%s': %s", path,
		    strerror(errno));
	if ((unsigned long long)st.st_size > max)
		return err_setf(err, NULL,
		    "'%s' is too large (%lld bytes, at most %zu)", path,
		    (long long)st.st_size, max);
	cap = (size_t)st.st_size + 1;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			if (len >= max) {
				err_setf(err, NULL,
				    "'%s' is too large (at most %zu bytes)",
				    path, max);
				goto done;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_setf(err, NULL, "cannot read '%s': %s", path,
			    strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		err_setf(err, NULL, "'%s' is too large (at most %zu bytes)",
		    path, max);
		goto done;
	}
	buf[len] = '\0';
	*out = buf;
	buf = NULL;
	if (len_out)
		*len_out = len;
	rc = 0;
done:
	free(buf);
	return rc;
}

int
afile_read(char **out, size_t *len_out, const char *path, size_t max,
    struct err *err)
{
	int fd = -1, rc;

	if (afile_open(&fd, NULL, path, 0, err) < 0)
		return -1;
	rc = afile_read_fd(out, len_out, fd, path, max, err);
	close(fd);
	return rc;
}

int
afile_read_nofollow(char **out, size_t *len_out, struct stat *st_out,
    const char *path, size_t max, struct err *err)
{
	int fd = -1, rc;

	if (afile_open(&fd, st_out, path, AFILE_NOFOLLOW, err) < 0)
		return -1;
	rc = afile_read_fd(out, len_out, fd, path, max, err);
	close(fd);
	return rc;
}

int
afile_mkdirs(const char *path, mode_t mode, struct err *err)
{
	char *p = xstrdup(path);
	char *s;
	int rc = 0;

	for (s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		{
			char c = *s;

			*s = '\0';
			if (mkdir(p, mode) == 0) {
				/* the new entry is durable once its parent
				 * folder is synced */
				if (fsync_dir_of(p) < 0) {
					rc = err_setf(err, NULL,
					    "cannot sync the folder holding '%s': %s",
					    p, strerror(errno));
					break;
				}
			} else if (errno != EEXIST) {
				rc = err_setf(err, NULL,
				    "cannot create folder '%s': %s", p,
				    strerror(errno));
				break;
			}
			*s = c;
		}
		if (*s == '\0')
			break;
	}
	free(p);
	return rc;
}

int
afile_unlink_matching(const char *dir,
    bool (*match)(const char *name, void *ctx), void *ctx, struct err *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *path;
	int rc = 0;

	if (d == NULL)
		return errno == ENOENT
		           ? 0
		           : err_setf(err, NULL, "cannot read folder '%s': %s",
		                 dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (!match(e->d_name, ctx))
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (unlink(path) < 0 && errno != ENOENT)
			rc = err_setf(err, NULL, "cannot remove '%s': %s", path,
			    strerror(errno));
		free(path);
	}
	closedir(d);
	return rc;
}
