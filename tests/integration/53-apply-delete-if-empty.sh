#!/usr/bin/env bash
# delete-if-empty on real brokers (docs/policy.md): queue $u.q declared with
# `delete-if-empty: true`, then removed with its address. Messages sent by
# the distribution's own `artemis producer`:
#   v1  created, applied from the plan folder's declaration: the inventory
#       records the policy with the key's place in cluster.yaml;
#   v2  3 messages on node1: the plan is refused on node1 (HAS_MESSAGES,
#       the count, the key's place in the last applied declaration), node2
#       would delete; nothing is approvable;
#   v3  drained (`artemis consumer`): the plan deletes on both; approved;
#       then 2 messages on node2 before apply: apply refuses node2
#       HAS_MESSAGES with the count, nothing is destroyed there (its
#       messages stay, the audit row says so), node1 deletes; the queue
#       stays managed, with its policy;
#   v4  node2 drained: the delete goes through there too.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t53d-$$
apply_setup "$u"
n1=${NODES[0]}
n2=${NODES[1]}

# client NODE producer|consumer ADDRESS N: the distribution's client sends
# or receives N messages on the anycast queue ADDRESS; prints OK or why not
client() {
	local node=$1 verb=$2 addr=$3 count=$4 cred o extra=()
	cred=$(cat "${CRED[$node]}")
	# a consumer gives up after 5 s without a message, never hangs
	[ "$verb" = consumer ] && extra=(--receive-timeout 5000 --break-on-null)
	o=$("$RUNDIR/$node/bin/artemis" "$verb" --destination "queue://$addr" \
		--url "tcp://localhost:$(broker_port "$node")" \
		--user "${cred%%:*}" --password "${cred#*:}" \
		--message-count "$count" "${extra[@]}" 2>&1)
	if printf '%s' "$o" | grep -qE "(Produced|Consumed): $count messages"; then
		echo OK
	else
		printf '%s\n' "$o" | tail -n 3
	fi
}

keep="  - name: $u.keep
    routing: [anycast]
    queues: [{name: $u.keep}]"
decl "$TMP/c" "addresses:
$keep
  - name: $u.q
    routing: [anycast]
    queues:
      - name: $u.q
        delete-if-empty: true"
# the key's place: the line of `delete-if-empty` in the generated file
line=$(grep -n 'delete-if-empty: true' "$TMP/c/cluster.yaml" | cut -d: -f1)
where="$TMP/c/cluster.yaml:$line:9"
# v1 applied from the plan folder's own declaration (a dump, whose lines
# are not the repository's): the inventory still names the key's place in
# cluster.yaml, as plan.json recorded it
check_exit "v1: plan has changes" 2 plan_to "$TMP/p1" "$TMP/c"
check "v1: approve" approve_ok "$TMP/p1"
check "v1: apply with PLAN_DIR/declaration" "$AG_BIN" apply "$TMP/p1" \
	--state "$STATE" --credentials "$CREDDIR"
check_eq "v1: the inventory records the policy" "delete-if-empty is set ($where)" \
	"$(rj "$STATE/$CL/inventory.json" 'j["delete_if_empty"]["'"$u.q"'"]')"

check_eq "$n1: 3 messages sent by artemis producer" OK "$(client "$n1" producer "$u.q" 3)"
decl "$TMP/c" "addresses:
$keep"
check_exit "v2: the plan is refused" 1 plan_to "$TMP/p2" "$TMP/c"
check_eq "v2: node1 refused HAS_MESSAGES, node2 would delete" \
	'[["REFUSED", "HAS_MESSAGES"], ["WOULD_APPLY", null]]' \
	"$(rj "$TMP/p2/plan.json" '[[n["outcome"], n["refusal"]] for a in j["actions"] if a["kind"] == "delete-queue" for n in a["nodes"]]')"
check_eq "v2: node1's refusal names the count and the setting" \
	"queue '$u.q' holds 3 messages on $n1; delete-if-empty is set ($where) in the last applied declaration" \
	"$(rj "$TMP/p2/plan.json" '[a for a in j["actions"] if a["kind"] == "delete-queue"][0]["nodes"][0]["message"]')"
check_eq "v2: no confirmation" null "$(rj "$TMP/p2/plan.json" 'j["confirmation"]')"

check_eq "$n1: 3 messages received by artemis consumer" OK "$(client "$n1" consumer "$u.q" 3)"
check_exit "v3: drained, the plan deletes" 2 plan_to "$TMP/p3" "$TMP/c"
check_eq "v3: both nodes would delete" '["WOULD_APPLY", "WOULD_APPLY"]' \
	"$(rj "$TMP/p3/plan.json" '[n["outcome"] for a in j["actions"] if a["kind"] == "delete-queue" for n in a["nodes"]]')"
check "v3: approve" approve_ok "$TMP/p3"
check_eq "$n2: 2 messages sent after the approval" OK "$(client "$n2" producer "$u.q" 2)"
check_exit "v3: apply exits 1" 1 apply_to "$TMP/p3" "$TMP/c"
check_eq "v3: node1 APPLIED, node2 REFUSED HAS_MESSAGES" \
	'[["APPLIED", null], ["REFUSED", "HAS_MESSAGES"]]' \
	"$(rj "$TMP/p3/result.json" '[[n["outcome"], n["kind"]] for n in j["nodes"]]')"
check_eq "v3: node2's detail names the count and the setting" true \
	"$(rj "$TMP/p3/result.json" '"queue '"'$u.q'"' holds 2 messages on '"$n2"'; delete-if-empty is set ('"$where"') in the last applied declaration" in j["nodes"][1]["detail"]')"
check_eq "v3: the audit's result row: node2 HAS_MESSAGES, no operation" \
	'["HAS_MESSAGES", []]' \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys
r = json.load(sys.stdin)
print(json.dumps([r["nodes"][1]["kind"], r["nodes"][1]["operations"]]))')"
check_eq "$n1: $u.q is gone" "<absent>" "$(broker_attr "$n1" queues "$u.q" MessageCount)"
check_eq "$n2: its 2 messages are still there" 2 "$(broker_attr "$n2" queues "$u.q" MessageCount)"
check_eq "v3: the inventory keeps $u.q with its policy" "delete-if-empty is set ($where)" \
	"$(rj "$STATE/$CL/inventory.json" 'j["delete_if_empty"]["'"$u.q"'"]')"

check_eq "$n2: 2 messages received by artemis consumer" OK "$(client "$n2" consumer "$u.q" 2)"
converge "v4: drained, the delete goes through" "$TMP/c" "$TMP/p4"
check_eq "$n2: $u.q is gone" "<absent>" "$(broker_attr "$n2" queues "$u.q" MessageCount)"
check_eq "v4: the inventory forgets $u.q and its policy" false \
	"$(rj "$STATE/$CL/inventory.json" '"'"$u.q"'" in j["queues"] or "'"$u.q"'" in j.get("delete_if_empty", {})')"
janitor "$u."
done_testing
