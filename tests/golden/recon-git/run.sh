#!/usr/bin/env bash
# tests/golden/recon-git/run.sh: `plan --repo PATH --rev REV --base REV`
# (the pull-request mode): both declarations are read from git with
# libgit2, the base revision is the managed set, and plan.json records both
# commits. Uses the recorded snapshot of ../recon/005 (orders, audit-in,
# divert audit-copy into orders on two nodes).
. "$AG_TOP/tests/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${ARTEMIS_GITOPS_SCHEMA_DIR:-}" ]; then # CONFIG_MANAGED renders
	# one release's schema only (the suite's): the cache's per-release
	# subfolders would hold each recorded node to its own release
	ARTEMIS_GITOPS_SCHEMA_DIR=$("$AG_TOP/scripts/artemis-schema" "$tmp/schema" 2>"$tmp/schema.err") ||
		not_ok "Artemis schema available" "$(cat "$tmp/schema.err")"
	export ARTEMIS_GITOPS_SCHEMA_DIR
fi
src=$AG_TOP/tests/golden/recon/005-order-create-before-delete
repo=$tmp/repo
mkdir -p "$repo/clusters/shop-eu"
git -C "$repo" init -q
git -C "$repo" config user.email t@example.com
git -C "$repo" config user.name t
cp "$src/base/cluster.yaml" "$repo/clusters/shop-eu/cluster.yaml"
git -C "$repo" add -A && git -C "$repo" commit -qm base
base=$(git -C "$repo" rev-parse HEAD)
cp "$src/cluster/cluster.yaml" "$repo/clusters/shop-eu/cluster.yaml"
echo "not yaml" >"$repo/clusters/shop-eu/README.txt"
git -C "$repo" add -A && git -C "$repo" commit -qm "orders-v2 replaces orders"
head=$(git -C "$repo" rev-parse HEAD)
echo "version: 1" >"$repo/clusters/shop-eu/cluster.yaml" # working tree differs: git wins
cp "$src/snapshot.json" "$tmp/"

cd "$tmp" || exit 1
check_exit "plan from git: exit 2 (changes)" 2 "$AG_BIN" plan clusters/shop-eu \
	--repo repo --rev HEAD --base HEAD~1 --snapshot snapshot.json --out out
check_eq "revision is the planned commit" "\"$head\"" "$(jq -c .revision out/plan.json)"
check_eq "base is the base commit" "{\"revision\":\"$base\",\"source\":\"base\"}" "$(jq -c .base out/plan.json)"
check_eq "actions from the two revisions" '["create-queue","delete-queue"]' "$(jq -c '[.actions[].kind]' out/plan.json)"
check_eq "divert kept: orders-v2 is created first" '[]' "$(jq -c '.actions[1].nodes[0].removed_diverts' out/plan.json)"
check_grep "plan.md names the revision" "revision: $head; base: base at $base" out/plan.md
# The same plan as with --base-dir, apart from the revisions.
(cd "$src" && "$AG_BIN" plan cluster --base-dir base --snapshot snapshot.json --out "$tmp/dir") >/dev/null
check_eq "same actions as --base-dir" "$(jq -c .actions dir/plan.json)" "$(jq -c .actions out/plan.json)"

# An invalid declaration at the revision: diagnostics point into the repo.
cp "$src/cluster/cluster.yaml" repo/clusters/shop-eu/cluster.yaml
sed -i 's/- name: orders-v2/- name: orders-v2\n        colour: blue/' repo/clusters/shop-eu/cluster.yaml
git -C repo add -A && git -C repo commit -qm bad
check_exit "invalid revision: exit 1" 1 "$AG_BIN" plan clusters/shop-eu --repo repo --rev HEAD \
	--base "$base" --snapshot snapshot.json --out bad
"$AG_BIN" plan clusters/shop-eu --repo repo --rev HEAD --snapshot snapshot.json --out bad 2>err >/dev/null
check_grep "diagnostic names the file in the repo" "^clusters/shop-eu/cluster.yaml:[0-9]+:[0-9]+: .*colour" err
check_eq "refused preview written" '"INVALID_DECLARATION"' "$(jq -c .refusal bad/plan.json)"

check_exit "unknown revision: exit 1" 1 "$AG_BIN" plan clusters/shop-eu --repo repo --rev nope \
	--snapshot snapshot.json --out x
"$AG_BIN" plan clusters/shop-eu --repo repo --rev nope --snapshot snapshot.json --out x 2>err >/dev/null
check_grep "unknown revision named" "cannot resolve revision: repository 'repo' at 'nope'" err
check_exit "missing folder: exit 1" 1 "$AG_BIN" plan clusters/nope --repo repo --rev HEAD \
	--snapshot snapshot.json --out x
