#!/usr/bin/env bash
# Capture subscriptions on two real brokers (ADR-0084 decision 5,
# docs/captures.md), through plan, approve and apply:
#   - the plan predicts the capture address, its ring queue and a tap on
#     every address holding a matching queue (including queues the same
#     plan creates); apply creates them;
#   - messages sent to a captured address appear in the ring, and the ring
#     never holds more than its size (more than ring-size sent with the
#     distribution's `artemis producer`: MessageCount = ring size);
#   - deleting a queue while another matching queue remains keeps the tap;
#   - deleting the last matching queue removes the tap in the same apply
#     (its capture pass), and the queue delete's own operations never hold
#     a tap (neither in the plan's delete-queue nor in `delete-queue`);
#   - removing the capture from the declaration removes its taps, ring
#     queue and capture address on every node;
#   - a user divert (or address) named inside the reserved prefix is
#     refused by validation.
# Each captured address holds a queue of its own name, so that the JMS
# producer does not auto-create one (queue://X creates queue X when absent).
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t80-$$
apply_setup "$u"
cap=c$$
ring=__capture.$cap
tap1=$ring.$u.qa
tap2=$ring.$u.qc
n1=${NODES[0]}
trap 'janitor "$u"; janitor "$ring"; _brokers_cleanup' EXIT

# produce_n NODE ADDRESS N: send N messages to anycast ADDRESS; prints OK
produce_n() {
	local node=$1 addr=$2 n=$3 cred o
	cred=$(cat "${CRED[$node]}")
	o=$("$RUNDIR/$node/bin/artemis" producer --destination "queue://$addr" \
		--url "tcp://localhost:$("$ARTEMIS" port "$node")" \
		--user "${cred%%:*}" --password "${cred#*:}" \
		--message-count "$n" 2>&1)
	if printf '%s' "$o" | grep -q "Produced: $n messages"; then echo OK; else
		printf '%s\n' "$o" | tail -3; fi
}
# count NODE QUEUE: its MessageCount, read from the broker (curl)
count() { broker_attr "$1" queues "$2" MessageCount; }
acts() { rj "$1/plan.json" '[a["kind"] + ":" + a["name"] for a in j["actions"]]'; }
capture_ops() { # RESULT_DIR NODE_INDEX: the capture pass's operations
	rj "$1/result.json" "[o['act'] + ':' + o['op'] + ':' + o['name'] + ':' + o['outcome'] for o in j['nodes'][$2]['operations'] if o['act'] in ('create-capture', 'change-capture', 'create-tap', 'change-tap', 'delete-tap', 'delete-capture')]"
}

A1="  - name: $u.qa
    routing: [anycast]
    queues: [{name: $u.qa}, {name: $u.qb}]"
A1_QA="  - name: $u.qa
    routing: [anycast]
    queues: [{name: $u.qa}]"
A2="  - name: $u.qc
    routing: [anycast]
    queues: [{name: $u.qc}]"
A2_EMPTY="  - name: $u.qc
    routing: [anycast]"
OTHER="  - name: $u.x
    routing: [anycast]
    queues: [{name: $u.x}]"
CAPTURE="captures:
  - name: $cap
    pattern: \"$u.q*\"
    ring-size: 5"

# ---- v1: queues and the capture, in one plan ------------------------------
decl "$TMP/c" "addresses:
$A1
$A2
$OTHER
$CAPTURE"
check_exit "v1: plan has changes" 2 plan_to "$TMP/p1" "$TMP/c"
check_eq "v1: the plan predicts the capture and a tap per matching address" \
	"[\"create-capture:$ring\", \"create-tap:$tap1\", \"create-tap:$tap2\"]" \
	"$(rj "$TMP/p1/plan.json" '[a["kind"] + ":" + a["name"] for a in j["actions"] if a["kind"] in ("create-capture", "create-tap")]')"
check_eq "v1: no tap on the address without a matching queue" "[]" \
	"$(rj "$TMP/p1/plan.json" "[a['name'] for a in j['actions'] if a['name'].endswith('.$u.x')]")"
check_grep "v1: plan.md shows the tap" "create-tap \`$tap1\`" "$TMP/p1/plan.md"
check "v1: approve" approve_ok "$TMP/p1"
check_exit "v1: apply exits 0" 0 apply_to "$TMP/p1" "$TMP/c"
for i in 0 1; do
	n=${NODES[$i]}
	check_eq "v1 $n: the capture pass ran after the plan's operations" \
		"[\"create-capture:createAddress:$ring:DONE\", \"create-capture:createQueue:$ring:DONE\", \"create-tap:createDivert:$tap1:DONE\", \"create-tap:createDivert:$tap2:DONE\"]" \
		"$(capture_ops "$TMP/p1" "$i")"
	check_grep "v1 $n: tap on $u.qa" "^$tap1\$" <(broker_names "$n" diverts)
	check_grep "v1 $n: tap on $u.qc" "^$tap2\$" <(broker_names "$n" diverts)
	check_unlisted "v1 $n: no tap on $u.x" "$n" diverts "\.$u\.x\$" "$tap1"
	check_grep "v1 $n: ring queue" "^$ring\$" <(broker_names "$n" queues)
