/* reconcile/refusal.c: names of the refusal kinds. */
#include "recon.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
    [RECON_OK] = "OK",
    [RECON_HAS_CONSUMERS] = "HAS_CONSUMERS",
    [RECON_NOT_FOUND] = "NOT_FOUND",
    [RECON_ALREADY_EXISTS] = "ALREADY_EXISTS",
    [RECON_UNAUTHORIZED] = "UNAUTHORIZED",
    [RECON_FORBIDDEN] = "FORBIDDEN",
    [RECON_THROTTLED] = "THROTTLED",
    [RECON_UNREACHABLE] = "UNREACHABLE",
    [RECON_TIMEOUT] = "TIMEOUT",
    [RECON_BAD_RESPONSE] = "BAD_RESPONSE",
    [RECON_BROKER_ERROR] = "BROKER_ERROR",
};

#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

const char *
recon_kind_name(enum recon_kind k)
{
	if ((size_t)k >= NKINDS)
		return "BROKER_ERROR";
	return kind_names[k];
}

int
recon_kind_parse(const char *s, enum recon_kind *out)
{
	size_t i;

	for (i = 0; i < NKINDS; i++) {
		if (strcmp(s, kind_names[i]) == 0) {
			*out = (enum recon_kind)i;
			return 0;
		}
	}
	return -1;
}

void
recon_refusal_release(struct recon_refusal *r)
{
	if (r == NULL)
		return;
	free(r->text);
	memset(r, 0, sizeof(*r));
}
