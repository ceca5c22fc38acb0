#!/usr/bin/env bash
# approve and apply refusals, each with its exact message (no broker is
# contacted: plans are made against a recorded snapshot, and every case is
# refused before apply reads a node): wrong confirmation, plan.json edited
# after it was written, a malformed plan.json, an approval for another
# plan.json, a refused plan, a plan without changes, an applied plan, a
# superseded plan, a plan not approved, a locked state folder; --by and its
# defaults; usage errors.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
STATE=$TMP/state
CL=t50cli
B=$AG_BIN

mkdir -p "$TMP/c" "$STATE/$CL"
cat >"$TMP/c/cluster.yaml" <<EOF
version: 1
cluster: $CL
mode: STUDIO_MANAGED
nodes:
  - name: node1
    jolokia: http://127.0.0.1:9/console/jolokia
    credentials: node1
addresses:
  - name: keep
    routing: [anycast]
    queues: [{name: keep}]
EOF
# snap FILE CONSUMERS_OF_Q1: a recorded snapshot: queues keep and q1.
snap() {
	python3 - "$1" "$2" <<'PY'
import json, sys
def queue(name, consumers):
    return {"address": name, "auto_created": False, "configuration_managed": False,
            "consumer_count": consumers, "consumers_before_dispatch": 0,
            "delay_before_dispatch": -1, "durable": True, "enabled": True,
            "exclusive": False, "filter": None, "internal": False,
            "last_value_key": None, "max_consumers": -1, "message_count": 0,
            "name": name, "purge_on_no_consumers": False, "ring_size": -1,
            "routing": "anycast"}
def address(name):
    return {"auto_created": False, "binding_names": [name], "internal": False,
            "name": name, "queue_names": [name], "routing": ["anycast"]}
node = {"address_settings": [], "addresses": [address("keep"), address("q1")],
        "broker_name": "node1", "broker_version": "2.40.0", "diverts": [],
        "node": "node1", "queues": [queue("keep", 0), queue("q1", int(sys.argv[2]))],
        "refusal": None, "requests": 1, "url": "http://127.0.0.1:9/console/jolokia"}
doc = {"cluster": "t50cli", "format": 1, "nodes": [node], "taken_at": "2026-11-29T20:00:00Z"}
open(sys.argv[1], "w").write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
PY
}
inventory() {
	printf '{\n  "addresses": ["keep", "q1"],\n  "captures": [],\n  "cluster": "%s",\n  "diverts": [],\n  "format": 1,\n  "queues": ["keep", "q1"],\n  "revision": "%s"\n}\n' "$CL" "$1" >"$STATE/$CL/inventory.json"
}
plan() {
	rm -rf "$1"
	"$B" plan "$TMP/c" --out "$1" --state "$STATE" --snapshot "$2" >/dev/null 2>&1
}
conf() {
	python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["confirmation"])' "$1/plan.json"
}
err_of() {
	"$@" >/dev/null 2>"$TMP/err"
	echo "$? $(cat "$TMP/err")"
}

snap "$TMP/s0.json" 0
snap "$TMP/s1.json" 1
inventory r1
plan "$TMP/p" "$TMP/s0.json"
check_eq "plan of the delete has changes" 2 $?
C=$(conf "$TMP/p")
check_eq "the confirmation text binds the plan" 1 "$(printf '%s' "$C" | grep -cE "^delete .* on $CL [0-9a-f]{12}\$")"

check_eq "approve needs --confirm" "64 artemis-gitops approve: --confirm TEXT is required (the text shown in plan.md)
Try 'artemis-gitops approve --help'." "$(err_of "$B" approve "$TMP/p" --state "$STATE")"
check_eq "approve: unknown option" "64 artemis-gitops approve: unknown option or missing value '--yes'
Try 'artemis-gitops approve --help'." "$(err_of "$B" approve "$TMP/p" --yes)"
check_exit "approve --help" 0 "$B" approve --help
check_exit "apply --help" 0 "$B" apply --help
check_eq "apply: no PLAN_DIR" "64 artemis-gitops apply: expected one PLAN_DIR, got 0 arguments
Try 'artemis-gitops apply --help'." "$(err_of "$B" apply)"

