#!/usr/bin/env bash
# Every kind of plan action applied on real brokers and read back: create
# address/queue/divert; widen an address, change a queue and a divert in
# place, recreate a queue (durable changed); recreate a divert (source
# changed), narrow an address. After each apply the next plan has nothing
# to do, and the live objects are as declared. Then the operator's
# out-of-band delete-queue (ADR-0084 as written) of an undeclared queue,
# approved and applied while the cluster has an inventory.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50x-$$
apply_setup "$u"
n2=${NODES[1]}
# A divert change is in place from 2.38 (updateDivert(json)), a recreate
# before (docs/compatibility.md).
changed='["widen-address", "change-queue", "change-divert", "recreate-queue"]'
[[ $("$ARTEMIS" version) < 2.38 ]] &&
	changed='["widen-address", "change-queue", "recreate-queue", "recreate-divert"]'

step() {
	local name=$1 body=$2 want=$3
	decl "$TMP/c" "$body"
	converge "$name" "$TMP/c" "$TMP/$name"
	check_eq "$name: actions" "$want" \
		"$(rj "$TMP/$name/plan.json" '[a["kind"] for a in j["actions"]]')"
	check_eq "$name: every node APPLIED" '["APPLIED", "APPLIED"]' \
		"$(rj "$TMP/$name/result.json" '[n["outcome"] for n in j["nodes"]]')"
	check_exit "$name: the next plan has nothing to do" 0 plan_to "$TMP/$name.again" "$TMP/c"
}

step create "addresses:
  - name: $u.a
    routing: [anycast]
    queues:
      - {name: $u.q1, max-consumers: 5}
      - {name: $u.q2}
  - name: $u.b
    routing: [anycast]
    queues: [{name: $u.b}]
diverts:
  - {name: $u.d, address: $u.a, forwarding-address: $u.b, routing-type: ANYCAST}" \
	'["create-address", "create-address", "create-queue", "create-queue", "create-queue", "create-divert"]'

step change "addresses:
  - name: $u.a
    routing: [anycast, multicast]
    queues:
      - {name: $u.q1, max-consumers: 7, routing: anycast}
      - {name: $u.q2, durable: false, routing: anycast}
  - name: $u.b
    routing: [anycast]
    queues: [{name: $u.b}]
diverts:
  - {name: $u.d, address: $u.a, forwarding-address: $u.b, routing-type: PASS, filter: \"x = 1\"}" \
	"$changed"
# The live objects, read from each broker's MBeans with curl.
for n in "${NODES[@]}"; do
	check_eq "$n: q1 max-consumers changed in place" 7 "$(broker_attr "$n" queues "$u.q1" MaxConsumers)"
	check_eq "$n: q2 recreated non-durable" false "$(broker_attr "$n" queues "$u.q2" Durable)"
	check_eq "$n: d updated" '["PASS", "x = 1"]' "$(broker_attr "$n" diverts "$u.d" RoutingType Filter)"
	check_eq "$n: a widened" '["ANYCAST", "MULTICAST"]' "$(broker_routing "$n" "$u.a")"
done

step recreate "addresses:
  - name: $u.a
    routing: [anycast]
    queues:
      - {name: $u.q1, max-consumers: 7}
      - {name: $u.q2, durable: false}
  - name: $u.b
    routing: [anycast]
    queues: [{name: $u.b}]
diverts:
  - {name: $u.d, address: $u.b, forwarding-address: $u.a, routing-type: PASS, filter: \"x = 1\"}" \
	'["recreate-divert", "narrow-address"]'
for n in "${NODES[@]}"; do
	check_eq "$n: d recreated on its new source" "[\"$u.b\", \"$u.a\", \"PASS\", \"x = 1\"]" \
		"$(broker_attr "$n" diverts "$u.d" Address ForwardingAddress RoutingType Filter)"
	check_eq "$n: a narrowed" '["ANYCAST"]' "$(broker_routing "$n" "$u.a")"
done
check_eq "the inventory holds every declared object" \
	"[[\"$u.a\", \"$u.b\"], [\"$u.d\"], [\"$u.b\", \"$u.q1\", \"$u.q2\"]]" \
	"$(rj "$STATE/$CL/inventory.json" '[j["addresses"], j["diverts"], j["queues"]]')"

for n in "${NODES[@]}"; do
	check_eq "$n: an undeclared queue" OK "$(jexec "$n" create-queue "$u.tmp" "$u.b" anycast)"
	check_eq "$n: a runtime divert into it" OK "$(jexec "$n" create-address "$u.in" anycast)"
	check_eq "$n: a runtime divert into it" OK "$(jexec "$n" create-divert "$u.td" "$u.in" "$u.b" routing-type=ANYCAST)"
done
rm -rf "$TMP/dq"
check_exit "delete-queue has changes" 2 "$AG_BIN" delete-queue "$u.tmp" "$TMP/c" --out "$TMP/dq" --credentials "$CREDDIR"
check "delete-queue: approve" approve_ok "$TMP/dq"
check_exit "delete-queue: apply exits 0" 0 apply_to "$TMP/dq" "$TMP/c"
check_eq "delete-queue: only the queue goes (the divert still has $u.b)" \
	'[["destroyQueue", "DONE"]]' \
	"$(rj "$TMP/dq/result.json" '[[o["op"], o["outcome"]] for o in j["nodes"][1]["operations"]]')"
check_unlisted "$n2: $u.tmp is gone" "$n2" queues "^$u\.tmp\$" "$u.q1"
check_grep "$n2: $u.td is kept" "^$u\.td\$" <(broker_names "$n2" diverts)
janitor "$u."
done_testing
