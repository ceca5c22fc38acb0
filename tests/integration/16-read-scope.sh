#!/usr/bin/env bash
# A plan's read (docs/snapshot-format.md, "A plan's read") on two real
# brokers, seen through a faultproxy that keeps every request body: one
# bulk POST per node asks every queue's identity by pattern (InternalQueue
# and Temporary only) and, by MBean name, only the queues the plan weighs;
# the plan is the plan of `--read full` (every queue whole), byte for byte
# but for the snapshot's time. Then the second request: a declared queue
# that lives on another address, a managed queue no declaration places,
# and node names that are not the brokers' names (every MBean guessed
# wrong) are each read where the first request found them, and the plan is
# again the full read's. Last, a declaration naming more queues than a
# read by name is worth (LIVE_READ_EXACT_COLD, 1000) reads every queue by
# pattern with its configuration, still one POST, the same plan; and
# --read by-name / by-pattern force a shape, the plan the same.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
brokers_setup
u=t16-$$-$RANDOM
apply_setup "$u"

for n in "${NODES[@]}"; do
	jexec "$n" create-address "$u.a" anycast >/dev/null
	jexec "$n" create-queue "$u.q" "$u.a" anycast max-consumers=5 "filter=x > 1" >/dev/null
	jexec "$n" create-address "$u.un" anycast >/dev/null
	jexec "$n" create-queue "$u.un1" "$u.un" anycast "filter=y = 2" >/dev/null
	jexec "$n" create-address "$u.old" anycast >/dev/null
	jexec "$n" create-queue "$u.m" "$u.old" anycast >/dev/null
	jexec "$n" create-address "$u.ga" anycast >/dev/null
	jexec "$n" create-queue "$u.gone" "$u.ga" anycast >/dev/null
done

# a faultproxy in pass mode in front of each node, keeping the bodies
declare -A PURL PLOG PBODIES
for n in "${NODES[@]}"; do
	PBODIES[$n]=$TMP/bodies-$n
	mkdir -p "${PBODIES[$n]}"
	FAULTPROXY_BODIES=${PBODIES[$n]} proxy_start pass "$n"
	PURL[$n]=$PROXY_URL
	PLOG[$n]=$PROXY_LOG