check_eq "a wrong confirmation text is refused" \
	"1 artemis-gitops approve: the confirmation text does not match this plan; type the text shown under the approve command in plan.md, exactly" \
	"$(err_of "$B" approve "$TMP/p" --confirm "${C% *} 000000000000" --state "$STATE")"
check "no approval was written" test ! -e "$TMP/p/approval.json"
check_eq "apply of an unapproved plan is refused" \
	"1 artemis-gitops apply: the plan is not approved: read $TMP/p/plan.md, then run the approve command it shows" \
	"$(err_of "$B" apply "$TMP/p" --state "$STATE")"

check_exit "the right text approves" 0 env -u SUDO_USER USER=carol "$B" approve "$TMP/p" --confirm "$C" --state "$STATE"
check_eq "approval.json: digest, text, approver (\$USER), its real uid and name" \
	"[\"$(sha256sum <"$TMP/p/plan.json" | cut -d' ' -f1)\", \"$C\", \"carol\", $(id -u), \"$(id -un)\", 2]" \
	"$(python3 -c 'import json,sys;a=json.load(open(sys.argv[1]));print(json.dumps([a["plan_digest"],a["confirmation"],a["approved_by"],a["approved_uid"],a["approved_user"],a["format"]]))' "$TMP/p/approval.json")"
check_exit "approve as \$SUDO_USER" 0 env SUDO_USER=dave USER=root "$B" approve "$TMP/p" --confirm "$C" --state "$STATE"
check_grep "\$SUDO_USER wins over \$USER" '"approved_by": "dave"' "$TMP/p/approval.json"
check_exit "approve --by" 0 "$B" approve "$TMP/p" --confirm "$C" --by erin --state "$STATE"
check_grep "--by wins" '"approved_by": "erin"' "$TMP/p/approval.json"

# plan.json edited after it was written.
cp "$TMP/p/plan.json" "$TMP/plan.json.orig"
python3 - "$TMP/p/plan.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for a in j["actions"]:
    for n in a["nodes"]:
        for o in n["operations"]:
            if o["op"] == "destroyQueue":
                o["name"] = "keep"
open(sys.argv[1], "w").write(json.dumps(j, indent=2, sort_keys=True) + "\n")
PY
check_eq "approve refuses an edited plan.json" \
	"1 artemis-gitops approve: $TMP/p/plan.json: plan.json was changed after it was written (its content no longer matches its confirmation text); plan again" \
	"$(err_of "$B" approve "$TMP/p" --confirm "$C" --state "$STATE")"
check_eq "apply refuses an edited plan.json" \
	"1 artemis-gitops apply: $TMP/p/plan.json: plan.json was changed after it was written (its content no longer matches its confirmation text); plan again" \
	"$(err_of "$B" apply "$TMP/p" --state "$STATE")"
cp "$TMP/plan.json.orig" "$TMP/p/plan.json"

# A malformed plan.json (issue 14, defect 1): the first "uncertain" key of a
# CONFIG_MANAGED plan renamed "uncertain_" once made approve, apply and the
# daemon crash (exit 139, SIGSEGV in plan_free); both commands refuse it,
# the missing key named, approved or not.
mkdir -p "$TMP/m"
sed '0,/"uncertain": false/s//"uncertain_": false/' \
	"$AG_TOP/tests/fuzz/corpus/plan/029-config-managed-force-reload.json" >"$TMP/m/plan.json"
check "the malformed plan.json is the fuzz corpus's seed" \
	cmp "$TMP/m/plan.json" "$AG_TOP/tests/fuzz/corpus/plan/029-uncertain-renamed.json"
check_eq "approve refuses a malformed plan.json, naming the key" \
	"1 artemis-gitops approve: $TMP/m/plan.json: broker_xml.nodes[].reload.uncertain: missing" \
	"$(err_of "$B" approve "$TMP/m" --confirm x --state "$STATE")"
