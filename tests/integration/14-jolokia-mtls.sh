#!/usr/bin/env bash
# Mutual TLS against a real broker: `scripts/artemis up-tls node3` serves
# node3's console and Jolokia on https only and demands a client certificate
# signed by the test CA (Jetty's clientAuth, set up by Artemis's own `create
# --use-client-auth`). Without a certificate, and with one of another CA,
# the node is refused with a text naming the endpoint; with the right one
# (--client-cert, --client-key) snapshot, plan, delete-queue, apply and
# render --predict-reload read and change it, and plan and delete-queue take
# the --ca-file that verifies it. The key is a secret: refused when others
# may read it, never echoed; a certificate without its key is a usage error.
# The daemon does the same with its tls.* keys: tls.insecure (git only)
# leaves the broker's certificate verified, and its warning says so; a
# preview without the client certificate shows the refusal; one after
# SIGHUP with tls.client-cert-file and tls.client-key-file reads the node
# and is auto-applied; a key others may read is logged and no node is read.
# The broker's state is read with curl (brokers.sh), never with the product.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
TMP=$(mktemp -d)
N=node3
started=0
"$ARTEMIS" status 2>/dev/null | grep -q "^$N running" || started=1
cleanup() {
	[ "$started" = 1 ] && "$ARTEMIS" stop "$N" >/dev/null 2>&1
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
if ! "$ARTEMIS" up-tls "$N" >"$TMP/up.txt" 2>"$TMP/up.err"; then
	not_ok "scripts/artemis up-tls $N" "$(cat "$TMP/up.err")"
	done_testing
	exit 1
fi
read -r _ url cred <"$TMP/up.txt"
NODES=("$N")
URL[$N]=$url
CRED[$N]=$cred
CREDDIR=$(dirname "$cred")
RUNDIR=$(dirname "$CREDDIR")
PKI=$("$ARTEMIS" tls-dir)
CA=$PKI/ca.pem
CERT=$PKI/client.pem
KEY=$PKI/client.key
TLS=(--ca-file "$CA" --client-cert "$CERT" --client-key "$KEY")
endpoint=${url%/console/jolokia}
apply_setup t14mtls
check_grep "up-tls: node3's Jolokia is https" "^$N https://localhost:[0-9]+/console/jolokia " "$TMP/up.txt"
# The broker itself demands the certificate (not a proxy of ours): curl
# fails receiving (56) or, when the broker closes the connection right after
# its alert (Jetty 12.1, Artemis 2.44), sending (55).
curl -s -o /dev/null --max-time 10 --cacert "$CA" "$url"
rc=$?
if [ "$rc" -eq 55 ] || [ "$rc" -eq 56 ]; then ok "the broker refuses curl without a client certificate"; else
	not_ok "the broker refuses curl without a client certificate" "curl exit $rc, expected 55 or 56"; fi
check_grep "with the test CA's client certificate curl reads it" '"status":200' \
	<(broker_jolokia "$N" '{"type":"read","mbean":"java.lang:type=Runtime","attribute":"Uptime"}')

# What an earlier run left on the node (its instance outlives runs).
mb="org.apache.activemq.artemis:broker=\\\"$N\\\""
for a in $(broker_names "$N" addresses | grep '^mtls\.'); do
	broker_jolokia "$N" "{\"type\":\"exec\",\"mbean\":\"$mb\",\"operation\":\"deleteAddress(java.lang.String,boolean)\",\"arguments\":[\"$a\",true]}" >/dev/null
done

decl "$TMP/c" 'addresses:
  - name: mtls.orders
    routing: [anycast]
    queues: [{name: mtls.orders}]'
# as grep -E patterns
password=$(cut -d: -f2 "$cred" | sed 's/[].[\\*^$()+?{}|/]/\\&/g')
keyline=$(sed -n 2p "$KEY" | sed 's/[].[\\*^$()+?{}|/]/\\&/g')

# refusal FILE: `KIND: text` of node3 in a snapshot --json FILE.
refusal() {
	python3 -c 'import json,sys;r=json.load(open(sys.argv[1]))["nodes"][0]["refusal"];print(r and r["kind"]+": "+r["text"])' "$1"
}

# --- snapshot: no certificate, another CA's, the right one ---------------
snap "$TMP/s0.json" "$TMP/c" --ca-file "$CA"
check_eq "no client certificate: exit 1" 1 $?
# The server's alert names the refusal; a broker that closes the connection
# right after it (Jetty 12.1, Artemis 2.44) may leave no alert to read: then
# the refusal says the handshake asked for a certificate.
one_of() { # NAME VALUE PATTERN...: VALUE matches one of the (glob) patterns
	local name=$1 v=$2 p
	shift 2
	for p in "$@"; do
		# shellcheck disable=SC2053
		[[ $v == $p ]] && { ok "$name"; return; }
	done
	not_ok "$name" "got: $v" "expected one of: $*"
}
one_of "no client certificate: refused, naming the endpoint" "$(refusal "$TMP/s0.json")" \
	"UNREACHABLE: $endpoint requires a TLS client certificate and none was given (the server's TLS alert: bad certificate)" \
	"UNREACHABLE: $endpoint requires a TLS client certificate and none was given (it asked for one in the TLS handshake, then closed the connection: *)"
check_grep "no client certificate: said on stderr" "node3.*requires a TLS client certificate" "$TMP/s0.json.err"
snap "$TMP/s1.json" "$TMP/c" --ca-file "$CA" --client-cert "$PKI/rogue.pem" --client-key "$PKI/rogue.key"
check_eq "another CA's certificate: exit 1" 1 $?
one_of "another CA's certificate: refused" "$(refusal "$TMP/s1.json")" \
	"UNREACHABLE: $endpoint refused the TLS client certificate '$PKI/rogue.pem' (the server's TLS alert: certificate unknown): is it signed by a CA the server trusts?" \
	"UNREACHABLE: $endpoint refused the TLS client certificate '$PKI/rogue.pem' (it closed the connection after the TLS handshake that asked for it, with no alert read: *): is it signed by a CA the server trusts?"
snap "$TMP/s2.json" "$TMP/c" "${TLS[@]}"
check_eq "the right certificate: exit 0" 0 $?
check_eq "the right certificate: node3 read" "null" "$(jval "$TMP/s2.json" "$N" - - refusal)"
check_eq "the right certificate: its broker named" '"node3"' "$(jval "$TMP/s2.json" "$N" - - broker_name)"
snap "$TMP/s3.json" "$TMP/c" --client-cert "$CERT" --client-key "$KEY"
check_grep "the right certificate without --ca-file: the server is still verified" \
	"^UNREACHABLE: SSL certificate problem" <(refusal "$TMP/s3.json")

# --- the key is a secret; certificate and key go together ----------------
cp "$KEY" "$TMP/open.key"
chmod 0644 "$TMP/open.key"
snap "$TMP/s4.json" "$TMP/c" --ca-file "$CA" --client-cert "$CERT" --client-key "$TMP/open.key"
check_eq "a key readable by others: exit 1" 1 $?
check_eq "a key readable by others: refused, naming the file" \
	"artemis-gitops snapshot: --client-key: key file '$TMP/open.key': mode 0644: its group can read it, others can read it; a secret must be readable by its owner only (chmod 600 '$TMP/open.key')" \
	"$(cat "$TMP/s4.json.err")"
check_exit "a certificate without its key: usage error" 64 \
	"$AG_BIN" snapshot --credentials "$CREDDIR" --client-cert "$CERT" "$TMP/c"
check_exit "a key without its certificate: usage error" 64 \
	"$AG_BIN" plan "$TMP/c" --out "$TMP/px" --client-key "$KEY"

# --- plan and apply -------------------------------------------------------
plan_to "$TMP/p0" "$TMP/c" --client-cert "$CERT" --client-key "$KEY" >"$TMP/p0.out" 2>&1
check_eq "plan without --ca-file: node unreadable, exit 1" 1 $?
check_grep "plan without --ca-file: the certificate problem named" \
	"node 'node3': UNREACHABLE: SSL certificate problem" "$TMP/p0.out"
plan_to "$TMP/p1" "$TMP/c" --ca-file "$CA" >"$TMP/p1.out" 2>&1
check_eq "plan without a client certificate: exit 1" 1 $?
check_grep "plan without a client certificate: refused, naming the endpoint" \
	"node 'node3': UNREACHABLE: $endpoint requires a TLS client certificate" "$TMP/p1.out"
plan_to "$TMP/p" "$TMP/c" "${TLS[@]}" >"$TMP/p.out" 2>&1
check_eq "plan with --ca-file and the certificate: changes (exit 2)" 2 $?
check_grep "plan: creates mtls.orders on node3" "mtls.orders" "$TMP/p/plan.md"
check "approve" approve_ok "$TMP/p"
cp -r "$TMP/p" "$TMP/p-nocert"
STATE=$TMP/state-nocert apply_to "$TMP/p-nocert" "$TMP/c" --ca-file "$CA" >"$TMP/a0.out" 2>&1
check_eq "apply without the certificate: exit 1" 1 $?
listing "$TMP/l0" "$N" addresses
check_absent "apply without the certificate: nothing created" '^mtls\.orders$' "$TMP/l0" '^DLQ$'
apply_to "$TMP/p" "$TMP/c" "${TLS[@]}" >"$TMP/a.out" 2>&1
check_eq "apply with the certificate: exit 0" 0 $?
check_grep "apply: node3 APPLIED" "^node3 +APPLIED" "$TMP/a.out"
check_listed "apply: the broker has address mtls.orders" "$N" addresses mtls.orders
check_listed "apply: the broker has queue mtls.orders" "$N" queues mtls.orders

# --- delete-queue ---------------------------------------------------------
rm -rf "$TMP/d0" "$TMP/d"
"$AG_BIN" delete-queue mtls.orders "$TMP/c" --out "$TMP/d0" --credentials "$CREDDIR" \
	--client-cert "$CERT" --client-key "$KEY" >"$TMP/d0.out" 2>&1
check_eq "delete-queue without --ca-file: exit 1" 1 $?
check_grep "delete-queue without --ca-file: the certificate problem named" \
	"node 'node3': UNREACHABLE: SSL certificate problem" "$TMP/d0.out"
"$AG_BIN" delete-queue mtls.orders "$TMP/c" --out "$TMP/d" --credentials "$CREDDIR" \
	"${TLS[@]}" >"$TMP/d.out" 2>&1
check_eq "delete-queue with --ca-file and the certificate: changes (exit 2)" 2 $?
check "approve the delete" approve_ok "$TMP/d"
apply_to "$TMP/d" "$TMP/c" "${TLS[@]}" >"$TMP/ad.out" 2>&1
check_eq "apply the delete: exit 0" 0 $?
listing "$TMP/l1" "$N" queues
check_absent "apply the delete: queue mtls.orders gone" '^mtls\.orders$' "$TMP/l1" '^DLQ$'

# --- render --predict-reload reads the node the same way -------------------
schema=$("$AG_TOP/scripts/artemis-schema")
mkdir -p "$TMP/cm/broker"
cp "$RUNDIR/$N/etc/broker.xml" "$TMP/cm/broker/broker.xml"
cat >"$TMP/cm/cluster.yaml" <<YAML
version: 1
cluster: t14cm
mode: CONFIG_MANAGED
nodes:
  - {name: $N, jolokia: "$url", credentials: $N}
addresses:
  - {name: DLQ, routing: [anycast], queues: [{name: DLQ}]}
  - {name: ExpiryQueue, routing: [anycast], queues: [{name: ExpiryQueue}]}
YAML
"$AG_BIN" render "$TMP/cm" --out "$TMP/r0" --schema-dir "$schema" --predict-reload \
	--credentials "$CREDDIR" --ca-file "$CA" >"$TMP/r0.out" 2>&1
check_eq "render --predict-reload without a certificate: exit 1" 1 $?
check_grep "render --predict-reload without a certificate: not predicted" \
	"node 'node3': UNREACHABLE, its reload is not predicted" "$TMP/r0.out"
"$AG_BIN" render "$TMP/cm" --out "$TMP/r" --schema-dir "$schema" --predict-reload \
	--credentials "$CREDDIR" "${TLS[@]}" >"$TMP/r.out" 2>&1
check_eq "render --predict-reload with the certificate: exit 0" 0 $?
check_grep "render --predict-reload with the certificate: predicted" \
	"^#### Reload of the rendered broker.xml on node 'node3'\$" "$TMP/r.out"

# --- the daemon: the tls.* keys --------------------------------------------
. "$AG_TOP/tests/integration/daemon-lib.sh"
echo "$N $url $cred" >"$TMP/nodes.txt"
AG_NODES_FILE=$TMP/nodes.txt # the daemon's cluster: node3 alone
daemon_setup t14d
trap 'daemon_cleanup; cleanup' EXIT
mkdir -m 0700 "$T/creds"
cp "$cred" "$T/creds/$N"
cp "$KEY" "$T/creds/agent.key"
chmod 0600 "$T/creds/$N" "$T/creds/agent.key"
sed -i "s|^credentials: .*|credentials: $T/creds\nauto-apply-creates: true|" "$T/agent.yaml"
cp "$T/agent.yaml" "$T/agent.base"
# tls_conf LINE...: the configuration with this tls section.
tls_conf() {
	{
		cat "$T/agent.base"
		echo "tls:"
		printf '  %s\n' "$@"
	} >"$T/agent.yaml"
}
# reloaded N: the Nth "configuration reloaded" is logged.
reloaded() { [ "$(grep -c "notice loop: configuration reloaded" "$T/agent.log")" -ge "$1" ]; }
tls_conf "insecure: true" "client-cert-file: $CERT" "client-key-file: agent.key"
u=$RANDOM$RANDOM
printf 'version: 1\naddresses: [{name: mtls.d%s, routing: [anycast], queues: [{name: mtls.d%s}]}]\n' "$u" "$u" \
	>"$T/work/clusters/t14d/addresses.yaml"
c1=$(daemon_commit "t14d: one queue")
daemon_start
check "tls.insecure: its warning says it applies to git only" wait_for 20 grep -qF \
	"warning: 'tls.insecure' is on: the git server's TLS certificate is not verified (it applies to git only: brokers' certificates are still verified)" "$T/agent.log"
check "tls.insecure without tls.ca-file: c1 previewed" wait_for 60 has_preview "$c1"
p1=$(preview_of "$c1")
check_grep "its preview: node3 UNREACHABLE" "^\\| $N \\| - \\| UNREACHABLE" "$p1/plan.md"
check_grep "its log: the broker's certificate is still verified" \
	"cluster 't14d': node '$N': UNREACHABLE \\(SSL certificate problem" "$T/agent.log"
tls_conf "ca-file: $CA"
kill -HUP "$PID"
check "SIGHUP: tls.ca-file alone loaded" wait_for 20 reloaded 1
check "without a client certificate: the broker wants one, endpoint named" wait_for 30 grep -q \
	"cluster 't14d': node '$N': UNREACHABLE ($endpoint requires a TLS client certificate and none was given" "$T/agent.log"
tls_conf "ca-file: $CA" "client-cert-file: $CERT" "client-key-file: agent.key"
kill -HUP "$PID"
check "SIGHUP: the tls.* keys loaded" wait_for 20 reloaded 2
whole() { p=$(preview_of "$c1"); [ "$p" != "$p1" ] && grep -qE "^\\| $N \\| [0-9.]+ \\| ok \\|" "$p/plan.md"; }
check "with tls.client-cert-file and tls.client-key-file: c1 replanned, node3 read" wait_for 60 whole
p1b=$(preview_of "$c1")
check "c1 auto-applied (creates only): a result" wait_for 60 test -f "$p1b/result.json"
check_applied "c1 auto-applied through mutual TLS: node3 APPLIED" "$p1b"
check_listed "c1 auto-applied: node3 has queue mtls.d$u" "$N" queues "mtls.d$u"
chmod 0644 "$T/creds/agent.key"
printf 'version: 1\naddresses: [{name: mtls.d%s, routing: [anycast], queues: [{name: mtls.d%s}, {name: mtls.e%s}]}]\n' "$u" "$u" "$u" \
	>"$T/work/clusters/t14d/addresses.yaml"
c2=$(daemon_commit "t14d: a second queue")
check "a key others may read: c2 previewed" wait_for 60 has_preview "$c2"
p2=$(preview_of "$c2")
check_grep "its log: the key refused, naming the file; no node read" \
	"err daemon: cluster 't14d': tls.client-key-file: key file '$T/creds/agent.key': mode 0644: its group can read it, others can read it; a secret must be readable by its owner only \\(chmod 600 '$T/creds/agent.key'\\): no node is read" "$T/agent.log"
check_grep "its preview: node3 UNREACHABLE" "^\\| $N \\| - \\| UNREACHABLE" "$p2/plan.md"
listing "$TMP/l2" "$N" queues
check_absent "c2 not applied: no queue mtls.e$u" "^mtls\\.e$u\$" "$TMP/l2" "^mtls\\.d$u\$"
daemon_stop
check_eq "daemon: SIGTERM, exit 0" 0 "$RC"

# --- no secret anywhere ---------------------------------------------------
cat "$TMP"/*.out "$TMP"/*.err "$TMP"/p/plan.* "$TMP"/d/plan.* "$TMP"/p/result.* \
	"$STATE/audit.jsonl" "$T/agent.log" "$T/state/audit.jsonl" >"$TMP/all.txt" 2>/dev/null
find "$T/state/outbox" -type f -exec cat {} + >>"$TMP/all.txt" 2>/dev/null
check_absent "the broker password is in no output, plan or audit row" "$password" "$TMP/all.txt" "mtls.orders"
check_absent "no line of the key is in any output, plan or audit row" "$keyline" "$TMP/all.txt" "mtls.orders"
done_testing
