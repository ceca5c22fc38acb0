#include "afile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
afile_write(const char *path, const void *data, size_t len, mode_t mode,
    struct err *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int fd, rc = -1;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		err_setf(err, NULL, "cannot create '%s': %s", tmp,
		    strerror(errno));
		goto done;
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		err_setf(err, NULL, "cannot write '%s': %s", tmp,
		    strerror(errno));
		close(fd);
		unlink(tmp);
		goto done;
	}
	if (close(fd) < 0) {
		err_setf(err, NULL, "cannot write '%s': %s", tmp,
		    strerror(errno));
		unlink(tmp);
		goto done;
	}
	if (rename(tmp, path) < 0) {
		err_setf(err, NULL, "cannot rename '%s' to '%s': %s", tmp, path,
		    strerror(errno));
		unlink(tmp);
		goto done;
	}
	if (fsync_dir_of(path) < 0) {
		err_setf(err, NULL, "cannot sync the folder of '%s': %s", path,
		    strerror(errno));
		goto done;
	}
	rc = 0;
done:
	free(tmp);
	return rc;
}

int
afile_append_sync(const char *path, const void *data, size_t len, mode_t mode,
    struct err *err)
{
	int fd, created;
	struct stat st;

	created = stat(path, &st) < 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, mode);
	if (fd < 0)
		return err_setf(err, NULL, "cannot open '%s': %s", path,
		    strerror(errno));
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

/* afile_read and afile_read_nofollow: open with flags, *st of the file. */
static int
read_file(char **out, size_t *len_out, struct stat *st_out, const char *path,
    int flags, size_t max, struct err *err)
{
	int fd;
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap;
	int rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | flags);
	if (fd < 0 && errno == ELOOP && (flags & O_NOFOLLOW) != 0)
		return err_setf(err, NULL,
		    "'%s' is a symbolic link, not the file itself", path);
	if (fd < 0)
		return err_setf(err, NULL, "cannot open '%s': %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0) {
		err_setf(err, NULL, "cannot stat '%s': %s", path,
		    strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		err_setf(err, NULL, "'%s' is not a regular file", path);
		goto done;
	}
	if ((unsigned long long)st.st_size > max) {
		err_setf(err, NULL,
		    "'%s' is too large (%lld bytes, at most %zu)", path,
		    (long long)st.st_size, max);
		goto done;
	}
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
	if (st_out != NULL)
		*st_out = st;
	rc = 0;
done:
	free(buf);
	close(fd);
	return rc;
}

int
afile_read(char **out, size_t *len_out, const char *path, size_t max,
    struct err *err)
{
	return read_file(out, len_out, NULL, path, 0, max, err);
}

int
afile_read_nofollow(char **out, size_t *len_out, struct stat *st_out,
    const char *path, size_t max, struct err *err)
{
	return read_file(out, len_out, st_out, path, O_NOFOLLOW, max, err);
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
