# tests/integration/resume-lib.sh: the kill -9 loop of apply resumption
# (docs/audit.md "Resuming an interrupted apply"), shared by
# tests/integration/52-apply-resume.sh (a few runs, in `make test`) and
# tests/soak/apply-crash-loop.sh (the long proof, `make soak`). Source it
# after tests/lib.sh, brokers.sh and apply-lib.sh, then call brokers_setup.
#
#   resume_run K SHAPE MODE ARG
#       one run, its objects named $u.rK.*, its own state folder and
#       cluster: set up (v1 applied; a runtime divert d1 src -> fwd and an
#       unmanaged queue on every node), plan v2 and approve it, start
#       apply and kill -9 it, then apply the same approved plan again and
#       check: no unplanned deletion (every object gone from a node was one
#       the plan deletes), the live state is the plan's end state, the
#       audit holds the interrupted intent and exactly one result row (of
#       the resumption, linked to it), the inventory is the plan's end.
#       SHAPE small: v2 deletes queue fwd (its address stays declared): per
#         node destroyDivert d1, destroyQueue fwd; a capture declared
#         that taps nothing (so the nodes are read after the operations).
#       SHAPE full: v2 also creates address and queue `new` and deletes
#         address fwd: per node createAddress, createQueue, destroyDivert,
#         destroyQueue, deleteAddress; then the capture pass creates a tap
#         on `new` (the capture's pattern).
#       MODE hold, ARG NODE:N: opproxy holds NODE's N-th request (1-based)
#         (resume_point gives it for a boundary); apply is killed while
#         that request is held, and the proxy with it.
#       MODE random, ARG F: apply is killed F times the time this run's
#         v1 apply took after it started (it may have finished, or not
#         have written its intent row yet).
#   resume_point SHAPE B     the MODE hold ARG for boundary B: 0 before
#                            the first operation, i between the i-th and
#                            the next, the last after every operation (the
#                            nodes' read for the capture pass); full adds
#                            two points in the capture pass
#   resume_points SHAPE      how many resume_point gives
#   resume_summary           the counts so far, as TAP comments
# Counters (resume_summary): R_RUNS, R_RESUMED (intent without result:
# resumed), R_FRESH (killed before its intent row: applied anew),
# R_DONE (killed after its result row: refused as already applied;
# R_RECORDED of them before the inventory and result files were written:
# the record completed),
# R_STALE (a node refused as stale on resumption; R_STALE_WHY the
# reasons), R_UNPLANNED (objects gone that no plan deleted), R_FAILED
# (runs with a failed check).

R_RUNS=0 R_RESUMED=0 R_FRESH=0 R_DONE=0 R_RECORDED=0 R_STALE=0 R_UNPLANNED=0
R_FAILED=0
R_STALE_WHY=""

resume_points() {
	if [ "$1" = small ]; then echo 5; else echo 13; fi
}

# Per node, the requests of apply through its proxy: 1 the first read; then
# the node's operations (small: 2 destroyDivert, 3 destroyQueue; full:
# 2 createAddress, 3 createQueue, 4 the creates' read back, 5
# destroyDivert, 6 destroyQueue, 7 deleteAddress); then the read of every
# node after the operations (small 4, full 8); full: 9 the tap's create.
resume_point() {
	local small=(node1:2 node1:3 node2:2 node2:3 node1:4)
	local full=(node1:2 node1:3 node1:5 node1:6 node1:7 node2:2 node2:3
		node2:5 node2:6 node2:7 node1:8 node1:9 node2:9)
	if [ "$1" = small ]; then echo "${small[$2]}"; else echo "${full[$2]}"; fi
}

resume_summary() {
	echo "# runs: $R_RUNS; resumed: $R_RESUMED; killed before the intent row (applied anew): $R_FRESH; killed after the result row (already applied): $R_DONE, of them $R_RECORDED before the inventory and result files (their record completed); refused as stale on resumption: $R_STALE${R_STALE_WHY:+ ($R_STALE_WHY)}; unplanned deletions: $R_UNPLANNED; runs with a failed check: $R_FAILED"
}

# _names FILE: every address, queue and divert of every node, "node kind
# name" per line, sorted (read with curl, brokers.sh).
_names() {
	local n k
	for n in "${NODES[@]}"; do
		for k in addresses queues diverts; do
			broker_names "$n" "$k" | sed "s|^|$n $k |" || echo "$n $k <read failed>"
		done
	done | sort >"$1"
}

