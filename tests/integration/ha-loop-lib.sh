# shellcheck shell=bash
# tests/integration/ha-loop-lib.sh: the failover loop of HA pairs (not a
# test itself: tests/run runs only NN-*.sh), shared by
# tests/integration/91-ha-pairs.sh (a short run) and
# tests/soak/ha-failover-loop.sh (the long proof). Source it after
# tests/lib.sh, brokers.sh, apply-lib.sh and daemon-lib.sh (wait_for),
# with the pairs pair1 (shared store) and pair2 (replication) started by
# `art up-pair`, their members' URL[] and CRED[] set, CREDDIR, STATE and
# art() defined.
#
#   ha_cluster DIR NAME BODY [MEMBER=URL ...]
#                         DIR/cluster.yaml: cluster NAME of the HA nodes ss
#                         (pair1) and rep (pair2), each member at URL[]
#                         unless given (a proxy), then BODY (YAML)
#   hl_attr MEMBER ATTR   the broker MBean's attribute, as JSON
#   hl_live PAIR          the member of PAIR that is active
#   hl_passive MEMBER     MEMBER reads Active false, Backup true
#   hl_settled PAIR       one member active, the other passive
#
#   ha_loop_run K    one run: a plan that creates queue $HL.qK with a divert
#                    into it from $HL.keep's address and deletes run K-1's
#                    (the dependent divert with its queue, ADR-0084 D1),
#                    approved; its apply started, and after a random delay
#                    (up to HL_MAX_DELAY seconds, default 0.6: about what
#                    an apply takes here) the live member of a random
#                    pair killed -9; the killed member
#                    started again (failback, or passive); then plan and
#                    apply again until the cluster is at the declaration;
#                    then the truth on each pair's live member: exactly the
#                    declared objects of the loop ($HL.keep, run K's),
#                    nothing else of the loop's
#   ha_loop_summary  TAP comment lines: runs, the first apply's outcomes,
#                    the converging applies and what they did, unplanned
#                    deletions (must be 0)
HL=${HL:-hl-$$}
HL_MAX_DELAY=${HL_MAX_DELAY:-0.6}
HL_RUNS=0 HL_UNPLANNED=0 HL_AGAIN=0 HL_KILLED_DURING=0
declare -A HL_OUTCOMES

# hl_attr MEMBER ATTR: the broker MBean's attribute (JSON), or "null".
hl_attr() {
	broker_jolokia "$1" "{\"type\":\"read\",\"mbean\":\"org.apache.activemq.artemis:broker=\\\"$1\\\"\",\"attribute\":\"$2\"}" 2>/dev/null |
		python3 -c 'import json,sys
try: print(json.dumps(json.load(sys.stdin).get("value")))
except ValueError: print("null")'
}
# hl_live PAIR: the member of PAIR that reads Active true ("" when none)
hl_live() {
	local m
	for m in "$1-primary" "$1-backup"; do
		[ "$(hl_attr "$m" Active)" = true ] && echo "$m" && return 0
	done
	return 1
}
hl_passive() {
	[ "$(hl_attr "$1" Active)" = false ] && [ "$(hl_attr "$1" Backup)" = true ]
}
hl_settled() {
	local l
	l=$(hl_live "$1") || return 1
	case $l in
	*-primary) hl_passive "$1-backup" ;;
	*) hl_passive "$1-primary" ;;
	esac
}

