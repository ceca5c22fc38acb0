/* agent/cmd-snapshot.c: `artemis-gitops snapshot CLUSTER_DIR`: read every
 * node of a cluster (one Jolokia request per node, all concurrently) and
 * print the live state as tables, or as versioned JSON with --json
 * (docs/snapshot-format.md). Exit 1 when a node could not be read; the
 * others are still printed. */
#include "agent.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../declarations/decl.h"
#include "../lib/xalloc.h"
#include "../reconcile/live/live.h"
#include "../reconcile/recon.h"
#include "creds.h"
#include "snapshot-table.h"
#include "targets.h"

struct snap_opts {
	bool json;
	const char *credentials, *node, *ca_file, *origin;
	long timeout_ms;
	const char *dir;
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "Usage: artemis-gitops snapshot [OPTIONS] CLUSTER_DIR\n\n"
	    "Read the live state of every node of the cluster declared in "
	    "CLUSTER_DIR\n(one Jolokia request per node, all nodes at once) "
	    "and print it per node:\nqueues, addresses and diverts.\n\n"
	    "Options:\n"
	    "  --json              print versioned JSON "
	    "(docs/snapshot-format.md)\n"
	    "  --credentials DIR   credentials folder (default: "
	    "$CREDENTIALS_DIRECTORY);\n"
	    "                      a node's `credentials: NAME` is the file "
	    "DIR/NAME,\n"
	    "                      one line user:password\n"
	    "  --node NAME         read only this node\n"
	    "  --timeout S         total time per node in seconds "
	    "(default 30)\n"
	    "  --ca-file FILE      CA certificates for https endpoints "
	    "(default: system)\n"
	    "  --origin URL        Origin header (default http://localhost)\n"
	    "  -h, --help          show this help\n"
	    "  -V, --version       show the version\n\n"
	    "Exit codes: 0 every node read, 1 a node could not be read or "
	    "invalid input,\n64 usage error.\n");
}

static int
parse_timeout(struct snap_opts *o, const char *arg)
{
	char *end;
	double secs = strtod(arg, &end);

	if (end == arg || *end != '\0' || !(secs > 0) || secs > 3600)
		return -1;
	o->timeout_ms = (long)(secs * 1000.0 + 0.5);
	return 0;
}

/* 0: go on; 1: stop with *code (help, version, usage error). */
static int
parse_args(struct snap_opts *o, int argc, char **argv, int *code)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"credentials", required_argument, NULL, 'c'},
	    {"node", required_argument, NULL, 'n'},
	    {"timeout", required_argument, NULL, 't'},
	    {"ca-file", required_argument, NULL, 'a'},
	    {"origin", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'c':
			o->credentials = optarg;
			break;
		case 'n':
			o->node = optarg;
			break;
		case 'a':
			o->ca_file = optarg;
			break;
		case 'o':
			o->origin = optarg;
			break;
		case 't':
			if (parse_timeout(o, optarg) < 0) {
				*code = agent_usage_error("snapshot",
				    "--timeout: expected seconds in (0, 3600], "
				    "got '%s'",
				    optarg);
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			*code = AGENT_EXIT_OK;
			return 1;
		case 'V':
			*code = agent_print_version();
			return 1;
		default:
			*code = agent_usage_error("snapshot",
			    "unknown option '%s'", argv[optind - 1]);
			return 1;
		}
	}
	if (argc - optind != 1) {
		*code = agent_usage_error("snapshot",
		    "expected one CLUSTER_DIR, got %d arguments",
		    argc - optind);
		return 1;
	}
	o->dir = argv[optind];
	return 0;
}

static void
print_diags(const struct errlist *l)
{
	size_t i;
	char *line;

	for (i = 0; i < l->n; i++) {
		line = errlist_render_item(l, i);
		fprintf(stderr, "%s\n", line);
		free(line);
	}
}

static int
run(const struct snap_opts *o, const struct decl_cluster *c)
{
	const char *dir = agent_creds_dir(o->credentials);
	struct agent_targets t = {0};
	struct live_http_opts http = {0};
	struct err err = {0};
	struct recon_snapshot *s = NULL;
	size_t i;
	char *json, *msg;
	int code = AGENT_EXIT_FAIL;

	if (dir == NULL) {
		fprintf(stderr,
		    "artemis-gitops snapshot: no credentials folder: "
		    "use --credentials DIR or set "
		    "CREDENTIALS_DIRECTORY\n");
		goto done;
	}
	if (agent_targets_load(&t, c, o->node != NULL ? &o->node : NULL,
	        o->node != NULL ? 1 : 0, dir, NULL, &err) < 0) {
		msg = err_render(&err);
		fprintf(stderr, "artemis-gitops snapshot: %s\n", msg);
		free(msg);
		goto done;
	}
	http.origin = o->origin;
	http.ca_file = o->ca_file;
	http.timeout_ms = o->timeout_ms;
	if (o->timeout_ms > 0 && o->timeout_ms < 5000)
		http.connect_timeout_ms = o->timeout_ms;
	s = live_snapshot_fetch(c->name, t.v, t.n, &http);
	if (o->json) {
		json = live_snapshot_render_json(s);
		fputs(json, stdout);
		free(json);
	} else {
		agent_snapshot_table(stdout, s);
	}
	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].refusal.kind != RECON_OK)
			agent_snapshot_refusal_line(stderr, &s->nodes[i]);
	code =
	    live_snapshot_unreadable(s) > 0 ? AGENT_EXIT_FAIL : AGENT_EXIT_OK;
done:
	agent_targets_release(&t);
	err_release(&err);
	live_snapshot_free(s);
	return code;
}

int
agent_cmd_snapshot(int argc, char **argv)
{
	struct snap_opts o = {0};
	struct decl_cluster *c = NULL;
	struct errlist diags = {0};
	int code = 0;

	if (parse_args(&o, argc, argv, &code) != 0)
		return code;
	if (decl_cluster_load(&c, o.dir, &diags) < 0) {
		print_diags(&diags);
		errlist_release(&diags);
		return AGENT_EXIT_FAIL;
	}
	errlist_release(&diags);
	if (o.node != NULL && decl_cluster_find_node(c, o.node) == NULL) {
		code = agent_usage_error("snapshot",
		    "--node: no node '%s' in cluster '%s'", o.node, c->name);
		decl_cluster_free(c);
		return code;
	}
	code = run(&o, c);
	decl_cluster_free(c);
	return code;
}
