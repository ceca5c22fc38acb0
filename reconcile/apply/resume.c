/* reconcile/apply/resume.c: resuming an interrupted apply of the same plan
 * (docs/audit.md "Resuming an interrupted apply"). Per node, the operations
 * the interrupted apply's intent row lists for it are matched with the
 * plan; the node read now must be as those operations leave it after
 * exactly k of them, for one k (a prefix of them done, by the evidence of
 * the read, the rest not done); then the first k are DONE (established by
 * that read) and the rest are checked as apply checks any action, and run. */
#include "apply-int.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/sbuf.h"
#include "../../lib/xalloc.h"

/* 0 address, 1 queue, 2 divert: what an operation acts on. */
static int
obj_type(enum recon_op_kind k)
{
	switch (k) {
	case RECON_OP_CREATE_ADDRESS:
	case RECON_OP_UPDATE_ADDRESS:
	case RECON_OP_DELETE_ADDRESS:
		return 0;
	case RECON_OP_CREATE_QUEUE:
	case RECON_OP_UPDATE_QUEUE:
	case RECON_OP_DESTROY_QUEUE:
		return 1;
	default:
		return 2;
	}
}

static bool
same_obj(const struct recon_op *x, const struct recon_op *y)
{
	return obj_type(x->kind) == obj_type(y->kind) &&
	       strcmp(x->name, y->name) == 0;
}

/* Is n as ops[0..nops) leave it after exactly k of them? Every object they
 * act on must be as the last of the first k that acts on it leaves it, or,
 * when none of the first k does, as the first operation on it finds it. */
static bool
consistent(const struct apply_op *ops, size_t nops, size_t k,
    const struct recon_node_snapshot *n)
{
	size_t i, j;
	bool decisive;

	for (j = 0; j < nops; j++) {
		decisive = true;
		if (j < k) {
			/* the last of the first k on its object? */
			for (i = j + 1; i < k && decisive; i++)
				decisive = !same_obj(&ops[i].op, &ops[j].op);
			if (decisive &&
			    apply_op_seen(&ops[j].op, n) != APPLY_SEEN_AFTER)
				return false;
			continue;
		}
		/* the first on its object, and none of the first k on it? */
		for (i = 0; i < j && decisive; i++)
			decisive = !same_obj(&ops[i].op, &ops[j].op);
		if (decisive &&
		    apply_op_seen(&ops[j].op, n) != APPLY_SEEN_BEFORE)
			return false;
	}
	return true;
}

size_t
apply_resume_prefix(const struct apply_op *ops, size_t nops,
    const struct recon_node_snapshot *n)
{
	size_t k, found = (size_t)-1;

	for (k = 0; k <= nops; k++) {
		if (!consistent(ops, nops, k, n))
			continue;
		if (found != (size_t)-1)
			return (size_t)-1; /* two prefixes: it cannot tell */
		found = k;
	}
	return found;
}

/* The plan action (index) and step of interrupted operation w on node;
 * NULL when the plan holds no such operation there. The plan's operation
 * goes to *pop. */
static const struct plan_step *
find_in_plan(const struct plan *p, const char *node, const struct apply_op *w,
    size_t *ak, const struct recon_op **pop)
{
	const struct plan_step *np;
	size_t k, i;

	for (k = 0; k < p->nactions; k++) {
		if (p->actions[k].kind != w->act ||
		    strcmp(p->actions[k].name, w->action) != 0 ||
		    plan_action_kind_is_capture(w->act))
			continue;
		np = apply_node_step(&p->actions[k], node);
		if (np == NULL || np->outcome != PLAN_OUT_WOULD_APPLY)
			return NULL;
		for (i = 0; i < np->nops; i++)
			if (np->ops[i].kind == w->op.kind &&
			    strcmp(np->ops[i].name, w->op.name) == 0) {
				*ak = k;
				*pop = &np->ops[i];
				return np;
			}
		return NULL;
	}
	return NULL;
}

/* The interrupted apply's operations of this node as the plan holds them
 * (creates and updates with the plan's configuration; a divert destroy
 * with the configuration the intent row recorded, read a moment before
 * it was to run), into out->ops, and each one's action index into *ak.
 * -1 with a note when one is not the plan's, or the actions are not in
 * the plan's order. */
