/* agent/web/auth.c: who may do what on the web server (web-int.h).
 *
 * Tokens are files of the credentials folder (http.viewer-tokens,
 * http.approver-tokens), each read as a secret (agent_creds_read_secret:
 * owned by the agent's user, mode 0600 or 0400); only their SHA-256 is
 * kept in memory, and a presented token is hashed and compared with every
 * one in constant time. A browser exchanges its token once for a session:
 * 32 random bytes (getrandom), sent back as an HttpOnly, SameSite=Strict
 * cookie (Secure under TLS) that expires after http.session-ttl; the
 * session holds its own random CSRF token, which every form carries.
 */
#include "web-int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"
#include "../creds.h"

struct token {
	char name[128];
	enum web_role role;
	unsigned char hash[SHA256_LEN];
};

struct session {
	unsigned char hash[SHA256_LEN]; /* of the cookie's value */
	char name[128];
	enum web_role role;
	char csrf[65];
	int64_t expires; /* CLOCK_MONOTONIC seconds */
	int64_t created;
};

struct web_auth {
	pthread_mutex_t mu;
	struct token *tokens;
	size_t ntokens;
	struct session *sessions;
	size_t nsessions;
	bool anonymous_read;
	long ttl;
};

static const char *const role_names[] = {"nobody", "viewer", "approver"};

const char *
web_role_name(enum web_role r)
{
	return (unsigned)r < 3 ? role_names[r] : "nobody";
}

static int64_t
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

