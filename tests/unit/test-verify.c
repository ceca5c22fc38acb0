/* tests/unit/test-verify.c: agent/verify.c with the real tools: commits
 * signed by git (gpg.format=ssh with keys made by ssh-keygen, openpgp with
 * keys made by gpg --quick-gen-key in a temporary GNUPGHOME: one good,
 * one expired, one revoked, a stranger's), an unsigned one, a tampered
 * one; judged in head and since-applied mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../agent/conf.h"
#include "../../agent/git.h"
#include "../../agent/verify.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static char tmp[64];

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd, *full;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	full = xasprintf("cd %s && (%s) >>log 2>&1", tmp, cmd);
	if (system(full) != 0)
		fail_msg("command failed: %s (see %s/log)", cmd, tmp);
	free(full);
	free(cmd);
}

/* The first line of file tmp/name, owned. */
static char *
slurp(const char *name)
{
	struct err err = {0};
	char *path = xasprintf("%s/%s", tmp, name), *text = NULL;

	if (afile_read(&text, NULL, path, 4096, &err) < 0)
		fail_msg("%s", err.msg);
	text[strcspn(text, "\n")] = '\0';
	free(path);
	return text;
}

/* gpg key NAME in home H (ed25519, signing), its fingerprint in H.fpr;
 * extra gpg options (a faked time) in OPTS. */
#define GPG_KEY(h, name, opts, expire)                                         \
	"mkdir -m 700 -p " h " && GNUPGHOME=$PWD/" h " gpg --batch " opts      \
	" --passphrase '' --quick-gen-key '" name "' ed25519 sign " expire     \
	" && GNUPGHOME=$PWD/" h " gpg --batch --with-colons "                  \
	"--list-secret-keys | awk -F: '/^fpr/{print $10; exit}' >" h ".fpr"

/* An empty commit signed by git with format FMT and key KEY, its id in
 * NAME.oid. */
#define COMMIT(env, fmt, key, name)                                            \
	"cd r && " env " git -c gpg.format=" fmt " -c user.signingkey=" key    \
	" commit -q --allow-empty -S -m " name                                 \
	" && git rev-parse HEAD >../" name ".oid"

