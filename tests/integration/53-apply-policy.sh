#!/usr/bin/env bash
# The per-object policy (issue 20 item 3, docs/policy.md) on real brokers:
# a queue with deletion-policy: retain removed from the declaration stays
# on both brokers, with its messages, and leaves inventory.json; a removed
# file whose queue a settings.protect pattern covers is refused as a
# whole, even by the commit that drops the pattern too, and the pattern
# dropped alone is an approvable policy plan (NO_CHANGE) whose apply lets
# the next commit delete the queue on both brokers; an object
# declared with managed: false is never created, changed or drift,
# whatever is done to it on a broker: the daemon's drift report lists it
# apart, never as drift; and auto-apply-creates applies a commit that only
# adds a pattern, never one that only drops it.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
brokers_setup
u=t53p-$$
apply_setup "$u"
n1=${NODES[0]}
n2=${NODES[1]}
trap 'janitor "$u."; _brokers_cleanup' EXIT

keep="  - name: $u.keep
    routing: [anycast]
    queues: [{name: $u.keep}]"
retained="  - name: $u.r
    routing: [anycast]
    queues:
      - name: $u.r
        deletion-policy: retain"
legacy="  - name: $u.legacy
    routing: [anycast]
    managed: false
    queues: [{name: $u.legacy}]"
mkdir -p "$TMP/c"
decl "$TMP/c" "settings:
  protect: [\"$u.p*\"]
addresses:
$keep
$retained
$legacy"
printf 'version: 1\naddresses:\n  - name: %s.p\n    routing: [anycast]\n    queues: [{name: %s.p}]\n' \
	"$u" "$u" >"$TMP/c/protected.yaml"
converge "v1" "$TMP/c" "$TMP/p1"
check_eq "v1 creates keep, r and p, never the unmanaged legacy" \
	"[\"$u.keep\", \"$u.p\", \"$u.r\"]" \
	"$(rj "$TMP/p1/plan.json" 'sorted({a["name"] for a in j["actions"] if a["kind"] == "create-queue"})')"
check_eq "the inventory records the retained queue and the pattern" \
	"[[\"$u.r\"], [\"$u.p*\"], false]" \
	"$(rj "$STATE/$CL/inventory.json" '[j["retain"]["queues"], j["protect"], "'"$u.legacy"'" in j["queues"]]')"
check_eq "$n1: a message on the retained queue" OK "$(produce "$n1" "$u.r")"

# the unmanaged queue made by hand on node1 only, unlike its declaration
check_eq "$n1: address $u.legacy made by hand" OK \
	"$(jexec "$n1" create-address "$u.legacy" anycast)"
check_eq "$n1: queue $u.legacy made by hand" OK \
	"$(jexec "$n1" create-queue "$u.legacy" "$u.legacy" anycast max-consumers=5)"
check_exit "drift: nothing to do for the unmanaged queue" 0 plan_to "$TMP/d1" "$TMP/c"
check_eq "drift: no action, listed as unmanaged by declaration" \
	"[[], [[\"address\", \"$u.legacy\", [\"$n1\"]], [\"queue\", \"$u.legacy\", [\"$n1\"]]]]" \
	"$(rj "$TMP/d1/plan.json" '[j["actions"], [[x["kind"], x["name"], x["nodes"]] for x in j["policy"]["unmanaged_by_declaration"]]]')"
check_grep "drift: plan.md says so" "Unmanaged by declaration" "$TMP/d1/plan.md"

# the file of the protected queue removed, and the pattern with it
rm "$TMP/c/protected.yaml"
decl "$TMP/c" "addresses:
$keep
$retained
$legacy"
check_exit "v2: the removed file is refused" 1 plan_to "$TMP/p2" "$TMP/c"
check_eq "v2: PROTECTED, naming the queue and the pattern" \
	"[\"PROTECTED\", \"queue\", \"$u.p\", \"$u.p*\"]" \
	"$(rj "$TMP/p2/plan.json" '[j["refusal"], j["policy"]["protected"][0]["kind"], j["policy"]["protected"][0]["name"], j["policy"]["protected"][0]["pattern"]]')"
check_fails "v2: a refused plan cannot be approved" approve_ok "$TMP/p2"

# the retained queue removed (the protected one declared again, and its
# pattern): forgotten
printf 'version: 1\naddresses:\n  - name: %s.p\n    routing: [anycast]\n    queues: [{name: %s.p}]\n' \
	"$u" "$u" >"$TMP/c/protected.yaml"
decl "$TMP/c" "settings:
  protect: [\"$u.p*\"]
addresses:
$keep
$legacy"
check_exit "v3: only forgets (nothing sent to a broker)" 0 plan_to "$TMP/p3" "$TMP/c"
check_eq "v3: no action; the queue and its address forgotten" \
	"[[], [[\"queue\", \"$u.r\"], [\"address\", \"$u.r\"]]]" \
	"$(rj "$TMP/p3/plan.json" '[j["actions"], [[f["kind"], f["name"]] for f in j["policy"]["forgotten"]]]')"
check "v3: approve" approve_ok "$TMP/p3"
check "v3: apply" apply_to "$TMP/p3" "$TMP/c"
for n in "$n1" "$n2"; do
	check_listed "$n: the retained queue stays" "$n" queues "$u.r"
done
check_eq "$n1: its message stays" 1 \
	"$(broker_read "$n1" "org.apache.activemq.artemis:broker=\"$n1\",component=addresses,address=\"$u.r\",subcomponent=queues,routing-type=\"anycast\",queue=\"$u.r\"" MessageCount)"
check_eq "the inventory forgot it, and its address; still retained" \
	"[false, false, [\"$u.r\"]]" \
	"$(rj "$STATE/$CL/inventory.json" '["'"$u.r"'" in j["queues"], "'"$u.r"'" in j["addresses"], j["retain"]["queues"]]')"
check_exit "v4: the cluster is as declared" 0 plan_to "$TMP/p4" "$TMP/c"
check_eq "v4: the forgotten queue is an unmanaged one now" true \
	"$(rj "$TMP/p4/plan.json" '["queue", "'"$u.r"'"] in [[x["kind"], x["name"]] for x in j["unmanaged"]]')"
check_eq "v4: the hand-made unmanaged queue is still as made" 5 \
	"$(broker_read "$n1" "org.apache.activemq.artemis:broker=\"$n1\",component=addresses,address=\"$u.legacy\",subcomponent=queues,routing-type=\"anycast\",queue=\"$u.legacy\"" MaxConsumers)"

