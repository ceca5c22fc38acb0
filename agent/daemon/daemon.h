/* agent/daemon/daemon.h: the daemon (docs/daemon.md), as the command line
 * starts it. Everything else of agent/daemon/ is in daemon-int.h. */
#ifndef AGENT_DAEMON_DAEMON_H
#define AGENT_DAEMON_DAEMON_H

struct agent_cmd_entry;

/* `artemis-gitops run --config FILE [--once]` (agent/agent.h). */
extern const struct agent_cmd_entry daemon_cmd_run_entry;
/* `artemis-gitops notify-test --config FILE [--target NAME]`. */
extern const struct agent_cmd_entry daemon_cmd_notify_test_entry;

/* The daemon's own child, re-executed for one step (a git fetch) so that
 * it starts with one thread (daemon-int.h, "child.c"); not a command
 * anyone types, never listed. main() hands it argv when argv[1] is this. */
#define DAEMON_CHILD_ARGV1 "__daemon-step"
int daemon_child_exec_main(int argc, char **argv) __attribute__((noreturn));

#endif