done
via=()
for n in "${NODES[@]}"; do via+=("$n=${PURL[$n]}"); done
reset_proxies() {
	local n
	for n in "${NODES[@]}"; do
		: >"${PLOG[$n]}"
		rm -f "${PBODIES[$n]}"/*.json
	done
}
posts() { grep -c '^POST ' "${PLOG[$1]}"; }
# body NODE K: the K-th request body NODE's proxy kept since the reset
body() { echo "${PBODIES[$1]}/$(ls "${PBODIES[$1]}" | sort -n | sed -n "$2p")"; }
# the queue names a body reads by MBean name, sorted, one line
exact_names() {
	jq -r '[.[] | select(.type == "read" and (.mbean | test(",queue=\"") ) and (.mbean | test("queue=\\*") | not)) | .mbean | capture("queue=\"(?<q>[^\"]*)\"").q] | sort | join(" ")' "$1"
}
# the broker and address each exact read of a body names, "q@addr@broker"
exact_places() {
	jq -r '[.[] | select(.type == "read" and (.mbean | test(",queue=\"") )) | .mbean | "\(capture("queue=\"(?<q>[^\"]*)\"").q)@\(capture("address=\"(?<a>[^\"]*)\"").a)@\(capture("broker=\"(?<b>[^\"]*)\"").b)"] | sort | join(" ")' "$1"
}
# plan.json but for the snapshot's time (and the digest of the
# confirmation, which covers it)
same_plan() { # NAME DIR1 DIR2
	local f='.confirmation |= sub(" [0-9a-f]+$"; "") | del(.snapshot.taken_at)'
	check_eq "$1" "$(jq -S "$f" "$2/plan.json")" "$(jq -S "$f" "$3/plan.json")"
}

# ---- one POST, only the plan's queues by name --------------------------
A=$TMP/a
decl "$A" "addresses:
  - name: $u.a
    routing: [anycast]
    queues:
      - {name: $u.q, max-consumers: 5, filter: 'x > 1'}
      - {name: $u.q2}" "${via[@]}"
reset_proxies
plan_to "$TMP/pa" "$A" >"$TMP/pa.out" 2>&1
check_eq "scoped plan: exit 2 (creates $u.q2)" 2 $?
for n in "${NODES[@]}"; do
	check_eq "$n: one POST" 1 "$(posts "$n")"
	check_eq "$n: by MBean name: the declared queues only" "$u.q $u.q2" \
		"$(exact_names "$(body "$n" 1)")"
	check_eq "$n: every queue by pattern: InternalQueue and Temporary" '["InternalQueue","Temporary"]' \
		"$(jq -c '[.[] | select(.mbean | test("queue=\\*"))][0].attribute' "$(body "$n" 1)")"
done
check_eq "the unmanaged queue is reported by name" '["queue"]' \
	"$(jq -c "[.unmanaged[] | select(.name == \"$u.un1\") | .kind]" "$TMP/pa/plan.json")"
check_eq "the declared queue was read whole: no change planned for it" '[]' \
	"$(jq -c "[.actions[] | select(.name == \"$u.q\")]" "$TMP/pa/plan.json")"
plan_to "$TMP/pa-full" "$A" --read full >/dev/null 2>&1
check_eq "--read full: exit 2" 2 $?
same_plan "the scoped plan is the full read's" "$TMP/pa-full" "$TMP/pa"
check_eq "--read full: every queue by pattern with every attribute" 19 \
	"$(jq -c '[.[] | select(.mbean | test("queue=\\*"))][0].attribute | length' "$(body node1 2)")"

reset_proxies
plan_to "$TMP/pa-pat" "$A" --read by-pattern >/dev/null 2>&1
check_eq "--read by-pattern: exit 2" 2 $?
check_eq "--read by-pattern: one POST, no queue by name" "1 " \
	"$(posts node1) $(exact_names "$(body node1 1)")"
same_plan "--read by-pattern: the plan is the full read's" "$TMP/pa-full" "$TMP/pa-pat"

# ---- a second request: moved, and managed without a place --------------
B=$TMP/b
decl "$B" "addresses:
  - name: $u.a
    routing: [anycast]
    queues:
      - {name: $u.q, max-consumers: 5, filter: 'x > 1'}
  - name: $u.new
    routing: [anycast]
    queues:
      - {name: $u.m}" "${via[@]}"
mkdir -p "$STATE/$u"
printf '{"addresses":["%s"],"captures":[],"cluster":"%s","diverts":[],"format":1,"queues":["%s","%s"],"revision":null}\n' \
	"$u.ga" "$u" "$u.gone" "$u.q" >"$STATE/$u/inventory.json"
reset_proxies
plan_to "$TMP/pb" "$B" >"$TMP/pb.out" 2>&1
check_eq "moved and managed: exit 2" 2 $?
for n in "${NODES[@]}"; do
	check_eq "$n: two POSTs" 2 "$(posts "$n")"
	check_eq "$n: the second reads them where the first found them" \
		"$u.gone@$u.ga@$n $u.m@$u.old@$n" "$(exact_places "$(body "$n" 2)")"
done
check_eq "the moved queue is recreated" '["recreate-queue"]' \
	"$(jq -c "[.actions[] | select(.name == \"$u.m\") | .kind]" "$TMP/pb/plan.json")"
check_eq "the managed queue is deleted" '["delete-queue"]' \
	"$(jq -c "[.actions[] | select(.name == \"$u.gone\") | .kind]" "$TMP/pb/plan.json")"
plan_to "$TMP/pb-full" "$B" --read full >/dev/null 2>&1
same_plan "moved and managed: the plan is the full read's" "$TMP/pb-full" "$TMP/pb"

# ---- node names that are not the brokers' ------------------------------
C=$TMP/c
mkdir -p "$C"
sed -e 's/name: node1$/name: alpha/' -e 's/name: node2$/name: beta/' "$A/cluster.yaml" >"$C/cluster.yaml"
rm -rf "$STATE/$u"
reset_proxies
plan_to "$TMP/pc" "$C" >"$TMP/pc.out" 2>&1
check_eq "other node names: exit 2" 2 $?
for n in "${NODES[@]}"; do
	check_eq "$n: two POSTs" 2 "$(posts "$n")"
	check_eq "$n: the second names the broker the first found" "$u.q@$u.a@$n" \
		"$(exact_places "$(body "$n" 2)")"
	check_grep "$n: and asks its address-settings by that name" "getAddressSettingsAsJSON" "$(body "$n" 2)"
done
plan_to "$TMP/pc-full" "$C" --read full >/dev/null 2>&1
same_plan "other node names: the plan is the full read's" "$TMP/pc-full" "$TMP/pc"

# ---- more queues than by name is worth: every queue by pattern ---------
for n in "${NODES[@]}"; do
	made=OK
	for k in 0 1 2 3 4 5; do
		r=$(broker_bulk "$n" "
ops = []
for i in range($k * 100, min($k * 100 + 100, 505)):
    ops.append(addr('$u.b%03d' % i))
    ops.append(queue(name='$u.b%03d.x' % i, address='$u.b%03d' % i, **{'max-consumers': i}))
    ops.append(queue(name='$u.b%03d.y' % i, address='$u.b%03d' % i))
print(json.dumps(ops))")
		[ "$r" = OK ] || made=$r
	done
	check_eq "$n: 1010 queues created" OK "$made"
done
D=$TMP/d
decl "$D" "$(python3 -c "
print('addresses:')
for i in range(505):
    print('  - name: $u.b%03d' % i)
    print('    routing: [anycast]')
    print('    queues:')
    print('      - {name: $u.b%03d.x, max-consumers: %d}' % (i, i if i % 100 else i + 1))
    print('      - {name: $u.b%03d.y}' % i)")" "${via[@]}"
reset_proxies
plan_to "$TMP/pd" "$D" >"$TMP/pd.out" 2>&1
check_eq "1010 declared: exit 2 (6 changes)" 2 $?
for n in "${NODES[@]}"; do
	check_eq "$n: one POST" 1 "$(posts "$n")"
	check_eq "$n: no queue by name" "" "$(exact_names "$(body "$n" 1)")"
	check_eq "$n: every queue by pattern with its configuration and counts" \
		'["ConsumerCount","ConsumersBeforeDispatch","DelayBeforeDispatch","Durable","Enabled","Exclusive","Filter","InternalQueue","LastValueKey","MaxConsumers","MessageCount","PurgeOnNoConsumers","RingSize","Temporary"]' \
		"$(jq -c '[.[] | select(.mbean | test("queue=\\*"))][0].attribute | sort' "$(body "$n" 1)")"
done
check_eq "the changed max-consumers found on every 100th" '6' \
	"$(jq -c '[.actions[] | select(.kind == "change-queue")] | length' "$TMP/pd/plan.json")"
plan_to "$TMP/pd-full" "$D" --read full >/dev/null 2>&1
same_plan "1010 declared: the plan is the full read's" "$TMP/pd-full" "$TMP/pd"
reset_proxies
plan_to "$TMP/pd-name" "$D" --read by-name >/dev/null 2>&1
check_eq "--read by-name: one POST, 1010 by name" "1 1010" \
	"$(posts node1) $(exact_names "$(body node1 1)" | wc -w)"
same_plan "--read by-name: the plan is the full read's" "$TMP/pd-full" "$TMP/pd-name"

for n in "${NODES[@]}"; do
	for k in 0 1 2 3 4 5; do
		broker_bulk "$n" "
ops = []
for i in range($k * 100, min($k * 100 + 100, 505)):
    for s in 'xy':
        ops.append(op('destroyQueue(java.lang.String,boolean,boolean)', '$u.b%03d.%s' % (i, s), True, False))
    ops.append(op('deleteAddress(java.lang.String)', '$u.b%03d' % i))
print(json.dumps(ops))" >/dev/null
	done
done
janitor "$u."
done_testing
