/* agent/daemon/daemon.h: the daemon (docs/daemon.md), as the command line
 * starts it. Everything else of agent/daemon/ is in daemon-int.h. */
#ifndef AGENT_DAEMON_DAEMON_H
#define AGENT_DAEMON_DAEMON_H

/* `artemis-gitops run --config FILE [--once]`: argv[0] is "run"; returns
 * the exit code. */
int daemon_cmd_run(int argc, char **argv);

#endif