static int
take_ops(const struct plan *p, const struct apply_node *was,
    struct apply_node *out, size_t **ak, struct apply_node *noted)
{
	const struct recon_op *pop;
	struct plan_action a;
	struct apply_op *ao;
	size_t i;

	*ak = xcalloc(was->nops + 1, sizeof(**ak));
	for (i = 0; i < was->nops; i++) {
		if (find_in_plan(p, out->node, &was->ops[i], &(*ak)[i], &pop) ==
		        NULL ||
		    (i > 0 && (*ak)[i] < (*ak)[i - 1])) {
			apply_node_note(noted,
			    "the interrupted apply's intent row lists %s '%s' (%s '%s') where plan.json holds no such operation for this node",
			    recon_op_kind_name(was->ops[i].op.kind),
			    was->ops[i].op.name,
			    plan_action_kind_name(was->ops[i].act),
			    was->ops[i].action);
			return -1;
		}
		memset(&a, 0, sizeof(a));
		a.kind = was->ops[i].act;
		a.name = was->ops[i].action;
		ao = apply_node_add_op(out, &a, pop);
		if (pop->kind == RECON_OP_DESTROY_DIVERT &&
		    was->ops[i].op.divert != NULL) {
			recon_divert_release(ao->op.divert);
			free(ao->op.divert);
			ao->op.divert = recon_divert_dup(was->ops[i].op.divert);
		}
	}
	return 0;
}

/* "destroyDivert 'd1': the divert is gone; ...": what n shows of each. */
static char *
evidence_list(const struct apply_node *out, const struct recon_node_snapshot *n)
{
	struct sbuf b = {0};
	char *t;
	size_t i;

	for (i = 0; i < out->nops; i++) {
		t = apply_seen_text(&out->ops[i].op,
		    apply_op_seen(&out->ops[i].op, n));
		sbuf_addf(&b, "%s%s '%s': %s", i > 0 ? "; " : "",
		    recon_op_kind_name(out->ops[i].op.kind),
		    out->ops[i].op.name, t);
		free(t);
	}
	return sbuf_take(&b);
}

/* A copy of the interrupted operation w, NOT_RUN, appended to out. */
static struct apply_op *
add_was_op(struct apply_node *out, const struct apply_op *w)
{
	struct plan_action a;

	memset(&a, 0, sizeof(a));
	a.kind = w->act;
	a.name = w->action;
	return apply_node_add_op(out, &a, &w->op);
}

static void
all_unknown(struct apply_node *out)
{
	size_t i;

	for (i = 0; i < out->nops; i++)
		out->ops[i].state = APPLY_OP_UNKNOWN;
}

/* The node cannot be resumed: REFUSED as stale (why: taken), the
 * interrupted apply's operations listed with what is known of them. */
static void
refuse(struct apply_node *out, char *why)
{
	free(out->detail);
	out->detail = NULL;
	out->outcome = APPLY_REFUSED;
	free(out->kind);
	out->kind = xstrdup("STALE");
	out->detail = why;
}

/* One action's operations [lo, hi) of the interrupted apply's on this
 * node, against k, the number it had done. */
struct span {
	size_t lo, hi;
};

static struct span
span_of(const size_t *ak, size_t nops, size_t k)
{
	struct span s = {nops, nops};
	size_t i;

	for (i = 0; i < nops; i++)
		if (ak[i] == k) {
			if (s.lo == nops)
				s.lo = i;
			s.hi = i + 1;
		}
	return s;
}

/* Do the operations check appended to tmp match the interrupted apply's
 * [s.lo, s.hi) in was (kinds and names, in order)? */
static bool
same_run(const struct apply_node *tmp, size_t from,
    const struct apply_node *was, struct span s)
{
	size_t i;

	if (tmp->nops - from != s.hi - s.lo)
		return false;
	for (i = 0; i < s.hi - s.lo; i++)
		if (tmp->ops[from + i].op.kind != was->ops[s.lo + i].op.kind ||
		    strcmp(tmp->ops[from + i].op.name,
		        was->ops[s.lo + i].op.name) != 0)
			return false;
	return true;
}

struct resume {
	const struct plan *p;
	const struct recon_node_snapshot *n;
	const struct apply_node *iv; /* the interrupted operations */
	const size_t *ak;            /* their action indexes */
	size_t done;                 /* how many of them it did */
	const char *was_id;
	struct apply_ctx c;
	struct apply_node *out;
};

