#!/usr/bin/env bash
# The watchdog promise while brokers stall (issue 14 item 2): two clusters
# each hold a node behind tests/tools/faultproxy.py in `stall` mode (it
# reads the request and never answers), so planning them waits out two
# Jolokia timeouts one after the other (broker-timeout: 10s, not the 30 s
# default: the agent honours it, in reads and in the apply); a third
# cluster's node is behind tests/tools/opproxy.py stalling createQueue, so
# its creates-only commit, auto-applied, waits 10 s more inside the apply.
# The agent runs with a notify socket and a 2 s WatchdogSec: the longest
# gap between WATCHDOG=1 pings over those 30 s stays under 1.5 s (half the
# interval, plus slack), far from the shipped unit's 120 s. Then SIGTERM while a
# read of a stalled node is pending stops the agent within 2 s (exit 0),
# and nothing is posted from the read it gave up.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t73s$$
daemon_setup t73s
trap 'janitor "$u"; daemon_cleanup; _brokers_cleanup' EXIT
n1=${NODES[0]}
n2=${NODES[1]}
proxy_start stall "$n2"
stall_url=$PROXY_URL
stall_log=$PROXY_LOG
opproxy_start "$n2" stall:createQueue
# cluster NAME NODE2_URL [ADDRESSES]: a cluster of n1 and n2 (at that URL)
cluster() { daemon_cluster2 "$@"; }
rm -rf "$T/work/clusters/t73s"
cluster t73s-a "$stall_url"
cluster t73s-b "$stall_url"
cluster t73s-c "$OPX_URL" "addresses: [{name: $u.a, routing: [anycast], queues: [{name: $u.q}]}]"
echo "auto-apply-creates: true" >>"$T/agent.yaml"
echo "broker-timeout: 10s" >>"$T/agent.yaml"
c1=$(daemon_commit "t73s: three clusters, two stalled nodes, one stalled create")

sock=$T/notify.sock
notify_recorder "$sock" "$T/notify.log" 1
listener=$NOTIFY_PID
t0=$SECONDS
NOTIFY_SOCKET=$sock WATCHDOG_USEC=2000000 "$AG_BIN" run --config "$T/agent.yaml" 2>>"$T/agent.log" &
PID=$!
applied() { p=$(preview_of "$c1" t73s-c); [ -n "$p" ] && [ -f "$p/result.json" ]; }
check "the creates-only preview of t73s-c was applied (a result)" wait_for 240 applied
took=$((SECONDS - t0))
gap=$(watchdog_gaps "$T/notify.log")
# Three stalls of 10 s: the watchdog was measured across them all.
check "the agent waited on stalled brokers for ${took}s (3 x 10 s)" test "$took" -ge 28
check "broker-timeout: 10s bounded each stall (${took}s, not 3 x the 30 s default)" test "$took" -lt 75
check "WATCHDOG=1 at most 1.5 s apart through the stalls (2 s watchdog; pings, max gap: $gap)" \
	awk -v g="$gap" 'BEGIN { split(g, a, " "); exit !(a[1] >= 20 && a[2] <= 1.5) }'
for cl in t73s-a t73s-b; do
	check_grep "$cl: the stalled node timed out in the preview" "\\| $n2 \\| - \\| TIMEOUT" "$(preview_of "$c1" "$cl")/plan.md"
done
pc=$(preview_of "$c1" t73s-c)
check_eq "t73s-c: $n1 applied, the stalled create failed" "$n1:APPLIED $n2:FAILED" "$(result_outcomes "$pc")"
check_grep "t73s-c: the stalled create is a TIMEOUT" '"kind": "TIMEOUT"' "$pc/result.json"
check_listed "t73s-c: $n1 has $u.q" "$n1" queues "$u.q"

# t73s-a and t73s-b are planned again (their nodes were unreadable). A
# read of the stalled node is pending while the proxy has logged more
# requests than the agent has logged timeouts of that node (one each):
# then SIGTERM, in the middle of it.
pending() {
	[ "$(wc -l <"$stall_log")" -gt "$(grep -c "cluster 't73s-[ab]': node '$n2': TIMEOUT" "$T/agent.log")" ]
}
check "a replan reads the stalled node again" wait_for 45 pending
sleep 1
n_before=$(ls -d "$T/state/outbox"/t73s-[ab]/*/ | wc -l)
t1=$(date +%s%N)
kill -TERM "$PID"
RC=0
wait "$PID" || RC=$?
ms=$((($(date +%s%N) - t1) / 1000000))
PID=
check_eq "SIGTERM during a stalled read: exit 0" 0 "$RC"
check "SIGTERM during a stalled read: stopped within 2 s (${ms} ms), not at the 10 s timeout" test "$ms" -lt 2000
check_grep "log: the read was given up, nothing posted" "info cycle: cluster 't73s-[ab]': stopped while its nodes were read, nothing posted" "$T/agent.log"
check_eq "no preview posted from the abandoned read" "$n_before" "$(ls -d "$T/state/outbox"/t73s-[ab]/*/ | wc -l)"
check_grep "STOPPING=1" " STOPPING=1$" "$T/notify.log"
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'notice loop: signal 15: stopping'
done_testing
