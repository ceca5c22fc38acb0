/* tests/tools/etcd-check.c: a test-only driver of the etcd client
 * (lib/etcd.h), so integration tests prove it against real etcd members
 * (scripts/etcd).
 *
 *   etcd-check [--user U --password-file F] [--timeout-ms N]
 *              [--connect-timeout-ms N] [--keep-going]
 *              ENDPOINTS OP ARGS... [then OP ARGS...]...
 *
 * ENDPOINTS: client URLs separated by commas, in the client's order. The
 * OPs run one after the other on one client (its current endpoint and its
 * token carry over), separated by the word `then`:
 *   put KEY VALUE [LEASE]      put-hex KEY HEX [LEASE]
 *   get KEY                    range PREFIX
 *   delete KEY                 delete-prefix PREFIX
 *   lease-grant TTL            lease-keepalive ID
 *   lease-ttl ID               lease-revoke ID
 *   lease-cycle PREFIX TTL     grant a lease, put PREFIX/a and PREFIX/b on
 *                              it, keep it alive, read its time left,
 *                              revoke it, read the keys and the lease again
 *   elect KEY VALUE TTL        grant a lease of TTL s and, in one
 *                              transaction, put KEY=VALUE on it if KEY does
 *                              not exist (compare CREATE == 0), else read it
 *   sleep MS                   wait (a token's time to live, say)
 *   fail-class OP ARGS...      run OP, print only its failure class
 *
 * Output, one line each (values as hex, they may be any bytes; keys raw):
 *   kv KEY len=N hex=HEX create=C mod=M version=V lease=L
 *   count=N revision=R            (get, range)
 *   put revision=R   deleted=N   lease id=ID ttl=N   ttl=N   revoked
 *   won lease=ID revision=R create=C      (elect: this call created KEY)
 *   lost owner-hex=HEX owner-lease=L create=C
 *                                         (elect: KEY was there; this
 *                                         call's lease is then revoked)
 * and after every OP `ok OP endpoint=URL ms=N` or
 * `fail OP class=UNAVAILABLE|REFUSED endpoint=URL ms=N: <error>`;
 * fail-class prints just NONE, UNAVAILABLE or REFUSED. Exits 0 when every
 * OP succeeded (fail-class: always), 1 at the first failure (--keep-going:
 * after the last OP), 64 on usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/afile.h"
#include "../../lib/clock.h"
#include "../../lib/etcd.h"
#include "../../lib/xalloc.h"

static int
usage(void)
{
	fprintf(stderr,
	    "usage: etcd-check [--user U --password-file F] [--timeout-ms N] "
	    "[--connect-timeout-ms N] [--keep-going] ENDPOINTS OP ARGS... "
	    "[then OP ARGS...]...\n");
	return 64;
}

static const char *
fail_name(enum etcd_fail f)
{
	switch (f) {
	case ETCD_NONE:
		return "NONE";
	case ETCD_UNAVAILABLE:
		return "UNAVAILABLE";
	case ETCD_REFUSED:
		return "REFUSED";
	}
	return "?";
}

static bool
parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (*s == '\0')
		return false;
	v = strtoll(s, &end, 10);
	if (*end != '\0')
		return false;
	*out = (int64_t)v;
	return true;
}

static void
print_hex(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", (unsigned char)p[i]);
}

static void
print_kv(const struct etcd_kv *kv)
{
	printf("kv %s len=%zu hex=", kv->key, kv->value_len);
	print_hex(kv->value, kv->value_len);
	printf(" create=%lld mod=%lld version=%lld lease=%lld\n",
	    (long long)kv->create_revision, (long long)kv->mod_revision,
	    (long long)kv->version, (long long)kv->lease);
}

static void
print_kvs(const struct etcd_kvs *kvs)
{
	size_t i;

	for (i = 0; i < kvs->n; i++)
		print_kv(&kvs->v[i]);
	printf("count=%zu revision=%lld\n", kvs->n, (long long)kvs->revision);
}

/* HEX -> bytes (owned), NULL when not hex. */
static char *
unhex(const char *s, size_t *len)
{
	size_t n = strlen(s), i;
	char *out;

	if (n % 2 != 0)
		return NULL;
	out = xmalloc(n / 2 + 1);
	for (i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1 ||
		    strchr("0123456789abcdefABCDEF", s[2 * i]) == NULL ||
		    strchr("0123456789abcdefABCDEF", s[2 * i + 1]) == NULL) {
			free(out);
			return NULL;
		}
		out[i] = (char)v;
	}
	*len = n / 2;
	return out;
}

