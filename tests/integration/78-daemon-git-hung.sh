#!/usr/bin/env bash
# A git server that accepts and never answers, and a closed port. libgit2
# has no network timeout, so the agent fetches in a child process bounded
# by repository.fetch-timeout: the child is killed at the deadline, the
# outage logged and retried with backoff; meanwhile WATCHDOG=1 keeps
# coming, and SIGTERM ends the agent at once (exit 0, the child gone).
# A stale lock file left in the clone is cleared; pointing the agent at
# a working repository (SIGHUP) recovers without a restart.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
. "$AG_TOP/tests/integration/gitsrv-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
daemon_setup t78
gitsrv_trap
c1=$(daemon_commit "t78: nodes")
good_url=$(sed -n 's/^  url: //p' "$T/agent.yaml")

# A listener that accepts, reads, and never answers.
python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    with open(sys.argv[2], "a") as f:
        f.write("accepted\n")
' "$T/hang.port" "$T/hang.log" &
GITSRV_PIDS+=($!)
check "hanging listener up" wait_for 10 test -s "$T/hang.port"
hang=$(cat "$T/hang.port")
hung_url="http://127.0.0.1:$hang/origin.git"

# systemd's side: a notify socket recording each message with a time.
sock=$T/notify.sock
notify_recorder "$sock" "$T/notify.log" 1
GITSRV_PIDS+=("$NOTIFY_PID")

sed "s|^  url: .*|  url: $hung_url\n  fetch-timeout: 3s|" "$T/agent.yaml" >"$T/agent.hung"
cp "$T/agent.hung" "$T/agent.yaml"
NOTIFY_SOCKET=$sock WATCHDOG_USEC=2000000 "$AG_BIN" run --config "$T/agent.yaml" 2>>"$T/agent.log" &
PID=$!
child() { pgrep -P "$PID" >/dev/null; }
check "the fetch runs in a child process" wait_for 10 child
check "the listener accepted the fetch's connection" wait_for 10 test -s "$T/hang.log"
timeouts() { grep -F "warning cycle: git: fetch 'main' from $hung_url: no answer within 3s (repository.fetch-timeout), stopped, retrying in" "$T/agent.log"; }
two() { [ "$(timeouts | wc -l)" -ge 2 ]; }
check "hung server: timed out twice, logged" wait_for 30 two
timeouts >"$T/timeouts.txt"
check_grep "first retry in 1s" "retrying in 1s$" "$T/timeouts.txt"
check_grep "then in 2s (backoff)" "retrying in 2s$" "$T/timeouts.txt"
check "agent alive" kill -0 "$PID"
check_grep "STATUS= tells the outage" "STATUS=git fetch failing: fetch 'main' from $hung_url: no answer within 3s" "$T/notify.log"

# WATCHDOG=1 never paused while fetches hung: at most 1.5 s apart (half
# of the 2 s WatchdogSec, plus slack) over the whole run so far, from
# READY=1 to now.
gap=$(watchdog_gaps "$T/notify.log")
check "WATCHDOG=1 pings during hung fetches (count, max gap: $gap)" awk -v g="$gap" 'BEGIN { split(g, a, " "); exit !(a[1] >= 8 && a[2] <= 1.5) }'

# SIGTERM while a fetch hangs: prompt exit 0, the child killed and reaped.
check "a fetch is pending" wait_for 10 child
kid=$(pgrep -P "$PID" | head -n 1)
t0=$(date +%s%N)
kill -TERM "$PID"
RC=0
wait "$PID" || RC=$?
ms=$((($(date +%s%N) - t0) / 1000000))
PID=
check_eq "SIGTERM mid-fetch: exit 0" 0 "$RC"
check "SIGTERM mid-fetch: stopped within 2 s (${ms} ms)" test "$ms" -lt 2000
check "the fetch child is gone (pid $kid)" sh -c "! kill -0 $kid 2>/dev/null"
check_grep "log: the abandoned fetch" "info cycle: git: fetch from $hung_url: stopped by signal 15" "$T/agent.log"
check_grep "STOPPING=1" " STOPPING=1$" "$T/notify.log"

# A closed port: refused at once, logged, retried.
closed=$(free_port)
closed_url="http://127.0.0.1:$closed/origin.git"
sed "s|^  url: .*|  url: $closed_url|" "$T/agent.hung" >"$T/agent.yaml"
daemon_start
refused() { [ "$(grep -cE "warning cycle: git: fetch 'main' from $closed_url: .*(connect|refused).*, retrying in [0-9]+s$" "$T/agent.log")" -ge 2 ]; }
check "closed port: connection refused, logged twice" wait_for 30 refused
check "agent alive" kill -0 "$PID"

# A stale lock in the clone (as a killed fetch could leave) is cleared,
# and a working URL (SIGHUP) is fetched without a restart.
mkdir -p "$T/state/repo/refs/remotes/origin"
touch "$T/state/repo/refs/remotes/origin/main.lock" "$T/state/repo/FETCH_HEAD.lock"
sed "s|^  url: .*|  url: $good_url|" "$T/agent.hung" >"$T/agent.yaml"
kill -HUP "$PID"
check "c1 previewed after the outages" wait_for 60 has_preview "$c1"
check "stale ref lock cleared" test ! -e "$T/state/repo/refs/remotes/origin/main.lock"
check "stale FETCH_HEAD lock cleared" test ! -e "$T/state/repo/FETCH_HEAD.lock"
daemon_stop
check_eq "agent exits 0" 0 "$RC"
check_nogrep "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log"
done_testing
