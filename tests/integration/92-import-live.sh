#!/usr/bin/env bash
# import --from-live on real brokers (issue 17, docs/import.md): two brokers
# of their own (the import reads everything a broker holds, so it must not
# see the other scripts' objects), loaded by the bench generator with 1,000
# queues and 100 diverts, plus what an operator's cluster also holds:
#   - names YAML or Jolokia's object-name quoting care about (spaces, ':',
#     '#', quotes, a leading '-', '*', '?', '=', a backslash, unicode, words
#     YAML reads as true/null/numbers), and names a declaration cannot hold
#     (',', two spaces, a line separator), which are left out and named;
#   - a divert with a filter and a transformer with properties;
#   - an address and queue auto-created by a real producer sending to an
#     address nobody created, a temporary queue, a capture's tap;
#   - a queue on node1 only, and a queue that differs between the nodes.
# Then: import -> validate -> plan against the same brokers (exit 0, every
# node NO_CHANGE, adopting every declared object) -> approve -> apply, which
# records every declared object and nothing left out in the inventory; a
# later declaration without a queue and its dependent divert plans exactly
# those deletes. The same brokers import byte for byte the same; bad input
# (a folder not empty, --force over a folder holding anything else, a
# nodes file with objects, an unreachable node) writes nothing.
# Truth is read with curl (brokers.sh's broker_jolokia).
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"

