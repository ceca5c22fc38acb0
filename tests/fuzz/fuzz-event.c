/* tests/fuzz/fuzz-event.c: an event as the webhook spool keeps it
 * (agent/event.c; a spool file is in the state folder, where a full disk
 * or a hand edit can leave anything). Property (abort = finding): what it
 * accepts renders to an event it accepts again and renders to the same
 * bytes, and every body of it (json, slack) is rendered without harm. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "../../agent/event.h"
#include "../../agent/webhook/webhook-int.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct webhook_sender from = {"fuzz", "0.0.0"};
	struct agent_event *a = NULL, *b = NULL;
	struct err err = {0};
	char *json, *again, *body;

	if (size > 64 * 1024)
		return 0;
	if (agent_event_parse(&a, "event.json", (const char *)data, size,
	        &err) == 0) {
		json = agent_event_render(a);
		if (agent_event_parse(&b, "e.json", json, strlen(json), &err) <
		    0)
			abort(); /* a rendered event must read back */
		again = agent_event_render(b);
		if (strcmp(json, again) != 0)
			abort();
		body = webhook_body_render(AGENT_CONF_BODY_JSON, b,
		    "00000000-0000-4000-8000-000000000000", 1, &from);
		free(body);
		body = webhook_body_render(AGENT_CONF_BODY_SLACK, b,
		    "00000000-0000-4000-8000-000000000000", 1, &from);
		free(body);
		free(json);
		free(again);
		agent_event_free(a);
		agent_event_free(b);
	}
	err_release(&err);
	return 0;
}
