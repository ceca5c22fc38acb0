/* reconcile/plan/plan-read.h: strict readers of JSON members (cJSON), used by
 * plan-parse.c. Each returns 0, or -1 with `path: where.key: problem` in
 * the context's err; strings are copied (owned by the caller). */
#ifndef RECONCILE_PLAN_PLAN_READ_H
#define RECONCILE_PLAN_PLAN_READ_H

#include <cjson/cJSON.h>

#include "plan-int.h"

struct plan_reader {
	const char *path; /* the file, for messages */
	struct err *err;
};

int plan_read_fail(struct plan_reader *c, const char *where, const char *key,
    const char *what);
/* The member, or NULL with "missing" recorded. */
const cJSON *plan_read_member(struct plan_reader *c, const cJSON *o,
    const char *where, const char *key);
int plan_read_str(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, bool nullable, char **out);
int plan_read_int(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, int64_t *out);
int plan_read_bool(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, bool *out);
/* An array member (NULL on error) and its size. */
const cJSON *plan_read_array(struct plan_reader *c, const cJSON *o,
    const char *where, const char *key, size_t *n);
/* An object member, or JSON null when nullable (NULL on error). */
const cJSON *plan_read_object(struct plan_reader *c, const cJSON *o,
    const char *where, const char *key, bool nullable);
int plan_read_strings(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, char ***out, size_t *n);
/* ["ANYCAST", "MULTICAST"] as a set of decl_routing. */
int plan_read_routing(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, unsigned *out);
/* An optional string member: absent gives NULL. */
int plan_read_optional(struct plan_reader *c, const cJSON *o, const char *where,
    const char *key, char **out);
/* The createQueue / createDivert JSON that plan-json.c writes. */
int plan_read_queue(struct plan_reader *c, const cJSON *o, const char *w,
    struct recon_queue *q);
int plan_read_transformer(struct plan_reader *c, const cJSON *o, const char *w,
    struct recon_divert *d);
int plan_read_divert(struct plan_reader *c, const cJSON *o, const char *w,
    struct recon_divert *d);

/* plan-broker-json.c: the optional broker_xml member (absent: none). */
int plan_broker_xml_parse(struct plan_reader *c, const cJSON *root,
    struct plan *p);

#endif
