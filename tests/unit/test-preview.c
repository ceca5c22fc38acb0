/* tests/unit/test-preview.c: agent/preview.c: a recorded snapshot meets its
 * declaration (agent_preview_snapshot): a snapshot node the declaration
 * does not name is refused with its JSON path, as is a snapshot of another
 * cluster; a declared node missing from the snapshot is the planner's
 * (unreachable), not a refusal here. A recording read beforehand in a
 * thread of its own (agent_preview_prefetch, as plan does while its
 * declarations load) gives the same result and the same message, its
 * error included; one started and never taken is freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/preview.h"
#include "../../lib/afile.h"
#include "snapshot-fixture.h"

#define NODE(n, port)                                                          \
	"  - name: " n "\n"                                                    \
	"    jolokia: http://localhost:" port "/console/jolokia\n"             \
	"    credentials: " n "\n"

static const char head[] = "version: 1\n"
                           "cluster: local\n"
                           "mode: STUDIO_MANAGED\n"
                           "nodes:\n";

/* agent_preview_snapshot of the sample snapshot (nodes node1 and node2,
 * cluster "local"; cut short to cut bytes when cut > 0) against a
 * declaration with nodes, read beforehand in a thread when prefetched;
 * its stderr in *msg. */
static int
preview_read(const char *nodes, bool prefetched, size_t cut, char **msg)
{
	struct agent_preview_prefetch pf = {0};
	char dir[] = "/tmp/test-preview-XXXXXX";
	struct decl_file f = {"a.yaml", NULL, 0};
	struct recon_snapshot *s = sample(), *out = NULL;
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	struct err err = {0};
	char *text, *path, *errpath, *cmd;
	int saved, fd, rc;

	assert_non_null(mkdtemp(dir));
	text = live_snapshot_render_json(s);
	path = xasprintf("%s/snap.json", dir);
	assert_int_equal(
	    afile_write(path, text, cut > 0 ? cut : strlen(text), 0600, &err),
	    0);
	free(text);
	live_snapshot_free(s);
	text = xasprintf("%s%s", head, nodes);
	f.data = text;
	f.len = strlen(text);
	assert_int_equal(decl_cluster_parse(&c, "c", &f, 1, &l), 0);
	errlist_release(&l);
	free(text);
	errpath = xasprintf("%s/stderr", dir);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, STDERR_FILENO);
	close(fd);
	if (prefetched)
		agent_preview_prefetch_start(&pf, path);
	rc = agent_preview_snapshot(&out, "plan", c, path, NULL, NULL,
	    &(struct agent_read){.prefetch = prefetched ? &pf : NULL});
	agent_preview_prefetch_release(&pf);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	assert_int_equal(afile_read(msg, NULL, errpath, 4096, &err), 0);
	if (rc == 0) {
		assert_non_null(out);
		live_snapshot_free(out);
	}
	decl_cluster_free(c);
	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(errpath);
	free(path);
	return rc;
}

static const char *
after_dir(const char *msg)
{
	const char *p = strstr(msg, "/snap.json");

	return p != NULL ? p : msg;
}

/* preview_read both ways: the same code and message. */
static int
preview(const char *nodes, char **msg)
{
	char *again = NULL;
	int rc = preview_read(nodes, false, 0, msg);

	assert_int_equal(preview_read(nodes, true, 0, &again), rc);
	/* each in a folder of its own: the same past it */
	assert_string_equal(after_dir(again), after_dir(*msg));
	free(again);
	return rc;
}

static void
test_preview__prefetched_recording_errors_alike(void **state)
{
	struct agent_preview_prefetch pf;
	char *a = NULL, *b = NULL;

	(void)state;
	assert_int_equal(preview_read(NODE("node1", "8261")
	                                  NODE("node2", "8271"),
	                     false, 40, &a),
	    -1);
	assert_int_equal(preview_read(NODE("node1", "8261")
	                                  NODE("node2", "8271"),
	                     true, 40, &b),
	    -1);
	assert_non_null(strstr(a, "/snap.json:4:2: not valid JSON"));
	assert_string_equal(after_dir(a), after_dir(b));
	free(a);
	free(b);
	/* started, never taken: released (ASan: nothing leaked) */
	agent_preview_prefetch_start(&pf, "/nonexistent/snap.json");
	agent_preview_prefetch_release(&pf);
	agent_preview_prefetch_start(&pf, NULL);
	assert_false(pf.running);
	agent_preview_prefetch_release(&pf);
}

static void
test_preview__snapshot_nodes_must_be_declared(void **state)
{
	char *msg = NULL, *p;

	(void)state;
	/* node2 of the snapshot is not declared */
	assert_int_equal(preview(NODE("node1", "8261"), &msg), -1);
	p = strstr(msg, "/snap.json: ");
	assert_non_null(p);
	assert_true(
	    strncmp(msg, "artemis-gitops plan: /tmp/test-preview-",
	        strlen("artemis-gitops plan: /tmp/test-preview-")) == 0);
	assert_string_equal(p, "/snap.json: nodes[1].node: node 'node2' is not "
	                       "declared in cluster 'local' (declared: "
	                       "'node1')\n");
	free(msg);
	/* both declared, and one more the snapshot lacks: accepted */
	assert_int_equal(preview(NODE("node1", "8261") NODE("node2", "8271")
	                             NODE("node3", "8281"),
	                     &msg),
	    0);
	assert_string_equal(msg, "");
	free(msg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_preview__snapshot_nodes_must_be_declared),
	    cmocka_unit_test(test_preview__prefetched_recording_errors_alike),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
