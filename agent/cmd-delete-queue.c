/* agent/cmd-delete-queue.c: `artemis-gitops delete-queue NAME CLUSTER_DIR
 * --out DIR [--state DIR]`: the operator's out-of-band delete of ADR-0084
 * as written. The queue may be declared or not; the plan holds one
 * delete-queue action on every node that has it, through the same
 * preflight as `plan` (with the inventory's policy when --state is given),
 * and is approved and applied like any other plan. */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/xalloc.h"
#include "../reconcile/live/live.h"
#include "comment-dir.h"
#include "inventory.h"
#include "preview.h"
#include "tls.h"

struct dq_args {
	const char *queue, *dir, *out, *state, *snapshot, *credentials,
	    *comment, *read;
	struct agent_tls tls;
	struct agent_comment_opts comments;
	bool disconnect;
};

/* The inventory of --state into m (none without it). 0, or -1 with the
 * error printed. */
static int
load_managed(struct plan_managed *m, const struct dq_args *a,
    const char *cluster)
{
	struct err err = {0};
	char *msg;

	memset(m, 0, sizeof(*m));
	if (a->state == NULL) {
		m->source = xstrdup("none");
		return 0;
	}
	if (agent_inventory_load(m, a->state, cluster, &err) == 0)
		return 0;
	msg = err_render(&err);
	fprintf(stderr, "artemis-gitops delete-queue: %s\n", msg);
	free(msg);
	err_release(&err);
	return -1;
}

static int
run(const struct dq_args *a)
{
	struct plan_opts opts = {a->disconnect, NULL, NULL};
	struct plan_managed m = {0};
	struct decl_cluster *c = NULL;
	struct recon_snapshot *s = NULL;
	struct plan *p = NULL;
	struct errlist diags = {0};
	char *owned = NULL;
	struct live_scope scope = {0};
	struct agent_read rd;
	int code = AGENT_EXIT_FAIL;

	if (decl_cluster_load(&c, a->dir, &diags) < 0) {
		agent_preview_print_diags(&diags);
		goto done;
	}
	owned = agent_preview_capture_owned(c, a->queue);
	if (owned != NULL) {
		fprintf(stderr, "artemis-gitops delete-queue: %s\n", owned);
		goto done;
	}
	if (load_managed(&m, a, c->name) < 0)
		goto done;
	opts.snapshot_source = agent_preview_snapshot_label(a->snapshot);
	(void)agent_read_option(&rd, "delete-queue", a->read, a->snapshot);
	plan_scope_build(&scope, c, NULL, &m, &a->queue, 1, NULL);
	scope.shape = (enum live_scope_shape)rd.shape;
	rd.scope = &scope;
	if (agent_preview_snapshot(&s, "delete-queue", c, a->snapshot,
	        a->credentials, &a->tls, &rd) < 0)
		goto done;
	p = plan_delete_queue(c, &m, a->queue, s, &opts);
	if (agent_preview_write_declaration("delete-queue", c, a->out) < 0 ||
	    agent_preview_render("delete-queue", p, c, c, NULL, s, NULL,
	        a->out) < 0)
		goto done;
	code = agent_preview_finish("delete-queue", p, a->out);
	if (p->nactions == 0)
		printf("nothing to do: no reachable node has queue '%s'\n",
		    a->queue);
	code = agent_preview_comments("delete-queue", code, a->out, a->comment,
	    &a->comments);
done:
	free(owned);
	live_scope_release(&scope);
	plan_free(p);
	live_snapshot_free(s);
	decl_cluster_free(c);
	plan_managed_release(&m);
	errlist_release(&diags);
	return code;
}

enum {
	DQ_OUT,
	DQ_STATE,
	DQ_DISCONNECT,
	DQ_SNAPSHOT,
	DQ_CREDENTIALS,
	DQ_READ,
	DQ_TLS,
	DQ_COMMENT = DQ_TLS + AGENT_TLS_NOPTIONS,
	DQ_COMMENT_OPTS,
};

