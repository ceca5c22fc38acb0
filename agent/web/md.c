/* agent/web/md.c: plan.md as HTML, with md4c-html (the one file that
 * includes md4c).
 *
 * The Markdown is the agent's own (plan.md, result.md, drift.md), but the
 * names in it are user data: a queue may be called `<script>`. md4c-html
 * escapes every character of the text it writes (& < > "), and with
 * MD_FLAG_NOHTML a raw HTML block or an inline tag is not passed through
 * but shown as text. GitHub tables and strikethrough are on; autolinks are
 * off (a name that looks like a URL stays a name). The page's
 * Content-Security-Policy (page.c) forbids scripts and every external
 * resource, so even a Markdown link or image written by hand can neither
 * run code nor load anything.
 */
#include "web-int.h"

#include <limits.h>
#include <md4c-html.h>
#include <md4c.h>

#define MD_PARSER_FLAGS                                                        \
	(MD_FLAG_NOHTML | MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH)

static void
md_out(const MD_CHAR *text, MD_SIZE size, void *userdata)
{
	sbuf_add(userdata, text, size);
}

int
web_md_html(const char *md, size_t len, struct sbuf *out)
{
	struct sbuf tmp = {0};
	int rc;

	if (len > UINT_MAX)
		return -1;
	sbuf_init(&tmp, out->max != 0 ? out->max : 0);
	rc = md_html(md != NULL ? md : "", (MD_SIZE)len, md_out, &tmp,
	    MD_PARSER_FLAGS, MD_HTML_FLAG_SKIP_UTF8_BOM);
	if (rc != 0 || tmp.failed) {
		sbuf_release(&tmp);
		return -1;
	}
	sbuf_add(out, tmp.buf != NULL ? tmp.buf : "", tmp.len);
	sbuf_release(&tmp);
	return 0;
}
