/* agent/sshsig.c: see sshsig.h. */
#include "sshsig.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/clock.h"
#include "../lib/sbuf.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"

extern char **environ;

/* ---- the allowed signers file ------------------------------------------ */

static bool
is_key_type(const char *s, size_t n)
{
	static const char *const types[] = {"ssh-", "ecdsa-", "sk-ssh-",
	    "sk-ecdsa-", "rsa-sha2-"};
	size_t i, l;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		l = strlen(types[i]);
		if (n > l && strncmp(s, types[i], l) == 0)
			return true;
	}
	return false;
}

/* The next white-space separated token of line at *p (a quoted part may
 * hold blanks, as in namespaces="git,file"); its length, 0 at the end,
 * (size_t)-1 for an unclosed quote. */
static size_t
next_token(const char *line, size_t len, size_t *p, const char **tok)
{
	size_t i = *p;
	bool quoted = false;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	*tok = line + i;
	*p = i;
	while (i < len && (quoted || (line[i] != ' ' && line[i] != '\t'))) {
		if (line[i] == '"')
			quoted = !quoted;
		i++;
	}
	if (quoted)
		return (size_t)-1;
	*p = i;
	return (size_t)(*tok - line) <= i ? i - (size_t)(*tok - line) : 0;
}

static bool
is_base64(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(
		        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		        "0123456789+/=",
		        s[i]) == NULL)
			return false;
	return n >= 16;
}

/* One line that is not blank or a comment; NULL, or why it is wrong. */
static const char *
allowed_line(const char *line, size_t len)
{
	const char *tok;
	size_t p = 0, n;

	n = next_token(line, len, &p, &tok); /* principals */
	if (n == (size_t)-1)
		return "an unclosed quote";
	n = next_token(line, len, &p, &tok);
	if (n == (size_t)-1)
		return "an unclosed quote in the options";
	if (n > 0 && !is_key_type(tok, n))
		n = next_token(line, len, &p, &tok); /* after the options */
	if (n == 0 || n == (size_t)-1 || !is_key_type(tok, n))
		return "expected principals, optional options, a key type "
		       "(ssh-ed25519, ssh-rsa, ecdsa-…) and the key";
	n = next_token(line, len, &p, &tok);
	if (n == (size_t)-1 || !is_base64(tok, n))
		return "the key after its type is not base64";
	return NULL;
}

int
agent_sshsig_allowed_check(const char *path, const char *text, size_t len,
    size_t *nkeys, struct err *err)
{
	struct pos pos = {path, 0, 0};
	const char *line = text, *nl, *why;
	size_t n = 0, l, i;

	if (memchr(text, '\0', len) != NULL)
		return err_setf(err, NULL,
		    "allowed signers file %s holds a NUL byte", path);
	while (line < text + len) {
		pos.line++;
		nl = memchr(line, '\n', (size_t)(text + len - line));
		l = nl != NULL ? (size_t)(nl - line)
		               : (size_t)(text + len - line);
		for (i = 0; i < l && (line[i] == ' ' || line[i] == '\t'); i++)
			;
		if (i < l && line[i] != '#' && line[i] != '\r') {
			why = allowed_line(line, l);
			if (why != NULL)
				return err_setf(err, &pos,
				    "allowed signers: %s", why);
			n++;
		}
		line += l + 1;
	}
	if (n == 0)
		return err_setf(err, NULL,
		    "allowed signers file %s lists no key", path);
	*nkeys = n;
	return 0;
}

/* ---- the judge ---------------------------------------------------------- */

int
agent_sshsig_parse_good(const char *out, char **key, char **principal)
{
	static const char good[] = "Good \"git\" signature ";
	const char *l, *w, *end;

	l = strstr(out, good);
	if (l == NULL || (l != out && l[-1] != '\n'))
		return -1;
	l += sizeof(good) - 1;
	end = strchr(l, '\n');
	if (end == NULL)
		end = l + strlen(l);
	w = strstr(l, "with ");
	if (w == NULL || w > end || end - (w + 5) < 1)
		return -1;
	if (strncmp(l, "for ", 4) == 0 && w > l + 5)
		*principal = xstrndup(l + 4, (size_t)(w - 1 - (l + 4)));
	else
		*principal = NULL;
	*key = xstrndup(w + 5, (size_t)(end - (w + 5)));
	return 0;
}

/* An allowed signers line that holds the key but is not valid now
 * (valid-after, valid-before): ssh-keygen says "key has expired" or
 * "key is not yet valid". The line that says so, or NULL. */
static const char *
says_expired(const char *out)
{
	const char *at = strstr(out, "key has expired");

	return at != NULL ? at : strstr(out, "not yet valid");
}

