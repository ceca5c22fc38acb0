/* reconcile/import/import.h: an existing cluster as a declaration
 * (docs/import.md). Pure: what the brokers (or their broker.xml files)
 * hold comes in, a declaration and a report of what was left out, and
 * why, come out. agent/cmd-import.c reads the nodes and writes the files.
 *
 * An object is declared only when every node holds it with the same
 * settings; anything else goes to the report, per object and per node,
 * never merged. What the brokers make for themselves (DLQ and
 * ExpiryQueue as shipped, activemq.notifications, $sys.*, internal
 * objects), what clients make (auto-created and temporary queues and
 * addresses) and the agent's own capture taps are left out and counted.
 */
#ifndef RECONCILE_IMPORT_IMPORT_H
#define RECONCILE_IMPORT_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "../../declarations/decl.h"
#include "../recon.h"

#define IMPORT_REPORT_FORMAT  "artemis-gitops/import-report"
#define IMPORT_REPORT_VERSION 1
#define IMPORT_REPORT_MD      "import-report.md"
#define IMPORT_REPORT_JSON    "import-report.json"

enum import_kind {
	IMPORT_ADDRESS = 0,
	IMPORT_QUEUE,
	IMPORT_DIVERT,
};
#define IMPORT_NKINDS 3

/* Why an object was left out; one name table (import.c). */
enum import_why {
	IMPORT_BROKER_OWN = 0, /* the broker's own (shipped, internal, $sys) */
	IMPORT_AUTO_CREATED,   /* made by a client's send or consume */
	IMPORT_TEMPORARY,      /* a client's temporary queue, or its address */
	IMPORT_CAPTURE,        /* inside the capture prefix: a capture's tap */
	IMPORT_NOT_EVERYWHERE, /* some nodes hold it, others not */
	IMPORT_DIFFERS,        /* every node holds it, not alike */
	IMPORT_BAD_NAME,       /* a name a declaration cannot hold */
	IMPORT_ADDRESS_OUT,    /* its address (or source) is left out */
	IMPORT_NOTHING_CONSUMES, /* a divert into what nothing declared reads */
	IMPORT_NOT_DECLARABLE,   /* anything else the format refuses */
};
#define IMPORT_NWHY 10

const char *import_kind_name(enum import_kind k); /* "address", ... */
const char *import_why_name(enum import_why w);   /* "BROKER_OWN", ... */
const char *import_why_text(enum import_why w);   /* a short sentence */
/* Is w one of the kinds left out by rule and only counted (BROKER_OWN,
 * AUTO_CREATED, TEMPORARY, CAPTURE), rather than an object an operator
 * must decide on? */
bool import_why_is_rule(enum import_why w);

/* One node's objects, before the nodes are compared. */
struct import_node {
	char *node;                   /* the declared node's name */
	struct decl_cluster *objects; /* candidates (decl_cluster_new) */
	char *version;                /* the broker's release; NULL unknown */
	char *source;                 /* "live" read's URL or broker.xml path */
};

/* What one node says of an object left out. */
struct import_seen {
	char *node;
	char *state; /* "absent", "auto-created", or the object's settings */
};

struct import_left {
	enum import_kind kind;
	char *name;
	enum import_why why;
	char *detail;             /* one line: what differs, what is missing */
	struct import_seen *seen; /* every node, in node order */
	size_t nseen;
};

struct import_result {
	const char *source;        /* "live" or "broker-xml" (static) */
	struct decl_cluster *decl; /* the declaration (owned) */
	struct import_left *left;  /* sorted: kind, then name */
	size_t nleft;
	size_t declared[IMPORT_NKINDS];
	size_t left_by_why[IMPORT_NWHY];
	char **nodes; /* node names, versions and sources, in node order */
	char **versions;
	char **sources;
	size_t nnodes;
	char **notes; /* lines for the report ("node1: base expanded ...") */
	size_t nnotes;
};

struct import_opts {
	bool include_auto_created; /* --include-auto-created */
};

/* One node read live, as candidates: every object of n but those left
 * out by rule, which are added to *excluded (the node's name in each
 * seen). n must be read (RECON_OK). */
void import_node_from_live(struct import_node *out,
    const struct recon_node_snapshot *n, const struct decl_settings *settings,
    const struct import_opts *o, struct import_left **excluded,
    size_t *nexcluded);

/* The declaration from nodes[0..n) (the same order as shell's nodes):
 * shell gives the cluster's name, mode, nodes and settings, and
 * excluded[0..nexcluded) the objects already left out by rule (taken
 * over, and the array freed). Every object every node holds alike, and
 * that the format can declare, is declared; the rest is left out with
 * its reason. */
void import_merge(struct import_result *out, const struct decl_cluster *shell,
    struct import_node *nodes, size_t n, struct import_left *excluded,
    size_t nexcluded, const char *source);
/* Add a note line to the report. */
void import_note(struct import_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void import_node_release(struct import_node *n);
void import_left_release(struct import_left *l);
void import_result_release(struct import_result *r);

/* The report (import-report.c): versioned canonical JSON and Markdown.
 * Deterministic: no clock, no host; owned by the caller. */
char *import_report_json(const struct import_result *r);
char *import_report_md(const struct import_result *r);
/* The number of objects left out (the sum of left_by_why). */
size_t import_left_total(const struct import_result *r);

#endif