_r_decl() { # DIR SHAPE VERSION [NODE=URL ...]
	local dir=$1 shape=$2 v=$3 body
	shift 3
	body="settings:
  capture-prefix: \"__capture.\"
captures:
  - name: $R_CAP
    pattern: \"$([ "$shape" = full ] && echo "$R_P.new" || echo "$R_P.none")\"
addresses:
  - name: $R_P.src
    routing: [anycast]
    queues: [{name: $R_P.src}]"
	if [ "$v" = v1 ]; then
		body="$body
  - name: $R_P.fwd
    routing: [anycast]
    queues: [{name: $R_P.fwd}]"
	elif [ "$shape" = small ]; then
		body="$body
  - name: $R_P.fwd
    routing: [anycast]"
	else
		body="$body
  - name: $R_P.new
    routing: [anycast]
    queues: [{name: $R_P.new}]"
	fi
	decl "$dir" "$body" "$@"
}

# What must hold at the plan's end, on every node: "node kind name" lines
# that must be listed, and those that must not.
_end_state() { # SHAPE -> two files $TMP/r-must, $TMP/r-mustnot
	local n
	: >"$TMP/r-must"
	: >"$TMP/r-mustnot"
	for n in "${NODES[@]}"; do
		printf '%s\n' "$n queues $R_P.src" "$n queues $R_P.other" \
			"$n queues __capture.$R_CAP" >>"$TMP/r-must"
		printf '%s\n' "$n queues $R_P.fwd" "$n diverts $R_P.d1" >>"$TMP/r-mustnot"
		if [ "$1" = full ]; then
			printf '%s\n' "$n addresses $R_P.new" "$n queues $R_P.new" \
				"$n diverts __capture.$R_CAP.$R_P.new" >>"$TMP/r-must"
			echo "$n addresses $R_P.fwd" >>"$TMP/r-mustnot"
		else
			echo "$n addresses $R_P.fwd" >>"$TMP/r-must"
		fi
	done
}

