#!/usr/bin/env bash
# From one agent to several (issue 21; docs/ha.md "Moving to several
# agents"): a cluster applied by an agent alone (state folder), its folder
# copied into a real etcd by `state-migrate` (refused while an agent runs
# on the prefix, and a second time), then an agent with state-backend etcd
# and an empty state folder takes the cluster over from what etcd holds:
# the inventory and every audit row, and its first plan has nothing to do.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t86-$$
daemon_setup t86
. "$AG_TOP/tests/integration/ha-lib.sh"
trap 'etcd_cleanup; janitor "$u."; daemon_cleanup; _brokers_cleanup' EXIT
etcd_setup 1

printf 'version: 1\naddresses:\n  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' \
	"$u.q" "$u.q" >"$T/work/clusters/t86/queues.yaml"
c1=$(daemon_commit "t86: $u.q")

# one agent alone, state in its folder
daemon_start
check "alone: preview of c1" wait_for 60 has_preview "$c1"
p1=$(preview_of "$c1")
check "alone: approve c1" "$AG_BIN" approve "$p1" --confirm "$(rj "$p1/plan.json" 'j["confirmation"]')" \
	--by tester --state "$T/state"
check "alone: applied" wait_for 60 test -f "$p1/result.json"
check "alone: suspended" "$AG_BIN" suspend t86 --reason "t86 move" --state "$T/state"

# the configuration that moves it: the same state folder, etcd
ag_conf 1
sed -i "s|^state: .*|state: $T/state|" "$T/ag1.yaml"
check_exit "migrate while the agent alone holds the folder's lock: refused" 1 \
	"$AG_BIN" state-migrate --config "$T/ag1.yaml"
check_grep "... naming the holder" "is locked by pid" <("$AG_BIN" state-migrate --config "$T/ag1.yaml" 2>&1)
daemon_stop

check "state-migrate --dry-run" "$AG_BIN" state-migrate --config "$T/ag1.yaml" --dry-run
check_eq "... wrote nothing" "" "$(etcd_keys "")"
out=$("$AG_BIN" state-migrate --config "$T/ag1.yaml")
check_eq "state-migrate: exit 0" 0 $?
check_grep "... the inventory" "inventory.json -> ${HA_PREFIX}state/t86/inventory.json" <(echo "$out")
check_grep "... the audit rows" "2 audit row.s. -> ${HA_PREFIX}audit/t86/" <(echo "$out")
check_eq "etcd: the inventory, byte for byte" "$(cat "$T/state/t86/inventory.json")" "$(etcd_get state/t86/inventory.json)"
check_eq "etcd: the suspension" "$(cat "$T/state/t86/suspended.json")" "$(etcd_get suspended/t86)"
check_eq "etcd: both audit rows, in order" "$(cat "$T/state/audit.jsonl")" \
	"$(etcdctl_ get --prefix --print-value-only "${HA_PREFIX}audit/t86/" | sed '/^$/d')"
check_exit "a second migration: refused" 1 "$AG_BIN" state-migrate --config "$T/ag1.yaml"
check_grep "... saying etcd holds the cluster" "etcd already holds" \
	<("$AG_BIN" state-migrate --config "$T/ag1.yaml" 2>&1)

# an agent with state-backend etcd and an empty folder takes it over
ag_conf 2
ag_start 2
check "ag2 takes t86 over" wait_for 30 grep -q "cluster 't86': taken over" "$T/ag2.log"
check_grep "... reading 2 audit rows back" "its state read back from etcd .2 audit row" "$T/ag2.log"
check "ag2: the suspension is in force" wait_for 20 test -f "$T/state2/t86/suspended.json"
check_eq "ag2: the inventory as applied" "$(cat "$T/state/t86/inventory.json")" "$(cat "$T/state2/t86/inventory.json")"
check "ag2: its plan of c1 has nothing to do" wait_for 60 grep -q "preview .*${c1:0:12}: NO_CHANGE" "$T/ag2.log"
check_exit "migrating while ag2 runs on the prefix: refused" 1 \
	"$AG_BIN" state-migrate --config "$T/ag1.yaml" --state "$T/state"
check_grep "... naming the agent" "agent.s. run on prefix" \
	<("$AG_BIN" state-migrate --config "$T/ag1.yaml" --state "$T/state" 2>&1)
check "resume through etcd" "$AG_BIN" resume t86 --config "$T/ag2.yaml"
check "ag2: resumed" wait_for 20 test ! -e "$T/state2/t86/suspended.json"
sed -i 's/lease-ttl: 5s/lease-ttl: 9s/' "$T/ag2.yaml"
kill -HUP "${AGPID[2]}"
check "SIGHUP with another lease TTL: refused, the running one kept" \
	wait_for 20 grep -q "'coordination' or 'state-backend' changed" "$T/ag2.log"
check "... ag2 still owns t86" wait_for 10 test "$(etcd_get leader)" = ag2
done_testing
