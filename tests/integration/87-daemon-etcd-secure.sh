#!/usr/bin/env bash
# Agents on a real 3-member etcd over TLS (issue 21; docs/ha.md): every
# member serves https and asks for a client certificate of its CA
# (scripts/etcd up-tls: --client-cert-auth), and authentication is on
# with a user whose role may read and write the test's prefix only. Two
# agents with coordination.ca-file, client-cert-file, client-key-file (in
# the credentials folder), user and password-file elect one leader, the
# other stands by, the leader plans a commit. Then the refusals, each an
# agent that exits 1 at its start with a log line naming etcd and why: a
# wrong password (the password never in the log), no client certificate
# (etcd refuses the handshake), a client certificate of another CA, a CA
# that is not etcd's (the agent refuses etcd's certificate), a prefix the
# role may not touch (permission denied). No secret (the passwords, a line
# of the client key) in any log, preview, state file or etcd key.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t87-$$
daemon_setup t87
. "$AG_TOP/tests/integration/ha-lib.sh"
trap 'etcd_cleanup; daemon_cleanup; _brokers_cleanup' EXIT
yaml=$T/work/clusters/t87/cluster.yaml

export ETCD_TLS=1
etcd_setup 3
PKI=$("$ETCD" pki-dir)
check_eq "etcd: 3 https client URLs" 3 "$(grep -c '^https://127\.0\.0\.1:' "$T/etcd.urls")"
url1=$(head -n 1 "$T/etcd.urls")
check_fails "etcd refuses a client without a certificate (curl)" \
	curl -sS -m 5 --cacert "$PKI/ca.pem" "$url1/version"
check_fails "etcd refuses a client certificate of another CA (curl)" \
	curl -sS -m 5 --cacert "$PKI/ca.pem" --cert "$PKI/rogue.pem" --key "$PKI/rogue.key" "$url1/version"
check_grep "etcd answers a client certificate of its CA (curl)" etcdserver \
	<(curl -sS -m 5 --cacert "$PKI/ca.pem" --cert "$PKI/client.pem" --key "$PKI/client.key" "$url1/version")

