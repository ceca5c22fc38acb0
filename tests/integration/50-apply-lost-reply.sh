#!/usr/bin/env bash
# Issue 14.4 on real brokers: an operation whose reply was lost after the
# broker acted is not FAILED. tests/tools/opproxy.py forwards the request
# to the broker, then loses its answer in each way it can (stalled,
# dropped, reset, truncated, dripping, garbage, a gateway's 502): apply
# reads the node back once, finds the queue gone (or the created queue and
# divert there as sent) and records DONE, established by read-back, in
# result.json and the audit row, where the query docs/audit.md documents
# finds it. A request that never reached the broker is FAILED, established
# by read-back (the queue is still there); a node that cannot be read back
# leaves the outcome UNKNOWN, said so.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50l-$$
apply_setup "$u"
n1=${NODES[0]}
n2=${NODES[1]}

# The documented query (docs/audit.md), as written there.
query=$(sed -n '/^# operations whose reply was lost/{n;p;}' "$AG_TOP/docs/audit.md")
check_grep "docs/audit.md documents the query" '^jq ' <(printf '%s\n' "$query")
# read_back_rows: what the documented query finds in the audit log
read_back_rows() {
	(cd "$TMP" && ln -sfn "$STATE" STATE && eval "$query")
}

q() { printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$1" "$1"; }
src=$(q "$u.src")
body() {
	local r
	echo "addresses:"
	echo "$src"
	for r in "$@"; do q "$u.$r"; done
}

# two opproxies, one per node, with the given rules
proxies() {
	opproxy_start "$n1" $1
	P1_URL=$OPX_URL P1_PID=$OPX_PID P1_LOG=$OPX_LOG
	opproxy_start "$n2" $2
	P2_URL=$OPX_URL P2_PID=$OPX_PID P2_LOG=$OPX_LOG
}
proxies_stop() {
	kill "$P1_PID" "$P2_PID" 2>/dev/null
	wait "$P1_PID" "$P2_PID" 2>/dev/null
	return 0
}

decl "$TMP/c" "$(body r1 r2 r3 r4 r5)"
converge "v1" "$TMP/c" "$TMP/p1"
left=(r1 r2 r3 r4 r5)

# round NAME RULE1 RULE2 KIND1 KIND2: drop the next queue; node1's and
# node2's destroyQueue answers lost by RULE1 and RULE2.
round() {
	local name=$1 r=${left[0]} rows
	left=("${left[@]:1}")
	proxies "$2:destroyQueue" "$3:destroyQueue"
	decl "$TMP/c" "$(body "${left[@]}")" "$n1=$P1_URL" "$n2=$P2_URL"
	check_exit "$name: plan has changes" 2 plan_to "$TMP/$name" "$TMP/c"
	check "$name: approve" approve_ok "$TMP/$name"
	check_exit "$name: apply exits 0" 0 apply_to "$TMP/$name" "$TMP/c"
	check_grep "$name: node1's proxy lost the answer ($2)" "^${2%%:*} destroyQueue $u\.$r\$" "$P1_LOG"
	check_grep "$name: node2's proxy lost the answer ($3)" "^${3%%:*} destroyQueue $u\.$r\$" "$P2_LOG"
	check_eq "$name: both nodes APPLIED" '["APPLIED", "APPLIED"]' \
		"$(rj "$TMP/$name/result.json" '[n["outcome"] for n in j["nodes"]]')"
	check_eq "$name: destroyQueue DONE, established by read-back, with the lost reply's kind" \
		"[[\"DONE\", \"read-back\", \"$4\"], [\"DONE\", \"read-back\", \"$5\"]]" \
		"$(rj "$TMP/$name/result.json" '[[o["outcome"], o.get("established"), o.get("kind")] for n in j["nodes"] for o in n["operations"] if o["op"] == "destroyQueue"]')"
	check_eq "$name: node1's detail" \
		"2 operation(s) applied; 1 of them established by reading the node back after their reply was lost" \
		"$(rj "$TMP/$name/result.json" 'j["nodes"][0]["detail"]')"
	for n in "${NODES[@]}"; do
		check_unlisted "$name: $n: $u.$r is gone" "$n" queues "^$u\.$r\$" "$u.src"
	done
	rows=$(read_back_rows | grep -c "\"name\":\"$u\.$r\".*\"op\":\"destroyQueue\".*\"outcome\":\"DONE\"")
	check_eq "$name: the documented query finds both nodes' rows" 2 "$rows"
	check_eq "$name: the inventory forgets $u.$r" false "$(rj "$STATE/$CL/inventory.json" '"'"$u.$r"'" in j["queues"]')"
	proxies_stop
}

round stall-drip lost-stall lost-drip TIMEOUT TIMEOUT
round drop-reset lost-drop lost-reset UNREACHABLE UNREACHABLE
round truncate-garbage lost-truncate lost-garbage BAD_RESPONSE BAD_RESPONSE

# A gateway's 502 after the broker acted (node1), and a request that never
# reached the broker (node2): FAILED, established by read-back.
r=${left[0]}
left=("${left[@]:1}")
proxies "lost-status:502:destroyQueue" "drop:destroyQueue"
decl "$TMP/c" "$(body "${left[@]}")" "$n1=$P1_URL" "$n2=$P2_URL"
check_exit "502-lost-request: plan has changes" 2 plan_to "$TMP/p5" "$TMP/c"
check "502-lost-request: approve" approve_ok "$TMP/p5"
check_exit "502-lost-request: apply exits 1" 1 apply_to "$TMP/p5" "$TMP/c"
check_eq "502-lost-request: node1 APPLIED, node2 FAILED" '[["APPLIED", null], ["FAILED", "UNREACHABLE"]]' \
	"$(rj "$TMP/p5/result.json" '[[n["outcome"], n["kind"]] for n in j["nodes"]]')"
check_eq "502-lost-request: destroyQueue" '[["DONE", "read-back", "BROKER_ERROR"], ["FAILED", "read-back", "UNREACHABLE"]]' \
	"$(rj "$TMP/p5/result.json" '[[o["outcome"], o.get("established"), o.get("kind")] for n in j["nodes"] for o in n["operations"] if o["op"] == "destroyQueue"]')"
check_grep "502-lost-request: node2's detail says the read back shows it not done" \
	"^destroyQueue '$u\.$r' failed: UNREACHABLE: .*; its reply was lost and the node, read back, shows it not done \(the queue is still there\); 1 later operation\(s\) not run\$" \
	<(rj "$TMP/p5/result.json" 'j["nodes"][1]["detail"]')
check_unlisted "502-lost-request: node1: $u.$r is gone" "$n1" queues "^$u\.$r\$" "$u.src"
check_listed "502-lost-request: node2: $u.$r is still there" "$n2" queues "$u.$r"
check_eq "502-lost-request: the inventory keeps $u.$r" true "$(rj "$STATE/$CL/inventory.json" '"'"$u.$r"'" in j["queues"]')"
proxies_stop

# Creates whose answers are lost: createQueue (reset) on node1,
# createDivert (truncated) on node2. The objects are there as sent: DONE.
proxies "lost-reset:createQueue" "lost-truncate:createDivert"
decl "$TMP/c" "$(body "${left[@]}" new)
diverts:
  - {name: $u.nd, address: $u.src, forwarding-address: $u.new, routing-type: ANYCAST}" \
	"$n1=$P1_URL" "$n2=$P2_URL"
check_exit "creates: plan has changes" 2 plan_to "$TMP/p6" "$TMP/c"
check "creates: approve" approve_ok "$TMP/p6"
check_exit "creates: apply exits 0" 0 apply_to "$TMP/p6" "$TMP/c"
check_eq "creates: node1's operations" '[["createAddress", "DONE", null], ["createQueue", "DONE", "read-back"], ["createDivert", "DONE", null]]' \
	"$(rj "$TMP/p6/result.json" '[[o["op"], o["outcome"], o.get("established")] for o in j["nodes"][0]["operations"]]')"
check_eq "creates: node2's operations" '[["createAddress", "DONE", null], ["createQueue", "DONE", null], ["createDivert", "DONE", "read-back"]]' \
	"$(rj "$TMP/p6/result.json" '[[o["op"], o["outcome"], o.get("established")] for o in j["nodes"][1]["operations"] if o["op"].startswith("create")]')"
for n in "${NODES[@]}"; do
	check_listed "creates: $n: $u.new is there" "$n" queues "$u.new"
	check_eq "creates: $n: $u.nd is there as declared" "[\"$u.src\", \"$u.new\", \"ANYCAST\"]" \
		"$(broker_attr "$n" diverts "$u.nd" Address ForwardingAddress RoutingType)"
done
check_eq "creates: the documented query finds both" 2 \
	"$(read_back_rows | grep -cE "\"name\":\"$u\.(new\",\"node\":\"$n1\",\"op\":\"createQueue|nd\",\"node\":\"$n2\",\"op\":\"createDivert)\",\"outcome\":\"DONE\"")"
