/* agent/suspend.c: see suspend.h. */
#include "suspend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/afile.h"
#include "../lib/json.h"
#include "../lib/jsonw.h"
#include "../lib/sbuf.h"
#include "../lib/utf8.h"
#include "../lib/xalloc.h"

#define SUSPEND_FILE_MAX ((size_t)16 * 1024)

void
agent_suspension_release(struct agent_suspension *s)
{
	free(s->reason);
	free(s->by);
	free(s->user);
	free(s->at);
	memset(s, 0, sizeof(*s));
}

bool
agent_suspend_name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n <= 128 && name[0] != '.' &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz"
	                    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static char *
path_of(const char *state, const char *cluster)
{
	return xasprintf("%s/%s/%s", state, cluster, AGENT_SUSPEND_FILE);
}

/* A member that is one line of text. */
static int
read_line(struct json_reader *c, const struct json *root, const char *key,
    char **out)
{
	uint32_t cp;
	size_t at;

	if (json_read_str(c, root, "", key, false, out) < 0)
		return -1;
	if ((*out)[0] == '\0' ||
	    utf8_find(*out, utf8_line_problem, &at, &cp) != NULL) {
		free(*out);
		*out = NULL;
		return json_read_fail(c, "", key,
		    "expected one non-empty line of text");
	}
	return 0;
}

int
agent_suspend_read(struct agent_suspension *out, const char *state,
    const char *cluster, struct err *err)
{
	struct agent_suspension s = {0};
	struct json_doc *doc = NULL;
	struct json_reader c;
	const struct json *root;
	char *path = path_of(state, cluster), *text = NULL;
	size_t len = 0;
	int64_t format = 0;
	int rc = -1;

	if (access(path, F_OK) != 0 && errno == ENOENT) {
		rc = 0;
		goto done;
	}
	if (afile_read(&text, &len, path, SUSPEND_FILE_MAX, err) < 0 ||
	    json_parse(&doc, path, text, len, err) < 0)
		goto done;
	root = json_doc_root(doc);
	c.path = path;
	c.err = err;
	if (!json_is_object(root)) {
		json_read_fail(&c, "", "(top)", "expected a JSON object");
		goto done;
	}
	if (json_read_int(&c, root, "", "format", &format) < 0)
		goto done;
	if (format != AGENT_SUSPEND_FORMAT) {
		json_read_fail(&c, "", "format", "expected 1");
		goto done;
	}
	if (read_line(&c, root, "reason", &s.reason) < 0 ||
	    read_line(&c, root, "by", &s.by) < 0 ||
	    read_line(&c, root, "user", &s.user) < 0 ||
	    read_line(&c, root, "at", &s.at) < 0 ||
	    json_read_int(&c, root, "", "uid", &s.uid) < 0)
		goto done;
	*out = s;
	memset(&s, 0, sizeof(s));
	rc = 1;
done:
	agent_suspension_release(&s);
	json_doc_free(doc);
	free(text);
	free(path);
	return rc;
}

int
agent_suspend_write(const char *state, const char *cluster,
    const struct agent_suspension *s, struct err *err)
{
	char *dir = xasprintf("%s/%s", state, cluster), *path, *text;
	struct sbuf b = {0};
	struct jsonw w;
	int rc = -1;

	if (!agent_suspend_name_ok(cluster)) {
		err_setf(err, NULL,
		    "'%s' is not a cluster name (letters, digits, '.', '_' and "
		    "'-', not starting with '.')",
		    cluster);
		free(dir);
		return -1;
	}
	jsonw_init(&w, &b, 2);
	jsonw_obj_begin(&w);
	jsonw_key(&w, "at");
	jsonw_str(&w, s->at);
	jsonw_key(&w, "by");
	jsonw_str(&w, s->by);
	jsonw_key(&w, "format");
	jsonw_int(&w, AGENT_SUSPEND_FORMAT);
	jsonw_key(&w, "reason");
	jsonw_str(&w, s->reason);
	jsonw_key(&w, "uid");
	jsonw_int(&w, s->uid);
	jsonw_key(&w, "user");
	jsonw_str(&w, s->user);
	jsonw_obj_end(&w);
	sbuf_addc(&b, '\n');
	text = sbuf_take(&b);
	path = path_of(state, cluster);
	if (afile_mkdirs(dir, 0750, err) == 0 &&
	    afile_write(path, text, strlen(text), 0644, err) == 0)
		rc = 0;
	free(path);
	free(text);
	free(dir);
	return rc;
}

int
agent_suspend_remove(const char *state, const char *cluster, struct err *err)
{
	char *dir = xasprintf("%s/%s", state, cluster);
	char *path = path_of(state, cluster);
	int fd, rc = 1;

	if (unlink(path) < 0) {
		if (errno == ENOENT)
			rc = 0;
		else
			rc = err_setf(err, NULL, "cannot remove %s: %s", path,
			    strerror(errno));
		goto done;
	}
	/* the removal is durable before resume reports it */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		rc = err_setf(err, NULL, "cannot sync %s: %s", dir,
		    strerror(errno));
	if (fd >= 0)
		close(fd);
done:
	free(path);
	free(dir);
	return rc;
}

char *
agent_suspend_text(const char *cluster, const struct agent_suspension *s)
{
	return xasprintf("cluster '%s' is suspended (by %s, uid %lld %s, at "
	                 "%s): %s; nothing is applied until `artemis-gitops "
	                 "resume %s`",
	    cluster, s->by, (long long)s->uid, s->user, s->at, s->reason,
	    cluster);
}
