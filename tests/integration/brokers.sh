# tests/integration/brokers.sh: shared setup for integration tests that
# talk to real brokers. Source it after tests/lib.sh.
#
# Brokers: tests/run starts them once (scripts/artemis up 2) and exports
# AG_NODES_FILE (lines `<name> <jolokia-url> <credentials-file>`). Run
# standalone, the test starts them itself and stops them at exit unless
# they were already running.
#
#   brokers_setup            fills NODES, URL[node], CRED[node], CREDDIR,
#                            RUNDIR; makes $TMP (removed at exit)
#   cluster_dir DIR [NODE=URL ...]  a copy of the generated cluster.yaml,
#                            with node URLs replaced as given
#   jexec NODE OP ARGS...    tests/tools/jexec against NODE
#   proxy_start MODE NODE    a faultproxy in front of NODE; sets PROXY_URL,
#                            PROXY_LOG, PROXY_PID
#   proxy_stop               stops the last started proxy
#   snap JSONFILE ARGS...    `snapshot --json` into JSONFILE (exit kept in $?)
#   jval JSONFILE NODE KIND NAME FIELD   one field as JSON text (kind:
#                            queues, addresses, diverts; NAME '-' = node)
AG_TOP=${AG_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
JEXEC=${JEXEC:-$AG_TOP/build/asan/tools/jexec}
FAULTPROXY=$AG_TOP/tests/tools/faultproxy.py
ARTEMIS=$AG_TOP/scripts/artemis
declare -A URL CRED
NODES=()
_started_brokers=0
_proxy_pids=()

_brokers_cleanup() {
	local p
	for p in "${_proxy_pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
	if [ "$_started_brokers" = 1 ]; then
		"$ARTEMIS" down >/dev/null 2>&1 || true
	fi
}

brokers_setup() {
	local name url cred
	TMP=$(mktemp -d)
	trap _brokers_cleanup EXIT
	if [ -z "${AG_NODES_FILE:-}" ]; then
		if ! "$ARTEMIS" status 2>/dev/null | grep -q 'node2 running'; then
			_started_brokers=1
		fi
		"$ARTEMIS" up 2 >"$TMP/nodes.txt" || {
			echo "Bail out! scripts/artemis up 2 failed"
			exit 1
		}
		AG_NODES_FILE=$TMP/nodes.txt
	fi
	while read -r name url cred; do
		[ -n "$name" ] || continue
		NODES+=("$name")
		URL[$name]=$url
		CRED[$name]=$cred
	done <"$AG_NODES_FILE"
	CREDDIR=$(dirname "${CRED[${NODES[0]}]}")
	RUNDIR=$(dirname "$CREDDIR")
}

cluster_dir() {
	local dir=$1 kv node url
	shift
	mkdir -p "$dir"
	cp "$RUNDIR/cluster/cluster.yaml" "$dir/cluster.yaml"
	for kv in "$@"; do
		node=${kv%%=*}
		url=${kv#*=}
		sed -i "s|${URL[$node]}|$url|" "$dir/cluster.yaml"
	done
}

jexec() {
	local node=$1
	shift
	"$JEXEC" --broker "$node" "${URL[$node]}" "${CRED[$node]}" "$@"
}

proxy_start() {
	local mode=$1 node=$2 up i
	up=${URL[$node]%/console/jolokia}
	PROXY_LOG=$TMP/proxy-$RANDOM.log
	: >"$PROXY_LOG"
	rm -f "$TMP/proxy.port"
	python3 "$FAULTPROXY" "$mode" "$up" "$TMP/proxy.port" "$PROXY_LOG" &
	PROXY_PID=$!
	_proxy_pids+=("$PROXY_PID")
	for i in $(seq 1 100); do
		[ -s "$TMP/proxy.port" ] && break
		sleep 0.05
	done
	PROXY_URL="http${FAULTPROXY_TLS_CERT:+s}://localhost:$(cat "$TMP/proxy.port")/console/jolokia"
}

proxy_stop() {
	kill "$PROXY_PID" 2>/dev/null || true
	wait "$PROXY_PID" 2>/dev/null || true
}

snap() {
	local out=$1
	shift
	"$AG_BIN" snapshot --json --credentials "$CREDDIR" "$@" >"$out" 2>"$out.err"
}

jval() {
	python3 - "$@" <<'PY'
import json, sys
f, node, kind, name, field = sys.argv[1:6]
s = json.load(open(f))
n = [x for x in s["nodes"] if x["node"] == node][0]
if name == "-":
    v = n[field] if field != "." else n
else:
    items = [x for x in n[kind] if x.get("name", x.get("match")) == name]
    v = "<absent>"
    if items:
        v = items[0] if field == "." else items[0][field]
print(json.dumps(v, sort_keys=True))
PY
}
