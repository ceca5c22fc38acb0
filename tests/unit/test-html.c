/* tests/unit/test-html.c: agent/web/html.c, escaping and the page's frame:
 * no script and no external resource, who is signed in, the sign-out form
 * with the session's CSRF token. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../agent/web/web-int.h"

static void
assert_has(const char *html, const char *want)
{
	if (strstr(html, want) == NULL)
		fail_msg("'%s' not in:\n%s", want, html);
}

static void
assert_lacks(const char *html, const char *bad)
{
	if (strstr(html, bad) != NULL)
		fail_msg("'%s' in:\n%s", bad, html);
}

static void
test_html__esc(void **state)
{
	struct sbuf b = {0};

	(void)state;
	web_html_esc(&b, "<script>a & \"b\" 'c'</script>");
	assert_string_equal(sbuf_str(&b),
	    "&lt;script&gt;a &amp; &quot;b&quot; &#39;c&#39;&lt;/script&gt;");
	sbuf_reset(&b);
	web_html_esc(&b, "plain-queue.name_1");
	assert_string_equal(sbuf_str(&b), "plain-queue.name_1");
	sbuf_reset(&b);
	web_html_esc(&b, NULL);
	web_html_esc(&b, "");
	assert_string_equal(sbuf_str(&b), "");
	/* UTF-8 passes through untouched */
	web_html_esc(&b, "caf\xc3\xa9 &");
	assert_string_equal(sbuf_str(&b), "caf\xc3\xa9 &amp;");
	sbuf_release(&b);
}

/* A page for nobody: a complete document with the title escaped, an
 * inline style sheet, no script, no external resource, no sign-out. */
static void
test_html__frame_anonymous(void **state)
{
	struct sbuf b = {0};
	const char *s;

	(void)state;
	web_html_begin(&b, "queue <q>", NULL);
	sbuf_adds(&b, "<p>body</p>");
	web_html_end(&b);
	s = sbuf_str(&b);
	assert_true(strncmp(s, "<!DOCTYPE html>", 15) == 0);
	assert_has(s, "<meta charset=\"utf-8\">");
	assert_has(s, "<title>queue &lt;q&gt; \xc2\xb7 artemis-gitops</title>");
	assert_has(s, "<h1>queue &lt;q&gt;</h1>");
	assert_has(s, "<style>");
	assert_has(s, "<p>body</p>");
	assert_has(s, "</html>\n");
	assert_lacks(s, "<script");
	assert_lacks(s, "src=");
	assert_lacks(s, "<link");
	assert_lacks(s, "http://");
	assert_lacks(s, "https://");
	assert_lacks(s, "@import");
	assert_lacks(s, "url(");
	assert_lacks(s, "/logout");
	assert_lacks(s, "signed in");
	assert_false(b.failed);
	sbuf_release(&b);
}

/* Signed in with a session: name (escaped) and role, and a sign-out form
 * that carries the session's CSRF token. */
static void
test_html__frame_session(void **state)
{
	struct web_who who = {.role = WEB_APPROVER, .session = true};
	struct sbuf b = {0};
	const char *s;

	(void)state;
	strcpy(who.name, "ops<&>");
	strcpy(who.csrf, "00ff");
	web_html_begin(&b, "Status", &who);
	web_html_end(&b);
	s = sbuf_str(&b);
	assert_has(s, "signed in as <b>ops&lt;&amp;&gt;</b> (approver)");
	assert_has(s, "<form method=\"post\" action=\"/logout\">");
	assert_has(s, "<input type=\"hidden\" name=\"csrf\" value=\"00ff\">");
	sbuf_release(&b);
}

/* A bearer token (no session): who, but no sign-out form; nobody: nothing
 * of who. */
static void
test_html__frame_bearer_and_nobody(void **state)
{
	struct web_who who = {.role = WEB_VIEWER};
	struct web_who nobody = {.role = WEB_NOBODY};
	struct sbuf b = {0};

	(void)state;
	strcpy(who.name, "grafana");
	web_html_begin(&b, "Status", &who);
	assert_has(sbuf_str(&b), "signed in as <b>grafana</b> (viewer)");
	assert_lacks(sbuf_str(&b), "/logout");
	sbuf_reset(&b);
	strcpy(nobody.name, "x");
	web_html_begin(&b, "Sign in", &nobody);
	assert_lacks(sbuf_str(&b), "signed in");
	sbuf_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_html__esc),
	    cmocka_unit_test(test_html__frame_anonymous),
	    cmocka_unit_test(test_html__frame_session),
	    cmocka_unit_test(test_html__frame_bearer_and_nobody),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
