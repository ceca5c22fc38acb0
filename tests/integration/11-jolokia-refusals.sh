#!/usr/bin/env bash
# Every refusal kind provoked on real brokers (or a proxy of ours in front
# of one): HAS_CONSUMERS, NOT_FOUND, ALREADY_EXISTS, UNAUTHORIZED,
# THROTTLED, FORBIDDEN, UNREACHABLE, TIMEOUT, BAD_RESPONSE (also for
# counts out of range), BROKER_ERROR; a node that cannot be read never
# stops the others.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
brokers_setup

u=t11-$$-$RANDOM
Q=$u.q
cluster_dir "$TMP/c"

# --- ALREADY_EXISTS, NOT_FOUND, and the silent createDivert
check_eq "create address" OK "$(jexec node1 create-address "$u" anycast)"
check_eq "create queue" OK "$(jexec node1 create-queue "$Q" "$u" anycast)"
check_eq "create divert" OK "$(jexec node1 create-divert "$u.d" "$u" "$u" "filter=a > 1")"
o=$(jexec node1 create-address "$u" anycast)
check_eq "address twice: ALREADY_EXISTS (AMQ229204)" \
	"ALREADY_EXISTS http=200 status=500: org.apache.activemq.artemis.api.core.ActiveMQAddressExistsException : AMQ229204: Address already exists: $u" "$o"
o=$(jexec node1 create-queue "$Q" "$u" anycast)
check_eq "queue twice: ALREADY_EXISTS (AMQ229019)" \
	"ALREADY_EXISTS http=200 status=500: java.lang.IllegalStateException : AMQ229019: Queue $Q already exists on address $u" "$o"
o=$(jexec node1 create-queue "$u.d" "$u" anycast)
check_grep "queue named like a divert: ALREADY_EXISTS (AMQ229235)" "^ALREADY_EXISTS http=200 status=500: .*AMQ229235" <(echo "$o")
check_eq "createDivert on a taken name answers OK (broker trap)" OK "$(jexec node1 create-divert "$u.d" "$u" "$u" "filter=b > 2")"
snap "$TMP/s.json" "$TMP/c" --node node1
check_eq "... and changes nothing: read back shows the first filter" '"a > 1"' "$(jval "$TMP/s.json" node1 diverts "$u.d" filter)"
o=$(jexec node1 destroy-queue "$u.nope")
check_eq "destroy unknown queue: NOT_FOUND (AMQ229017)" \
	"NOT_FOUND http=200 status=500: org.apache.activemq.artemis.api.core.ActiveMQNonExistentQueueException : AMQ229017: Queue $u.nope does not exist" "$o"
o=$(jexec node1 destroy-divert "$u.nope")
check_grep "destroy unknown divert: NOT_FOUND (AMQ229012)" "^NOT_FOUND http=200 status=500: .*AMQ229012: No binding for divert $u.nope$" <(echo "$o")
o=$(jexec node1 read "org.apache.activemq.artemis:broker=\"node1\",component=addresses,address=\"$u.nope\"" Address)
check_grep "read of a missing MBean: NOT_FOUND (404)" "^NOT_FOUND http=200 status=404: javax.management.InstanceNotFoundException" <(echo "$o")
o=$(jexec node1 read "org.apache.activemq.artemis:broker=*,component=addresses,address=\"$u.nope\"" Address)
check_eq "pattern read matching nothing: empty, not an error" OK "$o"
o=$(jexec node1 delete-address "$u")
check_grep "delete address with bindings: BROKER_ERROR with the broker's text" "^BROKER_ERROR http=200 status=500: .*AMQ229205: Address $u has bindings$" <(echo "$o")

