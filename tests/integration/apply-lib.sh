# tests/integration/apply-lib.sh: helpers of the 50-apply-* tests (plan,
# approve, apply against the real brokers of brokers.sh). Source it after
# tests/lib.sh and tests/integration/brokers.sh, then call brokers_setup
# and apply_setup.
#
#   apply_setup NAME         STATE=$TMP/state; CL=NAME (the cluster name)
#   decl DIR BODY [NODE=URL ...]
#                            DIR/cluster.yaml: cluster $CL with every node
#                            (its URL replaced as given), then BODY (YAML)
#   plan_to OUT DIR [ARGS]   `plan DIR --out OUT --state $STATE
#                            --credentials $CREDDIR ARGS`; prints output
#   confirm_of OUT           the confirmation text of OUT/plan.json
#   approve_ok OUT           approve with the right text
#   apply_to OUT DIR [ARGS]  `apply OUT --state $STATE --credentials
#                            $CREDDIR --cluster DIR ARGS`
#   converge NAME DIR OUT    plan (exit 2), approve, apply (exit 0): checks
#   produce NODE ADDRESS     send one message to the anycast ADDRESS with
#                            the distribution's `artemis producer`; prints
#                            OK, or the AMQ error line
#   listing FILE NODE KIND   broker_names (brokers.sh) into FILE, as a
#                            check (a failed read fails it); assert a name
#                            known to be present in FILE next to each
#                            absence check
#   sentinel_on NODE ADDRESS / sentinel_off NODE ADDRESS
#                            a divert ADDRESS.sentinel on ADDRESS (into
#                            ADDRESS itself, filter matching nothing), the
#                            KNOWN name of a divert listing with no other
#                            divert known to be there; prints OK
#   settings NODE MATCH JSON addAddressSettings(MATCH, JSON) on NODE; on a
#                            broker without that signature (2.28: it came
#                            later) the 26-argument one with the
#                            defaults of the distribution's broker.xml and
#                            the JSON's autoCreateQueues/autoCreateAddresses
#                            (any other key: fails)
#   unsettings NODE MATCH    removeAddressSettings(MATCH)
#   opproxy_start NODE RULE...  tests/tools/opproxy.py in front of NODE;
#                            sets OPX_URL, OPX_LOG, OPX_PID
#   opproxy_stop             stops the last started one
#   rj FILE EXPR             a Python expression on the JSON file FILE
#                            (bound to j), printed
#   audit_rows EVENT         the audit rows of that event, one per line
#   janitor PREFIX           remove every divert, queue and address whose
#                            name starts with PREFIX from every node

OPPROXY=$AG_TOP/tests/tools/opproxy.py

apply_setup() {
	CL=$1
	STATE=$TMP/state
}

decl() {
	local dir=$1 body=$2 n url kv
	shift 2
	mkdir -p "$dir"
	{
		echo "version: 1"
		echo "cluster: $CL"
		echo "mode: STUDIO_MANAGED"
		echo "nodes:"
		for n in "${NODES[@]}"; do
			url=${URL[$n]}
			for kv in "$@"; do
				[ "${kv%%=*}" = "$n" ] && url=${kv#*=}
			done
			echo "  - name: $n"
			echo "    jolokia: $url"
			echo "    credentials: $(basename "${CRED[$n]}")"
		done
		printf '%s\n' "$body"
	} >"$dir/cluster.yaml"
}

plan_to() {
	local out=$1 dir=$2
	shift 2
	rm -rf "$out"
	"$AG_BIN" plan "$dir" --out "$out" --state "$STATE" \
		--credentials "$CREDDIR" "$@"
}

rj() {
	python3 - "$@" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v, sort_keys=True))
PY
}

confirm_of() {
	rj "$1/plan.json" 'j["confirmation"]'
}

approve_ok() {
	"$AG_BIN" approve "$1" --confirm "$(confirm_of "$1")" --by tester \
		--state "$STATE"
}

apply_to() {
	local out=$1 dir=$2
	shift 2
	"$AG_BIN" apply "$out" --state "$STATE" --credentials "$CREDDIR" \
		--cluster "$dir" "$@"
}

converge() {
	local name=$1 dir=$2 out=$3
	check_exit "$name: plan has changes" 2 plan_to "$out" "$dir"
	check "$name: approve" approve_ok "$out"
	check "$name: apply" apply_to "$out" "$dir"
}

