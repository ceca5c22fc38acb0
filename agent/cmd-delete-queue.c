/* agent/cmd-delete-queue.c: `artemis-gitops delete-queue NAME CLUSTER_DIR
 * --out DIR`: the operator's out-of-band delete of ADR-0084 as written. The
 * queue may be declared or not; the plan holds one delete-queue action on
 * every node that has it, through the same preflight as `plan`, and is
 * approved and applied like any other plan. */
#include "agent.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reconcile/live/live.h"
#include "preview.h"

struct dq_args {
	const char *queue, *dir, *out, *snapshot, *credentials;
	bool disconnect;
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "Usage: artemis-gitops delete-queue NAME CLUSTER_DIR --out DIR [OPTIONS]\n\n"
	    "Plan deleting queue NAME on every node of the cluster declared in\n"
	    "CLUSTER_DIR (ADR-0084): per node, consumers refuse the delete unless\n"
	    "--disconnect-consumers is given; diverts that forward into the queue's\n"
	    "address and lose their last queue are removed with it, first; diverts\n"
	    "sourced at the address and capture taps are kept (and named). Writes\n"
	    "DIR/plan.json, DIR/plan.md and DIR/declaration/cluster.yaml; approve\n"
	    "and apply it like any plan.\n\n"
	    "Options:\n"
	    "  --out DIR               where to write the preview (required)\n"
	    "  --disconnect-consumers  disconnect attached consumers (removeConsumers);\n"
	    "                          recorded in the plan\n"
	    "  --snapshot FILE         plan against a recorded `snapshot --json` file\n"
	    "  --credentials DIR       broker credentials folder (default:\n"
	    "                          $CREDENTIALS_DIRECTORY)\n"
	    "  -h, --help              show this help\n"
	    "  -V, --version           show the version\n\n"
	    "Exit codes: 0 nothing to do (no node has the queue), 2 the plan has\n"
	    "changes, 1 refused, invalid declaration, unreadable node or error,\n"
	    "64 usage error.\n");
}

/* 0: go on; 1: stop with *code (help, version, usage error). */
static int
parse_args(struct dq_args *a, int argc, char **argv, int *code)
{
	static const struct option longopts[] = {
	    {"out", required_argument, NULL, 'o'},
	    {"snapshot", required_argument, NULL, 'S'},
	    {"credentials", required_argument, NULL, 'c'},
	    {"disconnect-consumers", no_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int ch;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			a->out = optarg;
			break;
		case 'S':
			a->snapshot = optarg;
			break;
		case 'c':
			a->credentials = optarg;
			break;
		case 'd':
			a->disconnect = true;
			break;
		case 'h':
			usage(stdout);
			*code = AGENT_EXIT_OK;
			return 1;
		case 'V':
			*code = agent_print_version();
			return 1;
		default:
			*code = agent_usage_error("delete-queue",
			    "unknown or incomplete option '%s'",
			    argv[optind - 1]);
			return 1;
		}
	}
	if (argc - optind != 2) {
		*code = agent_usage_error("delete-queue",
		    "expected NAME and CLUSTER_DIR");
		return 1;
	}
	a->queue = argv[optind];
	a->dir = argv[optind + 1];
	if (a->out == NULL) {
		*code = agent_usage_error("delete-queue", "missing --out DIR");
		return 1;
	}
	return 0;
}

static int
run(const struct dq_args *a)
{
	struct plan_opts opts = {a->disconnect, NULL, NULL};
	struct decl_cluster *c = NULL;
	struct recon_snapshot *s = NULL;
	struct plan *p = NULL;
	struct errlist diags = {0};
	int code = AGENT_EXIT_FAIL;

	if (decl_cluster_load(&c, a->dir, &diags) < 0) {
		agent_preview_print_diags(&diags);
		goto done;
	}
	if (strncmp(a->queue, c->settings.capture_prefix,
	        strlen(c->settings.capture_prefix)) == 0 &&
	    c->settings.capture_prefix[0] != '\0') {
		fprintf(stderr,
		    "artemis-gitops delete-queue: '%s' has the reserved capture prefix '%s': it belongs to a capture subscription; remove the capture from the declaration instead\n",
		    a->queue, c->settings.capture_prefix);
		goto done;
	}
	opts.snapshot_source = agent_preview_snapshot_label(a->snapshot);
	if (agent_preview_snapshot(&s, "delete-queue", c, a->snapshot,
	        a->credentials) < 0)
		goto done;
	p = plan_delete_queue(c, a->queue, s, &opts);
	if (agent_preview_write_declaration("delete-queue", c, a->out) < 0 ||
	    agent_preview_render("delete-queue", p, c, c, NULL, s, NULL,
	        a->out) < 0)
		goto done;
	code = agent_preview_finish("delete-queue", p, a->out);
	if (p->nactions == 0)
		printf("nothing to do: no reachable node has queue '%s'\n",
		    a->queue);
done:
	plan_free(p);
	live_snapshot_free(s);
	decl_cluster_free(c);
	errlist_release(&diags);
	return code;
}

int
agent_cmd_delete_queue(int argc, char **argv)
{
	struct dq_args a = {0};
	int code = 0;

	if (parse_args(&a, argc, argv, &code) != 0)
		return code;
	return run(&a);
}