static int
op_lease_cycle(struct etcd *e, const char *prefix, int64_t ttl, struct err *err)
{
	struct etcd_kvs kvs = {0};
	char *a = xasprintf("%s/a", prefix), *b = xasprintf("%s/b", prefix);
	int64_t id;
	long granted, left;
	int rc = -1;

	if (etcd_lease_grant(e, (long)ttl, &id, &granted, err) < 0)
		goto done;
	printf("lease id=%lld ttl=%ld\n", (long long)id, granted);
	if (etcd_put(e, a, "1", 1, id, NULL, err) < 0 ||
	    etcd_put(e, b, "2", 1, id, NULL, err) < 0)
		goto done;
	if (etcd_range(e, prefix, true, &kvs, err) < 0)
		goto done;
	printf("keys-before count=%zu lease-of-first=%lld\n", kvs.n,
	    kvs.n > 0 ? (long long)kvs.v[0].lease : 0LL);
	if (etcd_lease_keepalive(e, id, &left, err) < 0)
		goto done;
	printf("keepalive ttl=%ld\n", left);
	if (etcd_lease_ttl_left(e, id, &left, err) < 0)
		goto done;
	printf("ttl-left ttl=%ld\n", left);
	if (etcd_lease_revoke(e, id, err) < 0)
		goto done;
	printf("revoked\n");
	if (etcd_range(e, prefix, true, &kvs, err) < 0)
		goto done;
	printf("keys-after count=%zu\n", kvs.n);
	if (etcd_lease_ttl_left(e, id, &left, err) < 0)
		goto done;
	printf("ttl-after ttl=%ld\n", left);
	if (etcd_lease_keepalive(e, id, &left, err) < 0)
		goto done;
	printf("keepalive-after ttl=%ld\n", left);
	/* revoking what is gone is no error */
	if (etcd_lease_revoke(e, id, err) < 0)
		goto done;
	printf("revoked-again\n");
	rc = 0;
done:
	etcd_kvs_release(&kvs);
	free(a);
	free(b);
	return rc;
}

static int
op_elect(struct etcd *e, const char *key, const char *value, int64_t ttl,
    struct err *err)
{
	struct etcd_cmp cmp = {.key = key,
	    .target = ETCD_CREATE,
	    .result = ETCD_EQUAL,
	    .num = 0};
	struct etcd_op put = {.kind = ETCD_OP_PUT, .key = key};
	struct etcd_op get = {.kind = ETCD_OP_GET, .key = key};
	struct etcd_op success[2];
	struct etcd_txn t = {0};
	struct etcd_txn_result r = {0};
	int64_t id;
	long granted;

	if (etcd_lease_grant(e, (long)ttl, &id, &granted, err) < 0)
		return -1;
	put.value = value;
	put.value_len = strlen(value);
	put.lease = id;
	success[0] = put;
	success[1] = get;
	t.cmp = &cmp;
	t.ncmp = 1;
	t.success = success;
	t.nsuccess = 2;
	t.failure = &get;
	t.nfailure = 1;
	if (etcd_txn(e, &t, &r, err) < 0)
		return -1;
	if (r.succeeded) {
		printf("won lease=%lld revision=%lld create=%lld\n",
		    (long long)id, (long long)r.revision,
		    r.kvs.n > 0 ? (long long)r.kvs.v[0].create_revision : -1LL);
	} else {
		printf("lost owner-hex=");
		if (r.kvs.n > 0)
			print_hex(r.kvs.v[0].value, r.kvs.v[0].value_len);
		printf(" owner-lease=%lld create=%lld\n",
		    r.kvs.n > 0 ? (long long)r.kvs.v[0].lease : -1LL,
		    r.kvs.n > 0 ? (long long)r.kvs.v[0].create_revision : -1LL);
		/* the lease was for nothing */
		(void)etcd_lease_revoke(e, id, err);
		err_release(err);
	}
	etcd_txn_result_release(&r);
	return 0;
}

