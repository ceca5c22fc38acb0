#!/usr/bin/env bash
# The long round trip of import --from-live (issue 17, "Scale"): two
# brokers of their own (the import reads everything a broker holds), each
# loaded by the bench generator with 10,000 queues, 2,000 addresses and
# 1,000 diverts, plus fan.in -> divert fan.d -> the multicast address
# fan.out with its one queue fan.sub. Then: import -> validate (exit 0) ->
# plan against the same brokers (exit 0, NO_CHANGE, no action, adopting
# exactly what the import report declared) -> approve -> apply, whose
# inventory holds every declared name; a later declaration without fan.sub
# and its divert plans exactly those two deletes (exit 2). The import,
# plan and apply times are printed as TAP comments. 92-import-live covers
# the same at 1,000 queues in `make test`; this is the 10,000-queue
# version, run by `make soak`.
#
# Port base: ARTEMIS_PORT_BASE + 400 (node1 +400, node2 +410), or
# SOAK_IMPORT_PORT_BASE: clear of the soak stage's nodes (base .. base+10)
# and ha-failover-loop's pairs (base+200 ..). SOAK_IMPORT_QUEUES (default
# 10000, a multiple of 10) sizes the generator's load.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"

nq=${SOAK_IMPORT_QUEUES:-10000}
TMP=$(mktemp -d)
pbase=${SOAK_IMPORT_PORT_BASE:-$((${ARTEMIS_PORT_BASE:-100} + 400))}
run=$TMP/run
art() { ARTEMIS_RUN_DIR=$run ARTEMIS_PORT_BASE=$pbase "$ARTEMIS" "$@"; }
cleanup() {
	art down >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

# timed VAR COMMAND...: run COMMAND, its exit status returned, its wall
# seconds in VAR; its output to $TMP/VAR.out.
timed() {
	local var=$1 t0 t1 rc
	shift
	t0=$(date +%s%N)
	"$@" >"$TMP/$var.out" 2>&1
	rc=$?
	t1=$(date +%s%N)
	t1=$(((t1 - t0) / 10000000)) # hundredths of a second
	printf -v "$var" '%d.%02d' $((t1 / 100)) $((t1 % 100))
	return $rc
}

check "fetch Artemis" art fetch
if ! art up 2 >"$TMP/nodes.txt" 2>"$TMP/up.err"; then
	echo "Bail out! two brokers did not start: $(tail -3 "$TMP/up.err")"
	exit 1
fi
AG_NODES_FILE=$TMP/nodes.txt
brokers_read "$AG_NODES_FILE"
NODESFILE=$run/cluster/cluster.yaml
STATE=$TMP/state


t0=$(date +%s)
pids=()
for n in "${NODES[@]}"; do
	python3 "$AG_TOP/bench/gen.py" load "${URL[$n]}" "${CRED[$n]}" --queues "$nq" \
		--broker "$n" >"$TMP/load-$n.out" 2>&1 &
	pids+=($!)
done
i=0
for n in "${NODES[@]}"; do
	wait "${pids[$i]}"
	check_eq "$n: $nq queues and $((nq / 10)) diverts by the bench generator" 0 "$?"
	i=$((i + 1))
done
echo "# load: $(($(date +%s) - t0)) s for $nq queues on each of ${#NODES[@]} nodes"
for n in "${NODES[@]}"; do
	# An explicit routing name: without one each broker draws its own
	# and the divert differs between the nodes (92-import-live).
	check_eq "$n: fan.in, a divert fan.d into the multicast fan.out, its queue fan.sub" OK "$(broker_bulk "$n" "
print(json.dumps([addr('fan.in'), queue(name='fan.in', address='fan.in'),
    addr('fan.out', 'MULTICAST'), queue(name='fan.sub', address='fan.out', **{'routing-type': 'MULTICAST'}),
    divert(name='fan.d', address='fan.in', **{'forwarding-address': 'fan.out', 'routing-type': 'MULTICAST', 'routing-name': 'fan.d'})]))")"
done

OUT=$TMP/imported
R=$OUT/import-report.json
timed t_import "$AG_BIN" import --from-live "$NODESFILE" --out "$OUT" --credentials "$CREDDIR"
check_eq "import --from-live exits 0" 0 "$?"
echo "# import: $t_import s ($nq queues x ${#NODES[@]} nodes)"
want=$(python3 -c 'import json, sys; n = int(sys.argv[1]); print(json.dumps({"addresses": n // 5 + 2, "diverts": n // 10 + 1, "queues": n + 2}, sort_keys=True))' "$nq")
check_eq "declared: every generated object and the fan.* three" "$want" "$(rj "$R" 'json.dumps(j["declared"], sort_keys=True)')"
check_eq "left out: the broker's own objects only" '["BROKER_OWN"]' "$(rj "$R" 'sorted({x["reason"] for x in j["left_out"]})')"
check_exit "the imported folder validates" 0 "$AG_BIN" validate "$OUT"
CL=$(python3 -c 'import sys, yaml; print(yaml.load(open(sys.argv[1]), Loader=yaml.CSafeLoader)["cluster"])' "$OUT/cluster.yaml")

timed t_plan plan_to "$TMP/p1" "$OUT"
check_eq "the first plan against the same brokers exits 0" 0 "$?"
echo "# plan: $t_plan s"
check_eq "NO_CHANGE, no action, every node read" '["NO_CHANGE", 0, [true, true]]' \
	"$(rj "$TMP/p1/plan.json" '[j["outcome"], len(j["actions"]), [n["reachable"] for n in j["nodes"]]]')"
check_eq "it adopts exactly what the import declared" "$(rj "$R" 'json.dumps(j["declared"], sort_keys=True)')" \
	"$(rj "$TMP/p1/plan.json" 'json.dumps(j.get("adopts"), sort_keys=True)')"
check "approve the adoption" approve_ok "$TMP/p1"
timed t_apply apply_to "$TMP/p1" "$OUT"
check_eq "apply the adoption" 0 "$?"
echo "# apply: $t_apply s"

# declared_names DIR: {"addresses": [...], "queues": [...], "diverts": [...]}
# of every YAML file of the cluster folder DIR.
cat >"$TMP/names.py" <<'PY'
import glob, json, sys, yaml
names = {"addresses": set(), "queues": set(), "diverts": set()}
for f in glob.glob(sys.argv[1] + "/*.yaml"):
    d = yaml.load(open(f), Loader=yaml.CSafeLoader) or {}
    for a in d.get("addresses") or []:
        names["addresses"].add(a["name"])
        for q in a.get("queues") or []:
            names["queues"].add(q["name"])
    for v in d.get("diverts") or []:
        names["diverts"].add(v["name"])
inv = json.load(open(sys.argv[2]))
rep = json.load(open(sys.argv[3]))
bad = []
for k, want in names.items():
    got = set(inv.get(k) or [])
    if len(want) != rep["declared"][k]:
        bad.append("%s: %d in the YAML, %d in the report" % (k, len(want), rep["declared"][k]))
    if want - got:
        bad.append("%s missing from the inventory: %s" % (k, sorted(want - got)[:5]))
    if got - want:
        bad.append("%s in the inventory, not declared: %s" % (k, sorted(got - want)[:5]))
print("; ".join(bad) if bad else "true")
PY
check_eq "the inventory holds every declared name, and only those" true \
	"$(python3 "$TMP/names.py" "$OUT" "$STATE/$CL/inventory.json" "$R")"
check_eq "the audit row of the adoption" "[0, \"$CL\"]" "$(audit_rows result | tail -1 | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(json.dumps([r["exit"], r["cluster"]]))')"

# A later commit removes fan.sub and the divert that feeds its address.
cp -r "$OUT" "$TMP/next"
check_eq "fan.sub and fan.d removed from the imported YAML" OK "$(python3 - "$TMP/next" <<'PY'
import glob, re, sys
done = set()
for p in glob.glob(sys.argv[1] + "/*.yaml"):
    s = t = open(p).read()
    # the queue's item (its name line and the deeper lines under it), and
    # a `queues:` key left with no item
    t = re.sub(r"(?m)^( +)- name: fan\.sub\n(\1  .*\n)*", "", t)
    t = re.sub(r"(?m)^( +)queues:\n(?!\1  )", "", t)
    t = re.sub(r"(?m)^( +)- name: fan\.d\n(\1  .*\n)*", "", t)
    if t != s:
        done.update(x for x in ("fan.sub", "fan.d") if x in s and x not in t)
        open(p, "w").write(t)
print("OK" if done == {"fan.sub", "fan.d"} else "removed only %s" % sorted(done))
PY
)"
check_exit "the edited folder validates" 0 "$AG_BIN" validate "$TMP/next"
timed t_plan2 plan_to "$TMP/p2" "$TMP/next"
check_eq "the plan without them exits 2" 2 "$?"
echo "# plan of the deletes: $t_plan2 s"
check_eq "exactly delete-queue fan.sub and delete-divert fan.d, on both nodes" \
	'[["delete-divert", "fan.d", ["WOULD_APPLY", "WOULD_APPLY"]], ["delete-queue", "fan.sub", ["WOULD_APPLY", "WOULD_APPLY"]]]' \
	"$(rj "$TMP/p2/plan.json" 'sorted([[a["kind"], a["name"], [n["outcome"] for n in a["nodes"]]] for a in j["actions"]])')"
echo "# timings: import $t_import s, plan $t_plan s, apply $t_apply s, plan of the deletes $t_plan2 s"
done_testing