static int
delete_queue_exec(const struct agent_cmd_args *args)
{
	struct dq_args a = {0};
	int code;

	a.queue = args->argv[0];
	a.dir = args->argv[1];
	a.out = args->opt[DQ_OUT];
	a.state = args->opt[DQ_STATE];
	a.snapshot = args->opt[DQ_SNAPSHOT];
	a.credentials = args->opt[DQ_CREDENTIALS];
	a.disconnect = args->opt[DQ_DISCONNECT] != NULL;
	a.comment = args->opt[DQ_COMMENT];
	a.read = args->opt[DQ_READ];
	if (a.out == NULL)
		return agent_usage_error("delete-queue", "missing --out DIR");
	code = agent_read_option(&(struct agent_read){0}, "delete-queue",
	    a.read, a.snapshot);
	if (code != 0)
		return code;
	if (a.comment == NULL && agent_comment_given(args, DQ_COMMENT_OPTS))
		return agent_usage_error("delete-queue",
		    "--limit, --max-comments, --marker-id and --plan-url go "
		    "with --comment DIR");
	code = agent_comment_from_args(&a.comments, "delete-queue", args,
	    DQ_COMMENT_OPTS);
	if (code != AGENT_CMD_CONTINUE)
		return code;
	code = agent_tls_from_args(&a.tls, "delete-queue", args, DQ_TLS);
	if (code == AGENT_CMD_CONTINUE)
		code = run(&a);
	agent_tls_release(&a.tls);
	return code;
}

static const struct agent_cmd_option delete_queue_options[] = {
    [DQ_OUT] = {"out", '\0', "DIR", "where to write the preview (required)",
        NULL},
    [DQ_STATE] = {"state", '\0', "DIR",
        "state folder: DIR/<cluster>/inventory.json; its\n"
        "settings.protect patterns, retained diverts and\n"
        "delete-if-empty (the last applied declaration's)\n"
        "count too",
        NULL},
    [DQ_DISCONNECT] = {"disconnect-consumers", '\0', NULL,
        "disconnect attached consumers (removeConsumers);\n"
        "recorded in the plan",
        NULL},
    [DQ_SNAPSHOT] = {"snapshot", '\0', "FILE",
        "plan against a recorded `snapshot --json` file", NULL},
    [DQ_CREDENTIALS] = {"credentials", '\0', "DIR",
        "broker credentials folder (default:\n$CREDENTIALS_DIRECTORY)", NULL},
    [DQ_READ] = {"read", '\0', "HOW",
        "what is read of the nodes (full, scoped, by-name,\n"
        "by-pattern), as for `plan`",
        NULL},
    AGENT_TLS_OPTIONS(DQ_TLS),
    [DQ_COMMENT] = {"comment", '\0', "DIR",
        "also write plan.md as pull-request comment bodies\n"
        "in DIR, as `comment` does (docs/ci.md); with:",
        NULL},
    AGENT_COMMENT_OPTIONS(DQ_COMMENT_OPTS),
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_delete_queue_entry = {
    .name = "delete-queue",
    .summary = "plan the operator's delete of one queue on every node "
               "(ADR-0084)",
    .synopsis = "NAME CLUSTER_DIR --out DIR [OPTIONS]",
    .description =
        "Plan deleting queue NAME on every node of the cluster declared "
        "in\nCLUSTER_DIR (ADR-0084): per node, consumers refuse the delete "
        "unless\n--disconnect-consumers is given; diverts that forward "
        "into the queue's\naddress and lose their last queue are removed "
        "with it, first; diverts\nsourced at the address and capture taps "
        "are kept (and named). Under\ndelete-if-empty (the queue's own "
        "key in CLUSTER_DIR, else\nsettings.delete-if-empty) a node where "
        "the queue holds messages is\nrefused. With --state, the policy the last applied declaration "
        "recorded\nin the inventory counts too: its settings.protect "
        "patterns refuse the\ndelete, its delete-if-empty covers a queue "
        "CLUSTER_DIR does not declare.\nWrites DIR/plan.json, "
        "DIR/plan.md and\nDIR/declaration/cluster.yaml; approve and apply "
        "it like any plan.",
    .options = delete_queue_options,
    .help_col = 26,
    .exit_codes = "Exit codes: 0 nothing to do (no node has the queue), 2 "
                  "the plan has\nchanges, 1 refused, invalid declaration, "
                  "unreadable node or error,\n64 usage error.",
    .args_min = 2,
    .args_max = 2,
    .args_few = "expected NAME and CLUSTER_DIR",
    .args_many = "expected NAME and CLUSTER_DIR",
    .bad_option = "unknown or incomplete option",
    .exec = delete_queue_exec,
};
