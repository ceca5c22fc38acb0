/* agent/targets.h: the nodes to read: each declared node's Jolokia
 * endpoint with the credentials of its `credentials:` file (creds.h), as
 * reconcile/live takes them. The one builder of those targets, for every
 * command that talks to brokers and for the daemon. */
#ifndef AGENT_TARGETS_H
#define AGENT_TARGETS_H

#include <stddef.h>

#include "../declarations/decl.h"
#include "../lib/err.h"
#include "../lib/strv.h"
#include "../reconcile/live/live.h"

struct agent_targets {
	struct live_target *v; /* node and url borrowed from the declaration */
	char **secrets;        /* owned, wiped by agent_targets_release */
	size_t n;
	/* every HA node's members, v[i].members pointing in; their secrets,
	 * owned and wiped like the nodes' */
	struct live_member *members;
	char **member_secrets;
	size_t nmembers;
};

/* The targets of the nodes of c named in names[0..nnames), in that order
 * (names NULL: every node of c, in declaration order), their credentials
 * read from the folder dir (NULL: none configured).
 *
 * With skipped NULL the load is strict: a name c does not declare, or a
 * node whose credentials cannot be read, fails it (-1, err says which and
 * why; *out is untouched). Otherwise such a node is left out, its problem
 * appended to skipped, and the load returns 0: the node is then not read,
 * and a plan shows it UNREACHABLE (never an anonymous login). */
int agent_targets_load(struct agent_targets *out, const struct decl_cluster *c,
    const char *const *names, size_t nnames, const char *dir,
    struct errlist *skipped, struct err *err);
/* Warn about every target of t whose credentials would go unencrypted
 * over the network: a plain http:// endpoint on a host that is not
 * loopback (http_url_is_cleartext; loopback traffic never leaves the
 * host). The warning names the node and the endpoint; it is printed on
 * stderr as `artemis-gitops CMD: warning: ...` (a command: cmd) or logged
 * (cmd NULL: the daemon). seen (NULL: no memory) holds the `node url` of
 * those warned about already, which are skipped: the daemon warns once per
 * node and endpoint per run, a command once per target load. */
void agent_targets_warn_cleartext(const struct agent_targets *t,
    const char *cmd, struct strv *seen);
/* Wipe the secrets and free; leaves t zeroed. */
void agent_targets_release(struct agent_targets *t);

#endif
