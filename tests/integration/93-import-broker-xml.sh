#!/usr/bin/env bash
# import --from-broker-xml (issue 17, docs/import.md): real broker.xml
# files (the one `artemis create` wrote for the stage's node1, and fixtures
# in the styles of the Apache Artemis examples: every queue and divert
# setting, odd names, CRLF, nested xi:include, a clustered example-style
# broker) imported as a CONFIG_MANAGED cluster of two nodes; the folder
# validates, `render` writes it into the recorded base and the rendered
# files declare the same addresses, queues and diverts as the originals,
# less exactly what the report left out (compared by the reader itself,
# tests/tools/import-xml-check --dump, not by eye). Two nodes with
# different files get a base each and the differences in the report. Bad
# input (malformed XML, another root element or namespace, an xi:include
# leaving the folder or missing, ${...} in an address, legacy <queues>, a
# STUDIO_MANAGED nodes file, a node without its file) writes nothing.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
brokers_setup
FIX=$AG_TOP/tests/fixtures/broker-xml
CHECK=$AG_TOP/build/asan/tools/import-xml-check
SCHEMA=${ARTEMIS_GITOPS_SCHEMA_DIR:-$AG_TOP/.cache/artemis/schema}
export ARTEMIS_GITOPS_SCHEMA_DIR=$SCHEMA
NF=$TMP/nodes.yaml
cat >"$NF" <<EOF
version: 1
cluster: cm
mode: CONFIG_MANAGED
nodes:
  - {name: n1, jolokia: "http://localhost:1/console/jolokia", credentials: n1}
  - {name: n2, jolokia: "http://localhost:2/console/jolokia", credentials: n2}
EOF

# same ORIG RENDERED REPORT: the rendered file declares what ORIG does,
# less the objects REPORT left out.
same() {
	"$CHECK" --dump "$1" >"$TMP/a.json" && "$CHECK" --dump "$2" >"$TMP/b.json" &&
		python3 - "$TMP/a.json" "$TMP/b.json" "$3" <<'PY'
import json, sys
a, b, rep = (json.load(open(f)) for f in sys.argv[1:4])
left = {(x["kind"], x["name"]) for x in rep["left_out"]}
def objs(d, drop):
    o = set()
    for ad in d["addresses"]:
        if drop and ("address", ad["name"]) in left:
            continue
        o.add(("address", ad["name"], json.dumps(ad["routing"])))
        for q in ad["queues"]:
            if not (drop and ("queue", q["name"]) in left):
                o.add(("queue", ad["name"], json.dumps(q, sort_keys=True)))
    for dv in d["diverts"]:
        if not (drop and ("divert", dv["name"]) in left):
            o.add(("divert", dv["name"], json.dumps(dv, sort_keys=True)))
    return o
want, got = objs(a, True), objs(b, False)
if want != got:
    print("only in the original: %s; only rendered: %s" % (sorted(want - got)[:3], sorted(got - want)[:3]))
    sys.exit(1)
PY
}

roundtrip() {
	local name=$1 file=$2 out=$TMP/imp-$1
	check_exit "$name: import" 0 "$AG_BIN" import --from-broker-xml "$NF" "n1=$file" "n2=$file" --out "$out"
	check_exit "$name: the folder validates" 0 "$AG_BIN" validate "$out"
	check "$name: one base for both nodes" test -f "$out/broker/broker.xml" -a ! -e "$out/broker/nodes"
	check_exit "$name: render into the recorded base" 0 "$AG_BIN" render "$out" --out "$TMP/r-$name"
	check "$name: the rendered broker.xml declares the same objects, less what was left out" \
		same "$file" "$TMP/r-$name/n1/broker.xml" "$out/import-report.json"
	check_exit "$name: import again" 0 "$AG_BIN" import --from-broker-xml "$NF" "n1=$file" "n2=$file" --out "$TMP/again-$name"
	check "$name: byte for byte the same folder" diff -r "$out" "$TMP/again-$name"
}

check "the broker.xml artemis create wrote" test -r "$RUNDIR/node1/etc/broker.xml"
roundtrip created "$RUNDIR/node1/etc/broker.xml"
check_eq "created: DLQ and ExpiryQueue are declared (render writes only what is declared)" 2 \
	"$(grep -c '^  - name: \(DLQ\|ExpiryQueue\)$' "$TMP/imp-created/addresses.yaml")"
for f in every-setting odd-names crlf xinclude examples-style; do
	roundtrip "$f" "$FIX/$f/broker.xml"
done
check_grep "xinclude: the report says the base was expanded" 'expanded' "$TMP/imp-xinclude/import-report.md"
check_grep "examples-style: the \${...} kept as written is named" 'broker.name' "$TMP/imp-examples-style/import-report.md"
check_grep "examples-style: the transformer divert with its properties" 'kind: "sport & more"' "$TMP/imp-examples-style/diverts.yaml"
check_grep "crlf: the divert into an undeclared address is left out, and said" 'divert inbox-copy: ADDRESS_LEFT_OUT' "$TMP/imp-crlf/import-report.md"

