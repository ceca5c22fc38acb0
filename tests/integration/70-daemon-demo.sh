#!/usr/bin/env bash
# The demo sequence as assertions: scripts/demo against the suite's two
# brokers, then every file and log line it promises is checked: the
# auto-applied creates, the refused commit ("Nothing consumes at ...",
# naming the divert), the superseded preview, the fixed commit's preview,
# the approval, the apply with its audit rows and inventory, the drift
# report, the SIGHUP reload and the clean SIGTERM exit; step 10's guard
# rails: the suspension's hold (hold.txt, the log), the approved plan that
# waited until `resume` and was applied after it, the commit removing a
# queue settings.protect covers, refused PROTECTED with the queue left on
# both brokers, and the one removing a delete-if-empty queue holding 3
# messages (sent by `artemis producer`), refused HAS_MESSAGES on that
# node, the messages still there; step 11: a real 3-member etcd, agents A
# and B on the cluster shop-fleet (the branch fleet): the leader's log
# line and key, the standby's "standing by" lines and no preview of its
# own, the approved apply with the epoch in both audit rows, kill -9 of
# the leader and the takeover within TTL + poll + 2 s (a new epoch, the
# state read back from etcd, a NO_CHANGE plan from the inventory read
# back), the keys in etcd, the successor's clean stop, etcd stopped.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=$dir/demo.out
nodes=$(awk 'NF { print $1 }' "$AG_NODES_FILE")

# The suite's brokers are shared and outlive runs: remove what an earlier
# run of the demo made (the example's diverts, then its addresses with
# their queues, step 10's returns, step 9's legacy objects and step 11's
# fleet queues), so the first commit meets brokers without them.
for node in $nodes; do
	mb="org.apache.activemq.artemis:broker=\\\"$node\\\""
	for dv in $(broker_names "$node" diverts); do
		case $dv in orders-to-audit | orders-to-events | legacy.copy | __capture.*) ;; *) continue ;; esac
		broker_jolokia "$node" "{\"type\":\"exec\",\"mbean\":\"$mb\",\"operation\":\"destroyDivert(java.lang.String)\",\"arguments\":[\"$dv\"]}" >/dev/null
	done
	for ad in orders order.events audit returns legacy.payments legacy.events fleet.orders fleet.invoices; do
		broker_jolokia "$node" "{\"type\":\"exec\",\"mbean\":\"$mb\",\"operation\":\"deleteAddress(java.lang.String,boolean)\",\"arguments\":[\"$ad\",true]}" >/dev/null
	done
done

DEMO_TIMEOUT=90 scripts/demo --nodes "$AG_NODES_FILE" --bin "$AG_BIN" \
	--dir "$dir/demo" --no-install >"$out" 2>&1
rc=$?
check_eq "scripts/demo exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || tail -n 40 "$out" | sed 's/^/# /'
check_grep "demo ends with done" '^demo: done$' "$out"

d=$dir/demo
log=$d/agent.log
ob=$d/state/outbox/shop-eu
p1=$(sed -n 's/^ *1 applied: *//p' "$out")
p2=$(sed -n 's/^ *2 refused: *//p' "$out")
p3=$(sed -n 's/^ *3 approved: *//p' "$out")
check "preview 1 folder named" test -n "$p1" -a -d "$p1"
check "preview 2 folder named" test -n "$p2" -a -d "$p2"
check "preview 3 folder named" test -n "$p3" -a -d "$p3"
c1=$(sed -n 's/^commit //p' "$p1/commit.txt")
c2=$(sed -n 's/^commit //p' "$p2/commit.txt")
c3=$(sed -n 's/^commit //p' "$p3/commit.txt")
# the demo's commits, oldest first: 1, 2, 3 (shop-eu), 4 (shop-ha), then
# step 10's 5 (waits, applied after resume), 6 (protected: refused) and 7
# (delete-if-empty: refused)
check_eq "the demo made seven commits" 7 "$(git -C "$d/origin.git" rev-list --count main)"
check_eq "preview 1 is of the first commit" "$(git -C "$d/origin.git" rev-parse main~6)" "$c1"
check_eq "preview 2 is of the second commit" "$(git -C "$d/origin.git" rev-parse main~5)" "$c2"
check_eq "preview 3 is of the third commit" "$(git -C "$d/origin.git" rev-parse main~4)" "$c3"
check_eq "plan folders are <time>-<commit12>" "${c1:0:12}" "${p1##*-}"

