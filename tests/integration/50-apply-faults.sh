#!/usr/bin/env bash
# ADR-0084 decision 3 with faults injected by tests/tools/opproxy.py in
# front of a real broker: a failed divert delete leaves the queue in place
# and the node FAILED; a failed queue delete after its diverts is FAILED
# and names the removed diverts; no rollback; the other node goes on; a
# node unreachable at apply is UNREACHABLE while the other is applied; the
# inventory keeps what was not deleted everywhere, and later plans finish
# the job.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50f-$$
apply_setup "$u"
n1=${NODES[0]}
n2=${NODES[1]}

src="  - name: $u.src
    routing: [anycast]
    queues: [{name: $u.src}]"
fwd="  - name: $u.fwd
    routing: [anycast]
    queues: [{name: $u.fwd}]"
decl "$TMP/c" "addresses:
$src
$fwd"
converge "v1" "$TMP/c" "$TMP/p1"
for n in "${NODES[@]}"; do
	check_eq "$n: runtime divert" OK "$(jexec "$n" create-divert "$u.d1" "$u.src" "$u.fwd" routing-type=ANYCAST)"
done

# A: destroyDivert fails on node1.
opproxy_start "$n1" fail:destroyDivert
decl "$TMP/c" "addresses:
$src" "$n1=$OPX_URL"
check_exit "A: plan (through the proxy) has changes" 2 plan_to "$TMP/pa" "$TMP/c"
check "A: approve" approve_ok "$TMP/pa"
check_exit "A: apply exits 1" 1 apply_to "$TMP/pa" "$TMP/c"
check_eq "A: node1 FAILED, node2 APPLIED" '[["FAILED", "BROKER_ERROR"], ["APPLIED", null]]' \
	"$(rj "$TMP/pa/result.json" '[[n["outcome"], n["kind"]] for n in j["nodes"]]')"
check_eq "A: node1's detail" \
	"destroyDivert '$u.d1' failed: BROKER_ERROR: java.lang.IllegalStateException : injected by opproxy: destroyDivert $u.d1; queue '$u.fwd' left in place; 2 later operation(s) not run" \
	"$(rj "$TMP/pa/result.json" 'j["nodes"][0]["detail"]')"
check_eq "A: node1's operations" '[["destroyDivert", "FAILED"], ["destroyQueue", "NOT_RUN"], ["deleteAddress", "NOT_RUN"]]' \
	"$(rj "$TMP/pa/result.json" '[[o["op"], o["outcome"]] for o in j["nodes"][0]["operations"]]')"
check_absent "A: the proxy let no destroyQueue through" 'destroyQueue' "$OPX_LOG" "^fail destroyDivert $u\.d1\$"
check_grep "A: node1 keeps the queue" "^$u\.fwd\$" <(broker_names "$n1" queues)
check_grep "A: node1 keeps the divert" "^$u\.d1\$" <(broker_names "$n1" diverts)
check_unlisted "A: node2 is done" "$n2" queues "^$u\.fwd\$" "$u.src"
check_eq "A: the inventory keeps $u.fwd" true "$(rj "$STATE/$CL/inventory.json" '"'"$u.fwd"'" in j["queues"]')"
opproxy_stop

# B: destroyQueue fails on node1, after its divert was removed.
opproxy_start "$n1" fail:destroyQueue
decl "$TMP/c" "addresses:
$src" "$n1=$OPX_URL"
check_exit "B: plan has changes" 2 plan_to "$TMP/pb" "$TMP/c"
check_eq "B: only node1 is left" '["WOULD_APPLY", "NO_CHANGE"]' \
	"$(rj "$TMP/pb/plan.json" '[x["outcome"] for a in j["actions"] if a["kind"] == "delete-queue" for x in a["nodes"]]')"
check "B: approve" approve_ok "$TMP/pb"
check_exit "B: apply exits 1" 1 apply_to "$TMP/pb" "$TMP/c"
check_eq "B: node1's detail names the removed divert" \
	"destroyQueue '$u.fwd' failed: BROKER_ERROR: java.lang.IllegalStateException : injected by opproxy: destroyQueue $u.fwd; its dependent divert(s) '$u.d1' were removed before it and stay removed (no rollback; the audit row holds their configuration); 1 later operation(s) not run" \
	"$(rj "$TMP/pb/result.json" 'j["nodes"][0]["detail"]')"
check_eq "B: node2 had nothing to do" SKIPPED "$(rj "$TMP/pb/result.json" 'j["nodes"][1]["outcome"]')"
check_eq "B: a sentinel divert on $u.src" OK "$(sentinel_on "$n1" "$u.src")"
check_unlisted "B: the divert is gone on node1 (no rollback)" "$n1" diverts "^$u\.d1\$" "$u.src.sentinel"
check_eq "B: the sentinel divert removed" OK "$(sentinel_off "$n1" "$u.src")"
check_grep "B: the queue is still on node1" "^$u\.fwd\$" <(broker_names "$n1" queues)
check_eq "B: the audit row holds the removed divert" "$u.fwd" \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys
r = json.load(sys.stdin)
print([o["divert"]["forwarding-address"] for o in r["nodes"][0]["operations"] if o["op"] == "destroyDivert" and o["outcome"] == "DONE"][0])')"
opproxy_stop

# The next plan finishes node1.
decl "$TMP/c" "addresses:
$src"
converge "finish" "$TMP/c" "$TMP/pc"
check_unlisted "node1 is done" "$n1" queues "^$u\.fwd\$" "$u.src"
check_eq "the inventory no longer has $u.fwd" false "$(rj "$STATE/$CL/inventory.json" '"'"$u.fwd"'" in j["queues"] or "'"$u.fwd"'" in j["addresses"]')"

# C: node2 unreachable at apply (its proxy stops after the approval).
x="  - name: $u.x
    routing: [anycast]
    queues: [{name: $u.x}]"
opproxy_start "$n2"
decl "$TMP/c" "addresses:
$src
$x" "$n2=$OPX_URL"
converge "C: add $u.x" "$TMP/c" "$TMP/pd"
decl "$TMP/c" "addresses:
$src" "$n2=$OPX_URL"
check_exit "C: plan the delete" 2 plan_to "$TMP/pe" "$TMP/c"
check "C: approve" approve_ok "$TMP/pe"
opproxy_stop
check_exit "C: apply exits 1" 1 apply_to "$TMP/pe" "$TMP/c"
check_eq "C: node1 APPLIED, node2 UNREACHABLE" '[["APPLIED", null], ["UNREACHABLE", "UNREACHABLE"]]' \
	"$(rj "$TMP/pe/result.json" '[[n["outcome"], n["kind"]] for n in j["nodes"]]')"
check_unlisted "C: node1 deleted $u.x" "$n1" queues "^$u\.x\$" "$u.src"
check_grep "C: node2 still has $u.x" "^$u\.x\$" <(broker_names "$n2" queues)
check_eq "C: the inventory keeps $u.x" true "$(rj "$STATE/$CL/inventory.json" '"'"$u.x"'" in j["queues"]')"
janitor "$u."
done_testing
