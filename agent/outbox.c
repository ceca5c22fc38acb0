/* agent/outbox.c: the outbox (outbox.h). */
#include "outbox.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../lib/afile.h"
#include "../lib/sbuf.h"
#include "../lib/xalloc.h"
#include "apply-plan.h"

#define AGENT_OUTBOX_SCAN_MAX 10000 /* folders looked at per cluster */

int
agent_outbox_new_plan_dir(char **out, const char *outbox, const char *cluster,
    const char *commit, struct err *err)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	char *cdir, *dir = NULL;
	int i;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	cdir = xasprintf("%s/%s", outbox, cluster);
	if (afile_mkdirs(cdir, 0750, err) < 0) {
		free(cdir);
		return -1;
	}
	/* mkdir(2) is exclusive: two plans of one second never share. */
	for (i = 1; i < 100 && dir == NULL; i++) {
		dir = i == 1 ? xasprintf("%s/%s-%.12s", cdir, stamp,
		                   commit != NULL ? commit : "drift-repair")
		             : xasprintf("%s/%s-%.12s-%d", cdir, stamp,
		                   commit != NULL ? commit : "drift-repair", i);
		if (mkdir(dir, 0750) == 0)
			break;
		if (errno != EEXIST) {
			err_setf(err, NULL, "cannot create folder '%s': %s",
			    dir, strerror(errno));
			free(dir);
			free(cdir);
			return -1;
		}
		free(dir);
		dir = NULL;
	}
	free(cdir);
	if (dir == NULL)
		return err_setf(err, NULL, "no free plan folder for '%s'",
		    cluster);
	*out = dir;
	return 0;
}

int
agent_outbox_put(const char *dir, const char *name, const char *text,
    struct err *err)
{
	char *path = xasprintf("%s/%s", dir, name);
	int r;

	r = afile_write(path, text, strlen(text), 0640, err);
	free(path);
	return r;
}