# 1: creates, applied (by auto-apply-creates on fresh brokers, else approved)
for f in plan.md plan.json commit.txt result.json result.md approval.json declaration/cluster.yaml declaration/orders.yaml; do
	check "preview 1 has $f" test -f "$p1/$f"
done
check_grep "commit.txt names the branch" '^branch main$' "$p1/commit.txt"
check_grep "commit.txt names the folder" '^folder clusters/shop-eu$' "$p1/commit.txt"
check_grep "plan 1 would apply" '"outcome": "WOULD_APPLY"' "$p1/plan.json"
check_grep "result 1: every node applied" 'Every node applied or had nothing to do' "$p1/result.md"
check_applied "result 1: every node APPLIED (result.json)" "$p1"
check_grep "log: preview 1 posted" "notice cycle: cluster 'shop-eu': preview $p1: WOULD_APPLY" "$log"

# 2: refused by validation, nothing changed, superseded later
check_grep "plan 2 refused" '"outcome": "REFUSED"' "$p2/plan.json"
check_grep "plan 2 names the divert and the address" "orders.yaml:[0-9]+:[0-9]+: divert 'orders-to-audit' forwards to 'audit': Nothing consumes at audit" "$p2/plan.md"
check "plan 2 was not approved" test ! -e "$p2/approval.json"
check "plan 2 was not applied" test ! -e "$p2/result.json"
check "plan 2 is superseded" test -f "$p2/superseded"
check_grep "superseded names the newer preview" "superseded by $ob/[0-9TZ]+-${c3:0:12}(-[0-9]+)? \\(commit $c3\\)" "$p2/superseded"
check_grep "log: invalid commit is an err line" "err cycle: cluster 'shop-eu': commit ${c2:0:12} is invalid \\(1 errors\\), nothing changes" "$log"

# 3: the fix: divert deleted before the queue, approved, applied
check_grep "plan 3 deletes the divert first" '^### 1\. delete-divert `orders-to-audit`' "$p3/plan.md"
check_grep "plan 3 then deletes the queue" '^### 2\. delete-queue `audit`' "$p3/plan.md"
check "plan 3 approved" test -f "$p3/approval.json"
check_grep "approval by the demo operator" '"approved_by": "demo operator"' "$p3/approval.json"
check "plan 3 applied" test -f "$p3/result.json"
check_applied "result 3: both nodes APPLIED (result.json)" "$p3"
for n in $nodes; do
	check_grep "result 3: $n APPLIED (result.md)" "^\\| $n \\| APPLIED \\|" "$p3/result.md"
	check_unlisted "$n: the divert orders-to-audit is gone" "$n" diverts '^orders-to-audit$' orders-to-events
	check_unlisted "$n: the queue audit is gone" "$n" queues '^audit$' orders
	check_listed "$n: the address audit stays" "$n" addresses audit
done
check_grep "log: apply 3 notice" "notice approve: applied $p3: every node APPLIED or SKIPPED" "$log"
check "plan 3 not superseded" test ! -e "$p3/superseded"

# audit rows and inventory
audit=$d/state/audit.jsonl
rows=$(grep -c '"event":"result"' "$audit")
check "at least two applies audited" test "$rows" -ge 2
check_grep "audit: intent row of apply 3" "\"event\":\"intent\".*\"plan_dir\":\"$p3\"" "$audit"
check_grep "audit: the removed divert's configuration" '"forwarding-address":"audit","name":"orders-to-audit"' "$audit"
inv=$d/state/shop-eu/inventory.json
c5=$(git -C "$d/origin.git" rev-parse main~2)
check_grep "inventory at commit 5 (step 10's apply)" "\"revision\": \"$c5\"" "$inv"
inv_has() { python3 -c 'import json,sys; sys.exit(0 if sys.argv[2] in json.load(open(sys.argv[1]))[sys.argv[3]] else 1)' "$inv" "$1" "$2"; }
# Absent from a list of an inventory that was read (an unreadable one fails).
inv_lacks() { python3 -c 'import json,sys; sys.exit(0 if sys.argv[2] not in json.load(open(sys.argv[1]))[sys.argv[3]] else 1)' "$inv" "$1" "$2"; }
check "inventory: queue audit gone" inv_lacks audit queues
check "inventory: address audit kept" inv_has audit addresses
check "inventory: divert orders-to-events kept" inv_has orders-to-events diverts
check "inventory: divert orders-to-audit gone" inv_lacks orders-to-audit diverts
check "inventory: billing still managed" inv_has billing queues

