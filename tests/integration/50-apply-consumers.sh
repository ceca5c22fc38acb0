#!/usr/bin/env bash
# ADR-0084 decision 6 on real brokers. Q1: a queue with a consumer is
# refused in the plan (HAS_CONSUMERS, naming the flag), the refused plan
# cannot be approved; planned with --disconnect-consumers it is applied
# with removeConsumers=true and the consumer is gone. A stale plan: a
# consumer that attaches after the approval makes apply refuse that node
# (the other node is applied); the inventory keeps the queue, and the next
# plan deletes it where it is left once the consumer is gone. A consumer
# that attaches between apply's check and its call (opproxy holds the
# destroyQueue meanwhile) makes the broker refuse with AMQ229025: FAILED,
# HAS_CONSUMERS, the detail names the flag.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50c-$$
apply_setup "$u"
n1=${NODES[0]}
n2=${NODES[1]}
consumers=()
stop_consumers() {
	local p
	for p in "${consumers[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	consumers=()
}
consume() {
	"$ARTEMIS" consumer "$1" "$2" >"$TMP/consumer-$1-$2.log" 2>&1 &
	consumers+=($!)
	"$ARTEMIS" wait-consumers "$1" "$2" 1 60 >/dev/null
}
trap 'stop_consumers; _brokers_cleanup' EXIT

q="  - name: $u.q
    routing: [anycast]
    queues: [{name: $u.q}]"
s="  - name: $u.s
    routing: [anycast]
    queues: [{name: $u.s}]"
keep="  - name: $u.keep
    routing: [anycast]
    queues: [{name: $u.keep}]"
decl "$TMP/c" "addresses:
$keep
$q
$s"
converge "v1" "$TMP/c" "$TMP/p1"

# Q1: consumer attached -> the plan refuses the node, naming the flag.
consume "$n1" "$u.q"
check_eq "consumer attached to $u.q on $n1" 0 $?
decl "$TMP/c" "addresses:
$keep
$s"
check_exit "plan with a consumer is refused (exit 1)" 1 plan_to "$TMP/p2" "$TMP/c"
check_eq "$n1 refused HAS_CONSUMERS, $n2 would apply" '[["node1", "REFUSED", "HAS_CONSUMERS"], ["node2", "WOULD_APPLY", null]]' \
	"$(rj "$TMP/p2/plan.json" '[[x["node"], x["outcome"], x["refusal"]] for a in j["actions"] if a["kind"] == "delete-queue" for x in a["nodes"]]')"
check_grep "plan.md names --disconnect-consumers" "plan again with --disconnect-consumers" "$TMP/p2/plan.md"
check_exit "a refused plan cannot be approved" 1 "$AG_BIN" approve "$TMP/p2" --confirm "anything" --state "$STATE"
"$AG_BIN" approve "$TMP/p2" --confirm "anything" --state "$STATE" 2>"$TMP/err" >/dev/null
check_grep "the refusal says why" "^artemis-gitops approve: the plan is refused \(NODE_REFUSED: " "$TMP/err"
check_exit "an unapproved plan is not applied" 1 apply_to "$TMP/p2" "$TMP/c"

check_exit "plan --disconnect-consumers has changes" 2 plan_to "$TMP/p3" "$TMP/c" --disconnect-consumers
check_eq "the plan records the flag" true "$(rj "$TMP/p3/plan.json" 'j["disconnect_consumers"]')"
check "approve" approve_ok "$TMP/p3"
check_exit "apply exits 0" 0 apply_to "$TMP/p3" "$TMP/c"
check_eq "removeConsumers=true was sent on both nodes" '[true, true]' \
	"$(rj "$TMP/p3/result.json" '[o["remove_consumers"] for n in j["nodes"] for o in n["operations"] if o["op"] == "destroyQueue"]')"
listing "$TMP/queues" "$n1" queues
check_nogrep "Q1: queue $u.q is gone with its consumer" "^$u\.q\$" "$TMP/queues"
check_grep "Q1: (same listing) queue $u.keep is there" "^$u\.keep\$" "$TMP/queues"
check_eq "the audit records the flag" '{"disconnect_consumers": true}' \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys;print(json.dumps(json.load(sys.stdin)["parameters"]))')"
stop_consumers

