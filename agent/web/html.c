/* agent/web/html.c: escaping and the page's frame: the head with a small
 * inline style sheet (no script, no external resource: the page reads the
 * same without JavaScript, and the Content-Security-Policy of page.c allows
 * nothing else), a header naming who is signed in with a sign-out form,
 * and the footer.
 */
#include "web-int.h"

#include <string.h>

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
