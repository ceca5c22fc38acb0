/* reconcile/import/import-int.h: shared only inside reconcile/import/. */
#ifndef RECONCILE_IMPORT_IMPORT_INT_H
#define RECONCILE_IMPORT_IMPORT_INT_H

#include "import.h"

/* import.c */
/* An entry left out on one node: kind, name, why, the node and what it
 * says (state), appended to *v. */
void import_left_add1(struct import_left **v, size_t *n, enum import_kind kind,
    const char *name, enum import_why why, const char *node, const char *state);
/* The address named name among c's when they are in name order (as
 * import adds them), or -1. */
long import_find_address(const struct decl_cluster *c, const char *name);
/* The settings of an object as one line (for the report), owned. */
char *import_queue_text(const struct decl_queue *q);
char *import_divert_text(const struct decl_divert *d);
char *import_address_text(const struct decl_address *a);

#endif
