#!/usr/bin/env bash
# ADR-0084 §17 Q4 end to end on real brokers (auto-create off for the
# forwarding address, through addAddressSettings): a runtime divert
# forwards src -> fwd (ANYCAST). The queue fwd and its address leave the
# declaration; after our apply (divert first) sends to src still succeed.
# A control deletes the queue and its address through the client only
# (the divert stays): sends to src then fail with AMQ229203, so this test
# can fail (on 2.28 and 2.31, which drop what the divert forwards, they
# still succeed: docs/compatibility.md).
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50q4-$$
apply_setup "$u"
n1=${NODES[0]}
off='{"autoCreateAddresses":false,"autoCreateQueues":false}'

for n in "${NODES[@]}"; do
	check "$n: auto-create off for $u.fwd" settings "$n" "$u.fwd" "$off"
	check "$n: auto-create off for $u.ctl.fwd" settings "$n" "$u.ctl.fwd" "$off"
done
src="  - name: $u.src
    routing: [anycast]
    queues: [{name: $u.src}]"
decl "$TMP/c" "addresses:
$src
  - name: $u.fwd
    routing: [anycast]
    queues: [{name: $u.fwd}]"
converge "v1" "$TMP/c" "$TMP/p1"
for n in "${NODES[@]}"; do
	check_eq "$n: runtime divert src -> fwd (ANYCAST)" OK \
		"$(jexec "$n" create-divert "$u.d1" "$u.src" "$u.fwd" routing-type=ANYCAST)"
done
check_eq "before: sends to src succeed" OK "$(produce "$n1" "$u.src")"

decl "$TMP/c" "addresses:
$src"
check_exit "v2: plan has changes" 2 plan_to "$TMP/p2" "$TMP/c"
check_eq "v2: the plan deletes divert, queue and address on each node" \
	'[["destroyDivert", "destroyQueue"], ["deleteAddress"], ["destroyDivert", "destroyQueue"], ["deleteAddress"]]' \
	"$(rj "$TMP/p2/plan.json" '[[o["op"] for o in x["operations"]] for n in ("node1", "node2") for a in j["actions"] for x in a["nodes"] if x["node"] == n and x["operations"]]')"
check "v2: approve" approve_ok "$TMP/p2"
# The endpoints from PLAN_DIR/declaration (as the daemon's previews keep
# it), no --cluster.
cp -r "$TMP/c" "$TMP/p2/declaration"
check_exit "v2: apply exits 0" 0 "$AG_BIN" apply "$TMP/p2" --state "$STATE" --credentials "$CREDDIR"
check_unlisted "address $u.fwd is gone" "$n1" addresses "^$u\.fwd\$" "$u.src"
check_eq "Q4: after our apply, sends to src still succeed" OK "$(produce "$n1" "$u.src")"

# Control: the same deletes without the cascade.
c=$u.ctl
for q in "$c.src" "$c.fwd"; do
	check_eq "control: address $q" OK "$(jexec "$n1" create-address "$q" anycast)"
	check_eq "control: queue $q" OK "$(jexec "$n1" create-queue "$q" "$q" anycast)"
done
check_eq "control: divert" OK "$(jexec "$n1" create-divert "$c.d1" "$c.src" "$c.fwd" routing-type=ANYCAST)"
check_eq "control: destroy the queue only" OK "$(jexec "$n1" destroy-queue "$c.fwd")"
check_eq "control: delete its address" OK "$(jexec "$n1" delete-address "$c.fwd")"
# 2.28 and 2.31 drop what the divert forwards: no damage there
# (docs/compatibility.md, measured by 90-versions too).
if [[ $("$ARTEMIS" version) < 2.32 ]]; then
	check_eq "control: sends to src still succeed on $("$ARTEMIS" version)" OK "$(produce "$n1" "$c.src")"
else
	check_eq "control: sends to src now fail (the damage)" \
		"AMQ229203: Address Does Not Exist: $c.fwd" "$(produce "$n1" "$c.src")"
fi

janitor "$u."
for n in "${NODES[@]}"; do
	unsettings "$n" "$u.fwd"
	unsettings "$n" "$u.ctl.fwd"
done
done_testing