TMP=$(mktemp -d)
# Port base: ARTEMIS_PORT_BASE + 400 (node1 +400, node2 +410): clear of the
# integration nodes (base .. base+40), 91-ha-pairs (base+200 ..),
# 90-versions (base+300 .. base+360) and the compat stage (base+500 ..).
pbase=$((${ARTEMIS_PORT_BASE:-100} + 400))
run=$TMP/run
art() { ARTEMIS_RUN_DIR=$run ARTEMIS_PORT_BASE=$pbase "$ARTEMIS" "$@"; }
cleanup() {
	art down >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

check "fetch Artemis" art fetch
if ! art up 2 >"$TMP/nodes.txt" 2>"$TMP/up.err"; then
	echo "Bail out! two brokers did not start: $(tail -3 "$TMP/up.err")"
	exit 1
fi
AG_NODES_FILE=$TMP/nodes.txt
brokers_read "$AG_NODES_FILE"
NODESFILE=$run/cluster/cluster.yaml
STATE=$TMP/state
CL=local

# apply-lib's produce (a real producer: the broker auto-creates what it
# sends to) reaches these brokers on their own ports
broker_port() { art port "$1"; }


# The odd names, written by python so that no shell quoting stands between.
python3 - "$TMP/odd.json" <<'PY'
import json, sys
names = ["with space", "colon:name", "hash#name", 'quote"d', "'single'",
         "-leading", "star*", "question?", "eq=name", "back\\slash",
         "\u00fcn\u00ef\u00a9\u00f8d\u00e9-\u65e5\u672c", "true", "null",
         "123", "0x1F", "~", "@at", "%pct", "a: b", "x #y", "[list]", "{map}",
         "amp&lt;", "comma,name", "two  spaces", "line\u2028sep"]
json.dump(names, open(sys.argv[1], "w"))
PY
for n in node1 node2; do
	check "$n: 1,000 queues and 100 diverts by the bench generator" \
		python3 "$AG_TOP/bench/gen.py" load "${URL[$n]}" "${CRED[$n]}" --queues 1000 --broker "$n"
	check_eq "$n: odd names, a transformer divert, a dependent divert, a capture's tap, a temporary queue" OK "$(broker_bulk "$n" "
names = json.load(open('$TMP/odd.json'))
ops = []
for x in names:
    ops += [addr(x), queue(name=x, address=x)]
ops += [addr('tx.src'), queue(name='tx.src', address='tx.src'),
        addr('tx.dst'), queue(name='tx.dst', address='tx.dst', **{'filter-string': \"kind = 'copy'\"}),
        divert(name='tx.d', address='tx.src', **{'forwarding-address': 'tx.dst', 'routing-name': 'tx.rn',
               'exclusive': True, 'filter-string': \"color = 'blue' AND size > 5\", 'routing-type': 'ANYCAST',
               'transformer-configuration': {'class-name': 'org.apache.activemq.artemis.core.server.transformer.AddHeadersTransformer',
                                             'properties': {'x-added': 'yes', 'x-words': 'two words: \"q\"'}}})]
ops += [addr('dep.in'), queue(name='dep.in', address='dep.in'),
        addr('dep.out', 'MULTICAST'), queue(name='dep.sub', address='dep.out', **{'routing-type': 'MULTICAST'}),
        divert(name='dep.d', address='dep.in', **{'forwarding-address': 'dep.out', 'routing-type': 'MULTICAST', 'routing-name': 'dep.d'}),
        divert(name='uuid.d', address='tx.src', **{'forwarding-address': 'tx.dst'})]
ops += [queue(name='__capture.dbg.tx.src', address='tx.src', durable=False, **{'ring-size': 10})]
ops += [queue(name='tmp.q', address='tmp.q', temporary=True, durable=False, **{'auto-create-address': True})]
ops += [addr('differs'), queue(name='differs.q', address='differs', **{'max-consumers': 5 if '$n' == 'node1' else 6})]
if '$n' == 'node1':
    ops += [addr('only.node1'), queue(name='only.node1', address='only.node1')]
print(json.dumps(ops))")"
	check_eq "$n: a producer auto-creates auto.made" OK "$(produce "$n" auto.made)"
done

OUT=$TMP/imported
check_exit "import --help" 0 "$AG_BIN" import --help
check_exit "import without --out is a usage error" 64 "$AG_BIN" import --from-live "$NODESFILE"
check_exit "import --from-live" 0 "$AG_BIN" import --from-live "$NODESFILE" --out "$OUT" --credentials "$CREDDIR"
R=$OUT/import-report.json
check_exit "the imported folder validates" 0 "$AG_BIN" validate "$OUT"
check_eq "declared: 200 + 23 + 5 addresses, 1,000 + 23 + 4 queues, 100 + 2 diverts" \
	'{"addresses": 228, "diverts": 102, "queues": 1027}' "$(rj "$R" 'j["declared"]')"
left() { rj "$R" "sorted([x['kind'] + ' ' + x['name'] + ' ' + x['reason'] for x in j['left_out'] if $1])"; }
check_eq "left out by rule: the broker's own, the producer's auto-created, the temporary queue, the tap" \
	'["address $sys.mqtt.sessions BROKER_OWN", "address DLQ BROKER_OWN", "address ExpiryQueue BROKER_OWN", "address activemq.notifications BROKER_OWN", "address auto.made AUTO_CREATED", "address tmp.q AUTO_CREATED", "queue $sys.mqtt.sessions BROKER_OWN", "queue DLQ BROKER_OWN", "queue ExpiryQueue BROKER_OWN", "queue __capture.dbg.tx.src CAPTURE", "queue auto.made AUTO_CREATED", "queue tmp.q TEMPORARY"]' \
	"$(left "x['reason'] in ('BROKER_OWN', 'AUTO_CREATED', 'TEMPORARY', 'CAPTURE')")"
check_eq "left out to decide: on node1 only, different, names a declaration cannot hold" \
	'["address comma,name BAD_NAME", "address line\u2028sep BAD_NAME", "address only.node1 NOT_ON_EVERY_NODE", "address two  spaces BAD_NAME", "divert uuid.d DIFFERS", "queue comma,name BAD_NAME", "queue differs.q DIFFERS", "queue line\u2028sep BAD_NAME", "queue only.node1 NOT_ON_EVERY_NODE", "queue two  spaces BAD_NAME"]' \
	"$(left "x['reason'] not in ('BROKER_OWN', 'AUTO_CREATED', 'TEMPORARY', 'CAPTURE')")"
check_eq "the report says per node: only.node1 absent on node2" '[["node1", "address=\"only.node1\" routing=anycast"], ["node2", "absent"]]' \
	"$(rj "$R" '[[n["node"], n["state"]] for x in j["left_out"] if x["name"] == "only.node1" and x["kind"] == "queue" for n in x["nodes"]]')"
check_eq "the report says what differs" 'differs in max-consumers' \
	"$(rj "$R" '[x["detail"] for x in j["left_out"] if x["name"] == "differs.q"][0]')"
check_eq "a divert created without a routing name differs: each broker drew its own" 'differs in routing-name' \
	"$(rj "$R" '[x["detail"] for x in j["left_out"] if x["name"] == "uuid.d"][0]')"
check_grep "import-report.md names the queue on node1 only" 'queue only\.node1: NOT_ON_EVERY_NODE' "$OUT/import-report.md"
check_grep "cluster.yaml says how many were left out" '22 objects left out' "$OUT/cluster.yaml"
check_grep "the transformer divert keeps its whole configuration" 'transformer-class-name: org.apache.activemq.artemis.core.server.transformer.AddHeadersTransformer' "$OUT/diverts.yaml"
check_eq "a name with a space, quoted" 1 "$(grep -c '^  - name: "with space"$' "$OUT/addresses.yaml")"
check_eq "a name YAML reads as a boolean, quoted" 1 "$(grep -c '^  - name: "true"$' "$OUT/addresses.yaml")"
check_eq "no auto-created queue is declared" 0 "$(grep -c 'auto.made' "$OUT/addresses.yaml")"

check_exit "the same brokers import again" 0 "$AG_BIN" import --from-live "$NODESFILE" --out "$TMP/again" --credentials "$CREDDIR"
check "byte for byte the same folder" diff -r "$OUT" "$TMP/again"

plan_to "$TMP/p1" "$OUT" >"$TMP/p1.out" 2>&1
check_eq "the first plan exits 0" 0 "$?"
check_eq "NO_CHANGE, no action, every node read" '["NO_CHANGE", 0, [true, true]]' \
	"$(rj "$TMP/p1/plan.json" '[j["outcome"], len(j["actions"]), [n["reachable"] for n in j["nodes"]]]')"
check_eq "it adopts every declared object" '{"addresses": 228, "diverts": 102, "queues": 1027}' "$(rj "$TMP/p1/plan.json" 'j["adopts"]')"
check_grep "plan.md says the plan adopts 1357 objects" 'Adopts 1357 objects' "$TMP/p1/plan.md"
check_grep "the confirmation names the adoption" 'adopt 1357 objects on local' "$TMP/p1/plan.md"
check "approve the adoption" approve_ok "$TMP/p1"
check "apply the adoption" apply_to "$TMP/p1" "$OUT"
check_eq "the inventory holds every declared object and nothing left out" true "$(python3 - "$STATE/local/inventory.json" "$R" "$OUT" <<'PY'
import json, sys, glob, re
inv = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
left = {(x["kind"], x["name"]) for x in rep["left_out"]}
ok = len(inv["queues"]) == 1027 and len(inv["addresses"]) == 228 and len(inv["diverts"]) == 102
ok = ok and not any(("queue", q) in left for q in inv["queues"])
ok = ok and not any(("address", a) in left for a in inv["addresses"])
ok = ok and "with space" in inv["queues"] and "tx.d" in inv["diverts"]
print("true" if ok else "false: %d %d %d" % (len(inv["queues"]), len(inv["addresses"]), len(inv["diverts"])))
PY
)"
check_eq "the audit row of the adoption: exit 0, 1357 objects adopted" '[0, "local", 1357]' "$(audit_rows result | tail -1 | python3 -c 'import json,sys; r=json.loads(sys.stdin.read()); print(json.dumps([r["exit"], r["cluster"], r.get("adopted")]))')"
check_grep "result.md says so" '^\*\*Adopted 1357 objects\*\*' "$TMP/p1/result.md"
check_exit "then the plan is NO_CHANGE and adopts nothing" 0 plan_to "$TMP/p2" "$OUT"
check_eq "nothing left to adopt" '["NO_CHANGE", false]' "$(rj "$TMP/p2/plan.json" '[j["outcome"], "adopts" in j]')"

# A later commit removes dep.sub and the divert that needs it.
cp -r "$OUT" "$TMP/next"
python3 - "$TMP/next" <<'PY'
import glob, re, sys
d = sys.argv[1]
p = d + "/addresses.yaml"
s = open(p).read()
s = s.replace("    queues:\n      - name: dep.sub\n", "", 1)
open(p, "w").write(s)
p = d + "/diverts.yaml"
s = open(p).read()
s = re.sub(r"  - name: dep\.d\n(    .*\n)*", "", s, count=1)
open(p, "w").write(s)
PY
check_exit "removing dep.sub and its divert plans changes" 2 plan_to "$TMP/p3" "$TMP/next"
check_eq "exactly that delete and its dependent divert, on both nodes" '[["delete-divert", "dep.d", ["WOULD_APPLY", "WOULD_APPLY"]], ["delete-queue", "dep.sub", ["WOULD_APPLY", "WOULD_APPLY"]]]' \
	"$(rj "$TMP/p3/plan.json" 'sorted([[a["kind"], a["name"], [n["outcome"] for n in a["nodes"]]] for a in j["actions"]])')"
check_grep "the preview names the dependent divert" 'dep\.d' "$TMP/p3/plan.md"

# Bad input writes nothing.
check_exit "a folder that is not empty is refused" 1 "$AG_BIN" import --from-live "$NODESFILE" --out "$OUT" --credentials "$CREDDIR"
check_exit "--force replaces an earlier import" 0 "$AG_BIN" import --from-live "$NODESFILE" --out "$TMP/again" --credentials "$CREDDIR" --force --include-auto-created
check_eq "--include-auto-created declares auto.made" 1 "$(grep -c '^      - name: auto.made$' "$TMP/again/addresses.yaml")"
echo "notes" >"$TMP/again/README"
check_exit "--force refuses a folder holding anything else" 1 "$AG_BIN" import --from-live "$NODESFILE" --out "$TMP/again" --credentials "$CREDDIR" --force
check "... and leaves it as it was" test -f "$TMP/again/README" -a -f "$TMP/again/addresses.yaml"
printf 'version: 1\ncluster: x\nmode: STUDIO_MANAGED\nnodes:\n  - {name: node1, jolokia: "%s", credentials: node1}\naddresses:\n  - {name: a, routing: [anycast]}\n' "${URL[node1]}" >"$TMP/objects.yaml"
check_exit "a nodes file that declares objects is refused" 1 "$AG_BIN" import --from-live "$TMP/objects.yaml" --out "$TMP/o2" --credentials "$CREDDIR"
"$AG_BIN" import --from-live "$TMP/objects.yaml" --out "$TMP/o2" --credentials "$CREDDIR" 2>"$TMP/o2.err"
check_grep "... at its line" 'objects.yaml:7:5: import reads a nodes file' "$TMP/o2.err"
sed "s|${URL[node2]}|http://localhost:9/console/jolokia|" "$NODESFILE" >"$TMP/down.yaml"
"$AG_BIN" import --from-live "$TMP/down.yaml" --out "$TMP/o3" --credentials "$CREDDIR" 2>"$TMP/o3.err"
check_eq "an unreachable node fails the import" 1 "$?"
check_grep "... naming the node and its refusal" 'node2.*UNREACHABLE' "$TMP/o3.err"
check "... and nothing is written" test ! -e "$TMP/o3"
check_eq "... not even a temporary folder" "" "$(compgen -G "$TMP/.artemis-gitops-import*" || true)"
# The daemon's first cycle adopts an imported cluster (auto-apply-creates:
# the adoption changes no broker), into a state folder of its own.
daemon_setup local
trap 'daemon_cleanup; cleanup' EXIT
rm -rf "$T/work/clusters/local"
cp -r "$TMP/imported" "$T/work/clusters/local"
echo "auto-apply-creates: true" >>"$T/agent.yaml"
c=$(daemon_commit "the imported cluster")
daemon_start
inv_count() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(len(j["queues"]), len(j["addresses"]), len(j["diverts"]))' "$T/state/local/inventory.json" 2>/dev/null; }
adopted() { [ "$(inv_count)" = "1027 228 102" ]; }
check "the daemon adopts the imported cluster on its first cycle" wait_for 60 adopted
check_eq "... every declared object in its inventory" "1027 228 102" "$(inv_count)"
check_grep "... applied without an approval, nothing sent to a broker" 'only adopts objects .nothing is sent to a broker., applying without an approval' "$T/agent.log"
pv=$(preview_of "$c")
check_grep "... its preview said it adopts" 'Adopts 1357 objects' "$pv/plan.md"
daemon_stop
check_eq "the daemon exits 0" 0 "$RC"
done_testing
