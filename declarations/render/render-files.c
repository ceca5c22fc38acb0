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

/* Something is there, whatever it is: the reader (afile_read) refuses
 * what is not a regular file, naming it, rather than this lookup passing
 * over a FIFO or a dangling link to the cluster's broker.xml. */
static bool
is_there(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
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
	if (is_there(p)) {
		*out = p;
		return 0;
	}
	free(p);
	p = xasprintf("%s/%s/%s", cluster_dir, RENDER_BASE_DIR,
	    RENDER_BASE_FILE);
	if (is_there(p)) {
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
