#!/usr/bin/env bash
# `snapshot` shows what Artemis's own `artemis queue stat` shows for the
# same queues (messages produced with `artemis producer`, a consumer held
# with scripts/artemis consumer). Two JVM CLI runs: kept to one node.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
brokers_setup

u=t13-$$-$RANDOM
cluster_dir "$TMP/c"
check_eq "create address" OK "$(jexec node1 create-address "$u" anycast)"
check_eq "create queue" OK "$(jexec node1 create-queue "$u" "$u" anycast "filter=color IS NULL" max-consumers=4)"
check_eq "create second queue" OK "$(jexec node1 create-queue "$u.b" "$u" anycast)"
"$ARTEMIS" cli node1 producer --destination "queue://$u::$u" --message-count 9 --threads 1 >"$TMP/producer.log" 2>&1
check_grep "producer sent 9 messages" "Produced: 9 messages" "$TMP/producer.log"
"$ARTEMIS" consumer node1 "$u.b" >"$TMP/consumer.log" 2>&1 &
cpid=$!
_proxy_pids+=("$cpid")
check "consumer attached" "$ARTEMIS" wait-consumers node1 "$u.b" 1 90

snap "$TMP/s.json" "$TMP/c" --node node1
"$ARTEMIS" cli node1 queue stat --field NAME --operation CONTAINS --value "$u" --json >"$TMP/stat.out" 2>&1
check_grep "queue stat answered" '"count":2' "$TMP/stat.out"
python3 - "$TMP/s.json" "$TMP/stat.out" <<'PY' >"$TMP/cmp.txt"
import json, sys
snap = json.load(open(sys.argv[1]))["nodes"][0]["queues"]
text = open(sys.argv[2]).read()
stat = json.loads(text[text.index('{"data"'):])["data"]
for row in sorted(stat, key=lambda r: r["name"]):
    q = [x for x in snap if x["name"] == row["name"]][0]
    pairs = [
        ("address", q["address"], row["address"]),
        ("routing", q["routing"].upper(), row["routingType"]),
        ("durable", str(q["durable"]).lower(), row["durable"]),
        ("filter", q["filter"] or "", row["filter"]),
        ("max_consumers", str(q["max_consumers"]), row["maxConsumers"]),
        ("consumer_count", str(q["consumer_count"]), row["consumerCount"]),
        ("message_count", str(q["message_count"]), row["messageCount"]),
        ("exclusive", str(q["exclusive"]).lower(), row["exclusive"]),
        ("purge", str(q["purge_on_no_consumers"]).lower(), row["purgeOnNoConsumers"]),
        ("ring_size", str(q["ring_size"]), row["ringSize"]),
        ("internal", str(q["internal"]).lower(), row["internalQueue"]),
    ]
    for name, a, b in pairs:
        print("%s %s %s %s" % (row["name"], name, "same" if a == b else "DIFFERENT", a + "|" + b))
PY
check_eq "22 fields compared" 22 "$(wc -l <"$TMP/cmp.txt")"
check_absent "snapshot agrees with queue stat" " DIFFERENT " "$TMP/cmp.txt" "^$u message_count "
check_grep "9 messages on the queue in both" "^$u message_count same 9\|9$" "$TMP/cmp.txt"
check_grep "the consumer in both" "^$u.b consumer_count same 1\|1$" "$TMP/cmp.txt"

kill "$cpid"
wait "$cpid" 2>/dev/null
check "consumer gone" "$ARTEMIS" wait-consumers node1 "$u.b" 0 60
check_eq "destroy queue with its messages" OK "$(jexec node1 destroy-queue "$u" remove-consumers)"
check_eq "destroy second queue" OK "$(jexec node1 destroy-queue "$u.b")"
check_eq "delete address" OK "$(jexec node1 delete-address "$u")"
done_testing
