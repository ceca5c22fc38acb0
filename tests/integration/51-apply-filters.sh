#!/usr/bin/env bash
# The one configuration writer and an absent filter, on real brokers.
# plan.json's createQueue/createDivert/updateQueue/updateDivert JSON is what
# the broker is sent, byte for byte (an opproxy in front of node 1 records
# each operation's arguments; before 2.38 a divert is created with the
# positional createDivert, each setting in its place, and changed by a
# recreate): a queue without a filter has no
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

# The arguments each createQueue/updateQueue/createDivert/updateDivert sent
# through the proxy ($OPPROXY_ARGS_LOG: every exec's whole argument list)
# equal plan.json's config of that operation on node 1: the JSON text byte
# for byte, or, for the positional createDivert of a release before 2.38,
# each setting in its place.
sent_is_planned() {
	python3 - "$1" "$OPPROXY_ARGS_LOG" "$n1" <<'PY'
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
    op, args = line.rstrip("\n").split("\t", 1)
    args = json.loads(args)
    if op not in ("createQueue", "updateQueue", "createDivert", "updateDivert"):
        continue
    if len(args) == 1:
        cfg = json.loads(args[0])
        if json.dumps(cfg, sort_keys=True, separators=(",", ":")) != args[0]:
            print("not the canonical bytes: %s" % args[0])
            sys.exit(1)
    elif op == "createDivert" and len(args) == 9:
        cfg = {"name": args[0], "routing-name": args[1], "address": args[2],
               "forwarding-address": args[3], "exclusive": args[4],
               "filter-string": args[5], "routing-type": args[8]}
        if args[6]:
            cfg["transformer-configuration"] = {"class-name": args[6], "properties": args[7]}
        elif args[7] != {}:
            print("transformer properties without a class: %s" % args)
            sys.exit(1)
    else:
        print("unexpected %s arguments %s" % (op, args))
        sys.exit(1)
    if cfg != planned.get((op, cfg["name"])):
        print("sent %s %s, planned %s" % (op, args, planned.get((op, cfg["name"]))))
        sys.exit(1)
    sent[(op, cfg["name"])] = cfg
missing = set(planned) - set(sent)
if not planned or missing:
    print("planned but not sent: %s (planned %d)" % (sorted(missing), len(planned)))
    sys.exit(1)
print("%d operations sent as planned" % len(sent))
PY
}
# A divert change is in place from 2.38 (updateDivert(json)), a recreate
# before (docs/compatibility.md).
version=$(broker_read "$n1" "org.apache.activemq.artemis:broker=\"$n1\"" Version | tr -d '"')
divert_change=change-divert
[[ $version < 2.38 ]] && divert_change=recreate-divert

export OPPROXY_ARGS_LOG=$TMP/opproxy-args.log
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
: >"$OPPROXY_ARGS_LOG"
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
check_eq "update: the queues change in place, the diverts as $version can" \
	"[\"change-queue\", \"change-queue\", \"$divert_change\", \"$divert_change\"]" \
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
