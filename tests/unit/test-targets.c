/* tests/unit/test-targets.c: agent/targets.c's warning about credentials
 * that would travel in clear: which targets get it, its text, and the
 * daemon's memory that makes it once per node and endpoint. (Loading the
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
	    {"remote", "http://192.0.2.2:8161/console/jolokia", "u:p", NULL,
	        NULL, 0},
	    {"local", "http://localhost:8161/console/jolokia", "u:p", NULL,
	        NULL, 0},
	    {"loop", "http://127.0.0.1:8161/console/jolokia", "u:p", NULL, NULL,
	        0},
	    {"tls", "https://192.0.2.2:8443/console/jolokia", "u:p", NULL, NULL,
	        0},
	    {"anon", "http://192.0.2.3:8161/console/jolokia", NULL, NULL, NULL,
	        0},
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_targets__cleartext_warned_once),
	};

	return cmocka_run_group_tests_name("targets", tests, NULL, NULL);
}
