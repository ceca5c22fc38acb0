/* agent/cli.c: helpers shared by the subcommands (kept out of main.c so
 * that unit tests, which link every agent/ object but main.o, link). */
#include "agent.h"

#include <stdarg.h>
#include <stdio.h>

#ifndef AGENT_VERSION
#define AGENT_VERSION "0.0.0"
#endif

int
agent_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "artemis-gitops %s: ", cmd);
	va_start(ap, fmt);
	/* va_start above initialises ap. */
	vfprintf(stderr, fmt, ap); /* NOLINT */
	va_end(ap);
	fprintf(stderr, "\nTry 'artemis-gitops %s --help'.\n", cmd);
	return AGENT_EXIT_USAGE;
}

int
agent_print_version(void)
{
	printf("artemis-gitops %s\n", AGENT_VERSION);
	return AGENT_EXIT_OK;
}
