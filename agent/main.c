/* agent/main.c: artemis-gitops, the table of commands (agent/cli.c does
 * the rest). */
#include "agent.h"

#include <string.h>

#include "daemon/daemon.h"
#include "mcp/mcp.h"
#include "window.h"

static const struct agent_cmd_entry *const cmds[] = {
    &agent_cmd_validate_entry,
    &agent_cmd_render_entry,
    &agent_cmd_snapshot_entry,
    &agent_cmd_import_entry,
    &agent_cmd_plan_entry,
    &agent_cmd_delete_queue_entry,
    &agent_cmd_approve_entry,
    &agent_cmd_apply_entry,
    &agent_cmd_comment_entry,
    &agent_cmd_suspend_entry,
    &agent_cmd_resume_entry,
    &agent_cmd_state_migrate_entry,
    &mcp_cmd_entry,
    &daemon_cmd_run_entry,
    &daemon_cmd_notify_test_entry,
    &agent_cmd_schema_entry,
    &agent_cmd_completion_entry,
};

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], DAEMON_CHILD_ARGV1) == 0)
		return daemon_child_exec_main(argc, argv);
	agent_window_tz_pin(); /* before any thread: agent/window.h */
	return agent_cli_main(cmds, sizeof(cmds) / sizeof(cmds[0]), argc, argv);
}
