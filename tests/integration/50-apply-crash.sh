#!/usr/bin/env bash
# kill -9 of apply between operations: opproxy stalls node1's destroyQueue
# after its divert was removed (node2, run at the same time, finishes); while apply hangs there a second apply is
# refused by the state lock, naming the holder; then apply is killed. The
# audit shows the interrupted apply (its intent row, with the divert's
# configuration, and no result row). The same approved plan, applied
# again, resumes it (docs/audit.md "Resuming an interrupted apply"): the
# divert's removal is recognised as done, the rest runs, one result row
# closes it; nothing is deleted that the plan did not say (a declared
# queue and an unmanaged queue survive).
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50k-$$
apply_setup "$u"
n1=${NODES[0]}
n2=${NODES[1]}

src="  - name: $u.src
    routing: [anycast]
    queues: [{name: $u.src}]"
decl "$TMP/c" "addresses:
$src
  - name: $u.fwd
    routing: [anycast]
    queues: [{name: $u.fwd}]"
converge "v1" "$TMP/c" "$TMP/p1"
for n in "${NODES[@]}"; do
	check_eq "$n: runtime divert" OK "$(jexec "$n" create-divert "$u.d1" "$u.src" "$u.fwd" routing-type=ANYCAST)"
	check_eq "$n: an unmanaged queue" OK "$(jexec "$n" create-address "$u.other" anycast)"
	check_eq "$n: an unmanaged queue" OK "$(jexec "$n" create-queue "$u.other" "$u.other" anycast)"
done

opproxy_start "$n1" stall:destroyQueue
decl "$TMP/c" "addresses:
$src" "$n1=$OPX_URL"
check_exit "v2: plan has changes" 2 plan_to "$TMP/p2" "$TMP/c"
check "v2: approve" approve_ok "$TMP/p2"
# exec: $! is the apply process itself, not a subshell.
(exec "$AG_BIN" apply "$TMP/p2" --state "$STATE" --credentials "$CREDDIR" \
	--cluster "$TMP/c" >"$TMP/apply.out" 2>"$TMP/apply.err") &
pid=$!
for i in $(seq 1 200); do
	grep -q "destroyDivert '$u.d1': DONE" "$TMP/apply.err" && grep -q "^stall destroyQueue" "$OPX_LOG" &&
		grep -q "node '$n2': deleteAddress '$u.fwd': DONE" "$TMP/apply.err" && break
	sleep 0.1
done
check_grep "apply removed the divert, then hangs in destroyQueue" "^stall destroyQueue $u.fwd\$" "$OPX_LOG"
# the nodes run at once: node2 is not held up by node1's hang
check_grep "meanwhile node2 ran all its operations" "node '$n2': deleteAddress '$u.fwd': DONE" "$TMP/apply.err"
check "apply is still running" kill -0 "$pid"
apply_to "$TMP/p2" "$TMP/c" >/dev/null 2>"$TMP/second.err"
check_eq "a second apply is refused (exit 1)" 1 $?
check_grep "the refusal names the holder" "^artemis-gitops apply: state folder '$STATE' is locked by pid $pid \(apply $TMP/p2, since [0-9T:Z-]+\)\$" "$TMP/second.err"
kill -9 "$pid"
wait "$pid" 2>/dev/null
opproxy_stop

check "no result.json for the killed apply" test ! -e "$TMP/p2/result.json"
python3 - "$STATE/audit.jsonl" >"$TMP/interrupted.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
done = {r["apply_id"] for r in rows if r["event"] == "result"}
print(json.dumps([r for r in rows if r["event"] == "intent" and r["apply_id"] not in done]))
PY
check_eq "the audit shows one interrupted apply (intent, no result)" 1 "$(rj "$TMP/interrupted.json" 'len(j)')"
check_eq "the documented query finds it" "$(rj "$TMP/interrupted.json" 'j[0]["apply_id"]')" \
	"$(cd "$TMP" && ln -sfn "$STATE" STATE && eval "$(sed -n '/^# interrupted applies/,/audit\.jsonl$/p' "$AG_TOP/docs/audit.md" | sed 1d)" | jq -r .apply_id)"
check_eq "its plan digest" "$(sha256sum <"$TMP/p2/plan.json" | cut -d' ' -f1)" "$(rj "$TMP/interrupted.json" 'j[0]["plan_digest"]')"
check_eq "its intent row holds node1's divert configuration" "$u.fwd" \
	"$(rj "$TMP/interrupted.json" '[o["divert"]["forwarding-address"] for o in j[0]["nodes"][0]["operations"] if o["op"] == "destroyDivert"][0]')"
check_eq "node1: a sentinel divert on $u.other" OK "$(sentinel_on "$n1" "$u.other")"
check_unlisted "node1: the divert is gone" "$n1" diverts "^$u\.d1\$" "$u.other.sentinel"
check_eq "node1: the sentinel divert removed" OK "$(sentinel_off "$n1" "$u.other")"
check_grep "node1: the queue is still there" "^$u\.fwd\$" <(broker_names "$n1" queues)

# The same approved plan, applied again, resumes the interrupted apply: no
# new plan, no new approval (issue 14: it used to be refused as stale).
decl "$TMP/c" "addresses:
$src"
apply_to "$TMP/p2" "$TMP/c" >"$TMP/resume.out" 2>"$TMP/resume.err"
check_eq "resume: the same plan, applied again, exits 0" 0 $?
check_grep "resume: apply says it resumes" "^artemis-gitops apply: resuming the interrupted apply $(rj "$TMP/interrupted.json" 'j[0]["apply_id"]') of this plan" "$TMP/resume.err"
check_grep "resume: result.md says so" "^Resumes the interrupted apply" "$TMP/p2/result.md"
check_eq "resume: both nodes APPLIED" '["APPLIED", "APPLIED"]' \
	"$(rj "$TMP/p2/result.json" '[n["outcome"] for n in j["nodes"]]')"