/* One OP (argv[0]) with its n-1 arguments: 0, -1 failed, 64 usage. */
static int
run_op(struct etcd *e, char **av, int n, struct err *err)
{
	const char *op = av[0];
	struct etcd_kvs kvs = {0};
	int64_t x = 0, y = 0, lease = 0;
	long ttl;
	int rc;

	if ((strcmp(op, "put") == 0 || strcmp(op, "put-hex") == 0) &&
	    (n == 3 || (n == 4 && parse_i64(av[3], &lease)))) {
		size_t len = strlen(av[2]);
		char *v = op[3] == '-' ? unhex(av[2], &len) : xstrdup(av[2]);
		if (v == NULL)
			return 64;
		rc = etcd_put(e, av[1], v, len, lease, &x, err);
		free(v);
		if (rc == 0)
			printf("put revision=%lld\n", (long long)x);
		return rc;
	}
	if ((strcmp(op, "get") == 0 || strcmp(op, "range") == 0) && n == 2) {
		rc = etcd_range(e, av[1], op[0] == 'r', &kvs, err);
		if (rc == 0)
			print_kvs(&kvs);
		etcd_kvs_release(&kvs);
		return rc;
	}
	if ((strcmp(op, "delete") == 0 || strcmp(op, "delete-prefix") == 0) &&
	    n == 2) {
		rc = etcd_delete(e, av[1], op[6] == '-', &x, err);
		if (rc == 0)
			printf("deleted=%lld\n", (long long)x);
		return rc;
	}
	if (strcmp(op, "lease-grant") == 0 && n == 2 && parse_i64(av[1], &x)) {
		rc = etcd_lease_grant(e, (long)x, &y, &ttl, err);
		if (rc == 0)
			printf("lease id=%lld ttl=%ld\n", (long long)y, ttl);
		return rc;
	}
	if ((strcmp(op, "lease-keepalive") == 0 ||
	        strcmp(op, "lease-ttl") == 0) &&
	    n == 2 && parse_i64(av[1], &x)) {
		rc = op[6] == 'k' ? etcd_lease_keepalive(e, x, &ttl, err)
		                  : etcd_lease_ttl_left(e, x, &ttl, err);
		if (rc == 0)
			printf("ttl=%ld\n", ttl);
		return rc;
	}
	if (strcmp(op, "lease-revoke") == 0 && n == 2 && parse_i64(av[1], &x)) {
		rc = etcd_lease_revoke(e, x, err);
		if (rc == 0)
			printf("revoked\n");
		return rc;
	}
	if (strcmp(op, "lease-cycle") == 0 && n == 3 && parse_i64(av[2], &x))
		return op_lease_cycle(e, av[1], x, err);
	if (strcmp(op, "elect") == 0 && n == 4 && parse_i64(av[3], &x))
		return op_elect(e, av[1], av[2], x, err);
	if (strcmp(op, "sleep") == 0 && n == 2 && parse_i64(av[1], &x) &&
	    x >= 0) {
		struct timespec ts = {(time_t)(x / 1000),
		    (long)(x % 1000) * 1000000L};
		nanosleep(&ts, NULL);
		return 0;
	}
	return 64;
}

struct opts {
	struct etcd_opts eo;
	const char *password_file;
	bool keep_going;
};

static int
parse_opts(struct opts *o, int *argi, int argc, char **argv)
{
	int i = 1;
	int64_t v;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--keep-going") == 0) {
			o->keep_going = true;
			continue;
		}
		if (i + 1 >= argc)
			return -1;
		if (strcmp(a, "--user") == 0)
			o->eo.user = argv[++i];
		else if (strcmp(a, "--password-file") == 0)
			o->password_file = argv[++i];
		else if (strcmp(a, "--timeout-ms") == 0 &&
		         parse_i64(argv[++i], &v))
			o->eo.timeout_ms = (long)v;
		else if (strcmp(a, "--connect-timeout-ms") == 0 &&
		         parse_i64(argv[++i], &v))
			o->eo.connect_timeout_ms = (long)v;
		else
			return -1;
	}
	*argi = i;
	return (o->eo.user == NULL) == (o->password_file == NULL) ? 0 : -1;
}

