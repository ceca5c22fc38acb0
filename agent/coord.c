/* agent/coord.c: several agents on one etcd (agent/coord.h, docs/ha.md). */
#define LOG_MODULE "coord"

#include "coord.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/clock.h"
#include "../lib/etcd.h"
#include "../lib/jsonw.h"
#include "../lib/sbuf.h"
#include "../lib/sha256.h"
#include "../lib/xalloc.h"
#include "conf.h"
#include "creds.h"
#include "log.h"

/* What this agent owns: one row per cluster it knows. */
struct owned {
	char *cluster;
	char *owner;   /* as last read; NULL: nobody */
	int64_t epoch; /* > 0: this agent owns it under that epoch */
	bool taken;    /* taken over at the last refresh */
};

struct agent_coord {
	struct etcd *etcd;   /* the main thread's */
	struct etcd *renewr; /* the renewing thread's */
	char *id, *prefix, *member_json;
	long ttl, margin;
	bool hash;
	struct strv members;
	struct owned *o;
	size_t no, co;
	int64_t leader_epoch; /* mode none: the leader key's create rev */
	char *leader;         /* mode none: who leads, as last read */
	uint64_t audit_seq;

	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	int64_t lease;       /* 0: none */
	int64_t deadline_ms; /* monotonic: the lease ends by then */
	bool lost;           /* etcd said the lease is gone */
	uint64_t requests;   /* etcd requests sent */
};

static void
count(struct agent_coord *co, uint64_t n)
{
	pthread_mutex_lock(&co->mu);
	co->requests += n;
	pthread_mutex_unlock(&co->mu);
}

uint64_t
agent_coord_requests(struct agent_coord *co)
{
	uint64_t n;

	pthread_mutex_lock(&co->mu);
	n = co->requests;
	pthread_mutex_unlock(&co->mu);
	return n;
}

const char *
agent_coord_id(const struct agent_coord *co)
{
	return co->id;
}

const char *
agent_coord_mode(const struct agent_coord *co)
{
	return co->hash ? "hash" : "none";
}

const struct strv *
agent_coord_members(const struct agent_coord *co)
{
	return &co->members;
}

const char *
agent_coord_pick(const char *const *members, size_t n, const char *key)
{
	const char *best = NULL;
	char best_hex[SHA256_HEX] = "", hex[SHA256_HEX];
	size_t i;

	for (i = 0; i < n; i++) {
		char *s = xasprintf("%s\n%s", members[i], key);
		sha256_hex(s, strlen(s), hex);
		free(s);
		if (best == NULL || strcmp(hex, best_hex) > 0) {
			best = members[i];
			memcpy(best_hex, hex, sizeof(hex));
		}
	}
	return best;
}

static char *
owner_key(const struct agent_coord *co, const char *cluster)
{
	if (!co->hash)
		return xasprintf("%sleader", co->prefix);
	return xasprintf("%sowners/%s", co->prefix, cluster);
}

/* The lease's end by this agent's clock, the lease and whether it is
 * lost. */
static int64_t
lease_state(struct agent_coord *co, int64_t *deadline, bool *lost)
{
	int64_t id;

	pthread_mutex_lock(&co->mu);
	id = co->lease;
	*deadline = co->deadline_ms;
	*lost = co->lost;
	pthread_mutex_unlock(&co->mu);
	return id;
}

/* The renewing thread: every third of the TTL, keepalive; the deadline
 * moves to the send time plus the TTL etcd gave. */
static void *
renew_main(void *p)
{
	struct agent_coord *co = p;
	struct err err = {0};

	pthread_mutex_lock(&co->mu);
	while (!co->stop) {
		struct timespec ts;
		int64_t id, t0;
		long ttl = 0;
		int rc;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += co->ttl / 3 > 0 ? co->ttl / 3 : 1;
		pthread_cond_timedwait(&co->cv, &co->mu, &ts);
		if (co->stop)
			break;
		id = co->lease;
		if (id == 0 || co->lost)
			continue;
		pthread_mutex_unlock(&co->mu);
		t0 = clock_monotonic_ms();
		rc = etcd_lease_keepalive(co->renewr, id, &ttl, &err);
		pthread_mutex_lock(&co->mu);
		co->requests++;
		if (co->lease != id)
			continue; /* replaced meanwhile */
		if (rc < 0) {
			log_warn("etcd: renewing lease %llx: %s (%.1fs left)",
			    (unsigned long long)id, err.msg,
			    (double)(co->deadline_ms - clock_monotonic_ms()) /
			        1000.0);
			err_release(&err);
		} else if (ttl <= 0) {
			log_warn(
			    "etcd: lease %llx is gone (expired or revoked): "
			    "every cluster of this agent is lost",
			    (unsigned long long)id);
			co->lost = true;
		} else {
			co->deadline_ms = t0 + (int64_t)ttl * 1000;
		}
	}
	pthread_mutex_unlock(&co->mu);
	return NULL;
}