# drift after 'billing' was deleted on node1, reported only (drift.md as
# the demo showed it: step 10's apply creates billing again, and the drift
# check after it writes the report anew)
dj=$ob/drift/drift.json
check_grep "drift.md: billing row" '^    \| \| queue \| `billing` \| node1 \|' "$out"
check_grep "drift.md: the nodes disagree" '^    \| - queue `billing`: differs on node1, as applied on node2$' "$out"
check_eq "the last drift report: nothing missing (step 10's apply created billing again)" '[]' \
	"$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["missing"]))' "$dj")"
check_grep "log: drift warning line" "warning drift: cluster 'shop-eu': drift: 1 missing" "$log"
check_absent "no drift repair after auto-apply-creates went off" 'drift-repair' "$log" "warning drift: cluster 'shop-eu': drift: 1 missing"
# 6: the HA pair as one node: applied on the primary, the drift report
# after kill -9 of the primary names the backup, and finds no drift
p4=$(sed -n 's/^ *HA pair: *\([^ ]*\) (applied).*/\1/p' "$out")
check "preview 4 folder named" test -n "$p4" -a -d "$p4"
check_eq "preview 4 is of the fourth commit" "$(git -C "$d/origin.git" rev-parse main~3)" "$(sed -n 's/^commit //p' "$p4/commit.txt")"
check_grep "plan 4: the backup PASSIVE" '^\| ha1 \| pair1-backup \| PASSIVE \| Shared Store Backup \|' "$p4/plan.md"
check_grep "plan 4: planned against the primary" '^\| ha1 \| pair1-primary \| LIVE \(planned against\) \|' "$p4/plan.md"
check_grep "result 4: done by the primary" '"member": "pair1-primary"' "$p4/result.json"
hd=$d/state/outbox/shop-ha/drift
check_grep "HA drift: the backup is the live member" '"live_member": "pair1-backup"' "$hd/drift.json"
check_eq "HA drift: nothing missing or changed" "0 0" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(len(j["missing"]), len(j["changed"]))' "$hd/drift.json")"
check_grep "HA drift.md: names it" '^- `ha1`: live member \*\*pair1-backup\*\* \(checked\); pair1-primary UNREACHABLE' "$hd/drift.md"
# 8: the webhook receiver got the steps' events, every one signed
nj=$d/notifications.jsonl
for ev in preview.posted preview.refused apply.succeeded drift.detected test; do
	check_grep "notifications: $ev received" "\"event\": \"$ev\"" "$nj"
done
check_eq "notifications: every signature and stamp verified" 0 \
	"$(grep -c '"sig_ok": false\|"stamp_ok": false' "$nj")"
check_grep "demo lists them" '^    \| drift.detected +signed ' "$out"
# 9: the brokers imported as the cluster legacy; its first plan adopts
imp=$d/import/legacy
check_grep "import: the legacy divert declared with its filter" 'filter: "amount > 100"' "$imp/diverts.yaml"
check_eq "import: legacy.scratch and billing left out, on one node only" \
	'["billing NOT_ON_EVERY_NODE", "legacy.scratch NOT_ON_EVERY_NODE"]' \
	"$(python3 -c 'import json,sys; print(json.dumps(sorted(x["name"]+" "+x["reason"] for x in json.load(open(sys.argv[1]))["left_out"] if x["reason"] not in ("BROKER_OWN","CAPTURE","AUTO_CREATED","TEMPORARY") and x["name"] in ("billing", "legacy.scratch"))))' "$imp/import-report.json")"
