/* agent/main.c: artemis-gitops, dispatch to subcommands. */
#include "agent.h"

#include <stdio.h>
#include <string.h>

#ifndef AGENT_VERSION
#define AGENT_VERSION "0.0.0"
#endif

static const struct agent_cmd cmds[] = {
    {"validate", agent_cmd_validate,
        "load and validate declarations (a cluster or repository folder)"},
    {"render", agent_cmd_render,
        "write broker.xml for each node of a CONFIG_MANAGED cluster"},
    {"snapshot", agent_cmd_snapshot,
        "print the live state of a cluster's brokers (tables or --json)"},
    {"plan", agent_cmd_plan,
        "plan a cluster against its live nodes; write plan.json and plan.md"},
    {"delete-queue", agent_cmd_delete_queue,
        "plan the operator's delete of one queue on every node (ADR-0084)"},
    {"approve", agent_cmd_approve,
        "approve a written plan with its typed confirmation text"},
    {"apply", agent_cmd_apply,
        "apply an approved plan: nodes checked again, audited"},
    {"run", daemon_cmd_run,
        "the agent: watch git, post previews, apply approved plans, drift"},
};

static void
help(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: artemis-gitops COMMAND [OPTIONS] [ARGS]\n\n"
	           "Keep Apache ActiveMQ Artemis clusters in line with "
	           "declarations kept in git.\n\nCommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-14s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nOptions:\n"
	           "  -h, --help     show this help\n"
	           "  -V, --version  show the version\n\n"
	           "'artemis-gitops COMMAND --help' describes a command.\n"
	           "Exit codes: 0 ok (plan: nothing to do), 1 failure or "
	           "refusal, 2 plan has changes, 64 usage error.\n");
}

int
main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		help(stderr);
		return AGENT_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		help(stdout);
		return AGENT_EXIT_OK;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0)
		return agent_print_version();
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0)
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr,
	    "artemis-gitops: unknown command '%s'\n"
	    "Try 'artemis-gitops --help'.\n",
	    argv[1]);
	return AGENT_EXIT_USAGE;
}
