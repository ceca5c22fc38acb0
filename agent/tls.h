/* agent/tls.h: the TLS of broker connections, one set for every command
 * that talks to brokers (snapshot, plan, delete-queue, apply, render
 * --predict-reload, import, mcp: the options --ca-file, --client-cert,
 * --client-key, and --reply-max, the cap on one read's reply, and
 * --timeout, the bound of one request) and for the daemon (its keys
 * tls.ca-file, tls.client-cert-file, tls.client-key-file,
 * broker-reply-max, broker-timeout): the CA file that verifies the
 * brokers, and the
 * client certificate and key of mutual TLS for brokers whose Jolokia
 * demands one. The key is a secret, read by agent_creds_read_key (the
 * rules of a credentials file) and wiped on release; it never reaches a
 * message. docs/agent-config.md says which key applies to what. */
#ifndef AGENT_TLS_H
#define AGENT_TLS_H

#include <stddef.h>

#include "../lib/err.h"
#include "../reconcile/live/live.h"
#include "agent.h"
#include "conf.h"

struct agent_tls {
	size_t reply_max;      /* bytes of one broker read's reply (--reply-max,
	                          broker-reply-max); 0: the default */
	long timeout_ms;       /* one request to a broker (--timeout,
	                          broker-timeout); 0: the default, 30 s */
	const char *ca_file;   /* borrowed; NULL: the system trust store */
	const char *cert_file; /* borrowed; NULL: no client certificate */
	char *key;             /* the key's PEM text, owned; NULL without
	                          cert_file */
};

/* The options, AGENT_TLS_NOPTIONS consecutive entries of a command's
 * option table from index first (an enum value of the command), parsed
 * by agent_tls_from_args. */
#define AGENT_TLS_NOPTIONS 5
#define AGENT_TLS_OPTIONS(first)                                               \
	[(first)] = {"ca-file", '\0', "FILE",                                  \
	    "CA certificates that verify https brokers\n"                      \
	    "(default: the system store)",                                     \
	    NULL},                                                             \
	[(first) + 1] = {"client-cert", '\0', "FILE",                          \
	    "client certificate (PEM) for brokers whose\n"                     \
	    "Jolokia requires mutual TLS (with --client-key)",                 \
	    NULL},                                                             \
	[(first) + 2] = {"client-key", '\0', "FILE",                           \
	    "its private key: unencrypted PEM, not readable\n"                 \
	    "by others",                                                       \
	    NULL},                                                             \
	[(first) + 3] = {"reply-max", '\0', "SIZE",                            \
	    "the largest reply one broker read may send\n"                     \
	    "(default 256MiB; 512KiB, 64MiB, 1GiB ...)",                       \
	    NULL},                                                             \
	[(first) + 4] = {"timeout", '\0', "S",                                 \
	    "total time of one request to a broker, in\n"                      \
	    "seconds (default 30, at most 3600)",                              \
	    NULL}

/* The bounds of --reply-max and broker-reply-max (conf.c's key). */
#define AGENT_REPLY_MIN (1L << 20)
#define AGENT_REPLY_MAX (4L << 30)

/* True when one of the options args->opt[first ..] was given. */
bool agent_tls_given(const struct agent_cmd_args *args, size_t first);

/* The options args->opt[first ..] of command cmd into *out (zeroed
 * first; release it in any case). AGENT_CMD_CONTINUE, or the exit code
 * with its message printed on stderr: a certificate without its key or a
 * key without its certificate is a usage error, a certificate file that
 * holds no PEM certificate or a key refused by agent_creds_read_key fails
 * (AGENT_EXIT_FAIL). */
int agent_tls_from_args(struct agent_tls *out, const char *cmd,
    const struct agent_cmd_args *args, size_t first);

/* The same from the daemon's configuration: tls.ca-file,
 * tls.client-cert-file and tls.client-key-file (a file of the credentials
 * folder), read now, so that a key replaced on disk is used at the next
 * read. 0, or -1 with err naming the key; *out is zeroed first, to be
 * released either way. */
int agent_tls_from_conf(struct agent_tls *out, const struct agent_conf *conf,
    struct err *err);

/* Set http's TLS fields (ca_file, cert_file, key_pem) from t, borrowed
 * from it; t NULL: none (the system store, no client certificate). */
void agent_tls_http(const struct agent_tls *t, struct live_http_opts *http);
/* A request bound of timeout_ms (0: leave the defaults) on http: the
 * whole request, and the connection too when that is shorter than the 5 s
 * connect default (`snapshot --timeout`, `broker-timeout`). */
void agent_http_timeout(struct live_http_opts *http, long timeout_ms);

/* Wipe the key and free it; leaves t zeroed. */
void agent_tls_release(struct agent_tls *t);

#endif
