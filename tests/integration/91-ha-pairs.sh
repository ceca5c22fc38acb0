#!/usr/bin/env bash
# HA pairs (docs/ha-pairs.md) on real brokers: a shared-store pair (pair1)
# and a replication pair (pair2) of Artemis, started by scripts/artemis
# up-pair, each one node of one cluster (node `ss`, node `rep`), each backup
# reached through opproxy so that every request sent to it is counted.
#   1. primaries live: the plan is made against the primaries, the backups
#      PASSIVE with their HA policy; the apply's operations all go to the
#      primaries (the backups' proxies log reads only); truth on the
#      primaries;
#   2. kill -9 both primaries; once the backups are live the plan is
#      NO_CHANGE against them (not UNREACHABLE, nothing to create: the new
#      live holds what the primary had);
#   3. on the new live members: a queue delete with its dependent divert
#      (ADR-0084 D1/D2), applied there, truth read there;
#   4. the daemon (`run --once`): its drift report of the failed-over pairs
#      shows no drift and names the live member; after failback again none,
#      naming the primaries;
#   5. fail back (the primaries restarted take over): drift clean;
#   6. a failover between approve and apply: the plan made against the
#      primary is applied on the backup, which the result and the audit
#      name (member, planned_member);
#   7. a node naming members of two different pairs is NOT_A_PAIR, both
#      NodeIDs named; a passive backup declared as a node of its own is
#      PASSIVE: no step applies there, and the plan goes on;
#   8. both members of the replication pair active (a real split brain:
#      scripts/artemis split-brain, the primary stopped until the backup
#      takes over, then resumed): the plan is refused SPLIT_BRAIN, and an
#      approved plan's apply refuses the node with nothing sent to either
#      member (both behind proxies); ended by restarting the backup;
#   9. three runs of the failover loop (ha-loop-lib.sh): an apply with a
#      kill -9 of a live member at a random point, the member restarted,
#      plan and apply converging, exactly the declaration left (the long
#      run: tests/soak/ha-failover-loop.sh).
# Truth is read with curl (brokers.sh's broker_jolokia), never through the
# agent's client.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
. "$AG_TOP/tests/integration/ha-loop-lib.sh"

