/* agent/cmd-comment.c: `artemis-gitops comment PLAN_DIR --out DIR`: a
 * plan folder's plan.md as pull-request comment bodies (docs/ci.md), the
 * same files `plan --comment DIR` writes. */
#include "agent.h"

#include <stdio.h>
#include <stdlib.h>

#include "comment-dir.h"

enum { COMMENT_OUT, COMMENT_OPTS };

static int
comment_exec(const struct agent_cmd_args *args)
{
	struct agent_comment_opts o;
	struct err err = {0};
	char *msg;
	int code;

	if (args->opt[COMMENT_OUT] == NULL)
		return agent_usage_error("comment", "missing --out DIR");
	code = agent_comment_from_args(&o, "comment", args, COMMENT_OPTS);
	if (code != AGENT_CMD_CONTINUE)
		return code;
	if (agent_comment_dir_write(args->argv[0], args->opt[COMMENT_OUT], &o,
	        &err) < 0) {
		msg = err_render(&err);
		fprintf(stderr, "artemis-gitops comment: %s\n", msg);
		free(msg);
		err_release(&err);
		return AGENT_EXIT_FAIL;
	}
	return AGENT_EXIT_OK;
}

static const struct agent_cmd_option comment_options[] = {
    [COMMENT_OUT] = {"out", '\0', "DIR",
        "where to write comment-1.md ... and comments.json\n(required)", NULL},
    AGENT_COMMENT_OPTIONS(COMMENT_OPTS),
    {NULL, '\0', NULL, NULL, NULL},
};

const struct agent_cmd_entry agent_cmd_comment_entry = {
    .name = "comment",
    .summary = "write a plan's plan.md as pull-request comment bodies",
    .synopsis = "PLAN_DIR --out DIR [OPTIONS]",
    .description =
        "Split PLAN_DIR/plan.md (checked against its plan.json) into "
        "comment bodies\nfor a pull or merge request: DIR/comment-1.md ... "
        "comment-N.md, each\nwithin --limit bytes and starting with a "
        "hidden marker by which a bot\nupdates its own earlier comments, "
        "and DIR/comments.json, their manifest.\nBodies are split at "
        "actions, an action too large for one at its nodes,\nnever inside "
        "a code block or a table; the first holds the header and the\n"
        "Nodes table, the last the Approve section. DIR is made if need "
        "be; a\ncomment-N.md an earlier, larger plan left there is "
        "removed (docs/ci.md).",
    .options = comment_options,
    .help_col = 20,
    .exit_codes = "Exit codes: 0 written, 1 the plan folder cannot be read "
                  "or was changed, or\nDIR cannot be written, 64 usage "
                  "error.",
    .args_min = 1,
    .args_max = 1,
    .args_few = "missing PLAN_DIR",
    .bad_option = "unknown or incomplete option",
    .exec = comment_exec,
};
