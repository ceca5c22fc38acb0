#!/usr/bin/env bash
# Apply in batches (docs/audit.md "Batches"), on two real brokers.
#
# A first apply of 1,200 queues (each on its own address) and 120 diverts:
# seen through a faultproxy that keeps every request body, each node gets
# its 2,520 operations in ceil(n/500) bulk POSTs per phase (addresses 500,
# 500, 200; queues the same; diverts 120), never an address and a queue,
# nor a queue and a divert, in one request; every operation DONE, read
# back, and a plan right after has nothing to do.
#
# Then a createQueue refused by the broker in the middle of a batch: the
# opproxy in front of node1 holds the request that carries queue q0300
# (hold-any), the test creates that queue itself, then lets the request
# go. The broker refuses q0300 (ALREADY_EXISTS) and runs the rest of that
# request: q0301..q0499 are DONE, as the broker holds them; the later
# requests (q0500.., the diverts) are not sent (NOT_RUN) and nothing of
# them is on node1; node2 is APPLIED; the audit's result row says the
# same, and nothing the plan did not say was done.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t54-$$-$RANDOM

# objects N ND: N addresses a#### with one anycast queue q#### each, and
# ND diverts d#### from a(10k) to a(10k+1)
objects() {
	python3 - "$u" "$1" "$2" <<'PY'
import sys
u, n, nd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print("addresses:")
for i in range(n):
    print("  - name: %s.a%04d\n    routing: [anycast]\n    queues: [{name: %s.q%04d}]" % (u, i, u, i))
print("diverts:")
for k in range(nd):
    print("  - {name: %s.d%04d, address: %s.a%04d, forwarding-address: %s.a%04d, routing-type: ANYCAST}"
          % (u, k, u, 10 * k, u, 10 * k + 1))
PY
}

# remove everything of prefix P from every node, in bulks of 100 (a bulk
# destroying 1,200 queues outlasts broker_jolokia's 20 s on a busy machine,
# and what it leaves behind swells every later script's unmanaged list)
clean() {
	local n f
	for n in "${NODES[@]}"; do
		for kind in diverts queues addresses; do
			broker_names "$n" "$kind" | grep -F "$1" >"$TMP/clean.$kind" || true
			rm -f "$TMP/clean.$kind".part.*
			split -l 100 "$TMP/clean.$kind" "$TMP/clean.$kind.part."
		done
		for f in "$TMP"/clean.diverts.part.* "$TMP"/clean.queues.part.*; do
			[ -e "$f" ] || continue
			broker_bulk "$n" "
names = open('$f').read().split()
print(json.dumps([op('destroyDivert(java.lang.String)', x) for x in names] if '.diverts.' in '$f' else
                 [op('destroyQueue(java.lang.String,boolean,boolean)', x, True, False) for x in names]))" >/dev/null
		done
		for f in "$TMP"/clean.addresses.part.*; do
			[ -e "$f" ] || continue
			broker_bulk "$n" "
print(json.dumps([op('deleteAddress(java.lang.String)', a) for a in open('$f').read().split()]))" >/dev/null
		done
	done
}

# ---- a first apply of 1,200 queues and 120 diverts: 7 POSTs a node ------
apply_setup "$u"
declare -A PLOG PBODIES
via=()
for n in "${NODES[@]}"; do
	PBODIES[$n]=$TMP/bodies-$n
	mkdir -p "${PBODIES[$n]}"
	FAULTPROXY_BODIES=${PBODIES[$n]} proxy_start pass "$n"
	PLOG[$n]=$PROXY_LOG
	via+=("$n=$PROXY_URL")
