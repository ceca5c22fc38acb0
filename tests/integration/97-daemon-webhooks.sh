#!/usr/bin/env bash
# Webhook notifications (issue 19, docs/notifications.md) from `run`, on the
# suite's real brokers (node2 behind a faultproxy, for an outage), to a
# receiver of the test's own (tests/tools/webhook-receiver.py) that checks
# every signature (HMAC-SHA256 over the exact body, with a secret from the
# credentials folder), the delivery id and timestamp against the body, and
# records what it saw. Two targets: `hook` (json, every event) and `chat`
# (slack, apply.* and drift.*).
#
# The daemon goes through a commit (preview.posted), its approval
# (apply.succeeded), an invalid commit (preview.refused, with the
# diagnostic), a queue delete whose approval is refused (approval.refused,
# a tampered declaration) and then approved (apply.succeeded), a drift of a
# managed queue (drift.detected once, however many checks see it;
# drift.cleared; an unmanaged queue never told), an
# outage of node2 (node.unreachable, node.reachable) and a force-push
# (history.rewritten): the receiver sees each expected event exactly once,
# in order, every signature valid. Then the receiver fails: 500s (every
# delivery tried max-attempts times, then dropped, counted in /metrics),
# hangs (the watchdog keeps its pings, a commit is previewed and applied
# meanwhile), and the daemon is stopped with deliveries pending: its next
# start delivers the spool. Last the receiver is gone (connection refused):
# dropped at the bound, counted; the log names targets, never the secret.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t97-$$
daemon_setup t97
STATE=$T/state
RX_PID=
cleanup97() {
	[ -z "$RX_PID" ] || kill "$RX_PID" 2>/dev/null
	[ -z "${NOTIFY_PID:-}" ] || kill "$NOTIFY_PID" 2>/dev/null
	janitor "$u."
	daemon_cleanup
	_brokers_cleanup
}
trap cleanup97 EXIT
n1=${NODES[0]}
n2=${NODES[1]}
HPORT=$((${ARTEMIS_PORT_BASE:-100} + 597))
SECRET=s3cr3t-$RANDOM$RANDOM-hmac-key

# the credentials folder: the brokers' files and the webhook secret
mkdir -m 700 "$T/creds"
for n in "${NODES[@]}"; do
	install -m 600 "${CRED[$n]}" "$T/creds/"
done
(umask 077 && echo "$SECRET" >"$T/creds/hook.secret")

rx_start() {
	rm -f "$T/rx.port"
	RECEIVER_PORT=${RPORT:-0} python3 tests/tools/webhook-receiver.py \
		"$T/creds/hook.secret" "$T/rx.port" "$T/rx.jsonl" "$T/mode" &
	RX_PID=$!
	wait_for 10 test -s "$T/rx.port"
	RPORT=$(cat "$T/rx.port")
}
rx_start
echo ok >"$T/mode"
proxy_start pass "$n2"
PPORT=$(cat "$TMP/proxy.port")
daemon_cluster2 t97 "$PROXY_URL"
yaml=$T/work/clusters/t97/cluster.yaml
head_yaml=$(cat "$yaml")
sed -i "s|^credentials:.*|credentials: $T/creds|" "$T/agent.yaml"
cat >>"$T/agent.yaml" <<EOC
http:
  listen: 127.0.0.1:$HPORT
  anonymous-read: true
notifications:
  targets:
    - name: hook
      url: http://127.0.0.1:$RPORT/hook
      secret-file: hook.secret
    - name: chat
      url: http://127.0.0.1:$RPORT/chat
      secret-file: hook.secret
      format: slack
      events: [apply.*, drift.*]
  max-attempts: 3
  retry-initial: 1s
  retry-max: 1s
  timeout: 2s
EOC

