/* agent/tls.c: see tls.h. */
#include "tls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/afile.h"
#include "../lib/xalloc.h"
#include "creds.h"

#define CERT_MAX ((size_t)1024 * 1024) /* bytes of a certificate file */

/* The certificate file path (from what) holds a PEM certificate: the
 * mistake of a key or a DER file given for it is told now, not as a TLS
 * failure of every node. 0, or -1 with err. */
static int
cert_check(const char *path, const char *what, struct err *err)
{
	struct err e = {0};
	char *text = NULL;
	size_t len = 0;
	int rc = 0;

	if (afile_read(&text, &len, path, CERT_MAX, &e) < 0) {
		/* afile's message names the file */
		rc = err_setf(err, NULL, "%s: %s", what, e.msg);
		err_release(&e);
		return rc;
	}
	if (strstr(text, "-----BEGIN CERTIFICATE-----") == NULL)
		rc = err_setf(err, NULL,
		    "%s: '%s' holds no PEM certificate ('-----BEGIN "
		    "CERTIFICATE-----')",
		    what, path);
	free(text);
	return rc;
}

/* The CA file (from what) is no FIFO, device or folder, which would block
 * libcurl or fail it obscurely: refused now, naming it. A missing or
 * unreadable one is left to the request, whose refusal names it for every
 * node (UNREACHABLE, docs/jolokia-client.md). The daemon's tls.ca-file is
 * checked once at start (agent_git_set_ca_file). 0, or -1 with err. */
static int
ca_check(const char *path, const char *what, struct err *err)
{
	struct stat st;

	if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	return err_setf(err, NULL, "%s: '%s' is %s, not a regular file", what,
	    path, afile_mode_name(st.st_mode));
}

bool
agent_tls_given(const struct agent_cmd_args *args, size_t first)
{
	size_t i;

	for (i = 0; i < AGENT_TLS_NOPTIONS; i++)
		if (args->opt[first + i] != NULL)
			return true;
	return false;
}

int
agent_tls_from_args(struct agent_tls *out, const char *cmd,
    const struct agent_cmd_args *args, size_t first)
{
	const char *cert = args->opt[first + 1], *key = args->opt[first + 2];
	const char *max = args->opt[first + 3], *tmo = args->opt[first + 4];
	struct err err = {0};
	char *msg;
	long n;

	memset(out, 0, sizeof(*out));
	out->ca_file = args->opt[first];
	if (max != NULL && (agent_conf_size_parse(max, &n) < 0 ||
	                       n < AGENT_REPLY_MIN || n > AGENT_REPLY_MAX))
		return agent_usage_error(cmd,
		    "--reply-max takes a size from 1MiB to 4GiB (512KiB, "
		    "64MiB, 1GiB), not '%s'",
		    max);
	if (max != NULL)
		out->reply_max = (size_t)n;
	if (tmo != NULL && (out->timeout_ms = agent_seconds_ms(tmo, 3600)) < 0)
		return agent_usage_error(cmd,
		    "--timeout: expected seconds in (0, 3600], got '%s'", tmo);
	if (cert != NULL && key == NULL)
		return agent_usage_error(cmd,
		    "--client-cert needs --client-key (its private key)");
	if (key != NULL && cert == NULL)
		return agent_usage_error(cmd,
		    "--client-key needs --client-cert (its certificate)");
	if (out->ca_file != NULL &&
	    ca_check(out->ca_file, "--ca-file", &err) < 0)
		goto fail;
	if (cert == NULL)
		return AGENT_CMD_CONTINUE;
	if (cert_check(cert, "--client-cert", &err) == 0 &&
	    agent_creds_read_key(&out->key, key, "--client-key", &err) == 0) {
		out->cert_file = cert;
		return AGENT_CMD_CONTINUE;
	}
fail:
	msg = err_render(&err);
	fprintf(stderr, "artemis-gitops %s: %s\n", cmd, msg);
	free(msg);
	err_release(&err);
	return AGENT_EXIT_FAIL;
}

int
agent_tls_from_conf(struct agent_tls *out, const struct agent_conf *conf,
    struct err *err)
{
	char *path;
	int rc;

	memset(out, 0, sizeof(*out));
	out->reply_max = (size_t)conf->broker_reply_max;
	out->timeout_ms = 1000 * conf->broker_timeout;
	out->ca_file = conf->tls_ca_file;
	if (conf->tls_client_cert == NULL)
		return 0;
	/* the loader refuses one without the other and a key without a
	 * credentials folder */
	if (conf->tls_client_key_file == NULL || conf->credentials == NULL)
		return err_setf(err, NULL,
		    "tls.client-cert-file needs tls.client-key-file in the "
		    "credentials folder");
	if (cert_check(conf->tls_client_cert, "tls.client-cert-file", err) < 0)
		return -1;
	path = xasprintf("%s/%s", conf->credentials, conf->tls_client_key_file);
	rc = agent_creds_read_key(&out->key, path, "tls.client-key-file", err);
	free(path);
	if (rc == 0)
		out->cert_file = conf->tls_client_cert;
	return rc;
}

void
agent_tls_http(const struct agent_tls *t, struct live_http_opts *http)
{
	http->max_response = t != NULL ? t->reply_max : 0;
	if (t != NULL)
		agent_http_timeout(http, t->timeout_ms);
	http->ca_file = t != NULL ? t->ca_file : NULL;
	http->cert_file = t != NULL ? t->cert_file : NULL;
	http->key_pem = t != NULL ? t->key : NULL;
}

void
agent_http_timeout(struct live_http_opts *http, long timeout_ms)
{
	if (timeout_ms <= 0)
		return;
	http->timeout_ms = timeout_ms;
	if (timeout_ms < 5000)
		http->connect_timeout_ms = timeout_ms;
}

void
agent_tls_release(struct agent_tls *t)
{
	agent_creds_free(t->key);
	memset(t, 0, sizeof(*t));
}
