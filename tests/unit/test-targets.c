/* tests/unit/test-targets.c: agent/targets.c's warning about credentials
 * that would travel in clear: which targets get it, its text, and the
 * daemon's memory that makes it once per node and endpoint; an HA node's
 * members loaded with their own or the node's credentials, each member's
 * endpoint warned about. (Loading the
 * targets is checked through every command and the daemon, in
 * 12-snapshot-cli.sh and the integration tests; the warning against a real
 * broker over a non-loopback address in 15-jolokia-cleartext.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/log.h"
#include "../../agent/targets.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

#define WARNING(node, url)                                                     \
	"<4>targets: node '" node "': its credentials go unencrypted to " url  \
	" (plain http:// to a host that is not loopback): use https://\n"

/* What the daemon's log holds after f ran; the log is reset. */
static char *
logged(FILE *f)
{
	char *buf = calloc(1, 4096);
	size_t n;

	assert_non_null(buf);
	fflush(f);
	rewind(f);
	n = fread(buf, 1, 4095, f);
	buf[n] = '\0';
	rewind(f);
	assert_int_equal(ftruncate(fileno(f), 0), 0);
	return buf;
}

static void
test_targets__cleartext_warned_once(void **state)
{
	struct live_target v[] = {
	    {.node = "remote",
	        .url = "http://192.0.2.2:8161/console/jolokia",
	        .userpass = "u:p"},
	    {.node = "local",
	        .url = "http://localhost:8161/console/jolokia",
	        .userpass = "u:p"},
	    {.node = "loop",
	        .url = "http://127.0.0.1:8161/console/jolokia",
	        .userpass = "u:p"},
	    {.node = "tls",
	        .url = "https://192.0.2.2:8443/console/jolokia",
	        .userpass = "u:p"},
	    {.node = "anon", .url = "http://192.0.2.3:8161/console/jolokia"},
	};
	struct agent_targets t = {v, NULL, sizeof(v) / sizeof(v[0]), NULL, NULL,
	    0};
	struct strv seen = {0};
	FILE *f = tmpfile();
	char *got;

	(void)state;
	assert_non_null(f);
	agent_log_set_output(f, true);
	agent_targets_warn_cleartext(&t, NULL, &seen);
	got = logged(f);
	assert_string_equal(got,
	    WARNING("remote", "http://192.0.2.2:8161/console/jolokia"));
	free(got);
	/* the next cycle: nothing more */
	agent_targets_warn_cleartext(&t, NULL, &seen);
	got = logged(f);
	assert_string_equal(got, "");
	free(got);
	/* the same node at a new endpoint is warned about again */
	v[0].url = "http://192.0.2.9:8161/console/jolokia";
	agent_targets_warn_cleartext(&t, NULL, &seen);
	got = logged(f);
	assert_string_equal(got,
	    WARNING("remote", "http://192.0.2.9:8161/console/jolokia"));
	free(got);
	/* without a memory, every call warns */
	agent_targets_warn_cleartext(&t, NULL, NULL);
	agent_targets_warn_cleartext(&t, NULL, NULL);
	got = logged(f);
	assert_string_equal(got,
	    WARNING("remote", "http://192.0.2.9:8161/console/jolokia")
	        WARNING("remote", "http://192.0.2.9:8161/console/jolokia"));
	free(got);
	agent_log_set_output(stderr, false);
	fclose(f);
	strv_release(&seen);
}

static const char ha_yaml[] =
    "version: 1\n"
    "cluster: c\n"
    "mode: STUDIO_MANAGED\n"
    "nodes:\n"
    "  - name: n1\n"
    "    credentials: shared\n"
    "    members:\n"
    "      - name: p\n"
    "        jolokia: http://192.0.2.2:8161/console/jolokia\n"
    "      - name: b\n"
    "        jolokia: http://localhost:8261/console/jolokia\n"
    "        credentials: own\n"
    "  - name: n2\n"
    "    jolokia: http://localhost:8171/console/jolokia\n"
    "    credentials: shared\n";

/* An HA node's members: each with its endpoint and its credentials (its
 * own file, else the node's), the node itself without an endpoint; the
 * plain node as before; the cleartext warning per member endpoint, named
 * by its node. A member whose file cannot be read fails the node. */
static void
test_targets__ha_members(void **state)
{
	struct decl_file df = {"c.yaml", ha_yaml, sizeof(ha_yaml) - 1};
	struct decl_cluster *c = NULL;
	struct errlist l = {0};
	struct agent_targets t;
	struct err err = {0};
	char dir[] = "/tmp/test-targets-XXXXXX", *path, *got;
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/shared", dir);
	assert_int_equal(afile_write(path, "u:shared\n", 9, 0600, &err), 0);
	free(path);
	path = xasprintf("%s/own", dir);
	assert_int_equal(afile_write(path, "u:own\n", 6, 0600, &err), 0);
	assert_int_equal(decl_cluster_parse(&c, "c", &df, 1, &l), 0);
	assert_int_equal(agent_targets_load(&t, c, NULL, 0, dir, NULL, &err),
	    0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.v[0].node, "n1");
	assert_null(t.v[0].url);
	assert_int_equal(t.v[0].nmembers, 2);
	assert_string_equal(t.v[0].members[0].name, "p");
	assert_string_equal(t.v[0].members[0].userpass, "u:shared");
	assert_string_equal(t.v[0].members[1].name, "b");
	assert_string_equal(t.v[0].members[1].url,
	    "http://localhost:8261/console/jolokia");
	assert_string_equal(t.v[0].members[1].userpass, "u:own");
	assert_int_equal(t.v[1].nmembers, 0);
	assert_string_equal(t.v[1].userpass, "u:shared");
	assert_non_null(f);
	agent_log_set_output(f, true);
	agent_targets_warn_cleartext(&t, NULL, NULL);
	got = logged(f);
	assert_string_equal(got,
	    WARNING("n1", "http://192.0.2.2:8161/console/jolokia"));
	free(got);
	agent_log_set_output(stderr, false);
	fclose(f);
	agent_targets_release(&t);
	/* the member's own file gone: the node fails, naming it */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(agent_targets_load(&t, c, NULL, 0, dir, NULL, &err),
	    -1);
	assert_non_null(strstr(err.msg, "own"));
	err_release(&err);
	free(path);
	path = xasprintf("%s/shared", dir);
	assert_int_equal(unlink(path), 0);
	free(path);
	assert_int_equal(rmdir(dir), 0);
	decl_cluster_free(c);
	errlist_release(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_targets__cleartext_warned_once),
	    cmocka_unit_test(test_targets__ha_members),
	};

	return cmocka_run_group_tests_name("targets", tests, NULL, NULL);
}