proxies_stop
decl "$TMP/c" "$(body "${left[@]}" new)
diverts:
  - {name: $u.nd, address: $u.src, forwarding-address: $u.new, routing-type: ANYCAST}"
check_exit "creates: the next plan has nothing to do" 0 plan_to "$TMP/p6b" "$TMP/c"

# The answer is lost and then the node cannot be read back: UNKNOWN.
r=${left[0]}
left=("${left[@]:1}")
proxies "lost-drop+down:destroyQueue" ""
decl "$TMP/c" "$(body "${left[@]}" new)
diverts:
  - {name: $u.nd, address: $u.src, forwarding-address: $u.new, routing-type: ANYCAST}" \
	"$n1=$P1_URL" "$n2=$P2_URL"
check_exit "unknown: plan has changes" 2 plan_to "$TMP/p7" "$TMP/c"
check "unknown: approve" approve_ok "$TMP/p7"
check_exit "unknown: apply exits 1" 1 apply_to "$TMP/p7" "$TMP/c"
check_eq "unknown: node1 FAILED with the lost reply's kind" '[["FAILED", "UNREACHABLE"], ["APPLIED", null]]' \
	"$(rj "$TMP/p7/result.json" '[[n["outcome"], n["kind"]] for n in j["nodes"]]')"
