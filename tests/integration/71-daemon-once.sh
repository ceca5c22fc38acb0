#!/usr/bin/env bash
# `run --once` for cron and CI (issue 14 item 11): exit 0 only when every
# step worked, else 1, with every reason repeated in the last log line. A
# creates-only commit auto-applied: 0. A plan refused by a consumer: 1. A
# node on a closed port (UNREACHABLE): 1, and the commit is left unseen so
# that the next run plans it again (1 again). A node behind faultproxy
# `stall` (TIMEOUT): 1. A plan with changes to approve: 0, the commit seen.
# An invalid commit: 1. A node of the applied revision gone for the drift
# check: 1.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
. "$AG_TOP/tests/integration/gitsrv-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t71o$$
daemon_setup t71o
consumer=
trap '[ -n "$consumer" ] && kill "$consumer" 2>/dev/null; janitor "$u"; daemon_cleanup; _brokers_cleanup' EXIT
n1=${NODES[0]}
n2=${NODES[1]}
echo "auto-apply-creates: true" >>"$T/agent.yaml"
# node2 of t71o through a pass-through proxy, so that it can go away later
proxy_start pass "$n2"
pass_pid=$PROXY_PID
pass_url=$PROXY_URL
# cluster NAME NODE2_URL [QUEUE]: n1 and n2 (at that URL), maybe one queue
cluster() {
	local a=
	[ -z "${3:-}" ] || a="addresses: [{name: $3, routing: [anycast], queues: [{name: $3}]}]"
	daemon_cluster2 "$1" "$2" "$a"
}
# once NAME: one `run --once`; $RC its exit status, $T/NAME.log its log
once() {
	RC=0
	"$AG_BIN" run --config "$T/agent.yaml" --once 2>"$T/$1.log" || RC=$?
	tail -n 1 "$T/$1.log" >"$T/$1.last"
}
seen() { grep -qx "head $1" "$T/state/last-seen"; }

cluster t71o "$pass_url" "$u.q"
c1=$(daemon_commit "t71o: a queue")
once a
check_eq "creates-only, auto-applied: exit 0" 0 "$RC"
check_grep "the last line says so" "info loop: --once: exit 0, every step worked$" "$T/a.last"
check_applied "c1 auto-applied on every node" "$(preview_of "$c1")"
check "c1 seen" seen "$c1"

# A consumer on the queue; a commit that drops it: the plan is refused.
"$ARTEMIS" consumer "$n1" "$u.q" >"$T/consumer.log" 2>&1 &
consumer=$!
check "a consumer on $u.q" "$ARTEMIS" wait-consumers "$n1" "$u.q" 1 60
cluster t71o "$pass_url"
c2=$(daemon_commit "t71o: the queue goes")
once b
check_eq "a refused plan: exit 1" 1 "$RC"
check_grep "the last line: the refusal" "err loop: --once: exit 1, 1 failure\\(s\\): cluster 't71o': the plan is refused \\(NODE_REFUSED: 1 node step is refused\\)$" "$T/b.last"
kill "$consumer"
wait "$consumer" 2>/dev/null
consumer=

# A cluster with a node nobody listens on.
gone=$(free_port)
cluster t71o-down "http://127.0.0.1:$gone/console/jolokia"
c3=$(daemon_commit "t71o: a node on a closed port")
once c
check_eq "a node UNREACHABLE: exit 1" 1 "$RC"
check_grep "the node logged where it happened" "warning cycle: cluster 't71o-down': node '$n2': UNREACHABLE" "$T/c.log"
check_grep "the last line names the cluster, the node and the kind" "err loop: --once: exit 1, 1 failure\\(s\\): cluster 't71o-down': 1 node\\(s\\) could not be read \\(node '$n2' UNREACHABLE\\)$" "$T/c.last"
check_grep "log: the commit is left unseen" "warning cycle: commit ${c3:0:12}: not marked seen, 1 cluster\\(s\\) could not read every node; the next run plans it again" "$T/c.log"
check_fails "c3 not seen" seen "$c3"
once d
check_eq "the next run: exit 1 again" 1 "$RC"
check_grep "the next run planned c3 again" "notice cycle: branch 'main' moved to ${c3:0:12}" "$T/d.log"
check_grep "and names the outage again" "cluster 't71o-down': 1 node\\(s\\) could not be read \\(node '$n2' UNREACHABLE\\)$" "$T/d.last"

# The node stalls: a TIMEOUT.
proxy_start stall "$n2"
cluster t71o-down "$PROXY_URL"
c4=$(daemon_commit "t71o: a node that never answers")
once e
check_eq "a node TIMEOUT: exit 1" 1 "$RC"
check_grep "the last line names the timeout" "cluster 't71o-down': 1 node\\(s\\) could not be read \\(node '$n2' TIMEOUT\\)$" "$T/e.last"

# Every node answers; t71o's plan (the queue goes) waits for an approval.
rm -rf "$T/work/clusters/t71o-down"
c5=$(daemon_commit "t71o: the stalled cluster goes")
once f
check_eq "changes to approve, every node read: exit 0" 0 "$RC"
check_grep "the last line says so" "info loop: --once: exit 0, every step worked$" "$T/f.last"
check "c5 seen" seen "$c5"
check_grep "t71o's plan waits for an approval" '"outcome": "WOULD_APPLY"' "$(preview_of "$c5")/plan.json"

# An invalid commit.
printf 'version: 1\naddresses: [{name: %s.bad, routng: [anycast]}]\n' "$u" >"$T/work/clusters/t71o/bad.yaml"
c6=$(daemon_commit "t71o: invalid")
once g
check_eq "an invalid commit: exit 1" 1 "$RC"
check_grep "the last line names it" "err loop: --once: exit 1, 1 failure\\(s\\): cluster 't71o': commit ${c6:0:12} is invalid \\([0-9]+ errors\\)$" "$T/g.last"

# The applied revision's node2 (behind the pass proxy) goes away: the
# drift check cannot read it.
kill "$pass_pid"
wait "$pass_pid" 2>/dev/null
once h
check_eq "a node unreadable for the drift check: exit 1" 1 "$RC"
check_grep "the last line names the drift check" "err loop: --once: exit 1, 1 failure\\(s\\): cluster 't71o': 1 node\\(s\\) could not be read for the drift check$" "$T/h.last"
cat "$T"/[a-h].log >"$T/all.log"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/all.log" 'loop: --once: exit 1'
done_testing
