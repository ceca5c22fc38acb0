#!/usr/bin/env bash
# The inventory forgets an object only when it is gone from every node
# (issue 14.7), on real brokers: a declared address kept on node2 because
# an unmanaged queue is bound to it stays managed after the apply that
# deleted its declared queue, so once the unmanaged queue goes a plan
# deletes the address there too.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t50i-$$
apply_setup "$u"
n2=${NODES[1]}

src="  - name: $u.src
    routing: [anycast]
    queues: [{name: $u.src}]"
decl "$TMP/c" "addresses:
$src
  - name: $u.a
    routing: [anycast]
    queues: [{name: $u.q}]"
converge "v1" "$TMP/c" "$TMP/p1"
check_eq "$n2: an unmanaged queue on $u.a" OK "$(jexec "$n2" create-queue "$u.theirs" "$u.a" anycast)"

decl "$TMP/c" "addresses:
$src"
converge "v2: drop $u.a" "$TMP/c" "$TMP/p2"
check_eq "v2: node1 deletes the address, node2 keeps it" '["WOULD_APPLY", "NO_CHANGE"]' \
	"$(rj "$TMP/p2/plan.json" '[x["outcome"] for a in j["actions"] if a["kind"] == "delete-address" for x in a["nodes"]]')"
check_unlisted "node1: $u.a is gone" "${NODES[0]}" addresses "^$u\.a\$" "$u.src"
check_listed "$n2: $u.a is kept" "$n2" addresses "$u.a"
check_eq "the inventory forgets $u.q (gone everywhere)" false "$(rj "$STATE/$CL/inventory.json" '"'"$u.q"'" in j["queues"]')"
check_eq "the inventory keeps $u.a (still on node2)" true "$(rj "$STATE/$CL/inventory.json" '"'"$u.a"'" in j["addresses"]')"

check_eq "$n2: the unmanaged queue goes" OK "$(jexec "$n2" destroy-queue "$u.theirs")"
converge "v3: the address goes on node2" "$TMP/c" "$TMP/p3"
check_eq "v3: node2 deletes $u.a" '[["node2", ["deleteAddress"]]]' \
	"$(rj "$TMP/p3/plan.json" '[[x["node"], [o["op"] for o in x["operations"]]] for a in j["actions"] if a["kind"] == "delete-address" for x in a["nodes"] if x["operations"]]')"
check_unlisted "$n2: $u.a is gone" "$n2" addresses "^$u\.a\$" "$u.src"
check_eq "the inventory forgets $u.a" false "$(rj "$STATE/$CL/inventory.json" '"'"$u.a"'" in j["addresses"]')"
check_exit "v4: nothing left to do" 0 plan_to "$TMP/p4" "$TMP/c"
janitor "$u."
done_testing
