/* agent/targets.c: see targets.h. */
#define LOG_MODULE "targets"
#include "targets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/http.h"
#include "../lib/xalloc.h"
#include "creds.h"
#include "log.h"

/* Add node dn to t; -1 with err when its credentials cannot be read. */
static int
add(struct agent_targets *t, const struct decl_node *dn, const char *dir,
    struct err *err)
{
	if (dir == NULL)
		return err_setf(err, NULL,
		    "node '%s': no credentials folder is configured", dn->name);
	if (agent_creds_read(&t->secrets[t->n], dir, dn->name, dn->credentials,
	        err) < 0)
		return -1;
	t->v[t->n].node = dn->name;
	t->v[t->n].url = dn->jolokia;
	t->v[t->n].userpass = t->secrets[t->n];
	t->n++;
	return 0;
}

int
agent_targets_load(struct agent_targets *out, const struct decl_cluster *c,
    const char *const *names, size_t nnames, const char *dir,
    struct errlist *skipped, struct err *err)
{
	struct agent_targets t;
	const struct decl_node *dn;
	const char *name;
	struct err one = {0};
	size_t i, n = names != NULL ? nnames : c->nnodes;

	t.v = xcalloc(n + 1, sizeof(*t.v));
	t.secrets = xcalloc(n + 1, sizeof(*t.secrets));
	t.n = 0;
	for (i = 0; i < n; i++) {
		name = names != NULL ? names[i] : c->nodes[i].name;
		dn = names != NULL ? decl_cluster_find_node(c, name)
		                   : &c->nodes[i];
		if (dn == NULL)
			err_setf(&one, NULL,
			    "node '%s' is not declared in the declaration of cluster '%s'",
			    name, c->name);
		else if (add(&t, dn, dir, &one) == 0)
			continue;
		if (skipped == NULL) {
			agent_targets_release(&t);
			err_setf(err, NULL, "%s", one.msg);
			err_release(&one);
			return -1;
		}
		errlist_add_err(skipped, &one);
	}
	*out = t;
	return 0;
}

void
agent_targets_warn_cleartext(const struct agent_targets *t, const char *cmd,
    struct strv *seen)
{
	const struct live_target *v;
	char *key;
	size_t i;

	for (i = 0; i < t->n; i++) {
		v = &t->v[i];
		if (v->userpass == NULL || !http_url_is_cleartext(v->url))
			continue;
		key = xasprintf("%s %s", v->node, v->url);
		if (seen != NULL && strv_has(seen, key)) {
			free(key);
			continue;
		}
		if (seen != NULL)
			strv_add(seen, key);
		free(key);
		if (cmd != NULL)
			fprintf(stderr,
			    "artemis-gitops %s: warning: node '%s': its credentials go unencrypted to %s (plain http:// to a host that is not loopback): use https://\n",
			    cmd, v->node, v->url);
		else
			log_warn(
			    "node '%s': its credentials go unencrypted to %s "
			    "(plain http:// to a host that is not loopback): "
			    "use https://",
			    v->node, v->url);
	}
}

void
agent_targets_release(struct agent_targets *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		agent_creds_free(t->secrets[i]);
	free(t->secrets);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