check "approve of a malformed plan.json wrote no approval" test ! -e "$TMP/m/approval.json"
check_eq "apply refuses a malformed plan.json, naming the key" \
	"1 artemis-gitops apply: $TMP/m/plan.json: broker_xml.nodes[].reload.uncertain: missing" \
	"$(err_of "$B" apply "$TMP/m" --state "$STATE")"
printf '{"approved_at": "2026-11-29T20:00:00Z", "approved_by": "x", "confirmation": "x", "format": 1, "plan_digest": "%s"}\n' \
	"$(sha256sum <"$TMP/m/plan.json" | cut -d' ' -f1)" >"$TMP/m/approval.json"
check_eq "apply refuses an approved malformed plan.json, naming the key" \
	"1 artemis-gitops apply: $TMP/m/plan.json: broker_xml.nodes[].reload.uncertain: missing" \
	"$(err_of "$B" apply "$TMP/m" --state "$STATE")"
check "apply of a malformed plan.json wrote no result" test ! -e "$TMP/m/result.json"

# plan.md, which the approver reads, edited after it was written.
cp "$TMP/p/plan.md" "$TMP/plan.md.orig"
sed -i 's/^- kind: plan/- kind: harmless plan/' "$TMP/p/plan.md"
check_eq "approve refuses an edited plan.md" \
	"1 artemis-gitops approve: $TMP/p/plan.md was changed after it was written (it no longer matches plan.json); plan again" \
	"$(err_of "$B" approve "$TMP/p" --confirm "$C" --state "$STATE")"
cp "$TMP/plan.md.orig" "$TMP/p/plan.md"
check_exit "the restored plan.md is accepted" 0 "$B" approve "$TMP/p" --confirm "$C" --state "$STATE"

# An approval for another plan.json (same content, other bytes).
cp "$TMP/p/approval.json" "$TMP/approval.orig"
d_old=$(sha256sum <"$TMP/p/plan.json" | cut -d' ' -f1)
plan "$TMP/q" "$TMP/s0.json"
cp "$TMP/approval.orig" "$TMP/q/approval.json"
sed -i "s/$d_old/$(printf '%064d' 0)/" "$TMP/q/approval.json"
check_eq "apply refuses an approval of another digest" \
	"1 artemis-gitops apply: the approval is for another plan.json (approved SHA-256 $(printf '%064d' 0), plan.json now $(sha256sum <"$TMP/q/plan.json" | cut -d' ' -f1)); approve again" \
	"$(err_of "$B" apply "$TMP/q" --state "$STATE")"
# An approval of format 1 (no approver uid, an older approve): refused.
python3 - "$TMP/approval.orig" "$TMP/q/approval.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
for k in ("approved_uid", "approved_user"):
    del a[k]