/* A new lease and the member key under it. */
static int
join(struct agent_coord *co, struct err *err)
{
	int64_t id, t0 = clock_monotonic_ms();
	long granted = 0;
	char *key;
	int rc;

	if (etcd_lease_grant(co->etcd, co->ttl, &id, &granted, err) < 0)
		return -1;
	key = xasprintf("%smembers/%s", co->prefix, co->id);
	rc = etcd_put(co->etcd, key, co->member_json, strlen(co->member_json),
	    id, NULL, err);
	if (rc < 0 && err_is_set(err)) {
		/* which key: a role without permission on the prefix is
		 * refused here, the first write (etcd names no key) */
		char *why =
		    xasprintf("etcd: agent '%s' cannot write its member "
		              "key '%s' (coordination.prefix '%s'): %s",
		        co->id, key, co->prefix, err->msg);

		err_release(err);
		err_setf(err, NULL, "%s", why);
		free(why);
	}
	free(key);
	count(co, 2);
	if (rc < 0) {
		struct err e2 = {0};
		etcd_lease_revoke(co->etcd, id, &e2);
		err_release(&e2);
		return -1;
	}
	pthread_mutex_lock(&co->mu);
	co->lease = id;
	co->deadline_ms = t0 + (int64_t)granted * 1000;
	co->lost = false;
	pthread_mutex_unlock(&co->mu);
	log_info("etcd: agent '%s' joined with lease %llx (TTL %lds) at %s",
	    co->id, (unsigned long long)id, granted, etcd_endpoint(co->etcd));
	return 0;
}

/* A client of c's etcd; err says why not. */
static int
open_etcd(struct etcd **out, const struct agent_conf *c, const char *key_pem,
    const char *password, struct err *err)
{
	struct etcd_opts o = {0};

	o.endpoints = (const char *const *)c->coord_endpoints.v;
	o.nendpoints = c->coord_endpoints.n;
	o.ca_file = c->coord_ca_file;
	o.cert_file = c->coord_client_cert;
	o.key_pem = key_pem;
	o.user = c->coord_user;
	o.password = password;
	o.timeout_ms = c->coord_timeout * 1000;
	o.connect_timeout_ms = c->coord_timeout * 1000;
	return etcd_open(out, &o, err);
}

/* The secrets of c's etcd (the client key, the password), read from the
 * credentials folder. */
static int
read_secrets(const struct agent_conf *c, char **key_pem, char **password,
    struct err *err)
{
	char *path;
	int rc;

	*key_pem = *password = NULL;
	if (c->coord_client_key_file != NULL) {
		path = xasprintf("%s/%s", c->credentials,
		    c->coord_client_key_file);
		rc = agent_creds_read_key(key_pem, path,
		    "coordination.client-key-file", err);
		free(path);
		if (rc < 0)
			return -1;
	}
	if (c->coord_password_file != NULL &&
	    agent_creds_read_secret(password, c->credentials,
	        c->coord_password_file, "coordination.password-file",
	        err) < 0) {
		agent_creds_free(*key_pem);
		*key_pem = NULL;
		return -1;
	}
	return 0;
}

/* An operator's word for cluster, put or deleted without any ownership:
 * `<prefix>suspended/<cluster>` (suspend, resume: docs/ha.md). */
int
agent_coord_intent(const struct agent_conf *c, const char *what,
    const char *cluster, const char *data, struct err *err)
{
	struct etcd *e = NULL;
	char *key_pem, *password, *key;
	int rc;

	if (read_secrets(c, &key_pem, &password, err) < 0)
		return -1;
	rc = open_etcd(&e, c, key_pem, password, err);
	agent_creds_free(key_pem);
	agent_creds_free(password);
	if (rc < 0)
		return -1;
	key = xasprintf("%s%s/%s", c->coord_prefix, what, cluster);
	if (data != NULL)
		rc = etcd_put(e, key, data, strlen(data), 0, NULL, err);
	else
		rc = etcd_delete(e, key, false, NULL, err);
	free(key);
	etcd_close(e);
	return rc;
}