TMP=$(mktemp -d)
CREDDIR=$TMP/creds
mkdir -m 0700 "$CREDDIR"
# Port base: ARTEMIS_PORT_BASE + 200: pairK's members sit at +(K-1)*10+3
# and +6 there, clear of the integration nodes (base .. base+40), of
# 90-versions (base+300 ..) and of the compat stage (base+500 ..).
pbase=$((${ARTEMIS_PORT_BASE:-100} + 200))
run=$TMP/run
u=t91-$$
apply_setup "$u"
art() { ARTEMIS_RUN_DIR=$run ARTEMIS_PORT_BASE=$pbase "$ARTEMIS" "$@"; }
cleanup() {
	local p
	for p in "${_proxy_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	art down >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

P1=pair1-primary B1=pair1-backup P2=pair2-primary B2=pair2-backup
check "fetch Artemis" art fetch
art up-pair pair1 shared-store >"$TMP/up1.txt" 2>"$TMP/up1.err" &
w1=$!
art up-pair pair2 replication >"$TMP/up2.txt" 2>"$TMP/up2.err" &
w2=$!
wait "$w1" && ok "a shared-store pair started" || not_ok "a shared-store pair started" "$(tail -5 "$TMP/up1.err")"
wait "$w2" && ok "a replication pair started" || not_ok "a replication pair started" "$(tail -5 "$TMP/up2.err")"
while read -r m url cred; do
	[ -n "$m" ] || continue
	URL[$m]=$url
	install -m 0600 "$cred" "$CREDDIR/$m"
	CRED[$m]=$CREDDIR/$m
done < <(cat "$TMP/up1.txt" "$TMP/up2.txt")
[ -n "${URL[$B2]:-}" ] || {
	echo "Bail out! the pairs did not start"
	exit 1
}

check_eq "pair1: the backup is passive" false "$(hl_attr "$B1" Active)"
check_eq "pair2: the backup is passive" false "$(hl_attr "$B2" Active)"
id1=$(hl_attr "$P1" NodeID)
id2=$(hl_attr "$P2" NodeID)
check_eq "pair1: one NodeID" "$id1" "$(hl_attr "$B1" NodeID)"

# Each backup behind opproxy: every request to it is logged.
opproxy_start "$B1"
BX1=$OPX_URL LOG1=$OPX_LOG
opproxy_start "$B2"
BX2=$OPX_URL LOG2=$OPX_LOG
# execs LOG: the operations (not reads) the proxy forwarded
execs() { awk '$2 != "read"' "$1" | wc -l; }
reads() { awk '$2 == "read"' "$1" | wc -l; }

# hadecl DIR BODY [MEMBER=URL ...]: the cluster: ss (pair1) and rep
# (pair2), each backup through its proxy, then BODY.
hadecl() { ha_cluster "$1" "$CL" "$2" "$B1=$BX1" "$B2=$BX2" "${@:3}"; }
FULL="addresses:
  - name: $u.orders
    routing: [anycast]
    queues: [{name: $u.orders}]
  - name: $u.events
    routing: [multicast]
    queues: [{name: $u.audit}]
diverts:
  - name: $u.copy
    address: $u.events
    forwarding-address: $u.orders"
NOORDERS="addresses:
  - name: $u.events
    routing: [multicast]
    queues: [{name: $u.audit}]"

# ---- 1. the primaries live ---------------------------------------------------
hadecl "$TMP/c1" "$FULL"
check "the declaration validates" "$AG_BIN" validate "$TMP/c1"
check_exit "plan: changes" 2 plan_to "$TMP/p1" "$TMP/c1"
check_eq "planned against the primaries" "$P1 $P2" "$(rj "$TMP/p1/plan.json" '" ".join(n["member"] for n in j["nodes"])')"
check_eq "the members' states" "$P1:LIVE $B1:PASSIVE $P2:LIVE $B2:PASSIVE" \
	"$(rj "$TMP/p1/plan.json" '" ".join(m["name"] + ":" + m["state"] for n in j["nodes"] for m in n["members"])')"
check_eq "the backups' HA policies" '["Shared Store Backup", "Replication Backup w/quorum voting"]' \
	"$(rj "$TMP/p1/plan.json" '[n["members"][1]["ha_policy"] for n in j["nodes"]]')"
check_eq "the replication backup is in sync" true "$(rj "$TMP/p1/plan.json" 'j["nodes"][1]["members"][1]["replica_sync"]')"
check_grep "plan.md: the HA members" "^\| ss \| $B1 \| PASSIVE \| Shared Store Backup \|" "$TMP/p1/plan.md"
check_grep "plan.md: the primary planned against" "^\| rep \| $P2 \| LIVE \(planned against\) \|" "$TMP/p1/plan.md"
check_grep "plan.md: the nodes read" "^\| ss \| [0-9.]+ \| ok \| " "$TMP/p1/plan.md"
check "approve" approve_ok "$TMP/p1"
check "apply" apply_to "$TMP/p1" "$TMP/c1"
check_eq "the result names the members acted on" "ss:$P1 rep:$P2" \
	"$(rj "$TMP/p1/result.json" '" ".join(n["node"] + ":" + n.get("member", "-") for n in j["nodes"])')"
for p in "$P1" "$P2"; do
	check_listed "$p holds the queue" "$p" queues "$u.orders"
	check_listed "$p holds the divert" "$p" diverts "$u.copy"
done
check_eq "no operation went to the shared-store backup" 0 "$(execs "$LOG1")"
check_eq "no operation went to the replication backup" 0 "$(execs "$LOG2")"
check_eq "each backup was read by plan and apply (one read each, and apply's read back)" \
	yes "$([ "$(reads "$LOG1")" -ge 2 ] && [ "$(reads "$LOG2")" -ge 2 ] && echo yes || echo no)"
check_eq "the passive backups still list nothing" '[]' "$(hl_attr "$B1" QueueNames)"
"$AG_BIN" snapshot "$TMP/c1" --credentials "$CREDDIR" >"$TMP/snap.txt" 2>"$TMP/snap.err"
check_eq "snapshot: exit 0 (a passive member is read, not a failure)" 0 "$?"
check_grep "snapshot: each member's state" "^  member $B1  PASSIVE  HA policy Shared Store Backup  " "$TMP/snap.txt"
check_grep "snapshot: the live member" "^  member $P2  LIVE  HA policy Replication Primary" "$TMP/snap.txt"
"$AG_BIN" snapshot "$TMP/c1" --credentials "$CREDDIR" --json >"$TMP/snap.json" 2>/dev/null
check_eq "snapshot --json: the live member and the members' reads" "$P1 LIVE,PASSIVE $P2 LIVE,PASSIVE" \
	"$(rj "$TMP/snap.json" '" ".join(n["member"] + " " + ",".join("LIVE" if m["refusal"] is None else m["refusal"]["kind"] for m in n["members"]) for n in j["nodes"])')"
check_eq "snapshot --json: one request per member" "2 2" "$(rj "$TMP/snap.json" '" ".join(str(n["requests"]) for n in j["nodes"])')"

# import of the two pairs (docs/import.md): each node read on its live
# member, the members kept in the nodes, what was applied declared once
hadecl "$TMP/nodes-ha" ""
check_exit "import: two HA pairs, each read on its live member" 0 "$AG_BIN" import \
	--from-live "$TMP/nodes-ha/cluster.yaml" --out "$TMP/imp" --credentials "$CREDDIR"
check_eq "import: both nodes keep their members" 2 "$(grep -c '^    members:$' "$TMP/imp/cluster.yaml")"
check_eq "import: the applied queues and divert declared" "[\"$u.audit\", \"$u.orders\"] [\"$u.copy\"]" \
	"$(python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(json.dumps(sorted(q["name"] for a in d["addresses"] for q in a["queues"] if q["name"].startswith(sys.argv[1]))), json.dumps(sorted(v["name"] for v in d["diverts"] if v["name"].startswith(sys.argv[1]))))' "$u." < <("$AG_BIN" validate --dump "$TMP/imp"))"
STATE0=$STATE
STATE=$TMP/imp-state
check_exit "import: its first plan changes nothing" 0 plan_to "$TMP/pimp" "$TMP/imp"
check_eq "import: NO_CHANGE, planned against the primaries, adopting" "[\"NO_CHANGE\", \"$P1 $P2\", true]" \
	"$(rj "$TMP/pimp/plan.json" '[j["outcome"], " ".join(n["member"] for n in j["nodes"]), sum(j.get("adopts", {}).values()) > 0]')"
STATE=$STATE0
check_eq "the import sent no operation to a backup" "0 0" "$(execs "$LOG1") $(execs "$LOG2")"

# ---- the daemon: its cluster applied by `run --once` ---------------------------
D=$TMP/daemon
git init -q --bare -b main "$D/origin.git"
git init -q -b main "$D/work"
git -C "$D/work" remote add origin "$D/origin.git"
CL_SAVE=$CL
CL=$u-d
hadecl "$D/work/clusters/$CL" "addresses:
  - name: $u.d
    routing: [anycast]
    queues: [{name: $u.d}]"
CL=$CL_SAVE
git -C "$D/work" add -A
git -C "$D/work" -c user.name=T -c user.email=t@example.com commit -q -m "ha"
git -C "$D/work" push -q origin main
cat >"$D/agent.yaml" <<EOC
version: 1
repository:
  url: file://$D/origin.git
  path: clusters
poll-interval: 1s
drift-interval: 1h
retry-max: 4s
auto-apply-creates: true
state: $D/state
credentials: $CREDDIR
EOC
once() {
	RC=0
	"$AG_BIN" run --config "$D/agent.yaml" --once 2>"$D/$1.log" || RC=$?
}
once a
check_eq "the daemon applied its commit on the primaries: exit 0" 0 "$RC"
check_listed "$P1 holds the daemon's queue" "$P1" queues "$u.d"

# ---- 2. kill -9 both primaries --------------------------------------------------
check "kill -9 the shared-store primary" art kill "$P1"
check "kill -9 the replication primary" art kill "$P2"
check "the shared-store backup is live" art wait-active "$B1" 60
check "the replication backup is live" art wait-active "$B2" 60
check_exit "plan after the failover: NO_CHANGE" 0 plan_to "$TMP/p2" "$TMP/c1"
check_eq "planned against the backups" "$B1 $B2" "$(rj "$TMP/p2/plan.json" '" ".join(n["member"] for n in j["nodes"])')"
check_eq "every node read" "true true" "$(rj "$TMP/p2/plan.json" '" ".join(str(n["reachable"]).lower() for n in j["nodes"])')"
check_eq "the primaries unreachable, as members" "UNREACHABLE UNREACHABLE" \
	"$(rj "$TMP/p2/plan.json" '" ".join(n["members"][0]["state"] for n in j["nodes"])')"
check_eq "no action: the new live holds what the primary had" 0 "$(rj "$TMP/p2/plan.json" 'len(j["actions"])')"
for b in "$B1" "$B2"; do
	check_listed "$b holds the queue after the takeover" "$b" queues "$u.orders"
	check_listed "$b holds the divert after the takeover" "$b" diverts "$u.copy"
done

# the daemon's drift check of the failed-over pairs
once b
check_eq "the drift check after the failover: exit 0" 0 "$RC"
dj=$(find "$D" -path "*$u-d/drift/drift.json" | head -1)
# the suite's other objects on these brokers are unmanaged for this cluster
# (and reported so); what it declared and applied has not drifted
nodrift='" ".join("%s=%d" % (k, len(j[k])) for k in ("missing", "changed", "disagreeing", "unreachable", "refused"))'
clean="missing=0 changed=0 disagreeing=0 unreachable=0 refused=0"
check_eq "no drift on the failed-over pairs" "$clean" "$(rj "$dj" "$nodrift")"
check_eq "the daemon's queue is not unmanaged" '[]' "$(rj "$dj" "[x['name'] for x in j['unmanaged'] if x['name'] == '$u.d']")"
check_eq "the drift report names the live members" "ss:$B1 rep:$B2" \
	"$(rj "$dj" '" ".join(h["node"] + ":" + str(h["live_member"]) for h in j["ha"])')"
check_grep "drift.md names the live member" "\`ss\`: live member \*\*$B1\*\*" "$(dirname "$dj")/drift.md"

# ---- 3. a queue delete with its dependent divert, on the new live -----------
hadecl "$TMP/c3" "$NOORDERS"
check_exit "plan the delete on the new live: changes" 2 plan_to "$TMP/p3" "$TMP/c3"
check_eq "the delete takes the divert along" '["delete-divert", "delete-queue"]' \
	"$(rj "$TMP/p3/plan.json" 'sorted(set(a["kind"] for a in j["actions"] if a["kind"] in ("delete-queue", "delete-divert")))')"
check "approve the delete" approve_ok "$TMP/p3"
check "apply the delete" apply_to "$TMP/p3" "$TMP/c3"
check_eq "done by the backups" "ss:$B1 rep:$B2" \
	"$(rj "$TMP/p3/result.json" '" ".join(n["node"] + ":" + n.get("member", "-") for n in j["nodes"])')"
for b in "$B1" "$B2"; do
	check_unlisted "$b: the queue is gone" "$b" queues "$u.orders" "$u.audit"
	if dv=$(broker_names "$b" diverts); then
		check_eq "$b: the divert is gone" "" "$(printf '%s\n' "$dv" | grep -F "$u." || true)"
	else
		not_ok "$b: the divert is gone" "reading the diverts of $b failed"
	fi
done

# ---- 5. fail back ----------------------------------------------------------------
check "the shared-store primary starts again and takes over" art start "$P1" 120
check "the replication primary starts again and takes over" art start "$P2" 120
check "the shared-store backup is passive again" wait_for 60 hl_passive "$B1"
check "the replication backup is passive again" wait_for 60 hl_passive "$B2"
check_exit "plan after failback: NO_CHANGE (no drift)" 0 plan_to "$TMP/p5" "$TMP/c3"
check_eq "planned against the primaries again" "$P1 $P2" "$(rj "$TMP/p5/plan.json" '" ".join(n["member"] for n in j["nodes"])')"
for p in "$P1" "$P2"; do
	check_unlisted "$p: the queue deleted on the backup stays deleted" "$p" queues "$u.orders" "$u.audit"
done
once c
check_eq "the drift check after failback: exit 0" 0 "$RC"
check_eq "no drift after failback" "$clean" "$(rj "$dj" "$nodrift")"
check_eq "the drift report names the primaries" "ss:$P1 rep:$P2" \
	"$(rj "$dj" '" ".join(h["node"] + ":" + str(h["live_member"]) for h in j["ha"])')"

# ---- 6. a failover between approve and apply ----------------------------------
hadecl "$TMP/c6" "$NOORDERS
  - name: $u.late
    routing: [anycast]
    queues: [{name: $u.late}]"
check_exit "plan a create against the primaries" 2 plan_to "$TMP/p6" "$TMP/c6"
check "approve it" approve_ok "$TMP/p6"
check "kill -9 the shared-store primary after the approval" art kill "$P1"
check "the shared-store backup is live" art wait-active "$B1" 60
: >"$LOG1"
check "apply after the failover" apply_to "$TMP/p6" "$TMP/c6"
check_eq "the result: ss done by the backup, planned against the primary" "ss:$B1:$P1 rep:$P2:-" \
	"$(rj "$TMP/p6/result.json" '" ".join(n["node"] + ":" + n.get("member", "-") + ":" + n.get("planned_member", "-") for n in j["nodes"])')"
check_grep "result.md says so" "HA member acted on: \*\*$B1\*\* \(the live one\); the plan was made against $P1: a failover since the plan" "$TMP/p6/result.md"
check_listed "the queue is on the new live" "$B1" queues "$u.late"
check_eq "the operations went to the new live (through its proxy)" yes "$([ "$(execs "$LOG1")" -ge 2 ] && echo yes || echo no)"
check_eq "the audit row names the member and the planned one" "$B1 $P1" \
	"$(audit_rows result | tail -1 | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); n=[x for x in r["nodes"] if x["node"]=="ss"][0]; print(n.get("member"), n.get("planned_member"))')"
check "the shared-store primary fails back" art start "$P1" 120
check "the shared-store backup is passive again" wait_for 60 hl_passive "$B1"

# ---- 7. not a pair; a passive backup declared as a node ---------------------
mkdir -p "$TMP/c7"
cat >"$TMP/c7/cluster.yaml" <<EOC
version: 1
cluster: $CL-x
mode: STUDIO_MANAGED
nodes:
  - name: mixed
    credentials: $P1
    members:
      - name: $P1
        jolokia: ${URL[$P1]}
      - name: $P2
        jolokia: ${URL[$P2]}
        credentials: $P2
$NOORDERS
EOC
check_exit "members of two pairs: refused" 1 plan_to "$TMP/p7" "$TMP/c7"
check_eq "NOT_A_PAIR" NOT_A_PAIR "$(rj "$TMP/p7/plan.json" 'j["refusal"]')"
check_grep "both NodeIDs named" "NodeID ${id1//\"/}\\).*NodeID ${id2//\"/}\\)" "$TMP/p7/plan.md"
cat >"$TMP/c7/cluster.yaml" <<EOC
version: 1
cluster: $CL-x
mode: STUDIO_MANAGED
nodes:
  - name: live
    jolokia: ${URL[$P1]}
    credentials: $P1
  - name: passive
    jolokia: $BX1
    credentials: $B1
addresses:
  - name: $u.pv
    routing: [anycast]
    queues: [{name: $u.pv}]
EOC
: >"$LOG1"
check_exit "a passive backup declared as a node: the plan goes on" 2 plan_to "$TMP/p7b" "$TMP/c7"
check_eq "its steps are PASSIVE" "WOULD_APPLY PASSIVE" "$(rj "$TMP/p7b/plan.json" '" ".join(s["outcome"] for s in j["actions"][0]["nodes"])')"
check_eq "and have no operation" 0 "$(rj "$TMP/p7b/plan.json" 'len(j["actions"][0]["nodes"][1]["operations"])')"
check_grep "plan.md: passive, and left alone" "^- \*\*passive\*\* is passive, and left alone \(PASSIVE\): passive backup \(HAPolicy 'Shared Store Backup'" "$TMP/p7b/plan.md"
check_eq "nothing was sent to it but the read" "1 0" "$(reads "$LOG1") $(execs "$LOG1")"

# ---- 8. a real split brain of the replication pair ---------------------------
SB="$NOORDERS
  - name: $u.sb
    routing: [anycast]
    queues: [{name: $u.sb}]"
hadecl "$TMP/c8" "$SB"
check_exit "plan a create before the split brain" 2 plan_to "$TMP/p8" "$TMP/c8"
check "approve it" approve_ok "$TMP/p8"
# the primary too behind a proxy now, to count what reaches either member
opproxy_start "$P2"
PX2=$OPX_URL LOGP2=$OPX_LOG
hadecl "$TMP/c8" "$SB" "$P2=$PX2"
check "both members of pair2 active (scripts/artemis split-brain)" art split-brain pair2 90
check_eq "both read Active true" "true true" "$(hl_attr "$P2" Active) $(hl_attr "$B2" Active)"
: >"$LOG2"
: >"$LOGP2"
check_exit "plan during the split brain: refused" 1 plan_to "$TMP/p8b" "$TMP/c8"
check_eq "SPLIT_BRAIN" SPLIT_BRAIN "$(rj "$TMP/p8b/plan.json" 'j["refusal"]')"
check_eq "the node refused, both members LIVE" "SPLIT_BRAIN LIVE LIVE" \
	"$(rj "$TMP/p8b/plan.json" '" ".join([j["nodes"][1]["refusal"]] + [m["state"] for m in j["nodes"][1]["members"]])')"
check_grep "plan.md names both members" "is refused \(SPLIT_BRAIN\): split brain: members '$P2' and '$B2' \(NodeID" "$TMP/p8b/plan.md"
check_exit "the approved plan's apply: refused on the split node" 1 apply_to "$TMP/p8" "$TMP/c8"
check_eq "rep refused SPLIT_BRAIN, ss applied" "ss:APPLIED rep:REFUSED" \
	"$(rj "$TMP/p8/result.json" '" ".join(n["node"] + ":" + n["outcome"] for n in j["nodes"])')"
check_eq "its kind" SPLIT_BRAIN "$(rj "$TMP/p8/result.json" '[n["kind"] for n in j["nodes"] if n["node"] == "rep"][0]')"
check_eq "nothing sent to either member of the split pair" "0 0" "$(execs "$LOG2") $(execs "$LOGP2")"
check_unlisted "$P2 did not get the queue" "$P2" queues "$u.sb" "$u.audit"
check_unlisted "$B2 did not get the queue" "$B2" queues "$u.sb" "$u.audit"
check_listed "ss got it" "$P1" queues "$u.sb"
# end it: the backup restarts, resyncs and is passive
check "end the split brain: stop the backup" art stop "$B2"
check "and start it again" art start "$B2" 120
check "the replication backup is passive again" wait_for 60 hl_passive "$B2"
check_exit "plan after the split brain: the node is read again" 2 plan_to "$TMP/p8c" "$TMP/c8"
check_eq "planned against the primary" "$P2" "$(rj "$TMP/p8c/plan.json" 'j["nodes"][1]["member"]')"

# ---- 9. the failover loop, short (the long one: tests/soak/ha-failover-loop.sh)
HL=$u-loop
for k in 1 2 3; do
	ha_loop_run "$k"
done
ha_loop_summary
check_eq "the loop deleted nothing unplanned" 0 "$HL_UNPLANNED"

done_testing