resume_run() {
	local k=$1 shape=$2 mode=$3 arg=$4 name pid node nth i rc digest t0
	local failed_before=$_t_failed rows gone unplanned interrupted
	R_P=$u.r$k
	R_CAP=c$$-$k
	name="run $k ($shape, $mode $arg)"
	apply_setup "$u-$k"
	STATE=$TMP/state-$k
	R_RUNS=$((R_RUNS + 1))

	_r_decl "$TMP/c$k" "$shape" v1
	check_exit "$name: v1 planned" 2 plan_to "$TMP/p$k-1" "$TMP/c$k"
	check "$name: v1 approved" approve_ok "$TMP/p$k-1"
	t0=$(date +%s.%N)
	check "$name: v1 applied" apply_to "$TMP/p$k-1" "$TMP/c$k"
	R_V1=$(python3 -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$t0" "$(date +%s.%N)")
	for n in "${NODES[@]}"; do
		jexec "$n" create-divert "$R_P.d1" "$R_P.src" "$R_P.fwd" routing-type=ANYCAST >/dev/null
		jexec "$n" create-address "$R_P.other" anycast >/dev/null
		jexec "$n" create-queue "$R_P.other" "$R_P.other" anycast >/dev/null
	done
	_names "$TMP/r-before"
	_r_decl "$TMP/c$k" "$shape" v2
	plan_to "$TMP/p$k" "$TMP/c$k" >/dev/null
	check "$name: v2 approved" approve_ok "$TMP/p$k"
	digest=$(sha256sum <"$TMP/p$k/plan.json" | cut -d' ' -f1)

	# the apply that is killed
	if [ "$mode" = hold ]; then
		node=${arg%%:*}
		nth=${arg#*:}
		opproxy_start node1 $([ "$node" = node1 ] && echo "hold-req:$nth:$TMP/never")
		P1_URL=$OPX_URL P1_PID=$OPX_PID P1_LOG=$OPX_LOG
		opproxy_start node2 $([ "$node" = node2 ] && echo "hold-req:$nth:$TMP/never")
		P2_URL=$OPX_URL P2_PID=$OPX_PID P2_LOG=$OPX_LOG
		_r_decl "$TMP/c$k-proxy" "$shape" v2 "node1=$P1_URL" "node2=$P2_URL"
		(exec "$AG_BIN" apply "$TMP/p$k" --state "$STATE" --credentials "$CREDDIR" \
			--cluster "$TMP/c$k-proxy" >"$TMP/r-kill.out" 2>"$TMP/r-kill.err") &
		pid=$!
		for i in $(seq 1 300); do
			grep -q '^hold ' "$P1_LOG" "$P2_LOG" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		check "$name: apply is held at the point" grep -q '^hold ' "$P1_LOG" "$P2_LOG"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		kill "$P1_PID" "$P2_PID" 2>/dev/null
		wait "$P1_PID" "$P2_PID" 2>/dev/null
	else
		arg=$(python3 -c 'import sys; print(round(float(sys.argv[1]) * float(sys.argv[2]), 2))' "$arg" "$R_V1")
		name="$name = ${arg}s"
		(exec "$AG_BIN" apply "$TMP/p$k" --state "$STATE" --credentials "$CREDDIR" \
			--cluster "$TMP/c$k" >"$TMP/r-kill.out" 2>"$TMP/r-kill.err") &
		pid=$!
		sleep "$arg"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	sleep 1 # a request sent before the kill reaches its broker

	# what the killed apply left in the audit log
	rows=$(audit_rows intent | grep -c "\"plan_digest\": \"$digest\"")
	interrupted=$(audit_rows intent | grep "\"plan_digest\": \"$digest\"" | tail -n 1 |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["apply_id"])' 2>/dev/null)
	if audit_rows result | grep -q "\"plan_digest\": \"$digest\""; then
		R_DONE=$((R_DONE + 1))
		apply_to "$TMP/p$k" "$TMP/c$k" >/dev/null 2>"$TMP/r-again.err"
		check_grep "$name: finished before the kill; not applied again" "already applied" "$TMP/r-again.err"
		grep -q "interrupted after that row" "$TMP/r-again.err" && R_RECORDED=$((R_RECORDED + 1))
	else
		apply_to "$TMP/p$k" "$TMP/c$k" >"$TMP/r-again.out" 2>"$TMP/r-again.err"
		rc=$?
		if [ "$rows" -eq 0 ]; then
			R_FRESH=$((R_FRESH + 1))
		else
			R_RESUMED=$((R_RESUMED + 1))
			check_grep "$name: resumes $interrupted" "resuming the interrupted apply $interrupted " "$TMP/r-again.err"
			check_eq "$name: its result row resumes $interrupted" "$interrupted" \
				"$(rj "$TMP/p$k/result.json" 'j.get("resumes")')"
		fi
		check_eq "$name: the same approved plan applied to its end (exit 0, no new approval)" 0 "$rc"
		if grep -q '"kind": "STALE"' "$TMP/p$k/result.json" 2>/dev/null; then
			R_STALE=$((R_STALE + 1))
			R_STALE_WHY="$R_STALE_WHY${R_STALE_WHY:+; }run $k: $(rj "$TMP/p$k/result.json" '[n["detail"] for n in j["nodes"] if n["kind"] == "STALE"][0]')"
		fi
	fi

	# the audit: its intent(s) and exactly one result row
	check_eq "$name: one result row for the plan" 1 \
		"$(audit_rows result | grep -c "\"plan_digest\": \"$digest\"")"
	if [ -n "$interrupted" ] && [ "$rows" -gt 0 ] && ! grep -q "already applied" "$TMP/r-again.err" 2>/dev/null; then
		check_eq "$name: the interrupted intent and the resuming apply's intent, then its result" \
			"intent intent result" \
			"$(python3 - "$STATE/audit.jsonl" "$digest" <<'PY'
import json, sys
print(" ".join(r["event"] for r in map(json.loads, open(sys.argv[1])) if r["plan_digest"] == sys.argv[2]))
PY
)"
	fi

	# no unplanned deletion; the plan's end state
	_names "$TMP/r-after"
	gone=$(comm -23 "$TMP/r-before" "$TMP/r-after")
	_end_state "$shape"
	unplanned=$(printf '%s\n' "$gone" | grep -v '^$' | grep -vxF -f "$TMP/r-mustnot")
	if [ -n "$unplanned" ]; then
		R_UNPLANNED=$((R_UNPLANNED + $(printf '%s\n' "$unplanned" | wc -l)))
		not_ok "$name: no unplanned deletion" "$unplanned"
	else
		ok "$name: no unplanned deletion"
	fi
	check_eq "$name: everything the plan ends with is there" "" \
		"$(comm -23 <(sort "$TMP/r-must") "$TMP/r-after")"
	check_eq "$name: nothing the plan removes is left" "" \
		"$(comm -12 <(sort "$TMP/r-mustnot") "$TMP/r-after")"
	check_eq "$name: the inventory is the plan's end" \
		"$([ "$shape" = full ] && echo '[false, false, true, true, true]' || echo '[false, true, false, false, true]')" \
		"$(rj "$STATE/$CL/inventory.json" '["'"$R_P.fwd"'" in j["queues"], "'"$R_P.fwd"'" in j["addresses"], "'"$R_P.new"'" in j["queues"], "'"$R_P.new"'" in j["addresses"], "'"$R_P.src"'" in j["queues"]]')"
	check_exit "$name: the next plan has nothing to do" 0 plan_to "$TMP/p$k-3" "$TMP/c$k"
	[ "$_t_failed" -gt "$failed_before" ] && R_FAILED=$((R_FAILED + 1))
	janitor "$R_P."
	janitor "__capture.$R_CAP"
	rm -rf "$TMP/p$k-1" "$TMP/p$k-3"
	return 0
}