/* The tool's line holding at (NULL: its last non-empty line), one line
 * of safe text, with the allowed signers' anonymous file (/dev/fd/4)
 * named by its own path. */
static char *
last_words(const char *out, const char *at, const char *allowed_path)
{
	const char *end = out + strlen(out), *start;
	char *line, *fd, *shown;
	struct sbuf b = {0};

	if (at != NULL)
		end = at + strcspn(at, "\n");
	/* no line break, nor the sentence's full stop: the words go into
	 * sentences of ours */
	while (
	    end > out && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == '.'))
		end--;
	start = end;
	while (start > out && start[-1] != '\n')
		start--;
	if (start == end)
		return NULL;
	line = xstrndup(start, (size_t)(end - start));
	fd = strstr(line, "/dev/fd/4");
	if (fd != NULL && allowed_path != NULL) {
		sbuf_add(&b, line, (size_t)(fd - line));
		sbuf_adds(&b, allowed_path);
		sbuf_adds(&b, fd + 9);
		free(line);
		line = sbuf_take(&b);
	}
	shown = utf8_escape(line, utf8_line_problem);
	free(line);
	return shown;
}

void
agent_sshsig_judge(const struct agent_sshsig_run *novalidate,
    const struct agent_sshsig_run *find, const struct agent_sshsig_run *verify,
    const char *allowed_path, struct agent_verify_sig *out)
{
	char *key = NULL, *principal = NULL;

	memset(out, 0, sizeof(*out));
	if (novalidate->status != 0 ||
	    agent_sshsig_parse_good(novalidate->out, &key, &principal) < 0) {
		out->why = AGENT_VERIFY_BAD;
		out->detail = last_words(novalidate->out, NULL, allowed_path);
		return;
	}
	free(principal);
	principal = NULL;
	out->key = key;
	if (find == NULL || find->status != 0) {
		out->why = find != NULL && says_expired(find->out)
		               ? AGENT_VERIFY_EXPIRED
		               : AGENT_VERIFY_UNKNOWN_KEY;
		out->detail = find != NULL
		                  ? last_words(find->out,
		                        says_expired(find->out), allowed_path)
		                  : NULL;
		return;
	}
	if (verify == NULL || verify->status != 0 ||
	    agent_sshsig_parse_good(verify->out, &key, &principal) < 0) {
		out->why = verify != NULL && says_expired(verify->out)
		               ? AGENT_VERIFY_EXPIRED
		               : AGENT_VERIFY_UNKNOWN_KEY;
		out->detail = verify != NULL
		                  ? last_words(verify->out,
		                        says_expired(verify->out), allowed_path)
		                  : NULL;
		return;
	}
	free(out->key);
	out->key = key;
	out->signer = principal;
	out->why = AGENT_VERIFY_GOOD;
}

/* ---- running ssh-keygen -------------------------------------------------- */

/* fd moved above the numbers a run's files are given (0-4), so that no
 * dup2 of the run overwrites a file another one still has to copy. */
static int
high(int fd)
{
	int h;

	if (fd < 0 || fd > 4)
		return fd;
	h = fcntl(fd, F_DUPFD_CLOEXEC, 5);
	close(fd);
	return h;
}

/* An anonymous file holding data, at offset 0; -1 (err set). */
static int
memfile(const char *data, size_t len, struct err *err)
{
	int fd = high(memfd_create("artemis-gitops-sshsig", MFD_CLOEXEC));
	size_t off = 0;
	ssize_t r;

	if (fd < 0)
		return err_setf(err, NULL, "memfd_create: %s", strerror(errno));
	while (off < len) {
		r = write(fd, data + off, len - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			return err_setf(err, NULL, "memfd: %s",
			    strerror(errno));
		}
		off += (size_t)r;
	}
	return fd;
}

/* The files a run sees: 0 the payload, 3 the signature, 4 the allowed
 * signers. */
struct files {
	int payload, sig, allowed;
};

static int
rewind_all(const struct files *f, struct err *err)
{
	if (lseek(f->payload, 0, SEEK_SET) < 0 ||
	    lseek(f->sig, 0, SEEK_SET) < 0 ||
	    lseek(f->allowed, 0, SEEK_SET) < 0)
		return err_setf(err, NULL, "lseek: %s", strerror(errno));
	return 0;
}

