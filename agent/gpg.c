/* agent/gpg.c: see gpg.h. The only file that includes gpgme.
 *
 * gpgme runs gpg (and gpgconf) by fork() from the calling thread, which in
 * the daemon is its loop while the web server's threads run. That is safe
 * where a fork running our own code is not (agent/daemon/child.c): gpgme
 * 1.18's _gpgme_io_spawn forks twice and between fork and execve makes
 * only system calls (close_range, open of /dev/null, dup2), never the
 * allocator or a lock another thread may hold; checked with strace -f,
 * and tests/integration/79-daemon-signed.sh verifies OpenPGP commits with
 * the web server answering requests all along. */
#include "gpg.h"

#include <errno.h>
#include <ftw.h>
#include <gpgme.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"

_Static_assert(AGENT_GPG_SUM_KEY_REVOKED == GPGME_SIGSUM_KEY_REVOKED &&
                   AGENT_GPG_SUM_KEY_EXPIRED == GPGME_SIGSUM_KEY_EXPIRED &&
                   AGENT_GPG_SUM_SIG_EXPIRED == GPGME_SIGSUM_SIG_EXPIRED &&
                   AGENT_GPG_SUM_KEY_MISSING == GPGME_SIGSUM_KEY_MISSING &&
                   AGENT_GPG_SUM_RED == GPGME_SIGSUM_RED,
    "gpg.h's summary bits are gpgme's");

struct agent_gpg {
	char *home; /* the private GnuPG home, removed by agent_gpg_free */
	gpgme_ctx_t ctx;
};

/* The home's gpg.conf: no agent or dirmngr started, no key fetched, and
 * every key of the keyring valid (whether a key is trusted is the
 * judge's: it is trusted when the keyring holds it). */
static const char gpg_conf[] = "no-autostart\n"
                               "no-auto-key-retrieve\n"
                               "trust-model always\n";

/* gpgme_check_version sets SIGPIPE to SIG_IGN when it is SIG_DFL (its
 * posix-io.c): a gpg that exits before reading all it is sent then fails
 * gpgme's write with EPIPE instead of ending the agent. */
static int
lib_init(struct err *err)
{
	static bool inited;
	gpgme_error_t e;

	if (inited)
		return 0;
	if (gpgme_check_version(NULL) == NULL)
		return err_setf(err, NULL, "gpgme: cannot initialise");
	e = gpgme_engine_check_version(GPGME_PROTOCOL_OpenPGP);
	if (e != 0)
		return err_setf(err, NULL,
		    "gpgme: no usable gpg (%s): is gnupg installed?",
		    gpgme_strerror(e));
	inited = true;
	return 0;
}

