/* tests/fuzz/fuzz-conf.c: the agent configuration loader on one YAML
 * buffer (no disk: relative paths resolve against a fixed folder; the
 * environment defaults are whatever the process has). Inputs over 64 KiB
 * are skipped; everything is freed. */
#include "fuzz.h"

#include "../../agent/conf.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_conf *c = NULL;
	struct errlist diags = {0};

	if (size > 64 * 1024)
		return 0;
	if (agent_conf_parse(&c, "agent.yaml", "/etc/artemis-gitops",
	        (const char *)data, size, &diags) == 0)
		agent_conf_free(c);
	errlist_release(&diags);
	return 0;
}
