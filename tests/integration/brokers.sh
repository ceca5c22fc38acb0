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
#                            PROXY_LOG, PROXY_PID (listening on
#                            $FAULTPROXY_BIND when set, else 127.0.0.1)
#   proxy_stop               stops the last started proxy
#   snap JSONFILE ARGS...    `snapshot --json` into JSONFILE (exit kept in $?)
#   jval JSONFILE NODE KIND NAME FIELD   one field as JSON text (kind:
#                            queues, addresses, diverts; NAME '-' = node)
#
# The broker's own word, read with curl from its MBeans and never through
# the product's Jolokia client (reconcile/, tests/tools/jexec), so a bug in
# that client cannot confirm itself. NODE's URL and credentials come from
# brokers_setup, else from $AG_NODES_FILE (the daemon tests). KIND is
# queues, addresses or diverts. An https:// node (scripts/artemis up-tls) is
# asked with the test PKI's CA and client certificate (the run folder's
# tls/, beside its credentials/).
#   broker_jolokia NODE JSON one request, POSTed with curl; prints the reply
#   broker_port NODE         its core port, for a client (apply-lib's produce)
#   broker_bulk NODE PYTHON  the exec requests PYTHON prints (with op, addr,
#                           queue, divert helpers), one POST; OK or why not
#   broker_read NODE MBEAN [ATTR]
#                            a read's value as JSON (sorted keys); exit 1,
#                            the reply on stderr, unless the status is 200;
#                            exit 2 (silent) when no MBean matches
#   broker_names NODE KIND   the names of KIND on NODE (the broker MBean's
#                            QueueNames, AddressNames, DivertNames), one per
#                            line, sorted; a failed read says so on stderr,
#                            exit 1
#   broker_attr NODE KIND NAME ATTR...
#                            attributes of that queue, address or divert
#                            MBean (Jolokia's names: MaxConsumers,
#                            RoutingType, ...) as JSON, a list when more
#                            than one; prints "<absent>" when NODE has no
#                            such object, "<no attribute X>" for an unknown
#                            one; a failed read prints "<read failed>",
#                            exit 1
#   broker_set NODE KIND NAME ATTR  a list attribute, sorted (for sets:
#                            RoutingTypes, BindingNames), as JSON
#   broker_routing NODE ADDRESS  broker_set NODE addresses ADDRESS RoutingTypes
#   check_listed "name" NODE KIND NAME
#                            one read of KIND on NODE lists NAME (exactly)
#   check_unlisted "name" NODE KIND PATTERN KNOWN
#                            one read of KIND on NODE: no name matches
#                            PATTERN (grep -E); fails as well when the read
#                            fails or KNOWN (an exact name known to be
#                            there) is not listed, so a failed or empty
#                            read never passes for an absence
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
	brokers_read "$AG_NODES_FILE"
}

# brokers_read FILE: the nodes `scripts/artemis up` printed into FILE, as
# NODES, URL, CRED, CREDDIR and RUNDIR (for scripts that start brokers of
# their own).
brokers_read() {
	local name url cred
	while read -r name url cred; do
		[ -n "$name" ] || continue
		NODES+=("$name")
		URL[$name]=$url
		CRED[$name]=$cred
	done <"$1"
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
	PROXY_LOG=$(mktemp "$TMP/proxy-XXXXXX.log")
	rm -f "$TMP/proxy.port"
	python3 "$FAULTPROXY" "$mode" "$up" "$TMP/proxy.port" "$PROXY_LOG" &
	PROXY_PID=$!
	_proxy_pids+=("$PROXY_PID")
	for i in $(seq 1 100); do
		[ -s "$TMP/proxy.port" ] && break
		sleep 0.05
	done
	PROXY_URL="http${FAULTPROXY_TLS_CERT:+s}://${FAULTPROXY_BIND:-localhost}:$(cat "$TMP/proxy.port")/console/jolokia"
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

broker_jolokia() {
	local node=$1 body=$2 url=${URL[$1]:-} cred=${CRED[$1]:-} n pki
	local -a tlsargs=()
	if [ -z "$url" ] && [ -r "${AG_NODES_FILE:-}" ]; then
		read -r n url cred < <(awk -v n="$node" '$1 == n' "$AG_NODES_FILE")
	fi
	if [ -z "$url" ] || [ ! -r "$cred" ]; then
		echo "# broker_jolokia: no URL or credentials for node '$node'" >&2
		return 1
	fi
	if [ "${url#https://}" != "$url" ]; then
		pki=$(dirname "$(dirname "$cred")")/tls
		tlsargs=(--cacert "$pki/ca.pem" --cert "$pki/client.pem" --key "$pki/client.key")
	fi
	curl -s --max-time 20 "${tlsargs[@]}" -H 'Origin: http://localhost' \
		-H 'Content-Type: application/json' \
		-K <(printf 'user = "%s"\n' "$(cat "$cred")") -d "$body" "$url"
}

# broker_port NODE: its core (client) port; a script whose brokers are its
# own (another port base) redefines it.
broker_port() { "$ARTEMIS" port "$1"; }

# broker_bulk NODE PYTHON: POST the Jolokia operations PYTHON prints (a JSON list
# of exec requests, B being the broker's MBean) to NODE; every one must
# answer 200.
broker_bulk() {
	local node=$1 body
	body=$(python3 -c "
import json
B = 'org.apache.activemq.artemis:broker=\"$node\"'
def op(o, *a): return {'type': 'exec', 'mbean': B, 'operation': o, 'arguments': list(a)}
def addr(n, r='ANYCAST'): return op('createAddress(java.lang.String,java.lang.String)', n, r)
def queue(**c):
    c.setdefault('routing-type', 'ANYCAST'); c.setdefault('auto-create-address', False)
    return op('createQueue(java.lang.String)', json.dumps(c))
def divert(**c): return op('createDivert(java.lang.String)', json.dumps(c))
$2")
	broker_jolokia "$node" "$body" | python3 -c '
import json, sys
r = json.load(sys.stdin)
bad = [x.get("error") for x in r if x.get("status") != 200]
print("OK" if not bad else "%d failed, first: %s" % (len(bad), bad[0]))'
}

broker_read() {
	local node=$1 body
	body=$(python3 -c '
import json, sys
r = {"type": "read", "mbean": sys.argv[1]}
if len(sys.argv) > 2:
    r["attribute"] = sys.argv[2]
print(json.dumps(r))' "${@:2}")
	broker_jolokia "$node" "$body" | python3 -c '
import json, sys
raw = sys.stdin.read()
try:
    r = json.loads(raw)
except ValueError:
    r = None
if isinstance(r, dict) and r.get("status") == 200:
    print(json.dumps(r["value"], sort_keys=True))
    sys.exit(0)
if isinstance(r, dict) and r.get("status") == 404 and "InstanceNotFound" in r.get("error_type", ""):
    sys.exit(2)
sys.stderr.write("# broker_read %s: %s\n" % (" ".join(sys.argv[1:]), raw.strip() or "(no reply)"))
sys.exit(1)' "$@"
}

# _broker_mbean NODE KIND NAME: the MBean (pattern) of one object.
_broker_mbean() {
	local b="org.apache.activemq.artemis:broker=\"$1\"" q
	q=\"$(printf '%s' "$3" | sed 's/[\\"]/\\&/g')\"
	case $2 in
	queues) echo "$b,component=addresses,address=*,subcomponent=queues,routing-type=*,queue=$q" ;;
	diverts) echo "$b,component=addresses,address=*,subcomponent=diverts,divert=$q" ;;
	addresses) echo "$b,component=addresses,address=$q" ;;
	*) echo "# unknown kind '$2'" >&2; return 1 ;;
	esac
}