bool
agent_outbox_has(const char *dir, const char *name)
{
	struct stat st;
	char *path = xasprintf("%s/%s", dir, name);
	bool r;

	r = stat(path, &st) == 0;
	free(path);
	return r;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A plan folder: holds a plan.json (the drift folder never does). */
static bool
is_plan_dir(const char *path, const char *name)
{
	return strcmp(name, AGENT_OUTBOX_DRIFT) != 0 &&
	       agent_outbox_has(path, "plan.json");
}

/* A cluster folder: any folder of the outbox. */
static bool
is_folder(const char *path, const char *name)
{
	struct stat st;

	(void)name;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Sorted paths (names when names) of the entries of dir that keep
 * accepts, at most AGENT_OUTBOX_SCAN_MAX; none starting with '.'; a
 * missing dir is empty. */
static int
scan(char ***out, size_t *nout, const char *dir, bool names,
    bool (*keep)(const char *path, const char *name), struct err *err)
{
	DIR *d;
	struct dirent *e;
	char **list = NULL, *p;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	d = opendir(dir);
	if (d == NULL)
		return errno == ENOENT
		           ? 0
		           : err_setf(err, NULL, "cannot read '%s': %s", dir,
		                 strerror(errno));
	while (n < AGENT_OUTBOX_SCAN_MAX) {
		e = readdir(d);
		if (e == NULL)
			break;
		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (!keep(p, e->d_name)) {
			free(p);
			continue;
		}
		if (names) {
			free(p);
			p = xstrdup(e->d_name);
		}
		xgrow(&list, &cap, n + 1, sizeof(*list));
		list[n++] = p;
	}
	closedir(d);
	if (n > 0)
		qsort(list, n, sizeof(*list), cmp_str);
	*out = list;
	*nout = n;
	return 0;
}

static int
plan_dirs_as(char ***out, size_t *nout, const char *dir, bool names,
    struct err *err)
{
	return scan(out, nout, dir, names, is_plan_dir, err);
}

static int
plan_dirs(char ***out, size_t *nout, const char *dir, struct err *err)
{
	return plan_dirs_as(out, nout, dir, false, err);
}

int
agent_outbox_supersede_others(const char *outbox, const char *cluster,
    const char *keep_dir, const char *reason, struct err *err)
{
	char *cdir = xasprintf("%s/%s", outbox, cluster);
	char **list = NULL;
	size_t n = 0, i;
	int marked = 0;

	if (plan_dirs(&list, &n, cdir, err) < 0) {
		free(cdir);
		return -1;
	}
	for (i = 0; i < n && marked >= 0; i++) {
		if (strcmp(list[i], keep_dir) == 0 ||
		    agent_outbox_has(list[i], AGENT_OUTBOX_RESULT) ||
		    agent_outbox_has(list[i], AGENT_OUTBOX_SUPERSEDED) ||
		    agent_outbox_has(list[i], AGENT_APPLY_BEGUN))
			continue;
		if (agent_outbox_put(list[i], AGENT_OUTBOX_SUPERSEDED, reason,
		        err) < 0)
			marked = -1;
		else
			marked++;
	}
	agent_outbox_list_free(list, n);
	free(cdir);
	return marked;
}

/* Sorted paths (names when names) of the cluster folders of outbox. */
static int
cluster_dirs_as(char ***out, size_t *nout, const char *outbox, bool names,
    struct err *err)
{
	return scan(out, nout, outbox, names, is_folder, err);
}

static int
cluster_dirs(char ***out, size_t *nout, const char *outbox, struct err *err)
{
	return cluster_dirs_as(out, nout, outbox, false, err);
}

int
agent_outbox_clusters(char ***out, size_t *nout, const char *outbox,
    struct err *err)
{
	return cluster_dirs_as(out, nout, outbox, true, err);
}

int
agent_outbox_plans(char ***out, size_t *nout, const char *outbox,
    const char *cluster, struct err *err)
{
	char *cdir = xasprintf("%s/%s", outbox, cluster);
	int r;

	r = plan_dirs_as(out, nout, cdir, true, err);
	free(cdir);
	return r;
}

int
agent_outbox_list_approved(char ***out, size_t *nout, const char *outbox,
    struct err *err)
{
	char **clusters = NULL, **plans = NULL, **list = NULL;
	size_t nc = 0, np = 0, n = 0, cap = 0, i, j;
	int r = 0;

	if (cluster_dirs(&clusters, &nc, outbox, err) < 0)
		return -1;
	for (i = 0; i < nc && r == 0; i++) {
		r = plan_dirs(&plans, &np, clusters[i], err);
		for (j = 0; j < np && r == 0; j++) {
			if (!agent_outbox_has(plans[j],
			        AGENT_OUTBOX_APPROVAL) ||
			    agent_outbox_has(plans[j], AGENT_OUTBOX_RESULT) ||
			    agent_outbox_has(plans[j], AGENT_OUTBOX_REFUSED))
				continue;
			xgrow(&list, &cap, n + 1, sizeof(*list));
			list[n++] = plans[j];
			plans[j] = xstrdup("");
		}
		agent_outbox_list_free(plans, np);
		plans = NULL;
	}
	agent_outbox_list_free(clusters, nc);
	if (r < 0) {
		agent_outbox_list_free(list, n);
		return -1;
	}
	*out = list;
	*nout = n;
	return 0;
}

void
agent_outbox_list_free(char **list, size_t n)
{
	size_t i;

	if (list == NULL)
		return;
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

char *
agent_outbox_page_link(const char *base, const char *cluster, const char *id)
{
	static const char keep[] = "abcdefghijklmnopqrstuvwxyz"
	                           "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~";
	const char *parts[2] = {cluster, id};
	struct sbuf b = {0};
	size_t i, n;
	const char *s;

	if (base == NULL)
		return NULL;
	n = strlen(base);
	sbuf_add(&b, base, n > 0 && base[n - 1] == '/' ? n - 1 : n);
	sbuf_adds(&b, "/clusters/");
	for (i = 0; i < 2 && parts[i] != NULL; i++) {
		if (i == 1)
			sbuf_adds(&b, "/previews/");
		for (s = parts[i]; *s != '\0'; s++) {
			if (strchr(keep, *s) != NULL)
				sbuf_addc(&b, *s);
			else
				sbuf_addf(&b, "%%%02X",
				    (unsigned)(unsigned char)*s);
		}
	}
	return sbuf_take(&b);
}