check_exit "import: the folder validates" 0 "$AG_BIN" validate "$imp"
check_eq "import: its first plan is NO_CHANGE and adopts" '["NO_CHANGE", true]' \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps([j["outcome"], sum(j.get("adopts", {}).values()) > 0]))' "$d/import/plan/plan.json")"
check_grep "demo shows the adoption" '\*\*Adopts [0-9]* objects\*\*' "$out"
# 10: guard rails. Suspended: hold.txt and the log say why; commit 5,
# approved, waited (waiting.txt) until resume, then was applied; commit 6
# removed a queue settings.protect covers and was refused as a whole.
gr='^ *guard rails: *\([^ ]*\) (waited, applied), \([^ ]*\) (protected: refused), \([^ ]*\) (delete-if-empty: refused)$'
p5=$(sed -n "s/$gr/\\1/p" "$out")
p6=$(sed -n "s/$gr/\\2/p" "$out")
p7=$(sed -n "s/$gr/\\3/p" "$out")
check "preview 5 folder named" test -n "$p5" -a -d "$p5"
check "preview 6 folder named" test -n "$p6" -a -d "$p6"
check_eq "preview 5 is of the fifth commit" "$c5" "$(sed -n 's/^commit //p' "$p5/commit.txt")"
check "preview 7 folder named" test -n "$p7" -a -d "$p7"
check_eq "preview 6 is of the sixth commit" "$(git -C "$d/origin.git" rev-parse main~1)" "$(sed -n 's/^commit //p' "$p6/commit.txt")"
check_eq "preview 7 is of the head" "$(git -C "$d/origin.git" rev-parse main)" "$(sed -n 's/^commit //p' "$p7/commit.txt")"
why="cluster 'shop-eu' is suspended \\(by demo operator, uid [0-9]+ [^,]*, at [0-9TZ:-]+\\): demo: change freeze; nothing is applied until \`artemis-gitops resume shop-eu\`"
check_grep "demo shows suspend's answer" "^    \\| suspended: $why" "$out"
check_grep "demo shows hold.txt" "^    \\| $why" "$out"
check_grep "log: the hold, once" "notice hold: cluster 'shop-eu': approved plans, drift repair and the capture pass wait: $why" "$log"
check_grep "log: approved plan 5 waits" "notice approve: approved $p5 waits: $why" "$log"
check_grep "log: the hold lifted" "notice hold: cluster 'shop-eu': nothing holds it any more" "$log"
check "hold.txt gone after resume" test ! -e "$ob/hold.txt"
check "waiting.txt gone after the apply" test ! -e "$p5/waiting.txt"
check "no suspended.json after resume" test ! -e "$d/state/shop-eu/suspended.json"
check_grep "demo shows resume's answer" '^    \| resumed: cluster .shop-eu. \(suspended by demo operator at ' "$out"
check_applied "result 5: applied after resume (result.json)" "$p5"
# the apply came after the waiting line, not before
wl=$(grep -n "approved $p5 waits" "$log" | head -n 1 | cut -d: -f1)
al=$(grep -n "notice approve: applied $p5" "$log" | head -n 1 | cut -d: -f1)
check "log: plan 5 applied after it waited" test -n "$wl" -a -n "$al" -a "${al:-0}" -gt "${wl:-0}"
for n in $nodes; do
	check_listed "$n: the queue returns, created after resume" "$n" queues returns
	check_listed "$n: the protected queue orders.priority stays" "$n" queues orders.priority
	check_listed "$n: billing (created again on node1 by that apply)" "$n" queues billing
done
check_grep "plan 6 refused" '"outcome": "REFUSED"' "$p6/plan.json"
check_eq "plan 6: refused PROTECTED, orders.priority by orders*" '["PROTECTED", ["orders.priority", "orders*"]]' \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps([j.get("refusal"), [[x.get("name"), x.get("pattern")] for x in j["policy"]["protected"]][0]]))' "$p6/plan.json" 2>&1)"
check "plan 6 was not approved" test ! -e "$p6/approval.json"
check "plan 6 was not applied" test ! -e "$p6/result.json"
check_grep "demo shows the refusal" "^    \\| \\*\\*Refused \\(PROTECTED\\):\\*\\* queue 'orders.priority' is protected by settings.protect pattern 'orders\\*'" "$out"
n1=$(echo "$nodes" | head -n 1)
n2=$(echo "$nodes" | sed -n 2p)
check_eq "plan 7: refused NODE_REFUSED" '"REFUSED NODE_REFUSED"' "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps(j["outcome"] + " " + str(j.get("refusal"))))' "$p7/plan.json")"
check_eq "plan 7: $n1 refused HAS_MESSAGES (3 messages), $n2 would delete" \
	"[[\"REFUSED\", \"HAS_MESSAGES\", true], [\"WOULD_APPLY\", null, false]]" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps([[n["outcome"], n.get("refusal"), "holds 3 messages on" in (n.get("message") or "")] for a in j["actions"] if a["kind"] == "delete-queue" and a["name"] == "returns" for n in a["nodes"]]))' "$p7/plan.json" 2>&1)"