/* ENDPOINTS split at commas into *eps (owned, and the copy they point
 * into). */
static size_t
split_endpoints(const char *s, char **copy, const char ***eps)
{
	size_t n = 1, i = 0;
	char *p, *save = NULL, *tok;

	*copy = xstrdup(s);
	for (p = *copy; *p; p++)
		n += *p == ',';
	*eps = xcalloc(n, sizeof(**eps));
	for (tok = strtok_r(*copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save))
		(*eps)[i++] = tok;
	return i;
}

static char *
read_password(const char *path)
{
	struct err err = {0};
	char *pw = NULL;
	size_t len;

	if (afile_read(&pw, &len, path, 4096, &err) < 0) {
		fprintf(stderr, "etcd-check: %s\n", err.msg);
		err_release(&err);
		return NULL;
	}
	while (len > 0 && (pw[len - 1] == '\n' || pw[len - 1] == '\r'))
		pw[--len] = '\0';
	return pw;
}

/* Run the OPs of av[0..n) (separated by `then`). */
static int
run_ops(struct etcd *e, char **av, int n, bool keep_going)
{
	int i = 0, failed = 0;

	while (i < n) {
		struct err err = {0};
		bool classify = strcmp(av[i], "fail-class") == 0;
		int j, rc;
		int64_t t0;

		if (classify)
			i++;
		for (j = i; j < n && strcmp(av[j], "then") != 0; j++)
			;
		if (j == i)
			return usage();
		t0 = clock_monotonic_ms();
		rc = run_op(e, av + i, j - i, &err);
		if (rc == 64) {
			fprintf(stderr,
			    "etcd-check: bad OP '%s' or its arguments\n",
			    av[i]);
			return usage();
		}
		if (classify)
			printf("%s\n",
			    rc == 0 ? "NONE" : fail_name(etcd_last_fail(e)));
		else if (rc == 0)
			printf("ok %s endpoint=%s ms=%lld\n", av[i],
			    etcd_endpoint(e),
			    (long long)(clock_monotonic_ms() - t0));
		else
			printf("fail %s class=%s endpoint=%s ms=%lld: %s\n",
			    av[i], fail_name(etcd_last_fail(e)),
			    etcd_endpoint(e),
			    (long long)(clock_monotonic_ms() - t0),
			    err.msg ? err.msg : "(no message)");
		fflush(stdout);
		err_release(&err);
		if (rc != 0 && !classify) {
			failed = 1;
			if (!keep_going)
				return 1;
		}
		i = j + 1;
	}
	return failed;
}

int
main(int argc, char **argv)
{
	struct opts o = {.eo = {.timeout_ms = 5000}};
	struct err err = {0};
	struct etcd *e = NULL;
	char *copy = NULL, *pw = NULL;
	const char **eps = NULL;
	int argi, rc;

	if (parse_opts(&o, &argi, argc, argv) < 0 || argc - argi < 2)
		return usage();
	o.eo.nendpoints = split_endpoints(argv[argi], &copy, &eps);
	o.eo.endpoints = eps;
	if (o.password_file != NULL) {
		pw = read_password(o.password_file);
		if (pw == NULL) {
			rc = 64;
			goto done;
		}
		o.eo.password = pw;
	}
	if (etcd_open(&e, &o.eo, &err) < 0) {
		fprintf(stderr, "etcd-check: %s\n", err.msg);
		err_release(&err);
		rc = 64;
		goto done;
	}
	rc = run_ops(e, argv + argi + 1, argc - argi - 1, o.keep_going);
done:
	etcd_close(e);
	if (pw != NULL) {
		explicit_bzero(pw, strlen(pw));
		free(pw);
	}
	free(eps);
	free(copy);
	return rc;
}
