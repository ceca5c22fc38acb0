#!/usr/bin/env bash
# The daemon's apply of an approved preview checks the preview's
# declaration/ against plan.json's declaration_digest, like `apply`
# (docs/plan-format.md, "The declaration digest"). A preview is approved,
# then an unmanaged queue is added to its declaration/ folder: the daemon
# refuses it (the preview's approval-refused.txt and a log line name both
# digests), creates nothing on the brokers (read back, in a listing that
# holds a name known to be there), and leaves the inventory as it was.
# An untouched preview of the next commit is applied. An approved preview
# whose plan.json is malformed is refused, naming the key, and the daemon
# keeps running.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t76-$$
daemon_setup t76
STATE=$T/state
trap 'janitor "$u."; daemon_cleanup; _brokers_cleanup' EXIT
yaml=$T/work/clusters/t76/cluster.yaml
head_yaml=$(cat "$yaml")

applied() { local d; d=$(preview_of "$1"); [ -n "$d" ] && [ -f "$d/result.json" ]; }
refused() { local d; d=$(preview_of "$1"); [ -n "$d" ] && [ -f "$d/approval-refused.txt" ]; }
approve_preview() {
	"$AG_BIN" approve "$1" --confirm "$(rj "$1/plan.json" 'j["confirmation"]')" \
		--by tester --state "$STATE"
}
addresses() {
	printf '%s\naddresses:\n' "$head_yaml"
	for a in "$@"; do
		printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$a" "$a"
	done
}

for n in "${NODES[@]}"; do
	check_eq "$n: an unmanaged address" OK "$(jexec "$n" create-address "$u.victim" anycast)"
	check_eq "$n: an unmanaged queue" OK "$(jexec "$n" create-queue "$u.victim" "$u.victim" anycast)"
done

addresses "$u.a" >"$yaml"
c1=$(daemon_commit "t76: $u.a")
daemon_start
check "preview of c1" wait_for 60 has_preview "$c1"
p1=$(preview_of "$c1")
check "c1: approve" approve_preview "$p1"
check "c1: applied by the daemon: a result" wait_for 60 applied "$c1"
check_applied "c1: applied by the daemon: every node APPLIED" "$p1"
for n in "${NODES[@]}"; do
	check_listed "c1: $n has $u.a" "$n" queues "$u.a"
done
cp "$STATE/t76/inventory.json" "$T/inventory.before"

# c2 adds $u.b; its approved preview gets $u.victim added to declaration/.
addresses "$u.a" "$u.b" >"$yaml"
c2=$(daemon_commit "t76: $u.b")
check "preview of c2" wait_for 60 has_preview "$c2"
p2=$(preview_of "$c2")
digest=$(rj "$p2/plan.json" 'j["declaration_digest"]')
# plan.md appears first; declaration/ follows in the same cycle
check "c2: the preview keeps its declaration" wait_for 10 test -s "$p2/declaration/cluster.yaml"
printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' \
	"$u.victim" "$u.victim" >>"$p2/declaration/cluster.yaml"
check "c2: approve" approve_preview "$p2"
check "c2: the daemon refuses it" wait_for 60 refused "$c2"
check_grep "c2: approval-refused.txt names both digests" \
	"^the declaration in $p2/declaration is not the one the plan was approved for \(its declaration SHA-256 [0-9a-f]{64}, plan.json's declaration_digest $digest\)" \
	"$p2/approval-refused.txt"
check_grep "c2: logged" "warning approve: approval in $p2 not applied: the declaration in $p2/declaration is not the one the plan was approved for" "$T/agent.log"
check "c2: no result.json" test ! -e "$p2/result.json"
for n in "${NODES[@]}"; do
	check_unlisted "$n: $u.b was not created" "$n" queues "^$u\.b\$" "$u.a"
done
check "the inventory is unchanged" cmp "$T/inventory.before" "$STATE/t76/inventory.json"

# c3 (the same objects again, plus $u.c), untouched: applied.
addresses "$u.a" "$u.b" "$u.c" >"$yaml"
c3=$(daemon_commit "t76: $u.c")
check "preview of c3" wait_for 60 has_preview "$c3"
p3=$(preview_of "$c3")
check "c3: approve" approve_preview "$p3"
check "c3: applied by the daemon: a result" wait_for 60 applied "$c3"
check_applied "c3: applied by the daemon: every node APPLIED" "$p3"
for n in "${NODES[@]}"; do
	check_listed "c3: $n has $u.b" "$n" queues "$u.b"
	check_listed "c3: $n has $u.c" "$n" queues "$u.c"
done
check_eq "c3: inventory: the declared queues, not the unmanaged one" \
	"[\"$u.a\", \"$u.b\", \"$u.c\"]" \
	"$(rj "$STATE/t76/inventory.json" 'j["queues"]')"

# c4: an approved preview whose plan.json is malformed (issue 14, defect 1:
# it once crashed the daemon, a restart loop under systemd): refused with
# approval-refused.txt naming the missing key, logged; the daemon keeps
# running and applies the next preview.
addresses "$u.a" "$u.b" "$u.c" "$u.d" >"$yaml"
c4=$(daemon_commit "t76: $u.d")
check "preview of c4" wait_for 60 has_preview "$c4"
p4=$(preview_of "$c4")
check "c4: the preview keeps its declaration" wait_for 10 test -s "$p4/declaration/cluster.yaml"
cp "$AG_TOP/tests/fuzz/corpus/plan/029-uncertain-renamed.json" "$p4/plan.json"
printf '{"approved_at": "2026-11-29T20:00:00Z", "approved_by": "tester", "confirmation": "x", "format": 1, "plan_digest": "%s"}\n' \
	"$(sha256sum <"$p4/plan.json" | cut -d' ' -f1)" >"$T/approval.json"
mv "$T/approval.json" "$p4/approval.json"
check "c4: the daemon refuses it" wait_for 60 refused "$c4"
check_eq "c4: approval-refused.txt names the missing key" \
	"$p4/plan.json: broker_xml.nodes[].reload.uncertain: missing" "$(cat "$p4/approval-refused.txt")"
check_grep "c4: logged" "warning approve: approval in $p4 not applied: $p4/plan.json: broker_xml.nodes\[\]\.reload\.uncertain: missing" "$T/agent.log"
check "c4: no result.json" test ! -e "$p4/result.json"
check "c4: the daemon is still running" kill -0 "$PID"
addresses "$u.a" "$u.b" "$u.c" "$u.e" >"$yaml"
c5=$(daemon_commit "t76: $u.e")
check "preview of c5" wait_for 60 has_preview "$c5"
p5=$(preview_of "$c5")
check "c5: approve" approve_preview "$p5"
check "c5: applied by the daemon: a result" wait_for 60 applied "$c5"
check_applied "c5: applied by the daemon: every node APPLIED" "$p5"
for n in "${NODES[@]}"; do
	check_listed "c5: $n has $u.e" "$n" queues "$u.e"
done

daemon_stop
check_eq "exit 0" 0 "$RC"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'notice loop: signal 15: stopping'
done_testing
