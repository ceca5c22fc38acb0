/* tests/tools/jexec.c: a test-only driver of the Jolokia client
 * (reconcile/live/live-int.h), so integration tests create and destroy objects
 * on real brokers through the same code apply will use.
 *
 *   jexec [--broker B] [--origin O] [--timeout-ms N]
 *         [--divert-api auto|json|positional] URL CREDFILE OP ARGS...
 *
 * OP: create-address NAME ROUTING        (anycast | multicast |
 * anycast,multicast) update-address NAME ROUTING delete-address NAME [force]
 *     create-queue|update-queue NAME ADDRESS ROUTING [key=value...]
 *         keys: durable filter max-consumers purge exclusive ring-size
 *               enabled last-value-key consumers-before-dispatch
 *               delay-before-dispatch (booleans as 0/1)
 *     destroy-queue NAME [remove-consumers]
 *     create-divert|update-divert NAME SOURCE FORWARD [key=value...]
 *         keys: routing-type exclusive filter routing-name transformer
 *               prop (k=v, repeatable)
 *     destroy-divert NAME
 *     read MBEAN ATTRIBUTE
 *
 * A divert create or update first reads the broker's Version and sends
 * the overload that release has, as apply does (--divert-api json or
 * positional forces one).
 *
 * Prints `OK` (read: `OK <value as JSON>`) or `<KIND> http=<h> status=<s>:
 * <text>`; exits 0 on OK, 1 on a refusal, 64 on usage errors. --broker
 * defaults to the node name node1 when the URL's port is unknown: pass it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/afile.h"
#include "../../lib/json.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live-int.h"

static int
usage(void)
{
	fprintf(stderr, "usage: jexec [--broker B] [--origin O] "
	                "[--timeout-ms N] [--divert-api auto|json|positional] "
	                "URL CREDFILE OP ARGS...\n");
	return 64;
}

static unsigned
routing_set(const char *s)
{
	unsigned r = 0;

	if (strstr(s, "anycast") != NULL)
		r |= DECL_ANYCAST;
	if (strstr(s, "multicast") != NULL)
		r |= DECL_MULTICAST;
	return r;
}

static bool
flag(const char *v)
{
	return strcmp(v, "1") == 0 || strcmp(v, "true") == 0;
}

static int
queue_opts(struct recon_queue *q, char **kv, int n)
{
	int i;
	char *v;

	for (i = 0; i < n; i++) {
		v = strchr(kv[i], '=');
		if (v == NULL)
			return -1;
		*v++ = '\0';
		if (strcmp(kv[i], "durable") == 0)
			q->durable = flag(v);
		else if (strcmp(kv[i], "filter") == 0)
			q->filter = v;
		else if (strcmp(kv[i], "max-consumers") == 0)
			q->max_consumers = strtoll(v, NULL, 10);
		else if (strcmp(kv[i], "purge") == 0)
			q->purge_on_no_consumers = flag(v);
		else if (strcmp(kv[i], "exclusive") == 0)
			q->exclusive = flag(v);
		else if (strcmp(kv[i], "ring-size") == 0)
			q->ring_size = strtoll(v, NULL, 10);
		else if (strcmp(kv[i], "enabled") == 0)
			q->enabled = flag(v);
		else if (strcmp(kv[i], "last-value-key") == 0)
			q->last_value_key = v;
		else if (strcmp(kv[i], "consumers-before-dispatch") == 0)
			q->consumers_before_dispatch = strtoll(v, NULL, 10);
		else if (strcmp(kv[i], "delay-before-dispatch") == 0)
			q->delay_before_dispatch = strtoll(v, NULL, 10);
		else
			return -1;
	}
	return 0;
}

static const char *const divert_rt[] = {"STRIP", "PASS", "ANYCAST",
    "MULTICAST"};

static int
divert_opts(struct recon_divert *d, char **kv, int n)
{
	int i, k;
	char *v, *pv;

	for (i = 0; i < n; i++) {
		v = strchr(kv[i], '=');
		if (v == NULL)
			return -1;
		*v++ = '\0';
		if (strcmp(kv[i], "routing-type") == 0) {
			for (k = 0; k < 4 && strcmp(v, divert_rt[k]) != 0; k++)
				continue;
			if (k == 4)
				return -1;
			d->routing_type = (enum decl_divert_routing)k;
		} else if (strcmp(kv[i], "exclusive") == 0) {
			d->exclusive = flag(v);
		} else if (strcmp(kv[i], "filter") == 0) {
			d->filter = v;
		} else if (strcmp(kv[i], "routing-name") == 0) {
			d->routing_name = v;
		} else if (strcmp(kv[i], "transformer") == 0) {
			d->transformer_class_name = v;
		} else if (strcmp(kv[i], "prop") == 0) {
			pv = strchr(v, '=');
			if (pv == NULL)
				return -1;
			*pv++ = '\0';
			d->transformer_properties[d->ntransformer_properties]
			    .key = v;
			d->transformer_properties[d->ntransformer_properties++]
			    .value = pv;
		} else {
			return -1;
		}
	}
	return 0;
}

/* Append the operation to b; -1 on a usage error. */
static int
build(struct live_bulk *b, const char *broker, const char *op, char **a, int n,
    struct decl_kv *props, bool divert_json)
{
	struct recon_queue q = {.durable = true,
	    .max_consumers = -1,
	    .ring_size = -1,
	    .enabled = true,
	    .delay_before_dispatch = -1};
	struct recon_divert d = {.transformer_properties = props};
	bool upd = strncmp(op, "update-", 7) == 0;