check_eq "resume: node1's divert was removed by the interrupted apply, its queue now" \
	'[["destroyDivert", "DONE", "resume-read"], ["destroyQueue", "DONE", null], ["deleteAddress", "DONE", null]]' \
	"$(rj "$TMP/p2/result.json" '[[o["op"], o["outcome"], o.get("established")] for o in j["nodes"][0]["operations"]]')"
check_eq "resume: node2's operations were all done by the interrupted apply (the nodes ran at once)" \
	'[["destroyDivert", "DONE", "resume-read"], ["destroyQueue", "DONE", "resume-read"], ["deleteAddress", "DONE", "resume-read"]]' \
	"$(rj "$TMP/p2/result.json" '[[o["op"], o["outcome"], o.get("established")] for o in j["nodes"][1]["operations"]]')"
python3 - "$STATE/audit.jsonl" "$(sha256sum <"$TMP/p2/plan.json" | cut -d' ' -f1)" >"$TMP/rows.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(json.dumps([[r["event"], r["apply_id"], r.get("resumes")] for r in rows if r["plan_digest"] == sys.argv[2]]))
PY
first=$(rj "$TMP/interrupted.json" 'j[0]["apply_id"]')
check_eq "resume: the audit holds the interrupted intent, the resuming intent and one result row, linked" \
	"intent $first None | intent R $first | result R $first" \
	"$(rj "$TMP/rows.json" '" | ".join("%s %s %s" % (e, i if i == "'"$first"'" else "R", r) for e, i, r in j)')"
check_eq "resume: the resuming apply's intent and result rows share their apply_id" 1 \
	"$(rj "$TMP/rows.json" 'len({i for e, i, r in j if r})')"
check_eq "resume: the documented query finds no interrupted apply" "" \
	"$(cd "$TMP" && ln -sfn "$STATE" STATE && eval "$(sed -n '/^# interrupted applies/,/audit\.jsonl$/p' "$AG_TOP/docs/audit.md" | sed 1d)")"
for n in "${NODES[@]}"; do
	check_unlisted "$n: converged: $u.fwd gone" "$n" queues "^$u\.fwd\$" "$u.src"
	check_eq "$n: a sentinel divert on $u.other" OK "$(sentinel_on "$n" "$u.other")"
	check_unlisted "$n: converged: $u.d1 gone" "$n" diverts "^$u\.d1\$" "$u.other.sentinel"
	check_eq "$n: the sentinel divert removed" OK "$(sentinel_off "$n" "$u.other")"
	check_grep "$n: the declared queue survives" "^$u\.src\$" <(broker_names "$n" queues)
	check_grep "$n: the unmanaged queue survives" "^$u\.other\$" <(broker_names "$n" queues)
done
check_eq "the inventory: $u.fwd forgotten, $u.src kept" '[false, false, true]' \
	"$(rj "$STATE/$CL/inventory.json" '["'"$u.fwd"'" in j["queues"], "'"$u.fwd"'" in j["addresses"], "'"$u.src"'" in j["queues"]]')"
apply_to "$TMP/p2" "$TMP/c" >/dev/null 2>"$TMP/third.err"
check_grep "the plan, applied, is not applied again" "the plan was already applied" "$TMP/third.err"
check_exit "v3: nothing left to do" 0 plan_to "$TMP/p3" "$TMP/c"

# An apply killed after its result row, before the inventory and the
# result files (simulated: the inventory as before the apply, no result
# files): applying the plan again is refused as applied, and completes the
# record: the inventory from the nodes read now, result.json as a marker.
decl "$TMP/c" "addresses:
$src
  - name: $u.late
    routing: [anycast]
    queues: [{name: $u.late}]"
check_exit "v4: plan has changes" 2 plan_to "$TMP/p4" "$TMP/c"
check "v4: approve" approve_ok "$TMP/p4"
cp "$STATE/$CL/inventory.json" "$TMP/inventory.before"
check_exit "v4: apply exits 0" 0 apply_to "$TMP/p4" "$TMP/c"
cp "$TMP/inventory.before" "$STATE/$CL/inventory.json"
rm -f "$TMP/p4/result.json" "$TMP/p4/result.md"
apply_to "$TMP/p4" "$TMP/c" >/dev/null 2>"$TMP/v4.err"
check_eq "v4 again: refused (exit 1)" 1 $?
check_grep "v4 again: as applied, the record completed" \
	"^artemis-gitops apply: the plan was already applied \(apply [0-9TZ:-]+-[0-9a-f]+: its result row is in $STATE/audit.jsonl\); its apply was interrupted after that row, so the inventory was brought up to date from the nodes read now and $TMP/p4/result.json written; plan again for a new change\$" "$TMP/v4.err"
check_eq "v4 again: the inventory has $u.late" true "$(rj "$STATE/$CL/inventory.json" '"'"$u.late"'" in j["queues"]')"
check_eq "v4 again: result.json marks the plan applied" RECORDED "$(rj "$TMP/p4/result.json" 'j["audit"]')"
check_eq "v4 again: still one result row for the plan" 1 \
	"$(audit_rows result | grep -c "\"plan_digest\": \"$(sha256sum <"$TMP/p4/plan.json" | cut -d' ' -f1)\"")"
check_exit "v5: nothing left to do" 0 plan_to "$TMP/p5" "$TMP/c"
janitor "$u."
done_testing
