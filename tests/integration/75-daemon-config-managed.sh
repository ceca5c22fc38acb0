#!/usr/bin/env bash
# The daemon on a CONFIG_MANAGED cluster (issue 7 item 3): each new commit
# is rendered and the preview folder holds broker/<node>/broker.xml (the
# file `render` writes for the same folder), plan.json its digest, plan.md
# the diff and the reload prediction against the suite's live brokers. A
# commit whose broker.xml cannot be rendered is previewed REFUSED, with no
# rendered files. Writing the files to the brokers' hosts stays the
# operator's step: nothing here touches the brokers' own broker.xml.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
schema=$(scripts/artemis-schema 2>/dev/null) || { not_ok "Artemis schema extracted"; done_testing; exit 1; }
export ARTEMIS_GITOPS_SCHEMA_DIR=$schema
daemon_setup t74
cl=$T/work/clusters/t74
sed -i 's/^mode: STUDIO_MANAGED$/mode: CONFIG_MANAGED/' "$cl/cluster.yaml"
u=$RANDOM$RANDOM
printf 'version: 1\naddresses: [{name: t74.a%s, routing: [anycast], queues: [{name: t74.q%s}]}]\n' \
	"$u" "$u" >"$cl/addresses.yaml"
mkdir -p "$cl/broker"
cp tests/golden/render/002-artemis-create-base/broker/broker.xml "$cl/broker/broker.xml"
c1=$(daemon_commit "t74: a CONFIG_MANAGED cluster")
daemon_start
check "c1 previewed" wait_for 60 has_preview "$c1"
p=$(preview_of "$c1")
check "render writes the same folder" "$AG_BIN" render "$cl" --out "$T/rendered"
for n in $(awk '{print $1}' "$AG_NODES_FILE"); do
	check "preview holds broker/$n/broker.xml" test -s "$p/broker/$n/broker.xml"
	check "broker/$n/broker.xml is the file render writes" cmp "$p/broker/$n/broker.xml" "$T/rendered/$n/broker.xml"
	check_eq "plan.json: the digest of $n's file" \
		"$(sha256sum "$p/broker/$n/broker.xml" | cut -d' ' -f1)" \
		"$(jq -r --arg n "$n" '.broker_xml.nodes[] | select(.node == $n) | .sha256' "$p/plan.json")"
	check_grep "plan.md: $n's reload adds the queue" \
		"^- adds queue 't74\\.q$u' on address 't74\\.a$u'" "$p/plan.md"
done
check_grep "plan.md: the broker.xml section" '^## broker.xml \(CONFIG_MANAGED\)$' "$p/plan.md"
check_grep "plan.md: the diff starts from the base files" \
	"Each diff starts from each node's base broker.xml in the repository" "$p/plan.md"
check_grep "plan.md: the queue in the diff" "^\\+ +<queue name=\"t74\\.q$u\"" "$p/plan.md"

# No base file: the commit is previewed REFUSED, nothing rendered.
git -C "$T/work" rm -q -r "clusters/t74/broker"
c2=$(daemon_commit "t74: the base broker.xml is gone")
check "c2 previewed" wait_for 60 has_preview "$c2"
p2=$(preview_of "$c2")
check_eq "c2: refused, RENDER_FAILED" '"REFUSED" "RENDER_FAILED"' \
	"$(jq -r '.outcome, .refusal' "$p2/plan.json" | sed 's/.*/"&"/' | tr '\n' ' ' | sed 's/ $//')"
check_grep "c2: the reason names the node and the missing file" \
	"no base broker\\.xml \\(looked for clusters/t74/broker/nodes/[^ ]+\\.xml and clusters/t74/broker/broker\\.xml\\)" "$p2/plan.md"
check "c2: no rendered files" test ! -e "$p2/broker"
daemon_stop
check_eq "agent exits 0 on SIGTERM" 0 "$RC"
done_testing