	if ((strcmp(op, "create-address") == 0 ||
	        strcmp(op, "update-address") == 0) &&
	    n == 2) {
		if (upd)
			live_bulk_update_address(b, broker, a[0],
			    routing_set(a[1]));
		else
			live_bulk_create_address(b, broker, a[0],
			    routing_set(a[1]));
	} else if (strcmp(op, "delete-address") == 0 && n >= 1) {
		live_bulk_delete_address(b, broker, a[0],
		    n > 1 && strcmp(a[1], "force") == 0);
	} else if ((strcmp(op, "create-queue") == 0 ||
	               strcmp(op, "update-queue") == 0) &&
	           n >= 3) {
		q.name = a[0];
		q.address = a[1];
		q.routing = routing_set(a[2]);
		if (queue_opts(&q, a + 3, n - 3) < 0)
			return -1;
		if (upd)
			live_bulk_update_queue(b, broker, &q);
		else
			live_bulk_create_queue(b, broker, &q);
	} else if (strcmp(op, "destroy-queue") == 0 && n >= 1) {
		live_bulk_destroy_queue(b, broker, a[0],
		    n > 1 && strcmp(a[1], "remove-consumers") == 0, false);
	} else if ((strcmp(op, "create-divert") == 0 ||
	               strcmp(op, "update-divert") == 0) &&
	           n >= 3) {
		d.name = a[0];
		d.address = a[1];
		d.forwarding_address = a[2];
		if (divert_opts(&d, a + 3, n - 3) < 0)
			return -1;
		if (upd && !divert_json) {
			/* never positional: it breaks the broker's restart */
			fprintf(stderr,
			    "jexec: no updateDivert(java.lang.String) on this broker\n");
			return -1;
		}
		if (upd)
			live_bulk_update_divert(b, broker, &d);
		else
			live_bulk_create_divert(b, broker, &d, divert_json);
	} else if (strcmp(op, "destroy-divert") == 0 && n == 1) {
		live_bulk_destroy_divert(b, broker, a[0]);
	} else if (strcmp(op, "read") == 0 && n == 2) {
		live_bulk_read(b, a[0], (const char *const *)&a[1], 1);
	} else {
		return -1;
	}
	return 0;
}

