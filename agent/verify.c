/* agent/verify.c: see verify.h. The commits a mode checks, each judged by
 * its signature's format: SSH (sshsig.c) or OpenPGP (gpg.c). */
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/afile.h"
#include "../lib/sbuf.h"
#include "../lib/strv.h"
#include "../lib/xalloc.h"
#include "gpg.h"
#include "sshsig.h"

#define SIG_MAX     ((size_t)64 * 1024)       /* bytes of a signature */
#define PAYLOAD_MAX ((size_t)4 * 1024 * 1024) /* bytes of a signed commit */

struct agent_verify {
	long mode;
	char *allowed_path; /* NULL: no SSH signature is trusted */
	char *allowed;      /* the file as read at start or reload */
	size_t allowed_len, nssh;
	char *keyring_path; /* NULL: no OpenPGP signature is trusted */
	struct agent_gpg *gpg;
	size_t ngpg;
};

static const char *const why_names[] = {
    [AGENT_VERIFY_GOOD] = "good signature",
    [AGENT_VERIFY_UNSIGNED] = "unsigned",
    [AGENT_VERIFY_BAD] = "bad signature",
    [AGENT_VERIFY_UNKNOWN_KEY] = "signed by a key that is not trusted",
    [AGENT_VERIFY_EXPIRED] = "signed by an expired key",
    [AGENT_VERIFY_REVOKED] = "signed by a revoked key",
    [AGENT_VERIFY_UNSUPPORTED] = "signature not checkable",
    [AGENT_VERIFY_ERROR] = "signature not checked",
};

const char *
agent_verify_why_name(enum agent_verify_why w)
{
	if ((size_t)w >= sizeof(why_names) / sizeof(why_names[0]))
		return "?";
	return why_names[w];
}

void
agent_verify_sig_release(struct agent_verify_sig *s)
{
	free(s->key);
	free(s->signer);
	free(s->detail);
	memset(s, 0, sizeof(*s));
}

void
agent_verify_verdict_release(struct agent_verify_verdict *vd)
{
	agent_verify_sig_release(&vd->sig);
	free(vd->note);
	memset(vd, 0, sizeof(*vd));
}

int
agent_verify_new(struct agent_verify **out, const struct agent_conf *conf,
    struct err *err)
{
	struct agent_verify *v;

	if (conf->verify_mode == AGENT_CONF_VERIFY_OFF) {
		*out = NULL;
		return 0;
	}
	v = xcalloc(1, sizeof(*v));
	v->mode = conf->verify_mode;
	if (conf->verify_allowed_signers != NULL) {
		v->allowed_path = xstrdup(conf->verify_allowed_signers);
		if (afile_read(&v->allowed, &v->allowed_len, v->allowed_path,
		        AGENT_SSHSIG_ALLOWED_MAX, err) < 0 ||
		    agent_sshsig_allowed_check(v->allowed_path, v->allowed,
		        v->allowed_len, &v->nssh, err) < 0)
			goto fail;
	}
	if (conf->verify_gpg_keyring != NULL) {
		v->keyring_path = xstrdup(conf->verify_gpg_keyring);
		if (agent_gpg_open(&v->gpg, v->keyring_path, &v->ngpg, err) < 0)
			goto fail;
	}
	*out = v;
	return 0;
fail:
	agent_verify_free(v);
	return -1;
}

void
agent_verify_free(struct agent_verify *v)
{
	if (v == NULL)
		return;
	free(v->allowed_path);
	free(v->allowed);
	free(v->keyring_path);
	agent_gpg_free(v->gpg);
	free(v);
}

static bool
starts_with(const struct sbuf *b, const char *prefix)
{
	return b->len >= strlen(prefix) &&
	       strncmp(b->buf, prefix, strlen(prefix)) == 0;
}

/* Judge commit oid's signature into *out. */
static void
check_one(struct agent_verify *v, struct agent_git_repo *r, const char *oid,
    const struct agent_verify_tick *tick, struct agent_verify_sig *out)
{
	struct sbuf sig = {0}, payload = {0};
	struct err err = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	sbuf_init(&sig, SIG_MAX);
	sbuf_init(&payload, PAYLOAD_MAX);
	rc = agent_git_commit_signature(r, oid, &sig, &payload, &err);
	if (rc == AGENT_GIT_EUNSIGNED) {
		out->why = AGENT_VERIFY_UNSIGNED;
	} else if (rc < 0) {
		out->why = AGENT_VERIFY_ERROR;
		out->detail = xstrdup(err.msg);
	} else if (starts_with(&sig, AGENT_SSHSIG_ARMOR)) {
		if (v->allowed == NULL) {
			out->why = AGENT_VERIFY_UNSUPPORTED;
			out->detail = xstrdup(
			    "an SSH signature, and no allowed signers file is "
			    "configured (repository.verify.allowed-signers)");
		} else if (agent_sshsig_check(v->allowed_path, v->allowed,
		               v->allowed_len, sig.buf, sig.len, payload.buf,
		               payload.len, tick, out, &err) < 0) {
			out->why = AGENT_VERIFY_ERROR;
			out->detail = xstrdup(err.msg);
		}
	} else if (starts_with(&sig, AGENT_GPG_ARMOR)) {
		if (v->gpg == NULL) {
			out->why = AGENT_VERIFY_UNSUPPORTED;
			out->detail = xstrdup(
			    "an OpenPGP signature, and no keyring is configured "
			    "(repository.verify.gpg-keyring)");
		} else if (agent_gpg_check(v->gpg, sig.buf, sig.len,
		               payload.buf, payload.len, out, &err) < 0) {
			out->why = AGENT_VERIFY_ERROR;
			out->detail = xstrdup(err.msg);
		}
	} else {
		out->why = AGENT_VERIFY_UNSUPPORTED;
		out->detail =
		    xstrdup("a signature format the agent does not "
		            "check (neither OpenPGP nor SSH; X.509?)");
	}
	sbuf_release(&sig);
	sbuf_release(&payload);
	err_release(&err);
}

