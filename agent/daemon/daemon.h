/* agent/daemon/daemon.h: the daemon (docs/daemon.md), as the command line
 * starts it. Everything else of agent/daemon/ is in daemon-int.h. */
#ifndef AGENT_DAEMON_DAEMON_H
#define AGENT_DAEMON_DAEMON_H

struct agent_cmd_entry;

/* `artemis-gitops run --config FILE [--once]` (agent/agent.h). */
extern const struct agent_cmd_entry daemon_cmd_run_entry;

#endif