static void
reap(pid_t pid, int *status, bool kill_it)
{
	int st = 0;

	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*status = !kill_it && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Read the child's output until it closes it, at most the deadline. */
static int
collect(pid_t pid, int fd, const struct agent_verify_tick *tick,
    struct sbuf *out, int *status, struct err *err)
{
	int64_t deadline = clock_monotonic_ms() + AGENT_SSHSIG_TIMEOUT_MS;
	struct pollfd pfd;
	char buf[1024];
	ssize_t r;
	int64_t left;

	for (;;) {
		if (tick != NULL && tick->fn != NULL)
			tick->fn(tick->arg);
		left = deadline - clock_monotonic_ms();
		if (left <= 0) {
			reap(pid, status, true);
			return err_setf(err, NULL,
			    "ssh-keygen gave no answer within %ds, stopped",
			    AGENT_SSHSIG_TIMEOUT_MS / 1000);
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left > 1000 ? 1000 : (int)left) < 0 &&
		    errno != EINTR) {
			reap(pid, status, true);
			return err_setf(err, NULL, "poll: %s", strerror(errno));
		}
		if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) == 0)
			continue;
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		if (out->len + (size_t)r <= AGENT_SSHSIG_OUT_MAX)
			sbuf_add(out, buf, (size_t)r);
	}
	reap(pid, status, false);
	return 0;
}

/* Run ssh-keygen with argv (its first element "ssh-keygen") on files f. */
static int
keygen(const char *const argv[], const struct files *f,
    const struct agent_verify_tick *tick, struct sbuf *out, int *status,
    struct err *err)
{
	posix_spawn_file_actions_t fa;
	int p[2], rc;
	pid_t pid;

	if (rewind_all(f, err) < 0)
		return -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return err_setf(err, NULL, "pipe: %s", strerror(errno));
	p[1] = high(p[1]);
	if (p[1] < 0) {
		close(p[0]);
		return err_setf(err, NULL, "fcntl: %s", strerror(errno));
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, f->payload, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_adddup2(&fa, f->sig, 3);
	posix_spawn_file_actions_adddup2(&fa, f->allowed, 4);
	rc = posix_spawnp(&pid, "ssh-keygen", &fa, NULL,
	    (char *const *)(uintptr_t)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		return err_setf(err, NULL, "cannot run ssh-keygen: %s",
		    strerror(rc));
	}
	rc = collect(pid, p[0], tick, out, status, err);
	close(p[0]);
	if (rc == 0 && *status == 127)
		return err_setf(err, NULL,
		    "cannot run ssh-keygen (exit 127): is openssh-client "
		    "installed?");
	return rc;
}

/* The first principal find-principals printed (a line; a comma ends it),
 * owned; NULL when none. */
static char *
first_principal(const char *out)
{
	size_t n = strcspn(out, ",\n\r");

	return n > 0 ? xstrndup(out, n) : NULL;
}

int
agent_sshsig_check(const char *allowed_path, const char *allowed,
    size_t allowed_len, const char *sig, size_t siglen, const char *payload,
    size_t len, const struct agent_verify_tick *tick,
    struct agent_verify_sig *out, struct err *err)
{
	const char *nv[] = {"ssh-keygen", "-Y", "check-novalidate", "-n", "git",
	    "-s", "/dev/fd/3", NULL};
	const char *fp[] = {"ssh-keygen", "-Y", "find-principals", "-f",
	    "/dev/fd/4", "-s", "/dev/fd/3", NULL};
	const char *vf[] = {"ssh-keygen", "-Y", "verify", "-f", "/dev/fd/4",
	    "-I", NULL, "-n", "git", "-s", "/dev/fd/3", NULL};
	struct files f = {-1, -1, -1};
	struct sbuf o1 = {0}, o2 = {0}, o3 = {0};
	struct agent_sshsig_run r1 = {0}, r2 = {0}, r3 = {0};
	char *principal = NULL;
	bool found = false, verified = false;
	int rc = -1;

	if ((f.payload = memfile(payload, len, err)) < 0 ||
	    (f.sig = memfile(sig, siglen, err)) < 0 ||
	    (f.allowed = memfile(allowed, allowed_len, err)) < 0)
		goto done;
	if (keygen(nv, &f, tick, &o1, &r1.status, err) < 0)
		goto done;
	r1.out = sbuf_str(&o1);
	if (r1.status == 0) {
		if (keygen(fp, &f, tick, &o2, &r2.status, err) < 0)
			goto done;
		r2.out = sbuf_str(&o2);
		found = true;
		principal = r2.status == 0 ? first_principal(r2.out) : NULL;
	}
	if (principal != NULL) {
		vf[6] = principal;
		if (keygen(vf, &f, tick, &o3, &r3.status, err) < 0)
			goto done;
		r3.out = sbuf_str(&o3);
		verified = true;
	}
	agent_sshsig_judge(&r1, found ? &r2 : NULL, verified ? &r3 : NULL,
	    allowed_path, out);
	rc = 0;
done:
	if (f.payload >= 0)
		close(f.payload);
	if (f.sig >= 0)
		close(f.sig);
	if (f.allowed >= 0)
		close(f.allowed);
	free(principal);
	sbuf_release(&o1);
	sbuf_release(&o2);
	sbuf_release(&o3);
	return rc;
}