/* The commits to check, newest first; vd->note says how the base was
 * chosen. -1 (err set) when the range cannot be walked. */
static int
commits_of(struct agent_verify *v, struct agent_git_repo *r, const char *head,
    const char *base, struct strv *out, struct agent_verify_verdict *vd,
    struct err *err)
{
	if (v->mode != AGENT_CONF_VERIFY_SINCE_APPLIED) {
		strv_add(out, head);
		return 0;
	}
	if (base == NULL || base[0] == '\0') {
		vd->note = xstrdup("the cluster was never applied: its head "
		                   "alone is checked");
		strv_add(out, head);
		return 0;
	}
	if (!agent_git_has_commit(r, base)) {
		vd->note = xasprintf("the applied revision %.12s is not in the "
		                     "repository: the head alone is checked",
		    base);
		strv_add(out, head);
		return 0;
	}
	if (agent_git_first_parents(r, head, base, AGENT_VERIFY_COMMITS_MAX,
	        out, err) < 0)
		return -1;
	if (out->n == 0) /* head is base, or behind it: still judged */
		strv_add(out, head);
	vd->note = xasprintf("%zu first-parent commit%s since the applied "
	                     "revision %.12s",
	    out->n, out->n == 1 ? "" : "s", base);
	return 0;
}

void
agent_verify_commit(struct agent_verify *v, struct agent_git_repo *r,
    const char *head, const char *base, const struct agent_verify_tick *tick,
    struct agent_verify_verdict *vd)
{
	struct strv list = {0};
	struct err err = {0};
	size_t i;

	memset(vd, 0, sizeof(*vd));
	snprintf(vd->commit, sizeof(vd->commit), "%s", head);
	if (commits_of(v, r, head, base, &list, vd, &err) < 0) {
		vd->sig.why = AGENT_VERIFY_ERROR;
		vd->sig.detail = xstrdup(err.msg);
		err_release(&err);
		return;
	}
	/* oldest first: the verdict names the earliest untrusted commit */
	for (i = list.n; i-- > 0;) {
		agent_verify_sig_release(&vd->sig);
		snprintf(vd->commit, sizeof(vd->commit), "%s", list.v[i]);
		check_one(v, r, list.v[i], tick, &vd->sig);
		vd->checked++;
		if (vd->sig.why != AGENT_VERIFY_GOOD)
			break;
	}
	vd->trusted = vd->sig.why == AGENT_VERIFY_GOOD;
	strv_release(&list);
}

char *
agent_verify_verdict_line(const struct agent_verify_verdict *vd)
{
	const struct agent_verify_sig *s = &vd->sig;
	struct sbuf b = {0};

	sbuf_addf(&b, "commit %s: %s", vd->commit,
	    agent_verify_why_name(s->why));
	if (s->why == AGENT_VERIFY_GOOD && s->signer != NULL)
		sbuf_addf(&b, " by %s", s->signer);
	if (s->key != NULL)
		sbuf_addf(&b, " (%s)", s->key);
	if (s->why != AGENT_VERIFY_GOOD && s->signer != NULL)
		sbuf_addf(&b, " of %s", s->signer);
	if (s->detail != NULL)
		sbuf_addf(&b, ": %s", s->detail);
	return sbuf_take(&b);
}

char *
agent_verify_next_step(const struct agent_verify *v,
    const struct agent_verify_verdict *vd)
{
	struct sbuf trusted = {0};
	char *s;

	if (v->allowed_path != NULL)
		sbuf_addf(&trusted, "the allowed signers file %s",
		    v->allowed_path);
	if (v->keyring_path != NULL)
		sbuf_addf(&trusted, "%sthe OpenPGP keyring %s",
		    v->allowed_path != NULL ? " or " : "", v->keyring_path);
	switch (vd->sig.why) {
	case AGENT_VERIFY_UNKNOWN_KEY:
	case AGENT_VERIFY_EXPIRED:
		s = xasprintf("if the key is to be trusted, put it in %s and "
		              "reload the agent (SIGHUP: the head is checked "
		              "again); else push a commit signed with a "
		              "trusted key, which supersedes this preview",
		    sbuf_str(&trusted));
		break;
	case AGENT_VERIFY_ERROR:
		s = xstrdup("fix the cause named above; the daemon checks "
		            "the head again, with backoff");
		break;
	default:
		s = xasprintf("push a commit signed (git commit -S) with a key "
		              "in %s, which supersedes this preview",
		    sbuf_str(&trusted));
	}
	sbuf_release(&trusted);
	return s;
}

char *
agent_verify_describe(const struct agent_verify *v)
{
	struct sbuf b = {0};

	sbuf_addf(&b, "repository.verify.mode: %s\n",
	    agent_conf_verify_mode_name(v->mode));
	if (v->allowed_path != NULL)
		sbuf_addf(&b, "allowed signers: %s (%zu key%s)\n",
		    v->allowed_path, v->nssh, v->nssh == 1 ? "" : "s");
	if (v->keyring_path != NULL)
		sbuf_addf(&b, "OpenPGP keyring: %s (%zu key%s)\n",
		    v->keyring_path, v->ngpg, v->ngpg == 1 ? "" : "s");
	return sbuf_take(&b);
}