# Wrong inputs are errors that name the file, never a silent plan.
mkdir -p st/shop-eu && echo '{"format": 2}' >st/shop-eu/inventory.json
cp -r "$src/cluster" cl
check_exit "bad inventory: exit 1" 1 "$AG_BIN" plan cl --state st --snapshot snapshot.json --out x
"$AG_BIN" plan cl --state st --snapshot snapshot.json --out x 2>err >/dev/null
check_grep "bad inventory named" "^artemis-gitops plan: st/shop-eu/inventory.json: 'format': expected 1$" err
sed 's/"cluster": "shop-eu"/"cluster": "ledger"/' snapshot.json >other.json
"$AG_BIN" plan cl --snapshot other.json --out x 2>err >/dev/null
check_eq "snapshot of another cluster: exit 1" 1 $?
check_grep "snapshot of another cluster named" "other.json: a snapshot of cluster 'ledger', not of 'shop-eu'" err
"$AG_BIN" plan cl --snapshot nope.json --out x 2>err >/dev/null
check_eq "missing snapshot file: exit 1" 1 $?
check_grep "missing snapshot file named" "nope.json" err
env -u CREDENTIALS_DIRECTORY "$AG_BIN" plan cl --out x 2>err >/dev/null
check_eq "live without credentials: exit 1" 1 $?
check_grep "live without credentials explained" "no credentials folder: use --credentials DIR or set CREDENTIALS_DIRECTORY" err
"$AG_BIN" delete-queue __capture.x cl --snapshot snapshot.json --out x 2>err >/dev/null
check_eq "delete-queue of a capture queue: exit 1" 1 $?
check_grep "delete-queue of a capture queue refused" "'__capture.x' has the reserved capture prefix '__capture.': it belongs to a capture subscription" err

# CONFIG_MANAGED from git: the base broker.xml is read at the revision too
# (the working tree's copy differs and is not used), and the preview is the
# one ../recon/006 expects from the same folders.
cm=$AG_TOP/tests/golden/recon/006-d2-config-managed-declared
mkdir -p repo/clusters/cm
cp "$cm/base/cluster.yaml" repo/clusters/cm/cluster.yaml
cp -r "$cm/cluster/broker" repo/clusters/cm/
git -C repo add -A && git -C repo commit -qm "cm base"
cp "$cm/cluster/cluster.yaml" repo/clusters/cm/cluster.yaml
git -C repo add -A && git -C repo commit -qm "cm: orders goes"
echo "<not-xml" >repo/clusters/cm/broker/broker.xml
"$AG_BIN" plan clusters/cm --repo repo --rev HEAD --base HEAD~1 --snapshot "$cm/snapshot.json" \
	--out cm >/dev/null 2>err
check_eq "CONFIG_MANAGED from git: exit 2" 2 $?
check_eq "CONFIG_MANAGED from git: the diffs of ../recon/006" \
	"$(jq -c '[.broker_xml.nodes[] | .diff, .sha256]' "$cm/expect/plan.json")" \
	"$(jq -c '[.broker_xml.nodes[] | .diff, .sha256]' cm/plan.json)"
check "CONFIG_MANAGED from git: rendered files written" test -s cm/broker/node2/broker.xml
git -C repo rm -q -r -f clusters/cm/broker && git -C repo commit -qm "cm: no base"
"$AG_BIN" plan clusters/cm --repo repo --rev HEAD --snapshot "$cm/snapshot.json" --out cm2 >/dev/null 2>err
check_eq "CONFIG_MANAGED from git without a base file: refused" '"RENDER_FAILED"' "$(jq -c .refusal cm2/plan.json)"
check_grep "the missing base is named at its path in the repository" \
	"no base broker.xml \(looked for clusters/cm/broker/nodes/node1.xml and clusters/cm/broker/broker.xml\)" cm2/plan.md

check_exit "--base without --repo is a usage error" 64 "$AG_BIN" plan clusters/shop-eu --base HEAD --out x
check_exit "--state with --base-dir is a usage error" 64 "$AG_BIN" plan c --state s --base-dir b --out x
check_exit "plan without --out is a usage error" 64 "$AG_BIN" plan c
check_exit "plan --help" 0 "$AG_BIN" plan --help
check_exit "delete-queue --help" 0 "$AG_BIN" delete-queue --help
check_exit "delete-queue needs NAME and CLUSTER_DIR" 64 "$AG_BIN" delete-queue q --out x
done_testing
