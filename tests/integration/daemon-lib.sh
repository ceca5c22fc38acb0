# tests/integration/daemon-lib.sh: shared by the 7x-daemon-*.sh tests (not
# a test itself: tests/run runs only NN-*.sh). Source after tests/lib.sh.
#
#   daemon_setup NAME       temp folder $T with a bare repository, a working
#                           copy and a cluster NAME on the suite's brokers
#   daemon_commit MSG       commit and push the working copy; prints the id
#   daemon_start [CONF]     start `run --config` in the background ($PID)
#   daemon_stop             SIGTERM and wait; $RC is the exit status
#   wait_for SECS CMD...    poll CMD until it succeeds; 1 on timeout
#   preview_of COMMIT [CLUSTER]  the newest preview folder of a commit (of
#                           cluster $CLUSTER unless given), or ""
#   has_preview COMMIT [CLUSTER]  there is one
#   notify_recorder SOCK LOG [1]  systemd's side of sd_notify (see below)
#   watchdog_gaps LOG       `N MAX` of a stamped notify log: the WATCHDOG=1
#                           count and the largest gap in seconds between
#                           the first READY=1, each WATCHDOG=1 and now
#   result_outcomes DIR     `node:OUTCOME ...` of DIR/result.json, or what
#                           it holds instead (a failed apply's marker)
#   check_applied "name" DIR  DIR/result.json: every node of $AG_NODES_FILE
#                           APPLIED (a FAILED apply writes one too)
#   daemon_cluster2 NAME NODE2_URL [YAML]  the working copy's cluster NAME
#                           of the first two nodes, the second at NODE2_URL,
#                           YAML (a line) after its nodes

wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.3
	done
}

daemon_setup() {
	local name=$1 i line node url cred
	T=$(mktemp -d)
	CLUSTER=$name
	trap 'daemon_cleanup' EXIT
	git init -q --bare -b main "$T/origin.git"
	git init -q -b main "$T/work"
	git -C "$T/work" remote add origin "$T/origin.git"
	mkdir -p "$T/work/clusters/$name"
	{
		echo "version: 1"
		echo "cluster: $name"
		echo "mode: STUDIO_MANAGED"
		echo "nodes:"
		i=0
		while read -r node url cred; do
			[ -n "$node" ] || continue
			echo "  - name: $node"
			echo "    jolokia: $url"
			echo "    credentials: $(basename "$cred")"
			CREDS=$(dirname "$cred")
			i=$((i + 1))
		done <"$AG_NODES_FILE"
	} >"$T/work/clusters/$name/cluster.yaml"
	cat >"$T/agent.yaml" <<EOC
version: 1
repository:
  url: file://$T/origin.git
  path: clusters
poll-interval: 1s
drift-interval: 1h
retry-max: 4s
state: $T/state
credentials: $CREDS
EOC
}

daemon_cleanup() {
	if [ -n "${PID:-}" ] && kill -0 "$PID" 2>/dev/null; then
		kill -TERM "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
	fi
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}

# systemd's side of sd_notify: record every message on the datagram socket
# SOCK into LOG, one line each, newlines as '|'; with STAMP=1 each line starts
# with the monotonic time. Sets NOTIFY_PID; returns once the socket exists.
notify_recorder() {
	python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
out = open(sys.argv[2], "a", buffering=1)
stamp = sys.argv[3] == "1"
while True:
    msg = s.recv(4096).decode().replace("\n", "|")
    out.write(("%.3f %s\n" % (time.monotonic(), msg)) if stamp else msg + "\n")
' "$1" "$2" "${3:-0}" &
	NOTIFY_PID=$!
	wait_for 10 test -S "$1"
}

daemon_commit() {
	git -C "$T/work" add -A
	git -C "$T/work" -c user.name=Tester -c user.email=t@example.com \
		commit -q -m "$1"
	git -C "$T/work" push -q origin main 2>/dev/null ||
		git -C "$T/work" push -q -f origin main
	git -C "$T/work" rev-parse HEAD
}

daemon_start() {
	"$AG_BIN" run --config "${1:-$T/agent.yaml}" 2>>"$T/agent.log" &
	PID=$!
}

daemon_stop() {
	kill -TERM "$PID"
	RC=0
	wait "$PID" || RC=$?
	PID=
}

preview_of() {
	local d
	for d in "$T/state/outbox/${2:-$CLUSTER}"/*-"${1:0:12}"*; do
		[ -f "$d/plan.md" ] && echo "$d"
	done | tail -n 1
}
has_preview() { [ -n "$(preview_of "$@")" ]; }

watchdog_gaps() {
	python3 - "$1" <<'PY'
import sys, time
now = time.monotonic()  # the recorder's clock (CLOCK_MONOTONIC)
t, n = [], 0
for line in open(sys.argv[1]):
    stamp, _, msg = line.rstrip("\n").partition(" ")
    if msg.startswith("READY=1") and not t:
        t.append(float(stamp))
    elif msg == "WATCHDOG=1" and t:
        t.append(float(stamp))
        n += 1
t.append(now)
gaps = [b - a for a, b in zip(t, t[1:])] if len(t) > 1 else [float("inf")]
print("%d %.2f" % (n, max(gaps)))
PY
}

result_outcomes() {
	python3 - "$1/result.json" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("<unreadable: %s>" % e)
    sys.exit(1)
if "nodes" not in j:
    print("<no nodes: %s>" % json.dumps(j, sort_keys=True))
    sys.exit(1)
print(" ".join("%s:%s" % (n.get("node"), n.get("outcome")) for n in j["nodes"]))
PY
}

check_applied() {
	local want
	want=$(awk 'NF { printf "%s%s:APPLIED", s, $1; s = " " }' "$AG_NODES_FILE")
	check_eq "$1" "$want" "$(result_outcomes "$2")"
}

daemon_cluster2() {
	local n1=${NODES[0]} n2=${NODES[1]}
	mkdir -p "$T/work/clusters/$1"
	cat >"$T/work/clusters/$1/cluster.yaml" <<EOC
version: 1
cluster: $1
mode: STUDIO_MANAGED
nodes:
  - name: $n1
    jolokia: ${URL[$n1]}
    credentials: $(basename "${CRED[$n1]}")
  - name: $n2
    jolokia: $2
    credentials: $(basename "${CRED[$n2]}")
EOC
	[ -z "${3:-}" ] || echo "$3" >>"$T/work/clusters/$1/cluster.yaml"
}
