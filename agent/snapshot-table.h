/* agent/snapshot-table.h: a snapshot as tables for people. */
#ifndef AGENT_SNAPSHOT_TABLE_H
#define AGENT_SNAPSHOT_TABLE_H

#include <stdio.h>

#include "../reconcile/recon.h"

/* Per node: a header line, then queues, addresses and diverts as aligned
 * columns; an unreadable node gets its refusal instead. Broker strings
 * are printed with control bytes escaped. */
void agent_snapshot_table(FILE *f, const struct recon_snapshot *s);
/* `artemis-gitops snapshot: node 'N': KIND (HTTP h): text` */
void agent_snapshot_refusal_line(FILE *f, const struct recon_node_snapshot *n);
/* s with control bytes as \xNN (owned). */
char *agent_snapshot_escape(const char *s);

#endif
