#!/usr/bin/env bash
# The daemon's behaviour around its lock and its signals: a second agent
# on the same state folder is refused (naming the holder); SIGHUP with a
# bad configuration is refused with positions and the old one kept; SIGHUP
# with a good one applies it; a new 'state' is refused on reload; SIGTERM
# in the middle of a cycle (a node that accepts and never answers) gives
# that read up at once and exits 0: what was planned before is posted
# whole, nothing is posted from the abandoned read, and the commit is not
# marked seen, so the next start plans it again.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
daemon_setup t71

# The command line.
check_exit "run without --config: usage error" 64 "$AG_BIN" run
check_exit "run --help" 0 "$AG_BIN" run --help
"$AG_BIN" run --config "$T/absent.yaml" 2>"$T/cli.log"
check_eq "run with a missing file exits 1" 1 "$?"
check_grep "missing file named" "err run: cannot open '$T/absent.yaml': No such file or directory" "$T/cli.log"
check_exit "run --describe-config" 0 "$AG_BIN" run --describe-config

c1=$(daemon_commit "t71: nodes only")
daemon_start
check "first preview posted" wait_for 60 has_preview "$c1"
check_grep "READY: the loop announced itself" "notice loop: watching file://$T/origin.git branch 'main' \\(poll 1s, drift 3600s\\)" "$T/agent.log"

# A second agent on the same state folder.
"$AG_BIN" run --config "$T/agent.yaml" --once >"$T/second.out" 2>&1
check_eq "second agent exits 1" 1 "$?"
check_grep "second agent names the lock holder" "err run: state folder '$T/state' is locked by pid $PID \\(run --config $T/agent.yaml, since [0-9T:-]+Z\\)" "$T/second.out"
check "first agent still runs" kill -0 "$PID"

# Under systemd ($JOURNAL_STREAM names stderr): `<N>` priority, no time.
: >"$T/journal.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$T/journal.log") \
	"$AG_BIN" run --config "$T/agent.yaml" --once 2>>"$T/journal.log"
check_grep "journal stream: <3> prefix, no time stamp" "^<3>run: state folder '$T/state' is locked by pid $PID" "$T/journal.log"
JOURNAL_STREAM=1:1 "$AG_BIN" run --config "$T/agent.yaml" --once 2>"$T/other.log"
check_grep "another stream: time stamp and level" "^[0-9:]{8} err run: state folder" "$T/other.log"

# SIGHUP with a bad configuration: refused, every error with its position.
cp "$T/agent.yaml" "$T/agent.good"
sed 's/^drift-interval: 1h$/drift-interval: soon/' "$T/agent.good" >"$T/agent.yaml"
printf 'pol-interval: 5s\n' >>"$T/agent.yaml"
kill -HUP "$PID"
check "bad reload refused" wait_for 20 grep -q "configuration $T/agent.yaml refused, keeping the running one" "$T/agent.log"
check_grep "bad reload: unknown key with position" "err loop: $T/agent.yaml:10:1: unknown key 'pol-interval'" "$T/agent.log"
check_grep "bad reload: bad duration with position" "err loop: $T/agent.yaml:6:17: 'drift-interval' must be a duration like 30s, 5m, 1h or 1d, not 'soon'" "$T/agent.log"
check "agent alive after a bad reload" kill -0 "$PID"
printf "version: 1\naddresses: [{name: t71.a, routing: [anycast], queues: [{name: t71.q}]}]\n" >"$T/work/clusters/t71/addresses.yaml"
c2=$(daemon_commit "t71: a queue")
check "old configuration still polls" wait_for 60 has_preview "$c2"

# SIGHUP with a good configuration.
sed 's/^poll-interval: 1s$/poll-interval: 2s/' "$T/agent.good" >"$T/agent.yaml"
kill -HUP "$PID"
check "good reload applied" wait_for 20 grep -q "notice loop: configuration reloaded: file://$T/origin.git branch 'main', poll 2s, drift 3600s" "$T/agent.log"

