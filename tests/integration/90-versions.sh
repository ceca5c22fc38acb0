#!/usr/bin/env bash
# Every supported Artemis release in one cluster (docs/compatibility.md): a
# rolling upgrade's worth of real brokers, one node each of 2.28.0, 2.31.2,
# 2.37.0, 2.40.0 and 2.44.0 (fetched from Maven Central by scripts/artemis,
# each in its own run folder at its own port base), planned and applied as
# one cluster:
#   - plan.json and plan.md name each node's release; a divert create below
#     2.38 is the positional createDivert (said in plan.md), from 2.38 the
#     JSON one; a declared divert, a divert with a transformer and a capture
#     tap are created on every node and read back through Jolokia;
#   - drift repair: the divert destroyed by hand on every node is planned
#     and created again on every node;
#   - a divert change is an in-place updateDivert on 2.40/2.44 and a
#     recreate below 2.38 (the positional updateDivert journals the divert
#     without its address and the broker would not start again); after the
#     apply every broker restarts and holds the changed divert;
#   - the transformer divert is gone after the restart on 2.28/2.31, as their
#     preview warned, and kept on 2.37 and later;
#   - a divert delete warns on 2.28/2.31 that the divert comes back at the
#     restart, and it does there (and not on 2.44); it stayed managed, so
#     the next plan deletes it again there;
#   - CONFIG_MANAGED: a base broker.xml with an element 2.40 introduced
#     fails the schema of 2.28/2.31/2.37 on those nodes, named, and passes
#     on 2.40/2.44 (each node is held to its release's schema);
#   - a broker of 2.27.1, below the floor, refuses the plan with its
#     version and the floor named, and nothing is sent to it.
# Truth is read with curl (brokers.sh's broker_jolokia), never through the
# agent's client.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"

versions=(2.28.0 2.31.2 2.37.0 2.40.0 2.44.0)
floor_below=2.27.1
# Port bases: ARTEMIS_PORT_BASE + 300 + 10 per release: clear of the
# integration stage's nodes (base .. base+40) and of the compat stage's
# (base+500 and up).
pbase=$((${ARTEMIS_PORT_BASE:-100} + 300))
TMP=$(mktemp -d)
CREDDIR=$TMP/creds
mkdir -m 0700 "$CREDDIR"
declare -A URL CRED RUN PBASE VER
NODES=()
u=t90-$$
apply_setup "$u"

# vname VERSION: the node's name in the declaration (v2_28_0 ...).
vname() { echo "v${1//./_}"; }

# art NODE ARGS...: scripts/artemis for that node's release, run folder and
# port base (its broker is node1 there).
art() {
	local n=$1
	shift
	ARTEMIS_VERSION=${VER[$n]} ARTEMIS_RUN_DIR=${RUN[$n]} \
		ARTEMIS_PORT_BASE=${PBASE[$n]} "$ARTEMIS" "$@"
}