check_grep "demo shows $n1's refusal with the count" "^    \\| - \\*\\*$n1\\*\\*: REFUSED \\(HAS_MESSAGES\\) — queue 'returns' holds 3 messages on $n1; delete-if-empty is set" "$out"
check "plan 7 was not applied" test ! -e "$p7/result.json"
check_eq "$n1: the 3 messages stay in returns (Jolokia)" 3 \
	"$(broker_jolokia "$n1" "{\"type\":\"read\",\"mbean\":\"org.apache.activemq.artemis:broker=\\\"$n1\\\",component=addresses,address=\\\"returns\\\",subcomponent=queues,routing-type=\\\"anycast\\\",queue=\\\"returns\\\"\",\"attribute\":\"MessageCount\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["value"])' 2>&1)"
# 11: beyond one machine: agents A and B on a real etcd
fd=$d/fleet
check_eq "step 11: the branch fleet holds its two commits" 2 "$(git -C "$d/origin.git" rev-list --count fleet)"
c8=$(git -C "$d/origin.git" rev-parse fleet~1)
c9=$(git -C "$d/origin.git" rev-parse fleet)
p9=$(sed -n 's/^ *applied: *\([^ ]*\) (by agent-[ab], epoch [0-9]*)$/\1/p' "$out")
L=$(sed -n 's/^ *applied: *[^ ]* (by agent-\([ab]\), epoch [0-9]*)$/\1/p' "$out")
E=$(sed -n 's/^ *applied: *[^ ]* (by agent-[ab], epoch \([0-9]*\))$/\1/p' "$out")
p9b=$(sed -n 's/^ *planned again: *\([^ ]*\) (by agent-[ab] after the takeover, [0-9.]* s)$/\1/p' "$out")
S=$(sed -n 's/^ *planned again: *[^ ]* (by agent-\([ab]\) after the takeover, [0-9.]* s)$/\1/p' "$out")
took=$(sed -n 's/^ *planned again: *[^ ]* (by agent-[ab] after the takeover, \([0-9.]*\) s)$/\1/p' "$out")
eps=$(sed -n 's/^ *etcd: *[^ ]* (3 members, \([^ ]*\))$/\1/p' "$out")
check "step 11: the leader's applied preview named" test -n "$p9" -a -d "$p9"
check "step 11: the successor's preview named" test -n "$p9b" -a -d "$p9b"
check "step 11: leader and successor are the two agents" test -n "$L" -a -n "$S" -a "$L" != "$S"
check "step 11: the epoch is a revision ($E)" test "${E:-0}" -gt 0
check_eq "step 11: the leader's preview is of the branch's head" "$c9" "$(sed -n 's/^commit //p' "$p9/commit.txt")"
check_eq "step 11: ... in agent-$L's outbox" "$fd/$L/state/outbox/shop-fleet" "$(dirname "$p9")"
llog=$fd/$L/agent.log
slog=$fd/$S/agent.log
check_grep "step 11: agent-$L leads (its log, the epoch)" "notice coord: agent 'agent-$L' leads every cluster \\(epoch $E\\)" "$llog"
check_grep "step 11: the demo shows the leader key" "^    \\| agent-$L\$" "$out"
check_grep "step 11: agent-$S validated the first commit and stood by" "info cycle: cluster 'shop-fleet': commit ${c8:0:12} validated; standing by" "$slog"
check_grep "step 11: ... and the second, owned by agent-$L" "info cycle: cluster 'shop-fleet': commit ${c9:0:12} validated; standing by, owned by agent 'agent-$L'" "$slog"
# agent-$S's log before its takeover: not one preview posted
check_eq "step 11: agent-$S posted no preview while standing by" "" \
	"$(awk '/cluster .shop-fleet.: taken over/ { exit } /preview \// { print }' "$slog")"
check_grep "step 11: plan of c9: creates the two queues" '^# shop-fleet: WOULD_APPLY — create 4$' "$p9/plan.md"
check_grep "step 11: approved by the demo operator" '"approved_by": "demo operator"' "$p9/approval.json"
check_applied "step 11: applied by agent-$L on every node" "$p9"
for n in $nodes; do
	check_listed "$n: fleet.orders (step 11)" "$n" queues fleet.orders
	check_listed "$n: fleet.invoices (step 11)" "$n" queues fleet.invoices
done
check_eq "step 11: agent-$L's audit rows: intent and result, under epoch $E" "intent:$E result:$E" \
	"$(python3 -c 'import json,sys; print(" ".join("%s:%s" % (r["event"], r.get("epoch")) for r in map(json.loads, open(sys.argv[1]))))' "$fd/$L/state/audit.jsonl" 2>&1)"
check_grep "step 11: the successor took over under a new epoch, its state read back" \
	"notice ha: cluster 'shop-fleet': taken over \\(epoch [0-9]+\\): its state read back from etcd \\(2 audit row\\(s\\)\\)" "$slog"
M=$(sed -n "s/.*cluster 'shop-fleet': taken over (epoch \([0-9]*\)).*/\1/p" "$slog" | head -n 1)
check "step 11: the new epoch ($M) is after the old ($E)" test "${M:-0}" -gt "${E:-0}"
check "step 11: the takeover took at most TTL 5 s + poll 1 s + 2 s ($took s)" \
	python3 -c "import sys; sys.exit(0 if 0 < float(sys.argv[1]) <= 8 else 1)" "${took:-0}"
check_eq "step 11: the successor's audit.jsonl holds agent-$L's rows (read back)" "intent:$E result:$E" \
	"$(python3 -c 'import json,sys; print(" ".join("%s:%s" % (r["event"], r.get("epoch")) for r in map(json.loads, open(sys.argv[1]))))' "$fd/$S/state/audit.jsonl" 2>&1)"
check_eq "step 11: the successor's preview is of c9" "$c9" "$(sed -n 's/^commit //p' "$p9b/commit.txt")"
check_grep "step 11: ... NO_CHANGE" '"outcome": "NO_CHANGE"' "$p9b/plan.json"
check_grep "step 11: ... planned from the inventory read back" "base: inventory at $c9\$" "$p9b/plan.md"
check "step 11: ... not approved, not applied" test ! -e "$p9b/approval.json" -a ! -e "$p9b/result.json"
check_grep "step 11: the demo shows the successor's preview line" \
	"^    \\| agent-$S: [0-9:]+ notice cycle: cluster 'shop-fleet': preview $p9b: NO_CHANGE, 0 action\\(s\\)\$" "$out"
for k in leader "members/agent-$S" state/shop-fleet/inventory.json "audit/shop-fleet/0*$E/[0-9-]+"; do
	check_grep "step 11: etcd holds /demo-fleet/$k" "^    \\| /demo-fleet/$k\$" "$out"
done
check_nogrep "step 11: agent-$L's member key went with its lease" "^    \\| /demo-fleet/members/agent-$L\$" "$out"
check_grep "step 11: agent-$S stopped by SIGTERM" "notice loop: signal 15: stopping" "$slog"
check_nogrep "step 11: agent-$L was killed, not stopped" "signal 15" "$llog"
check "step 11: etcd's run folder removed" test ! -e "$d/etcd"
for e in ${eps//,/ }; do
	check_fails "step 11: etcd stopped: $e does not answer" curl -sS -m 2 "$e/version"
done
for x in a b; do
	check_absent "step 11: agent-$x: no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$fd/$x/agent.log" "coordination: agent 'agent-$x' on 3 etcd endpoint"
done
check_grep "log: SIGHUP reload" "notice loop: configuration reloaded" "$log"
check_grep "log: SIGTERM" "notice loop: signal 15: stopping" "$log"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$log" 'notice loop: signal 15: stopping'
check_grep "log lines are HH:MM:SS level module: message" '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] (err|warning|notice|info) [a-z]+: ' "$log"
done_testing
