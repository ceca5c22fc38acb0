#!/usr/bin/env bash
# Outages while the agent runs, and no restart of the agent: a broker is
# stopped, a commit is planned with that node UNREACHABLE and replanned
# with backoff until the broker is back, then the new preview supersedes
# the partial one; the git repository disappears and comes back, the
# fetch failures are logged with their backoff and the next commit is
# planned. A history rewrite (force-push) is reported and never applied.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
run=${ARTEMIS_RUN_DIR:-$AG_TOP/.run/artemis}
node2=$(awk 'NR==2{print $1}' "$AG_NODES_FILE")
pidfile=$run/$node2/data/gitops.pid
check "the suite started $node2 (pid file)" test -s "$pidfile"
daemon_setup t72
u=$RANDOM$RANDOM # fresh names: the suite's brokers keep what earlier runs made
printf "version: 1\n" >"$T/work/clusters/t72/addresses.yaml"
echo "addresses: [{name: t72.a$u, routing: [anycast], queues: [{name: t72.q$u}]}]" >>"$T/work/clusters/t72/addresses.yaml"
sed -i 's/^credentials:/auto-apply-creates: true\ncredentials:/' "$T/agent.yaml"
c1=$(daemon_commit "t72: one queue")
daemon_start
check "c1 previewed" wait_for 60 has_preview "$c1"
nodes=$(awk 'NF { print $1 }' "$AG_NODES_FILE")
applied() { p=$(preview_of "$c1"); [ -f "$p/result.json" ]; }
check "c1 auto-applied (creates only): a result" wait_for 90 applied
p1=$(preview_of "$c1")
check_applied "c1 auto-applied: every node APPLIED" "$p1"
for n in $nodes; do
	check_listed "c1 auto-applied: $n has t72.q$u" "$n" queues "t72.q$u"
done
agent=$PID

# A broker goes away.
bpid=$(cat "$pidfile")
kill -KILL "$bpid"
wait_for 30 sh -c "! kill -0 $bpid"
printf "version: 1\n" >"$T/work/clusters/t72/addresses.yaml"
echo "addresses: [{name: t72.a$u, routing: [anycast], queues: [{name: t72.q$u}, {name: t72.r$u}]}]" >>"$T/work/clusters/t72/addresses.yaml"
c2=$(daemon_commit "t72: a second queue")
check "c2 previewed while $node2 is down" wait_for 90 has_preview "$c2"
p2=$(preview_of "$c2")
check_grep "c2 preview: $node2 unreachable" "\\| $node2 \\| - \\| (UNREACHABLE|TIMEOUT)" "$p2/plan.md"
check_grep "log: node unreadable warning" "warning cycle: cluster 't72': node '$node2': (UNREACHABLE|TIMEOUT)" "$T/agent.log"
# (logged once the preview is posted: waited for, not raced)
check "log: replan with backoff" wait_for 20 grep -qE "warning cycle: cluster 't72': 1 node\\(s\\) unreadable, planning again in [0-9]+s" "$T/agent.log"
check "replanned at least once while down" wait_for 30 grep -q "info cycle: cluster 't72': planning commit ${c2:0:12} again" "$T/agent.log"
# The auto-apply decision on the partial preview came in the cycle that
# posted it, before the replan: none was made.
check_absent "partial preview not auto-applied (log)" "auto-apply-creates: $p2 " "$T/agent.log" "cluster 't72': preview $p2: "
check "partial preview not auto-applied (no approval, no result)" test ! -e "$p2/approval.json" -a ! -e "$p2/result.json"

# The broker comes back (scripts/artemis up starts only stopped nodes).
ARTEMIS_START_TIMEOUT=180 scripts/artemis up "$(wc -l <"$AG_NODES_FILE")" >/dev/null 2>"$T/up.log"
check "$node2 restarted" wait_for 60 sh -c "scripts/artemis status | grep -q '^$node2 running'"
last() { preview_of "$c2"; }
whole() { p=$(last); [ "$p" != "$p2" ] && grep -qE "^\\| $node2 \\| [0-9.]+ \\| ok \\|" "$p/plan.md"; }
check "a full preview of c2 once $node2 is back" wait_for 120 whole
p2b=$(last)
check "the partial preview is superseded" test -f "$p2/superseded"
check "the full preview was auto-applied: a result" wait_for 60 test -f "$p2b/result.json"
check_applied "the full preview was auto-applied: every node APPLIED" "$p2b"
for n in $nodes; do
	check_listed "the full preview was auto-applied: $n has t72.r$u" "$n" queues "t72.r$u"
done
check_eq "the same agent process" "$agent" "$PID"
check "agent alive" kill -0 "$PID"

# Git goes away and comes back.
mv "$T/origin.git" "$T/origin.away"
check "fetch failure logged with backoff" wait_for 30 grep -qE "warning cycle: git: .*retrying in [0-9]+s" "$T/agent.log"
mv "$T/origin.away" "$T/origin.git"
echo "# touched" >>"$T/work/clusters/t72/addresses.yaml"
c3=$(daemon_commit "t72: after the git outage")
check "c3 planned after git is back" wait_for 60 has_preview "$c3"

# A history rewrite: reported, previewed, never applied without approval.
git -C "$T/work" reset -q --hard HEAD~1
printf "version: 1\n" >"$T/work/clusters/t72/addresses.yaml"
echo "addresses: [{name: t72.a$u, routing: [anycast], queues: [{name: t72.q$u}, {name: t72.r$u}, {name: t72.s$u}]}]" >>"$T/work/clusters/t72/addresses.yaml"
c4=$(daemon_commit "t72: rewritten history")
check "c4 previewed" wait_for 60 has_preview "$c4"
p4=$(preview_of "$c4")
check_grep "log: rewrite reported as err" "err cycle: history of branch 'main' rewritten: ${c4:0:12} does not descend from ${c3:0:12}" "$T/agent.log"
# plan.md appears first; the rewrite file follows in the same cycle
check "rewrite file in the preview" wait_for 10 test -s "$p4/history-rewrite.txt"
check_grep "rewrite file names both commits" "commit $c4 does not descend from $c3" "$p4/history-rewrite.txt"
# The agent logs no line when it does not auto-apply: the decision is
# taken in the cycle that posts the preview, which ends by recording the
# commit as seen (state/last-seen). Once that names c4 it was taken.
check "the cycle that planned c4 is over (last-seen)" wait_for 30 grep -qx "head $c4" "$T/state/last-seen"
check_absent "creates-only rewrite preview NOT auto-applied (log)" "auto-apply-creates: $p4 " "$T/agent.log" "cluster 't72': preview $p4: "
check "creates-only rewrite preview NOT auto-applied (no approval, no result)" test ! -e "$p4/approval.json" -a ! -e "$p4/result.json"
for n in $nodes; do
	check_unlisted "$n: the rewrite's queue t72.s$u was not created" "$n" queues "^t72\\.s$u\$" "t72.q$u"
done
check_grep "c4 plan only creates" '^# t72: WOULD_APPLY — create 1$' "$p4/plan.md"
daemon_stop
check_eq "agent exits 0" 0 "$RC"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'notice loop: signal 15: stopping'
done_testing