static int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-verify-XXXXXX");
	if (mkdtemp(tmp) == NULL)
		return -1;
	setenv("GIT_AUTHOR_NAME", "Ann Operator", 1);
	setenv("GIT_AUTHOR_EMAIL", "ann@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Ann Operator", 1);
	setenv("GIT_COMMITTER_EMAIL", "ann@example.com", 1);
	sh("ssh-keygen -q -t ed25519 -N '' -C alice -f alice && "
	   "ssh-keygen -q -t ed25519 -N '' -C eve -f eve && "
	   "echo \"alice@example.com $(cut -d' ' -f1,2 alice.pub)\" >allowed");
	sh(GPG_KEY("gus", "Gus Signer <gus@example.com>", "", "never"));
	sh(GPG_KEY("old", "Old Key <old@example.com>",
	    "--faked-system-time 20200101T000000!", "1d"));
	sh(GPG_KEY("rev", "Rev Oked <rev@example.com>", "", "never"));
	sh(GPG_KEY("xav", "Xavier Stranger <xav@example.com>", "", "never"));
	/* the old key signs as of 2020, when it was valid */
	sh("printf '#!/bin/sh\\nexec gpg --faked-system-time "
	   "20200101T120000! \"$@\"\\n' >oldgpg && chmod +x oldgpg");
	sh("git init -q -b main r && cd r && git config gpg.ssh.program "
	   "ssh-keygen");
	sh(COMMIT("", "ssh", "../alice", "c1"));
	sh("cd r && git commit -q --allow-empty -m c2 && git rev-parse HEAD "
	   ">../c2.oid");
	sh(COMMIT("", "ssh", "../eve", "c3"));
	sh(COMMIT("GNUPGHOME=$PWD/../gus", "openpgp", "$(cat ../gus.fpr)",
	    "c4"));
	sh(COMMIT("GNUPGHOME=$PWD/../xav", "openpgp", "$(cat ../xav.fpr)",
	    "c5"));
	sh(COMMIT("GNUPGHOME=$PWD/../old", "openpgp -c gpg.program=../oldgpg",
	    "$(cat ../old.fpr)", "c6"));
	sh(COMMIT("GNUPGHOME=$PWD/../rev", "openpgp", "$(cat ../rev.fpr)",
	    "c7"));
	sh(COMMIT("", "ssh", "../alice", "c8"));
	/* c1's signature over other words */
	sh("cd r && git cat-file commit $(cat ../c1.oid) | sed 's/^c1$/evil/' "
	   "| git hash-object -t commit -w --stdin >../bad.oid");
	/* rev is revoked (its revocation certificate imported) before the
	 * keyring is exported */
	sh("f=$(cat rev.fpr) && sed 's/^:-----BEGIN/-----BEGIN/' "
	   "rev/openpgp-revocs.d/$f.rev >rev.asc && GNUPGHOME=$PWD/rev gpg "
	   "--batch --import rev.asc");
	sh("for h in gus old rev; do GNUPGHOME=$PWD/$h gpg --batch --export; "
	   "done >keyring.gpg");
	sh("ssh-keygen -lf eve.pub | cut -d' ' -f2 >eve.fp");
	/* an OpenPGP armor gpg cannot parse, on a commit whose text is far
	 * larger than a pipe holds (gpg stops before reading it all) */
	sh("cd r && python3 -c 'import sys; t = sys.argv[1]; "
	   "sys.stdout.write(\"tree %%s\\nauthor A <a@x> 1 +0000\\n"
	   "committer A <a@x> 1 +0000\\ngpgsig -----BEGIN PGP "
	   "SIGNATURE-----\\n \\n Z2FyYmFnZQ==\\n -----END PGP "
	   "SIGNATURE-----\\n\\n%%s\\n\" %% (t, \"x\" * 1000000))' "
	   "$(git rev-parse HEAD^{tree}) | git hash-object -t commit -w "
	   "--stdin >../garbage.oid");
	return 0;
}

static int
teardown(void **state)
{
	char *cmd;

	(void)state;
	cmd = xasprintf("cd %s && for h in gus old rev xav; do gpgconf "
	                "--homedir $PWD/$h --kill all; done >/dev/null 2>&1; "
	                "cd / && rm -rf %s",
	    tmp, tmp);
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	return 0;
}

/* A verifier of mode over tmp's allowed signers and keyring. */
static struct agent_verify *
verifier(long mode)
{
	struct agent_conf c;
	struct agent_verify *v = NULL;
	struct err err = {0};

	memset(&c, 0, sizeof(c));
	c.verify_mode = mode;
	c.verify_allowed_signers = xasprintf("%s/allowed", tmp);
	c.verify_gpg_keyring = xasprintf("%s/keyring.gpg", tmp);
	if (agent_verify_new(&v, &c, &err) < 0)
		fail_msg("%s", err.msg);
	free(c.verify_allowed_signers);
	free(c.verify_gpg_keyring);
	return v;
}

static struct agent_git_repo *
repo(void)
{
	struct agent_git_repo *r = NULL;
	struct err err = {0};
	char *path = xasprintf("%s/r", tmp);

	if (agent_git_open(&r, path, &err) < 0)
		fail_msg("%s", err.msg);
	free(path);
	return r;
}

/* The verdict on commit NAME (tmp/NAME.oid) in head mode. */
static void
head_verdict(struct agent_verify *v, struct agent_git_repo *r, const char *name,
    struct agent_verify_verdict *vd)
{
	char *file = xasprintf("%s.oid", name), *oid = slurp(file);

