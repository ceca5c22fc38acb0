#!/usr/bin/env bash
# Who may approve (issue 14): the daemon acts only on approvals it can
# attribute. With real files and a real second user (nobody, uid 65534;
# the tests run as root): approve records its real uid; an approval.json
# that another user owns than the uid it records (chown) is refused with
# approval-refused.txt naming both, and nothing changes on the brokers; an
# approval written by nobody, approving as themselves, is refused while
# `approvers:` lists only root, and applied once it lists nobody's group
# (@nogroup), the audit row naming uid 65534 whatever `approved_by` says;
# the agent's own auto-apply approval is its own uid's and needs no
# listing; an unknown approver is refused when the configuration loads.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t74a$$
daemon_setup t74a
STATE=$T/state
trap 'janitor "$u"; daemon_cleanup; _brokers_cleanup' EXIT
n1=${NODES[0]}
cp "$T/agent.yaml" "$T/agent.base"
# conf LINES: agent.yaml is the base configuration plus LINES
conf() { { cat "$T/agent.base"; printf '%s\n' "$@"; } >"$T/agent.yaml"; }
# once NAME: one `run --once`; $RC its exit status, $T/NAME.log its log
once() {
	RC=0
	"$AG_BIN" run --config "$T/agent.yaml" --once 2>"$T/$1.log" || RC=$?
}
addresses() {
	printf 'version: 1\naddresses:\n' >"$T/work/clusters/t74a/addresses.yaml"
	for q in "$@"; do
		echo "  - {name: $u.$q, routing: [anycast], queues: [{name: $u.$q}]}" >>"$T/work/clusters/t74a/addresses.yaml"
	done
}

addresses a
c1=$(daemon_commit "t74a: queue a")
once plan
p1=$(preview_of "$c1")
check "c1 previewed" test -n "$p1" -a -f "$p1/plan.json"
C=$(confirm_of "$p1")

# approve as root: the real uid and its name are recorded
check_exit "approve as root" 0 env -u SUDO_USER USER=carol "$AG_BIN" approve "$p1" --confirm "$C" --state "$STATE"
check_eq "approval.json: approved_by (free text), approved_uid, approved_user, format" \
	'["carol", 0, "root", 2]' "$(rj "$p1/approval.json" '[j["approved_by"], j["approved_uid"], j["approved_user"], j["format"]]')"

# the same file, owned by another user: not attributable, refused
chown nobody "$p1/approval.json"
once chowned
check_eq "an approval owned by another uid: --once exit 1" 1 "$RC"
check "approval-refused.txt written" test -f "$p1/approval-refused.txt"
check_grep "approval-refused.txt says who and why" "^approval.json is owned by uid 65534 \\(nobody\\) but records uid 0 \\(root\\): it was not written by the user it names, and the agent acts only on approvals it can attribute" "$p1/approval-refused.txt"
check_grep "and it is logged" "warning approve: approval in $p1 not applied: approval.json is owned by uid 65534 \\(nobody\\) but records uid 0 \\(root\\)" "$T/chowned.log"
check "nothing applied (no result)" test ! -e "$p1/result.json"
check_unlisted "$n1 has no $u.a" "$n1" queues "^$u\\.a\$" "DLQ"
check "no audit row (nothing was ever applied: no audit log)" test ! -e "$STATE/audit.jsonl"

# nobody approves as themselves (folders opened to them for the test)
rm -f "$p1/approval.json" "$p1/approval-refused.txt"
chmod 755 "$T" "$STATE" "$STATE/outbox" "$STATE/outbox/t74a"
chmod 777 "$p1"
check_exit "approve as nobody" 0 env -u SUDO_USER USER=alice setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$AG_BIN" approve "$p1" --confirm "$C" --state "$T/nostate"
check_eq "nobody's approval: owner and recorded uid agree" "65534 65534 nobody alice" \
	"$(stat -c %u "$p1/approval.json") $(rj "$p1/approval.json" '"%d %s %s" % (j["approved_uid"], j["approved_user"], j["approved_by"])')"
conf "approvers: [root]"
once notlisted
check_eq "an approver not listed: --once exit 1" 1 "$RC"
check_grep "approval-refused.txt: nobody may not approve" "^uid 65534 \\(nobody\\) may not approve: 'approvers' in $T/agent.yaml lists root, and nobody is neither one of the users nor a member of one of the groups$" "$p1/approval-refused.txt"
check "nothing applied (no result)" test ! -e "$p1/result.json"
check_unlisted "$n1 still has no $u.a" "$n1" queues "^$u\\.a\$" "DLQ"

# listing nobody's group: the same approval is applied, attributed to 65534
rm -f "$p1/approval-refused.txt"
conf "approvers: [root, '@nogroup']"
once listed
check_eq "a member of a listed group: --once exit 0" 0 "$RC"
check_applied "applied on every node" "$p1"
for n in "${NODES[@]}"; do
	check_listed "$n has $u.a" "$n" queues "$u.a"
done
check "no refusal" test ! -e "$p1/approval-refused.txt"
check_eq "the result row: approver (free text) and approver_uid" '["alice", 65534]' \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys; j=json.loads(sys.stdin.read()); print(json.dumps([j["approver"], j["approver_uid"]]))')"
check_eq "the intent row names the uid too" 65534 \
	"$(audit_rows intent | tail -n 1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["approver_uid"])')"
check_grep "result.json names the uid" '"approver_uid": 65534' "$p1/result.json"
check_grep "the log says who approved" "info approve: approval by uid 65534 \\(nobody\\), approved_by 'alice'" "$T/listed.log"

# auto-apply-creates: the agent's own approval, under its own uid, is not
# subject to the list
addresses a b
c2=$(daemon_commit "t74a: queue b, auto-applied")
conf "approvers: ['@nogroup']" "auto-apply-creates: true"
once auto
p2=$(preview_of "$c2")
check_eq "auto-apply with approvers that do not list the agent: exit 0" 0 "$RC"
check_applied "auto-applied on every node" "$p2"
check_eq "the agent's approval: its own uid" '[0, "root", "artemis-gitops (auto-apply-creates)"]' \
	"$(rj "$p2/approval.json" '[j["approved_uid"], j["approved_user"], j["approved_by"]]')"
check_eq "its result row: uid 0" 0 \
	"$(audit_rows result | tail -n 1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["approver_uid"])')"
check_listed "$n1 has $u.b" "$n1" queues "$u.b"

# an unknown approver: the configuration is refused when it loads
conf "approvers:" "  - root" "  - no-such-user-t74" "  - '@no-such-group-t74'"
once unknown
check_eq "unknown approvers: exit 1" 1 "$RC"
line=$(($(wc -l <"$T/agent.base") + 3))
check_grep "the unknown user named, at its position" "err run: $T/agent.yaml:$line:5: 'approvers': unknown user 'no-such-user-t74'" "$T/unknown.log"
check_grep "the unknown group named, at its position" "err run: $T/agent.yaml:$((line + 1)):5: 'approvers': unknown group 'no-such-group-t74'" "$T/unknown.log"
check_grep "the configuration refused" "err run: configuration $T/agent.yaml refused" "$T/unknown.log"
cat "$T"/*.log >"$T/all.log"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/all.log" 'loop: --once: exit'
done_testing
