/* reconcile/json-read.h: strict readers of JSON members (cJSON), used by
 * plan-parse.c. Each returns 0, or -1 with `path: where.key: problem` in
 * the context's err; strings are copied (owned by the caller). */
#ifndef RECON_JSON_READ_H
#define RECON_JSON_READ_H

#include <cjson/cJSON.h>

#include "plan-int.h"

struct recon_jr {
	const char *path; /* the file, for messages */
	struct err *err;
};

int recon_jr_fail(struct recon_jr *c, const char *where, const char *key,
    const char *what);
/* The member, or NULL with "missing" recorded. */
const cJSON *recon_jr_member(struct recon_jr *c, const cJSON *o,
    const char *where, const char *key);
int recon_jr_pstr(struct recon_jr *c, const cJSON *o, const char *where,
    const char *key, bool nullable, char **out);
int recon_jr_pint(struct recon_jr *c, const cJSON *o, const char *where,
    const char *key, int64_t *out);
int recon_jr_pbool(struct recon_jr *c, const cJSON *o, const char *where,
    const char *key, bool *out);
/* An array member (NULL on error) and its size. */
const cJSON *recon_jr_parr(struct recon_jr *c, const cJSON *o,
    const char *where, const char *key, size_t *n);
/* An object member, or JSON null when nullable (NULL on error). */
const cJSON *recon_jr_pobj(struct recon_jr *c, const cJSON *o,
    const char *where, const char *key, bool nullable);
int recon_jr_pstrs(struct recon_jr *c, const cJSON *o, const char *where,
    const char *key, char ***out, size_t *n);
/* ["ANYCAST", "MULTICAST"] as a set of decl_routing. */
int recon_jr_prouting(struct recon_jr *c, const cJSON *o, const char *where,
    const char *key, unsigned *out);
/* An optional string member: absent gives NULL. */
int recon_jr_popt(struct recon_jr *c, const cJSON *o, const char *where,
    const char *key, char **out);
/* The createQueue / createDivert JSON that plan-json.c writes. */
int recon_jr_pqueue(struct recon_jr *c, const cJSON *o, const char *w,
    struct recon_queue *q);
int recon_jr_ptransformer(struct recon_jr *c, const cJSON *o, const char *w,
    struct recon_divert *d);
int recon_jr_pdivert(struct recon_jr *c, const cJSON *o, const char *w,
    struct recon_divert *d);

/* plan-broker-json.c: the optional broker_xml member (absent: none). */
int recon_plan_broker_parse(struct recon_jr *c, const cJSON *root,
    struct recon_plan *p);

#endif