# --- HAS_CONSUMERS with a real consumer
"$ARTEMIS" consumer node1 "$Q" >"$TMP/consumer.log" 2>&1 &
cpid=$!
_proxy_pids+=("$cpid")
check "consumer attached" "$ARTEMIS" wait-consumers node1 "$Q" 1 90
snap "$TMP/s.json" "$TMP/c" --node node1
check_eq "snapshot shows the consumer" 1 "$(jval "$TMP/s.json" node1 queues "$Q" consumer_count)"
o=$(jexec node1 destroy-queue "$Q")
check_eq "destroy with a consumer: HAS_CONSUMERS (AMQ229025)" \
	"HAS_CONSUMERS http=200 status=500: org.apache.activemq.artemis.api.core.ActiveMQIllegalStateException : AMQ229025: Cannot delete queue $Q on binding $Q - it has consumers = org.apache.activemq.artemis.core.postoffice.impl.LocalQueueBinding" "$o"
kill "$cpid"
wait "$cpid" 2>/dev/null
check "consumer gone" "$ARTEMIS" wait-consumers node1 "$Q" 0 60
check_eq "destroy after the consumer left" OK "$(jexec node1 destroy-queue "$Q")"
check_eq "cleanup divert" OK "$(jexec node1 destroy-divert "$u.d")"
check_eq "cleanup address" OK "$(jexec node1 delete-address "$u")"

# --- UNAUTHORIZED (wrong password) and THROTTLED; node2 still read.
# Hawtio throttles failed logins per user name: use a fresh one.
cp -a "$CREDDIR" "$TMP/badcreds"
chmod 700 "$TMP/badcreds"
printf '%s:wrong-password\n' "$u-intruder" >"$TMP/badcreds/node1"
"$AG_BIN" snapshot --json --credentials "$TMP/badcreds" "$TMP/c" >"$TMP/s.json" 2>"$TMP/err"
check_eq "wrong password: exit 1" 1 $?
check_eq "wrong password: UNAUTHORIZED" '{"http_status": 403, "kind": "UNAUTHORIZED", "status": 0, "text": "HTTP 403: authentication refused"}' \
	"$(jval "$TMP/s.json" node1 - - refusal)"
check_eq "wrong password: node2 still read" null "$(jval "$TMP/s.json" node2 - - refusal)"
check_eq "wrong password: node1 has no contents" '[]' "$(jval "$TMP/s.json" node1 - - queues)"
check_eq "wrong password: one line on stderr" \
	"artemis-gitops snapshot: node 'node1': UNAUTHORIZED (HTTP 403): HTTP 403: authentication refused" "$(cat "$TMP/err")"
check_absent "the password never appears" "wrong-password" "$TMP/s.json" '"name": "ExpiryQueue"'
for _ in 1 2 3 4 5 6; do
	"$AG_BIN" snapshot --json --credentials "$TMP/badcreds" --node node1 "$TMP/c" >"$TMP/s.json" 2>/dev/null
	[ "$(jval "$TMP/s.json" node1 - - refusal | grep -o THROTTLED)" = THROTTLED ] && break
done
# The consoles before 2.40 (Hawtio 2) never throttle: each failure stays
# UNAUTHORIZED (docs/compatibility.md).
if [[ $("$ARTEMIS" version) < 2.40 ]]; then
	check_eq "repeated failures: still UNAUTHORIZED (this release's console does not throttle)" \
		'{"http_status": 403, "kind": "UNAUTHORIZED", "status": 0, "text": "HTTP 403: authentication refused"}' \
		"$(jval "$TMP/s.json" node1 - - refusal)"
else
	check_eq "repeated failures: THROTTLED (HTTP 429)" '{"http_status": 429, "kind": "THROTTLED", "status": 0, "text": "HTTP 429: too many failed logins, throttled"}' \
		"$(jval "$TMP/s.json" node1 - - refusal)"
fi

# --- FORBIDDEN: RBAC (management.xml) refuses the read-only `viewer` user
# that scripts/artemis creates (role view: list*, get*, is*)
v=(--broker node1 "${URL[node1]}" "${CRED[node1]}-viewer")
check_eq "viewer may read" "OK {\"Version\":\"$("$ARTEMIS" version)\"}" "$("$JEXEC" "${v[@]}" read 'org.apache.activemq.artemis:broker="node1"' Version)"
check_eq "viewer may not destroy: FORBIDDEN (RBAC, JSON status 403)" \
	"FORBIDDEN http=200 status=403: java.lang.Exception : User not authorized to access operation: destroyQueue" \
	"$("$JEXEC" "${v[@]}" destroy-queue "$u.x")"
