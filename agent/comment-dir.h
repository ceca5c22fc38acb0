/* agent/comment-dir.h: a folder of pull-request comment bodies, written
 * from a plan folder by `comment` and by `plan` / `delete-queue --comment`
 * (docs/ci.md): DIR/comment-1.md ... comment-N.md, each a body within
 * the limit (reconcile/plan/plan-comment.c cuts them out of plan.md), and
 * DIR/comments.json, the manifest a bot posts them by. The one writer of
 * these files. */
#ifndef AGENT_COMMENT_DIR_H
#define AGENT_COMMENT_DIR_H

#include <stddef.h>

#include "../lib/err.h"
#include "agent.h"

struct agent_comment_opts {
	size_t limit;          /* bytes of a body */
	size_t max_comments;   /* bodies at most */
	const char *marker_id; /* borrowed; NULL: the default */
	const char *plan_url;  /* borrowed; NULL: none */
};

/* The options, AGENT_COMMENT_NOPTIONS consecutive entries of a command's
 * option table from index first, read by agent_comment_from_args. */
#define AGENT_COMMENT_NOPTIONS 4
#define AGENT_COMMENT_OPTIONS(first)                                           \
	[(first)] = {"limit", '\0', "BYTES",                                   \
	    "bytes of one comment body, marker included\n"                     \
	    "(default 65000; GitHub takes 65536 characters,\n"                 \
	    "GitLab 1000000; 4096 to 1000000)",                                \
	    NULL},                                                             \
	[(first) + 1] = {"max-comments", '\0', "N",                            \
	    "comments one plan may take (default 10, at most\n"                \
	    "100); a larger plan gets one comment that says\n"                 \
	    "so and points at plan.md",                                        \
	    NULL},                                                             \
	[(first) + 2] = {"marker-id", '\0', "ID",                              \
	    "the id in each body's hidden marker, to tell\n"                   \
	    "agents or repositories apart (default\n"                          \
	    "artemis-gitops)",                                                 \
	    NULL},                                                             \
	[(first) + 3] = {"plan-url", '\0', "URL",                              \
	    "where the full plan.md can be read (an http(s)\n"                 \
	    "URL: the CI run, its artifact); the bodies link it",              \
	    NULL}

/* True when one of the options args->opt[first ..] was given. */
bool agent_comment_given(const struct agent_cmd_args *args, size_t first);

/* The options args->opt[first ..] of command cmd into *out, checked:
 * AGENT_CMD_CONTINUE, or the usage error's exit code (printed). */
int agent_comment_from_args(struct agent_comment_opts *out, const char *cmd,
    const struct agent_cmd_args *args, size_t first);

/* Split plan_dir's plan.md (checked against its plan.json) into out_dir:
 * the folder is made if need be, each body and then the manifest written
 * atomically, and comment-*.md files a larger plan left there removed.
 * Prints one line on stdout: where, how many, how large. 0, or -1 with
 * err. */
int agent_comment_dir_write(const char *plan_dir, const char *out_dir,
    const struct agent_comment_opts *o, struct err *err);

#endif