produce() {
	local node=$1 addr=$2 cred o
	cred=$(cat "${CRED[$node]}")
	o=$("$RUNDIR/$node/bin/artemis" producer --destination "queue://$addr" \
		--url "tcp://localhost:$(broker_port "$node")" \
		--user "${cred%%:*}" --password "${cred#*:}" \
		--message-count 1 2>&1)
	if printf '%s' "$o" | grep -q 'Produced: 1 messages'; then
		echo OK
	else
		printf '%s\n' "$o" | grep -o 'AMQ[0-9]*: [^]]*' | head -1
	fi
}

listing() {
	if broker_names "$2" "$3" >"$1"; then
		ok "read $3 of $2"
	else
		not_ok "read $3 of $2"
	fi
}

sentinel_on() {
	jexec "$1" create-divert "$2.sentinel" "$2" "$2" "filter=color = 'never'" exclusive=0
}

sentinel_off() {
	jexec "$1" destroy-divert "$2.sentinel"
}

settings() {
	local r
	r=$("$ARTEMIS" jolokia "$1" "{\"type\":\"exec\",\"mbean\":\"org.apache.activemq.artemis:broker=\\\"$1\\\"\",\"operation\":\"addAddressSettings(java.lang.String,java.lang.String)\",\"arguments\":[\"$2\",$(python3 -c 'import json,sys;print(json.dumps(sys.argv[1]))' "$3")]}")
	case $r in
	*'"status":200'*) return 0 ;;
	*'No operation addAddressSettings(java.lang.String,java.lang.String)'*) ;;
	*) return 1 ;;
	esac
	r=$(python3 -c '
import json, sys
node, match, want = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
if set(want) - {"autoCreateQueues", "autoCreateAddresses"}:
    sys.exit("settings: only autoCreateQueues/autoCreateAddresses without addAddressSettings(String,String)")
t = ["java.lang.String"] * 3 + ["long", "boolean", "int", "long", "int", "int", "long",
     "double", "long", "long", "boolean", "java.lang.String", "long", "long",
     "java.lang.String"] + ["boolean"] * 8
a = [match, "DLQ", "ExpiryQueue", -1, False, 10, -1, 10485760, 5, 0, 1.0, 0, -1,
     False, "PAGE", -1, 5, "NOTIFY", True, True, True, True,
     want.get("autoCreateQueues", True), False, want.get("autoCreateAddresses", True), False]
print(json.dumps({"type": "exec", "mbean": "org.apache.activemq.artemis:broker=\"%s\"" % node,
                  "operation": "addAddressSettings(%s)" % ",".join(t), "arguments": a}))' "$1" "$2" "$3") || return 1
	"$ARTEMIS" jolokia "$1" "$r" | grep -q '"status":200'
}

unsettings() {
	"$ARTEMIS" jolokia "$1" "{\"type\":\"exec\",\"mbean\":\"org.apache.activemq.artemis:broker=\\\"$1\\\"\",\"operation\":\"removeAddressSettings(java.lang.String)\",\"arguments\":[\"$2\"]}" >/dev/null
}

opproxy_start() {
	local node=$1 up pf
	shift
	up=${URL[$node]%/console/jolokia}
	# mktemp, not $RANDOM: a port file left by an earlier proxy of the
	# same name gave its dead port (a soak run of 60 met it)
	OPX_LOG=$(mktemp "$TMP/opproxy-XXXXXX.log")
	pf=$(mktemp "$TMP/opproxy-XXXXXX.port")
	python3 "$OPPROXY" "$up" "$pf" "$OPX_LOG" "$@" &
	OPX_PID=$!
	_proxy_pids+=("$OPX_PID")
	for _ in $(seq 1 400); do
		[ -s "$pf" ] && break
		sleep 0.05
	done
	[ -s "$pf" ] || echo "opproxy_start: no port from the proxy of $node after 20 s (log $OPX_LOG)" >&2
	OPX_URL="http://localhost:$(cat "$pf")/console/jolokia"
}

opproxy_stop() {
	kill "$OPX_PID" 2>/dev/null
	wait "$OPX_PID" 2>/dev/null
	return 0
}

audit_rows() {
	python3 - "$STATE/audit.jsonl" "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    row = json.loads(line)
    if row["event"] == sys.argv[2]:
        print(json.dumps(row, sort_keys=True))
PY
}

janitor() {
	local n x
	for n in "${NODES[@]}"; do
		for x in $(broker_names "$n" diverts | grep -F "$1"); do
			jexec "$n" destroy-divert "$x" >/dev/null
		done
		for x in $(broker_names "$n" queues | grep -F "$1"); do
			jexec "$n" destroy-queue "$x" remove-consumers >/dev/null
		done
		for x in $(broker_names "$n" addresses | grep -F "$1"); do
			jexec "$n" delete-address "$x" >/dev/null
		done
	done
}
