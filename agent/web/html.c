/* agent/web/html.c: escaping and the page's frame: the head with a small
 * inline style sheet (no script, no external resource: the page reads the
 * same without JavaScript, and the Content-Security-Policy of page.c allows
 * nothing else), a header naming who is signed in with a sign-out form,
 * and the footer.
 */
#include "web-int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAGE_CSP                                                               \
	"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "  \
	"frame-ancestors 'none'"

#ifndef AGENT_VERSION
#define AGENT_VERSION "0.0.0"
#endif

void
web_html_esc(struct sbuf *out, const char *s)
{
	const char *run;

	if (s == NULL)
		return;
	for (run = s; *s != '\0'; s++) {
		const char *rep;

		switch (*s) {
		case '&':
			rep = "&amp;";
			break;
		case '<':
			rep = "&lt;";
			break;
		case '>':
			rep = "&gt;";
			break;
		case '"':
			rep = "&quot;";
			break;
		case '\'':
			rep = "&#39;";
			break;
		default:
			continue;
		}
		sbuf_add(out, run, (size_t)(s - run));
		sbuf_adds(out, rep);
		run = s + 1;
	}
	sbuf_add(out, run, (size_t)(s - run));
}

static const char style[] =
    "body{font-family:system-ui,sans-serif;margin:0;color:#1b1b1b;"
    "background:#fafafa;line-height:1.4}"
    "header{background:#23303d;color:#fff;padding:.5em 1em;display:flex;"
    "gap:1em;align-items:center;flex-wrap:wrap}"
    "header a{color:#fff;font-weight:bold;text-decoration:none}"
    "header .who{margin-left:auto}"
    "header form{display:inline;margin:0}"
    "main{padding:0 1em 1em;max-width:80em}"
    "footer{color:#666;font-size:.85em;padding:1em}"
    "table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;"
    "vertical-align:top}"
    "th{background:#eee}"
    "code,pre{font-family:ui-monospace,monospace;font-size:.92em}"
    "pre{background:#f0f0f0;padding:.5em;overflow-x:auto;white-space:pre-wrap}"
    "section{background:#fff;border:1px solid #ddd;border-radius:4px;"
    "padding:.5em 1em;margin:1em 0}"
    ".plan{background:#fff;border:1px solid #ddd;padding:0 1em}"
    ".graph{margin:.5em 0;overflow-x:auto}"
    ".graph svg{max-width:100%;height:auto}"
    ".up{color:#11722c;font-weight:bold}"
    ".down{color:#b00020;font-weight:bold}"
    ".state{font-weight:bold;text-transform:uppercase;font-size:.85em;"
    "padding:.1em .4em;border-radius:3px;background:#ddd}"
    ".state-pending{background:#ffe08a}"
    ".state-applied{background:#a8e6b0}"
    ".state-refused{background:#f4a9b0}"
    ".msg{padding:.5em 1em;border-radius:4px;margin:1em 0;"
    "background:#eef4ff;border:1px solid #9bb8e8}"
    ".error{background:#fdecee;border-color:#e39aa3}"
    ".caveat{color:#7a4b00;font-size:.9em}"
    "input[type=text],input[type=password]{width:28em;max-width:100%;"
    "font-family:ui-monospace,monospace}"
    "button{padding:.3em 1em}"
    "label{display:block;margin:.4em 0}";

void
web_html_begin(struct sbuf *out, const char *title, const struct web_who *who)
{
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	               "<meta charset=\"utf-8\">\n"
	               "<meta name=\"viewport\" "
	               "content=\"width=device-width, initial-scale=1\">\n"
	               "<title>");
	web_html_esc(out, title);
	sbuf_adds(out, " \xc2\xb7 artemis-gitops</title>\n<style>");
	sbuf_adds(out, style);
	sbuf_adds(out, "</style>\n</head>\n<body>\n<header>"
	               "<a href=\"/\">artemis-gitops</a>");
	if (who != NULL && who->role != WEB_NOBODY) {
		sbuf_adds(out, "<span class=\"who\">signed in as <b>");
		web_html_esc(out, who->name);
		sbuf_adds(out, "</b> (");
		web_html_esc(out, web_role_name(who->role));
		sbuf_adds(out, ")</span>");
		if (who->session) {
			sbuf_adds(out,
			    "<form method=\"post\" action=\"/logout\">"
			    "<input type=\"hidden\" name=\"csrf\" "
			    "value=\"");
			web_html_esc(out, who->csrf);
			sbuf_adds(out, "\"><button type=\"submit\">Sign "
			               "out</button></form>");
		}
	}
	sbuf_adds(out, "</header>\n<main>\n<h1>");
	web_html_esc(out, title);
	sbuf_adds(out, "</h1>\n");
}

