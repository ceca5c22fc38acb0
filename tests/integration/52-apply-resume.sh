#!/usr/bin/env bash
# An apply that resumes after a crash (issue 14; docs/audit.md "Resuming an
# interrupted apply"), the short proof: apply is killed with kill -9 at each
# operation boundary of a small plan (two nodes, each removing a divert and
# its queue; opproxy holds the request after the boundary), and once at a
# random point; each time the same approved plan, applied again, resumes
# to the plan's end without a new approval, with no unplanned deletion,
# the audit's interrupted intent closed by exactly one result row, and the
# inventory at the plan's end. The long proof (at least 50 runs of a
# larger plan) is tests/soak/apply-crash-loop.sh, `make soak`.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/resume-lib.sh"
brokers_setup
u=t52r-$$

points=$(resume_points small)
for b in $(seq 0 $((points - 1))); do
	resume_run "$b" small hold "$(resume_point small "$b")"
done
boundary_resumed=$R_RESUMED # the random run below may or may not resume
resume_run "$points" small random "$(python3 -c 'import random; print(round(random.uniform(0.2, 1.0), 2))')"
resume_summary
check_eq "every boundary run was resumed" "$points" "$boundary_resumed"
check_eq "no node was refused as stale" 0 "$R_STALE"
check_eq "no unplanned deletion" 0 "$R_UNPLANNED"
done_testing
