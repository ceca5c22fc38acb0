#!/usr/bin/env bash
# The long proof of an apply that resumes after a crash (issue 14; docs/
# audit.md "Resuming an interrupted apply"): the kill -9 loop of
# tests/integration/resume-lib.sh on a plan of 5 operations per node (two
# creates, a divert, its queue and their address removed) followed by the
# capture pass's tap, on two real brokers. SOAK_RUNS runs (default 60, at
# least 50): the first 2 x 13 at every operation boundary and every point
# of the capture pass, twice each (opproxy holds the request after it),
# the others at random points (kill -9 after a random delay: up to
# SOAK_MAX_DELAY, default 1.3, times the time the run's first apply took). Every run resumes the same approved
# plan to its end without a new approval and checks: no unplanned
# deletion, the live state is the plan's end, the audit holds the
# interrupted intent and exactly one result row for the resumption, the
# inventory is the plan's end. The last lines count the runs (resumed,
# killed before the intent row, killed after the result row, refused as
# stale and why, unplanned deletions). Run by `make soak`.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/resume-lib.sh"
brokers_setup
u=s1r-$$
runs=${SOAK_RUNS:-60}
max=${SOAK_MAX_DELAY:-1.3}
points=$(resume_points full)

bres=0
for k in $(seq 0 $((runs - 1))); do
	if [ "$k" -lt $((2 * points)) ]; then
		resume_run "$k" full hold "$(resume_point full $((k % points)))"
		bres=$R_RESUMED
	else
		resume_run "$k" full random "$(python3 -c 'import random, sys; print(round(random.uniform(0, float(sys.argv[1])), 2))' "$max")"
	fi
	[ $((k % 10)) -eq 9 ] && resume_summary
done
resume_summary
check "at least 50 runs" test "$R_RUNS" -ge 50
check_eq "every boundary run was resumed" $((2 * points)) "$bres"
check_eq "no node was refused as stale" 0 "$R_STALE"
check_eq "no unplanned deletion" 0 "$R_UNPLANNED"
check_eq "no run with a failed check" 0 "$R_FAILED"
done_testing