# SIGHUP moving the state folder: refused.
sed "s|^state: .*|state: $T/elsewhere|" "$T/agent.good" >"$T/agent.yaml"
kill -HUP "$PID"
check "state move refused" wait_for 20 grep -q "refused: 'state' changed from '$T/state' to '$T/elsewhere'" "$T/agent.log"
cp "$T/agent.good" "$T/agent.yaml"

# SIGTERM mid-cycle: a node that accepts connections and never answers
# keeps the snapshot read busy until its timeout.
port_file=$T/hang.port
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' "$port_file" &
hang=$!
wait_for 10 test -s "$port_file"
mkdir -p "$T/work/clusters/t71hang"
cat >"$T/work/clusters/t71hang/cluster.yaml" <<EOC
version: 1
cluster: t71hang
mode: STUDIO_MANAGED
nodes:
  - name: silent
    jolokia: http://127.0.0.1:$(cat "$port_file")/console/jolokia
    credentials: $(basename "$(awk 'NR==1{print $3}' "$AG_NODES_FILE")")
EOC
c3=$(daemon_commit "t71: a cluster whose node never answers")
check "the cycle of c3 started" wait_for 30 grep -q "branch 'main' moved to ${c3:0:12}" "$T/agent.log"
# The cycle plans t71, then t71hang, whose read hangs until its timeout:
# once t71's preview is there, the step in progress is t71hang's.
check "c3: the preview of t71 is posted" wait_for 30 has_preview "$c3" t71
sleep 1
check "c3: t71hang is being planned (no preview yet)" test -z "$(preview_of "$c3" t71hang)"
t1=$(date +%s%N)
daemon_stop
ms=$((($(date +%s%N) - t1) / 1000000))
check_eq "SIGTERM mid-cycle: exit 0" 0 "$RC"
check "SIGTERM mid-cycle: the read is given up within 2 s (${ms} ms), not at its 30 s timeout" test "$ms" -lt 2000
check_grep "SIGTERM logged" "notice loop: signal 15: stopping" "$T/agent.log"
check_grep "log: t71hang's read given up" "info cycle: cluster 't71hang': stopped while its nodes were read, nothing posted" "$T/agent.log"
check_grep "log: c3 planned again at the next start" "info cycle: commit ${c3:0:12}: stopped before every cluster was planned; it is planned again at the next start" "$T/agent.log"
d=$(preview_of "$c3" t71)
check "c3: the preview of t71, planned before, is whole" test -n "$d" -a -f "$d/plan.json" -a -f "$d/plan.md" -a -f "$d/commit.txt"
check_eq "c3: nothing posted for t71hang" "" "$(preview_of "$c3" t71hang)"
check_fails "c3 is not marked seen" grep -qx "head $c3" "$T/state/last-seen"
kill "$hang" 2>/dev/null
wait "$hang" 2>/dev/null
# The next start plans c3 again, t71hang too (its node now refuses).
daemon_start
check "restart: c3 planned for t71hang" wait_for 60 has_preview "$c3" t71hang
check "restart: c3 marked seen" wait_for 30 grep -qx "head $c3" "$T/state/last-seen"
check_grep "restart: t71hang's preview names the silent node" "\\| silent \\| - \\| UNREACHABLE" "$(preview_of "$c3" t71hang)/plan.md"
# Its only node was never read: the posted headline is UNREACHABLE, never
# NO_CHANGE (issue 14, defect 6).
check_grep "restart: t71hang's headline is UNREACHABLE" "^# t71hang: UNREACHABLE — no node could be read \\(1 of 1\\)" "$(preview_of "$c3" t71hang)/plan.md"
check_eq "restart: t71hang's plan.json outcome" UNREACHABLE "$(jq -r .outcome "$(preview_of "$c3" t71hang)/plan.json" 2>&1)"
daemon_stop
check_eq "restart: exit 0" 0 "$RC"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'notice loop: signal 15: stopping'
done_testing
