#!/usr/bin/env bash
# ADR-0084 §17 on two real brokers, through `artemis-gitops delete-queue`
# (live snapshot, same preflight as `plan`):
#   Q1  a consumer held on node1: REFUSED with HAS_CONSUMERS' count and the
#       flag, never WOULD_APPLY; with --disconnect-consumers: warned.
#   Q2  a divert sourced at the queue's address: kept, with the reason.
#   Q3/Q4 a divert forwarding into the queue's address (last queue there):
#       listed as removed with the queue, diverts before the queue.
#   a divert whose forwarding address keeps another queue: not dependent.
# Every case asserts on plan.json fields and on plan.md.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
brokers_setup

u=t30-$$-$RANDOM
C=$TMP/cluster
cluster_dir "$C"

plan_dq() { # OUT QUEUE [flags...]: exit code in $rc
	local out=$1 q=$2
	shift 2
	"$AG_BIN" delete-queue "$q" "$C" --out "$out" --credentials "$CREDDIR" "$@" \
		>"$out.stdout" 2>"$out.stderr"
	rc=$?
}
pj() { jq -c "$2" "$1/plan.json"; }

for n in "${NODES[@]}"; do
	# Q1
	jexec "$n" create-address "$u.a1" anycast >/dev/null
	jexec "$n" create-queue "$u.q1" "$u.a1" anycast >/dev/null
	# Q2: a divert sourced at the queue's address
	jexec "$n" create-address "$u.a2" anycast >/dev/null
	jexec "$n" create-queue "$u.q2" "$u.a2" anycast >/dev/null
	jexec "$n" create-address "$u.x2" anycast >/dev/null
	jexec "$n" create-queue "$u.x2" "$u.x2" anycast >/dev/null
	jexec "$n" create-divert "$u.d2" "$u.a2" "$u.x2" routing-type=ANYCAST >/dev/null
	# Q3/Q4: a divert forwarding into the queue's address
	jexec "$n" create-address "$u.a3" anycast >/dev/null
	jexec "$n" create-queue "$u.q3" "$u.a3" anycast >/dev/null
	jexec "$n" create-address "$u.s3" anycast >/dev/null
	jexec "$n" create-queue "$u.s3" "$u.s3" anycast >/dev/null
	jexec "$n" create-divert "$u.d3" "$u.s3" "$u.a3" routing-type=ANYCAST "filter=x > 1" >/dev/null
	# not dependent: the forwarding address keeps another queue
	jexec "$n" create-address "$u.a5" anycast >/dev/null
	jexec "$n" create-queue "$u.q5" "$u.a5" anycast >/dev/null
	jexec "$n" create-queue "$u.q5b" "$u.a5" anycast >/dev/null
	jexec "$n" create-divert "$u.d5" "$u.s3" "$u.a5" >/dev/null
done
check_eq "setup: divert d3 exists on node2 ($u.s3 -> $u.a3, read from the broker)" "[\"$u.s3\", \"$u.a3\"]" \
	"$(broker_attr node2 diverts "$u.d3" Address ForwardingAddress)"

# ---- Q1: consumers ----------------------------------------------------------
"$ARTEMIS" consumer node1 "$u.q1" >"$TMP/consumer.log" 2>&1 &
cpid=$!
"$ARTEMIS" wait-consumers node1 "$u.q1" 1 60 >/dev/null 2>&1
check_eq "Q1: consumer attached" 0 $?
plan_dq "$TMP/q1" "$u.q1"
check_eq "Q1: exit 1 (refused)" 1 "$rc"
check_eq "Q1: plan refused" '"REFUSED"' "$(pj "$TMP/q1" .outcome)"
check_eq "Q1: node1 REFUSED" '"REFUSED"' "$(pj "$TMP/q1" '.actions[0].nodes[0].outcome')"
check_eq "Q1: node1 HAS_CONSUMERS" '"HAS_CONSUMERS"' "$(pj "$TMP/q1" '.actions[0].nodes[0].refusal')"
check_eq "Q1: node1 consumer count" 1 "$(pj "$TMP/q1" '.actions[0].nodes[0].consumers')"
check_eq "Q1: node2 WOULD_APPLY" '"WOULD_APPLY"' "$(pj "$TMP/q1" '.actions[0].nodes[1].outcome')"
check_eq "Q1: no node1 step is WOULD_APPLY" '[]' "$(pj "$TMP/q1" '[.actions[].nodes[]|select(.node=="node1" and .outcome=="WOULD_APPLY")]')"
check_eq "Q1: no confirmation" null "$(pj "$TMP/q1" .confirmation)"
check_grep "Q1: plan.md names the count" "\*\*node1\*\*: REFUSED \(HAS_CONSUMERS\) — queue '$u.q1' has 1 consumer on this node" "$TMP/q1/plan.md"
check_grep "Q1: plan.md names the flag" "plan again with --disconnect-consumers" "$TMP/q1/plan.md"
plan_dq "$TMP/q1f" "$u.q1" --disconnect-consumers
check_eq "Q1 flag: exit 2" 2 "$rc"
check_eq "Q1 flag: node1 WOULD_APPLY" '"WOULD_APPLY"' "$(pj "$TMP/q1f" '.actions[0].nodes[0].outcome')"
check_eq "Q1 flag: removeConsumers" true "$(pj "$TMP/q1f" '.actions[0].nodes[0].operations[-1].remove_consumers')"
check_eq "Q1 flag: recorded" true "$(pj "$TMP/q1f" .disconnect_consumers)"
check_grep "Q1 flag: warned with count and caveat" "1 consumer of queue '$u.q1' will be disconnected; a client that reconnects can create the queue again" "$TMP/q1f/plan.md"
kill "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null