done
decl "$TMP/c" "$(objects 1200 120)" "${via[@]}"
check_exit "1,200 queues: plan has changes" 2 plan_to "$TMP/p1" "$TMP/c"
check "approve" approve_ok "$TMP/p1"
for n in "${NODES[@]}"; do
	: >"${PLOG[$n]}"
	rm -f "${PBODIES[$n]}"/*.json
done
check "apply" apply_to "$TMP/p1" "$TMP/c"
for n in "${NODES[@]}"; do
	# per request body, in order: "read" or "exec:<op kinds>:<count>"
	python3 - "${PBODIES[$n]}" >"$TMP/req-$n" <<'PY'
import json, os, sys
d = sys.argv[1]
for f in sorted(os.listdir(d), key=lambda x: int(x.split(".")[0])):
    body = json.load(open(os.path.join(d, f)))
    body = body if isinstance(body, list) else [body]
    ex = [e for e in body if e.get("type") == "exec" and "jolokia" not in e.get("mbean", "")
          and not e.get("operation", "").startswith("getAddressSettings")]
    if not ex:
        print("read")
        continue
    ops = sorted({e["operation"].split("(")[0] for e in ex})
    print("exec:%s:%d" % (",".join(ops), len(ex)))
PY
	check_eq "$n: the operations in 7 POSTs of at most 500, one phase each, between the read before acting and the read back" \
		"read
exec:createAddress:500
exec:createAddress:500
exec:createAddress:200
exec:createQueue:500
exec:createQueue:500
exec:createQueue:200
exec:createDivert:120
read" "$(cat "$TMP/req-$n")"
	check_eq "$n: APPLIED, every operation DONE" "APPLIED 2520 2520" \
		"$(rj "$TMP/p1/result.json" "'%s %d %d' % ([x for x in j['nodes'] if x['node'] == '$n'][0]['outcome'], len([x for x in j['nodes'] if x['node'] == '$n'][0]['operations']), len([o for o in [x for x in j['nodes'] if x['node'] == '$n'][0]['operations'] if o['outcome'] == 'DONE']))")"
	check_eq "$n: the broker holds the 1,200 queues" 1200 "$(broker_names "$n" queues | grep -cF "$u.q")"
	check_eq "$n: and the 120 diverts" 120 "$(broker_names "$n" diverts | grep -cF "$u.d")"
done
check_exit "a plan after it has nothing to do" 0 plan_to "$TMP/p1b" "$TMP/c"
proxy_stop
clean "$u."

# ---- a createQueue refused in the middle of a batch ---------------------
u=$u-m
apply_setup "$u"
opproxy_start node1 "hold-any:createQueue:$u.q0300:$TMP/go"
decl "$TMP/m" "$(objects 800 10)" "node1=$OPX_URL"
check_exit "800 queues: plan has changes" 2 plan_to "$TMP/p2" "$TMP/m"
check "approve" approve_ok "$TMP/p2"
(exec "$AG_BIN" apply "$TMP/p2" --state "$STATE" --credentials "$CREDDIR" \
	--cluster "$TMP/m" >"$TMP/m.out" 2>"$TMP/m.err") &
pid=$!
for _ in $(seq 1 600); do
	grep -q "^hold createQueue" "$OPX_LOG" && break
	sleep 0.1
done
check_grep "the request with $u.q0300 is held (its first element q0000)" "^hold createQueue " "$OPX_LOG"
check_eq "node1: the queue created behind apply's back" OK \
	"$(jexec node1 create-queue "$u.q0300" "$u.a0300" anycast)"
touch "$TMP/go"
wait "$pid"
check_eq "apply exits 1 (node1 FAILED)" 1 $?
opproxy_stop
res=$TMP/p2/result.json
summary() { # NODE: outcome, then per outcome the count of operations
	rj "$res" "' '.join([x['outcome'] for x in j['nodes'] if x['node'] == '$1'] + ['%s=%d' % (s, len([o for x in j['nodes'] if x['node'] == '$1' for o in x['operations'] if o['outcome'] == s])) for s in ('DONE', 'FAILED', 'NOT_RUN', 'UNKNOWN')])"
}
# node1: 800 addresses, q0000..q0299 and q0301..q0499 DONE, q0300 FAILED,
# q0500..q0799 and the 10 diverts NOT_RUN
check_eq "node1: FAILED, q0300 FAILED, the rest of its request DONE, the later requests NOT_RUN" \
	"FAILED DONE=1299 FAILED=1 NOT_RUN=310 UNKNOWN=0" "$(summary node1)"
check_eq "node1: q0300's refusal is the broker's" "FAILED ALREADY_EXISTS" \
	"$(rj "$res" "' '.join([o['outcome'] + ' ' + o['kind'] for x in j['nodes'] if x['node'] == 'node1' for o in x['operations'] if o['name'] == '$u.q0300'])")"
check_eq "node1: q0499 (last of that request) DONE, q0500 NOT_RUN" "DONE NOT_RUN" \
	"$(rj "$res" "' '.join([o['outcome'] for x in j['nodes'] if x['node'] == 'node1' for o in x['operations'] if o['name'] in ('$u.q0499', '$u.q0500')])")"
check_grep "node1's detail says the later ones of the request ran" \
	"199 later operation\(s\) of the same request ran \(their outcomes are recorded each: 199 DONE, 0 FAILED, 0 UNKNOWN\); 310 later operation\(s\) not run" "$res"
check_eq "node2: APPLIED, all DONE" "APPLIED DONE=1610 FAILED=0 NOT_RUN=0 UNKNOWN=0" "$(summary node2)"
# the brokers are as the result says
broker_names node1 queues | grep -F "$u.q" | sort >"$TMP/n1q"
check_eq "node1 holds q0000..q0499 (q0300 the test's), nothing after" \
	"500 $u.q0000 $u.q0499" "$(wc -l <"$TMP/n1q") $(head -1 "$TMP/n1q") $(tail -1 "$TMP/n1q")"
check_eq "node1 holds no divert" 0 "$(broker_names node1 diverts | grep -cF "$u.d")"
check_eq "node1 holds the 800 addresses" 800 "$(broker_names node1 addresses | grep -cF "$u.a")"
check_eq "node2 holds the 800 queues" 800 "$(broker_names node2 queues | grep -cF "$u.q")"
# the audit's result row records the same outcomes as result.json
audit_rows result | tail -1 >"$TMP/row"
check_eq "the audit's result row: the same outcomes" \
	"$(rj "$res" "sorted((x['node'], o['name'], o['outcome']) for x in j['nodes'] for o in x['operations'])")" \
	"$(rj "$TMP/row" "sorted((x['node'], o['name'], o['outcome']) for x in j['nodes'] for o in x['operations'])")"
clean "$u."
for n in "${NODES[@]}"; do
	check_eq "$n: the test's objects removed at the end" 0 \
		"$( (broker_names "$n" queues; broker_names "$n" addresses; broker_names "$n" diverts) | grep -cF "$u.")"
done
done_testing
