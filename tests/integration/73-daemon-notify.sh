#!/usr/bin/env bash
# sd_notify(3) as systemd would see it: a datagram socket stands in for
# $NOTIFY_SOCKET; the agent runs with WatchdogSec's environment and must
# send READY=1 (with STATUS=), WATCHDOG=1 pings, RELOADING=1 with
# MONOTONIC_USEC= then READY=1 on SIGHUP, and STOPPING=1 on SIGTERM.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
daemon_setup t73
sock=$T/notify.sock
notify_recorder "$sock" "$T/notify.log" 1
listener=$NOTIFY_PID
c1=$(daemon_commit "t73: nodes")
NOTIFY_SOCKET=$sock WATCHDOG_USEC=2000000 "$AG_BIN" run --config "$T/agent.yaml" 2>>"$T/agent.log" &
PID=$!
check "READY=1 with a status" wait_for 30 grep -qE '^[0-9.]+ READY=1\|STATUS=started$' "$T/notify.log"
check "STATUS= names the planned commit" wait_for 60 grep -qE "^[0-9.]+ STATUS=commit ${c1:0:12} planned \\(first\\)$" "$T/notify.log"
sleep 2.5
# The largest gap, from READY=1 through every WATCHDOG=1 to now: at most
# 1.5 s (half of the 2 s WatchdogSec, plus slack).
gap=$(watchdog_gaps "$T/notify.log")
check "WATCHDOG=1 at least every half interval (2 s watchdog; pings, max gap: $gap)" \
	awk -v g="$gap" 'BEGIN { split(g, a, " "); exit !(a[1] >= 2 && a[2] <= 1.5) }'
kill -HUP "$PID"
check "RELOADING=1 with MONOTONIC_USEC" wait_for 20 grep -qE '^[0-9.]+ RELOADING=1\|MONOTONIC_USEC=[0-9]+$' "$T/notify.log"
check "READY=1 after the reload" wait_for 20 grep -qE '^[0-9.]+ READY=1\|STATUS=reloaded$' "$T/notify.log"
daemon_stop
check_eq "exit 0" 0 "$RC"
check "STOPPING=1" wait_for 10 grep -qE '^[0-9.]+ STOPPING=1$' "$T/notify.log"
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'notice loop: signal 15: stopping'
done_testing
