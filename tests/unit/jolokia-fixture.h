/* tests/unit/jolokia-fixture.h: replies recorded from a real Artemis
 * 2.40.0 broker (tests/unit/data/jolokia/), for the tests of the Jolokia
 * client's files. */
#ifndef TESTS_UNIT_JOLOKIA_FIXTURE_H
#define TESTS_UNIT_JOLOKIA_FIXTURE_H

#include "../../lib/afile.h"
#include "../../lib/xalloc.h"
#include "../../reconcile/live/live-int.h"

#define DATA "tests/unit/data/jolokia/"

static inline char *
load(const char *name, size_t *len)
{
	struct err err = {0};
	char *path = xasprintf(DATA "%s", name), *data = NULL;

	if (afile_read(&data, len, path, 1 << 20, &err) < 0)
		fail_msg("%s", err.msg);
	free(path);
	return data;
}

#endif