int
agent_coord_intents(struct agent_coord *co, const char *what,
    struct strv *clusters, struct strv *values, struct err *err)
{
	struct etcd_kvs kvs = {0};
	char *prefix = xasprintf("%s%s/", co->prefix, what);
	size_t i, n = strlen(prefix);
	int rc;

	rc = etcd_range(co->etcd, prefix, true, &kvs, err);
	count(co, 1);
	for (i = 0; rc == 0 && i < kvs.n; i++) {
		strv_add(clusters, kvs.v[i].key + n);
		strv_add(values, kvs.v[i].value);
	}
	etcd_kvs_release(&kvs);
	free(prefix);
	return rc;
}

int
agent_coord_start(struct agent_coord **out, const struct agent_conf *c,
    const char *http, struct err *err)
{
	struct agent_coord *co;
	char *key_pem = NULL, *password = NULL, host[256], *now;
	struct sbuf b;
	struct jsonw w;

	if (read_secrets(c, &key_pem, &password, err) < 0)
		return -1;
	co = xcalloc(1, sizeof(*co));
	pthread_mutex_init(&co->mu, NULL);
	pthread_cond_init(&co->cv, NULL);
	co->id = xstrdup(c->coord_agent_id);
	co->prefix = xstrdup(c->coord_prefix);
	co->ttl = c->coord_lease_ttl;
	co->margin = c->coord_lease_margin;
	co->hash = c->coord_shard_mode == AGENT_CONF_SHARD_HASH;
	if (open_etcd(&co->etcd, c, key_pem, password, err) < 0 ||
	    open_etcd(&co->renewr, c, key_pem, password, err) < 0) {
		agent_creds_free(key_pem);
		agent_creds_free(password);
		agent_coord_stop(co);
		return -1;
	}
	agent_creds_free(key_pem);
	agent_creds_free(password);
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "?");
	host[sizeof(host) - 1] = '\0';
	now = clock_rfc3339_now();
	sbuf_init(&b, 0);
	jsonw_init(&w, &b, 0);
	jsonw_obj_begin(&w);
	jsonw_key_str(&w, "host", host);
	if (http != NULL)
		jsonw_key_str(&w, "http", http);
	jsonw_key_str(&w, "id", co->id);
	jsonw_key_int(&w, "pid", (int64_t)getpid());
	jsonw_key_str(&w, "started", now);
	jsonw_obj_end(&w);
	free(now);
	co->member_json = sbuf_take(&b);
	if (join(co, err) < 0) {
		agent_coord_stop(co);
		return -1;
	}
	if (pthread_create(&co->thread, NULL, renew_main, co) != 0) {
		err_setf(err, NULL, "etcd: cannot start the lease thread");
		agent_coord_stop(co);
		return -1;
	}
	co->started = true;
	*out = co;
	return 0;
}

static void
owned_release(struct agent_coord *co)
{
	size_t i;

	for (i = 0; i < co->no; i++) {
		free(co->o[i].cluster);
		free(co->o[i].owner);
	}
	free(co->o);
	co->o = NULL;
	co->no = co->co = 0;
}

void
agent_coord_stop(struct agent_coord *co)
{
	struct err err = {0};

	if (co == NULL)
		return;
	if (co->started) {
		pthread_mutex_lock(&co->mu);
		co->stop = true;
		pthread_cond_signal(&co->cv);
		pthread_mutex_unlock(&co->mu);
		pthread_join(co->thread, NULL);
	}
	if (co->etcd != NULL && co->lease != 0) {
		if (etcd_lease_revoke(co->etcd, co->lease, &err) < 0)
			log_warn("etcd: revoking lease %llx: %s (its keys go "
			         "when it expires)",
			    (unsigned long long)co->lease, err.msg);
		else
			log_info("etcd: lease %llx revoked: agent '%s' left",
			    (unsigned long long)co->lease, co->id);
		err_release(&err);
	}
	etcd_close(co->etcd);
	etcd_close(co->renewr);
	owned_release(co);
	strv_release(&co->members);
	free(co->id);
	free(co->prefix);
	free(co->member_json);
	free(co->leader);
	pthread_mutex_destroy(&co->mu);
	pthread_cond_destroy(&co->cv);
	free(co);
}

static struct owned *
find(const struct agent_coord *co, const char *cluster)
{
	size_t i;

	for (i = 0; i < co->no; i++)
		if (strcmp(co->o[i].cluster, cluster) == 0)
			return &co->o[i];
	return NULL;
}

