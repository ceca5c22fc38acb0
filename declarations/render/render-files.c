/* declarations/render/render-files.c: where a node's base broker.xml is. */
#include "render-int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/xalloc.h"

bool
render_node_name_ok(const char *name)
{
	return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static bool
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int
render_base_path(char **out, const char *cluster_dir, const char *node,
    struct err *err)
{
	char *p;

	if (!render_node_name_ok(node))
		return err_setf(err, NULL,
		    "node '%s': the name cannot be used as a file name", node);
	p = xasprintf("%s/%s/%s/%s.xml", cluster_dir, RENDER_BASE_DIR,
	    RENDER_NODES_DIR, node);
	if (is_file(p)) {
		*out = p;
		return 0;
	}
	free(p);
	p = xasprintf("%s/%s/%s", cluster_dir, RENDER_BASE_DIR,
	    RENDER_BASE_FILE);
	if (is_file(p)) {
		*out = p;
		return 0;
	}
	err_setf(err, NULL,
	    "node '%s': no base broker.xml (looked for %s/%s/%s/%s.xml and "
	    "%s)",
	    node, cluster_dir, RENDER_BASE_DIR, RENDER_NODES_DIR, node, p);
	free(p);
	return -1;
}