# Stale: approved without consumers; a consumer attaches before apply.
decl "$TMP/c" "addresses:
$keep"
check_exit "plan deleting $u.s has changes" 2 plan_to "$TMP/p4" "$TMP/c"
check "approve" approve_ok "$TMP/p4"
consume "$n2" "$u.s"
check_eq "consumer attached to $u.s on $n2 after the approval" 0 $?
check_exit "apply exits 1" 1 apply_to "$TMP/p4" "$TMP/c"
check_eq "$n1 applied, $n2 refused as stale" '[["APPLIED", null], ["REFUSED", "STALE"]]' \
	"$(rj "$TMP/p4/result.json" '[[n["outcome"], n["kind"]] for n in j["nodes"]]')"
check_eq "the stale detail says why" \
	"stale plan: delete-queue '$u.s': queue '$u.s' has 1 consumer on this node (stop the consumers, or plan again with --disconnect-consumers to close them)" \
	"$(rj "$TMP/p4/result.json" 'j["nodes"][1]["detail"]')"
check_grep "nothing was done on $n2" "^$u\.s\$" <(broker_names "$n2" queues)
check_eq "the inventory keeps $u.s" true "$(rj "$STATE/$CL/inventory.json" '"'"$u.s"'" in j["queues"]')"
check_exit "the same plan cannot be applied twice" 1 apply_to "$TMP/p4" "$TMP/c"
stop_consumers
check "the consumer on $n2 is gone" "$ARTEMIS" wait-consumers "$n2" "$u.s" 0 60
check_exit "plan again: the rest is planned" 2 plan_to "$TMP/p5" "$TMP/c"
check_eq "only $n2 is left to do" '[["node1", "NO_CHANGE"], ["node2", "WOULD_APPLY"]]' \
	"$(rj "$TMP/p5/plan.json" '[[x["node"], x["outcome"]] for a in j["actions"] if a["kind"] == "delete-queue" for x in a["nodes"]]')"
check "approve" approve_ok "$TMP/p5"
check_exit "apply converges" 0 apply_to "$TMP/p5" "$TMP/c"
check_eq "the inventory drops $u.s" false "$(rj "$STATE/$CL/inventory.json" '"'"$u.s"'" in j["queues"]')"

# A consumer attaches between the check and the call.
h="  - name: $u.h
    routing: [anycast]
    queues: [{name: $u.h}]"
decl "$TMP/c" "addresses:
$keep
$h"
converge "add $u.h" "$TMP/c" "$TMP/p6"
opproxy_start "$n1" "hold:destroyQueue:$u.h:$TMP/go"
decl "$TMP/c" "addresses:
$keep" "$n1=$OPX_URL"
check_exit "plan the delete of $u.h (no consumer yet)" 2 plan_to "$TMP/p7" "$TMP/c"
check "approve" approve_ok "$TMP/p7"
(exec "$AG_BIN" apply "$TMP/p7" --state "$STATE" --credentials "$CREDDIR" \
	--cluster "$TMP/c" >"$TMP/apply7.out" 2>"$TMP/apply7.err") &
apid=$!
for i in $(seq 1 300); do
	grep -q "^hold destroyQueue $u.h\$" "$OPX_LOG" && break
	sleep 0.1
done
check_grep "apply checked the node and sent destroyQueue" "^hold destroyQueue $u\.h\$" "$OPX_LOG"
consume "$n1" "$u.h"
check_eq "a consumer attached meanwhile" 0 $?
touch "$TMP/go"
wait "$apid"
check_eq "apply exits 1" 1 $?
check_eq "node1 FAILED with HAS_CONSUMERS, node2 APPLIED" '[["FAILED", "HAS_CONSUMERS"], ["APPLIED", null]]' \
	"$(rj "$TMP/p7/result.json" '[[n["outcome"], n["kind"]] for n in j["nodes"]]')"
check_eq "the broker's refusal is kept" 1 \
	"$(rj "$TMP/p7/result.json" '[o.get("error", "") for o in j["nodes"][0]["operations"] if o["op"] == "destroyQueue"][0]' | grep -c 'AMQ229025: Cannot delete queue')"
check_eq "the detail names the flag" 1 \
	"$(rj "$TMP/p7/result.json" 'j["nodes"][0]["detail"]' | grep -c '; a consumer attached after the preflight: stop it, or plan again with --disconnect-consumers')"
check_grep "the queue and its consumer are still there" "^$u\.h\$" <(broker_names "$n1" queues)
stop_consumers
opproxy_stop
janitor "$u."
done_testing
