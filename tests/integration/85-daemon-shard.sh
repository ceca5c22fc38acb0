#!/usr/bin/env bash
# Sharding (issue 21; docs/ha.md): with coordination.shard.mode hash, each
# of 8 clusters (each its own address prefix on the suite's two brokers)
# is owned by exactly the agent rendezvous hashing picks among the agents
# alive in etcd (a real 3-member cluster): two agents split them; a third
# that joins takes its share, handed over between cycles; an agent killed
# -9 loses its clusters to the others within the lease TTL plus a cycle
# (measured); an agent plans and applies only its own clusters, its audit
# rows carry the cluster's epoch (its owner key's create revision), and
# /metrics shows owner, epoch and shard.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t85-$$
daemon_setup t85-a
. "$AG_TOP/tests/integration/ha-lib.sh"
trap 'etcd_cleanup; janitor "$u."; daemon_cleanup; _brokers_cleanup' EXIT
TTL=5
etcd_setup 3

clusters="t85-a t85-b t85-c t85-d t85-e t85-f t85-g t85-h"
for c in $clusters; do
	mkdir -p "$T/work/clusters/$c"
	sed "s/^cluster: .*/cluster: $c/" "$T/work/clusters/t85-a/cluster.yaml" \
		>"$T/work/clusters/$c/cluster.yaml.new"
	mv "$T/work/clusters/$c/cluster.yaml.new" "$T/work/clusters/$c/cluster.yaml"
	printf 'version: 1\naddresses:\n  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' \
		"$u.${c#t85-}" "$u.${c#t85-}" >"$T/work/clusters/$c/queues.yaml"
done
c1=$(daemon_commit "t85: 8 clusters")

# the owner rendezvous hashing gives each cluster among agents "$@"
expect() {
	python3 - "$@" <<'PY'
import hashlib, sys
members, clusters = sys.argv[1].split(), sys.argv[2].split()
for c in clusters:
    m = max(members, key=lambda a: hashlib.sha256((a + "\n" + c).encode()).hexdigest())
    print(c, m)
PY
}
owners() {
	local c
	for c in $clusters; do echo "$c $(etcd_get "owners/$c")"; done
}
has_preview3() { [ -n "$(ag_preview "$1" "$2" "$3")" ]; }
owners_are() { [ "$(owners)" = "$(expect "$1" "$clusters")" ]; }
count_of() { expect "$1" "$clusters" | grep -c " $2\$"; }

for i in 1 2 3; do ag_conf "$i" hash; done
printf 'http:\n  listen: "127.0.0.1:0"\n  anonymous-read: true\n' >>"$T/ag2.yaml"

# ag1 alone owns every cluster and posts every preview; ag2 joins: its
# share is handed over between cycles, ag1's previews of it withdrawn
ag_start 1
check "ag1 alone: it owns every cluster" wait_for 40 owners_are "ag1"
for c in $clusters; do
	check "$c: ag1 alone posts its preview" wait_for 60 has_preview3 1 "$c1" "$c"
done
ag_start 2
check "two agents: each cluster owned by its rendezvous pick" wait_for 40 owners_are "ag1 ag2"
check "two agents: both hold clusters ($(count_of "ag1 ag2" ag1) and $(count_of "ag1 ag2" ag2))" \
	test "$(count_of "ag1 ag2" ag1)" -gt 0 -a "$(count_of "ag1 ag2" ag2)" -gt 0
for c in $(expect "ag1 ag2" "$clusters" | awk '$2 == "ag2" {print $1}'); do
	check "$c: ag1 handed it over to ag2" grep -q "cluster '$c': handed over to 'ag2'" "$T/ag1.log"
	check "$c: ag2 posts its preview" wait_for 60 has_preview3 2 "$c1" "$c"
	check "$c: ag1's preview is withdrawn, saying why" \
		wait_for 20 grep -q "is no longer this agent's" "$(ag_preview 1 "$c1" "$c")/superseded"
done
for c in $(expect "ag1 ag2" "$clusters" | awk '$2 == "ag1" {print $1}'); do
	check_eq "$c: still ag1's, ag2 posts no preview" "" "$(ag_preview 2 "$c1" "$c")"
	check "$c: ag1's preview stands" test ! -e "$(ag_preview 1 "$c1" "$c")/superseded"
done

# one of ag2's clusters approved: applied by ag2, under its epoch
a2=$(expect "ag1 ag2" "$clusters" | awk '$2 == "ag2" {print $1; exit}')
p=$(ag_preview 2 "$c1" "$a2")
check "$a2: approve ag2's preview" "$AG_BIN" approve "$p" \
	--confirm "$(rj "$p/plan.json" 'j["confirmation"]')" --by tester --state "$T/state2"
check "$a2: applied by ag2" wait_for 60 test -f "$p/result.json"
check_applied "$a2: every node APPLIED" "$p"
ep=$(etcd_create_rev "owners/$a2")
check_eq "$a2: the audit rows carry its epoch ($ep)" "$ep $ep" \
	"$(python3 -c 'import json,sys; print(" ".join(str(r.get("epoch")) for r in map(json.loads, open(sys.argv[1])) if r["cluster"] == sys.argv[2]))' "$T/state2/audit.jsonl" "$a2")"
