#!/usr/bin/env bash
# Credentials sent in clear are warned about: a node reached over plain
# http:// at an address that is not loopback (here a faultproxy in front of
# node1, listening on this host's own non-loopback address) gets one
# warning naming the node and the endpoint, on stderr from each command
# (snapshot, plan, apply) and once per run in the daemon's log, however
# many cycles read it; node2 on localhost (loopback: that traffic never
# leaves the host) gets none.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
apply_setup t15clear
ip=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+(\.[0-9]+){3}$' | grep -v '^127\.' | head -n 1)
if [ -z "$ip" ]; then
	not_ok "this host has a non-loopback IPv4 address" "$(hostname -I 2>&1)"
	done_testing
	exit 1
fi
FAULTPROXY_BIND=$ip proxy_start pass node1
remote=$PROXY_URL
check_grep "the proxy's endpoint is at $ip" "^http://$ip:[0-9]+/console/jolokia\$" <(echo "$remote")
# warning CMD: the warning of command CMD about node1.
warning() {
	echo "artemis-gitops $1: warning: node 'node1': its credentials go unencrypted to $remote (plain http:// to a host that is not loopback): use https://"
}

# Loopback only: no warning.
cluster_dir "$TMP/local"
snap "$TMP/s0.json" "$TMP/local"
check_eq "localhost endpoints: read" 0 $?
check_eq "localhost endpoints: no warning" "" "$(cat "$TMP/s0.json.err")"

cluster_dir "$TMP/c" node1="$remote"
snap "$TMP/s1.json" "$TMP/c"
check_eq "node1 over $ip: read (exit 0)" 0 $?
check_eq "node1 over $ip: read through the proxy" null "$(jval "$TMP/s1.json" node1 - - refusal)"
check_grep "the request went through the proxy" "^POST /console/jolokia" "$PROXY_LOG"
check_eq "snapshot: one warning, naming node1 and its endpoint; none for node2" \
	"$(warning snapshot)" "$(cat "$TMP/s1.json.err")"

decl "$TMP/d" 'addresses:
  - name: t15.clear
    routing: [anycast]
    queues: [{name: t15.clear}]' node1="$remote"
janitor t15.
plan_to "$TMP/p" "$TMP/d" >"$TMP/p.out" 2>"$TMP/p.err"
check_eq "plan: changes (exit 2)" 2 $?
check_eq "plan: the warning, once" "$(warning plan)" "$(cat "$TMP/p.err")"
check "approve" approve_ok "$TMP/p"
apply_to "$TMP/p" "$TMP/d" >"$TMP/a.out" 2>"$TMP/a.err"
check_eq "apply: exit 0" 0 $?
check_eq "apply: the warning, once (with the progress lines)" 1 "$(grep -c 'warning: node' "$TMP/a.err")"
check_grep "apply: its text" "^$(warning apply | sed 's/[].[\\*^$()+?{}|/]/\\&/g')\$" "$TMP/a.err"
check_listed "apply through $ip: node1 has t15.clear" node1 queues t15.clear

# The daemon: once per run, over several cycles.
. "$AG_TOP/tests/integration/daemon-lib.sh"
{
	echo "node1 $remote ${CRED[node1]}"
	echo "node2 ${URL[node2]} ${CRED[node2]}"
} >"$TMP/nodes.txt"
AG_NODES_FILE=$TMP/nodes.txt daemon_setup t15d
trap 'daemon_cleanup; _brokers_cleanup' EXIT
printf 'version: 1\naddresses: [{name: t15.d, routing: [anycast], queues: [{name: t15.d}]}]\n' \
	>"$T/work/clusters/t15d/addresses.yaml"
c1=$(daemon_commit "t15d: one queue")
daemon_start
check "daemon: c1 previewed" wait_for 60 has_preview "$c1"
echo "# touched" >>"$T/work/clusters/t15d/addresses.yaml"
c2=$(daemon_commit "t15d: again")
check "daemon: c2 previewed (a second read of both nodes)" wait_for 60 has_preview "$c2"
kill -USR1 "$PID"
sleep 2
daemon_stop
check_eq "daemon: exit 0" 0 "$RC"
check_eq "daemon: node1 warned about once in the run" 1 \
	"$(grep -cF "warning targets: node 'node1': its credentials go unencrypted to $remote (plain http:// to a host that is not loopback): use https://" "$T/agent.log")"
check_absent "daemon: node2 (localhost) never warned about" "node 'node2': its credentials go unencrypted" \
	"$T/agent.log" "preview .*t15d"
janitor t15.
done_testing
