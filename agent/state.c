/* agent/state.c: the state folder: lock, atomic files, audit log. */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/clock.h"
#include "../lib/sbuf.h"
#include "../lib/strv.h"
#include "../lib/xalloc.h"

struct agent_state {
	char *dir;
	int lock_fd;
	agent_state_mirror_fn *mirror; /* state-backend etcd, or NULL */
	void *mirror_ctx;
};

void
agent_state_set_mirror(struct agent_state *st, agent_state_mirror_fn *fn,
    void *ctx)
{
	st->mirror = fn;
	st->mirror_ctx = ctx;
}

#define HOLDER_MAX 4096 /* bytes of the lock file we read */

const char *
agent_state_default(const char *opt)
{
	static char buf[4096];
	const char *env = getenv("STATE_DIRECTORY");
	size_t n;

	if (opt != NULL && opt[0] != '\0')
		return opt;
	if (env == NULL || env[0] == '\0')
		return AGENT_STATE_DEFAULT;
	n = strcspn(env, ":");
	if (n >= sizeof(buf))
		return AGENT_STATE_DEFAULT;
	memcpy(buf, env, n);
	buf[n] = '\0';
	return buf;
}

char *
agent_state_path(const struct agent_state *st, const char *name)
{
	return xasprintf("%s/%s", st->dir, name);
}

const char *
agent_state_dir(const struct agent_state *st)
{
	return st->dir;
}

/* The value of `key=` in the lock file text, or "?"; owned by the caller.
 * Control bytes were replaced when the holder wrote it. */
static char *
lock_field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (*p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t len = eol != NULL ? (size_t)(eol - p) : strlen(p);

		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=')
			return xstrndup(p + klen + 1, len - klen - 1);
		p += len;
		if (*p == '\n')
			p++;
	}
	return xstrdup("?");
}

/* "pid N (COMMAND, since TIME)" from the text of a lock file; NULL when
 * the text records no holder (the holder has not written it yet). */
static char *
holder_describe(const char *text)
{
	char *pid, *cmd, *since, *s;

	if (strstr(text, "pid=") == NULL)
		return NULL;
	pid = lock_field(text, "pid");
	cmd = lock_field(text, "command");
	since = lock_field(text, "started");
	s = xasprintf("pid %s (%s, since %s)", pid, cmd, since);
	free(pid);
	free(cmd);
	free(since);
	return s;
}

static char *
fd_read_text(int fd)
{
	char *buf = xmalloc(HOLDER_MAX + 1);
	ssize_t n = pread(fd, buf, HOLDER_MAX, 0);

	buf[n > 0 ? (size_t)n : 0] = '\0';
	return buf;
}

char *
agent_state_lock_holder(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, AGENT_STATE_LOCK);
	char *text, *desc = NULL;
	struct err err = {0};
	int fd = -1;

	if (afile_open(&fd, NULL, path, 0, &err) < 0) {
		err_release(&err);
		free(path);
		return NULL;
	}
	free(path);
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		close(fd);
		return NULL;
	}
	text = fd_read_text(fd);
	desc = holder_describe(text);
	if (desc == NULL)
		desc = xstrdup("another process (not yet recorded)");
	free(text);
	close(fd);
	return desc;
}

/* Record the holder in the (locked) lock file. */
static int
lock_record(int fd, const char *path, const char *command, struct err *err)
{
	struct sbuf b = {0};
	char *now = clock_rfc3339_now();
	const char *c;
	int rc = 0;

	sbuf_addf(&b, "pid=%ld\ncommand=", (long)getpid());
	for (c = command; *c != '\0'; c++) {
		if ((unsigned char)*c < 0x20)
			sbuf_addc(&b, '?');
		else
			sbuf_addc(&b, *c);
	}
	sbuf_addf(&b, "\nstarted=%s\n", now);
	if (ftruncate(fd, 0) < 0 ||
	    pwrite(fd, sbuf_str(&b), b.len, 0) != (ssize_t)b.len ||
	    fsync(fd) < 0)
		rc = err_setf(err, NULL, "cannot write '%s': %s", path,
		    strerror(errno));
	sbuf_release(&b);
	free(now);
	return rc;
}

static int
lock_refused(int fd, const char *dir, struct err *err)
{
	char *text = fd_read_text(fd);
	char *desc = holder_describe(text);

	if (desc == NULL)
		desc = xstrdup("another process (not yet recorded)");
	err_setf(err, NULL, "state folder '%s' is locked by %s", dir, desc);
	free(desc);
	free(text);
	return -1;
}

int
agent_state_open(struct agent_state **out, const char *dir, const char *command,
    struct err *err)
{
	struct agent_state *st;
	struct stat sb;
	bool fd_fail = false;
	char *path;
	int fd;