done
for n in "${NODES[@]}"; do
	check_eq "v1 $n: ring queue as declared (ring-size 5, non-durable, anycast, on its address)" \
		"[5, false, \"ANYCAST\", \"$ring\"]" \
		"$(broker_attr "$n" queues "$ring" RingSize Durable RoutingType Address)"
	check_eq "v1 $n: tap configuration (non-exclusive, ANYCAST into the ring's address)" \
		"[\"$u.qa\", \"$ring\", false, \"ANYCAST\"]" \
		"$(broker_attr "$n" diverts "$tap1" Address ForwardingAddress Exclusive RoutingType)"
done
check_grep "v1: audit result row holds the capture pass's operations" "\"act\": \"create-tap\"" <(audit_rows result | tail -n 1)
check_exit "v1: nothing left to plan" 0 plan_to "$TMP/p1b" "$TMP/c"

# ---- copies land in the ring, bounded by its size ---------------------------
check_eq "send 3 to $u.qa" OK "$(produce_n "$n1" "$u.qa" 3)"
check_eq "the ring holds the 3 copies" 3 "$(count "$n1" "$ring")"
# (anycast: the address's two queues share them)
check_eq "the queues still get every message (non-exclusive tap): $u.qa + $u.qb" 3 \
	"$(python3 -c 'import sys; print(sum(int(x) for x in sys.argv[1:]))' "$(count "$n1" "$u.qa")" "$(count "$n1" "$u.qb")" 2>&1)"
check_eq "send 12 more to $u.qa" OK "$(produce_n "$n1" "$u.qa" 12)"
check_eq "the ring never exceeds its size: MessageCount = 5" 5 "$(count "$n1" "$ring")"
check_eq "send 4 to $u.qc" OK "$(produce_n "$n1" "$u.qc" 4)"
check_eq "copies from $u.qc land in the same ring: still 5" 5 "$(count "$n1" "$ring")"
check_eq "send 2 to $u.x" OK "$(produce_n "$n1" "$u.x" 2)"
check_eq "$u.x is not tapped: its queue has them" 2 "$(count "$n1" "$u.x")"
check_eq "the ring did not get them: still 5" 5 "$(count "$n1" "$ring")"

# ---- v2: delete qb while qa remains on address qa: the tap stays ----------
decl "$TMP/c" "addresses:
$A1_QA
$A2
$OTHER
$CAPTURE"
check_exit "v2: plan has changes" 2 plan_to "$TMP/p2" "$TMP/c"
check_eq "v2: only the queue delete" "[\"delete-queue:$u.qb\"]" "$(acts "$TMP/p2")"
check_eq "v2: the tap is named kept" "[\"kept\"]" \
	"$(rj "$TMP/p2/plan.json" '[t["fate"] for t in j["actions"][0]["nodes"][0]["taps"]]')"
check_grep "v2: plan.md says why" "still covers '$u.qa' through queue '$u.qa'" "$TMP/p2/plan.md"
check "v2: approve" approve_ok "$TMP/p2"
check_exit "v2: apply exits 0" 0 apply_to "$TMP/p2" "$TMP/c"
for n in "${NODES[@]}"; do
	check_grep "v2 $n: tap on $u.qa kept" "^$tap1\$" <(broker_names "$n" diverts)
	check_unlisted "v2 $n: $u.qb gone" "$n" queues "^$u\.qb\$" "$u.qa"
done

# ---- v3: delete qc, the last matching queue on address qc ------------------
"$AG_BIN" delete-queue "$u.qc" "$TMP/c" --out "$TMP/dq" --credentials "$CREDDIR" >/dev/null 2>&1
check_eq "delete-queue preview: the tap is removed by its subscription" \
	'["removed-by-subscription", "removed-by-subscription"]' \
	"$(rj "$TMP/dq/plan.json" '[t["fate"] for x in j["actions"][0]["nodes"] for t in x["taps"]]')"
check_eq "delete-queue preview: the delete's operations never hold a tap" \
	'[["destroyQueue"], ["destroyQueue"]]' \
	"$(rj "$TMP/dq/plan.json" '[[o["op"] for o in x["operations"]] for x in j["actions"][0]["nodes"]]')"
check_eq "delete-queue preview: its capture pass removes the tap" \
	"[\"delete-queue:$u.qc\", \"delete-tap:$tap2\"]" "$(acts "$TMP/dq")"
decl "$TMP/c" "addresses:
$A1_QA
$A2_EMPTY
$OTHER
$CAPTURE"
check_exit "v3: plan has changes" 2 plan_to "$TMP/p3" "$TMP/c"
check_eq "v3: queue delete, then the capture pass's tap delete" \
	"[\"delete-queue:$u.qc\", \"delete-tap:$tap2\"]" "$(acts "$TMP/p3")"