static struct owned *
row(struct agent_coord *co, const char *cluster)
{
	struct owned *r = find(co, cluster);

	if (r != NULL)
		return r;
	xgrow(&co->o, &co->co, co->no + 1, sizeof(*co->o));
	r = &co->o[co->no++];
	memset(r, 0, sizeof(*r));
	r->cluster = xstrdup(cluster);
	return r;
}

static void
set_owner(struct owned *r, const char *owner)
{
	free(r->owner);
	r->owner = owner ? xstrdup(owner) : NULL;
}

/* Take key when nobody holds it: 1 taken (*epoch), 0 held by another
 * (*holder, owned, or NULL), -1 error. Held by this very lease: taken. */
static int
take(struct agent_coord *co, const char *key, int64_t lease, int64_t *epoch,
    char **holder, struct err *err)
{
	struct etcd_cmp cmp = {.key = key,
	    .target = ETCD_CREATE,
	    .result = ETCD_EQUAL,
	    .num = 0};
	struct etcd_op put = {.kind = ETCD_OP_PUT,
	    .key = key,
	    .value = co->id,
	    .value_len = strlen(co->id),
	    .lease = lease};
	struct etcd_op get = {.kind = ETCD_OP_GET, .key = key};
	struct etcd_txn t = {&cmp, 1, &put, &get, 1, 1};
	struct etcd_txn_result r = {0};
	int rc;

	*holder = NULL;
	rc = etcd_txn(co->etcd, &t, &r, err);
	count(co, 1);
	if (rc < 0)
		return -1;
	if (r.succeeded) {
		*epoch = r.revision; /* the put's revision: its create rev */
		rc = 1;
	} else if (r.kvs.n == 1 && r.kvs.v[0].lease == lease &&
	           strcmp(r.kvs.v[0].value, co->id) == 0) {
		*epoch = r.kvs.v[0].create_revision;
		rc = 1;
	} else {
		*holder = r.kvs.n == 1 ? xstrdup(r.kvs.v[0].value) : NULL;
		rc = 0;
	}
	etcd_txn_result_release(&r);
	return rc;
}

/* Give key up when it is still ours under epoch. */
static void
give_up(struct agent_coord *co, const char *key, int64_t epoch)
{
	struct etcd_cmp cmp = {.key = key,
	    .target = ETCD_CREATE,
	    .result = ETCD_EQUAL,
	    .num = epoch};
	struct etcd_op del = {.kind = ETCD_OP_DELETE, .key = key};
	struct etcd_txn t = {&cmp, 1, &del, NULL, 1, 0};
	struct etcd_txn_result r = {0};
	struct err err = {0};

	if (etcd_txn(co->etcd, &t, &r, &err) < 0) {
		log_warn("etcd: giving up %s: %s (it goes with the lease)", key,
		    err.msg);
		err_release(&err);
	}
	count(co, 1);
	etcd_txn_result_release(&r);
}

static void
lose_all(struct agent_coord *co, const char *why)
{
	size_t i;

	for (i = 0; i < co->no; i++)
		if (co->o[i].epoch > 0) {
			log_warn(
			    "cluster '%s': ownership lost (epoch %lld): %s",
			    co->o[i].cluster, (long long)co->o[i].epoch, why);
			co->o[i].epoch = 0;
			set_owner(&co->o[i], NULL);
		}
	co->leader_epoch = 0;
}

static int
refresh_members(struct agent_coord *co, struct err *err)
{
	struct etcd_kvs kvs = {0};
	char *prefix = xasprintf("%smembers/", co->prefix);
	size_t i, n = strlen(prefix);
	int rc;

	rc = etcd_range(co->etcd, prefix, true, &kvs, err);
	count(co, 1);
	if (rc == 0) {
		strv_release(&co->members);
		for (i = 0; i < kvs.n; i++)
			if (strlen(kvs.v[i].key) > n)
				strv_add(&co->members, kvs.v[i].key + n);
		strv_sort(&co->members);
	}
	free(prefix);
	etcd_kvs_release(&kvs);
	return rc;
}

static int
refresh_none(struct agent_coord *co, const char *const *clusters, size_t n,
    int64_t lease, struct err *err)
{
	char *key = owner_key(co, ""), *holder = NULL;
	int64_t epoch = 0;
	size_t i;
	int rc;

	rc = take(co, key, lease, &epoch, &holder, err);
	free(key);
	if (rc < 0)
		return -1;
	if (rc == 1 && co->leader_epoch != epoch) {
		log_notice("agent '%s' leads every cluster (epoch %lld)",
		    co->id, (long long)epoch);
	} else if (rc == 0 && co->leader_epoch > 0) {
		lose_all(co, "another agent leads");
	}
	co->leader_epoch = rc == 1 ? epoch : 0;
	free(co->leader);
	co->leader = rc == 1 ? xstrdup(co->id) : holder;
	for (i = 0; i < n; i++) {
		struct owned *r = row(co, clusters[i]);
		if (rc == 1 && r->epoch != epoch)
			r->taken = true;
		r->epoch = rc == 1 ? epoch : 0;
		set_owner(r, co->leader);
	}
	return 0;
}

