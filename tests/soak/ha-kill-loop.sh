#!/usr/bin/env bash
# The long proof of several agents on etcd (issue 21; docs/ha.md): a real
# 3-member etcd (scripts/etcd), 3 agents (shard mode none, lease TTL 5s,
# state-backend etcd), the suite's 2 brokers. SOAK_HA_KILL_RUNS runs
# (default 30): each commits a change (odd runs create a queue and a
# divert forwarding to it, even runs delete that queue together with its
# divert), approves the leader's preview (`approve`, then SIGUSR1 for a
# cycle now, as an approval on the web page wakes the daemon), and kill
# -9's the leader after a random delay of 0..SOAK_HA_MAX_DELAY seconds
# (default 1.5): before the apply, in its middle, or after it. The killed agent is started
# again at once. Each run checks:
#   - a successor leads (a new epoch on the leader key) within TTL + poll
#     interval + SOAK_HA_SLACK (default 2) seconds; every takeover is
#     measured (from the kill to the new leader key's PUT, as an
#     `etcdctl watch` started at the beginning reports it) and
#     min/median/max printed as a TAP comment at the end;
#   - no approval is lost: the change ends up on every node. When the
#     approval could not be carried (it never reached etcd, or the live
#     state moved under a partial apply so the successor's plan has
#     another digest) the successor's new preview is approved again, and
#     the run says so;
#   - the change is applied exactly once: etcd's audit keys hold one
#     result row for the run's commit, and no plan digest has more than
#     one result row (checked again over every run at the end);
#   - nothing is deleted that no plan named: a sentinel address, queue and
#     divert on each node, outside the declaration's names, survive every
#     run.
# The last lines count the runs by where the kill landed (before the
# apply, in its middle, after it) and how the change got applied (by the
# killed leader before the kill, by the killed leader started again and
# leading again, applying its own approved preview or resuming its
# interrupted apply, by a successor carrying the approval, approved
# again).
#
# The short version of this loop, cheap enough for `make test`, is
# tests/integration/84-daemon-ha.sh (one failover, a leader paused
# mid-apply, a carried approval, etcd faults); SOAK_HA_KILL_RUNS=3 runs
# this one briefly. Run by `make soak`.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=s21k-$$
daemon_setup s21k
. "$AG_TOP/tests/integration/ha-lib.sh"
trap 'kill "${WATCH_PID:-}" 2>/dev/null; etcd_cleanup; janitor "$u."; daemon_cleanup; _brokers_cleanup' EXIT
runs=${SOAK_HA_KILL_RUNS:-30}
max=${SOAK_HA_MAX_DELAY:-1.5}
slack=${SOAK_HA_SLACK:-2}
yaml=$T/work/clusters/s21k/cluster.yaml
head_yaml=$(cat "$yaml")
TTL=5
POLL=1

etcd_setup 3
check_eq "etcd: 3 members" 3 "$(wc -l <"$T/etcd.urls")"