# rx PATH: the events PATH received with a 2xx, in order, one a line
rx() {
	python3 - "$T/rx.jsonl" "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("path") == sys.argv[2] and r.get("mode") == "ok" \
            and r.get("event") != "test":
        print(r.get("event"))
PY
}
rx_count() { rx "$1" | grep -c . || true; }
# rx_has PATH N: PATH has N events
rx_has() { [ "$(rx_count "$1")" -ge "$2" ]; }
# every delivery: signature and stamp valid, no replay of an answered one
rx_valid() {
	python3 - "$T/rx.jsonl" <<'PY'
import json, sys
bad = [l for l in open(sys.argv[1])
       if not (json.loads(l)["sig_ok"] and json.loads(l)["stamp_ok"]
               and not json.loads(l)["replay"])]
print("%d bad" % len(bad))
for l in bad[:5]:
    print(l.strip())
PY
}
addresses() {
	printf '%s\naddresses:\n' "$head_yaml"
	for a in "$@"; do
		printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$u.$a" "$u.$a"
	done
}
approve_preview() {
	"$AG_BIN" approve "$1" --confirm "$(rj "$1/plan.json" 'j["confirmation"]')" \
		--by tester --state "$STATE" >/dev/null
}
applied() { local d; d=$(preview_of "$1"); [ -n "$d" ] && [ -f "$d/result.json" ]; }
refused() { local d; d=$(preview_of "$1"); [ -n "$d" ] && [ -f "$d/approval-refused.txt" ]; }
metric() {
	curl -s "http://127.0.0.1:$HPORT/metrics" |
		sed -n "s/^$1{channel=\"$2\"} //p"
}
# drift.json is replaced by a rename at each check: a new inode
drift_checked() { [ "$(stat -c %i "$STATE/outbox/t97/drift/drift.json" 2>/dev/null)" != "$1" ]; }
drift_now() {
	local before
	before=$(stat -c %i "$STATE/outbox/t97/drift/drift.json" 2>/dev/null)
	kill -USR1 "$PID"
	wait_for 30 drift_checked "$before"
}

# notify-test: one signed test event to each target, the spool untouched
check_exit "notify-test: every target accepts it" 0 "$AG_BIN" notify-test --config "$T/agent.yaml"
check_grep "the receiver got hook's test event, signed" '"event": "test".*"path": "/hook".*"sig_ok": true, "stamp_ok": true' "$T/rx.jsonl"
check_grep "  and chat's" '"event": "test".*"path": "/chat".*"sig_ok": true, "stamp_ok": true' "$T/rx.jsonl"
check_exit "notify-test --target nobody: exit 1" 1 "$AG_BIN" notify-test --config "$T/agent.yaml" --target nobody

# --- c1: two queues, previewed, approved, applied --------------------------
addresses a b >"$yaml"
c1=$(daemon_commit "t97: $u.a and $u.b")
sock=$T/notify.sock
notify_recorder "$sock" "$T/notify.log" 1
NOTIFY_SOCKET=$sock WATCHDOG_USEC=2000000 "$AG_BIN" run --config "$T/agent.yaml" 2>>"$T/agent.log" &
PID=$!
check "c1 previewed" wait_for 60 has_preview "$c1"
p1=$(preview_of "$c1")
check "hook: preview.posted" wait_for 20 rx_has /hook 1
check "c1 approved" approve_preview "$p1"
check "c1 applied" wait_for 60 applied "$c1"
check "hook: apply.succeeded" wait_for 20 rx_has /hook 2

# --- c2: invalid (a divert into an address nothing consumes) ---------------
{
	addresses a b
	printf '  - name: %s\n    routing: [anycast]\n' "$u.nowhere"
	printf 'diverts:\n  - {name: %s, address: %s, forwarding-address: %s}\n' \
		"$u.d" "$u.a" "$u.nowhere"
} >"$yaml"
c2=$(daemon_commit "t97: an invalid divert")
check "c2 previewed (refused)" wait_for 60 has_preview "$c2"
check "hook: preview.refused" wait_for 20 rx_has /hook 3

# --- c3: delete $u.b; the approval is refused (tampered declaration) -------
addresses a >"$yaml"
c3=$(daemon_commit "t97: $u.b removed")
check "c3 previewed" wait_for 60 has_preview "$c3"
p3=$(preview_of "$c3")
check "c3 keeps its declaration" wait_for 10 test -s "$p3/declaration/cluster.yaml"
printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' \
	"$u.x" "$u.x" >>"$p3/declaration/cluster.yaml"
check "c3 approved" approve_preview "$p3"
check "c3: the daemon refuses the approval" wait_for 60 refused "$c3"
check "hook: approval.refused" wait_for 20 rx_has /hook 5
# c3b: the same change again, untouched: approved, applied (the delete)
echo "# again" >>"$yaml"
c3b=$(daemon_commit "t97: $u.b removed, again")
check "c3b previewed" wait_for 60 has_preview "$c3b"
p3b=$(preview_of "$c3b")
check_grep "c3b deletes $u.b" "delete-queue \`$u.b\`" "$p3b/plan.md"
check "c3b approved" approve_preview "$p3b"
check "c3b applied" wait_for 60 applied "$c3b"
check_applied "c3b: every node APPLIED" "$p3b"
check "hook: apply.succeeded (the delete)" wait_for 20 rx_has /hook 7