# The pattern removed alone: nothing to send to a broker, but a plan that
# lifts it, approvable; applied, the inventory no longer holds it, and the
# protected queue's removal is then a delete on both brokers.
decl "$TMP/c" "addresses:
$keep
$legacy"
check_exit "v5: the pattern removed alone" 0 plan_to "$TMP/p5" "$TMP/c"
check_eq "v5: NO_CHANGE, no action, one policy change lifting the pattern" \
	"[\"NO_CHANGE\", [], [[\"settings.protect\", \"$u.p*\", \"present\", \"absent\", true]]]" \
	"$(rj "$TMP/p5/plan.json" '[j["outcome"], j["actions"], [[c["setting"], c["name"], c["from"], c["to"], c["lifts"]] for c in j["policy"]["changes"]]]')"
check_grep "v5: plan.md's headline says it lifts protection" \
	"^# $CL: NO_CHANGE — nothing sent to a broker; LIFTS PROTECTION" "$TMP/p5/plan.md"
check_grep "v5: and what the apply allows next" \
	"removing one of queue '$u.p', address '$u.p' from the declaration deletes it" "$TMP/p5/plan.md"
check "v5: approve" approve_ok "$TMP/p5"
check "v5: apply" apply_to "$TMP/p5" "$TMP/c"
check_eq "v5: the inventory holds no pattern; the result row counts the change" \
	"[false, 1]" \
	"$(rj "$STATE/$CL/inventory.json" '["protect" in j, [json.loads(l) for l in open("'"$STATE"'/audit.jsonl")][-1].get("policy_changes")]')"
check_exit "v5: planned again, nothing is left to approve" 0 plan_to "$TMP/p5b" "$TMP/c"
check_eq "v5: as declared, no policy change" "[\"NO_CHANGE\", null]" \
	"$(rj "$TMP/p5b/plan.json" '[j["outcome"], j["confirmation"]]')"
