#!/usr/bin/env bash
# The capture pass of the daemon's drift cycle (issue 8 item 2; ADR-0084
# decision 5; docs/captures.md): with a capture declared and applied (by
# auto-apply-creates: a capture and its taps are creates), a queue that the
# capture's pattern matches, created behind the agent's back on a new
# address on both nodes, gets its tap at the next drift cycle (SIGUSR1),
# with one audit row for the pass and one log line; a cycle with nothing to
# do writes no row; the queue deleted behind the agent's back loses its tap
# at the next cycle. The drift report never lists a tap.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t74-$$
daemon_setup t74
STATE=$T/state
cap=c$$
ring=__capture.$cap
tap_a=$ring.$u.a
tap_b=$ring.$u.b
trap 'janitor "$u"; janitor "$ring"; daemon_cleanup; _brokers_cleanup' EXIT
echo "auto-apply-creates: true" >>"$T/agent.yaml"

# jol NODE OPERATION ARGS_JSON: exec on the broker's MBean; OK or the reply
jol() {
	local r
	r=$("$ARTEMIS" jolokia "$1" "{\"type\":\"exec\",\"mbean\":\"org.apache.activemq.artemis:broker=\\\"$1\\\"\",\"operation\":\"$2\",\"arguments\":$3}")
	case $r in *'"status":200'*) echo OK ;; *) echo "$r" ;; esac
}
# pass_rows: the audit rows of the capture pass, one per line
pass_rows() {
	python3 - "$STATE/audit.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    row = json.loads(line)
    if row.get("approver") == "artemis-gitops (capture pass)":
        print(json.dumps(row, sort_keys=True))
PY
}
# npass: how many; "unreadable" when the audit log cannot be read (so that
# a failed read never counts as no row)
npass() {
	local rows
	rows=$(pass_rows) || {
		echo unreadable
		return 0
	}
	printf '%s' "$rows" | grep -c '^{'
}
# row_ops N NODE_INDEX: act:op:name:outcome of pass row N (1-based)
row_ops() {
	pass_rows | sed -n "${1}p" | python3 -c "
import json, sys
j = json.load(sys.stdin)
print(json.dumps([o['act'] + ':' + o['op'] + ':' + o['name'] + ':' + o['outcome'] for o in j['nodes'][$2]['operations']]))"
}
has_divert() { broker_names "$1" diverts | grep -qx "$2"; }
# NODE NAME: NAME is not listed, in a read that succeeded and lists the
# declared tap $tap_a (there all along), so a failed read is no absence.
no_divert() {
	local f=$T/diverts.$RANDOM
	broker_names "$1" diverts >"$f" || return 1
	grep -qx -- "$tap_a" "$f" || { echo "the listing lacks $tap_a"; return 1; }
	! grep -qx -- "$2" "$f"
}
reports_gt() { test "$(grep -c 'drift.md)' "$T/agent.log")" -gt "$1"; }
usr1_drift() { # wait for the next drift report after SIGUSR1
	local before
	before=$(grep -c 'drift.md)' "$T/agent.log")
	kill -USR1 "$PID"
	wait_for 60 reports_gt "$before"
}
applied() { local d; d=$(preview_of "$1"); [ -n "$d" ] && [ -f "$d/result.json" ]; }

cat >"$T/work/clusters/t74/objects.yaml" <<EOY
version: 1
addresses:
  - name: $u.a
    routing: [anycast]
    queues: [{name: $u.qa}]
captures:
  - name: $cap
    pattern: "$u.q*"
    ring-size: 10
EOY
c1=$(daemon_commit "t74: a queue and a capture")
daemon_start
check "the commit is auto-applied (creates only)" \
	wait_for 90 applied "$c1"
p1=$(preview_of "$c1")
check_applied "the auto-apply: every node APPLIED" "$p1"
check_grep "the plan holds the tap" "create-tap \`$tap_a\`" "$p1/plan.md"
for i in 0 1; do
	check "${NODES[$i]}: the applied tap exists" has_divert "${NODES[$i]}" "$tap_a"
