/* agent/cmd-apply.c: `artemis-gitops apply PLAN_DIR [--state DIR]
 * [--credentials DIR]`: apply an approved plan (ADR-0084 decisions 3 and
 * 6; design.md section 6): lock the state folder, check every node again,
 * append the intent row, run the operations, append the result row,
 * update the inventory, write result.json and result.md. */
#include "agent.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply-plan.h"
#include "state.h"

static void
usage(FILE *f)
{
	fprintf(f,
	    "Usage: artemis-gitops apply PLAN_DIR [--state DIR] "
	    "[--credentials DIR]\n\n"
	    "Apply the approved plan in PLAN_DIR. Every node is read again "
	    "and checked\nagainst what the plan recorded: a node whose state "
	    "changed is refused as\nstale (or skipped when nothing is left to "
	    "do); then, per node, creates run\nfirst, and for a queue delete "
	    "its dependent diverts, then the queue. No\nrollback. Writes "
	    "PLAN_DIR/result.json and result.md and one audit row\n(plus an "
	    "intent row before the first operation) to STATE/audit.jsonl.\n\n"
	    "Options:\n"
	    "  --state DIR        state folder (default: $STATE_DIRECTORY, "
	    "else\n"
	    "                     " AGENT_STATE_DEFAULT ")\n"
	    "  --credentials DIR  credentials folder (default: "
	    "$CREDENTIALS_DIRECTORY)\n"
	    "  --cluster DIR      the cluster's declaration folder, for the "
	    "nodes'\n"
	    "                     endpoints (default: PLAN_DIR/declaration)\n"
	    "  --ca-file FILE     CA certificates for https endpoints\n"
	    "  -h, --help         show this help\n"
	    "  -V, --version      show the version\n\n"
	    "Exit codes: 0 every node applied or had nothing to do, 1 "
	    "otherwise (or the\nplan is not approved, or the state folder is "
	    "locked), 64 usage error.\n");
}

/* 0: go on; 1: stop with *code. */
static int
parse_args(struct agent_apply_plan_opts *o, int argc, char **argv, int *code)
{
	static const struct option longopts[] = {
	    {"state", required_argument, NULL, 's'},
	    {"credentials", required_argument, NULL, 'c'},
	    {"cluster", required_argument, NULL, 'C'},
	    {"ca-file", required_argument, NULL, 'a'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->state = optarg;
			break;
		case 'c':
			o->credentials = optarg;
			break;
		case 'C':
			o->cluster = optarg;
			break;
		case 'a':
			o->ca_file = optarg;
			break;
		case 'h':
			usage(stdout);
			*code = AGENT_EXIT_OK;
			return 1;
		case 'V':
			*code = agent_print_version();
			return 1;
		default:
			*code = agent_usage_error("apply",
			    "unknown option or missing value '%s'",
			    argv[optind - 1]);
			return 1;
		}
	}
	if (argc - optind != 1) {
		*code = agent_usage_error("apply",
		    "expected one PLAN_DIR, got %d arguments", argc - optind);
		return 1;
	}
	o->dir = argv[optind];
	return 0;
}

int
agent_cmd_apply(int argc, char **argv)
{
	struct agent_apply_plan_opts o;
	int code = AGENT_EXIT_FAIL;

	memset(&o, 0, sizeof(o));
	if (parse_args(&o, argc, argv, &code) != 0)
		return code;
	o.state = agent_state_default(o.state);
	return agent_apply_plan(&o);
}