static int
refresh_hash(struct agent_coord *co, const char *const *clusters, size_t n,
    int64_t lease, struct err *err)
{
	struct etcd_kvs kvs = {0};
	char *prefix = xasprintf("%sowners/", co->prefix);
	size_t i, j, plen = strlen(prefix);
	int rc = 0;

	if (etcd_range(co->etcd, prefix, true, &kvs, err) < 0) {
		free(prefix);
		count(co, 1);
		return -1;
	}
	count(co, 1);
	for (i = 0; i < n; i++) {
		struct owned *r = row(co, clusters[i]);
		const struct etcd_kv *cur = NULL;
		const char *want =
		    agent_coord_pick((const char *const *)co->members.v,
		        co->members.n, clusters[i]);
		char *key = owner_key(co, clusters[i]), *holder = NULL;
		int64_t epoch = 0;
		int t;

		for (j = 0; j < kvs.n; j++)
			if (strcmp(kvs.v[j].key + plen, clusters[i]) == 0)
				cur = &kvs.v[j];
		if (cur != NULL && cur->lease == lease &&
		    strcmp(cur->value, co->id) == 0) {
			if (want != NULL && strcmp(want, co->id) != 0) {
				/* another member is the choice now: hand it
				 * over, between cycles */
				give_up(co, key, cur->create_revision);
				log_notice("cluster '%s': handed over to '%s' "
				           "(epoch %lld ends)",
				    clusters[i], want,
				    (long long)cur->create_revision);
				r->epoch = 0;
				set_owner(r, want);
			} else {
				if (r->epoch != cur->create_revision)
					r->taken = true;
				r->epoch = cur->create_revision;
				set_owner(r, co->id);
			}
		} else if (cur != NULL) {
			if (r->epoch > 0)
				log_warn("cluster '%s': ownership lost (epoch "
				         "%lld): held by '%s'",
				    clusters[i], (long long)r->epoch,
				    cur->value);
			r->epoch = 0;
			set_owner(r, cur->value);
		} else if (want != NULL && strcmp(want, co->id) == 0) {
			t = take(co, key, lease, &epoch, &holder, err);
			if (t < 0) {
				free(key);
				rc = -1;
				break;
			}
			if (t == 1) {
				log_notice("cluster '%s': owned by agent '%s' "
				           "(epoch %lld)",
				    clusters[i], co->id, (long long)epoch);
				r->taken = r->epoch != epoch;
				r->epoch = epoch;
				set_owner(r, co->id);
			} else {
				r->epoch = 0;
				set_owner(r, holder);
			}
			free(holder);
		} else {
			r->epoch = 0;
			set_owner(r, NULL);
		}
		free(key);
	}
	free(prefix);
	etcd_kvs_release(&kvs);
	return rc;
}

int
agent_coord_refresh(struct agent_coord *co, const char *const *clusters,
    size_t n, struct err *err)
{
	int64_t lease, deadline;
	bool lost;

	lease = lease_state(co, &deadline, &lost);
	if (lost || clock_monotonic_ms() >= deadline) {
		lose_all(co, lost ? "the lease is gone"
		                  : "the lease ran out by this agent's clock");
		pthread_mutex_lock(&co->mu);
		co->lease = 0;
		pthread_mutex_unlock(&co->mu);
		if (join(co, err) < 0)
			return -1;
		lease = lease_state(co, &deadline, &lost);
	}
	if (refresh_members(co, err) < 0) {
		lose_all(co, "etcd cannot be asked");
		return -1;
	}
	if ((co->hash ? refresh_hash : refresh_none)(co, clusters, n, lease,
	        err) < 0) {
		lose_all(co, "etcd cannot be asked");
		return -1;
	}
	return 0;
}

