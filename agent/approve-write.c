/* agent/approve-write.c: approval.json written (approve-write.h). */
#include "approve-write.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/clock.h"
#include "../lib/xalloc.h"
#include "outbox.h"

char *
agent_invoker_name(void)
{
	const char *s = getenv("SUDO_USER");

	if (s == NULL || s[0] == '\0')
		s = getenv("USER");
	if (s == NULL || s[0] == '\0')
		s = getlogin();
	if (s != NULL && s[0] != '\0')
		return xstrdup(s);
	return agent_user_name(getuid());
}

char *
agent_user_name(uid_t uid)
{
	struct passwd pw, *res = NULL;
	long max = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t n = max > 0 ? (size_t)max : 4096;
	char *buf = NULL, *name = NULL;
	int rc;

	for (;;) {
		buf = xrealloc(buf, n);
		rc = getpwuid_r(uid, &pw, buf, n, &res);
		if (rc != ERANGE || n >= (size_t)1 << 20)
			break;
		n *= 2;
	}
	if (rc == 0 && res != NULL && pw.pw_name != NULL &&
	    pw.pw_name[0] != '\0')
		name = xstrdup(pw.pw_name);
	free(buf);
	return name != NULL ? name : xasprintf("%lu", (unsigned long)uid);
}

int
agent_approve_write(const struct agent_plan_dir *ap, const char *confirm,
    const char *by, const char *via, bool override_window, mode_t mode,
    struct apply_approval *out, struct err *err)
{
	struct apply_approval a;
	char *json, *path;
	int rc;

	memset(&a, 0, sizeof(a));
	/* the real uid: the agent attributes the approval to it, and acts on
	 * it only when approval.json is owned by that uid */
	a.approved_uid = (int64_t)getuid();
	a.approved_user = agent_user_name(getuid());
	a.plan_digest = xstrdup(ap->digest);
	a.confirmation = xstrdup(confirm);
	a.approved_by = xstrdup(by);
	a.approved_at = clock_rfc3339_now();
	a.via = via != NULL ? xstrdup(via) : NULL;
	a.override_window = override_window;
	json = apply_approval_render(&a);
	path = xasprintf("%s/%s", ap->dir, AGENT_OUTBOX_APPROVAL);
	rc = afile_write(path, json, strlen(json), mode, err);
	free(path);
	free(json);
	if (rc == 0 && out != NULL)
		*out = a;
	else
		apply_approval_release(&a);
	return rc;
}