# ---- Q2: divert sourced at the address -------------------------------------
plan_dq "$TMP/q2" "$u.q2"
check_eq "Q2: exit 2" 2 "$rc"
for i in 0 1; do
	check_eq "Q2 node$((i + 1)): divert kept" "\"$u.d2\"" "$(pj "$TMP/q2" ".actions[0].nodes[$i].kept_diverts[0].name")"
	check_eq "Q2 node$((i + 1)): nothing removed" '[]' "$(pj "$TMP/q2" ".actions[0].nodes[$i].removed_diverts")"
	check_eq "Q2 node$((i + 1)): only destroyQueue" '["destroyQueue"]' "$(pj "$TMP/q2" "[.actions[0].nodes[$i].operations[].op]")"
done
check_grep "Q2: plan.md says why" "kept: divert \`$u.d2\` \(source \`$u.a2\`, forwarding to \`$u.x2\`\): its source is the queue's address" "$TMP/q2/plan.md"

# ---- Q3/Q4: divert forwarding into the address -----------------------------
plan_dq "$TMP/q3" "$u.q3"
check_eq "Q3: exit 2" 2 "$rc"
for i in 0 1; do
	check_eq "Q3 node$((i + 1)): divert removed" "[\"$u.d3\",\"$u.s3\",\"$u.a3\"]" \
		"$(pj "$TMP/q3" ".actions[0].nodes[$i].removed_diverts[0]|[.name,.address,.forwarding_address]")"
	check_eq "Q3 node$((i + 1)): divert first, then the queue" '["destroyDivert","destroyQueue"]' \
		"$(pj "$TMP/q3" "[.actions[0].nodes[$i].operations[].op]")"
	check_eq "Q3 node$((i + 1)): full config recorded" '["x > 1","ANYCAST"]' \
		"$(pj "$TMP/q3" ".actions[0].nodes[$i].operations[0].config|[.\"filter-string\",.\"routing-type\"]")"
done
check_eq "Q3: confirmation covers the divert" true "$(pj "$TMP/q3" '.confirmation|test("^delete 1 queue, 1 divert on local [0-9a-f]{12}$")')"
check_grep "Q3: plan.md lists it" "removed with the queue: divert \`$u.d3\` \(source \`$u.s3\`, forwarding to \`$u.a3\`\)" "$TMP/q3/plan.md"
check_grep "Q3: broker.xml caveat" "if a removed divert is in this node's broker.xml" "$TMP/q3/plan.md"

# ---- forwarding address keeps another queue: not dependent -----------------
plan_dq "$TMP/q5" "$u.q5"
check_eq "not dependent: nothing removed" '[]' "$(pj "$TMP/q5" '.actions[0].nodes[0].removed_diverts')"
check_eq "not dependent: kept" "\"$u.d5\"" "$(pj "$TMP/q5" '.actions[0].nodes[0].kept_diverts[0].name')"
check_grep "not dependent: plan.md names the other queue" "still has queue '$u.q5b' on this node" "$TMP/q5/plan.md"

# ---- the plan command against the same live brokers -------------------------
plan_rc=0
"$AG_BIN" plan "$C" --out "$TMP/p" --credentials "$CREDDIR" >/dev/null 2>&1 || plan_rc=$?
check_eq "plan: nothing declared, nothing managed: exit 0" 0 "$plan_rc"
check_eq "plan: live objects reported unmanaged, none deleted" true \
	"$(pj "$TMP/p" "([.unmanaged[].name]|index(\"$u.q3\")) != null and (.actions|length) == 0")"
check_grep "plan: plan.md lists them as left alone" "^- queue \`$u.q3\` on node1, node2$" "$TMP/p/plan.md"
check_grep "plan: nothing to approve" "Nothing to approve: the cluster is as declared" "$TMP/p/plan.md"

# ---- plan with an inventory: a managed queue no longer declared -------------
mkdir -p "$TMP/state/local"
cat >"$TMP/state/local/inventory.json" <<EOF2
{"addresses": ["$u.a3"], "captures": [], "cluster": "local", "diverts": [],
 "format": 1, "queues": ["$u.q3"], "revision": null}
EOF2
plan_rc=0
"$AG_BIN" plan "$C" --out "$TMP/ps" --state "$TMP/state" --credentials "$CREDDIR" >/dev/null 2>&1 || plan_rc=$?
check_eq "plan --state: exit 2" 2 "$plan_rc"
check_eq "plan --state: managed queue deleted, then its address" "[\"delete-queue:$u.q3\",\"delete-address:$u.a3\"]" \
	"$(pj "$TMP/ps" '[.actions[]|.kind+":"+.name]')"
check_eq "plan --state: the dependent divert goes first" "[\"destroyDivert:$u.d3\",\"destroyQueue:$u.q3\"]" \
	"$(pj "$TMP/ps" '[.actions[0].nodes[1].operations[]|.op+":"+.name]')"
check_eq "plan --state: base is the inventory" '"inventory"' "$(pj "$TMP/ps" .base.source)"
check_grep "plan --state: plan.md" "removed with the queue: divert \`$u.d3\`" "$TMP/ps/plan.md"

for n in "${NODES[@]}"; do
	for d in "$u.d2" "$u.d3" "$u.d5"; do jexec "$n" destroy-divert "$d" >/dev/null; done
	for q in "$u.q1" "$u.q2" "$u.x2" "$u.q3" "$u.s3" "$u.q5" "$u.q5b"; do jexec "$n" destroy-queue "$q" remove-consumers >/dev/null; done
done
done_testing
