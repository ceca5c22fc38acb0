/* tests/unit/git-fixture.h: file:// repositories made with the git command
 * line in a temporary folder, for the watcher's and the git reader's unit
 * tests: origin.git (bare) and its clone work/, one commit of cluster
 * folders; a configuration that watches origin.git. setup and teardown are
 * the cmocka group's. */
#ifndef TESTS_UNIT_GIT_FIXTURE_H
#define TESTS_UNIT_GIT_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../agent/daemon/daemon-int.h"
#include "../../lib/xalloc.h"

/* The fetch runs in a child; no signalfd here, 60 s is plenty. */
static const struct daemon_child_wait cw = {-1, NULL, 60};

static char tmp[64];

/* Run a shell command in tmp; fail the test when it fails. */
static inline void sh(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static inline void
sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd, *full;
	int r;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	full = xasprintf("cd %s && (%s) >/dev/null 2>&1", tmp, cmd);
	r = system(full);
	if (r != 0)
		fail_msg("command failed: %s", cmd);
	free(full);
	free(cmd);
}

static inline int
setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-watch-XXXXXX");
	if (mkdtemp(tmp) == NULL)
		return -1;
	setenv("GIT_AUTHOR_NAME", "Ann Operator", 1);
	setenv("GIT_AUTHOR_EMAIL", "ann@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Ann Operator", 1);
	setenv("GIT_COMMITTER_EMAIL", "ann@example.com", 1);
	sh("git init -q --bare -b main origin.git && git init -q -b main work "
	   "&& mkdir -p work/clusters/eu work/clusters/us work/clusters/empty "
	   "&& echo 'cluster: eu' > work/clusters/eu/a.yaml "
	   "&& echo 'x: 1' > work/clusters/eu/b.yml "
	   "&& echo 'not yaml' > work/clusters/eu/README.md "
	   "&& echo 'cluster: us' > work/clusters/us/c.yaml "
	   "&& echo 'nothing' > work/clusters/empty/notes.txt "
	   "&& cd work && git add -A && git commit -qm 'first clusters' "
	   "&& git push -q ../origin.git main");
	return 0;
}

static inline int
teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", tmp);

	(void)state;
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	return 0;
}

static inline struct agent_conf *
conf_new(const char *branch, const char *path)
{
	struct agent_conf *c = xcalloc(1, sizeof(*c));

	c->repo_url = xasprintf("file://%s/origin.git", tmp);
	c->branch = xstrdup(branch);
	c->clusters_path = xstrdup(path);
	c->git_ssh_user = xstrdup("git");
	c->state = xasprintf("%s/state", tmp);
	return c;
}

#endif
