/* reconcile/apply/approval.c: approval.json, and whether a plan may be
 * approved.
 *
 * An approval is bound to the plan by the SHA-256 of plan.json's bytes; the
 * confirmation text the approver types is derived from the plan's content
 * by the planner (plan_confirmation), so a text copied from another
 * plan never approves this one. */
#include "apply.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/json.h"
#include "../../lib/jsonw.h"
#include "../../lib/sbuf.h"
#include "../../lib/utf8.h"
#include "../../lib/xalloc.h"

void
apply_approval_release(struct apply_approval *a)
{
	free(a->plan_digest);
	free(a->confirmation);
	free(a->approved_by);
	free(a->approved_at);
	free(a->approved_user);
	free(a->via);
	memset(a, 0, sizeof(*a));
}

char *
apply_approval_render(const struct apply_approval *a)
{
	struct sbuf b = {0};
	struct jsonw w;

	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "approved_at");
	jsonw_str(&w, a->approved_at);
	jsonw_key(&w, "approved_by");
	jsonw_str(&w, a->approved_by);
	jsonw_key(&w, "approved_uid");
	jsonw_int(&w, a->approved_uid);
	jsonw_key(&w, "approved_user");
	jsonw_str(&w, a->approved_user);
	jsonw_key(&w, "confirmation");
	jsonw_str(&w, a->confirmation);
	jsonw_key(&w, "format");
	jsonw_int(&w, APPLY_APPROVAL_FORMAT);
	if (a->override_window) {
		jsonw_key(&w, "override_window");
		jsonw_bool(&w, true);
	}
	jsonw_key(&w, "plan_digest");
	jsonw_str(&w, a->plan_digest);
	if (a->via != NULL) {
		jsonw_key(&w, "via");
		jsonw_str(&w, a->via);
	}
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	return sbuf_take(&b);
}

static const char *const approval_keys[] = {"approved_at", "approved_by",
    "approved_uid", "approved_user", "confirmation", "format",
    "override_window", "plan_digest", "via"};

/* The string member key of root, or NULL after setting err. */
static const char *
member_str(const struct json *root, const char *path, const char *key,
    struct err *err)
{
	const struct json *v = json_get(root, key);
	struct pos pos = {path, 0, 0};
	char *shown;
	uint32_t cp;
	size_t at;

	if (v == NULL) {
		err_setf(err, &pos, "missing member '%s'", key);
		return NULL;
	}
	if (!json_is_string(v) || json_str(v)[0] == '\0') {
		err_setf(err, &pos, "%s: expected a non-empty string", key);
		return NULL;
	}
	/* shown in logs, approval-refused.txt and the audit: one line of
	 * text that cannot hide or reorder what follows it */
	if (utf8_find(json_str(v), utf8_line_problem, &at, &cp) != NULL) {
		shown = utf8_escape(json_str(v), utf8_line_problem);
		err_setf(err, &pos,
		    "%s: '%s' holds %s at byte %zu; an approval's texts are one "
		    "line of text without control or bidirectional characters",
		    key, shown,
		    cp == 0xFFFFFFFFu ? "invalid UTF-8" : utf8_line_problem(cp),
		    at);
		free(shown);
		return NULL;
	}
	return json_str(v);
}