/* An action whose operations the interrupted apply had all done. */
static void
action_done(struct resume *x, const struct plan_action *a, struct span s)
{
	struct apply_op *ao;
	size_t i;

	for (i = s.lo; i < s.hi; i++) {
		ao = apply_node_add_op(x->out, a, &x->iv->ops[i].op);
		ao->state = APPLY_OP_DONE;
		ao->established = APPLY_EST_RESUME_READ;
	}
	apply_node_note(x->out,
	    "%s '%s': done by the interrupted apply %s (the node read now shows it)",
	    plan_action_kind_name(a->kind), a->name, x->was_id);
}

/* An action the interrupted apply had begun: its first operations done. */
static enum apply_verdict
action_begun(struct resume *x, const struct plan_action *a,
    const struct plan_step *np, struct span s)
{
	const struct apply_op *rest = &x->iv->ops[x->done];
	size_t nrest = s.hi - x->done, i;
	struct apply_op *ao;
	enum apply_verdict v;
	bool destroys = false;
	char *why;

	for (i = 0; i < nrest; i++)
		destroys |= rest[i].op.kind == RECON_OP_DESTROY_QUEUE;
	for (i = s.lo; i < x->done; i++) {
		ao = apply_node_add_op(x->out, a, &x->iv->ops[i].op);
		ao->state = APPLY_OP_DONE;
		ao->established = APPLY_EST_RESUME_READ;
	}
	why = xasprintf(
	    "resumed: the interrupted apply %s did its first %zu of %zu operation(s) (the node read now shows it)",
	    x->was_id, x->done - s.lo, s.hi - s.lo);
	if (destroys) {
		v = apply_check_queue_delete_rest(x->p, a, np, x->n, &x->c,
		    rest, nrest, why, x->out);
	} else {
		/* the rest creates what the done part destroyed (a
		 * recreate): its object is absent, as the read shows */
		apply_node_note_run_with(x->out, a, why);
		for (i = 0; i < nrest; i++)
			apply_node_add_op(x->out, a, &rest[i].op);
		v = APPLY_VERDICT_RUN;
	}
	free(why);
	return v;
}

/* An action none of whose operations the interrupted apply had run (or
 * that had none): checked as apply checks it; it must come out as it did
 * for the interrupted apply. */
static enum apply_verdict
action_fresh(struct resume *x, const struct plan_action *a,
    const struct plan_step *np, struct span s)
{
	size_t from = x->out->nops;
	enum apply_verdict v;
	char *why;

	v = apply_check(x->p, a, np, x->n, &x->c, x->out);
	if (v == APPLY_VERDICT_STALE)
		return v;
	if (s.lo == s.hi && v == APPLY_VERDICT_NOOP)
		return v;
	if (v == APPLY_VERDICT_RUN && same_run(x->out, from, x->iv, s))
		return v;
	why = xasprintf(
	    s.lo == s.hi
	        ? "the interrupted apply %s had nothing to do for it on this node, and now there is; plan again"
	        : "the operations it takes now differ from those the interrupted apply %s was to run; plan again",
	    x->was_id);
	v = apply_verdict_stale(x->out, a, why);
	free(why);
	return v;
}

/* Every action of the plan on this node, in order: done, begun or not. */
static bool
resume_actions(struct resume *x)
{
	const struct plan *p = x->p;
	const struct plan_action *a;
	const struct plan_step *np;
	enum apply_verdict v;
	struct span s;
	bool any_stale = false;
	size_t k;

	for (k = 0; k < p->nactions; k++) {
		a = &p->actions[k];
		np = apply_node_step(a, x->out->node);
		if (np == NULL || plan_action_kind_is_capture(a->kind))
			continue;
		s = span_of(x->ak, x->iv->nops, k);
		if (np->outcome == PLAN_OUT_NO_CHANGE) {
			v = apply_check_absent(a, np, x->n, x->out);
		} else if (s.lo < s.hi && s.hi <= x->done) {
			action_done(x, a, s);
			apply_ctx_record(&x->c, a, np);
			v = APPLY_VERDICT_RUN;
		} else if (s.lo < x->done && x->done < s.hi) {
			v = action_begun(x, a, np, s);
			apply_ctx_record(&x->c, a, np);
		} else {
			v = action_fresh(x, a, np, s);
		}
		if (np->outcome != PLAN_OUT_NO_CHANGE ||
		    v == APPLY_VERDICT_STALE)
			x->out->verdicts[k] = (signed char)v;
		any_stale |= v == APPLY_VERDICT_STALE;
	}
	return !any_stale;
}