	agent_verify_commit(v, r, oid, NULL, NULL, vd);
	assert_string_equal(vd->commit, oid);
	assert_int_equal(vd->checked, 1);
	free(oid);
	free(file);
}

static void
test_verify__ssh_signatures(void **state)
{
	struct agent_verify *v = verifier(AGENT_CONF_VERIFY_HEAD);
	struct agent_git_repo *r = repo();
	struct agent_verify_verdict vd;
	char *fp = slurp("eve.fp"), *want;

	(void)state;
	head_verdict(v, r, "c1", &vd);
	assert_true(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_GOOD);
	assert_string_equal(vd.sig.signer, "alice@example.com");
	assert_non_null(strstr(vd.sig.key, "ED25519 key SHA256:"));
	agent_verify_verdict_release(&vd);

	head_verdict(v, r, "c2", &vd);
	assert_false(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_UNSIGNED);
	assert_null(vd.sig.key);
	agent_verify_verdict_release(&vd);

	head_verdict(v, r, "c3", &vd);
	assert_false(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_UNKNOWN_KEY);
	want = xasprintf("ED25519 key %s", fp);
	assert_string_equal(vd.sig.key, want);
	free(want);
	agent_verify_verdict_release(&vd);

	head_verdict(v, r, "bad", &vd);
	assert_false(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_BAD);
	agent_verify_verdict_release(&vd);
	free(fp);
	agent_git_close(r);
	agent_verify_free(v);
}

static void
test_verify__openpgp_signatures(void **state)
{
	struct agent_verify *v = verifier(AGENT_CONF_VERIFY_HEAD);
	struct agent_git_repo *r = repo();
	struct agent_verify_verdict vd;
	char *fpr, *want, *line;

	(void)state;
	head_verdict(v, r, "c4", &vd);
	assert_true(vd.trusted);
	assert_string_equal(vd.sig.signer, "Gus Signer <gus@example.com>");
	fpr = slurp("gus.fpr");
	want = xasprintf("OpenPGP key %s", fpr);
	assert_string_equal(vd.sig.key, want);
	free(want);
	free(fpr);
	agent_verify_verdict_release(&vd);

	head_verdict(v, r, "c5", &vd); /* a stranger's valid signature */
	assert_false(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_UNKNOWN_KEY);
	fpr = slurp("xav.fpr");
	want = xasprintf("OpenPGP key %s", fpr);
	assert_string_equal(vd.sig.key, want);
	line = agent_verify_verdict_line(&vd);
	assert_non_null(strstr(line, "signed by a key that is not trusted"));
	assert_non_null(strstr(line, fpr));
	free(line);
	free(want);
	free(fpr);
	agent_verify_verdict_release(&vd);

	head_verdict(v, r, "c6", &vd); /* made when valid, expired now */
	assert_false(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_EXPIRED);
	agent_verify_verdict_release(&vd);

	head_verdict(v, r, "c7", &vd);
	assert_false(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_REVOKED);
	agent_verify_verdict_release(&vd);

	/* an armor that holds no signature: bad */
	head_verdict(v, r, "garbage", &vd);
	assert_false(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_BAD);
	assert_string_equal(vd.sig.detail,
	    "0 signatures where one was expected");
	agent_verify_verdict_release(&vd);
	agent_git_close(r);
	agent_verify_free(v);
}