int
agent_coord_claim(struct agent_coord *co, const char *cluster, struct err *err)
{
	struct owned *r;
	struct etcd_kvs kvs = {0};
	const char *want;
	char *key, *holder = NULL;
	int64_t lease, deadline, epoch = 0;
	bool lost;
	int rc;

	lease = lease_state(co, &deadline, &lost);
	if (lost || lease == 0 || clock_monotonic_ms() >= deadline ||
	    co->members.n == 0 || (!co->hash && co->leader == NULL))
		return agent_coord_refresh(co, &cluster, 1, err);
	r = row(co, cluster);
	if (!co->hash) {
		/* the leader, as read at this cycle's refresh, owns it */
		if (co->leader_epoch > 0 && r->epoch != co->leader_epoch)
			r->taken = true;
		r->epoch = co->leader_epoch;
		set_owner(r, co->leader);
		return 0;
	}
	want = agent_coord_pick((const char *const *)co->members.v,
	    co->members.n, cluster);
	key = owner_key(co, cluster);
	if (want != NULL && strcmp(want, co->id) == 0) {
		rc = take(co, key, lease, &epoch, &holder, err);
		if (rc == 1) {
			log_notice("cluster '%s': owned by agent '%s' (epoch "
			           "%lld)",
			    cluster, co->id, (long long)epoch);
			r->taken = true;
			r->epoch = epoch;
			set_owner(r, co->id);
		} else if (rc == 0) {
			r->epoch = 0;
			set_owner(r, holder);
		}
		free(holder);
	} else {
		rc = etcd_range(co->etcd, key, false, &kvs, err);
		count(co, 1);
		if (rc == 0) {
			r->epoch = 0;
			set_owner(r, kvs.n == 1 ? kvs.v[0].value : NULL);
		}
		etcd_kvs_release(&kvs);
	}
	free(key);
	return rc < 0 ? -1 : 0;
}

int64_t
agent_coord_epoch(const struct agent_coord *co, const char *cluster)
{
	const struct owned *r = find(co, cluster);

	return r != NULL ? r->epoch : 0;
}

const char *
agent_coord_owner(const struct agent_coord *co, const char *cluster)
{
	const struct owned *r = find(co, cluster);

	return r != NULL ? r->owner : NULL;
}

bool
agent_coord_taken(struct agent_coord *co, const char *cluster)
{
	struct owned *r = find(co, cluster);
	bool t = r != NULL && r->taken;

	if (r != NULL)
		r->taken = false;
	return t;
}

static int
lease_left_check(struct agent_coord *co, const char *cluster, struct err *err)
{
	int64_t deadline, left;
	bool lost;

	lease_state(co, &deadline, &lost);
	left = deadline - clock_monotonic_ms();
	if (lost)
		return err_setf(err, NULL,
		    "cluster '%s': this agent's lease is gone: it no longer "
		    "owns the cluster",
		    cluster);
	if (left < co->margin * 1000)
		return err_setf(err, NULL,
		    "cluster '%s': this agent's lease has %.1fs left, less "
		    "than the margin of %lds: nothing more is sent",
		    cluster, (double)left / 1000.0, co->margin);
	return 0;
}

/* The compares that say "key still ours under epoch". */
static void
fence_cmp(struct etcd_cmp cmp[2], const char *key, int64_t epoch, int64_t lease)
{
	memset(cmp, 0, 2 * sizeof(*cmp));
	cmp[0].key = key;
	cmp[0].target = ETCD_CREATE;
	cmp[0].result = ETCD_EQUAL;
	cmp[0].num = epoch;
	cmp[1].key = key;
	cmp[1].target = ETCD_LEASE;
	cmp[1].result = ETCD_EQUAL;
	cmp[1].num = lease;
}

/* Run success under the fence of cluster: 0, or -1 with err (the
 * ownership dropped when etcd said it is no longer ours). */