q() { printf '  - name: %s\n    routing: [anycast]\n    queues: [{name: %s}]\n' "$1" "$1"; }
approve_in() {
	"$AG_BIN" approve "$1" --confirm "$(rj "$1/plan.json" 'j["confirmation"]')" \
		--by tester --state "$(dirname "$(dirname "$(dirname "$1")")")"
}
epoch_now() { etcd_create_rev leader; }
new_epoch() { local e; e=$(epoch_now); [ -n "$e" ] && [ "$e" != 0 ] && [ "$e" != "$1" ]; }
# the result rows in etcd of commit REV, one a line
result_rows_of() {
	etcd_audit_rows result | python3 -c '
import json, sys
for l in sys.stdin:
    if json.loads(l).get("revision") == sys.argv[1]:
        print(l.strip())' "$1"
}
# the number of plan digests with more than one result row in etcd
digests_twice() {
	etcd_audit_rows result | python3 -c '
import collections, json, sys
c = collections.Counter(json.loads(l)["plan_digest"] for l in sys.stdin if l.strip())
print(sum(1 for n in c.values() if n > 1))'
}
# the sentinel on every node: its address, queue and divert
sentinel_ok() {
	local n
	for n in "${NODES[@]}"; do
		broker_names "$n" addresses | grep -qxF "$u.sent" || return 1
		broker_names "$n" queues | grep -qxF "$u.sent.q" || return 1
		broker_names "$n" diverts | grep -qxF "$u.sent.d" || return 1
	done
}
# the declaration of run K is on every node: FWD present or absent
state_ok() {
	local n want=$1 fwd=$2 d=$3 qs ds
	for n in "${NODES[@]}"; do
		qs=$(broker_names "$n" queues) || return 1
		ds=$(broker_names "$n" diverts) || return 1
		printf '%s\n' "$qs" | grep -qxF "$u.src" || return 1
		if [ "$want" = present ]; then
			printf '%s\n' "$qs" | grep -qxF "$fwd" || return 1
			printf '%s\n' "$ds" | grep -qxF "$d" || return 1
		else
			printf '%s\n' "$qs" | grep -qxF "$fwd" && return 1
			printf '%s\n' "$ds" | grep -qxF "$d" && return 1
		fi
	done
	return 0
}
# the newest preview of commit C of any agent, other than EXCEPT
newest_preview() {
	local i d best=
	for i in 1 2 3; do
		d=$(ag_preview "$i" "$1")
		[ -n "$d" ] && [ "$d" != "$2" ] || continue
		if [ -z "$best" ] || [ "$d" -nt "$best" ]; then best=$d; fi
	done
	echo "$best"
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# the sentinel, created behind the agents' back on each node
for n in "${NODES[@]}"; do
	check_eq "$n: sentinel address" OK "$(jexec "$n" create-address "$u.sent" anycast)"
	check_eq "$n: sentinel queue" OK "$(jexec "$n" create-queue "$u.sent.q" "$u.sent" anycast)"
done

printf '%s\naddresses:\n%s\n' "$head_yaml" "$(q "$u.src")" >"$yaml"
c0=$(daemon_commit "s21k: $u.src")
for n in "${NODES[@]}"; do
	check_eq "$n: sentinel divert ($u.sent -> the declared $u.src)" OK \
		"$(jexec "$n" create-divert "$u.sent.d" "$u.sent" "$u.src")"
done
for i in 1 2 3; do ag_conf "$i" none "${TTL}s"; done
# every event of the leader key, stamped when etcd reports it: a takeover
# is the first PUT after the kill (the polls of the test do not add to it)
(ETCDCTL_API=3 exec etcdctl --endpoints "$ETCD_URLS" watch "${HA_PREFIX}leader") 2>/dev/null \
	> >(while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$T/leader.watch") &
WATCH_PID=$! # etcdctl itself: the stamping loop ends with its output
ag_start 1
check "ag1 leads" wait_for 30 eval '[ "$(leader)" = ag1 ]'
ag_start 2
ag_start 3
check "ag1 posts the preview of the first commit" wait_for 60 eval '[ -n "$(ag_preview 1 "$c0")" ]'
p0=$(ag_preview 1 "$c0")
check "approve the first commit ($u.src)" approve_in "$p0"
check "the first commit applied" wait_for 60 test -f "$p0/result.json"
check "the sentinel is there" sentinel_ok

takes=()
n_before=0 n_mid=0 n_after=0 n_killed_applied=0 n_carried=0 n_reapproved=0
n_failed=0 n_unplanned=0 n_slow=0 n_resumed=0
declare -A REV
for k in $(seq 1 "$runs"); do
	fails_before=$_t_failed
	if [ $((k % 2)) -eq 1 ]; then
		j=$k
		want=present
		printf '%s\naddresses:\n%s\n%s\ndiverts:\n  - name: %s\n    address: %s\n    forwarding-address: %s\n    exclusive: false\n' \
			"$head_yaml" "$(q "$u.src")" "$(q "$u.f$j")" "$u.d$j" "$u.src" "$u.f$j" >"$yaml"
		what="create $u.f$j and divert $u.d$j"
	else
		j=$((k - 1))
		want=absent
		printf '%s\naddresses:\n%s\n' "$head_yaml" "$(q "$u.src")" >"$yaml"
		what="delete $u.f$j with its divert $u.d$j"
	fi
	c=$(daemon_commit "s21k run $k: $what")
	REV[$k]=$c
	l=$(leader)
	li=${l#ag}
	e0=$(epoch_now)
	if ! wait_for 60 eval '[ -n "$(ag_preview "$li" "$c")" ]'; then
		not_ok "run $k: $l posts the preview of ${c:0:12}" "$(tail -n 20 "$T/$l.log")"
		n_failed=$((n_failed + 1))
		continue
	fi
	p=$(ag_preview "$li" "$c")
	d1=$(sha256sum <"$p/plan.json" | cut -d' ' -f1)
	delay=$(python3 -c 'import random, sys; print(round(random.uniform(0, float(sys.argv[1])), 2))' "$max")
	approve_in "$p" >/dev/null || not_ok "run $k: approve $p"
	# a cycle now, and the approvals after it, as an approval on the web
	# page wakes the daemon: the delay then spans the pickup of the
	# approval, the apply, and its end
	kill -USR1 "${AGPID[$li]}"
	sleep "$delay"
	t0=$(date +%s.%N)
	ag_kill "$li"
	ag_start "$li"
	# where the kill landed: the killed leader's own audit rows in etcd
	# are final now (nothing of it runs any more)
	if [ "$(etcd_audit_rows result "$d1" | grep -c .)" -gt 0 ]; then
		at=after
		n_after=$((n_after + 1))
	elif [ "$(etcd_audit_rows intent "$d1" | grep -c .)" -gt 0 ]; then
		at=mid
		n_mid=$((n_mid + 1))
	else
		at=before
		n_before=$((n_before + 1))
	fi
	if wait_for 60 new_epoch "$e0"; then
		t1=$(awk -v t0="$t0" '$1 > t0 && $2 == "PUT" {print $1; exit}' "$T/leader.watch")
		[ -n "$t1" ] || t1=$(date +%s.%N) # no event seen: the poll's time
		took=$(python3 -c "print(round($t1 - $t0, 2))")
		takes+=("$took")
		s=$(leader)
		if python3 -c "import sys; sys.exit(0 if $took <= $TTL + $POLL + $slack else 1)"; then
			ok "run $k: $s leads ${took}s after the kill of $l (at most TTL + poll + ${slack}s)"
		else
			not_ok "run $k: $s leads ${took}s after the kill of $l (at most TTL + poll + ${slack}s)"
			n_slow=$((n_slow + 1))
		fi
	else
		not_ok "run $k: a successor leads after the kill of $l" "$(tail -n 20 "$T"/ag*.log)"
		n_failed=$((n_failed + 1))
		continue
	fi
	# no approval lost: the change ends up applied; a successor's preview
	# that carries no approval after a grace period is approved again
	how=
	deadline=$((SECONDS + 120))
	seen_at=
	while [ $SECONDS -lt $deadline ]; do
		if [ -n "$(result_rows_of "$c")" ] && state_ok "$want" "$u.f$j" "$u.d$j"; then
			break
		fi
		q2=$(newest_preview "$c" "$p")
		if [ -n "$q2" ] && [ ! -e "$q2/approval.json" ] && [ ! -e "$q2/result.json" ] &&
			[ "$(rj "$q2/plan.json" 'j["outcome"]')" = WOULD_APPLY ]; then
			if [ "$seen_at" != "$q2" ]; then
				seen_at=$q2
				seen_t=$SECONDS
			elif [ $((SECONDS - seen_t)) -ge 2 ] && [ -z "$how" ]; then
				approve_in "$q2" >/dev/null && how=reapproved
			fi
		fi
		sleep 0.5
	done
	if [ -z "$how" ]; then
		if [ "$at" = after ]; then
			how=killed-applied
		elif [ "$(etcd_audit_rows result "$d1" | grep -c .)" -gt 0 ]; then
			# the killed leader, started again, led again and applied
			# its own approved preview (resuming the interrupted apply
			# when it had begun: docs/audit.md "Resuming an interrupted
			# apply")
			how=resumed
		elif q2=$(newest_preview "$c" "$p") && [ -n "$q2" ] && [ -e "$q2/approval.json" ] &&
			[ "$(rj "$q2/approval.json" 'j.get("via")')" = etcd ]; then
			how=carried
		else
			how=other
		fi
	fi
	case $how in
	killed-applied) n_killed_applied=$((n_killed_applied + 1)) ;;
	carried) n_carried=$((n_carried + 1)) ;;
	reapproved) n_reapproved=$((n_reapproved + 1)) ;;
	resumed) n_resumed=$((n_resumed + 1)) ;;
	esac
	check "run $k: the change is on every node ($what)" state_ok "$want" "$u.f$j" "$u.d$j"
	nres=$(result_rows_of "$c" | grep -c .)
	check_eq "run $k: etcd: one result row for ${c:0:12}" 1 "$nres"
	check_eq "run $k: etcd: no plan digest with two result rows" 0 "$(digests_twice)"
	if sentinel_ok; then
		ok "run $k: the sentinel survived"
	else
		not_ok "run $k: the sentinel survived"
		n_unplanned=$((n_unplanned + 1))
	fi
	echo "# run $k: $what; killed $l ${delay}s after the approval ($at the apply); $s led after ${took}s; applied: $how"
	[ "$_t_failed" -eq "$fails_before" ] || n_failed=$((n_failed + 1))
	# the leader is settled before the next commit (the restarted agent
	# may be the successor)
	wait_for 30 eval '[ -n "$(leader)" ]'
