/* reconcile/apply/result.c: the result of an apply (apply.h): building a
 * node's result (its notes, operations and outcome), the verdicts of the
 * checks, names of the outcomes, freeing. */
#include "apply-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/xalloc.h"

const char *
apply_op_state_name(enum apply_op_state s)
{
	switch (s) {
	case APPLY_OP_NOT_RUN:
		return "NOT_RUN";
	case APPLY_OP_DONE:
		return "DONE";
	case APPLY_OP_FAILED:
		return "FAILED";
	case APPLY_OP_UNKNOWN:
		return "UNKNOWN";
	}
	return "?";
}

const char *
apply_established_name(enum apply_established e)
{
	switch (e) {
	case APPLY_EST_REPLY:
		return NULL;
	case APPLY_EST_READ_BACK:
		return "read-back";
	case APPLY_EST_RESUME_READ:
		return "resume-read";
	}
	return NULL;
}

const char *
apply_outcome_name(enum apply_outcome o)
{
	switch (o) {
	case APPLY_APPLIED:
		return "APPLIED";
	case APPLY_FAILED:
		return "FAILED";
	case APPLY_SKIPPED:
		return "SKIPPED";
	case APPLY_REFUSED:
		return "REFUSED";
	case APPLY_UNREACHABLE:
		return "UNREACHABLE";
	}
	return "?";
}

static void
node_apply_release(struct apply_node *n)
{
	size_t j;

	for (j = 0; j < n->nops; j++) {
		free(n->ops[j].action);
		recon_op_release(&n->ops[j].op);
		recon_refusal_release(&n->ops[j].refusal);
	}
	for (j = 0; j < n->nnotes; j++)
		free(n->notes[j]);
	free(n->notes);
	free(n->verdicts);
	free(n->run_notes);
	free(n->ops);
	free(n->node);
	free(n->member);
	free(n->planned_member);
	free(n->detail);
	free(n->kind);
	free(n->refuse_kind);
}

void
apply_result_free(struct apply_result *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->nnodes; i++) {
		node_apply_release(&r->nodes[i]);
		if (r->seen != NULL)
			live_node_release(&r->seen[i]);
	}
	free(r->nodes);
	free(r->seen);
	free(r->apply_id);
	free(r->plan_dir);
	free(r->plan_digest);
	free(r->cluster);
	free(r->revision);
	free(r->approver);
	free(r->approved_at);
	free(r->window_override);
	free(r->window_state);
	free(r->resumes);
	free(r->started_at);
	free(r->finished_at);
	free(r);
}

bool
apply_result_ok(const struct apply_result *r)
{
	size_t i;

	for (i = 0; i < r->nnodes; i++)
		if (r->nodes[i].outcome != APPLY_APPLIED &&
		    r->nodes[i].outcome != APPLY_SKIPPED)
			return false;
	return true;
}

void
apply_node_note(struct apply_node *out, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = xstrdup("?");
	va_end(ap);
	out->notes =
	    xreallocarray(out->notes, out->nnotes + 1, sizeof(*out->notes));
	out->notes[out->nnotes++] = s;
}

struct apply_op *
apply_node_add_op(struct apply_node *out, const struct plan_action *a,
    const struct recon_op *op)
{
	struct apply_op *ao;

	out->ops = xreallocarray(out->ops, out->nops + 1, sizeof(*out->ops));
	ao = &out->ops[out->nops++];
	memset(ao, 0, sizeof(*ao));
	ao->act = a->kind;
	ao->action = xstrdup(a->name);
	recon_op_copy(&ao->op, op);
	return ao;
}

void
apply_node_drop_ops(struct apply_node *out)
{
	size_t i;

	for (i = 0; i < out->nops; i++) {
		free(out->ops[i].action);
		recon_op_release(&out->ops[i].op);
		recon_refusal_release(&out->ops[i].refusal);
	}
	free(out->ops);
	out->ops = NULL;
	out->nops = 0;
}

void
apply_node_set(struct apply_node *out, enum apply_outcome o, const char *kind,
    char *detail)
{
	out->outcome = o;
	free(out->kind);
	out->kind = kind != NULL ? xstrdup(kind) : NULL;
	free(out->detail);
	out->detail = detail;
}

void
apply_node_add_step_ops(struct apply_node *out, const struct plan_action *a,
    const struct plan_step *np)
{
	size_t i;

	for (i = 0; i < np->nops; i++)
		apply_node_add_op(out, a, &np->ops[i]);
}

enum apply_verdict
apply_verdict_stale(struct apply_node *out, const struct plan_action *a,
    const char *why)
{
	apply_node_note(out, "%s '%s': stale: %s",
	    plan_action_kind_name(a->kind), a->name, why);
	if (out->detail == NULL)
		out->detail = xasprintf("stale plan: %s '%s': %s",
		    plan_action_kind_name(a->kind), a->name, why);
	return APPLY_VERDICT_STALE;
}

enum apply_verdict
apply_verdict_noop(struct apply_node *out, const struct plan_action *a,
    const char *why)
{
	apply_node_note(out, "%s '%s': skipped: %s",
	    plan_action_kind_name(a->kind), a->name, why);
	return APPLY_VERDICT_NOOP;
}

/* The end of a run note; apply_node_refuse replaces it. */
#define RUN_NOTE ": as planned"

void
apply_node_note_run(struct apply_node *out, const struct plan_action *a)
{
	apply_node_note_run_with(out, a, NULL);
}

void
apply_node_note_run_with(struct apply_node *out, const struct plan_action *a,
    const char *what)
{
	apply_node_note(out, "%s '%s'%s%s" RUN_NOTE,
	    plan_action_kind_name(a->kind), a->name, what != NULL ? ": " : "",
	    what != NULL ? what : "");
	out->run_notes = xreallocarray(out->run_notes, out->nrun_notes + 1,
	    sizeof(*out->run_notes));
	out->run_notes[out->nrun_notes++] = out->nnotes - 1;
}

void
apply_node_refuse(struct apply_node *out, const char *kind, char *detail,
    const char *not_run)
{
	char *note;
	size_t i, len;

	for (i = 0; i < out->nrun_notes; i++) {
		note = out->notes[out->run_notes[i]];
		len = strlen(note) - strlen(RUN_NOTE);
		out->notes[out->run_notes[i]] =
		    xasprintf("%.*s: not run: %s", (int)len, note, not_run);
		free(note);
	}
	free(out->run_notes);
	out->run_notes = NULL;
	out->nrun_notes = 0;
	apply_node_drop_ops(out);
	apply_node_set(out, APPLY_REFUSED, kind, detail);
}

enum apply_verdict
apply_verdict_run(struct apply_node *out, const struct plan_action *a,
    const struct plan_step *np)
{
	apply_node_note_run(out, a);
	apply_node_add_step_ops(out, a, np);
	return APPLY_VERDICT_RUN;
}