check_eq "viewer may not create: FORBIDDEN" \
	"FORBIDDEN http=200 status=403: java.lang.Exception : User not authorized to access operation: createAddress" \
	"$("$JEXEC" "${v[@]}" create-address "$u.x" anycast)"
mkdir -p "$TMP/cv"
sed 's/credentials: \(node[12]\)$/credentials: \1-viewer/' "$TMP/c/cluster.yaml" >"$TMP/cv/cluster.yaml"
snap "$TMP/s.json" "$TMP/cv"
check_eq "a read-only user can take a full snapshot" 0 $?
check_eq "... with the address-settings" '"OFF"' "$(jval "$TMP/s.json" node2 address_settings '#' config_delete_diverts)"

# --- FORBIDDEN: a JSON status 403 from the broker's Jolokia access policy
"$JEXEC" --origin http://127.0.0.1 "${URL[node1]}" "${CRED[node1]}" destroy-queue "$u.x" >"$TMP/o" 2>&1
check_eq "Origin not allowed: FORBIDDEN (JSON status 403)" \
	"FORBIDDEN http=200 status=403: java.lang.Exception : Origin http://127.0.0.1 is not allowed to call this agent" "$(cat "$TMP/o")"
snap "$TMP/s.json" "$TMP/c" --origin http://127.0.0.1
check_eq "snapshot with a refused Origin: every node FORBIDDEN" '["FORBIDDEN", "FORBIDDEN"]' \
	"$(python3 -c 'import json,sys;print(json.dumps([n["refusal"]["kind"] for n in json.load(open(sys.argv[1]))["nodes"]]))' "$TMP/s.json")"

# --- UNREACHABLE: a closed port
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')
cluster_dir "$TMP/cu" "node1=http://localhost:$port/console/jolokia"
snap "$TMP/s.json" "$TMP/cu"
check_eq "closed port: exit 1" 1 $?
check_eq "closed port: UNREACHABLE" '"UNREACHABLE"' \
	"$(python3 -c 'import json,sys;print(json.dumps(json.load(open(sys.argv[1]))["nodes"][0]["refusal"]["kind"]))' "$TMP/s.json")"
check_grep "closed port: curl's reason kept" "\"text\": \"Failed to connect to localhost port $port" "$TMP/s.json"
check_eq "closed port: node2 still read" '"node2"' "$(jval "$TMP/s.json" node2 - - broker_name)"

# --- TIMEOUT and BAD_RESPONSE through our proxy in front of node1
# kind_via MODE [snapshot args]: the refusal of node1 through the proxy
kind_via() {
	local mode=$1
	shift
	proxy_start "$mode" node1
	cluster_dir "$TMP/cp" "node1=$PROXY_URL"
	snap "$TMP/sp.json" "$TMP/cp" "$@"
	echo $? >"$TMP/sp.rc"
	proxy_stop
	python3 -c 'import json,sys;r=json.load(open(sys.argv[1]))["nodes"][0]["refusal"];print(r and r["kind"]+": "+r["text"])' "$TMP/sp.json"
}
t0=$SECONDS
o=$(kind_via stall --timeout 2)
check_grep "stalled broker: TIMEOUT" "^TIMEOUT: Operation timed out after 2[0-9]{3} milliseconds" <(echo "$o")
check "stalled broker: gave up within the timeout" test $((SECONDS - t0)) -le 6
check_eq "stalled broker: node2 still read" null "$(jval "$TMP/sp.json" node2 - - refusal)"
check_eq "stalled broker: exit 1" 1 "$(cat "$TMP/sp.rc")"
check_eq "garbage: BAD_RESPONSE" "BAD_RESPONSE: reply is not JSON" "$(kind_via garbage)"
check_grep "truncated body: BAD_RESPONSE" "^BAD_RESPONSE: transfer closed with [0-9]+ bytes remaining to read$" <(kind_via truncate)
check_eq "oversized body (--reply-max 16MiB): BAD_RESPONSE naming the cap" \
	"BAD_RESPONSE: response larger than 16777216 bytes: the cap is broker-reply-max (the agent configuration) or --reply-max (the command line)" \
	"$(kind_via big --reply-max 16MiB)"
