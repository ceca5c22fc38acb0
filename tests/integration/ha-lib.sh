# tests/integration/ha-lib.sh: several agents on a real etcd cluster
# (docs/ha.md), shared by 84-daemon-ha.sh, 85-daemon-shard.sh and
# tests/soak/ha-kill-loop.sh. Source after daemon-lib.sh and daemon_setup.
#
#   etcd_setup N            a real N-member etcd cluster (scripts/etcd) on
#                           this run's ports (24000 + ARTEMIS_PORT_BASE),
#                           its run folder in $T; stopped at exit
#   ag_conf I [MODE] [TTL]  $T/agI.yaml: $T/agent.yaml with its own state
#                           folder $T/stateI, agent-id agI, every etcd
#                           endpoint, shard mode MODE (none), lease TTL
#                           (5s, margin 2s), state-backend etcd
#   ag_start I / ag_kill I / ag_stop I   run agent I (log $T/agI.log;
#                           pid in AGPID[I])
#   etcd_get KEY            the value of KEY under the test's prefix
#   etcd_keys PREFIX        the keys under the test's prefix + PREFIX
#   leader                  the agent holding the leader key (or "")
#   ag_preview I COMMIT     agent I's newest preview of COMMIT, or ""
#   mutations LOG [FROM]    the lines of an opproxy log (after line FROM)
#                           that are not reads: what changed a broker

ETCD=$AG_TOP/scripts/etcd
HA_PREFIX=/t-ha-$$/
declare -A AGPID

etcd_setup() {
	export ETCD_PORT_BASE=$((24000 + ${ARTEMIS_PORT_BASE:-100}))
	export ETCD_RUN_DIR=$T/etcd
	"$ETCD" up "$1" >"$T/etcd.urls" || {
		echo "Bail out! scripts/etcd up $1 failed"
		exit 1
	}
	ETCD_URLS=$(paste -sd, "$T/etcd.urls")
}

etcd_cleanup() {
	local i
	for i in "${!AGPID[@]}"; do
		kill -CONT "${AGPID[$i]}" 2>/dev/null
		kill -9 "${AGPID[$i]}" 2>/dev/null
		wait "${AGPID[$i]}" 2>/dev/null
	done
	[ -z "${ETCD_RUN_DIR:-}" ] || "$ETCD" down >/dev/null 2>&1 || true
}

ag_conf() {
	local i=$1 mode=${2:-none} ttl=${3:-5s}
	sed -e "s|^state: .*|state: $T/state$i|" "$T/agent.yaml" >"$T/ag$i.yaml"
	cat >>"$T/ag$i.yaml" <<EOC
coordination:
  endpoints: [$ETCD_URLS]
  agent-id: ag$i
  prefix: $HA_PREFIX
  lease-ttl: $ttl
  lease-margin: 2s
  request-timeout: 1s
  shard:
    mode: $mode
state-backend: etcd
EOC
}

ag_start() {
	"$AG_BIN" run --config "$T/ag$1.yaml" 2>>"$T/ag$1.log" &
	AGPID[$1]=$!
}

ag_kill() {
	kill -9 "${AGPID[$1]}" 2>/dev/null
	wait "${AGPID[$1]}" 2>/dev/null
	unset "AGPID[$1]"
}

ag_stop() {
	kill -TERM "${AGPID[$1]}" 2>/dev/null
	wait "${AGPID[$1]}" 2>/dev/null
	unset "AGPID[$1]"
}

etcdctl_() {
	ETCDCTL_API=3 etcdctl --endpoints "$ETCD_URLS" --command-timeout=2s "$@"
}

etcd_get() { etcdctl_ get --print-value-only "$HA_PREFIX$1" 2>/dev/null; }
etcd_keys() { etcdctl_ get --prefix --keys-only "$HA_PREFIX$1" 2>/dev/null | sed '/^$/d'; }
# the create revision of KEY (the epoch), or 0
etcd_create_rev() {
	etcdctl_ get -w json "$HA_PREFIX$1" 2>/dev/null |
		python3 -c 'import json,sys; k=json.load(sys.stdin).get("kvs") or [{}]; print(k[0].get("create_revision", 0))'
}
leader() { etcd_get leader; }

ag_preview() {
	local d
	for d in "$T/state$1/outbox/${3:-$CLUSTER}"/*-"${2:0:12}"*; do
		[ -f "$d/plan.md" ] && echo "$d"
	done | tail -n 1
}

mutations() {
	tail -n +"$((${2:-0} + 1))" "$1" |
		awk '$2 != "read" && $2 != "search" && $2 != "list" && $2 != "version"'
}

# the audit rows in etcd of cluster $CLUSTER with EVENT (intent, result)
# and plan digest DIGEST (any when empty), one a line
etcd_audit_rows() {
	etcdctl_ get --prefix --print-value-only "${HA_PREFIX}audit/$CLUSTER/" 2>/dev/null |
		python3 -c '
import json, sys
ev, dg = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    if r.get("event") == ev and (not dg or r.get("plan_digest") == dg):
        print(line)
' "$1" "${2:-}"
}
