#!/usr/bin/env bash
# The one configuration writer and an absent filter, on real brokers.
# plan.json's createQueue/createDivert/updateQueue/updateDivert JSON is what
# the broker is sent, byte for byte (an opproxy in front of node 1 records
# each operation's argument): a queue without a filter has no
# `filter-string`, a divert without one has `"filter-string": ""`. Artemis
# reads both as "no filter": created without a filter, each object has none;
# and an update without a filter removes the filter it had. Every broker
# value is read with curl (broker_attr), not through the agent.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t51f-$$
apply_setup "$u"
n1=${NODES[0]}
n2=${NODES[1]}
trap 'janitor "$u"; _brokers_cleanup' EXIT

# The argument each createQueue/updateQueue/createDivert/updateDivert sent
# through the proxy equals plan.json's config of that operation on node 1.
sent_is_planned() {
	python3 - "$1" "$OPX_LOG" "$n1" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
planned = {}
for a in plan["actions"]:
    for n in a["nodes"]:
        if n["node"] != sys.argv[3]:
            continue
        for op in n["operations"]:
            if op["op"] in ("createQueue", "updateQueue", "createDivert", "updateDivert"):
                planned[(op["op"], op["name"])] = op["config"]
sent = {}
for line in open(sys.argv[2]):
    verb, op, arg = (line.rstrip("\n").split(" ", 2) + ["", ""])[:3]
    if op in ("createQueue", "updateQueue", "createDivert", "updateDivert"):
        cfg = json.loads(arg)
        if cfg != planned.get((op, cfg["name"])):
            print("sent %s %s, planned %s" % (op, arg, planned.get((op, cfg["name"]))))
            sys.exit(1)
        if json.dumps(cfg, sort_keys=True, separators=(",", ":")) != arg:
            print("not the canonical bytes: %s" % arg)
            sys.exit(1)
        sent[(op, cfg["name"])] = cfg
missing = set(planned) - set(sent)
if not planned or missing:
    print("planned but not sent: %s (planned %d)" % (sorted(missing), len(planned)))
    sys.exit(1)
print("%d operations sent as planned" % len(sent))
PY
}

opproxy_start "$n1"
with_filters="addresses:
  - name: $u.a
    routing: [anycast]
    queues:
      - {name: $u.qf, filter: \"color = 'red'\"}
      - {name: $u.qn}
  - name: $u.b
    routing: [anycast]
    queues: [{name: $u.b}]
diverts:
  - {name: $u.df, address: $u.a, forwarding-address: $u.b, routing-type: ANYCAST, filter: \"prio > 4\"}
  - {name: $u.dn, address: $u.a, forwarding-address: $u.b, routing-type: ANYCAST}"
decl "$TMP/c" "$with_filters" "$n1=$OPX_URL"
converge create "$TMP/c" "$TMP/create"
check "create: what was sent is plan.json's configuration" sent_is_planned "$TMP/create/plan.json"
check_eq "create: plan.json, queue without a filter: no filter-string" "absent" \
	"$(rj "$TMP/create/plan.json" '"absent" if all("filter-string" not in op["config"] for a in j["actions"] if a["name"] == "'"$u.qn"'" for n in a["nodes"] for op in n["operations"]) else "present"')"
check_eq "create: plan.json, divert without a filter: filter-string \"\"" '[""]' \
	"$(rj "$TMP/create/plan.json" 'sorted(set(op["config"]["filter-string"] for a in j["actions"] if a["name"] == "'"$u.dn"'" for n in a["nodes"] for op in n["operations"]))')"
for n in "$n1" "$n2"; do
	check_eq "create on $n: queue with a filter has it" "\"color = 'red'\"" "$(broker_attr "$n" queues "$u.qf" Filter)"
	check_eq "create on $n: queue created without filter-string has none" null "$(broker_attr "$n" queues "$u.qn" Filter)"
	check_eq "create on $n: divert with a filter has it" '"prio > 4"' "$(broker_attr "$n" diverts "$u.df" Filter)"
	check_eq "create on $n: divert created with filter-string \"\" has none" null "$(broker_attr "$n" diverts "$u.dn" Filter)"
done

# The filters move: qf and df lose theirs (updates without one), qn and dn
# get one (updates with one).
: >"$OPX_LOG"
decl "$TMP/c" "addresses:
  - name: $u.a
    routing: [anycast]
    queues:
      - {name: $u.qf}
      - {name: $u.qn, filter: \"size > 1\"}
  - name: $u.b
    routing: [anycast]
    queues: [{name: $u.b}]
diverts:
  - {name: $u.df, address: $u.a, forwarding-address: $u.b, routing-type: ANYCAST}
  - {name: $u.dn, address: $u.a, forwarding-address: $u.b, routing-type: ANYCAST, filter: \"size > 1\"}" "$n1=$OPX_URL"
converge update "$TMP/c" "$TMP/update"
check_eq "update: the actions are changes in place" '["change-queue", "change-queue", "change-divert", "change-divert"]' \
	"$(rj "$TMP/update/plan.json" 'sorted([a["kind"] for a in j["actions"]], key=lambda k: (k != "change-queue", k))')"
check "update: what was sent is plan.json's configuration" sent_is_planned "$TMP/update/plan.json"
for n in "$n1" "$n2"; do
	check_eq "update on $n: updateQueue without filter-string removed the filter" null "$(broker_attr "$n" queues "$u.qf" Filter)"
	check_eq "update on $n: updateQueue with a filter set it" '"size > 1"' "$(broker_attr "$n" queues "$u.qn" Filter)"
	check_eq "update on $n: updateDivert with filter-string \"\" removed the filter" null "$(broker_attr "$n" diverts "$u.df" Filter)"
	check_eq "update on $n: updateDivert with a filter set it" '"size > 1"' "$(broker_attr "$n" diverts "$u.dn" Filter)"
done
check_exit "update: the next plan has nothing to do" 0 plan_to "$TMP/again" "$TMP/c"
opproxy_stop
done_testing