broker_names() {
	local attr
	local -a rc
	case $2 in
	queues) attr=QueueNames ;;
	addresses) attr=AddressNames ;;
	diverts) attr=DivertNames ;;
	*) echo "# broker_names: unknown kind '$2'" >&2; return 1 ;;
	esac
	broker_read "$1" "org.apache.activemq.artemis:broker=\"$1\"" "$attr" |
		python3 -c '
import json, sys
raw = sys.stdin.read()
if not raw.strip():
    sys.exit(1)
try:
    sys.stdout.write("".join(x + "\n" for x in sorted(json.loads(raw))))
    sys.stdout.flush()
except BrokenPipeError:
    pass'
	rc=("${PIPESTATUS[@]}")
	[ "${rc[0]}" -eq 0 ] && [ "${rc[1]}" -eq 0 ]
}

broker_attr() {
	local node=$1 kind=$2 name=$3 mbean v rc
	shift 3
	mbean=$(_broker_mbean "$node" "$kind" "$name") || { echo "<read failed>"; return 1; }
	v=$(broker_read "$node" "$mbean")
	rc=$?
	if [ "$rc" -eq 2 ]; then
		echo "<absent>"
		return 0
	elif [ "$rc" -ne 0 ]; then
		echo "<read failed>"
		return 1
	fi
	python3 -c '
import json, sys
kind, v, attrs = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
if kind != "addresses":  # a pattern read: {mbean: attributes}
    if len(v) != 1:
        print("<%d MBeans>" % len(v))
        sys.exit(1)
    v = list(v.values())[0]
out = [v[a] if a in v else "<no attribute %s>" % a for a in attrs]
print(json.dumps(out[0] if len(out) == 1 else out, sort_keys=True))' "$kind" "$v" "$@"
}

broker_set() {
	broker_attr "$@" | python3 -c '
import json, sys
raw = sys.stdin.read().strip()
try:
    v = json.loads(raw)
except ValueError:
    v = None
print(json.dumps(sorted(v)) if isinstance(v, list) else raw)'
}

broker_routing() { broker_set "$1" addresses "$2" RoutingTypes; }

check_listed() {
	local f
	f=$(mktemp)
	if ! broker_names "$2" "$3" >"$f" 2>"$f.err"; then
		not_ok "$1" "reading $3 of $2 failed:" "$(cat "$f.err")"
	elif grep -qxF -- "$4" "$f"; then
		ok "$1"
	else
		not_ok "$1" "'$4' is not among the $3 of $2:" "$(cat "$f")"
	fi
	rm -f "$f" "$f.err"
}

check_unlisted() {
	local f
	f=$(mktemp)
	if ! broker_names "$2" "$3" >"$f" 2>"$f.err"; then
		not_ok "$1" "reading $3 of $2 failed:" "$(cat "$f.err")"
	else
		check_absent "$1" "$4" "$f" "^$(printf '%s' "$5" | sed 's/[].[\\*^$()+?{}|]/\\&/g')\$"
	fi
	rm -f "$f" "$f.err"
}