check_eq "unknown: node1's destroyQueue is UNKNOWN, not read back" '[["destroyQueue", "UNKNOWN", null], ["deleteAddress", "NOT_RUN", null]]' \
	"$(rj "$TMP/p7/result.json" '[[o["op"], o["outcome"], o.get("established")] for o in j["nodes"][0]["operations"]]')"
check_grep "unknown: node1's detail says so" \
	"^destroyQueue '$u\.$r': outcome unknown: its reply was lost \(UNREACHABLE: .*\) and the node could not be read back \(UNREACHABLE: .*\); read the node \(snapshot\) before planning again; 1 later operation\(s\) not run\$" \
	<(rj "$TMP/p7/result.json" 'j["nodes"][0]["detail"]')
check_eq "unknown: the audit row says UNKNOWN" UNKNOWN \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys
r = json.load(sys.stdin)
print(r["nodes"][0]["operations"][0]["outcome"])')"
check_unlisted "unknown: node1: the broker did destroy $u.$r" "$n1" queues "^$u\.$r\$" "$u.src"
check_eq "unknown: the inventory keeps $u.$r (not known gone)" true "$(rj "$STATE/$CL/inventory.json" '"'"$u.$r"'" in j["queues"]')"
proxies_stop

janitor "$u."
done_testing