static int
report(const struct live_bulk *b, const char *op)
{
	const struct recon_refusal *r = &b->results[0].refusal;
	char *v;

	if (r->kind == RECON_OK) {
		if (strcmp(op, "read") == 0 && b->results[0].value != NULL) {
			v = json_render(b->results[0].value);
			printf("OK %s\n", v);
			free(v);
		} else {
			printf("OK\n");
		}
		return 0;
	}
	printf("%s http=%d status=%d: %s\n", recon_kind_name(r->kind),
	    r->http_status, r->status, r->text ? r->text : "");
	return 1;
}

/* The broker's Version attribute (owned), NULL when it cannot be read. */
static char *
broker_version(const struct live_jolokia_conf *conf, const char *broker)
{
	struct recon_refusal whole = {0};
	struct live_bulk b = {0};
	const char *attr = "Version";
	char *m = live_mbean_broker(broker), *v = NULL;

	live_bulk_read(&b, m, &attr, 1);
	free(m);
	/* an attribute list is answered with an object */
	if (live_jolokia_post(conf, &b, &whole) == 0 &&
	    b.results[0].refusal.kind == RECON_OK &&
	    json_str(json_get(b.results[0].value, "Version")) != NULL)
		v = xstrdup(json_str(json_get(b.results[0].value, "Version")));
	recon_refusal_release(&whole);
	live_bulk_release(&b);
	return v;
}

static int
read_creds(char **out, const char *file)
{
	struct err err = {0};
	size_t len = 0;

	if (afile_read(out, &len, file, 4096, &err) < 0) {
		fprintf(stderr, "jexec: %s\n", err.msg);
		err_release(&err);
		return -1;
	}
	while (len > 0 && ((*out)[len - 1] == '\n' || (*out)[len - 1] == '\r'))
		(*out)[--len] = '\0';
	return 0;
}

int
main(int argc, char **argv)
{
	struct live_jolokia_conf conf = {0};
	struct recon_refusal whole = {0};
	struct live_bulk b = {0};
	struct decl_kv props[16];
	const char *broker = "node1", *api = "auto";
	char *creds = NULL, *version;
	bool divert_json = true;
	int i = 1, rc;

	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		if (strcmp(argv[i], "--broker") == 0)
			broker = argv[i + 1];
		else if (strcmp(argv[i], "--origin") == 0)
			conf.origin = argv[i + 1];
		else if (strcmp(argv[i], "--timeout-ms") == 0)
			conf.timeout_ms = strtol(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--divert-api") == 0)
			api = argv[i + 1];
		else
			return usage();
	}
	if (argc - i < 3 || argc - i > 3 + 16)
		return usage();
	conf.url = argv[i];
	if (read_creds(&creds, argv[i + 1]) < 0)
		return 1;
	conf.userpass = creds;
	if (strcmp(api, "positional") == 0) {
		divert_json = false;
	} else if (strcmp(api, "auto") == 0 && strstr(argv[i + 2], "-divert") &&
	           strncmp(argv[i + 2], "destroy", 7) != 0) {
		version = broker_version(&conf, broker);
		if (version == NULL) {
			fprintf(stderr,
			    "jexec: cannot read the broker's Version\n");
			free(creds);
			return 1;
		}
		divert_json = recon_version_divert_json(version);
		free(version);
	} else if (strcmp(api, "json") != 0 && strcmp(api, "auto") != 0) {
		free(creds);
		return usage();
	}
	if (build(&b, broker, argv[i + 2], argv + i + 3, argc - i - 3, props,
	        divert_json) < 0) {
		free(creds);
		live_bulk_release(&b);
		return usage();
	}
	(void)live_jolokia_post(&conf, &b, &whole);
	rc = report(&b, argv[i + 2]);
	recon_refusal_release(&whole);
	live_bulk_release(&b);
	free(creds);
	return rc;
}
