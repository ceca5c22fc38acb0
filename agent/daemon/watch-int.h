/* agent/watch-int.h: shared by watch.c and watch-tree.c only. */
#ifndef AGENT_WATCH_INT_H
#define AGENT_WATCH_INT_H

#include <git2.h>

#include "daemon-int.h"


struct daemon_watch {
	const struct agent_conf *conf;
	git_repository *repo;
	char *repo_dir;  /* STATE/repo */
	char *seen_path; /* STATE/last-seen */
	char seen[DAEMON_WATCH_OID_HEX + 1];
	int auth_tries;
	char *fail_msg; /* why a callback refused the fetch, or NULL */
};

/* libgit2's last error message (borrowed), never NULL. */
const char *daemon_watch_git_msg(void);
/* Open STATE/repo, creating the bare clone on first use. */
int daemon_watch_open_repo(struct daemon_watch *w, struct err *err);

#endif
