/* tests/unit/broker-xml-fixture.h: a CONFIG_MANAGED plan and the broker.xml
 * rendered for its two nodes, for the tests of the plan's broker_xml
 * section. */
#ifndef TESTS_UNIT_BROKER_XML_FIXTURE_H
#define TESTS_UNIT_BROKER_XML_FIXTURE_H

#include <string.h>

#include "plan-fixture.h"

#define XML_HEAD                                                               \
	"<configuration xmlns=\"urn:activemq\">\n"                             \
	"<core xmlns=\"urn:activemq:core\">\n"                                 \
	"<address-settings><address-setting match=\"#\">"                      \
	"<config-delete-queues>FORCE</config-delete-queues>"                   \
	"</address-setting></address-settings>\n"
static const char before[] =
    XML_HEAD "<addresses>\n<address name=\"orders\"/>\n"
             "</addresses>\n</core>\n</configuration>\n";
static const char after[] =
    XML_HEAD "<addresses/>\n</core>\n</configuration>\n";

/* Two nodes, the second unreadable; queue 'orders' (configuration-managed,
 * 4 messages) live on the first, declared nowhere; a divert 'keep' from
 * 'audit-in' into 'orders' declared and live. */
static inline struct plan *
fixture(struct fx *f)
{
	struct plan_managed m = {0};
	struct recon_queue *q;
	struct plan *p;

	fx_init(f, DECL_CONFIG_MANAGED, 2);
	fx_address(f, "audit-in", DECL_ANYCAST);
	fx_queue(f, "audit-in", "audit-in");
	fx_divert(f, "keep", "audit-in", "orders");
	q = fx_lqueue(f, 0, "orders", "orders", 0, 4);
	q->configuration_managed = true;
	fx_lqueue(f, 0, "audit-in", "audit-in", 0, 0);
	fx_ldivert(f, 0, "keep", "audit-in", "orders");
	fx_unreachable(f, 1, "connection refused");
	m.known = true;
	m.source = xstrdup("inventory");
	m.queues = xcalloc(1, sizeof(char *));
	m.queues[0] = xstrdup("orders");
	m.nqueues = 1;
	p = plan_build(&f->c, &m, &f->s, &no_opts);
	plan_managed_release(&m);
	return p;
}

static inline void
add(struct plan *p, struct fx *f, const char *b0)
{
	struct plan_rendered r[2] = {
	    {"broker-a", b0, b0 != NULL ? strlen(b0) : 0, after, strlen(after)},
	    {"broker-b", after, strlen(after), after, strlen(after)},
	};

	plan_add_broker_xml(p, &f->c, &f->s, "the base files", r, 2);
}

#endif
