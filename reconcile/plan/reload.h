/* reconcile/reload.h: what a broker does when it reloads a rendered
 * broker.xml (CONFIG_MANAGED), predicted from its live snapshot.
 *
 * The rules are what Artemis 2.40.0 was observed to do
 * (tests/integration/40-render-boot.sh, docs/config-managed.md):
 * entries missing from the file stay unless the matching address-setting
 * has config-delete-{addresses,queues,diverts} FORCE; FORCE on queues
 * removes only configuration-managed queues, with their messages; FORCE
 * on addresses and on diverts removes runtime-created ones too; a changed
 * queue is updated in place; a divert in the file that is not live is
 * deployed by any reload.
 *
 * The snapshot reads the address-settings of match "#" only, so the
 * prediction applies those to every object (said in the rendering).
 */
#ifndef RECON_RELOAD_H
#define RECON_RELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../declarations/decl.h"
#include "../recon.h"

enum plan_reload_effect {
	PLAN_RELOAD_ADDS,    /* in the file, not live: created */
	PLAN_RELOAD_UPDATES, /* in the file and live, settings differ */
	PLAN_RELOAD_KEEPS,   /* live, not in the file: stays */
	PLAN_RELOAD_REMOVES, /* live, not in the file: removed */
};

enum plan_reload_object {
	PLAN_RELOAD_ADDRESS,
	PLAN_RELOAD_QUEUE,
	PLAN_RELOAD_DIVERT,
};

struct plan_reload_item {
	enum plan_reload_effect effect;
	enum plan_reload_object object;
	char *name;       /* owned */
	char *address;    /* owned; a queue's address, a divert's source */
	char *detail;     /* owned; what changes, or why it stays / goes */
	int64_t messages; /* REMOVES of a queue: its MessageCount, lost */
};

/* The config-delete-* values in force: "OFF", "FORCE" or NULL when the
 * snapshot did not read them. */
struct plan_reload_settings {
	const char *addresses, *queues, *diverts;
};

struct plan_reload {
	char *node;                            /* owned */
	struct plan_reload_settings settings; /* borrowed */
	bool settings_from_file;         /* else read from the live node */
	struct plan_reload_item *items; /* addresses, queues, diverts */
	size_t n;
	int64_t messages_lost; /* sum over removed queues */
	bool uncertain; /* some config-delete-* unknown: FORCE not ruled out */
};

/* Predict the reload of the file rendered from c on the live node (which
 * must have been read: refusal kind RECON_OK). settings are the
 * config-delete-* values of the new file: a reload applies the file's
 * address-settings before its addresses and diverts (observed: the reload
 * that turns FORCE on already removes); NULL uses the live node's. Items
 * are in the order addresses, queues, diverts. Internal and auto-created
 * objects are left out (the file never names them). *out is owned by the
 * caller (plan_reload_release); settings strings must outlive it. */
void plan_reload_predict(struct plan_reload *out,
    const struct decl_cluster *c, const struct recon_node_snapshot *live,
    const struct plan_reload_settings *settings);

/* Markdown: one heading for the node, one bullet per item, the messages
 * lost. Owned by the caller. */
char *plan_reload_render_md(const struct plan_reload *r);

void plan_reload_release(struct plan_reload *r); /* leaves it zeroed */

#endif
