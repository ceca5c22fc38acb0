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

/* Add node dn to t (its members to t->members, reserved by the caller);
 * -1 with err when a credentials file cannot be read. A member without a
 * credentials file of its own uses the node's. */
static int
add(struct agent_targets *t, const struct decl_node *dn, const char *dir,
    struct err *err)
{
	struct live_target *v = &t->v[t->n];
	struct live_member *m;
	const char *file;
	size_t j, first = t->nmembers;

	if (dir == NULL)
		return err_setf(err, NULL,
		    "node '%s': no credentials folder is configured", dn->name);
	if (dn->nmembers == 0) {
		if (agent_creds_read(&t->secrets[t->n], dir, dn->name,
		        dn->credentials, err) < 0)
			return -1;
		v->node = dn->name;
		v->url = dn->jolokia;
		v->userpass = t->secrets[t->n];
		t->n++;
		return 0;
	}
	for (j = 0; j < dn->nmembers; j++) {
		m = &t->members[t->nmembers];
		file = dn->members[j].credentials != NULL
		           ? dn->members[j].credentials
		           : dn->credentials;
		if (agent_creds_read(&t->member_secrets[t->nmembers], dir,
		        dn->name, file, err) < 0) {
			while (t->nmembers > first) {
				t->nmembers--;
				agent_creds_free(
				    t->member_secrets[t->nmembers]);
				t->member_secrets[t->nmembers] = NULL;
			}
			return -1;
		}
		m->name = dn->members[j].name;
		m->url = dn->members[j].jolokia;
		m->userpass = t->member_secrets[t->nmembers];
		t->nmembers++;
	}
	v->node = dn->name;
	v->members = &t->members[first];
	v->nmembers = dn->nmembers;
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

	memset(&t, 0, sizeof(t));
	t.v = xcalloc(n + 1, sizeof(*t.v));
	t.secrets = xcalloc(n + 1, sizeof(*t.secrets));
	/* room for every member of the cluster (a few per node) */
	for (i = 0; i < c->nnodes; i++)
		t.nmembers += c->nodes[i].nmembers;
	t.members = xcalloc(t.nmembers + 1, sizeof(*t.members));
	t.member_secrets = xcalloc(t.nmembers + 1, sizeof(*t.member_secrets));
	t.nmembers = 0;
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

/* Warn about one endpoint of node (see agent_targets_warn_cleartext). */
static void
warn_one(const char *node, const char *url, const char *userpass,
    const char *cmd, struct strv *seen)
{
	char *key;

	if (url == NULL || userpass == NULL || !http_url_is_cleartext(url))
		return;
	key = xasprintf("%s %s", node, url);
	if (seen != NULL && strv_has(seen, key)) {
		free(key);
		return;
	}
	if (seen != NULL)
		strv_add(seen, key);
	free(key);
	if (cmd != NULL)
		fprintf(stderr,
		    "artemis-gitops %s: warning: node '%s': its credentials go unencrypted to %s (plain http:// to a host that is not loopback): use https://\n",
		    cmd, node, url);
	else
		log_warn("node '%s': its credentials go unencrypted to %s "
		         "(plain http:// to a host that is not loopback): "
		         "use https://",
		    node, url);
}

void
agent_targets_warn_cleartext(const struct agent_targets *t, const char *cmd,
    struct strv *seen)
{
	const struct live_target *v;
	size_t i, j;

	for (i = 0; i < t->n; i++) {
		v = &t->v[i];
		if (v->nmembers == 0)
			warn_one(v->node, v->url, v->userpass, cmd, seen);
		for (j = 0; j < v->nmembers; j++)
			warn_one(v->node, v->members[j].url,
			    v->members[j].userpass, cmd, seen);
	}
}

void
agent_targets_release(struct agent_targets *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		agent_creds_free(t->secrets[i]);
	for (i = 0; i < t->nmembers; i++)
		agent_creds_free(t->member_secrets[i]);
	free(t->secrets);
	free(t->member_secrets);
	free(t->members);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
