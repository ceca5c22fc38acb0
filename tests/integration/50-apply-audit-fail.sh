#!/usr/bin/env bash
# The result row cannot be appended (the audit log hits RLIMIT_FSIZE right
# after the intent row): apply prints only the error, exits 1, prints no
# summary naming an audit row, and the plan is marked applied
# (PLAN_DIR/result.json with "audit": "FAILED"), so a second apply of the
# same approved plan is refused. The apply runs against dead endpoints
# (--cluster with unused ports), so every node is UNREACHABLE and the rows
# have the same size in both runs: the first run measures them.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50a-$$
apply_setup "$u"

decl "$TMP/c" "addresses:
  - name: $u.q
    routing: [anycast]
    queues: [{name: $u.q}]"
dead=()
port=9
for n in "${NODES[@]}"; do
	dead+=("$n=http://127.0.0.1:$port/console/jolokia")
	port=$((port - 2))
done
decl "$TMP/dead" "addresses:
  - name: $u.q
    routing: [anycast]
    queues: [{name: $u.q}]" "${dead[@]}"
check_exit "plan has changes" 2 plan_to "$TMP/p1" "$TMP/c"
check "approve" approve_ok "$TMP/p1"
cp -r "$TMP/p1" "$TMP/p2"

# Run 1, state S1: measure the intent and result rows.
STATE=$TMP/s1
check_exit "run 1: apply exits 1 (nodes unreachable)" 1 apply_to "$TMP/p1" "$TMP/dead"
check_eq "run 1: two audit rows" "intent result" \
	"$(python3 -c 'import json,sys; print(" ".join(json.loads(l)["event"] for l in open(sys.argv[1])))' "$STATE/audit.jsonl")"
ilen=$(sed -n 1p "$STATE/audit.jsonl" | wc -c)
rlen=$(sed -n 2p "$STATE/audit.jsonl" | wc -c)

# Run 2, state S2: the intent row fits under the limit, the result row not.
STATE=$TMP/s2
mkdir -m 0700 "$STATE"
limit=65536
pad=$((limit - ilen - rlen / 2))
python3 -c 'import sys; n=int(sys.argv[1]); sys.stdout.write("{\"event\":\"pad\",\"x\":\"" + "x" * (n - 23) + "\"}\n")' "$pad" >"$STATE/audit.jsonl"
chmod 0600 "$STATE/audit.jsonl"
check_eq "run 2: padding as computed" "$pad" "$(wc -c <"$STATE/audit.jsonl")"
(
	trap '' XFSZ
	ulimit -f $((limit / 1024))
	exec "$AG_BIN" apply "$TMP/p2" --state "$STATE" --credentials "$CREDDIR" --cluster "$TMP/dead"
) >"$TMP/a2.out" 2>"$TMP/a2.err"
check_eq "run 2: apply exits 1" 1 $?
# rows: the whole lines that parse (the failed append may leave a torn
# tail, which the next append terminates: docs/audit.md)
rows() {
	python3 - "$1" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    try:
        r = json.loads(l)
    except ValueError:
        print("torn" if not l.endswith("\n") else "bad")
        continue
    print(r["event"], r.get("apply_id", "-"))
PY
}
rows "$STATE/audit.jsonl" >"$TMP/rows2"
check_eq "run 2: the intent row was appended, the result row not" "pad intent torn" \
	"$(cut -d' ' -f1 "$TMP/rows2" | tr '\n' ' ' | sed 's/ $//')"
id=$(sed -n '2s/^intent //p' "$TMP/rows2")
check_eq "run 2: nothing on stdout (no summary, no audit row named)" "" "$(cat "$TMP/a2.out")"
check_grep "run 2: the error says what happened" \
	"^artemis-gitops apply: the plan's operations ran \(apply $id, its intent row is in the audit log\), but the result row could not be appended: .*; result.json marks the plan as applied, so it is not applied again; see the brokers with \`snapshot\`, then plan again\$" \
	"$TMP/a2.err"
check_eq "run 2: result.json is the audit-failure marker" "[\"$id\", \"FAILED\"]" \
	"$(rj "$TMP/p2/result.json" '[j["apply_id"], j["audit"]]')"
check "run 2: no result.md" test ! -e "$TMP/p2/result.md"
apply_to "$TMP/p2" "$TMP/dead" >"$TMP/a3.out" 2>"$TMP/a3.err"
check_eq "run 3: the same plan again is refused" 1 $?
check_grep "run 3: as already applied" "^artemis-gitops apply: the plan was already applied \(see '$TMP/p2/result.json'\); plan again for a new change\$" "$TMP/a3.err"
check_eq "run 3: no new audit row" "$(cat "$TMP/rows2")" "$(rows "$STATE/audit.jsonl")"
done_testing