# Two nodes, two files: a base each, the differences reported.
sed -e 's/max-consumers="1"/max-consumers="2"/' -e 's|<address name="orders">|<address name="only.n2"><anycast><queue name="only.n2"/></anycast></address><address name="orders">|' \
	"$FIX/examples-style/broker.xml" >"$TMP/n2.xml"
check_exit "two different files import" 0 "$AG_BIN" import --from-broker-xml "$NF" "n1=$FIX/examples-style/broker.xml" "n2=$TMP/n2.xml" --out "$TMP/two"
check "a base per node" test -f "$TMP/two/broker/nodes/n1.xml" -a -f "$TMP/two/broker/nodes/n2.xml" -a ! -e "$TMP/two/broker/broker.xml"
check "n2's base is n2's file" cmp "$TMP/two/broker/nodes/n2.xml" "$TMP/n2.xml"
check_eq "the report: the queue that differs and the address on n2 only" '["address only.n2 NOT_ON_EVERY_NODE", "queue only.n2 NOT_ON_EVERY_NODE", "queue sportSubscriber DIFFERS"]' \
	"$(python3 -c 'import json,sys; print(json.dumps(sorted(x["kind"]+" "+x["name"]+" "+x["reason"] for x in json.load(open(sys.argv[1]))["left_out"])))' "$TMP/two/import-report.json")"
check_exit "... and it renders" 0 "$AG_BIN" render "$TMP/two" --out "$TMP/r-two"
check "n1's rendered file: the same objects, less what was left out" same "$FIX/examples-style/broker.xml" "$TMP/r-two/n1/broker.xml" "$TMP/two/import-report.json"

# Bad input: refused at the file and line, nothing written.
bad() {
	local name=$1 want=$2 file=$3
	"$AG_BIN" import --from-broker-xml "$NF" "n1=$file" "n2=$FIX/crlf/broker.xml" --out "$TMP/bad" 2>"$TMP/bad.err"
	check_eq "$name: refused" 1 "$?"
	check_grep "$name: said where" "$want" "$TMP/bad.err"
	check "$name: nothing written" test ! -e "$TMP/bad"
}
printf '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">\n<addresses>\n<address name="a">\n</core></configuration>\n' >"$TMP/malformed.xml"
bad "malformed XML" 'malformed.xml:4' "$TMP/malformed.xml"
printf '<?xml version="1.0"?>\n<beans xmlns="http://www.springframework.org/schema/beans"/>\n' >"$TMP/beans.xml"
bad "another root element" 'beans.xml:2.*not an Artemis broker.xml' "$TMP/beans.xml"
printf '<?xml version="1.0"?>\n<configuration xmlns="urn:other"><core xmlns="urn:activemq:core"/></configuration>\n' >"$TMP/ns.xml"
bad "another namespace" 'ns.xml:2.*urn:other' "$TMP/ns.xml"
bad "an xi:include leaving the folder" 'sub/broker.xml:[0-9]*:.*outside.xml' "$FIX/refused-escape/sub/broker.xml"
printf '<?xml version="1.0"?>\n<configuration xmlns="urn:activemq" xmlns:xi="http://www.w3.org/2001/XInclude"><core xmlns="urn:activemq:core">\n<xi:include href="gone.xml"/>\n</core></configuration>\n' >"$TMP/missing.xml"
bad "an xi:include of a missing file" 'missing.xml:3.*gone.xml' "$TMP/missing.xml"
printf '<?xml version="1.0"?>\n<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><addresses>\n<address name="${env.QUEUE}"><anycast><queue name="q"/></anycast></address>\n</addresses></core></configuration>\n' >"$TMP/prop.xml"
bad "\${...} in an address" 'prop.xml:3.*env.QUEUE' "$TMP/prop.xml"
bad "legacy <queues>" 'legacy-queues/broker.xml:[0-9]*: legacy <queues>' "$FIX/legacy-queues/broker.xml"
sed 's/CONFIG_MANAGED/STUDIO_MANAGED/' "$NF" >"$TMP/studio.yaml"
check_exit "a STUDIO_MANAGED nodes file is refused" 1 "$AG_BIN" import --from-broker-xml "$TMP/studio.yaml" "n1=$FIX/crlf/broker.xml" "n2=$FIX/crlf/broker.xml" --out "$TMP/bad"
check_exit "a node without its file is a usage error" 64 "$AG_BIN" import --from-broker-xml "$NF" "n1=$FIX/crlf/broker.xml" --out "$TMP/bad"
check_exit "an unknown node is a usage error" 64 "$AG_BIN" import --from-broker-xml "$NF" "n1=$FIX/crlf/broker.xml" "n3=$FIX/crlf/broker.xml" --out "$TMP/bad"
check "... nothing written" test ! -e "$TMP/bad"
done_testing