cleanup() {
	local n
	for n in "${!RUN[@]}"; do
		art "$n" down >/dev/null 2>&1 || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

add_node() { # VERSION INDEX
	local n
	n=$(vname "$1")
	VER[$n]=$1
	RUN[$n]=$TMP/run-$1
	PBASE[$n]=$((pbase + 10 * $2))
}
i=0
for v in "${versions[@]}"; do
	add_node "$v" "$i"
	NODES+=("$(vname "$v")")
	i=$((i + 1))
done
add_node "$floor_below" "$i"
low=$(vname "$floor_below")

# Fetch one at a time (one Maven log), then start them all at once.
for n in "${NODES[@]}" "$low"; do
	check "fetch Artemis ${VER[$n]}" art "$n" fetch
done
for n in "${NODES[@]}" "$low"; do
	art "$n" up 1 >"$TMP/up-$n.txt" 2>"$TMP/up-$n.err" &
done
wait
for n in "${NODES[@]}" "$low"; do
	read -r _ url cred <"$TMP/up-$n.txt" || true
	if [ -z "${url:-}" ]; then
		not_ok "Artemis ${VER[$n]} started" "$(tail -5 "$TMP/up-$n.err")"
		continue
	fi
	ok "Artemis ${VER[$n]} started"
	URL[$n]=$url
	install -m 0600 "$cred" "$CREDDIR/$n"
	CRED[$n]=$CREDDIR/$n
done

# bj NODE JSON: one Jolokia request to NODE (curl), the reply.
bj() { broker_jolokia "$1" "$2"; }
B='org.apache.activemq.artemis:broker=\"node1\"'
# dattr NODE DIVERT ATTR: the divert's attribute as JSON ("<absent>" when
# the broker has no such divert).
dattr() {
	bj "$1" "{\"type\":\"read\",\"mbean\":\"$B,component=addresses,address=*,subcomponent=diverts,divert=\\\"$2\\\"\",\"attribute\":\"$3\"}" |
		python3 -c '
import json, sys
r = json.load(sys.stdin)
v = r.get("value")
if r.get("status") == 404 or (r.get("status") == 200 and not v):
    print("<absent>"); sys.exit(0)
if r.get("status") != 200:
    print("<read failed %s>" % r.get("status")); sys.exit(1)
if not v:
    print("<absent>"); sys.exit(0)
print(json.dumps(next(iter(v.values())).get(sys.argv[1]), sort_keys=True))' "$3"
}
version_of() {
	bj "$1" "{\"type\":\"read\",\"mbean\":\"$B\",\"attribute\":\"Version\"}" |
		python3 -c 'import json,sys; print(json.load(sys.stdin).get("value"))'
}
restart() { # NODE...: stop and start each (at once); checks they came up
	local n
	for n in "$@"; do
		(art "$n" stop node1 && art "$n" up 1) >"$TMP/re-$n.log" 2>&1 &
	done
	wait
	for n in "$@"; do
		check_eq "${VER[$n]}: the broker starts again" "${VER[$n]}" "$(version_of "$n")"
	done
}
jx() { # NODE OP ARGS: tests/tools/jexec on that node (broker node1)
	local n=$1
	shift
	"$JEXEC" --broker node1 "${URL[$n]}" "${CRED[$n]}" "$@"
}
has_text() { # NAME TEXT FILE: FILE contains TEXT (fixed string)
	if grep -qF -- "$2" "$3"; then ok "$1"; else
		not_ok "$1" "text not found: $2" "$(head -c 3000 "$3")"
	fi
}
positional() { [[ ${VER[$1]} < 2.38 ]]; }
old_journal() { [[ ${VER[$1]} < 2.32 ]]; }
tx_lost() { [[ ${VER[$1]} < 2.37 ]]; }

for n in "${NODES[@]}"; do
	check_eq "$n runs Artemis ${VER[$n]}" "${VER[$n]}" "$(version_of "$n")"
done

SRC="  - name: $u.src
    routing: [anycast]
    queues: [{name: $u.src}]
  - name: $u.fwd
    routing: [anycast]
    queues: [{name: $u.fwd}]"
DIV="  - name: $u.d
    address: $u.src
    forwarding-address: $u.fwd
    filter: \"k = 1\""
TX="  - name: $u.tx
    address: $u.src
    forwarding-address: $u.fwd
    transformer-class-name: org.apache.activemq.artemis.core.server.transformer.AddHeadersTransformer
    transformer-properties:
      tag: eu"
CAP="captures:
  - name: c$$
    pattern: \"$u.src\"
    ring-size: 5"
tap=__capture.c$$.$u.src

# ---- 1. creates on every release ------------------------------------------
decl "$TMP/c" "addresses:
$SRC
diverts:
$DIV
$TX
$CAP"
converge "create" "$TMP/c" "$TMP/p1"
check_eq "plan.json names each node's release" "$(printf '%s\n' "${versions[@]}" | paste -sd' ')" \
	"$(rj "$TMP/p1/plan.json" '" ".join(n["broker_version"] for n in j["nodes"])')"
for n in "${NODES[@]}"; do
	row=$(grep -F "| $n | ${VER[$n]} | ok |" "$TMP/p1/plan.md")
	check_eq "plan.md Nodes: $n on ${VER[$n]}" 1 "$(printf '%s' "$row" | grep -c .)"
	sig=$(rj "$TMP/p1/plan.json" "[o['op'] for a in j['actions'] for s in a['nodes'] if s['node'] == '$n' for o in s['operations'] if o['op'] == 'createDivert']")
	check_eq "$n: two createDivert (declared, transformer) and the tap" \
		'["createDivert", "createDivert", "createDivert"]' "$sig"
	note=$(grep -c "(the positional overload: Artemis ${VER[$n]} has no createDivert(java.lang.String))" "$TMP/p1/plan.md")
	if positional "$n"; then
		check_eq "$n: plan.md says the positional createDivert" 3 "$note"
	else
		check_eq "$n: plan.md says nothing of an overload" 0 "$note"
	fi
	w=$(rj "$TMP/p1/plan.json" "len([w for a in j['actions'] for s in a['nodes'] if s['node'] == '$n' for w in s['warnings'] if 'with a transformer to its journal' in w])")
	check_eq "$n: the transformer warning where the release loses it" "$(tx_lost "$n" && echo 1 || echo 0)" "$w"
	check_eq "$n: divert source" "\"$u.src\"" "$(dattr "$n" "$u.d" Address)"
	check_eq "$n: divert forwarding" "\"$u.fwd\"" "$(dattr "$n" "$u.d" ForwardingAddress)"
	check_eq "$n: divert filter" '"k = 1"' "$(dattr "$n" "$u.d" Filter)"
	check_eq "$n: divert routing name" "\"$u.d\"" "$(dattr "$n" "$u.d" RoutingName)"
	check_eq "$n: divert routing type" '"STRIP"' "$(dattr "$n" "$u.d" RoutingType)"
	check_eq "$n: transformer" '"org.apache.activemq.artemis.core.server.transformer.AddHeadersTransformer"' \
		"$(dattr "$n" "$u.tx" TransformerClassName)"
	check_eq "$n: transformer properties" '{"tag": "eu"}' "$(dattr "$n" "$u.tx" TransformerProperties)"
	check_eq "$n: capture tap created" "\"$u.src\"" "$(dattr "$n" "$tap" Address)"
done
check_exit "create: nothing left to do" 0 plan_to "$TMP/p1b" "$TMP/c"

# ---- 1b. import from every release --------------------------------------------
# The five releases' brokers imported as one cluster (docs/import.md): each
# release reads its objects alike, so what the agent created is declared
# once, and the imported folder plans NO_CHANGE, adopting it.
decl "$TMP/nodes-only" ""
check_exit "import: five releases in one cluster" 0 "$AG_BIN" import --from-live "$TMP/nodes-only/cluster.yaml" \
	--out "$TMP/imp" --credentials "$CREDDIR"
check_exit "import: the folder validates" 0 "$AG_BIN" validate "$TMP/imp"
check_eq "import: the declared queues and diverts, alike on every release" "[\"$u.fwd\", \"$u.src\"] [\"$u.d\", \"$u.tx\"]" \
	"$(python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print(json.dumps(sorted(q["name"] for a in d["addresses"] for q in a["queues"] if q["name"].startswith(sys.argv[1]))), json.dumps(sorted(v["name"] for v in d["diverts"] if v["name"].startswith(sys.argv[1]))))' "$u." < <("$AG_BIN" validate --dump "$TMP/imp"))"
check_eq "import: nothing left out for the operator to decide" '[]' \
	"$(rj "$TMP/imp/import-report.json" '[x["kind"] + " " + x["name"] + " " + x["reason"] for x in j["left_out"] if x["reason"] not in ("BROKER_OWN", "CAPTURE", "AUTO_CREATED", "TEMPORARY")]')"
STATE0=$STATE
STATE=$TMP/imp-state
check_exit "import: its first plan changes nothing (exit 0)" 0 plan_to "$TMP/pimp" "$TMP/imp"
check_eq "import: NO_CHANGE on every release, adopting" '["NO_CHANGE", 0, true]' \
	"$(rj "$TMP/pimp/plan.json" '[j["outcome"], len(j["actions"]), sum(j.get("adopts", {}).values()) > 0]')"
STATE=$STATE0

# ---- 2. drift repair ---------------------------------------------------------
for n in "${NODES[@]}"; do
	check_eq "$n: divert destroyed by hand" OK "$(jx "$n" destroy-divert "$u.d")"
done
converge "repair" "$TMP/c" "$TMP/p2"
check_eq "repair: one create-divert, on every node" \
	"[[\"create-divert\", \"$u.d\", [\"WOULD_APPLY\", \"WOULD_APPLY\", \"WOULD_APPLY\", \"WOULD_APPLY\", \"WOULD_APPLY\"]]]" \
	"$(rj "$TMP/p2/plan.json" '[[a["kind"], a["name"], [s["outcome"] for s in a["nodes"]]] for a in j["actions"]]')"
for n in "${NODES[@]}"; do
	check_eq "$n: divert repaired" '"k = 1"' "$(dattr "$n" "$u.d" Filter)"
done

# ---- 3. a change: in place from 2.38, a recreate before -----------------------
decl "$TMP/c" "addresses:
$SRC
diverts:
${DIV/k = 1/k = 2}
$TX
$CAP"
converge "change" "$TMP/c" "$TMP/p3"
for n in "${NODES[@]}"; do
	kind=$(rj "$TMP/p3/plan.json" "[a['kind'] for a in j['actions'] for s in a['nodes'] if s['node'] == '$n' and s['outcome'] == 'WOULD_APPLY']")
	if positional "$n"; then
		check_eq "$n: the change is a recreate" '["recreate-divert"]' "$kind"
	else
		check_eq "$n: the change is in place" '["change-divert"]' "$kind"
	fi
	check_eq "$n: filter changed" '"k = 2"' "$(dattr "$n" "$u.d" Filter)"
done
has_text "plan.md says why it is a recreate" "has no updateDivert(java.lang.String), and its positional updateDivert journals the divert without its address" "$TMP/p3/plan.md"

# ---- 4. every broker restarts with what was applied ---------------------------
restart "${NODES[@]}"
for n in "${NODES[@]}"; do
	check_eq "$n: after the restart the divert is as applied" '"k = 2"' "$(dattr "$n" "$u.d" Filter)"
	check_eq "$n: after the restart the divert keeps its source" "\"$u.src\"" "$(dattr "$n" "$u.d" Address)"
	if tx_lost "$n"; then
		check_eq "$n: the transformer divert is gone, as warned" '<absent>' "$(dattr "$n" "$u.tx" Address)"
	else
		check_eq "$n: the transformer divert is kept" "\"$u.src\"" "$(dattr "$n" "$u.tx" Address)"
	fi
done

# ---- 5. a delete: the divert comes back at the restart on 2.28/2.31 --------
decl "$TMP/c" "addresses:
$SRC
diverts:
$TX
$CAP"
converge "delete" "$TMP/c" "$TMP/p5"
for n in "${NODES[@]}"; do
	w=$(rj "$TMP/p5/plan.json" "len([w for a in j['actions'] if a['kind'] == 'delete-divert' for s in a['nodes'] if s['node'] == '$n' for w in s['warnings'] if 'does not remove a destroyed divert from its journal' in w])")
	check_eq "$n: the kept-record warning where the release keeps it" "$(old_journal "$n" && echo 1 || echo 0)" "$w"
	check_eq "$n: divert deleted" '<absent>' "$(dattr "$n" "$u.d" Address)"
done
v228=$(vname 2.28.0) v231=$(vname 2.31.2) v244=$(vname 2.44.0)
restart "$v228" "$v231" "$v244"
check_eq "2.28.0: the destroyed divert is back after the restart, as warned" "\"$u.src\"" "$(dattr "$v228" "$u.d" Address)"
check_eq "2.31.2: the destroyed divert is back after the restart, as warned" "\"$u.src\"" "$(dattr "$v231" "$u.d" Address)"
check_eq "2.44.0: the destroyed divert stays gone" '<absent>' "$(dattr "$v244" "$u.d" Address)"
converge "the divert stayed managed: the next plan deletes it again" "$TMP/c" "$TMP/p6"
check_eq "... on 2.28.0 and 2.31.2 only" '["WOULD_APPLY", "WOULD_APPLY", "NO_CHANGE", "NO_CHANGE", "NO_CHANGE"]' \
	"$(rj "$TMP/p6/plan.json" '[s["outcome"] for a in j["actions"] if a["kind"] == "delete-divert" for s in a["nodes"]]')"
check_eq "2.28.0: deleted again" '<absent>' "$(dattr "$v228" "$u.d" Address)"
check_eq "2.31.2: deleted again" '<absent>' "$(dattr "$v231" "$u.d" Address)"

# ---- 6. ADR-0084 §17 Q3/Q4 on each release -----------------------------------
# A divert (ANYCAST) into an address whose queue and address were deleted:
# with auto-create on (Q3) the next message it forwards creates them again,
# with auto-create off (Q4) sends to its source fail -- on the releases
# where recon_version_divert_into_nothing_harms holds (measured from 2.37);
# on 2.28 and 2.31 neither (what the previews say on each).
harms() { [[ ${VER[$1]} > 2.32 ]]; }
vproduce() { # NODE ADDRESS: one message to anycast ADDRESS; OK or the AMQ error
	local o
	o=$(art "$1" cli node1 producer --destination "queue://$2" --message-count 1 2>&1)
	if printf '%s' "$o" | grep -q 'Produced: 1 messages'; then echo OK; else
		printf '%s\n' "$o" | grep -o 'AMQ[0-9]*: [^]]*' | head -1; fi
}
qnames() { # NODE: the broker's queue names, one per line
	bj "$1" "{\"type\":\"read\",\"mbean\":\"$B\",\"attribute\":\"QueueNames\"}" |
		python3 -c 'import json,sys; print("\n".join(sorted(json.load(sys.stdin).get("value") or [])))'
}
for n in "${NODES[@]}"; do
	printf '#!/bin/sh\nexec env ARTEMIS_VERSION=%s ARTEMIS_RUN_DIR=%s ARTEMIS_PORT_BASE=%s %s "$@"\n' \
		"${VER[$n]}" "${RUN[$n]}" "${PBASE[$n]}" "$ARTEMIS" >"$TMP/art-$n"
	chmod +x "$TMP/art-$n"
	check "$n: auto-create off for $u.q4f" env ARTEMIS="$TMP/art-$n" bash -c \
		". '$AG_TOP/tests/lib.sh'; . '$AG_TOP/tests/integration/apply-lib.sh'; settings node1 '$u.q4f' '{\"autoCreateAddresses\":false,\"autoCreateQueues\":false}'"
	for q in q3 q4; do
		for a in "$u.${q}s" "$u.${q}f"; do
			jx "$n" create-address "$a" anycast >/dev/null
			jx "$n" create-queue "$a" "$a" anycast >/dev/null
		done
		check_eq "$n: $q divert (ANYCAST)" OK "$(jx "$n" create-divert "$u.${q}d" "$u.${q}s" "$u.${q}f" routing-type=ANYCAST)"
		check_eq "$n: $q queue destroyed" OK "$(jx "$n" destroy-queue "$u.${q}f")"
		check_eq "$n: $q address deleted" OK "$(jx "$n" delete-address "$u.${q}f")"
	done
	check_eq "$n: Q3 send" OK "$(vproduce "$n" "$u.q3s")"
	back=$(qnames "$n" | grep -cxF "$u.q3f")
	q4=$(vproduce "$n" "$u.q4s")
	if harms "$n"; then
		check_eq "${VER[$n]}: Q3 the divert brings the deleted queue back" 1 "$back"
		check_eq "${VER[$n]}: Q4 sends to the source fail" AMQ229203 "${q4%%:*}"
	else
		check_eq "${VER[$n]}: Q3 the deleted queue does not come back" 0 "$back"
		check_eq "${VER[$n]}: Q4 sends to the source still succeed" OK "$q4"
	fi
	for q in q3 q4; do
		jx "$n" destroy-divert "$u.${q}d" >/dev/null
		for a in "$u.${q}s" "$u.${q}f"; do
			jx "$n" destroy-queue "$a" remove-consumers >/dev/null
			jx "$n" delete-address "$a" >/dev/null
		done
	done
done

# ---- 7. CONFIG_MANAGED: each node's broker.xml held to its release's schema -
# The schema folder holds 2.44.0's XSD and one folder per release; the
# base broker.xml is the one `artemis create` of 2.28.0 writes (2.44.0's
# own has max-redelivery-records, which no older schema knows), with an
# element 2.40 introduced.
xsd=$TMP/xsd
check "2.44.0 schema" env ARTEMIS_VERSION=2.44.0 "$AG_TOP/scripts/artemis-schema" "$xsd"
for v in 2.28.0 2.31.2 2.37.0 2.40.0; do
	check "$v schema" env ARTEMIS_VERSION=$v "$AG_TOP/scripts/artemis-schema" "$xsd/$v"
done
CL=$u-cm
decl "$TMP/cm" "addresses:
$SRC"
sed -i 's/^mode: STUDIO_MANAGED$/mode: CONFIG_MANAGED/' "$TMP/cm/cluster.yaml"
mkdir -p "$TMP/cm/broker"
sed 's|<name>node1</name>|&\n      <global-max-size-percent-of-jvm-max-memory>50</global-max-size-percent-of-jvm-max-memory>|' \
	"${RUN[$v228]}/node1/etc/broker.xml" >"$TMP/cm/broker/broker.xml"
check_eq "the base uses the 2.40 element" 1 "$(grep -c global-max-size-percent-of-jvm-max-memory "$TMP/cm/broker/broker.xml")"
check_exit "CONFIG_MANAGED: refused" 1 plan_to "$TMP/pcm" "$TMP/cm" --schema-dir "$xsd"
check_eq "CONFIG_MANAGED: RENDER_FAILED" RENDER_FAILED "$(rj "$TMP/pcm/plan.json" 'j["refusal"]')"
for n in "${NODES[@]}"; do
	said=$(rj "$TMP/pcm/plan.json" "len([d for d in j['diagnostics'] if \"node '$n': its broker.xml was checked against the schema of Artemis ${VER[$n]}\" in d])")
	if [[ ${VER[$n]} < 2.40 ]]; then
		check_eq "$n: refused by the schema of ${VER[$n]}" 1 "$said"
	else
		check_eq "$n: valid for ${VER[$n]}" 0 "$said"
	fi
done
sed -i '/global-max-size-percent-of-jvm-max-memory/d' "$TMP/cm/broker/broker.xml"
check_exit "CONFIG_MANAGED: without it, every node renders (the addresses are there: NO_CHANGE)" 0 plan_to "$TMP/pcm2" "$TMP/cm" --schema-dir "$xsd"
check_eq "... and the plan is not refused" null "$(rj "$TMP/pcm2/plan.json" 'j["refusal"]')"

# ---- 8. below the floor -------------------------------------------------------
if [ -n "${URL[$low]:-}" ]; then
	NODES=("$v244" "$low")
	CL=$u-floor
	decl "$TMP/f" "addresses:
$SRC"
	check_exit "2.27.1: the plan is refused" 1 plan_to "$TMP/pf" "$TMP/f"
	check_eq "2.27.1: refusal" UNSUPPORTED_VERSION "$(rj "$TMP/pf/plan.json" 'j["refusal"]')"
	check_eq "2.27.1: the message names the version and the floor" \
		"node '$low' is not managed: Artemis 2.27.1 is older than 2.28.0, the oldest release the agent manages (docs/compatibility.md)" \
		"$(rj "$TMP/pf/plan.json" 'j["message"]')"
	has_text "2.27.1: plan.md's Nodes table" "| $low | 2.27.1 | UNSUPPORTED_VERSION |" "$TMP/pf/plan.md"
	check_eq "2.27.1: nothing was created there" '<absent>' "$(dattr "$low" "$u.d" Address)"
fi
done_testing