ha_cluster() {
	local dir=$1 name=$2 body=$3 n m kv
	local -A at=()
	shift 3
	for kv in "$@"; do
		at[${kv%%=*}]=${kv#*=}
	done
	mkdir -p "$dir"
	{
		printf 'version: 1\ncluster: %s\nmode: STUDIO_MANAGED\nnodes:\n' "$name"
		for n in ss:pair1 rep:pair2; do
			printf '  - name: %s\n    credentials: %s-primary\n    members:\n' "${n%%:*}" "${n#*:}"
			for m in "${n#*:}-primary" "${n#*:}-backup"; do
				printf '      - name: %s\n        jolokia: %s\n' "$m" "${at[$m]:-${URL[$m]}}"
				[ "${m%-backup}" = "$m" ] || printf '        credentials: %s\n' "$m"
			done
		done
		printf '%s\n' "$body"
	} >"$dir/cluster.yaml"
}

# hl_decl DIR K: the loop's cluster at run K.
hl_decl() {
	ha_cluster "$1" "$HL" "addresses:
  - name: $HL.keep
    routing: [anycast]
    queues: [{name: $HL.keep}]
  - name: $HL.q$2
    routing: [anycast]
    queues: [{name: $HL.q$2}]
diverts:
  - name: $HL.d$2
    address: $HL.keep
    forwarding-address: $HL.q$2
    exclusive: false"
}

# hl_objects MEMBER: the loop's queues and diverts on MEMBER, sorted, one
# line; fails when a read fails
hl_objects() {
	local q d
	q=$(broker_names "$1" queues) || return 1
	d=$(broker_names "$1" diverts) || return 1
	printf '%s\n%s\n' "$q" "$d" | grep -F "$HL." | sort | paste -sd' '
}

hl_plan() { # OUT DIR
	rm -rf "$1"
	"$AG_BIN" plan "$2" --out "$1" --state "$STATE" --credentials "$CREDDIR" >/dev/null 2>&1
}
hl_approve() {
	"$AG_BIN" approve "$1" --confirm "$(rj "$1/plan.json" 'j["confirmation"]')" \
		--by soak --state "$STATE" >/dev/null 2>&1
}
hl_apply() { # OUT DIR
	"$AG_BIN" apply "$1" --state "$STATE" --credentials "$CREDDIR" --cluster "$2" >/dev/null 2>&1
}

ha_loop_run() {
	local k=$1 dir=$TMP/hl-$1 out pair victim delay rc apid outc p want got o
	HL_RUNS=$((HL_RUNS + 1))
	hl_decl "$dir" "$k"
	out=$TMP/hl-$k-p
	hl_plan "$out" "$dir"
	rc=$?
	if [ "$rc" -ne 2 ] || ! hl_approve "$out"; then
		not_ok "run $k: planned (exit $rc) and approved" "$(head -c 1500 "$out/plan.md" 2>/dev/null)"
		return
	fi
	pair=pair$((RANDOM % 2 + 1))
	victim=$(hl_live "$pair") || victim=
	delay=$(python3 -c 'import random,sys; print(round(random.uniform(0, float(sys.argv[1])), 2))' "$HL_MAX_DELAY")
	hl_apply "$out" "$dir" &
	apid=$!
	sleep "$delay"
	kill -0 "$apid" 2>/dev/null && HL_KILLED_DURING=$((HL_KILLED_DURING + 1))
	[ -z "$victim" ] || art kill "$victim" >/dev/null 2>&1
	wait "$apid"
	outc=$(rj "$out/result.json" '" ".join(n["node"] + ":" + n["outcome"] for n in j["nodes"])' 2>/dev/null || echo "no-result")
	HL_OUTCOMES[$outc]=$((${HL_OUTCOMES[$outc]:-0} + 1))
	# the killed member comes back (it fails back, or waits as the backup)
	if [ -n "$victim" ]; then
		wait_for 60 hl_live "$pair" || not_ok "run $k: $pair has a live member after killing $victim"
		art start "$victim" 120 >/dev/null 2>&1
		wait_for 120 hl_settled "$pair" || not_ok "run $k: $pair settles (one live, one passive) after $victim restarted"
	fi
	# converge: plan and apply until nothing is left to do
	for _ in 1 2 3; do
		hl_plan "$TMP/hl-$k-c" "$dir"
		rc=$?
		[ "$rc" -eq 0 ] && break
		if [ "$rc" -eq 2 ] && hl_approve "$TMP/hl-$k-c"; then
			HL_AGAIN=$((HL_AGAIN + 1))
			o="again: $(rj "$TMP/hl-$k-c/plan.json" '" ".join(sorted(set(a["kind"] + "@" + s["node"] for a in j["actions"] for s in a["nodes"] if s["outcome"] == "WOULD_APPLY")))')"
			HL_OUTCOMES[$o]=$((${HL_OUTCOMES[$o]:-0} + 1))
			hl_apply "$TMP/hl-$k-c" "$dir"
		else
			sleep 2
		fi
	done
	if [ "$rc" -ne 0 ]; then
		not_ok "run $k: converged (the last plan exit $rc)" "$(head -c 2000 "$TMP/hl-$k-c/plan.md" 2>/dev/null)"
		return
	fi
	want=$(printf '%s\n' "$HL.d$k" "$HL.keep" "$HL.q$k" | sort | paste -sd' ')
	for p in pair1 pair2; do
		got=$(hl_objects "$(hl_live "$p")")
		if [ "$got" != "$want" ]; then
			case " $got " in *" $HL.keep "*) ;; *) HL_UNPLANNED=$((HL_UNPLANNED + 1)) ;; esac
			not_ok "run $k: $p's live member holds exactly the declaration" "expected: $want" "actual:   $got"
		else
			ok "run $k: $p's live member holds exactly the declaration (after killing ${victim:-nothing} at ${delay}s: $outc)"
		fi
	done
}

ha_loop_summary() {
	local o
	echo "# HA failover loop: $HL_RUNS runs, $HL_KILLED_DURING killed while the apply ran, $HL_AGAIN converging applies, $HL_UNPLANNED unplanned deletions"
	for o in "${!HL_OUTCOMES[@]}"; do
		case $o in
		again:*) echo "#   converging apply ${o#again: }: ${HL_OUTCOMES[$o]}" ;;
		*) echo "#   first apply $o: ${HL_OUTCOMES[$o]}" ;;
		esac
	done
}
