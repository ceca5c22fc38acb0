#!/usr/bin/env bash
# Sync windows and suspension (issue 20, items 1 and 2), on the suite's
# brokers with the daemon running. The window's clock is the documented
# test clock ($ARTEMIS_GITOPS_WINDOW_CLOCK_FILE, docs/policy.md): an allow
# window at 22:00 Europe/Berlin, the clock a minute before it. An approved
# plan waits (waiting.txt, hold.txt, the log, the page and the API say
# until when) and nothing reaches a broker; the clock moves into the window
# and the daemon applies it. A suspended cluster's approved plan waits the
# same way, with the reason and who, and is applied after `resume`. Then
# `apply` on the command line: refused outside the window (exit 3) and
# while suspended (exit 4), applied with --override-window and the audit
# row naming who overrode it; and the daemon's override, an approval made
# with `approve --override-window`, applied outside the window.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t82w$$
daemon_setup t82w
STATE=$T/state
trap 'janitor "$u"; daemon_cleanup; _brokers_cleanup' EXIT
n1=${NODES[0]}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >>"$T/agent.yaml" <<EOC
http:
  listen: 127.0.0.1:$port
  anonymous-read: true
sync-windows:
  - kind: allow
    schedule: 0 22 * * *
    duration: 1h
    time-zone: Europe/Berlin
EOC
export ARTEMIS_GITOPS_WINDOW_CLOCK_FILE=$T/clock
clock() { echo "$1" >"$T/clock"; }
addresses() {
	printf 'version: 1\naddresses:\n' >"$T/work/clusters/t82w/addresses.yaml"
	for q in "$@"; do
		echo "  - {name: $u.$q, routing: [anycast], queues: [{name: $u.$q}]}" >>"$T/work/clusters/t82w/addresses.yaml"
	done
}
approve() { "$AG_BIN" approve "$1" --confirm "$(confirm_of "$1")" --by "$2" --state "$STATE" "${@:3}" >/dev/null; }
poke() { kill -USR1 "$PID"; }
# check_has NAME TEXT FILE: FILE holds TEXT (a fixed string)
check_has() {
	if grep -qF -- "$2" "$3" 2>/dev/null; then ok "$1"; else
		not_ok "$1" "text not found: $2" "in $3:" "$(head -c 3000 "$3" 2>/dev/null)"
	fi
}

# 21:59 CET: one minute before the window opens
clock 2026-12-02T20:59:00Z
addresses a
c1=$(daemon_commit "t82w: queue a")
daemon_start
check "the daemon warns that the test clock is set" wait_for 20 grep -q "warning run: \$ARTEMIS_GITOPS_WINDOW_CLOCK_FILE is set" "$T/agent.log"
check "c1 previewed" wait_for 30 has_preview "$c1"
p1=$(preview_of "$c1")
check "approve c1" approve "$p1" alice
poke
want="waiting for sync window until 2026-12-02T21:00:00Z (2026-12-02 22:00 CET in Europe/Berlin): outside every allow window"
check "the approved plan waits: waiting.txt" wait_for 20 grep -qxF "$want" "$p1/waiting.txt"
check_eq "OUTBOX/<cluster>/hold.txt says until when" "$want" "$(cat "$STATE/outbox/t82w/hold.txt")"
check_has "the log says it once" "notice hold: cluster 't82w': approved plans, drift repair and the capture pass wait: waiting for sync window until 2026-12-02T21:00:00Z" "$T/agent.log"
check_has "and for the preview" "notice approve: approved $p1 waits: waiting for sync window until 2026-12-02T21:00:00Z" "$T/agent.log"
poke
sleep 1.5
check "still not applied after more cycles" test ! -e "$p1/result.json"
check_eq "logged once, not every cycle" 1 "$(grep -c "notice approve: approved $p1 waits" "$T/agent.log")"
check_eq "and never read as an apply" 0 "$(grep -c "info approve: applying $p1" "$T/agent.log")"
check "no refusal" test ! -e "$p1/approval-refused.txt"
check_unlisted "$n1 has no $u.a" "$n1" queues "^$u\\.a\$" "DLQ"
id1=$(basename "$p1")
check_eq "the API: the preview waits, and why" "approved|$want" \
	"$(curl -fsS "http://127.0.0.1:$port/api/v1/clusters/t82w/previews/$id1" | python3 -c 'import json,sys; j=json.load(sys.stdin); j=j.get("preview", j); print(j["state"] + "|" + j["waiting"].strip())')"
check "the page shows it" sh -c "curl -fsS 'http://127.0.0.1:$port/clusters/t82w/previews/$id1' | grep -q 'waiting for sync window until 2026-12-02T21:00:00Z'"
check "the status page shows the cluster held" sh -c "curl -fsS 'http://127.0.0.1:$port/' | grep -q 'Held: waiting for sync window'"

# 22:00:00 CET: the window opens, the plan is applied
clock 2026-12-02T21:00:00Z
poke
check "applied once the window opened" wait_for 30 test -f "$p1/result.json"
check_applied "on every node" "$p1"
for n in "${NODES[@]}"; do
	check_listed "$n has $u.a" "$n" queues "$u.a"
done
check "waiting.txt gone" test ! -e "$p1/waiting.txt"
check "hold.txt gone" test ! -e "$STATE/outbox/t82w/hold.txt"
check_grep "the log says nothing holds it" "notice hold: cluster 't82w': nothing holds it any more" "$T/agent.log"
check_eq "no override in the audit row" "None" \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read()).get("window_override"))')"