void
web_html_end(struct sbuf *out)
{
	sbuf_adds(out, "</main>\n<footer>artemis-gitops " AGENT_VERSION
	               "</footer>\n</body>\n</html>\n");
}

/* ---- pieces of the pages ------------------------------------------------ */

void
web_html_page(struct web_resp *out, int status)
{
	out->status = status;
	out->type = "text/html; charset=utf-8";
	strv_add(&out->headers, "Content-Security-Policy: " PAGE_CSP);
	sbuf_reset(&out->body);
	/* every response has X-Content-Type-Options: nosniff and
	 * Cache-Control: no-store (httpd.c), Referrer-Policy: no-referrer
	 * and X-Frame-Options: DENY (server.c) */
}

/* loc is built from checked ids only: no header injection. */
void
web_html_redirect(struct web_resp *out, const char *loc)
{
	web_html_page(out, 303);
	strv_addf(&out->headers, "Location: %s", loc);
	sbuf_reset(&out->body);
	sbuf_adds(&out->body, "<!DOCTYPE html>\n<p>See <a href=\"");
	web_html_esc(&out->body, loc);
	sbuf_adds(&out->body, "\">");
	web_html_esc(&out->body, loc);
	sbuf_adds(&out->body, "</a>.</p>\n");
}

/* A page of one message: an error or what happened, with a way back. */
void
web_html_message(struct web_resp *out, const struct web_who *who, int status,
    const char *title, const char *msg, const char *back)
{
	web_html_page(out, status);
	sbuf_reset(&out->body);
	web_html_begin(&out->body, title, who);
	sbuf_addf(&out->body, "<p class=\"msg%s\">",
	    status >= 400 ? " error" : "");
	if (status >= 400)
		sbuf_addf(&out->body, "<b>%d</b> ", status);
	web_html_esc(&out->body, msg);
	sbuf_adds(&out->body, "</p>\n");
	if (back != NULL) {
		sbuf_adds(&out->body, "<p><a href=\"");
		web_html_esc(&out->body, back);
		sbuf_adds(&out->body, "\">Back</a></p>\n");
	}
	web_html_end(&out->body);
}

void
web_html_time(struct sbuf *b, int64_t t)
{
	struct tm tm;
	time_t tt = (time_t)t;
	char s[32];

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL ||
	    strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
		sbuf_adds(b, "never");
		return;
	}
	sbuf_adds(b, s);
	if (time(NULL) >= tt)
		sbuf_addf(b, " (%" PRId64 " s ago)", (int64_t)time(NULL) - t);
}

void
web_html_csrf(struct sbuf *b, const struct web_who *who)
{
	sbuf_adds(b, "<input type=\"hidden\" name=\"csrf\" value=\"");
	web_html_esc(b, who->csrf);
	sbuf_adds(b, "\">");
}

void
web_html_state(struct sbuf *b, const char *state)
{
	sbuf_adds(b, "<span class=\"state state-");
	web_html_esc(b, state);
	sbuf_adds(b, "\">");
	web_html_esc(b, state);
	sbuf_adds(b, "</span>");
}

void
web_html_preview_link(struct sbuf *b, const char *cluster, const char *id)
{
	sbuf_adds(b, "<a href=\"/clusters/");
	web_html_esc(b, cluster);
	sbuf_adds(b, "/previews/");
	web_html_esc(b, id);
	sbuf_adds(b, "\"><code>");
	web_html_esc(b, id);
	sbuf_adds(b, "</code></a>");
}

void
web_html_md_file(struct sbuf *b, const struct web_view *v, const char *cluster,
    const char *id, const char *name)
{
	struct err err = {0};
	char *md = NULL;
	size_t len = 0;
	int rc = web_model_file(v, cluster, id, name, &md, &len, &err);

	if (rc == 1) {
		sbuf_adds(b, "<p>");
		web_html_esc(b, name);
		sbuf_adds(b, " is not there.</p>\n");
	} else if (rc < 0) {
		sbuf_adds(b, "<p class=\"msg error\">");
		web_html_esc(b, err.msg);
		sbuf_adds(b, "</p>\n");
	} else {
		sbuf_adds(b, "<div class=\"plan\">\n");
		if (web_md_html(md, len, b) < 0) {
			sbuf_adds(b, "<pre>");
			web_html_esc(b, md);
			sbuf_adds(b, "</pre>\n");
		}
		sbuf_adds(b, "</div>\n");
	}
	err_release(&err);
	free(md);
}
