/* reconcile/jolokia.h: the Jolokia client (inside reconcile/ only; curl and
 * cJSON never leave this module).
 *
 * A request is a bulk: build it with recon_jbulk_read/exec or one of the
 * operation helpers (each returns the element's index), send it with
 * recon_jolokia_post (one HTTP POST) or recon_jolokia_post_all (several
 * nodes concurrently, curl multi), then look at b->results[i]: a refusal
 * (kind RECON_OK on success) and the element's `value`.
 *
 * Every failure is classified here, once, into enum recon_kind (see
 * recon.h), by HTTP status, Jolokia status and the AMQ2290nn code inside
 * the broker's `error` text, never by exception class. The broker's text
 * is kept in refusal.text. Credentials never appear in any text.
 */
#ifndef RECON_JOLOKIA_H
#define RECON_JOLOKIA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../lib/sbuf.h"
#include "../recon.h"

struct cJSON;

#define RECON_JOLOKIA_ORIGIN          "http://localhost"
#define RECON_JOLOKIA_CONNECT_TIMEOUT 5000  /* ms */
#define RECON_JOLOKIA_TIMEOUT         30000 /* ms */
#define RECON_JOLOKIA_MAX_RESPONSE    ((size_t)32 * 1024 * 1024)
#define RECON_JOLOKIA_MAX_TEXT        2000 /* bytes of broker text kept */

/* Where and how to talk to one node. Strings are borrowed. */
struct recon_jolokia_conf {
	const char *url;         /* http(s)://host:port/console/jolokia */
	const char *userpass;    /* "user:password" (HTTP Basic); NULL = none */
	const char *origin;      /* NULL = RECON_JOLOKIA_ORIGIN */
	const char *ca_file;     /* NULL = the system trust store */
	long connect_timeout_ms; /* 0 = RECON_JOLOKIA_CONNECT_TIMEOUT */
	long timeout_ms;         /* total; 0 = RECON_JOLOKIA_TIMEOUT */
	size_t max_response;     /* 0 = RECON_JOLOKIA_MAX_RESPONSE */
};

enum recon_jarg_type {
	RECON_JARG_STR = 0,
	RECON_JARG_BOOL,
	RECON_JARG_INT,
	RECON_JARG_NULL,
};

/* One argument of an operation. */
struct recon_jarg {
	enum recon_jarg_type type;
	const char *s; /* RECON_JARG_STR (NULL sends null) */
	bool b;
	int64_t i;
};

/* The outcome of one bulk element. */
struct recon_jresult {
	struct recon_refusal refusal; /* kind RECON_OK on success */
	/* The element's `value`, borrowed from the bulk; NULL on a refusal
	 * and for a pattern read that matched nothing. */
	const struct cJSON *value;
};

/* A bulk request and, once sent, its replies. Valid when zeroed. */
struct recon_jbulk {
	struct sbuf body; /* the JSON array being built */
	size_t n, alloc;
	bool *pattern;                 /* per element: an MBean pattern read */
	struct recon_jresult *results; /* n, after a reply was parsed */
	struct cJSON *root;            /* the parsed reply (owned) */
	int http_status;               /* of the reply; 0 before */
	unsigned requests; /* HTTP requests sent for this bulk (by post) */
};

void recon_jbulk_release(struct recon_jbulk *b); /* leaves it zeroed */

/* Append a `read` of attrs (nattrs == 0: every attribute). mbean may be a
 * pattern (contains '*' or '?'): its reply is {mbean: {attr: value}} and
 * "nothing matched" is success with value NULL. */
size_t recon_jbulk_read(struct recon_jbulk *b, const char *mbean,
    const char *const *attrs, size_t nattrs);
/* Append an `exec`; operation is the full signature,
 * e.g. "destroyQueue(java.lang.String,boolean,boolean)". */
size_t recon_jbulk_exec(struct recon_jbulk *b, const char *mbean,
    const char *operation, const struct recon_jarg *args, size_t nargs);

/* Operations on the broker named broker (the discovered broker name). */
size_t recon_jbulk_create_address(struct recon_jbulk *b, const char *broker,
    const char *name, unsigned routing);
size_t recon_jbulk_update_address(struct recon_jbulk *b, const char *broker,
    const char *name, unsigned routing);
size_t recon_jbulk_delete_address(struct recon_jbulk *b, const char *broker,
    const char *name, bool force);
/* createQueue(JSON) with every setting explicit (address, routing-type,
 * durable, auto-create-address=false, filter-string, ...). */
size_t recon_jbulk_create_queue(struct recon_jbulk *b, const char *broker,
    const struct decl_queue *q);
/* updateQueue(JSON), complete (an absent filter would clear it). */
size_t recon_jbulk_update_queue(struct recon_jbulk *b, const char *broker,
    const struct decl_queue *q);
size_t recon_jbulk_destroy_queue(struct recon_jbulk *b, const char *broker,
    const char *name, bool remove_consumers, bool auto_delete_address);
/* createDivert(JSON) / updateDivert(JSON) (Artemis 2.38+), all eight keys;
 * routing-name defaults to the divert's name. createDivert on a taken
 * name is a silent no-op on the broker: read back to confirm. */
size_t recon_jbulk_create_divert(struct recon_jbulk *b, const char *broker,
    const struct decl_divert *d);
size_t recon_jbulk_update_divert(struct recon_jbulk *b, const char *broker,
    const struct decl_divert *d);
size_t recon_jbulk_destroy_divert(struct recon_jbulk *b, const char *broker,
    const char *name);

/* The JSON texts those helpers send (owned by the caller). */
char *recon_queue_config_json(const struct decl_queue *q);
char *recon_divert_config_json(const struct decl_divert *d);

/* MBean names (ObjectName.quote applied to every value); owned. */
char *recon_mbean_quote(const char *value);
char *recon_mbean_broker(const char *broker);
char *recon_mbean_address(const char *broker, const char *address);
char *recon_mbean_queue(const char *broker, const char *address,
    unsigned routing, const char *queue);
char *recon_mbean_divert(const char *broker, const char *address,
    const char *divert);
/* The unquoted value of key in a (canonical) MBean name; -1 if absent or
 * malformed. *out is owned by the caller. */
int recon_mbean_key(const char *mbean, const char *key, char **out);

/* Parse an HTTP answer to b into b->results. Returns 0 when the body is a
 * bulk reply of the right length (elements may still be refused); -1 when
 * the whole request failed, with *out classified (UNAUTHORIZED,
 * THROTTLED, BAD_RESPONSE, ...) and every element given the same refusal.
 * No I/O: the fuzz target and the unit tests call it on recorded replies. */
int recon_jbulk_parse_reply(struct recon_jbulk *b, long http_status,
    const char *body, size_t len, struct recon_refusal *out);

/* Classify one failed reply element (a Jolokia status != 200): AMQ codes
 * first, then the status. pattern: the element was a pattern read. */
enum recon_kind recon_jolokia_classify(int status, const char *error,
    bool pattern);

/* One HTTP POST of b to conf. 0, or -1 with *out set as above. */
int recon_jolokia_post(const struct recon_jolokia_conf *conf,
    struct recon_jbulk *b, struct recon_refusal *out);
/* Post bulks[i] to confs[i] for every i < n concurrently (curl multi, one
 * thread); outs[i] as recon_jolokia_post would set it. */
void recon_jolokia_post_all(const struct recon_jolokia_conf *confs,
    struct recon_jbulk *bulks, size_t n, struct recon_refusal *outs);

#endif