port=$(sed -n 's/.*web server on .*(port \([0-9]*\)).*/\1/p' "$T/ag2.log" | head -1)
check "ag2: /metrics shows owner, epoch and shard of $a2" wait_for 20 sh -c \
	"curl -sf http://127.0.0.1:$port/metrics | grep -qF 'artemis_gitops_cluster_epoch{cluster=\"$a2\",owner=\"ag2\",shard=\"hash\"} $ep'"
check "ag2: /metrics shows 2 agents alive" sh -c \
	"curl -sf http://127.0.0.1:$port/metrics | grep -qF 'artemis_gitops_coordination_members{agent=\"ag2\"} 2'"

a1=$(expect "ag1 ag2" "$clusters" | awk '$2 == "ag1" {print $1; exit}')
api() { curl -sf "http://127.0.0.1:$port/api/v1/clusters/$1"; }
check_eq "ag2's API: $a2 is its own, under epoch $ep" "ag2 $ep True hash" \
	"$(api "$a2" | python3 -c 'import json,sys; c=json.load(sys.stdin)["cluster"]["coordination"]; print(c["owner"], c["epoch"], c["this_agent"], c["shard"])')"
check_eq "ag2's API: $a1 is ag1's, ag2 stands by" "ag1 0 False" \
	"$(api "$a1" | python3 -c 'import json,sys; c=json.load(sys.stdin)["cluster"]["coordination"]; print(c["owner"], c["epoch"], c["this_agent"])')"
check_grep "ag2's page: standing by for $a1" "Standing by: owned by agent ag1" \
	<(curl -sf "http://127.0.0.1:$port/")
check_grep "ag2's page: $a2 owned here" "Owned by this agent \(ag2\), epoch $ep" \
	<(curl -sf "http://127.0.0.1:$port/")

# a suspension given with another agent's configuration (another host)
# reaches the owner through etcd; so does the resume
b2=$(expect "ag1 ag2" "$clusters" | awk '$2 == "ag2" {print $1}' | sed -n 2p)
pb=$(ag_preview 2 "$c1" "$b2")
check "$b2: suspended with ag1's configuration" "$AG_BIN" suspend "$b2" \
	--reason "t85 freeze" --by tester --config "$T/ag1.yaml"
check_grep "$b2: the suspension is in etcd" "t85 freeze" <(etcd_get "suspended/$b2")
check "$b2: ag2, its owner, reads it" wait_for 20 grep -q "cluster '$b2': suspended (from etcd)" "$T/ag2.log"
check "$b2: approve ag2's preview" "$AG_BIN" approve "$pb" \
	--confirm "$(rj "$pb/plan.json" 'j["confirmation"]')" --by tester --state "$T/state2"
check "$b2: the approved plan waits" wait_for 20 test -f "$pb/waiting.txt"
check_grep "$b2: ... saying why" "t85 freeze" "$pb/waiting.txt"
check "$b2: resumed with ag1's configuration" "$AG_BIN" resume "$b2" --config "$T/ag1.yaml"
check_eq "$b2: etcd holds no suspension" "" "$(etcd_get "suspended/$b2")"
check "$b2: applied once resumed" wait_for 30 test -f "$pb/result.json"
check_applied "$b2: every node APPLIED" "$pb"

# a third agent joins: its share is handed over, nothing else moves
moved=$(join -j1 <(expect "ag1 ag2" "$clusters") <(expect "ag1 ag2 ag3" "$clusters") | awk '$2 != $3' | wc -l)
check "join: rendezvous moves some clusters to ag3 ($moved)" test "$moved" -gt 0
ag_start 3
check "join: each cluster owned by its pick among three" wait_for 40 owners_are "ag1 ag2 ag3"
check "join: the clusters given up were handed over" grep -q "handed over to 'ag3'" "$T/ag1.log" "$T/ag2.log"
for c in $(expect "ag1 ag2 ag3" "$clusters" | awk '$2 == "ag3" {print $1}'); do
	check "join: ag3 plans $c, taken over" wait_for 30 grep -q "cluster '$c': taken over" "$T/ag3.log"
done

# kill -9 of ag1: its clusters go to the others within TTL + a cycle
t0=$(date +%s.%N)
ag_kill 1
check "kill: each cluster owned by its pick among ag2 and ag3" wait_for 40 owners_are "ag2 ag3"
t1=$(date +%s.%N)
took=$(python3 -c "print(round($t1 - $t0, 1))")
echo "# rebalance after kill -9 of ag1: ${took}s (lease TTL ${TTL}s + poll 1s)"
# the bound has room for a loaded machine (a cycle's reads under ASan);
# a takeover that waited for a second lease would pass it
check "kill: rebalanced within TTL + poll + 5s ($took s)" \
	python3 -c "import sys; sys.exit(0 if $took <= $TTL + 1 + 5 else 1)"
check_eq "kill: ag1's member key is gone" "" "$(etcd_keys members/ag1)"
check_eq "no agent crashed" "" "$(grep -l "AddressSanitizer\|runtime error" "$T"/ag*.log 2>/dev/null)"
done_testing