done

check_eq "every commit has exactly one result row in etcd (again, at the end)" "" \
	"$(for k in "${!REV[@]}"; do n=$(result_rows_of "${REV[$k]}" | grep -c .); [ "$n" = 1 ] || echo "run $k: $n"; done)"
check_eq "no plan digest has two result rows" 0 "$(digests_twice)"
check "the sentinel survived every run" sentinel_ok
check_eq "no agent crashed" "" "$(grep -l "AddressSanitizer\|runtime error" "$T"/ag*.log 2>/dev/null)"
if [ ${#takes[@]} -gt 0 ]; then
	echo "# takeover after kill -9 (lease TTL ${TTL}s, poll ${POLL}s), ${#takes[@]} runs: min $(printf '%s\n' "${takes[@]}" | sort -n | head -n 1)s, median $(printf '%s\n' "${takes[@]}" | median)s, max $(printf '%s\n' "${takes[@]}" | sort -n | tail -n 1)s"
fi
echo "# $runs runs: killed before the apply $n_before, in its middle $n_mid, after it $n_after"
echo "# applied by the killed leader before the kill $n_killed_applied, applied or resumed by it after its restart $n_resumed, approval carried to a successor $n_carried, approved again $n_reapproved, other $((runs - n_killed_applied - n_resumed - n_carried - n_reapproved))"
echo "# runs with a failed check $n_failed, takeovers over TTL + poll + ${slack}s $n_slow, unplanned deletions $n_unplanned"
check_eq "no run with a failed check" 0 "$n_failed"
done_testing