# suspended (inside the window): a new approved plan waits until resume
check_exit "suspend" 0 "$AG_BIN" suspend t82w --reason "incident 4711: broker disk" --by carol --config "$T/agent.yaml"
check_grep "suspended.json: reason, who" '"reason": "incident 4711: broker disk"' "$STATE/t82w/suspended.json"
rm -f "$STATE/outbox/t82w/drift/drift.json"
addresses a b
c2=$(daemon_commit "t82w: queue b")
poke
check "c2 previewed while suspended" wait_for 30 has_preview "$c2"
p2=$(preview_of "$c2")
check "approve c2" approve "$p2" alice
poke
check "the approved plan waits: the suspension said" wait_for 20 grep -q "^cluster 't82w' is suspended (by carol, uid 0 root, at .*): incident 4711: broker disk; nothing is applied until \`artemis-gitops resume t82w\`\$" "$p2/waiting.txt"
check_grep "hold.txt: the suspension" "incident 4711" "$STATE/outbox/t82w/hold.txt"
check_has "the log says it" "notice approve: approved $p2 waits: cluster 't82w' is suspended (by carol" "$T/agent.log"
poke
sleep 1.5
check "not applied while suspended" test ! -e "$p2/result.json"
check "a drift report while suspended" wait_for 10 test -f "$STATE/outbox/t82w/drift/drift.json"
check_has "the capture pass waits while suspended" "info hold: cluster 't82w': the capture pass waits: cluster 't82w' is suspended (by carol" "$T/agent.log"
check_unlisted "$n1 has no $u.b" "$n1" queues "^$u\\.b\$" "DLQ"
check_exit "resume" 0 "$AG_BIN" resume t82w --state "$STATE"
check "suspended.json removed" test ! -e "$STATE/t82w/suspended.json"
poke
check "applied after resume" wait_for 30 test -f "$p2/result.json"
check_applied "on every node" "$p2"
check_listed "$n1 has $u.b" "$n1" queues "$u.b"

# the command line: a third plan, approved, applied by `apply`
addresses a b c
c3=$(daemon_commit "t82w: queue c")
poke
check "c3 previewed" wait_for 30 has_preview "$c3"
p3=$(preview_of "$c3")
daemon_stop
check_eq "the daemon stopped cleanly" 0 "$RC"
check "approve c3" approve "$p3" alice
clock 2026-12-02T12:00:00Z
ap3() { "$AG_BIN" apply "$p3" --config "$T/agent.yaml" "$@" >"$T/ap3.out" 2>"$T/ap3.err"; }
check_exit "apply outside the window: exit 3" 3 ap3
check_has "it says until when and how to override" "artemis-gitops apply: waiting for sync window until 2026-12-02T21:00:00Z (2026-12-02 22:00 CET in Europe/Berlin): outside every allow window; nothing was applied (\`apply --override-window\`" "$T/ap3.err"
check_exit "suspend again" 0 "$AG_BIN" suspend t82w --reason "maintenance" --state "$STATE"
check_exit "apply while suspended: exit 4, even with --override-window" 4 ap3 --override-window
check_grep "it says who suspended and why" "^artemis-gitops apply: cluster 't82w' is suspended \(by root, uid 0 root, at [0-9TZ:-]+\): maintenance; nothing is applied until" "$T/ap3.err"
check_exit "resume" 0 "$AG_BIN" resume t82w --config "$T/agent.yaml"
check_unlisted "$n1 has no $u.c" "$n1" queues "^$u\\.c\$" "DLQ"
check_exit "apply --override-window: exit 0" 0 env -u SUDO_USER USER=dave "$AG_BIN" apply "$p3" --config "$T/agent.yaml" --override-window
check_applied "on every node" "$p3"
check_listed "$n1 has $u.c" "$n1" queues "$u.c"
check_eq "the result row: the approver and the override, by whom, why" \
	'["alice", {"by": "dave", "uid": 0, "window": "waiting for sync window until 2026-12-02T21:00:00Z (2026-12-02 22:00 CET in Europe/Berlin): outside every allow window"}]' \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); print(json.dumps([j["approver"], j["window_override"]], sort_keys=True))')"
audit_rows intent | tail -n 1 >"$T/intent.json"
check_grep "the intent row records it too" '"window_override": {"by": "dave"' "$T/intent.json"

# the daemon's override: approve --override-window, applied by `run --once`
# outside the window
addresses a b c d
c4=$(daemon_commit "t82w: queue d")
"$AG_BIN" run --config "$T/agent.yaml" --once 2>"$T/once1.log"
p4=$(preview_of "$c4")
check "c4 previewed" test -n "$p4"
check "approve --override-window" approve "$p4" erin --override-window
check_eq "approval.json records the override" true "$(rj "$p4/approval.json" 'j["override_window"]')"
RC=0
"$AG_BIN" run --config "$T/agent.yaml" --once 2>"$T/once2.log" || RC=$?
check_eq "run --once: exit 0" 0 "$RC"
check_applied "applied outside the window" "$p4"
check_listed "$n1 has $u.d" "$n1" queues "$u.d"
check_eq "the result row: the override by the approver" '["erin", "erin"]' \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); print(json.dumps([j["approver"], j["window_override"]["by"]]))')"
cat "$T"/*.log >"$T/all.log"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/all.log" 'loop: --once: exit'
done_testing