/* Equal in time independent of where they differ. */
static bool
same(const unsigned char *a, const unsigned char *b, size_t n)
{
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

static void
hash_of(const char *s, size_t n, unsigned char out[SHA256_LEN])
{
	struct sha256 h;

	sha256_init(&h);
	sha256_update(&h, s, n);
	sha256_final(&h, out);
}

static void
random_hex(char *out, size_t nbytes)
{
	unsigned char buf[32];
	size_t i, got = 0;
	ssize_t r;

	while (got < nbytes) {
		r = getrandom(buf + got, nbytes - got, 0);
		if (r > 0)
			got += (size_t)r;
	}
	for (i = 0; i < nbytes; i++)
		snprintf(out + 2 * i, 3, "%02x", buf[i]);
	explicit_bzero(buf, sizeof(buf));
}

static int
add_tokens(struct web_auth *a, const struct agent_conf *conf,
    const struct strv *files, enum web_role role, const char *key,
    struct err *err)
{
	struct token *t;
	char *secret = NULL;
	size_t i, j, n, k;

	for (i = 0; i < files->n; i++) {
		if (agent_creds_read_secret(&secret, conf->credentials,
		        files->v[i], key, err) < 0)
			return -1;
		n = strlen(secret);
		for (k = 0; k < n; k++)
			if ((unsigned char)secret[k] <= ' ' ||
			    (unsigned char)secret[k] >= 0x7f)
				break;
		if (k < n || n < WEB_TOKEN_MIN) {
			agent_creds_free(secret);
			return err_setf(err, NULL,
			    "%s '%s/%s': a token must be at least %d printable "
			    "ASCII characters without spaces (e.g. `openssl rand "
			    "-hex 32`)",
			    key, conf->credentials, files->v[i], WEB_TOKEN_MIN);
		}
		a->tokens = xreallocarray(a->tokens, a->ntokens + 1,
		    sizeof(*a->tokens));
		t = &a->tokens[a->ntokens];
		memset(t, 0, sizeof(*t));
		snprintf(t->name, sizeof(t->name), "%s", files->v[i]);
		j = strlen(t->name);
		if (j > 6 && strcmp(t->name + j - 6, ".token") == 0)
			t->name[j - 6] = '\0';
		t->role = role;
		hash_of(secret, n, t->hash);
		agent_creds_free(secret);
		secret = NULL;
		for (j = 0; j < a->ntokens; j++) {
			if (same(a->tokens[j].hash, t->hash, SHA256_LEN))
				return err_setf(err, NULL,
				    "%s '%s/%s' holds the same token as '%s': "
				    "each token must be its own",
				    key, conf->credentials, files->v[i],
				    a->tokens[j].name);
			if (strcmp(a->tokens[j].name, t->name) == 0)
				return err_setf(err, NULL,
				    "%s '%s': a token named '%s' exists "
				    "already",
				    key, files->v[i], t->name);
		}
		a->ntokens++;
	}
	return 0;
}

int
web_auth_load(struct web_auth **out, const struct agent_conf *conf,
    struct err *err)
{
	struct web_auth *a = xcalloc(1, sizeof(*a));

	pthread_mutex_init(&a->mu, NULL);
	a->anonymous_read = conf->http_anonymous_read;
	a->ttl = conf->http_session_ttl;
	if (add_tokens(a, conf, &conf->http_viewer_tokens, WEB_VIEWER,
	        "http.viewer-tokens", err) < 0 ||
	    add_tokens(a, conf, &conf->http_approver_tokens, WEB_APPROVER,
	        "http.approver-tokens", err) < 0) {
		web_auth_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

void
web_auth_free(struct web_auth *a)
{
	if (a == NULL)
		return;
	if (a->tokens != NULL)
		explicit_bzero(a->tokens, a->ntokens * sizeof(*a->tokens));
	free(a->tokens);
	if (a->sessions != NULL)
		explicit_bzero(a->sessions,
		    a->nsessions * sizeof(*a->sessions));
	free(a->sessions);
	pthread_mutex_destroy(&a->mu);
	free(a);
}

/* The token whose hash matches s, or NULL; every token is compared. */
static const struct token *
token_of(const struct web_auth *a, const char *s)
{
	unsigned char h[SHA256_LEN];
	const struct token *hit = NULL;
	size_t i;

	hash_of(s, strlen(s), h);
	for (i = 0; i < a->ntokens; i++)
		if (same(a->tokens[i].hash, h, SHA256_LEN))
			hit = &a->tokens[i];
	return hit;
}

static void
drop_expired(struct web_auth *a, int64_t now)
{
	size_t i = 0;

	while (i < a->nsessions) {
		if (a->sessions[i].expires > now) {
			i++;
			continue;
		}
		a->sessions[i] = a->sessions[--a->nsessions];
	}
}

static void
anonymous(const struct web_auth *a, struct web_who *out)
{
	out->role = a->anonymous_read ? WEB_VIEWER : WEB_NOBODY;
	snprintf(out->name, sizeof(out->name), "anonymous");
}

void
web_auth_who(struct web_auth *a, const struct web_req *r, struct web_who *out)
{
	const char *h = web_req_header(r, "Authorization"), *c;
	const struct token *t;
	unsigned char ch[SHA256_LEN];
	int64_t now = mono_s();
	size_t i;

	memset(out, 0, sizeof(*out));
	if (h != NULL) {
		/* a wrong or malformed token is nobody, even with
		 * anonymous reads: the client meant to be someone */
		out->role = WEB_NOBODY;
		snprintf(out->name, sizeof(out->name), "anonymous");
		if (strncasecmp(h, "Bearer ", 7) != 0)
			return;
		h += 7;
		h += strspn(h, " ");
		t = token_of(a, h);
		if (t == NULL)
			return;
		out->role = t->role;
		snprintf(out->name, sizeof(out->name), "%s", t->name);
		return;
	}
	c = web_req_cookie(r, WEB_SESSION_COOKIE);
	if (c == NULL || strlen(c) != 64) {
		anonymous(a, out);
		return;
	}
	hash_of(c, 64, ch);
	pthread_mutex_lock(&a->mu);
	drop_expired(a, now);
	for (i = 0; i < a->nsessions; i++) {
		if (!same(a->sessions[i].hash, ch, SHA256_LEN))
			continue;
		out->role = a->sessions[i].role;
		out->session = true;
		snprintf(out->name, sizeof(out->name), "%s",
		    a->sessions[i].name);
		memcpy(out->csrf, a->sessions[i].csrf, sizeof(out->csrf));
		break;
	}
	pthread_mutex_unlock(&a->mu);
	if (!out->session)
		anonymous(a, out);
}

bool
web_auth_login(struct web_auth *a, const char *token, char cookie[65],
    struct web_who *who)
{
	const struct token *t = token_of(a, token);
	struct session *s;
	int64_t now = mono_s();
	size_t i, oldest = 0;

	if (t == NULL)
		return false;
	pthread_mutex_lock(&a->mu);
	drop_expired(a, now);
	if (a->nsessions >= WEB_SESSIONS_MAX) {
		for (i = 1; i < a->nsessions; i++)
			if (a->sessions[i].created <
			    a->sessions[oldest].created)
				oldest = i;
		a->sessions[oldest] = a->sessions[--a->nsessions];
	}
	a->sessions =
	    xreallocarray(a->sessions, a->nsessions + 1, sizeof(*a->sessions));
	s = &a->sessions[a->nsessions++];
	memset(s, 0, sizeof(*s));
	random_hex(cookie, 32);
	hash_of(cookie, 64, s->hash);
	random_hex(s->csrf, 32);
	snprintf(s->name, sizeof(s->name), "%s", t->name);
	s->role = t->role;
	s->created = now;
	s->expires = now + a->ttl;
	memset(who, 0, sizeof(*who));
	who->role = s->role;
	who->session = true;
	memcpy(who->name, s->name, sizeof(who->name));
	memcpy(who->csrf, s->csrf, sizeof(who->csrf));
	pthread_mutex_unlock(&a->mu);
	return true;
}

void
web_auth_logout(struct web_auth *a, const char *cookie)
{
	unsigned char ch[SHA256_LEN];
	size_t i;

	if (cookie == NULL || strlen(cookie) != 64)
		return;
	hash_of(cookie, 64, ch);
	pthread_mutex_lock(&a->mu);
	for (i = 0; i < a->nsessions; i++) {
		if (same(a->sessions[i].hash, ch, SHA256_LEN)) {
			a->sessions[i] = a->sessions[--a->nsessions];
			break;
		}
	}
	pthread_mutex_unlock(&a->mu);
}

char *
web_auth_cookie_header(const struct web_auth *a, const char *cookie, bool tls)
{
	if (cookie == NULL || cookie[0] == '\0')
		return xasprintf(
		    "Set-Cookie: %s=; Path=/; Max-Age=0; HttpOnly; "
		    "SameSite=Strict%s",
		    WEB_SESSION_COOKIE, tls ? "; Secure" : "");
	return xasprintf("%s=%s; Path=/; Max-Age=%ld; HttpOnly; "
	                 "SameSite=Strict%s",
	    WEB_SESSION_COOKIE, cookie, a->ttl, tls ? "; Secure" : "");
}

bool
web_auth_csrf_ok(const struct web_who *who, const char *csrf)
{
	if (!who->session || csrf == NULL || strlen(csrf) != 64 ||
	    strlen(who->csrf) != 64)
		return false;
	return same((const unsigned char *)who->csrf,
	    (const unsigned char *)csrf, 64);
}

size_t
web_auth_sessions(struct web_auth *a)
{
	size_t n;

	pthread_mutex_lock(&a->mu);
	drop_expired(a, mono_s());
	n = a->nsessions;
	pthread_mutex_unlock(&a->mu);
	return n;
}