check_eq "40 MiB of blanks under the default cap (256MiB): read as it comes, not JSON" \
	"BAD_RESPONSE: reply is not JSON" "$(kind_via big)"
"$AG_BIN" snapshot --json --credentials "$CREDDIR" --reply-max 12parsecs "$TMP/c" >/dev/null 2>"$TMP/rm.err"
check_eq "--reply-max: a size or a usage error (64)" 64 $?
check_grep "--reply-max: the message says what it takes" "--reply-max takes a size from 1MiB to 4GiB" "$TMP/rm.err"
check_eq "dropped connection: UNREACHABLE" "UNREACHABLE: Empty reply from server" "$(kind_via drop)"
check_eq "HTTP 401: UNAUTHORIZED" "UNAUTHORIZED: HTTP 401: authentication refused" "$(kind_via status:401)"
check_eq "HTTP 429: THROTTLED" "THROTTLED: HTTP 429: too many failed logins, throttled" "$(kind_via status:429)"
check_eq "HTTP 502: BROKER_ERROR" "BROKER_ERROR: HTTP 502" "$(kind_via status:502)"
check_eq "HTTP 404: BAD_RESPONSE" "BAD_RESPONSE: unexpected HTTP status 404" "$(kind_via status:404)"
check_eq "pass-through proxy: read fine" None "$(kind_via pass)"
# A broker's answer rewritten to counts no broker holds (issue 14, defect
# 5): the node is BAD_RESPONSE naming the attribute, so no plan sums them
# into the bulk cap.
check_grep "negative MessageCount: BAD_RESPONSE" \
	"^BAD_RESPONSE: queue '[^']+': attribute MessageCount: expected an integer from 0 to 9007199254740992, not -5\$" \
	<(kind_via 'sub/"MessageCount":[0-9]+/"MessageCount":-5')
check_grep "negative ConsumerCount: BAD_RESPONSE" \
	"^BAD_RESPONSE: queue '[^']+': attribute ConsumerCount: expected an integer from 0 to 2147483647, not -1\$" \
	<(kind_via 'sub/"ConsumerCount":[0-9]+/"ConsumerCount":-1')
check_grep "MessageCount past 2^53: BAD_RESPONSE" \
	"^BAD_RESPONSE: queue '[^']+': attribute MessageCount: expected an integer from 0 to 9007199254740992, not 9007199254740993\$" \
	<(kind_via 'sub/"MessageCount":[0-9]+/"MessageCount":9007199254740993')

# --- TLS: verification is on; --ca-file trusts our own CA
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
	-addext subjectAltName=DNS:localhost -keyout "$TMP/key.pem" \
	-out "$TMP/cert.pem" >/dev/null 2>&1
export FAULTPROXY_TLS_CERT=$TMP/cert.pem FAULTPROXY_TLS_KEY=$TMP/key.pem
check_grep "self-signed https endpoint: UNREACHABLE (certificate refused)" \
	"^UNREACHABLE: SSL certificate problem: self.signed certificate" <(kind_via pass)
check_eq "the same endpoint with --ca-file: read" None "$(kind_via pass --ca-file "$TMP/cert.pem")"
check_grep "the proxied node was declared with https" "jolokia: https://localhost:[0-9]+/console/jolokia" "$TMP/cp/cluster.yaml"
check_grep "unreadable --ca-file: UNREACHABLE" "^UNREACHABLE: .*$TMP/nope.pem" <(kind_via pass --ca-file "$TMP/nope.pem")
unset FAULTPROXY_TLS_CERT FAULTPROXY_TLS_KEY
done_testing