static int
fenced(struct agent_coord *co, const char *cluster, const struct etcd_op *ops,
    size_t nops, struct err *err)
{
	struct owned *r = find(co, cluster);
	struct etcd_cmp cmp[2];
	struct etcd_op get;
	struct etcd_txn t;
	struct etcd_txn_result res = {0};
	int64_t deadline, lease;
	bool lost;
	char *key;
	int rc;

	if (r == NULL || r->epoch == 0)
		return err_setf(err, NULL,
		    "cluster '%s': this agent does not own it", cluster);
	if (lease_left_check(co, cluster, err) < 0) {
		r->epoch = 0;
		set_owner(r, NULL);
		return -1;
	}
	lease = lease_state(co, &deadline, &lost);
	key = owner_key(co, cluster);
	fence_cmp(cmp, key, r->epoch, lease);
	get.kind = ETCD_OP_GET;
	get.key = key;
	get.prefix = false;
	t.cmp = cmp;
	t.ncmp = 2;
	t.success = ops;
	t.nsuccess = nops;
	t.failure = &get;
	t.nfailure = 1;
	rc = etcd_txn(co->etcd, &t, &res, err);
	count(co, 1);
	if (rc == 0 && !res.succeeded) {
		log_warn("cluster '%s': lost ownership (epoch %lld): the key "
		         "is %s",
		    cluster, (long long)r->epoch,
		    res.kvs.n == 0 ? "gone" : "another agent's");
		err_setf(err, NULL,
		    "cluster '%s': this agent lost its ownership (epoch %lld, "
		    "now %s): nothing more is sent",
		    cluster, (long long)r->epoch,
		    res.kvs.n == 0 ? "nobody's" : res.kvs.v[0].value);
		set_owner(r, res.kvs.n == 0 ? NULL : res.kvs.v[0].value);
		r->epoch = 0;
		rc = -1;
	} else if (rc < 0) {
		char *m = xstrdup(err->msg ? err->msg : "?");
		err_release(err);
		err_setf(err, NULL,
		    "cluster '%s': its ownership cannot be confirmed (%s): "
		    "nothing is sent",
		    cluster, m);
		free(m);
	}
	etcd_txn_result_release(&res);
	free(key);
	/* the transaction may have been slow: the margin once more */
	if (rc == 0 && lease_left_check(co, cluster, err) < 0) {
		r->epoch = 0;
		set_owner(r, NULL);
		rc = -1;
	}
	return rc;
}

int
agent_coord_fence(struct agent_coord *co, const char *cluster, struct err *err)
{
	return fenced(co, cluster, NULL, 0, err);
}

static char *
state_key(const struct agent_coord *co, const char *cluster, const char *name)
{
	return xasprintf("%sstate/%s/%s", co->prefix, cluster, name);
}

int
agent_coord_put_state(struct agent_coord *co, const char *cluster,
    const char *name, const void *data, size_t len, struct err *err)
{
	struct etcd_op put = {0};
	char *key = state_key(co, cluster, name);
	int rc;

	put.kind = ETCD_OP_PUT;
	put.key = key;
	put.value = data;
	put.value_len = len;
	rc = fenced(co, cluster, &put, 1, err);
	free(key);
	return rc;
}

int
agent_coord_delete_state(struct agent_coord *co, const char *cluster,
    const char *name, struct err *err)
{
	struct etcd_op del = {0};
	char *key = state_key(co, cluster, name);
	int rc;

	del.kind = ETCD_OP_DELETE;
	del.key = key;
	rc = fenced(co, cluster, &del, 1, err);
	free(key);
	return rc;
}

int
agent_coord_get_state(struct agent_coord *co, const char *cluster,
    const char *name, char **out, size_t *len, struct err *err)
{
	struct etcd_kvs kvs = {0};
	char *key = state_key(co, cluster, name);
	int rc;

	rc = etcd_range(co->etcd, key, false, &kvs, err);
	count(co, 1);
	free(key);
	if (rc < 0)
		return -1;
	if (kvs.n == 0) {
		etcd_kvs_release(&kvs);
		return 1;
	}
	*out = kvs.v[0].value;
	*len = kvs.v[0].value_len;
	kvs.v[0].value = NULL;
	etcd_kvs_release(&kvs);
	return 0;
}

int
agent_coord_put_audit(struct agent_coord *co, const char *cluster,
    int64_t epoch, const char *row, struct err *err)
{
	char *key;
	int rc;

	/* ordered by epoch, then by this agent's own clock and sequence;
	 * never overwritten (each key is new) */
	key = xasprintf("%saudit/%s/%020lld/%020lld-%06llu", co->prefix,
	    cluster, (long long)epoch, (long long)clock_monotonic_ms(),
	    (unsigned long long)++co->audit_seq);
	rc = etcd_put(co->etcd, key, row, strlen(row), 0, NULL, err);
	count(co, 1);
	free(key);
	return rc;
}

int
agent_coord_get_audit(struct agent_coord *co, const char *cluster,
    struct strv *rows, struct err *err)
{
	struct etcd_kvs kvs = {0};
	char *prefix = xasprintf("%saudit/%s/", co->prefix, cluster);
	size_t i;
	int rc;

	rc = etcd_range(co->etcd, prefix, true, &kvs, err);
	count(co, 1);
	free(prefix);
	if (rc < 0)
		return -1;
	for (i = 0; i < kvs.n; i++)
		strv_add(rows, kvs.v[i].value);
	etcd_kvs_release(&kvs);
	return 0;
}

