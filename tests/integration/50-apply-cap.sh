#!/usr/bin/env bash
# ADR-0084 D7 at apply time on real brokers: the bulk cap is the cluster's.
# A plan within the cap (1 message on each node, cap 2) whose node1 queue
# gets one more message before apply: apply refuses the whole apply before
# any node acts; node2, whose own count did not change, destroys nothing
# either (issue 14.5: it used to go ahead).
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50m-$$
apply_setup "$u"
n1=${NODES[0]}
n2=${NODES[1]}

src="  - name: $u.src
    routing: [anycast]
    queues: [{name: $u.src}]"
cap="settings:
  max-destroyed-messages: 2"
decl "$TMP/c" "$cap
addresses:
$src
  - name: $u.fwd
    routing: [anycast]
    queues: [{name: $u.fwd}]"
converge "v1" "$TMP/c" "$TMP/p1"
for n in "${NODES[@]}"; do
	check_eq "$n: one message on $u.fwd" OK "$(produce "$n" "$u.fwd")"
done
decl "$TMP/c" "$cap
addresses:
$src"
check_exit "v2: plan has changes" 2 plan_to "$TMP/p2" "$TMP/c"
check_eq "v2: the plan destroys 2 messages, within the cap" 2 "$(rj "$TMP/p2/plan.json" 'j["destroyed_messages"]')"
check "v2: approve" approve_ok "$TMP/p2"
check_eq "$n1: one more message on $u.fwd" OK "$(produce "$n1" "$u.fwd")"
check_exit "v2: apply exits 1" 1 apply_to "$TMP/p2" "$TMP/c"
check_eq "v2: every node REFUSED STALE" '[["REFUSED", "STALE"], ["REFUSED", "STALE"]]' \
	"$(rj "$TMP/p2/result.json" '[[n["outcome"], n["kind"]] for n in j["nodes"]]')"
check_eq "v2: node2's detail" \
	"stale plan: the plan's queue deletes now destroy 3 messages across the nodes (2 when planned; on this node 1, 1 when planned), past the cap of 2 (settings.max-destroyed-messages): the whole apply is refused and nothing ran on any node; plan again" \
	"$(rj "$TMP/p2/result.json" 'j["nodes"][1]["detail"]')"
check_eq "v2: no operation in the result row" '[[], []]' \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys
r = json.load(sys.stdin)
print(json.dumps([n["operations"] for n in r["nodes"]]))')"
for n in "${NODES[@]}"; do
	check_listed "$n: $u.fwd is still there" "$n" queues "$u.fwd"
done
check_eq "$n1: its 2 messages are still there" 2 "$(broker_attr "$n1" queues "$u.fwd" MessageCount)"
check_eq "$n2: its message is still there" 1 "$(broker_attr "$n2" queues "$u.fwd" MessageCount)"
check_eq "the inventory keeps $u.fwd" true "$(rj "$STATE/$CL/inventory.json" '"'"$u.fwd"'" in j["queues"]')"
janitor "$u."
done_testing