/* The node cannot be resumed: REFUSED as stale (why: taken), nothing
 * runs on it, the interrupted apply's operations listed UNKNOWN. */
static void
cannot_resume(struct apply_node *out, const struct apply_node *ops, char *why)
{
	size_t i;

	for (i = 0; i < ops->nops; i++)
		add_was_op(out, &ops->ops[i]);
	all_unknown(out);
	refuse(out, why);
}

static void
unreadable(struct apply_node *out, const struct apply_node *iv,
    const struct recon_node_snapshot *n, const char *was_id)
{
	size_t i;

	for (i = 0; i < iv->nops; i++)
		add_was_op(out, &iv->ops[i]);
	all_unknown(out);
	apply_node_note(out,
	    "the interrupted apply %s was to run %zu operation(s) here; the node could not be read, so which of them ran is unknown",
	    was_id, iv->nops);
	apply_node_set(out, APPLY_UNREACHABLE, recon_kind_name(n->refusal.kind),
	    xasprintf("%s: %s", recon_kind_name(n->refusal.kind),
	        n->refusal.text != NULL ? n->refusal.text : "not read"));
}

/* x->done operations of x->iv done: check and take the rest. */
static void
resumed(struct resume *x, const struct decl_cluster *decl)
{
	struct apply_node *out = x->out;
	struct apply_op *ao;
	char *why;
	size_t i;

	apply_ctx_init(&x->c, x->p, decl, out->node);
	if (resume_actions(x)) {
		out->done_before = x->done;
	} else {
		/* what is known stays known: the first done are DONE, the
		 * rest did not run */
		why = out->detail;
		out->detail = NULL;
		apply_node_refuse(out,
		    out->refuse_kind != NULL ? out->refuse_kind : "STALE", why,
		    "nothing ran on this node in this apply: an action of the plan is stale here (see the stale note)");
		for (i = 0; i < x->iv->nops; i++) {
			ao = add_was_op(out, &x->iv->ops[i]);
			if (i < x->done) {
				ao->state = APPLY_OP_DONE;
				ao->established = APPLY_EST_RESUME_READ;
			}
		}
	}
	apply_ctx_release(&x->c);
}

void
apply_resume_check(const struct plan *p, const struct decl_cluster *decl,
    const struct recon_node_snapshot *n, const struct apply_node *was,
    const char *was_id, struct apply_node *out)
{
	struct apply_node iv;
	struct resume x;
	size_t *ak = NULL, i;
	char *ev;

	memset(&iv, 0, sizeof(iv));
	iv.node = out->node;
	out->verdicts = xmalloc(p->nactions + 1);
	memset(out->verdicts, -1, p->nactions + 1);
	memset(&x, 0, sizeof(x));
	if (take_ops(p, was, &iv, &ak, out) < 0) {
		cannot_resume(out, was,
		    xasprintf(
		        "stale plan: the interrupted apply %s's operations on this node are not the plan's (see the note): which of them ran is unknown; nothing ran on this node; plan again",
		        was_id));
		goto done;
	}
	if (n->refusal.kind != RECON_OK) {
		unreadable(out, &iv, n, was_id);
		goto done;
	}
	x.done = apply_resume_prefix(iv.ops, iv.nops, n);
	if (x.done == (size_t)-1) {
		ev = evidence_list(&iv, n);
		cannot_resume(out, &iv,
		    xasprintf(
		        "stale plan: the node is not as the interrupted apply %s leaves it after any number of its %zu operation(s) here (%s); resuming would guess; nothing ran on this node; plan again",
		        was_id, iv.nops, ev));
		free(ev);
		goto done;
	}
	x.p = p;
	x.n = n;
	x.iv = &iv;
	x.ak = ak;
	x.was_id = was_id;
	x.out = out;
	resumed(&x, decl);
done:
	for (i = 0; i < iv.nops; i++) {
		free(iv.ops[i].action);
		recon_op_release(&iv.ops[i].op);
	}
	free(iv.ops);
	free(ak);
}