check_eq "v3: the queue delete's operations never hold a tap" \
	"[[\"destroyQueue:$u.qc\"], [\"destroyQueue:$u.qc\"]]" \
	"$(rj "$TMP/p3/plan.json" '[[o["op"] + ":" + o["name"] for o in x["operations"]] for x in j["actions"][0]["nodes"]]')"
check_eq "v3: the preview names the tap removed by its subscription" \
	'["removed-by-subscription", "removed-by-subscription"]' \
	"$(rj "$TMP/p3/plan.json" '[t["fate"] for x in j["actions"][0]["nodes"] for t in x["taps"]]')"
check "v3: approve" approve_ok "$TMP/p3"
check_exit "v3: apply exits 0" 0 apply_to "$TMP/p3" "$TMP/c"
for i in 0 1; do
	n=${NODES[$i]}
	check_eq "v3 $n: the apply's capture pass removed the tap" \
		"[\"delete-tap:destroyDivert:$tap2:DONE\"]" "$(capture_ops "$TMP/p3" "$i")"
	check_unlisted "v3 $n: tap on $u.qc gone at the end of the apply" "$n" diverts "^$tap2\$" "$tap1"
	check_grep "v3 $n: tap on $u.qa still there" "^$tap1\$" <(broker_names "$n" diverts)
done
check_eq "v3: queue result ops, then the tap" \
	"[\"delete-queue:destroyQueue:$u.qc\", \"delete-tap:destroyDivert:$tap2\"]" \
	"$(rj "$TMP/p3/result.json" '[o["act"] + ":" + o["op"] + ":" + o["name"] for o in j["nodes"][0]["operations"]]')"
check_exit "v3: nothing left to plan" 0 plan_to "$TMP/p3b" "$TMP/c"

# ---- v4: the capture leaves the declaration ---------------------------------
decl "$TMP/c" "addresses:
$A1_QA
$A2_EMPTY
$OTHER"
check_exit "v4: plan has changes" 2 plan_to "$TMP/p4" "$TMP/c"
check_eq "v4: its tap, then its ring and address" \
	"[\"delete-tap:$tap1\", \"delete-capture:$ring\"]" "$(acts "$TMP/p4")"
check_eq "v4: delete-capture operations" \
	"[\"destroyQueue:$ring\", \"deleteAddress:$ring\"]" \
	"$(rj "$TMP/p4/plan.json" '[o["op"] + ":" + o["name"] for o in j["actions"][1]["nodes"][0]["operations"]]')"
check "v4: approve" approve_ok "$TMP/p4"
check_exit "v4: apply exits 0" 0 apply_to "$TMP/p4" "$TMP/c"
for n in "${NODES[@]}"; do
	check_eq "v4 $n: a sentinel divert on $u.qa" OK "$(sentinel_on "$n" "$u.qa")"
	check_unlisted "v4 $n: no tap left" "$n" diverts "^$ring\." "$u.qa.sentinel"
	check_eq "v4 $n: the sentinel divert removed" OK "$(sentinel_off "$n" "$u.qa")"
	check_unlisted "v4 $n: ring queue gone" "$n" queues "^$ring\$" "$u.qa"
	check_unlisted "v4 $n: capture address gone" "$n" addresses "^$ring\$" "$u.qa"
done
check_eq "v4: the inventory no longer lists the capture" "[]" \
	"$(rj "$STATE/$u/inventory.json" 'j["captures"]')"
check_exit "v4: nothing left to plan" 0 plan_to "$TMP/p4b" "$TMP/c"

# ---- validation: the reserved prefix ----------------------------------------
decl "$TMP/bad" "addresses:
$A1_QA
diverts:
  - name: __capture.$cap.mine
    address: $u.qa
    forwarding-address: $u.qa"
"$AG_BIN" validate "$TMP/bad" >"$TMP/bad.out" 2>&1
check_eq "a user divert inside the reserved prefix: validate exits 1" 1 $?
check_grep "validate names the divert and the prefix" \
	"cluster.yaml:[0-9]+:[0-9]+: divert '__capture\.$cap\.mine' is inside the reserved capture prefix '__capture\.'" "$TMP/bad.out"
check_exit "plan refuses it too (exit 1)" 1 plan_to "$TMP/pbad" "$TMP/bad"
check_eq "plan: INVALID_DECLARATION, nothing planned" '["INVALID_DECLARATION", []]' \
	"$(rj "$TMP/pbad/plan.json" '[j["refusal"], j["actions"]]')"
decl "$TMP/bad2" "addresses:
  - name: $ring
    routing: [anycast]
    queues: [{name: $u.mine}]"
"$AG_BIN" validate "$TMP/bad2" >"$TMP/bad2.out" 2>&1
check_eq "a user address inside the reserved prefix: validate exits 1" 1 $?
check_grep "validate names the address" "address '$ring' is inside the reserved capture prefix" "$TMP/bad2.out"
done_testing
