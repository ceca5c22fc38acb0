#!/usr/bin/env bash
# The one regular-file rule (lib/afile.c, afile_open) on every file the
# commands read, with the real binary: a FIFO nobody writes is refused at
# once, naming the path and what it is (before the rule, `run --config
# FIFO` hung forever), and so are /dev/zero and a folder. Each command runs
# under `timeout`, so a reader that blocks fails its check (exit 124)
# instead of hanging the suite. No broker is contacted: plans are made
# against a recorded snapshot, and every refusal comes before a node is
# read.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
B=$AG_BIN
CL=t15files
STATE=$TMP/state

# out_of CMD...: "EXIT STDERR" of CMD, run for at most 30 seconds.
out_of() {
	timeout 30 "$@" >/dev/null 2>"$TMP/err" </dev/null
	echo "$? $(cat "$TMP/err")"
}

mkdir -p "$TMP/c" "$TMP/creds"
chmod 700 "$TMP/creds"
cat >"$TMP/c/cluster.yaml" <<EOF
version: 1
cluster: $CL
mode: STUDIO_MANAGED
nodes:
  - name: node1
    jolokia: http://127.0.0.1:9/console/jolokia
    credentials: node1
addresses:
  - name: a1
    routing: [anycast]
    queues: [{name: a1}]
EOF
(umask 077 && echo gitops:secret >"$TMP/creds/node1")
python3 - "$TMP/snap.json" <<'PY'
import json, sys
node = {"address_settings": [], "addresses": [], "broker_name": "node1",
        "broker_version": "2.40.0", "diverts": [], "node": "node1", "queues": [],
        "refusal": None, "requests": 1, "url": "http://127.0.0.1:9/console/jolokia"}
doc = {"cluster": "t15files", "format": 1, "nodes": [node], "taken_at": "2026-11-29T20:00:00Z"}
open(sys.argv[1], "w").write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
PY
mkfifo "$TMP/fifo"

# refused NAME LINE CMD...: CMD exits 1 within 30 seconds and LINE (a
# fixed string) is a line of its stderr (after the log's stamp and level,
# for the daemon's lines).
refused() {
	local name=$1 line=$2 rc
	shift 2
	timeout 30 "$@" >/dev/null 2>"$TMP/err" </dev/null
	rc=$?
	check_eq "$name: exit 1" 1 "$rc"
	sed -E 's/^[0-9]{2}:[0-9]{2}:[0-9]{2} err [a-z]+: //' "$TMP/err" >"$TMP/err.lines"
	if grep -qxF -- "$line" "$TMP/err.lines"; then
		ok "$name: message"
	else
		not_ok "$name: message" "expected a line: $line" "stderr:" "$(cat "$TMP/err")"
	fi
}

# The agent configuration: a FIFO, /dev/zero, a folder.
refused "run --config FIFO" "'$TMP/fifo' is a FIFO, not a regular file" \
	"$B" run --config "$TMP/fifo"
refused "run --config /dev/zero" "'/dev/zero' is a character device, not a regular file" \
	"$B" run --config /dev/zero
refused "run --config FOLDER" "'$TMP/c' is a folder, not a regular file" \
	"$B" run --config "$TMP/c"

# A recorded snapshot.
check_eq "plan --snapshot FIFO: refused" \
	"1 artemis-gitops plan: $TMP/fifo: a FIFO, not a regular file" \
	"$(out_of "$B" plan "$TMP/c" --out "$TMP/p0" --state "$STATE" --snapshot "$TMP/fifo")"

# plan.json, approval.json, the inventory.
mkdir -p "$TMP/pf"
mkfifo "$TMP/pf/plan.json"
check_eq "approve: plan.json a FIFO: refused" \
	"1 artemis-gitops approve: '$TMP/pf/plan.json' is a FIFO, not a regular file" \
	"$(out_of "$B" approve "$TMP/pf" --confirm x --state "$STATE")"
check_eq "apply: plan.json a FIFO: refused" \
	"1 artemis-gitops apply: '$TMP/pf/plan.json' is a FIFO, not a regular file" \
	"$(out_of "$B" apply "$TMP/pf" --state "$STATE")"
out_of "$B" plan "$TMP/c" --out "$TMP/p" --state "$STATE" --snapshot "$TMP/snap.json" >"$TMP/plan.out"
check_eq "a plan of one create" 2 "$(cut -d' ' -f1 "$TMP/plan.out")"
mkfifo "$TMP/p/approval.json"
check_eq "apply: approval.json a FIFO: refused" \
	"1 artemis-gitops apply: '$TMP/p/approval.json' is a FIFO, not a regular file" \
	"$(out_of "$B" apply "$TMP/p" --state "$STATE" --credentials "$TMP/creds")"
mkdir -p "$STATE/$CL"
mkfifo "$STATE/$CL/inventory.json"
check_eq "plan: the inventory a FIFO: refused" \
	"1 artemis-gitops plan: '$STATE/$CL/inventory.json' is a FIFO, not a regular file" \
	"$(out_of "$B" plan "$TMP/c" --out "$TMP/p1" --state "$STATE" --snapshot "$TMP/snap.json")"
rm "$STATE/$CL/inventory.json"

