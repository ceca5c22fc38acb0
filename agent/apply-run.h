/* agent/apply-run.h: applying an approved plan (agent/apply-run.c), for
 * `apply` and the daemon. */
#ifndef AGENT_APPLY_RUN_H
#define AGENT_APPLY_RUN_H

struct agent_apply_opts {
	const char *dir;         /* PLAN_DIR */
	const char *state;       /* the state folder (resolved) */
	const char *credentials; /* NULL: $CREDENTIALS_DIRECTORY */
	const char *cluster;     /* declaration folder for endpoints, or NULL */
	const char *ca_file;     /* NULL: the system trust store */
};

/* Check the approval, take the state lock, apply, audit, update the
 * inventory, write result.json and result.md, print the summary. Returns
 * the exit code (0 every node applied or had nothing to do, else 1). */
int agent_apply_plan(const struct agent_apply_opts *o);

#endif