# The agents' credentials folder: the brokers' credentials, the etcd
# password and the client key (0600). The only place, with the etcd run
# folder (its PKI), where the secrets may be.
creds=$T/creds
mkdir -m 0700 "$creds"
for n in "${NODES[@]}"; do cp -p "${CRED[$n]}" "$creds/"; done
umask 077
pw=$(head -c 18 /dev/urandom | base64 | tr '+/' '._')
badpw=wrong-$(head -c 12 /dev/urandom | base64 | tr '+/' '._')
printf '%s\n' "$pw" >"$creds/etcd-password"
printf '%s\n' "$badpw" >"$creds/etcd-password-wrong"
cp "$PKI/client.key" "$creds/etcd-client.key"
cp "$PKI/rogue.key" "$creds/etcd-rogue.key"
umask 022
keyline=$(sed -n 2p "$creds/etcd-client.key")
check "the client key has a line to look for" test ${#keyline} -ge 40
EUSER=ag87
check "auth-enable: user $EUSER, role limited to $HA_PREFIX" \
	"$ETCD" auth-enable "$EUSER" "@$creds/etcd-password" "$HA_PREFIX"

# etcdctl as root (ha-lib's etcd_get, leader, etcd_keys), over TLS
rootpw=$(cat "$ETCD_RUN_DIR/root.password")
etcdctl_() {
	ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URLS" --command-timeout=2s \
		--cacert "$PKI/ca.pem" --cert "$PKI/client.pem" --key "$PKI/client.key" \
		--user root --password "$rootpw" "$@"
}
as_user() {
	ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URLS" --command-timeout=2s \
		--cacert "$PKI/ca.pem" --cert "$PKI/client.pem" --key "$PKI/client.key" \
		--user "$EUSER" --password "$pw" "$@"
}
check "etcd: $EUSER may write under $HA_PREFIX" as_user put "${HA_PREFIX}probe" x
check_grep "etcd: ... and nowhere else (permission denied)" "permission denied" \
	<(as_user put /t87-elsewhere x 2>&1)

# sconf NAME [KEY=VALUE...]: $T/NAME.yaml, $T/agent.yaml with the state
# folder $T/state-NAME, the credentials folder $creds and a coordination
# over TLS: KEY (ca, cert, key, pwfile, prefix) overrides its default,
# an empty VALUE leaves the key out.
sconf() {
	local name=$1 kv
	local -A v=([ca]=$PKI/ca.pem [cert]=$PKI/client.pem [key]=etcd-client.key
		[pwfile]=etcd-password [prefix]=$HA_PREFIX)
	shift
	for kv in "$@"; do v[${kv%%=*}]=${kv#*=}; done
	sed -e "s|^state: .*|state: $T/state-$name|" -e "s|^credentials: .*|credentials: $creds|" \
		"$T/agent.yaml" >"$T/$name.yaml"
	{
		echo "coordination:"
		echo "  endpoints: [$ETCD_URLS]"
		echo "  agent-id: $name"
		echo "  prefix: ${v[prefix]}"
		echo "  lease-ttl: 5s"
		echo "  lease-margin: 2s"
		echo "  request-timeout: 1s"
		[ -z "${v[ca]}" ] || echo "  ca-file: ${v[ca]}"
		[ -z "${v[cert]}" ] || echo "  client-cert-file: ${v[cert]}"
		[ -z "${v[key]}" ] || echo "  client-key-file: ${v[key]}"
		echo "  user: $EUSER"
		echo "  password-file: ${v[pwfile]}"
		echo "state-backend: etcd"
	} >>"$T/$name.yaml"
}
# ha-lib's ag_start and ag_preview know agI.yaml and stateI
sconf ag1
sconf ag2
for i in 1 2; do sed -i "s|^state: .*|state: $T/state$i|" "$T/ag$i.yaml"; done
check "ag1: its configuration validates" "$AG_BIN" run --config "$T/ag1.yaml" --describe-config

# --- one leader, one standby, a commit planned ------------------------------
is_leader() { [ "$(leader)" = "$1" ]; }
has_preview_of() { [ -n "$(ag_preview "$1" "$2")" ]; }
printf '%s\naddresses:\n  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' \
	"$(cat "$yaml")" "$u.q" "$u.q" >"$yaml"
c1=$(daemon_commit "t87: $u.q")
ag_start 1
check "ag1 leads (over TLS, as $EUSER)" wait_for 30 is_leader ag1
ag_start 2
check "ag1 posts the preview of c1" wait_for 60 has_preview_of 1 "$c1"
check "ag2 validated c1 and stands by" \
	wait_for 30 grep -q "commit ${c1:0:12} validated; standing by, owned by agent 'ag1'" "$T/ag2.log"
check_eq "no preview from the standby" "" "$(ls "$T/state2/outbox/t87" 2>/dev/null)"
check_eq "both agents are members in etcd" "$(printf '%s\n' "${HA_PREFIX}members/ag1" "${HA_PREFIX}members/ag2")" \
	"$(etcd_keys members/)"
check_grep "ag1's plan of c1 creates $u.q" "$u.q" "$(ag_preview 1 "$c1")/plan.md"

# --- refusals: each agent exits 1 at its start ------------------------------
# refused NAME: run the agent of $T/NAME.yaml once in the foreground (log
# $T/NAME.log); exit 1 expected
run_once() { timeout 60 "$AG_BIN" run --config "$T/$1.yaml" 2>"$T/$1.log"; }
refused() { check_exit "$1: refused at start (exit 1)" 1 run_once "$1"; }
sconf badpw pwfile=etcd-password-wrong
refused badpw
check_grep "badpw: the log names etcd's refusal of $EUSER's password" \
	"coordination: etcd https://127\.0\.0\.1:[0-9]+/v3/auth/authenticate: .*authentication failed, invalid user ID or password \(user '$EUSER'\)" "$T/badpw.log"
check_absent "badpw: the wrong password is not in its log" "$badpw" "$T/badpw.log" "coordination: "

sconf nocert cert= key=
refused nocert
check_grep "nocert: the log says etcd requires a client certificate" \
	"coordination: etcd https://127\.0\.0\.1:[0-9]+/v3/auth/authenticate: https://127\.0\.0\.1:[0-9]+ requires a TLS client certificate and none was given" "$T/nocert.log"

sconf roguecert cert="$PKI/rogue.pem" key=etcd-rogue.key
refused roguecert
check_grep "roguecert: the log says etcd refused that client certificate" \
	"coordination: etcd https://127\.0\.0\.1:[0-9]+/v3/auth/authenticate: https://127\.0\.0\.1:[0-9]+ refused the TLS client certificate '$PKI/rogue\.pem'" "$T/roguecert.log"

sconf rogueca ca="$PKI/rogue-ca.pem"
refused rogueca
check_grep "rogueca: the log says etcd's certificate failed verification" \
	"coordination: etcd https://127\.0\.0\.1:[0-9]+/v3/auth/authenticate: .*certificate verify failed: the TLS certificate of https://127\.0\.0\.1:[0-9]+ is not trusted by the CA file '$PKI/rogue-ca\.pem'" "$T/rogueca.log"

sconf noperm prefix=/t87-other-$$/
refused noperm
check_grep "noperm: the log names the key and says permission denied" \
	"coordination: etcd: agent 'noperm' cannot write its member key '/t87-other-$$/members/noperm' .*permission denied" "$T/noperm.log"

check "the leader is still ag1" is_leader ag1
check_eq "the members are still ag1 and ag2" "$(printf '%s\n' "${HA_PREFIX}members/ag1" "${HA_PREFIX}members/ag2")" \
	"$(etcd_keys members/)"
etcdctl_ get --from-key '' >"$T/etcd-dump.txt" 2>&1
check_grep "the etcd dump holds the agents' keys" "^${HA_PREFIX}members/ag1\$" "$T/etcd-dump.txt"
check_eq "no key in etcd outside $HA_PREFIX" "" \
	"$(etcdctl_ get --from-key --keys-only '' | sed '/^$/d' | grep -v "^$HA_PREFIX")"

# --- no secret anywhere but the credentials folder and etcd's PKI ------------
ag_stop 2
ag_stop 1
check "the password is where it belongs (so the grep can find it)" grep -qF -- "$pw" "$creds/etcd-password"
for s in "$pw" "$badpw" "$keyline"; do
	check_eq "no secret (${s:0:4}...) in any log, preview, state file or etcd key" "" \
		"$(grep -rlF --exclude-dir=creds --exclude-dir=etcd -- "$s" "$T")"
done
check_eq "no agent crashed" "" "$(grep -l "AddressSanitizer\|runtime error" "$T"/*.log 2>/dev/null)"
done_testing