# A node's credentials file.
rm "$TMP/creds/node1"
mkfifo -m 600 "$TMP/creds/node1"
check_eq "plan: a credentials file a FIFO: refused" \
	"1 artemis-gitops plan: node 'node1': credentials file '$TMP/creds/node1': a FIFO, not a regular file" \
	"$(out_of "$B" plan "$TMP/c" --out "$TMP/p2" --state "$STATE" --credentials "$TMP/creds")"

# A base broker.xml of a CONFIG_MANAGED cluster: a FIFO node file is
# refused by name, not passed over for broker/broker.xml.
cp -r "$AG_TOP/tests/golden/render/001-every-setting" "$TMP/r"
rm "$TMP/r/broker/nodes/node-b.xml"
mkfifo "$TMP/r/broker/nodes/node-b.xml"
refused "render: a node's base file a FIFO" \
	"'$TMP/r/broker/nodes/node-b.xml' is a FIFO, not a regular file" \
	"$B" render "$TMP/r" --out "$TMP/rendered"
check "render: nothing written" test ! -e "$TMP/rendered"
# A declaration file that cannot be read (issue 14, defect 3): old.yaml
# declared queue q-old (managed: it is in the inventory, and live); as a
# dangling link, a link loop, a FIFO or a folder it is an error at its path,
# for validate and plan alike, and nothing is planned: the plan is REFUSED
# (INVALID_DECLARATION) with no action (before, validate exited 0 and plan
# proposed deleting q-old, its divert d-old and its address).
python3 - "$TMP/snap-old.json" <<'PY'
import json, sys
def queue(name):
    return {"address": name, "auto_created": False, "configuration_managed": False,
            "consumer_count": 0, "consumers_before_dispatch": 0,
            "delay_before_dispatch": -1, "durable": True, "enabled": True,
            "exclusive": False, "filter": None, "internal": False,
            "last_value_key": None, "max_consumers": -1, "message_count": 0,
            "name": name, "purge_on_no_consumers": False, "ring_size": -1,
            "routing": "anycast"}
def address(name, bindings):
    return {"auto_created": False, "binding_names": bindings, "internal": False,
            "name": name, "queue_names": [name], "routing": ["anycast"]}
divert = {"address": "q-old", "exclusive": False, "filter": None,
          "forwarding_address": "a1", "name": "d-old", "routing_name": "d-old",
          "routing_type": "STRIP", "transformer_class_name": None,
          "transformer_properties": {}}
node = {"address_settings": [], "addresses": [address("a1", ["a1"]),
        address("q-old", ["d-old", "q-old"])], "broker_name": "node1",
        "broker_version": "2.40.0", "diverts": [divert], "node": "node1",
        "queues": [queue("a1"), queue("q-old")], "refusal": None, "requests": 1,
        "url": "http://127.0.0.1:9/console/jolokia"}
doc = {"cluster": "t15files", "format": 1, "nodes": [node], "taken_at": "2026-11-29T20:00:00Z"}
open(sys.argv[1], "w").write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
PY
printf '{\n  "addresses": ["a1", "q-old"],\n  "captures": [],\n  "cluster": "%s",\n  "diverts": ["d-old"],\n  "format": 1,\n  "queues": ["a1", "q-old"],\n  "revision": "r1"\n}\n' "$CL" >"$STATE/$CL/inventory.json"
cat >"$TMP/old.yaml" <<'YAML'
version: 1
addresses:
  - name: q-old
    routing: [anycast]
    queues: [{name: q-old}]
diverts:
  - name: d-old
    address: q-old
    forwarding-address: a1
YAML
cp "$TMP/old.yaml" "$TMP/c/old.yaml"
check_eq "old.yaml readable: nothing to do" "0 " \
	"$(out_of "$B" plan "$TMP/c" --out "$TMP/pk" --state "$STATE" --snapshot "$TMP/snap-old.json")"
for kind in dangling loop fifo folder; do
	rm -rf "$TMP/c/old.yaml" "$TMP/p-$kind"
	case $kind in
	dangling) ln -s "$TMP/gone.yaml" "$TMP/c/old.yaml"; what="a dangling symbolic link" ;;
	loop) ln -s old.yaml "$TMP/c/old.yaml"; what="a symbolic link loop (too many levels of symbolic links)" ;;
	fifo) mkfifo "$TMP/c/old.yaml"; what="a FIFO, not a regular file" ;;
	folder) mkdir "$TMP/c/old.yaml"; what="a folder, not a regular file" ;;
	esac
	check_eq "old.yaml $kind: validate refuses it" "1 $TMP/c/old.yaml: $what" \
		"$(out_of "$B" validate "$TMP/c")"
	check_eq "old.yaml $kind: plan refuses it" "1 $TMP/c/old.yaml: $what" \
		"$(out_of "$B" plan "$TMP/c" --out "$TMP/p-$kind" --state "$STATE" --snapshot "$TMP/snap-old.json" | head -n 1)"
	check_eq "old.yaml $kind: nothing planned" \
		'{"actions":0,"outcome":"REFUSED","refusal":"INVALID_DECLARATION"}' \
		"$(jq -cS '{actions: (.actions | length), outcome, refusal}' "$TMP/p-$kind/plan.json" 2>&1)"
done
rm -rf "$TMP/c/old.yaml"
ln -s "$TMP/old.yaml" "$TMP/c/old.yaml"
check_eq "old.yaml a link to a regular file: read, nothing to do" "0 " \
	"$(out_of "$B" plan "$TMP/c" --out "$TMP/pl" --state "$STATE" --snapshot "$TMP/snap-old.json")"
done_testing
