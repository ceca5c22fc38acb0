/* reconcile/plan-broker.c: the broker_xml section of a CONFIG_MANAGED plan
 * (plan.h): per node the rendered file's digest, its diff, the diverts the
 * file still carries and the reload prediction; and its Markdown. */
#include "plan-int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../declarations/render/render.h"
#include "../../lib/sbuf.h"
#include "../../lib/sha256.h"
#include "../../lib/xalloc.h"

/* The diverts that the plan removes on node with a queue (ADR-0084 D2)
 * and that the declaration still declares: the file carries them. */
static void
carried(struct plan_broker_xml *bx, const struct plan *p, const char *node)
{
	const struct plan_step *np;
	size_t i, j, k;

	for (i = 0; i < p->nactions; i++)
		for (j = 0; j < p->actions[i].nnodes; j++) {
			np = &p->actions[i].nodes[j];
			if (strcmp(np->node, node) != 0)
				continue;
			for (k = 0; k < np->nremoved; k++) {
				if (!np->removed[k].declared)
					continue;
				bx->carried_diverts =
				    xreallocarray(bx->carried_diverts,
				        bx->ncarried + 1, sizeof(char *));
				bx->carried_diverts[bx->ncarried++] =
				    xstrdup(np->removed[k].config.name);
			}
		}
}

static void
predict(struct plan_broker_xml *bx, const struct decl_cluster *decl,
    const struct recon_snapshot *snap, const struct plan_rendered *r)
{
	const struct recon_node_snapshot *n;
	struct render_config_delete cd;
	struct plan_reload_settings s;

	n = snap != NULL ? recon_snapshot_find_node(snap, r->node) : NULL;
	if (n == NULL || n->refusal.kind != RECON_OK) {
		bx->not_predicted = xasprintf("node not read (%s)",
		    n == NULL ? "not in the snapshot"
		              : recon_kind_name(n->refusal.kind));
		return;
	}
	if (render_config_delete(r->text, r->len, &cd) != 0) {
		bx->not_predicted = xstrdup("the rendered file does not parse");
		return;
	}
	s.addresses = cd.addresses;
	s.queues = cd.queues;
	s.diverts = cd.diverts;
	plan_reload_predict(&bx->reload, decl, n, &s);
	plan_broker_xml_set_settings(bx, cd.addresses, cd.queues, cd.diverts);
	bx->predicted = true;
}

void
plan_add_broker_xml(struct plan *p, const struct decl_cluster *decl,
    const struct recon_snapshot *snap, const char *before_label,
    const struct plan_rendered *r, size_t n)
{
	struct plan_broker_xml *bx;
	char hex[SHA256_HEX], *la, *lb;
	size_t i;

	free(p->broker_xml_before);
	p->broker_xml_before = xstrdup(before_label);
	p->broker_xml = xcalloc(n + 1, sizeof(*p->broker_xml));
	p->nbroker_xml = n;
	for (i = 0; i < n; i++) {
		bx = &p->broker_xml[i];
		bx->node = xstrdup(r[i].node);
		bx->path = xasprintf("broker/%s/broker.xml", r[i].node);
		sha256_hex(r[i].text, r[i].len, hex);
		bx->sha256 = xstrdup(hex);
		la = r[i].before != NULL
		         ? xasprintf("a/%s/broker.xml", r[i].node)
		         : xstrdup("/dev/null");
		lb = xasprintf("b/%s/broker.xml", r[i].node);
		bx->diff = render_udiff(r[i].before != NULL ? r[i].before : "",
		    r[i].before_len, r[i].text, r[i].len, la, lb);
		free(la);
		free(lb);
		carried(bx, p, r[i].node);
		predict(bx, decl, snap, &r[i]);
	}
}

void
plan_refuse_render(struct plan *p, const struct errlist *diags)
{
	char *first = diags->n > 0 ? errlist_render_item(diags, 0)
	                           : xstrdup("broker.xml cannot be rendered");

	plan_add_diagnostics(p, diags);
	p->outcome = PLAN_OUT_REFUSED;
	free(p->refusal);
	free(p->message);
	free(p->next_step);
	p->refusal = xstrdup("RENDER_FAILED");
	p->message =
	    xasprintf("the nodes' broker.xml cannot be rendered: %s", first);
	p->next_step = xstrdup(
	    "fix the declaration or the base broker.xml (see the diagnostics; "
	    "`artemis-gitops render` shows the same), then plan again");
	free(first);
}

static void
node_md(struct sbuf *b, const struct plan_broker_xml *bx)
{
	char *md;
	size_t i;

	sbuf_addf(b, "### Node `%s`\n\n`%s` (sha256 %s)", bx->node, bx->path,
	    bx->sha256);
	if (bx->diff == NULL)
		sbuf_adds(b, ": unchanged\n\n");
	else
		sbuf_addf(b, ":\n\n```diff\n%s```\n\n", bx->diff);
	for (i = 0; i < bx->ncarried; i++)
		sbuf_addf(b,
		    "- **divert `%s` is carried by the rendered broker.xml**: "
		    "the plan removes it at runtime, but it is declared in the "
		    "cluster's declaration and the broker.xml rendered from it "
		    "still carries the divert, so the next deployment and "
		    "restart bring it back; remove the divert from the "
		    "declaration\n",
		    bx->carried_diverts[i]);
	if (bx->ncarried > 0)
		sbuf_addc(b, '\n');
	if (!bx->predicted) {
		sbuf_addf(b, "Reload not predicted: %s.\n\n",
		    bx->not_predicted);
		return;
	}
	md = plan_reload_render_md(&bx->reload);
	sbuf_addf(b, "%s\n", md);
	free(md);
}

void
plan_broker_xml_md(struct sbuf *b, const struct plan *p)
{
	int64_t lost = 0;
	size_t i;

	if (p->broker_xml_before == NULL)
		return;
	sbuf_addf(b,
	    "## broker.xml (CONFIG_MANAGED)\n\n"
	    "The rendered files are in `broker/<node>/broker.xml` next to this "
	    "preview; copying them to the brokers' hosts is the operator's "
	    "deployment step (docs/config-managed.md). Each diff starts from "
	    "%s.\n\n",
	    p->broker_xml_before);
	for (i = 0; i < p->nbroker_xml; i++) {
		node_md(b, &p->broker_xml[i]);
		if (p->broker_xml[i].predicted)
			lost += p->broker_xml[i].reload.messages_lost;
	}
	if (lost > 0)
		sbuf_addf(b,
		    "**A reload of the rendered files loses %" PRId64
		    " message%s** (config-delete-queues FORCE).\n\n",
		    lost, lost == 1 ? "" : "s");
}