/* One cluster's files of a state folder, into etcd (state-migrate). */
static int
migrate_cluster(struct etcd *e, const struct agent_conf *c, const char *dir,
    const char *cluster, bool dry_run, struct sbuf *report, struct err *err)
{
	static const char *const files[] = {"inventory.json", "suspended.json"};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = xasprintf("%s/%s/%s", dir, cluster, files[i]);
		char *text = NULL, *key;
		size_t len = 0;
		int rc;

		if (access(path, F_OK) < 0) {
			free(path);
			continue;
		}
		rc = afile_read(&text, &len, path, (size_t)64 * 1024 * 1024,
		    err);
		free(path);
		if (rc < 0)
			return -1;
		key = i == 0 ? xasprintf("%sstate/%s/%s", c->coord_prefix,
		                   cluster, files[i])
		             : xasprintf("%ssuspended/%s", c->coord_prefix,
		                   cluster);
		if (!dry_run)
			rc = etcd_put(e, key, text, len, 0, NULL, err);
		sbuf_addf(report, "  %s -> %s (%zu bytes)\n", files[i], key,
		    len);
		free(key);
		free(text);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int
agent_coord_migrate(const struct agent_conf *c, const char *dir,
    const struct strv *clusters, const struct strv *rows,
    const struct strv *row_clusters, bool dry_run, struct sbuf *report,
    struct err *err)
{
	struct etcd *e = NULL;
	struct etcd_kvs kvs = {0};
	char *key_pem, *password, *key;
	size_t i, j, n;
	int rc = -1;

	if (read_secrets(c, &key_pem, &password, err) < 0)
		return -1;
	rc = open_etcd(&e, c, key_pem, password, err);
	agent_creds_free(key_pem);
	agent_creds_free(password);
	if (rc < 0)
		return -1;
	rc = -1;
	/* nothing is copied over agents at work or state already there */
	key = xasprintf("%smembers/", c->coord_prefix);
	if (etcd_range(e, key, true, &kvs, err) < 0)
		goto done;
	if (kvs.n > 0) {
		err_setf(err, NULL,
		    "%zu agent(s) run on prefix '%s' (the first: %s): stop "
		    "them before migrating a state folder under it",
		    kvs.n, c->coord_prefix, kvs.v[0].key + strlen(key));
		goto done;
	}
	for (i = 0; i < clusters->n; i++) {
		char *p[3];
		p[0] =
		    xasprintf("%sstate/%s/", c->coord_prefix, clusters->v[i]);
		p[1] =
		    xasprintf("%saudit/%s/", c->coord_prefix, clusters->v[i]);
		p[2] = xasprintf("%ssuspended/%s", c->coord_prefix,
		    clusters->v[i]);
		for (j = 0; j < 3 && rc == -1; j++) {
			if (etcd_range(e, p[j], j < 2, &kvs, err) < 0) {
				rc = -2;
			} else if (kvs.n > 0) {
				err_setf(err, NULL,
				    "etcd already holds '%s' (cluster '%s' was "
				    "migrated, or an agent with state-backend "
				    "etcd wrote it): nothing is copied",
				    kvs.v[0].key, clusters->v[i]);
				rc = -2;
			}
		}
		for (j = 0; j < 3; j++)
			free(p[j]);
		if (rc == -2) {
			rc = -1;
			goto done;
		}
	}
	for (i = 0; i < clusters->n; i++) {
		sbuf_addf(report, "cluster '%s':\n", clusters->v[i]);
		if (migrate_cluster(e, c, dir, clusters->v[i], dry_run, report,
		        err) < 0)
			goto done;
		for (j = 0, n = 0; j < rows->n; j++) {
			char *ak;

			if (strcmp(row_clusters->v[j], clusters->v[i]) != 0)
				continue;
			/* epoch 0: before any agent owned it; in their
			 * order in the folder's audit log */
			ak = xasprintf("%saudit/%s/%020d/%020zu-%06d",
			    c->coord_prefix, clusters->v[i], 0, j, 0);
			if (!dry_run &&
			    etcd_put(e, ak, rows->v[j], strlen(rows->v[j]), 0,
			        NULL, err) < 0) {
				free(ak);
				goto done;
			}
			free(ak);
			n++;
		}
		sbuf_addf(report, "  %zu audit row(s) -> %saudit/%s/\n", n,
		    c->coord_prefix, clusters->v[i]);
	}
	rc = 0;
done:
	free(key);
	etcd_kvs_release(&kvs);
	etcd_close(e);
	return rc;
}
