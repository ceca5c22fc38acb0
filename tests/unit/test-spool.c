/* tests/unit/test-spool.c: agent/webhook/spool.c: a delivery written and
 * read back, the spool listed in order, files that are not ours left
 * alone, a damaged one reported and kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../agent/webhook/webhook-int.h"
#include "../../lib/afile.h"
#include "../../lib/xalloc.h"

static void
bad(void *ctx, const char *path, const char *why)
{
	struct sbuf *b = ctx;

	sbuf_addf(b, "%s: %s\n", strrchr(path, '/') + 1, why);
}

static void
test_spool__written_listed_read_removed(void **state)
{
	char tmp[] = "/tmp/test-spool-XXXXXX", *dir, *p;
	struct webhook_spool_entry *v = NULL;
	struct webhook_spooled s, back;
	struct sbuf said = {0};
	struct err err = {0};
	size_t n = 0;
	uint64_t seqs[] = {12, 3, 100};
	int i;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	dir = xasprintf("%s/spool/t", tmp);
	/* a missing folder is made, and empty */
	assert_int_equal(webhook_spool_list(&v, &n, dir, bad, &said, &err), 0);
	assert_int_equal(n, 0);
	free(v);
	memset(&s, 0, sizeof(s));
	s.queued_at = xstrdup("2026-12-02T03:00:00Z");
	s.event = agent_event_new(AGENT_EVENT_TEST, NULL, "t");
	for (i = 0; i < 3; i++) {
		s.seq = seqs[i];
		webhook_new_id(s.id);
		s.attempts = (unsigned)i;
		assert_int_equal(webhook_spool_write(dir, &s, s.event, &err),
		    0);
	}
	/* not ours: left alone, not listed */
	p = xasprintf("%s/notes.txt", dir);
	assert_int_equal(afile_write(p, "x", 1, 0600, &err), 0);
	free(p);
	/* damaged: reported, kept */
	p = xasprintf("%s/0000000000000050-%s.json", dir,
	    "00000000-0000-4000-8000-000000000000");
	assert_int_equal(afile_write(p, "{\"seq\":", 7, 0600, &err), 0);
	assert_int_equal(webhook_spool_list(&v, &n, dir, bad, &said, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].seq, 3);
	assert_int_equal(v[1].seq, 12);
	assert_int_equal(v[2].seq, 100);
	assert_int_equal(v[2].attempts, 2);
	assert_non_null(strstr(sbuf_str(&said),
	    "0000000000000050-00000000-0000-4000-8000-000000000000.json: "));
	assert_int_equal(access(p, F_OK), 0);
	free(p);
	p = webhook_spool_path(dir, v[1].seq, v[1].id);
	memset(&back, 0, sizeof(back));
	assert_int_equal(webhook_spool_read(&back, p, &err), 0);
	assert_int_equal(back.seq, 12);
	assert_string_equal(back.event->title, "t");
	assert_string_equal(back.queued_at, "2026-12-02T03:00:00Z");
	webhook_spooled_release(&back);
	assert_int_equal(webhook_spool_remove(dir, v[1].seq, v[1].id, &err), 0);
	assert_int_equal(access(p, F_OK), -1);
	/* gone already: no error */
	assert_int_equal(webhook_spool_remove(dir, v[1].seq, v[1].id, &err), 0);
	free(p);
	free(v);
	webhook_spooled_release(&s);
	sbuf_release(&said);
	p = xasprintf("rm -rf %s", tmp);
	assert_int_equal(system(p), 0);
	free(p);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spool__written_listed_read_removed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
