/* agent/daemon/hostkey.c: SSH host keys against a known_hosts file
 * (daemon-int.h, "hostkey.c"). */

#include "daemon-int.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
daemon_hostkey_fingerprint(const unsigned char *key, size_t len,
    char out[DAEMON_HOSTKEY_FP_MAX])
{
	struct sha256 s;
	unsigned char d[SHA256_LEN];
	size_t i, o = 0;
	unsigned v;

	sha256_init(&s);
	sha256_update(&s, key, len);
	sha256_final(&s, d);
	memcpy(out, "SHA256:", 7);
	o = 7;
	for (i = 0; i < SHA256_LEN; i += 3) {
		v = (unsigned)d[i] << 16;
		if (i + 1 < SHA256_LEN)
			v |= (unsigned)d[i + 1] << 8;
		if (i + 2 < SHA256_LEN)
			v |= d[i + 2];
		out[o++] = b64[(v >> 18) & 63];
		out[o++] = b64[(v >> 12) & 63];
		if (i + 1 < SHA256_LEN)
			out[o++] = b64[(v >> 6) & 63];
		if (i + 2 < SHA256_LEN)
			out[o++] = b64[v & 63];
	}
	out[o] = '\0';
}

char *
daemon_hostkey_name(const char *host, int port)
{
	if (port == 22 || port <= 0)
		return xstrdup(host);
	return xasprintf("[%s]:%d", host, port);
}

int
daemon_hostkey_url_port(const char *url)
{
	const char *p, *end, *at;
	long port;

	if (strncmp(url, "ssh://", 6) != 0)
		return 22;
	p = url + 6;
	end = p + strcspn(p, "/");
	at = memchr(p, '@', (size_t)(end - p));
	if (at != NULL)
		p = at + 1;
	if (*p == '[') {
		p = memchr(p, ']', (size_t)(end - p));
		if (p == NULL)
			return 22;
	}
	p = memchr(p, ':', (size_t)(end - p));
	if (p == NULL || p + 1 >= end)
		return 22;
	port = strtol(p + 1, NULL, 10);
	return port > 0 && port < 65536 ? (int)port : 22;
}

static int
b64_val(char c)
{
	const char *p = strchr(b64, c);

	return c != '\0' && p != NULL ? (int)(p - b64) : -1;
}

/* Decode base64 text s into *out (owned). -1 when s is not base64. */
static int
b64_decode(unsigned char **out, size_t *len, const char *s)
{
	size_t n = strlen(s), i, o = 0;
	unsigned char *buf;
	unsigned v = 0;
	int bits = 0, d;

	while (n > 0 && s[n - 1] == '=')
		n--;
	buf = xmalloc(n * 3 / 4 + 3);
	for (i = 0; i < n; i++) {
		d = b64_val(s[i]);
		if (d < 0) {
			free(buf);
			return -1;
		}
		v = (v << 6) | (unsigned)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[o++] = (unsigned char)((v >> bits) & 0xff);
		}
	}
	*out = buf;
	*len = o;
	return 0;
}

/* OpenSSH's match_pattern: `*` and `?` only (`[` is literal, as in
 * "[host]:port"), case-insensitive. */
static bool
glob_match(const char *p, const char *s)
{
	for (; *p != '\0'; p++, s++) {
		if (*p == '*') {
			for (; *s != '\0'; s++)
				if (glob_match(p + 1, s))
					return true;
			return glob_match(p + 1, s);
		}
		if (*s == '\0' || (*p != '?' && tolower((unsigned char)*p) !=
		                                    tolower((unsigned char)*s)))
			return false;
	}
	return *s == '\0';
}

/* Does the comma-separated pattern list match name? A matching negated
 * pattern wins (as in OpenSSH). */
static bool
hosts_match(char *list, const char *name)
{
	char *pat, *save = NULL;
	bool hit = false;

	for (pat = strtok_r(list, ",", &save); pat != NULL;
	     pat = strtok_r(NULL, ",", &save)) {
		if (pat[0] == '!') {
			if (glob_match(pat + 1, name))
				return false;
		} else if (glob_match(pat, name)) {
			hit = true;
		}
	}
	return hit;
}

struct kh_scan {
	const char *name;
	const unsigned char *key;
	size_t len;
	bool known, match, revoked;
};

static void
scan_line(struct kh_scan *k, char *line)
{
	char *f[4], *save = NULL, *tok;
	unsigned char *blob = NULL;
	size_t n = 0, blen = 0;
	bool revoked = false;

	for (tok = strtok_r(line, " \t\r", &save); tok != NULL && n < 4;
	     tok = strtok_r(NULL, " \t\r", &save))
		f[n++] = tok;
	if (n < 3 || f[0][0] == '#')
		return;
	if (f[0][0] == '@') {
		if (strcmp(f[0], "@revoked") != 0 || n < 4)
			return; /* @cert-authority: not supported */
		revoked = true;
		f[0] = f[1];
		f[1] = f[2];
		f[2] = f[3];
	}
	if (f[0][0] == '|' || !hosts_match(f[0], k->name))
		return;
	if (b64_decode(&blob, &blen, f[2]) < 0)
		return;
	if (blen == k->len && memcmp(blob, k->key, blen) == 0) {
		if (revoked)
			k->revoked = true;
		else
			k->match = true;
	} else if (!revoked) {
		k->known = true;
	}
	free(blob);
}

int
daemon_hostkey_check(enum daemon_hostkey_result *out, const char *path,
    const char *host, int port, const unsigned char *key, size_t len,
    struct err *err)
{
	struct kh_scan k;
	char *text = NULL, *line, *save = NULL, *name;

	if (afile_read(&text, NULL, path, DAEMON_HOSTKEY_FILE_MAX, err) < 0)
		return -1;
	name = daemon_hostkey_name(host, port);
	memset(&k, 0, sizeof(k));
	k.name = name;
	k.key = key;
	k.len = len;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		scan_line(&k, line);
	if (k.revoked)
		*out = DAEMON_HOSTKEY_REVOKED;
	else if (k.match)
		*out = DAEMON_HOSTKEY_OK;
	else if (k.known)
		*out = DAEMON_HOSTKEY_CHANGED;
	else
		*out = DAEMON_HOSTKEY_UNKNOWN;
	free(name);
	free(text);
	return 0;
}