static void
test_verify__since_applied_names_the_oldest_untrusted(void **state)
{
	struct agent_verify *v = verifier(AGENT_CONF_VERIFY_SINCE_APPLIED);
	struct agent_git_repo *r = repo();
	struct agent_verify_verdict vd;
	char *c1 = slurp("c1.oid"), *c2 = slurp("c2.oid"),
	     *c7 = slurp("c7.oid"), *c8 = slurp("c8.oid");

	(void)state;
	/* applied at c1: c2 (unsigned) is the first of the seven after it */
	agent_verify_commit(v, r, c8, c1, NULL, &vd);
	assert_false(vd.trusted);
	assert_string_equal(vd.commit, c2);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_UNSIGNED);
	assert_int_equal(vd.checked, 1);
	assert_non_null(strstr(vd.note, "7 first-parent commits since"));
	agent_verify_verdict_release(&vd);
	/* applied at c7: c8 alone, trusted */
	agent_verify_commit(v, r, c8, c7, NULL, &vd);
	assert_true(vd.trusted);
	assert_string_equal(vd.commit, c8);
	assert_int_equal(vd.checked, 1);
	agent_verify_verdict_release(&vd);
	/* never applied, or applied at a commit the repository lacks */
	agent_verify_commit(v, r, c8, NULL, NULL, &vd);
	assert_true(vd.trusted);
	assert_string_equal(vd.note,
	    "the cluster was never applied: its head alone is checked");
	agent_verify_verdict_release(&vd);
	agent_verify_commit(v, r, c8,
	    "0123456789012345678901234567890123456789", NULL, &vd);
	assert_true(vd.trusted);
	assert_non_null(strstr(vd.note, "is not in the repository"));
	agent_verify_verdict_release(&vd);
	/* in head mode c8 alone counts, whatever came before */
	agent_verify_free(v);
	v = verifier(AGENT_CONF_VERIFY_HEAD);
	agent_verify_commit(v, r, c8, c1, NULL, &vd);
	assert_true(vd.trusted);
	assert_null(vd.note);
	agent_verify_verdict_release(&vd);
	free(c1);
	free(c2);
	free(c7);
	free(c8);
	agent_git_close(r);
	agent_verify_free(v);
}

static void
test_verify__formats_without_trust_and_bad_files(void **state)
{
	struct agent_conf c;
	struct agent_verify *v = NULL;
	struct agent_git_repo *r = repo();
	struct agent_verify_verdict vd;
	struct err err = {0};
	char *oid = slurp("c4.oid");

	(void)state;
	memset(&c, 0, sizeof(c));
	c.verify_mode = AGENT_CONF_VERIFY_HEAD;
	c.verify_allowed_signers = xasprintf("%s/allowed", tmp);
	assert_int_equal(agent_verify_new(&v, &c, &err), 0);
	agent_verify_commit(v, r, oid, NULL, NULL, &vd);
	assert_false(vd.trusted);
	assert_int_equal(vd.sig.why, AGENT_VERIFY_UNSUPPORTED);
	assert_non_null(strstr(vd.sig.detail, "repository.verify.gpg-keyring"));
	agent_verify_verdict_release(&vd);
	agent_verify_free(v);
	/* a keyring that is not one, an allowed signers file that is not */
	free(c.verify_allowed_signers);
	c.verify_allowed_signers = xasprintf("%s/eve", tmp);
	assert_int_equal(agent_verify_new(&v, &c, &err), -1);
	assert_int_equal(err.line, 1);
	err_release(&err);
	free(c.verify_allowed_signers);
	c.verify_allowed_signers = NULL;
	c.verify_gpg_keyring = xasprintf("%s/allowed", tmp);
	assert_int_equal(agent_verify_new(&v, &c, &err), -1);
	assert_non_null(strstr(err.msg, "holds no public key"));
	err_release(&err);
	free(c.verify_gpg_keyring);
	/* off: no verifier */
	c.verify_mode = AGENT_CONF_VERIFY_OFF;
	c.verify_gpg_keyring = NULL;
	v = (struct agent_verify *)&c;
	assert_int_equal(agent_verify_new(&v, &c, &err), 0);
	assert_null(v);
	free(oid);
	agent_git_close(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verify__ssh_signatures),
	    cmocka_unit_test(test_verify__openpgp_signatures),
	    cmocka_unit_test(
	        test_verify__since_applied_names_the_oldest_untrusted),
	    cmocka_unit_test(test_verify__formats_without_trust_and_bad_files),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