# --- drift: told once when found, once when gone ---------------------------
# (of the agent's own objects: what earlier tests left on the suite's
# brokers is unmanaged, in drift.md, and never told)
check_eq "an unmanaged queue on $n1, never told" OK "$(jexec "$n1" create-address "$u.x" anycast)"
check "drift check: unmanaged only" drift_now
check_eq "$u.a destroyed on $n1 behind the agent's back" OK \
	"$(jexec "$n1" destroy-queue "$u.a" remove-consumers)"
check "drift check" drift_now
check "hook: drift.detected" wait_for 20 rx_has /hook 8
check "drift check again, the same drift" drift_now
check_eq "$u.a made again on $n1, as declared" OK "$(jexec "$n1" create-queue "$u.a" "$u.a" anycast)"
check "drift check after the repair" drift_now
check "hook: drift.cleared" wait_for 20 rx_has /hook 9

# --- node2 goes away and comes back ----------------------------------------
proxy_stop
check "drift check with $n2 down" drift_now
check "hook: node.unreachable" wait_for 20 rx_has /hook 10
FAULTPROXY_PORT=$PPORT proxy_start pass "$n2"
check "drift check with $n2 back" drift_now
check "hook: node.reachable" wait_for 20 rx_has /hook 11

# --- a force-push ----------------------------------------------------------
git -C "$T/work" -c user.name=Tester -c user.email=t@example.com \
	commit -q --amend -m "t97: rewritten"
git -C "$T/work" push -q -f origin main
check "hook: history.rewritten" wait_for 30 rx_has /hook 12

check_eq "hook: each event once, in order" \
	"preview.posted apply.succeeded preview.refused preview.posted approval.refused preview.posted apply.succeeded drift.detected drift.cleared node.unreachable node.reachable history.rewritten" \
	"$(rx /hook | tr '\n' ' ' | sed 's/ $//')"
check_eq "chat: its events once, in order" \
	"apply.succeeded apply.succeeded drift.detected drift.cleared" \
	"$(rx /chat | tr '\n' ' ' | sed 's/ $//')"
check_eq "every signature and stamp valid, no replay" "0 bad" "$(rx_valid | head -n 1)"
check_grep "preview.refused carries the diagnostic" 'Nothing consumes at .*"event": "preview.refused"' "$T/rx.jsonl"
check_grep "apply.succeeded names the approver" '"approver": "tester"' "$T/rx.jsonl"
check_eq "sent: hook" 12 "$(metric artemis_gitops_notifications_sent_total hook)"
check_eq "sent: chat" 4 "$(metric artemis_gitops_notifications_sent_total chat)"

# --- the receiver fails: 500 --------------------------------------------
echo fail >"$T/mode"
check_eq "$u.a destroyed on $n1 again" OK "$(jexec "$n1" destroy-queue "$u.a" remove-consumers)"
check "drift check (receiver failing)" drift_now
dropped() { [ "$(metric artemis_gitops_notifications_dropped_total "$1")" = "$2" ]; }
check "hook: dropped after 3 attempts (metrics)" wait_for 30 dropped hook 1
check "chat: dropped after 3 attempts (metrics)" wait_for 30 dropped chat 1
attempts() {
	python3 - "$T/rx.jsonl" "$1" <<'PY'
import collections, json, sys
c = collections.Counter(json.loads(l)["delivery"] for l in open(sys.argv[1])
                        if json.loads(l)["mode"] == "fail"
                        and json.loads(l)["path"] == sys.argv[2])
print(" ".join(str(v) for v in c.values()))
PY
}
sleep 2 # the bound: no fourth attempt comes
check_eq "hook: the delivery tried exactly 3 times" 3 "$(attempts /hook)"
check_eq "chat: the delivery tried exactly 3 times" 3 "$(attempts /chat)"
check_eq "failed attempts counted" 3 "$(metric artemis_gitops_notifications_failed_attempts_total hook)"
check_grep "the drop is logged, naming the target" "warning notify: target 'hook': delivery [0-9a-f-]{36} dropped after 3 attempt\(s\): HTTP 500" "$T/agent.log"
check_eq "  once per delivery" 1 "$(grep -c "target 'hook': delivery .* dropped" "$T/agent.log")"