static bool
is_hex64(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		        (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == 64;
}

static int
check_members(const struct json *root, const char *path, struct err *err)
{
	struct pos pos = {path, 0, 0};
	const struct json *c;
	size_t i, n = sizeof(approval_keys) / sizeof(approval_keys[0]);
	int64_t f = 0;

	if (!json_is_object(root))
		return err_setf(err, &pos, "expected a JSON object");
	/* the format first: an older file has no uid, and says why */
	if (json_int(json_get(root, "format"), &f) == 0 && f == 1)
		return err_setf(err, &pos,
		    "format 1: an approval written before approvals recorded "
		    "the approver's uid, which the agent needs to attribute it; "
		    "approve again");
	for (c = json_first(root); c != NULL; c = json_next(c)) {
		i = 0;
		while (i < n && strcmp(approval_keys[i], json_key(c)) != 0)
			i++;
		if (i == n)
			return err_setf(err, &pos, "unknown member '%s'",
			    json_key(c));
	}
	if (json_int(json_get(root, "format"), &f) < 0 ||
	    f != APPLY_APPROVAL_FORMAT)
		return err_setf(err, &pos,
		    "format: expected %d (an approval this version can read)",
		    APPLY_APPROVAL_FORMAT);
	return 0;
}

int
apply_approval_parse(struct apply_approval *out, const char *path,
    const char *text, size_t len, struct err *err)
{
	struct pos pos = {path, 0, 0};
	const char *d, *c, *by, *at, *user, *via = NULL;
	struct json_doc *doc = NULL;
	const struct json *root, *uid;
	int64_t u = -1;
	int rc = -1;

	if (json_parse(&doc, path, text, len, err) < 0)
		return -1;
	root = json_doc_root(doc);
	if (check_members(root, path, err) < 0)
		goto done;
	d = member_str(root, path, "plan_digest", err);
	c = member_str(root, path, "confirmation", err);
	by = member_str(root, path, "approved_by", err);
	at = member_str(root, path, "approved_at", err);
	user = member_str(root, path, "approved_user", err);
	if (d == NULL || c == NULL || by == NULL || at == NULL || user == NULL)
		goto done;
	uid = json_get(root, "approved_uid");
	if (uid == NULL) {
		err_setf(err, &pos, "missing member 'approved_uid'");
		goto done;
	}
	if (json_int(uid, &u) < 0 || u < 0 || u > APPLY_APPROVAL_UID_MAX) {
		err_setf(err, &pos,
		    "approved_uid: expected a uid (an integer "
		    "from 0 to 4294967294)");
		goto done;
	}
	if (!is_hex64(d)) {
		err_setf(err, &pos,
		    "plan_digest: expected 64 lower-case hex digits");
		goto done;
	}
	if (json_get(root, "via") != NULL) {
		via = member_str(root, path, "via", err);
		if (via == NULL)
			goto done;
		if (strcmp(via, APPLY_APPROVAL_VIA_HTTP) != 0 &&
		    strcmp(via, APPLY_APPROVAL_VIA_CARRIED) != 0) {
			err_setf(err, &pos,
			    "via: expected \"%s\" or \"%s\", not \"%s\"",
			    APPLY_APPROVAL_VIA_HTTP, APPLY_APPROVAL_VIA_CARRIED,
			    via);
			goto done;
		}
		out->via = xstrdup(via);
	}
	if (json_get(root, "override_window") != NULL &&
	    json_bool(json_get(root, "override_window"),
	        &out->override_window) < 0) {
		err_setf(err, &pos, "override_window: expected true or false");
		goto done;
	}
	out->plan_digest = xstrdup(d);
	out->confirmation = xstrdup(c);
	out->approved_by = xstrdup(by);
	out->approved_at = xstrdup(at);
	out->approved_uid = u;
	out->approved_user = xstrdup(user);
	rc = 0;
done:
	json_doc_free(doc);
	return rc;
}

int
apply_approval_check_plan(const struct plan *p, const char *confirm,
    struct err *err)
{
	char *want;
	int rc = 0;

	if (p->outcome == PLAN_OUT_REFUSED)
		return err_setf(err, NULL,
		    "the plan is refused (%s: %s) and cannot be approved; %s",
		    p->refusal != NULL ? p->refusal : "REFUSED",
		    p->message != NULL ? p->message : "no detail",
		    p->next_step != NULL ? p->next_step : "plan again");
	if (p->outcome == PLAN_OUT_UNREACHABLE)
		return err_setf(err, NULL,
		    "the plan is UNREACHABLE (%s: %s) and cannot be approved; %s",
		    p->refusal != NULL ? p->refusal : "UNREACHABLE",
		    p->message != NULL ? p->message : "no detail",
		    p->next_step != NULL ? p->next_step : "plan again");
	if (!plan_approvable(p))
		return err_setf(err, NULL,
		    "the plan has no changes; there is nothing to approve");
	want = plan_confirmation(p);
	if (strcmp(want, confirm) != 0)
		rc = err_setf(err, NULL,
		    "the confirmation text does not match this plan; type the text shown under the approve command in plan.md, exactly");
	free(want);
	return rc;
}