	if (afile_mkdirs(dir, 0700, err) < 0)
		return -1;
	path = xasprintf("%s/%s", dir, AGENT_STATE_LOCK);
	fd = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
	    0600);
	if (fd < 0) {
		err_setf(err, NULL, "cannot open '%s': %s", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	if (fstat(fd, &sb) < 0) {
		err_setf(err, NULL, "cannot stat '%s': %s", path,
		    strerror(errno));
		fd_fail = true;
	} else if (!S_ISREG(sb.st_mode)) {
		err_setf(err, NULL, "'%s' is %s, not a regular file", path,
		    afile_mode_name(sb.st_mode));
		fd_fail = true;
	}
	if (fd_fail) {
		close(fd);
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK)
			lock_refused(fd, dir, err);
		else
			err_setf(err, NULL, "cannot lock '%s': %s", path,
			    strerror(errno));
		close(fd);
		free(path);
		return -1;
	}
	if (lock_record(fd, path, command, err) < 0) {
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	st = xcalloc(1, sizeof(*st));
	st->dir = xstrdup(dir);
	st->lock_fd = fd;
	*out = st;
	return 0;
}

void
agent_state_close(struct agent_state *st)
{
	if (st == NULL)
		return;
	if (st->lock_fd >= 0) {
		/* Clear the holder while we still hold the lock, so a reader
		 * never names a process that has gone. */
		if (ftruncate(st->lock_fd, 0) < 0)
			errno = 0; /* the stale text is harmless: the lock is
			              free */
		close(st->lock_fd);
	}
	free(st->dir);
	free(st);
}

int
agent_state_write(struct agent_state *st, const char *name, const void *data,
    size_t len, struct err *err)
{
	if (st->mirror != NULL &&
	    st->mirror(st->mirror_ctx, name, data, len, false, err) < 0)
		return -1;
	return agent_state_write_local(st, name, data, len, err);
}

int
agent_state_write_local(struct agent_state *st, const char *name,
    const void *data, size_t len, struct err *err)
{
	char *path = agent_state_path(st, name), *dir, *slash;
	int rc;

	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash != NULL)
		*slash = '\0';
	rc = afile_mkdirs(dir, 0700, err);
	free(dir);
	if (rc == 0)
		rc = afile_write(path, data, len, 0600, err);
	free(path);
	return rc;
}

int
agent_state_remove_local(struct agent_state *st, const char *name,
    struct err *err)
{
	char *path = agent_state_path(st, name);
	int rc = 0;

	if (unlink(path) < 0 && errno != ENOENT)
		rc = err_setf(err, NULL, "cannot remove '%s': %s", path,
		    strerror(errno));
	free(path);
	return rc;
}

int
agent_state_read(const struct agent_state *st, const char *name, char **out,
    size_t *len_out, struct err *err)
{
	char *path = agent_state_path(st, name);
	int rc;

	if (access(path, F_OK) < 0 && errno == ENOENT) {
		free(path);
		return 1;
	}
	rc = afile_read(out, len_out, path, AGENT_STATE_FILEMAX, err);
	free(path);
	return rc;
}

static int audit_append_local(struct agent_state *st, const char *row,
    struct err *err);

/* True when the file at path is non-empty and does not end in '\n' (a row
 * torn by a crash during an earlier append). */
static int
ends_torn(const char *path)
{
	struct err err = {0};
	char c = '\n';
	off_t end;
	int fd = -1;

	/* not there, or not a regular file: the append says so */
	if (afile_open(&fd, NULL, path, 0, &err) < 0) {
		err_release(&err);
		return 0;
	}
	end = lseek(fd, 0, SEEK_END);
	if (end > 0 && pread(fd, &c, 1, end - 1) != 1)
		c = '\n';
	close(fd);
	return c != '\n';
}

int
agent_state_audit_append(struct agent_state *st, const char *row,
    struct err *err)
{
	if (strchr(row, '\n') != NULL)
		return err_setf(err, NULL, "audit row spans several lines");
	if (st->mirror != NULL && st->mirror(st->mirror_ctx, AGENT_STATE_AUDIT,
	                              row, strlen(row), true, err) < 0)
		return -1;
	return audit_append_local(st, row, err);
}

static int
audit_append_local(struct agent_state *st, const char *row, struct err *err)
{
	char *path = agent_state_path(st, AGENT_STATE_AUDIT);
	struct sbuf b = {0};
	int rc;

	if (ends_torn(path))
		sbuf_addc(&b, '\n');
	sbuf_adds(&b, row);
	sbuf_addc(&b, '\n');
	rc = afile_append_sync(path, sbuf_str(&b), b.len, 0600, err);
	sbuf_release(&b);
	free(path);
	return rc;
}

int
agent_state_audit_each(const struct agent_state *st,
    int (*fn)(void *ctx, const char *row, size_t len), void *ctx,
    struct err *err)
{
	return agent_state_audit_each_dir(agent_state_dir(st), fn, ctx, err);
}

int
agent_state_audit_each_dir(const char *dir,
    int (*fn)(void *ctx, const char *row, size_t len), void *ctx,
    struct err *err)
{
	char *path = xasprintf("%s/%s", dir, AGENT_STATE_AUDIT);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int rc = 0;

	f = fopen(path, "re");
	if (f == NULL) {
		if (errno != ENOENT)
			rc = err_setf(err, NULL, "cannot read '%s': %s", path,
			    strerror(errno));
		free(path);
		return rc;
	}
	errno = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		if ((size_t)n > AGENT_STATE_FILEMAX) {
			rc = err_setf(err, NULL,
			    "'%s': a row is longer than %zu bytes", path,
			    AGENT_STATE_FILEMAX);
			break;
		}
		if (line[n - 1] != '\n')
			break; /* torn by a crash: not a row */
		line[--n] = '\0';
		if (fn(ctx, line, (size_t)n) != 0)
			break;
		errno = 0;
	}
	if (rc == 0 && ferror(f))
		rc = err_setf(err, NULL, "cannot read '%s': %s", path,
		    strerror(errno != 0 ? errno : EIO));
	fclose(f);
	free(line);
	free(path);
	return rc;
}

static int
collect(void *ctx, const char *row, size_t len)
{
	(void)len;
	strv_add(ctx, row);
	return 0;
}

int
agent_state_audit_merge(struct agent_state *st, const char *const *rows,
    size_t n, struct err *err)
{
	struct strv have = {0};
	size_t i;
	int rc = 0;

	if (n == 0)
		return 0;
	if (agent_state_audit_each(st, collect, &have, err) < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++)
		if (!strv_has(&have, rows[i]))
			rc = audit_append_local(st, rows[i], err);
	strv_release(&have);
	return rc;
}