# --- the receiver hangs: the loop does not ---------------------------------
echo hang >"$T/mode"
addresses a c >"$yaml"
c5=$(daemon_commit "t97: $u.c")
check "c5 previewed while the receiver hangs" wait_for 60 has_preview "$c5"
p5=$(preview_of "$c5")
check "c5 approved" approve_preview "$p5"
check "c5 applied while the receiver hangs" wait_for 60 applied "$c5"
check_applied "c5: every node APPLIED" "$p5"
pending() { ls "$STATE/notifications/spool/$1" | grep -c '\.json$'; }
check "deliveries wait in the spool (hook)" test "$(pending hook)" -ge 1
check "deliveries wait in the spool (chat)" test "$(pending chat)" -ge 1
# (measured while it runs: the gap to now counts too)
gap=$(watchdog_gaps "$T/notify.log")
daemon_stop
check_eq "stopped at once with deliveries in flight: exit 0" 0 "$RC"
kill "$NOTIFY_PID" 2>/dev/null
NOTIFY_PID=
check "WATCHDOG=1 at most 1.5 s apart all along (2 s watchdog; pings, max gap: $gap)" \
	python3 -c "import sys; n, g = sys.argv[1].split(); sys.exit(0 if int(n) > 10 and float(g) <= 1.5 else 1)" "$gap"
spooled_apply=$(grep -l '"apply.succeeded"' "$STATE/notifications/spool/chat/"*.json | head -n 1)
check "the spool holds c5's apply.succeeded for chat" test -n "$spooled_apply"

# --- a restart delivers the spool -------------------------------------------
kill "$RX_PID"
wait "$RX_PID" 2>/dev/null
echo ok >"$T/mode"
rx_start
before_hook=$(rx_count /hook)
before_chat=$(rx_count /chat)
daemon_start
check "hook: the spooled deliveries delivered" wait_for 30 sh -c "test \$(ls '$STATE/notifications/spool/hook' | grep -c json) -eq 0"
check "chat: the spool is empty" wait_for 30 sh -c "test \$(ls '$STATE/notifications/spool/chat' | grep -c json) -eq 0"
# then the first drift check of the new run: c5's apply made $u.a again,
# and the drift told before the restart (memory.json) is cleared
wait_for 20 sh -c "grep -q '\"drift.cleared\".*\"path\": \"/chat\"' '$T/rx.jsonl'"
check_eq "hook: after the restart, what was pending, then the drift cleared" \
	"apply.succeeded drift.cleared" "$(rx /hook | tail -n +"$((before_hook + 1))" | grep -v preview.posted | tr '\n' ' ' | sed 's/ $//')"
check_eq "chat: after the restart, what was pending, then the drift cleared" \
	"apply.succeeded drift.cleared" "$(rx /chat | tail -n +"$((before_chat + 1))" | tr '\n' ' ' | sed 's/ $//')"
check "no drift or node event told twice after the restart (memory.json)" \
	test -s "$STATE/notifications/memory.json"

# --- the receiver is gone: refused, dropped at the bound -------------------
kill "$RX_PID"
wait "$RX_PID" 2>/dev/null
RX_PID=
check_eq "$u.a destroyed on $n1 once more" OK "$(jexec "$n1" destroy-queue "$u.a" remove-consumers)"
drift_now
check "hook: dropped while nobody listens" wait_for 30 dropped hook 1
check_grep "refused connections are the reason" "target 'hook': delivery [0-9a-f-]{36} (failed|dropped after 3 attempt\(s\)): HTTP_REFUSED" "$T/agent.log"
daemon_stop
check_eq "exit 0" 0 "$RC"
"$AG_BIN" notify-test --config "$T/agent.yaml" --target hook >"$T/nt.out" 2>&1
check_eq "notify-test with the receiver gone: exit 1" 1 "$?"
check_grep "  naming the target and why" "^hook: not sent: HTTP_REFUSED" "$T/nt.out"
check_absent "the secret is never logged" "$SECRET" "$T/agent.log" 'notice loop: signal 15: stopping'
check_eq "the secret is in no file of the state folder" 0 "$(grep -rlF -- "$SECRET" "$STATE" | wc -l)"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'notice loop: signal 15: stopping'
done_testing
