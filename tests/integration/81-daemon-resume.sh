#!/usr/bin/env bash
# The daemon resumes an apply it was killed in (issue 14; docs/audit.md
# "Resuming an interrupted apply"; docs/daemon.md): an approved preview
# is applied by the daemon; opproxy holds node1's destroyQueue after its
# divert was removed (node2, run at the same time, finishes), and the
# daemon is killed with kill -9 there. Started
# again, the daemon finds the preview (approved, no result) and resumes the
# interrupted apply through agent_apply_plan_run, with no new approval:
# node1's divert is recorded as done by the interrupted apply, the rest
# runs, one result row closes it, and the brokers and the inventory are at
# the plan's end.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t81-$$
daemon_setup t81
STATE=$T/state
trap 'janitor "$u."; daemon_cleanup; _brokers_cleanup' EXIT
yaml=$T/work/clusters/t81/cluster.yaml
n1=${NODES[0]}
n2=${NODES[1]}

applied() { local d; d=$(preview_of "$1"); [ -n "$d" ] && [ -f "$d/result.json" ]; }
approve_preview() {
	"$AG_BIN" approve "$1" --confirm "$(rj "$1/plan.json" 'j["confirmation"]')" \
		--by tester --state "$STATE"
}
q() { printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$1" "$1"; }

# node1 behind an opproxy, on a port it keeps when started again
opproxy_start "$n1"
port=${OPX_URL#http://localhost:}
port=${port%%/*}
sed -i "s|${URL[$n1]}|$OPX_URL|" "$yaml"
head_yaml=$(cat "$yaml")

printf '%s\naddresses:\n%s\n%s\n' "$head_yaml" "$(q "$u.src")" "$(q "$u.fwd")" >"$yaml"
c1=$(daemon_commit "t81: $u.src, $u.fwd")
daemon_start
check "preview of c1" wait_for 60 has_preview "$c1"
p1=$(preview_of "$c1")
check "c1: approve" approve_preview "$p1"
check "c1: applied by the daemon" wait_for 60 applied "$c1"
check_applied "c1: every node APPLIED" "$p1"
for n in "${NODES[@]}"; do
	check_eq "$n: runtime divert" OK "$(jexec "$n" create-divert "$u.d1" "$u.src" "$u.fwd" routing-type=ANYCAST)"
done

# c2 drops $u.fwd; node1's destroyQueue is held, the daemon killed there.
opproxy_stop
OPPROXY_PORT=$port opproxy_start "$n1" "hold:destroyQueue:$u.fwd:$T/never"
printf '%s\naddresses:\n%s\n' "$head_yaml" "$(q "$u.src")" >"$yaml"
c2=$(daemon_commit "t81: drop $u.fwd")
check "preview of c2" wait_for 60 has_preview "$c2"
p2=$(preview_of "$c2")
check "c2: approve" approve_preview "$p2"
check "c2: the daemon's apply is held at node1's destroyQueue" \
	wait_for 60 grep -q "^hold destroyQueue $u.fwd\$" "$OPX_LOG"
# the nodes run at once: node2 finishes while node1 is held
n2_done() { ! broker_names "$n2" addresses | grep -qxF "$u.fwd"; }
check "c2: meanwhile node2 ran all its operations" wait_for 60 n2_done
kill -9 "$PID"
wait "$PID" 2>/dev/null
PID=
opproxy_stop
check "c2: no result for the killed apply" test ! -e "$p2/result.json"
check "c2: its apply-begun file (written before the intent row)" test -s "$p2/apply-begun"
cp "$STATE/t81/inventory.json" "$T/inventory-before-c2.json"
check_eq "node1: a sentinel divert on $u.src" OK "$(sentinel_on "$n1" "$u.src")"
check_unlisted "node1: the divert was removed before the kill" "$n1" diverts "^$u\.d1\$" "$u.src.sentinel"
check_eq "node1: the sentinel divert removed" OK "$(sentinel_off "$n1" "$u.src")"
check_listed "node1: its queue is still there" "$n1" queues "$u.fwd"

# A commit lands while the daemon is down: planned first when it starts,
# it supersedes older previews, but not one whose apply has begun.
printf '%s\naddresses:\n%s\n%s\n' "$head_yaml" "$(q "$u.src")" "$(q "$u.extra")" >"$yaml"
c3=$(daemon_commit "t81: $u.extra")

# Started again (node1's proxy back on its port, holding nothing): resumed.
OPPROXY_PORT=$port opproxy_start "$n1"
daemon_start
check "preview of c3" wait_for 60 has_preview "$c3"
check "c2: the daemon resumes and finishes it" wait_for 60 applied "$c2"
check "c2: not superseded by c3 (its apply had begun)" test ! -e "$p2/superseded"
check "c2: no approval-refused.txt" test ! -e "$p2/approval-refused.txt"
check_applied "c2: every node APPLIED" "$p2"
check_eq "c2: node1's operations" \
	'[["destroyDivert", "DONE", "resume-read"], ["destroyQueue", "DONE", null], ["deleteAddress", "DONE", null]]' \
	"$(rj "$p2/result.json" '[[o["op"], o["outcome"], o.get("established")] for o in j["nodes"][0]["operations"]]')"
check_eq "c2: node2's operations, all done by the interrupted apply (the nodes ran at once)" \
	'[["destroyDivert", "DONE", "resume-read"], ["destroyQueue", "DONE", "resume-read"], ["deleteAddress", "DONE", "resume-read"]]' \
	"$(rj "$p2/result.json" '[[o["op"], o["outcome"], o.get("established")] for o in j["nodes"][1]["operations"]]')"
digest=$(sha256sum <"$p2/plan.json" | cut -d' ' -f1)
check_eq "c2: the audit: the interrupted intent, the resuming intent and one result, linked" \
	"intent - | intent A | result A" \
	"$(python3 - "$STATE/audit.jsonl" "$digest" <<'PY'
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["plan_digest"] == sys.argv[2]]
first = rows[0]["apply_id"]
print(" | ".join("%s %s" % (r["event"], "A" if r.get("resumes") == first else "-") for r in rows))
PY
)"
check_eq "c2: the approval is the operator's, not a new one" tester "$(rj "$p2/result.json" 'j["approver"]')"
for n in "${NODES[@]}"; do
	check_unlisted "$n: $u.fwd is gone" "$n" queues "^$u\.fwd\$" "$u.src"
	check_eq "$n: a sentinel divert on $u.src" OK "$(sentinel_on "$n" "$u.src")"
	check_unlisted "$n: $u.d1 is gone" "$n" diverts "^$u\.d1\$" "$u.src.sentinel"
	check_eq "$n: the sentinel divert removed" OK "$(sentinel_off "$n" "$u.src")"
done
check_eq "the inventory is the plan's end" '[false, false, true]' \
	"$(rj "$STATE/t81/inventory.json" '["'"$u.fwd"'" in j["queues"], "'"$u.fwd"'" in j["addresses"], "'"$u.src"'" in j["queues"]]')"
check_grep "log: the resumed apply" "notice approve: applied $p2: every node APPLIED or SKIPPED" "$T/agent.log"

# As if killed after its result row, before the inventory and the result
# files: the daemon completes the record (the inventory from the nodes,
# result.json the marker) and says so, a notice, not a refusal.
cp "$T/inventory-before-c2.json" "$STATE/t81/inventory.json.new"
mv "$STATE/t81/inventory.json.new" "$STATE/t81/inventory.json"
rm "$p2/result.json" "$p2/result.md"
check "c2: the record completed (result.json written again)" wait_for 60 test -f "$p2/result.json"
check_eq "c2: result.json is the marker" RECORDED "$(rj "$p2/result.json" 'j["audit"]')"
check "c2: still no approval-refused.txt" test ! -e "$p2/approval-refused.txt"
check_eq "the inventory is the plan's end again" '[false, false, true]' \
	"$(rj "$STATE/t81/inventory.json" '["'"$u.fwd"'" in j["queues"], "'"$u.fwd"'" in j["addresses"], "'"$u.src"'" in j["queues"]]')"
check_grep "log: the record completed, as a notice" "notice approve: $p2: the plan was already applied" "$T/agent.log"
daemon_stop
check_eq "the daemon exits 0" 0 "$RC"
opproxy_stop
done_testing