done
check "first drift check done" wait_for 60 grep -q 'drift.md)' "$T/agent.log"
check_grep "the audit log holds the auto-apply's result row" '"event":"result"' "$STATE/audit.jsonl"
check_eq "no capture pass row after the apply (nothing to do)" 0 "$(npass)"

# A matching queue on a new address, behind the agent's back.
for n in "${NODES[@]}"; do
	check_eq "$n: address $u.b created through Jolokia" OK \
		"$(jol "$n" 'createAddress(java.lang.String,java.lang.String)' "[\"$u.b\",\"ANYCAST\"]")"
	check_eq "$n: queue $u.qb created through Jolokia" OK \
		"$(jol "$n" 'createQueue(java.lang.String)' "[\"{\\\"name\\\":\\\"$u.qb\\\",\\\"address\\\":\\\"$u.b\\\",\\\"routing-type\\\":\\\"ANYCAST\\\",\\\"durable\\\":true,\\\"auto-create-address\\\":false}\"]")"
	check "$n: no tap yet" no_divert "$n" "$tap_b"
done
check "drift cycle after SIGUSR1" usr1_drift
for i in 0 1; do
	check "${NODES[$i]}: the pass created the tap on $u.b" has_divert "${NODES[$i]}" "$tap_b"
done
check_eq "one audit row for the pass" 1 "$(npass)"
for i in 0 1; do
	check_eq "${NODES[$i]}: the row holds the tap's create" \
		"[\"create-tap:createDivert:$tap_b:DONE\"]" "$(row_ops 1 $i)"
done
check_eq "the row: a result row of the applied revision, every node APPLIED" \
	"result $c1 0 [\"APPLIED\", \"APPLIED\"]" \
	"$(pass_rows | sed -n 1p | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["event"], j["revision"], j["exit"], json.dumps([n["outcome"] for n in j["nodes"]]))')"
check_grep "one log line for the pass" "notice capture: cluster 't74': capture pass: node '${NODES[0]}' APPLIED: create-tap '$tap_b'; node '${NODES[1]}' APPLIED: create-tap '$tap_b' \\(audit row [0-9TZ:-]+-[0-9a-f]{16}\\)" "$T/agent.log"
check_eq "the log line is written once" 1 "$(grep -c "capture pass: node" "$T/agent.log")"
d=$STATE/outbox/t74/drift
check_grep "the drift report lists the new queue as unmanaged" "\"name\": \"$u.qb\"" "$d/drift.json"
check_absent "the drift report lists no tap" "__capture" "$d/drift.json" "\"name\": \"$u.qb\""
check_absent "drift.md lists no tap" "__capture" "$d/drift.md" "$u\.qb"

# Nothing to do: no row.
check "drift cycle with nothing to do" usr1_drift
check_eq "still one audit row" 1 "$(npass)"

# The queue deleted behind the agent's back: its tap goes.
for n in "${NODES[@]}"; do
	check_eq "$n: queue $u.qb destroyed through Jolokia" OK \
		"$(jol "$n" 'destroyQueue(java.lang.String)' "[\"$u.qb\"]")"
	check "$n: the tap is still there before the cycle" has_divert "$n" "$tap_b"
done
check "drift cycle after the delete" usr1_drift
for i in 0 1; do
	check "${NODES[$i]}: the pass removed the tap on $u.b" no_divert "${NODES[$i]}" "$tap_b"
	check "${NODES[$i]}: the declared tap stays" has_divert "${NODES[$i]}" "$tap_a"
done
check_eq "a second audit row" 2 "$(npass)"
for i in 0 1; do
	check_eq "${NODES[$i]}: the row holds the tap's destroy" \
		"[\"delete-tap:destroyDivert:$tap_b:DONE\"]" "$(row_ops 2 $i)"
done
check_grep "log line of the removal" "notice capture: cluster 't74': capture pass: node '${NODES[0]}' APPLIED: delete-tap '$tap_b'" "$T/agent.log"

daemon_stop
check_eq "exit 0" 0 "$RC"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'notice loop: signal 15: stopping'
done_testing
