#!/usr/bin/env bash
# Several agents on a real 3-member etcd (issue 21; docs/ha.md): one leader
# works the cluster, the others stand by; kill -9 of the leader hands the
# cluster to a successor within TTL + one poll (measured); a leader paused
# (SIGSTOP) in the middle of an apply, between node1's divert delete and
# its queue delete, past its lease, sends no further request when it is
# continued (counted by an opproxy in front of node1), records the apply
# FAILED naming the divert removed (ADR-0084 D3), and the successor redoes
# nothing; an approval given to a leader that dies before acting is
# carried to the successor for the identical plan, and applied once; etcd
# faults: one member down (the agents go on), quorum lost (nothing is sent
# while it is), quorum back (the approved plan is applied, once).
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t84-$$
daemon_setup t84
. "$AG_TOP/tests/integration/ha-lib.sh"
trap 'etcd_cleanup; janitor "$u."; daemon_cleanup; _brokers_cleanup' EXIT
yaml=$T/work/clusters/t84/cluster.yaml
n1=${NODES[0]}
n2=${NODES[1]}
TTL=5
POLL=1

etcd_setup 3
check_eq "etcd: 3 members" 3 "$(wc -l <"$T/etcd.urls")"

q() { printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$1" "$1"; }
divert() { printf 'diverts:\n  - name: %s\n    address: %s\n    forwarding-address: %s\n    exclusive: false\n' "$1" "$2" "$3"; }
approve_in() {
	"$AG_BIN" approve "$1" --confirm "$(rj "$1/plan.json" 'j["confirmation"]')" \
		--by tester --state "$(dirname "$(dirname "$(dirname "$1")")")"
}
applied_dir() { [ -f "$1/result.json" ]; }
is_leader() { [ "$(leader)" = "$1" ]; }
leader_not() { local l; l=$(leader); [ -n "$l" ] && [ "$l" != "$1" ]; }
has_preview_of() { [ -n "$(ag_preview "$1" "$2")" ]; }
# NODE's diverts do not include NAME (a failed read fails)
no_divert() {
	local f
	f=$(broker_names "$1" diverts) || return 1
	! printf '%s\n' "$f" | grep -qxF -- "$2"
}
logs() { grep -h "$@" "$T"/ag*.log; }

# node1 behind an opproxy that keeps its port when started again
opproxy_start "$n1"
port=${OPX_URL#http://localhost:}
port=${port%%/*}
sed -i "s|${URL[$n1]}|$OPX_URL|" "$yaml"
head_yaml=$(cat "$yaml")

for i in 1 2 3; do ag_conf "$i"; done
check "ag1: its configuration validates" "$AG_BIN" run --config "$T/ag1.yaml" --describe-config

# --- A: one leader, two standbys -------------------------------------------
printf '%s\naddresses:\n%s\n%s\n%s\n' "$head_yaml" "$(q "$u.src")" "$(q "$u.fwd")" \
	"$(divert "$u.d" "$u.src" "$u.fwd")" >"$yaml"
c1=$(daemon_commit "t84: $u.src, $u.fwd, $u.d")
ag_start 1
check "A: ag1 leads" wait_for 30 is_leader ag1
ag_start 2
ag_start 3
check "A: ag1 posts the preview of c1" wait_for 60 has_preview_of 1 "$c1"
check "A: ag2 validated c1 and stands by" wait_for 30 grep -q "commit ${c1:0:12} validated; standing by, owned by agent 'ag1'" "$T/ag2.log"
check "A: ag3 validated c1 and stands by" wait_for 30 grep -q "commit ${c1:0:12} validated; standing by" "$T/ag3.log"
check_eq "A: no preview from a standby" "" "$(ls "$T/state2/outbox/t84" "$T/state3/outbox/t84" 2>/dev/null)"
check_nogrep "A: ag2 planned nothing (no preview line in its log)" "preview /" "$T/ag2.log"
p1=$(ag_preview 1 "$c1")
check "A: approve c1" approve_in "$p1"
check "A: c1 applied by ag1" wait_for 60 applied_dir "$p1"
check_applied "A: every node APPLIED" "$p1"
e1=$(etcd_create_rev leader)
check "A: the epoch is the leader key's create revision ($e1)" test "$e1" -gt 0
check_eq "A: ag1's audit rows carry the epoch" "$e1 $e1" \
	"$(python3 -c 'import json,sys; print(" ".join(str(json.loads(l).get("epoch")) for l in open(sys.argv[1])))' "$T/state1/audit.jsonl")"
check "A: the inventory is in etcd" test -n "$(etcd_get state/t84/inventory.json)"
check_eq "A: etcd holds c1's intent and result rows" "1 1" \
	"$(etcd_audit_rows intent | grep -c .) $(etcd_audit_rows result | grep -c .)"
check_eq "A: the approval, used, is no longer in etcd" "" "$(etcd_keys state/t84/approvals/)"

# kill -9 of the leader: a successor within TTL + one poll
t0=$(date +%s.%N)
ag_kill 1
check "A: a successor leads" wait_for 30 leader_not ""
check "A: ...and takes the cluster over" wait_for 30 grep -q "cluster 't84': taken over" "$T/ag2.log" "$T/ag3.log"
t1=$(date +%s.%N)
s=$(leader)
took=$(python3 -c "print(round($t1 - $t0, 1))")
echo "# takeover after kill -9: ${took}s (lease TTL ${TTL}s + poll ${POLL}s)"
check "A: the takeover took at most TTL + poll + 5s ($took s)" \
	python3 -c "import sys; sys.exit(0 if $took <= $TTL + $POLL + 5 else 1)"
si=${s#ag}
check "A: $s read the audit rows back from etcd" wait_for 10 grep -q '"event":"result"' "$T/state$si/audit.jsonl"
check "A: $s plans c1 again: nothing to do" wait_for 30 grep -q "preview .*${c1:0:12}: NO_CHANGE" "$T/$s.log"

# --- B: the leader paused in the middle of an apply -----------------------
# c2 drops $u.fwd and its divert: node1's destroyDivert is held by the
# proxy; $s is stopped there, the hold released (the divert goes), and
# $s continued once another agent has taken the cluster over.
opproxy_stop
OPPROXY_PORT=$port opproxy_start "$n1" "hold:destroyDivert:$u.d:$T/go"
printf '%s\naddresses:\n%s\n' "$head_yaml" "$(q "$u.src")" >"$yaml"
c2=$(daemon_commit "t84: drop $u.fwd and $u.d")
check "B: $s posts the preview of c2" wait_for 60 has_preview_of "$si" "$c2"
p2=$(ag_preview "$si" "$c2")
check "B: approve c2" approve_in "$p2"
check "B: $s's apply is held at node1's destroyDivert" wait_for 60 grep -q "^hold destroyDivert $u.d\$" "$OPX_LOG"
kill -STOP "${AGPID[$si]}"
touch "$T/go"
check "B: the divert delete reaches node1 (proxy)" wait_for 20 grep -q "^hold destroyDivert $u.d" "$OPX_LOG"
check "B: node1's divert is gone" wait_for 10 no_divert "$n1" "$u.d"
check "B: another agent takes the cluster over while $s is stopped" \
	wait_for 30 leader_not "$s"
s2=$(leader)
s2i=${s2#ag}
check "B: $s2 took over" wait_for 30 grep -q "cluster 't84': taken over" "$T/$s2.log"
mark=$(wc -l <"$OPX_LOG")
kill -CONT "${AGPID[$si]}"
check "B: $s says it lost the cluster" wait_for 30 grep -q "cluster 't84': fenced" "$T/$s.log"
check "B: $s's apply ends (result.json)" wait_for 30 applied_dir "$p2"
sleep 2
check_eq "B: not one request changed node1 after $s was continued" "" \
	"$(mutations "$OPX_LOG" "$mark")"
check_listed "B: node1's queue $u.fwd is still there" "$n1" queues "$u.fwd"
check_grep "B: result.md names node1 FAILED, FENCED" "FENCED" "$p2/result.md"
check_grep "B: ... and the divert removed (ADR-0084 D3)" "$u.d" "$p2/result.md"
check_eq "B: etcd: c2's apply has one intent row and one result row" "1 1" \
	"$(etcd_audit_rows intent "$(rj "$p2/approval.json" 'j["plan_digest"]')" | grep -c .) $(etcd_audit_rows result "$(rj "$p2/approval.json" 'j["plan_digest"]')" | grep -c .)"
check "B: $s2 plans c2 again from the brokers as they are" wait_for 30 has_preview_of "$s2i" "$c2"
p2b=$(ag_preview "$s2i" "$c2")
check "B: ... a new plan: the approval is not carried (another digest)" test ! -e "$p2b/approval.json"
check_eq "B: ... its plan does not delete the divert again on node1 (NO_CHANGE there)" NO_CHANGE \
	"$(rj "$p2b/plan.json" '[n["outcome"] for a in j["actions"] if a["kind"] == "delete-divert" for n in a["nodes"] if n["node"] == "node1"][0]')"
check "B: approve the new plan" approve_in "$p2b"
check "B: $s2 applies it" wait_for 60 applied_dir "$p2b"
check_applied "B: every node APPLIED" "$p2b"
for n in "${NODES[@]}"; do
	check_unlisted "B: $n: $u.fwd gone" "$n" queues "^$u\.fwd\$" DLQ
done

# --- C: an approval carried to a successor ---------------------------------
# The leader dies after keeping the approval in etcd, before its first
# operation reaches a broker (the proxy stalls it and is stopped with it).
opproxy_stop
OPPROXY_PORT=$port opproxy_start "$n1" "stall:createAddress:$u.extra"
printf '%s\naddresses:\n%s\n%s\n' "$head_yaml" "$(q "$u.src")" "$(q "$u.extra")" >"$yaml"
c3=$(daemon_commit "t84: $u.extra")
s3=$(leader)
s3i=${s3#ag}
check "C: $s3 posts the preview of c3" wait_for 60 has_preview_of "$s3i" "$c3"
p3=$(ag_preview "$s3i" "$c3")
check "C: approve c3" approve_in "$p3"
check "C: $s3's createAddress is stalled at node1" wait_for 60 grep -q "^stall createAddress $u.extra" "$OPX_LOG"
ag_kill "$s3i"
opproxy_stop
OPPROXY_PORT=$port opproxy_start "$n1"
check "C: a successor takes over" wait_for 30 leader_not "$s3"
s4=$(leader)
s4i=${s4#ag}
check "C: $s4 carries the approval to its new preview of c3" \
	wait_for 60 grep -q "carries the approval by 'tester'" "$T/$s4.log"
p3b=$(ag_preview "$s4i" "$c3")
check "C: ... and applies it" wait_for 60 applied_dir "$p3b"
check_applied "C: every node APPLIED" "$p3b"
d3=$(rj "$p3b/approval.json" 'j["plan_digest"]')
check_eq "C: the carried approval is the one given to $s3 (approved_at)" \
	"$(rj "$p3/approval.json" 'j["approved_at"]')" "$(rj "$p3b/approval.json" 'j["approved_at"]')"
check_eq "C: ... bound to $s4's own plan.json" "$(sha256sum <"$p3b/plan.json" | cut -d' ' -f1)" "$d3"
check_eq "C: ... written by $s4, carried" carried "$(rj "$p3b/approval.json" 'j["via"]')"
check_eq "C: etcd: one result row for that approval" 1 "$(etcd_audit_rows result "$d3" | grep -c .)"

# --- D: etcd faults ---------------------------------------------------------
"$ETCD" kill 1 >/dev/null
printf '%s\naddresses:\n%s\n%s\n%s\n' "$head_yaml" "$(q "$u.src")" "$(q "$u.extra")" "$(q "$u.more")" >"$yaml"
c4=$(daemon_commit "t84: $u.more")
check "D: one etcd member down: c4 is still planned" wait_for 60 has_preview_of "$s4i" "$c4"
p4=$(ag_preview "$s4i" "$c4")
"$ETCD" kill 2 >/dev/null
mark=$(wc -l <"$OPX_LOG")
check "D: quorum lost: approve c4" approve_in "$p4"
sleep $((TTL + 2))
check_eq "D: nothing changed node1 while the quorum was lost" "" "$(mutations "$OPX_LOG" "$mark")"
check "D: ... c4 not applied" test ! -e "$p4/result.json"
check_unlisted "D: ... $u.more not created on node2" "$n2" queues "^$u\.more\$" DLQ
"$ETCD" start 1 >/dev/null
"$ETCD" start 2 >/dev/null
check "D: quorum back: a leader" wait_for 30 leader_not ""
done_c4() { local i d; for i in 1 2 3; do d=$(ag_preview "$i" "$c4"); [ -n "$d" ] && [ -f "$d/result.json" ] && return 0; done; return 1; }
# the leader after the outage applies the approved plan: its own preview,
# or its new one when it is another agent (then approved again, since the
# approval could not be kept in etcd during the outage)
if ! wait_for 40 done_c4; then
	s5=$(leader)
	p4b=$(ag_preview "${s5#ag}" "$c4")
	[ -z "$p4b" ] || [ -e "$p4b/approval.json" ] || approve_in "$p4b" >/dev/null
fi
check "D: quorum back: c4 applied" wait_for 60 done_c4
check_listed "D: $u.more on node2" "$n2" queues "$u.more"
check_eq "D: etcd: one result row for c4" 1 \
	"$(for i in 1 2 3; do d=$(ag_preview "$i" "$c4"); [ -f "$d/result.json" ] && etcd_audit_rows result "$(rj "$d/approval.json" 'j["plan_digest"]')"; done | sort -u | grep -c .)"
check_eq "every apply result row in etcd is one of a distinct approval" \
	"$(etcd_audit_rows result | python3 -c 'import json,sys; print(len([json.loads(l)["plan_digest"] for l in sys.stdin]))')" \
	"$(etcd_audit_rows result | python3 -c 'import json,sys; print(len({json.loads(l)["plan_digest"] for l in sys.stdin}))')"
check_eq "no agent crashed" "" "$(grep -l "AddressSanitizer\|runtime error" "$T"/ag*.log 2>/dev/null)"
done_testing