rm "$TMP/c/protected.yaml"
converge "v6: the unprotected queue removed" "$TMP/c" "$TMP/p6"
check_eq "v6: deletes its queue and address" \
	"[\"delete-address:$u.p\", \"delete-queue:$u.p\"]" \
	"$(rj "$TMP/p6/plan.json" 'sorted(a["kind"] + ":" + a["name"] for a in j["actions"])')"
for n in "$n1" "$n2"; do
	check_unlisted "$n: $u.p deleted" "$n" queues "$u.p" "$u.keep"
done

# The daemon: a commit declaring the hand-made queue managed: false (and a
# queue of its own); `run --once` auto-applies the create and checks drift.
daemon_setup "$u-d"
trap 'daemon_cleanup; janitor "$u."; _brokers_cleanup' EXIT
echo "auto-apply-creates: true" >>"$T/agent.yaml"
cat >>"$T/work/clusters/$CLUSTER/cluster.yaml" <<EOF
addresses:
  - name: $u.d
    routing: [anycast]
    queues: [{name: $u.d}]
  - name: $u.legacy
    routing: [anycast]
    managed: false
    queues: [{name: $u.legacy}]
EOF
daemon_commit "$u: a queue, and one left alone" >/dev/null
RC=0
"$AG_BIN" run --config "$T/agent.yaml" --once 2>"$T/once.log" || RC=$?
check_eq "daemon: run --once applied the create and checked drift" 0 "$RC"
check_listed "$n2: the daemon created $u.d" "$n2" queues "$u.d"
check_unlisted "$n2: never $u.legacy" "$n2" queues "$u.legacy" "$u.d"
dj=$T/state/outbox/$CLUSTER/drift/drift.json
check_eq "drift.json: unmanaged by declaration; not missing, changed nor unmanaged" \
	"[[[\"address\", \"$u.legacy\", [\"$n1\"]], [\"queue\", \"$u.legacy\", [\"$n1\"]]], false]" \
	"$(rj "$dj" '[[[x["kind"], x["name"], x["nodes"]] for x in j["unmanaged_by_declaration"]], "'"$u.legacy"'" in [x["name"] for k in ("missing", "changed", "unmanaged") for x in j[k]]]')"
check_grep "drift.md: listed apart" "Unmanaged by declaration \(managed: false; never drift, never repaired\)" \
	"$T/state/outbox/$CLUSTER/drift/drift.md"

# The daemon's auto-apply-creates: a commit that only adds a pattern is
# applied unapproved (more protection), one that only drops it never is.
printf 'version: 1\nsettings:\n  protect: ["%s.d*"]\n' "$u" >"$T/work/clusters/$CLUSTER/policy.yaml"
daemon_commit "$u: protect $u.d*" >/dev/null
RC=0
"$AG_BIN" run --config "$T/agent.yaml" --once 2>"$T/once2.log" || RC=$?
check_eq "daemon: a pattern added alone is auto-applied" "0 [\"$u.d*\"]" \
	"$RC $(rj "$T/state/$CLUSTER/inventory.json" 'j.get("protect")')"
check_grep "daemon: the log says why" "only adopts or forgets objects or adds protection" "$T/once2.log"
rm "$T/work/clusters/$CLUSTER/policy.yaml"
daemon_commit "$u: drop the pattern" >/dev/null
RC=0
"$AG_BIN" run --config "$T/agent.yaml" --once 2>"$T/once3.log" || RC=$?
check_eq "daemon: the pattern dropped alone is never auto-applied: the inventory keeps it" \
	"0 [\"$u.d*\"]" "$RC $(rj "$T/state/$CLUSTER/inventory.json" 'j.get("protect")')"
check_absent "daemon: no auto-apply of a lift" "auto-apply-creates" "$T/once3.log" 'loop: --once'
lp=$(sed -n "s/.*cluster '$CLUSTER': preview \([^:]*\): .*/\1/p" "$T/once3.log" | tail -1)
check_eq "daemon: its preview waits for an approval, lifting protection" \
	"[\"NO_CHANGE\", true, true]" \
	"$(rj "$lp/plan.json" '[j["outcome"], j["policy"]["changes"][0]["lifts"], j["confirmation"].startswith("update policy (1 change, 1 lifting protection) on ")]')"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/once.log" 'loop: --once'
check_absent "no sanitizer report (policy commits)" 'ERROR: (Address|Leak)Sanitizer|runtime error' \
	"$T/once2.log" 'loop: --once'
done_testing