static int
ctx_new(gpgme_ctx_t *out, const char *home, struct err *err)
{
	gpgme_error_t e;

	e = gpgme_new(out);
	if (e == 0)
		e = gpgme_set_protocol(*out, GPGME_PROTOCOL_OpenPGP);
	if (e == 0)
		e = gpgme_ctx_set_engine_info(*out, GPGME_PROTOCOL_OpenPGP,
		    NULL, home);
	if (e != 0) {
		gpgme_release(*out);
		*out = NULL;
		return err_setf(err, NULL, "gpgme: %s", gpgme_strerror(e));
	}
	return 0;
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Where the private home is made: $RUNTIME_DIRECTORY (systemd's, the
 * first of a list), else $TMPDIR, else /tmp. Owned. */
static char *
home_parent(void)
{
	const char *e = getenv("RUNTIME_DIRECTORY");

	if (e != NULL && e[0] == '/')
		return xstrndup(e, strcspn(e, ":"));
	e = getenv("TMPDIR");
	return xstrdup(e != NULL && e[0] == '/' ? e : "/tmp");
}

/* The keys to import: the file as it is, or a home folder's public keys
 * exported from it. */
static int
keyring_data(gpgme_data_t *out, const char *keyring, struct err *err)
{
	gpgme_ctx_t src = NULL;
	gpgme_error_t e;
	struct stat st;

	if (stat(keyring, &st) < 0)
		return err_setf(err, NULL, "OpenPGP keyring %s: %s", keyring,
		    strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		e = gpgme_data_new_from_file(out, keyring, 1);
		if (e != 0)
			return err_setf(err, NULL, "OpenPGP keyring %s: %s",
			    keyring, gpgme_strerror(e));
		return 0;
	}
	if (ctx_new(&src, keyring, err) < 0)
		return -1;
	e = gpgme_data_new(out);
	if (e == 0) {
		gpgme_set_armor(src, 0);
		e = gpgme_op_export(src, NULL, 0, *out);
	}
	gpgme_release(src);
	if (e != 0) {
		gpgme_data_release(*out);
		*out = NULL;
		return err_setf(err, NULL,
		    "OpenPGP keyring %s (a GnuPG home): exporting its keys: %s",
		    keyring, gpgme_strerror(e));
	}
	gpgme_data_seek(*out, 0, SEEK_SET);
	return 0;
}

int
agent_gpg_open(struct agent_gpg **out, const char *keyring, size_t *nkeys,
    struct err *err)
{
	struct agent_gpg *g;
	gpgme_data_t keys = NULL;
	gpgme_import_result_t ir;
	gpgme_error_t e;
	char *parent, *conf;
	int rc = -1;

	if (lib_init(err) < 0)
		return -1;
	g = xcalloc(1, sizeof(*g));
	parent = home_parent();
	g->home = xasprintf("%s/artemis-gitops-gnupg-XXXXXX", parent);
	free(parent);
	if (mkdtemp(g->home) == NULL) {
		err_setf(err, NULL, "cannot make a GnuPG home %s: %s", g->home,
		    strerror(errno));
		free(g->home);
		g->home = NULL;
		goto done;
	}
	conf = xasprintf("%s/gpg.conf", g->home);
	rc = afile_write(conf, gpg_conf, strlen(gpg_conf), 0600, err);
	free(conf);
	if (rc < 0)
		goto done;
	rc = -1;
	if (ctx_new(&g->ctx, g->home, err) < 0 ||
	    keyring_data(&keys, keyring, err) < 0)
		goto done;
	e = gpgme_op_import(g->ctx, keys);
	ir = e == 0 ? gpgme_op_import_result(g->ctx) : NULL;
	if (e != 0) {
		err_setf(err, NULL, "OpenPGP keyring %s: %s", keyring,
		    gpgme_strerror(e));
		goto done;
	}
	if (ir == NULL || ir->imported + ir->unchanged <= 0) {
		err_setf(err, NULL, "OpenPGP keyring %s holds no public key",
		    keyring);
		goto done;
	}
	*nkeys = (size_t)ir->imported + (size_t)ir->unchanged;
	*out = g;
	g = NULL;
	rc = 0;
done:
	gpgme_data_release(keys);
	agent_gpg_free(g);
	return rc;
}

void
agent_gpg_free(struct agent_gpg *g)
{
	if (g == NULL)
		return;
	gpgme_release(g->ctx);
	if (g->home != NULL)
		nftw(g->home, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(g->home);
	free(g);
}

/* ---- the judge ---------------------------------------------------------- */

void
agent_gpg_judge(const struct agent_gpg_facts *f, struct agent_verify_sig *out)
{
	memset(out, 0, sizeof(*out));
	if (f->fpr != NULL && f->fpr[0] != '\0')
		out->key = xasprintf("OpenPGP key %s", f->fpr);
	if (f->uid != NULL && f->key_found)
		out->signer = utf8_escape(f->uid, utf8_line_problem);
	if (f->nsigs != 1) {
		out->why = AGENT_VERIFY_BAD;
		out->detail = xasprintf("%zu signatures where one was expected",
		    f->nsigs);
	} else if (f->status == AGENT_GPG_BAD ||
	           (f->summary & AGENT_GPG_SUM_RED) != 0) {
		out->why = AGENT_VERIFY_BAD;
		out->detail =
		    xstrdup("the signature does not match the commit");
	} else if (f->status == AGENT_GPG_NO_KEY || !f->key_found ||
	           (f->summary & AGENT_GPG_SUM_KEY_MISSING) != 0) {
		out->why = AGENT_VERIFY_UNKNOWN_KEY;
		out->detail = xstrdup("the keyring does not hold this key");
	} else if (f->status == AGENT_GPG_REVOKED || f->key_revoked ||
	           f->subkey_revoked ||
	           (f->summary & AGENT_GPG_SUM_KEY_REVOKED) != 0) {
		out->why = AGENT_VERIFY_REVOKED;
		out->detail = xstrdup("the key is revoked");
	} else if (f->status == AGENT_GPG_KEY_EXPIRED ||
	           f->status == AGENT_GPG_SIG_EXPIRED || f->key_expired ||
	           f->subkey_expired ||
	           (f->summary & (AGENT_GPG_SUM_KEY_EXPIRED |
	                             AGENT_GPG_SUM_SIG_EXPIRED)) != 0) {
		out->why = AGENT_VERIFY_EXPIRED;
		out->detail = xstrdup(f->status == AGENT_GPG_SIG_EXPIRED
		                          ? "the signature has expired"
		                          : "the key has expired");
	} else if (f->key_disabled || f->key_invalid) {
		out->why = AGENT_VERIFY_UNKNOWN_KEY;
		out->detail = xstrdup(f->key_disabled
		                          ? "the key is disabled in the keyring"
		                          : "the key is not usable");
	} else if (f->status != AGENT_GPG_GOOD) {
		out->why = AGENT_VERIFY_ERROR;
		out->detail = xasprintf("gpg: %s",
		    f->status_text != NULL ? f->status_text : "unknown status");
	} else {
		out->why = AGENT_VERIFY_GOOD;
	}
}

/* ---- verifying ------------------------------------------------------------
 */

static enum agent_gpg_status
status_class(gpgme_error_t e)
{
	switch (gpgme_err_code(e)) {
	case GPG_ERR_NO_ERROR:
		return AGENT_GPG_GOOD;
	case GPG_ERR_BAD_SIGNATURE:
		return AGENT_GPG_BAD;
	case GPG_ERR_NO_PUBKEY:
		return AGENT_GPG_NO_KEY;
	case GPG_ERR_KEY_EXPIRED:
		return AGENT_GPG_KEY_EXPIRED;
	case GPG_ERR_SIG_EXPIRED:
		return AGENT_GPG_SIG_EXPIRED;
	case GPG_ERR_CERT_REVOKED:
		return AGENT_GPG_REVOKED;
	default:
		return AGENT_GPG_OTHER;
	}
}

/* The key of signature s in the home, and what it says of it. */
static void
key_facts(gpgme_ctx_t ctx, gpgme_signature_t s, struct agent_gpg_facts *f,
    gpgme_key_t *keyp)
{
	gpgme_key_t k = NULL;
	gpgme_subkey_t sk;
	size_t n, m;

	if (s->fpr == NULL || gpgme_get_key(ctx, s->fpr, &k, 0) != 0 ||
	    k == NULL)
		return;
	*keyp = k;
	f->key_found = true;
	f->key_revoked = k->revoked != 0;
	f->key_expired = k->expired != 0;
	f->key_disabled = k->disabled != 0;
	f->key_invalid = k->invalid != 0;
	f->uid = k->uids != NULL ? k->uids->uid : NULL;
	n = strlen(s->fpr);
	for (sk = k->subkeys; sk != NULL; sk = sk->next) {
		if (sk->fpr == NULL)
			continue;
		m = strlen(sk->fpr);
		/* the signature names the key by fingerprint, or by key id
		 * (its fingerprint's tail) */
		if (m >= n && strcasecmp(sk->fpr + m - n, s->fpr) == 0) {
			f->subkey_revoked = sk->revoked != 0;
			f->subkey_expired = sk->expired != 0;
		}
	}
}

int
agent_gpg_check(struct agent_gpg *g, const char *sig, size_t siglen,
    const char *payload, size_t len, struct agent_verify_sig *out,
    struct err *err)
{
	gpgme_data_t ds = NULL, dp = NULL;
	gpgme_verify_result_t vr;
	gpgme_signature_t s;
	gpgme_key_t key = NULL;
	struct agent_gpg_facts f;
	gpgme_error_t e;

	memset(&f, 0, sizeof(f));
	e = gpgme_data_new_from_mem(&ds, sig, siglen, 0);
	if (e == 0)
		e = gpgme_data_new_from_mem(&dp, payload, len, 0);
	if (e == 0)
		e = gpgme_op_verify(g->ctx, ds, dp, NULL);
	vr = e == 0 ? gpgme_op_verify_result(g->ctx) : NULL;
	if (e != 0 && gpgme_err_code(e) != GPG_ERR_NO_DATA &&
	    gpgme_err_code(e) != GPG_ERR_BAD_DATA) {
		gpgme_data_release(ds);
		gpgme_data_release(dp);
		return err_setf(err, NULL, "gpg: %s", gpgme_strerror(e));
	}
	for (s = vr != NULL ? vr->signatures : NULL; s != NULL; s = s->next)
		f.nsigs++;
	if (vr != NULL && vr->signatures != NULL) {
		s = vr->signatures;
		f.status = status_class(s->status);
		f.status_text = gpgme_strerror(s->status);
		f.summary = (unsigned)s->summary;
		f.fpr = s->fpr;
		key_facts(g->ctx, s, &f, &key);
	}
	agent_gpg_judge(&f, out);
	gpgme_key_unref(key);
	gpgme_data_release(ds);
	gpgme_data_release(dp);
	return 0;
}
