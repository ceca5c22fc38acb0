#!/usr/bin/env bash
# The declaration apply records is the approved one (plan.json's
# declaration_digest, docs/plan-format.md). An unmanaged queue lives on both
# nodes; a plan that deletes a managed queue is approved; then someone adds
# the unmanaged queue to PLAN_DIR/declaration/cluster.yaml (or passes such a
# declaration with --cluster), which would make apply record it as managed,
# so that the next plan deletes it. apply refuses, naming both digests,
# before any broker call: the brokers still hold the queue the plan deletes
# (read back, in a listing that must hold a name known to be there), and
# neither the inventory, the audit log nor result.json changed. The
# declaration as planned, with other node URLs (another machine's view),
# is accepted and applied; so is PLAN_DIR/declaration as written.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50decl-$$
apply_setup "$u"

keep="  - name: $u.keep
    routing: [anycast]
    queues: [{name: $u.keep}]"
gone="  - name: $u.gone
    routing: [anycast]
    queues: [{name: $u.gone}]"
victim="  - name: $u.victim
    routing: [anycast]
    queues: [{name: $u.victim}]"

decl "$TMP/c" "addresses:
$keep
$gone"
converge "v1" "$TMP/c" "$TMP/p1"
for n in "${NODES[@]}"; do
	check_eq "$n: an unmanaged address" OK "$(jexec "$n" create-address "$u.victim" anycast)"
	check_eq "$n: an unmanaged queue" OK "$(jexec "$n" create-queue "$u.victim" "$u.victim" anycast)"
done

# v2 deletes $u.gone; planned with --out, so PLAN_DIR/declaration holds it.
decl "$TMP/c" "addresses:
$keep"
check_exit "v2: plan has changes" 2 plan_to "$TMP/p2" "$TMP/c"
digest=$(rj "$TMP/p2/plan.json" 'j["declaration_digest"]')
check_grep "v2: plan.json holds the declaration digest" '^[0-9a-f]{64}$' <(printf '%s\n' "$digest")
check_grep "v2: plan.md shows it" "^- declaration: sha256 $digest\$" "$TMP/p2/plan.md"
check "v2: the plan folder holds the planned declaration" test -f "$TMP/p2/declaration/cluster.yaml"
check "v2: approve" approve_ok "$TMP/p2"

cp "$STATE/$CL/inventory.json" "$TMP/inventory.before"
cp "$STATE/audit.jsonl" "$TMP/audit.before"
cp "$TMP/p2/declaration/cluster.yaml" "$TMP/planned.yaml"

# (a) the plan folder's declaration edited after the approval
python3 - "$TMP/p2/declaration/cluster.yaml" "$u.victim" <<'PY'
import json, sys
path, name = sys.argv[1], sys.argv[2]
d = json.load(open(path))   # the planned declaration is written as JSON
d["addresses"].append({"name": name, "routing": ["anycast"],
                       "queues": [{"name": name, "routing": "anycast"}]})
json.dump(d, open(path, "w"), indent=2)
PY
"$AG_BIN" apply "$TMP/p2" --state "$STATE" --credentials "$CREDDIR" \
	>"$TMP/a.out" 2>"$TMP/a.err"
check_eq "edited PLAN_DIR/declaration: apply exits 1" 1 $?
check_grep "the refusal names both digests" \
	"^artemis-gitops apply: the declaration in $TMP/p2/declaration is not the one the plan was approved for \(its declaration SHA-256 [0-9a-f]{64}, plan.json's declaration_digest $digest\): .*nothing was applied" \
	"$TMP/a.err"
check "the two digests differ" test "$(grep -oE 'SHA-256 [0-9a-f]{64}' "$TMP/a.err" | cut -d' ' -f2)" != "$digest"

# (b) another declaration given with --cluster
decl "$TMP/other" "addresses:
$keep
$victim"
apply_to "$TMP/p2" "$TMP/other" >"$TMP/b.out" 2>"$TMP/b.err"
check_eq "--cluster with another declaration: apply exits 1" 1 $?
check_grep "the refusal names --cluster's folder and the plan's digest" \
	"^artemis-gitops apply: the declaration in $TMP/other is not the one the plan was approved for \(its declaration SHA-256 [0-9a-f]{64}, plan.json's declaration_digest $digest\)" \
	"$TMP/b.err"

# Nothing happened: on the brokers, in the state folder, in the plan folder.
for n in "${NODES[@]}"; do
	listing "$TMP/queues.$n" "$n" queues
	check_grep "$n: $u.gone is still there (the refused plan deletes it)" "^$u\.gone\$" "$TMP/queues.$n"
	check_grep "$n: (same listing) $u.victim is still there" "^$u\.victim\$" "$TMP/queues.$n"
	check_grep "$n: (same listing) $u.keep is there" "^$u\.keep\$" "$TMP/queues.$n"
done
check "the inventory is unchanged" cmp "$TMP/inventory.before" "$STATE/$CL/inventory.json"
check "no audit row was added" cmp "$TMP/audit.before" "$STATE/audit.jsonl"
check "no result.json" test ! -e "$TMP/p2/result.json"

# (c) the declaration as planned, with other node URLs (127.0.0.1 for
# localhost: another machine's view of the same brokers): applied.
decl "$TMP/same" "addresses:
$keep"
sed -i 's|//localhost:|//127.0.0.1:|' "$TMP/same/cluster.yaml"
check_grep "(c) the URLs differ from the planned declaration's" '127\.0\.0\.1' "$TMP/same/cluster.yaml"
check_exit "--cluster with the planned declaration: apply exits 0" 0 apply_to "$TMP/p2" "$TMP/same"
check_eq "both nodes APPLIED" '["APPLIED", "APPLIED"]' \
	"$(rj "$TMP/p2/result.json" '[n["outcome"] for n in j["nodes"]]')"
for n in "${NODES[@]}"; do
	check_unlisted "$n: $u.gone deleted" "$n" queues "^$u\.gone\$" "$u.keep"
done
check_eq "the inventory does not hold the unmanaged queue" \
	"[[\"$u.keep\"], [\"$u.keep\"]]" \
	"$(rj "$STATE/$CL/inventory.json" '[[x for x in j["addresses"] if x.startswith("'"$u"'")], [x for x in j["queues"] if x.startswith("'"$u"'")]]')"

# (d) PLAN_DIR/declaration as `plan --out` wrote it (the daemon's path:
# no --cluster): accepted.
decl "$TMP/c" "addresses:
$keep
  - name: $u.new
    routing: [anycast]
    queues: [{name: $u.new}]"
check_exit "v3: plan has changes" 2 plan_to "$TMP/p3" "$TMP/c"
check "v3: approve" approve_ok "$TMP/p3"
check_exit "v3: apply from PLAN_DIR/declaration exits 0" 0 \
	"$AG_BIN" apply "$TMP/p3" --state "$STATE" --credentials "$CREDDIR"
check_exit "v4: nothing left to do (the unmanaged queue is left alone)" 0 plan_to "$TMP/p4" "$TMP/c"
check_grep "v4: $u.victim is unmanaged" "\"name\": \"$u.victim\"" "$TMP/p4/plan.json"

janitor "$u."
done_testing