a["format"] = 1
json.dump(a, open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
check_eq "apply refuses a format-1 approval, saying why" \
	"1 artemis-gitops apply: $TMP/q/approval.json: format 1: an approval written before approvals recorded the approver's uid, which the agent needs to attribute it; approve again" \
	"$(err_of "$B" apply "$TMP/q" --state "$STATE")"

# The state folder is locked by another process.
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(30)' "$STATE/lock" "$TMP/locked" &
lockpid=$!
for i in $(seq 1 100); do
	[ -e "$TMP/locked" ] && break
	sleep 0.1
done
check_eq "apply refuses a locked state folder" \
	"1 artemis-gitops apply: state folder '$STATE' is locked by another process (not yet recorded)" \
	"$(err_of "$B" apply "$TMP/p" --state "$STATE")"
kill "$lockpid"
wait "$lockpid" 2>/dev/null
# plan --out keeps the planned declaration next to the plan, so apply finds
# the endpoints there; without it, apply asks for --cluster.
check_grep "plan --out writes PLAN_DIR/declaration/cluster.yaml" \
	'"jolokia": "http' "$TMP/p/declaration/cluster.yaml"
check_exit "the written declaration loads and validates" 0 \
	"$B" validate "$TMP/p/declaration"
mv "$TMP/p/declaration" "$TMP/p-declaration"
check_eq "without --cluster nor PLAN_DIR/declaration there are no endpoints" \
	"1 artemis-gitops apply: the nodes' Jolokia endpoints are needed: give --cluster DIR (the declaration folder of cluster '$CL')" \
	"$(err_of "$B" apply "$TMP/p" --state "$STATE")"
mv "$TMP/p-declaration" "$TMP/p/declaration"

# Applied: result.json next to the plan.
echo '{}' >"$TMP/p/result.json"
check_eq "an applied plan cannot be approved" \
	"1 artemis-gitops approve: the plan was already applied (see '$TMP/p/result.json'); plan again for a new change" \
	"$(err_of "$B" approve "$TMP/p" --confirm "$C" --state "$STATE")"
check_eq "an applied plan cannot be applied" \
	"1 artemis-gitops apply: the plan was already applied (see '$TMP/p/result.json'); plan again for a new change" \
	"$(err_of "$B" apply "$TMP/p" --state "$STATE")"
rm "$TMP/p/result.json"

# Superseded: the daemon's marker (a newer preview exists).
echo "newer preview: 20261129T203000Z-0123456789ab" >"$TMP/p/superseded"
check_eq "a preview marked superseded cannot be approved" \
	"1 artemis-gitops approve: the plan is superseded ($TMP/p/superseded: newer preview: 20261129T203000Z-0123456789ab); approve the newer preview" \
	"$(err_of "$B" approve "$TMP/p" --confirm "$C" --state "$STATE")"
check_eq "a preview marked superseded cannot be applied" \
	"1 artemis-gitops apply: the plan is superseded ($TMP/p/superseded: newer preview: 20261129T203000Z-0123456789ab); approve the newer preview" \
	"$(err_of "$B" apply "$TMP/p" --state "$STATE")"
rm "$TMP/p/superseded"

# Superseded: another revision was applied since the plan was made.
inventory r2
check_eq "a superseded plan cannot be approved" \
	"1 artemis-gitops approve: the plan is superseded: cluster '$CL' was applied at revision 'r2' since it was planned against 'r1'; plan again" \
	"$(err_of "$B" approve "$TMP/p" --confirm "$C" --state "$STATE")"
check_eq "a superseded plan cannot be applied" \
	"1 artemis-gitops apply: the plan is superseded: cluster '$CL' was applied at revision 'r2' since it was planned against 'r1'; plan again" \
	"$(err_of "$B" apply "$TMP/p" --state "$STATE")"
inventory r1

# A refused plan (a consumer on q1) and a plan without changes.
plan "$TMP/r" "$TMP/s1.json"
check_eq "the plan with a consumer is refused" 1 $?
check_eq "a refused plan cannot be approved" \
	"1 artemis-gitops approve: the plan is refused (NODE_REFUSED: 1 node step is refused) and cannot be approved; follow each refused node's next step, then plan again" \
	"$(err_of "$B" approve "$TMP/r" --confirm "" --state "$STATE")"
printf '{\n  "addresses": ["keep"],\n  "captures": [],\n  "cluster": "%s",\n  "diverts": [],\n  "format": 1,\n  "queues": ["keep"],\n  "revision": "r1"\n}\n' "$CL" >"$STATE/$CL/inventory.json"
plan "$TMP/n" "$TMP/s0.json"
check_eq "nothing to do" 0 $?
check_eq "a plan without changes cannot be approved" \
	"1 artemis-gitops approve: the plan has no changes; there is nothing to approve" \
	"$(err_of "$B" approve "$TMP/n" --confirm "" --state "$STATE")"
check_eq "approve of a missing plan" \
	"1 artemis-gitops approve: cannot open '$TMP/none/plan.json': No such file or directory" \
	"$(err_of "$B" approve "$TMP/none" --confirm x --state "$STATE")"
done_testing
