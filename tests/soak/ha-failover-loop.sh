#!/usr/bin/env bash
# The long proof of HA pairs (docs/ha-pairs.md): the failover loop of
# tests/integration/ha-loop-lib.sh on a real shared-store pair and a real
# replication pair (scripts/artemis up-pair), SOAK_HA_RUNS runs (default
# 30, at least 20): each run plans a create and a queue delete with its
# dependent divert, approves it, and kills -9 the live member of a random
# pair at a random point of the apply (up to SOAK_HA_MAX_DELAY seconds,
# default 0.6); the killed member is started again (failback, or passive);
# plan and apply again converge; each pair's live member then holds
# exactly the declaration. No run may delete what its plan did not. The
# Artemis release is ARTEMIS_VERSION (default 2.44.0; SOAK_HA_VERSIONS,
# default "2.44.0 2.28.0", runs the loop once per release). Run by
# `make soak`.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
. "$AG_TOP/tests/integration/ha-loop-lib.sh"

runs=${SOAK_HA_RUNS:-30}
HL_MAX_DELAY=${SOAK_HA_MAX_DELAY:-0.6}
TMP=$(mktemp -d)
CREDDIR=$TMP/creds
mkdir -m 0700 "$CREDDIR"
STATE=$TMP/state
pbase=$((${ARTEMIS_PORT_BASE:-100} + 200))
run=
art() { ARTEMIS_RUN_DIR=$run ARTEMIS_PORT_BASE=$pbase "$ARTEMIS" "$@"; }
cleanup() {
	[ -z "$run" ] || art down >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

total_unplanned=0
for v in ${SOAK_HA_VERSIONS:-2.44.0 2.28.0}; do
	export ARTEMIS_VERSION=$v
	run=$TMP/run-$v
	HL=s2h-${v//./}-$$
	HL_RUNS=0 HL_UNPLANNED=0 HL_AGAIN=0 HL_KILLED_DURING=0
	HL_OUTCOMES=()
	check "Artemis $v: fetch" art fetch
	check "Artemis $v: a shared-store pair" art up-pair pair1 shared-store
	check "Artemis $v: a replication pair" art up-pair pair2 replication
	for m in pair1-primary pair1-backup pair2-primary pair2-backup; do
		URL[$m]=$(art url "$m")
		install -m 0600 "$(art creds "$m")" "$CREDDIR/$m"
		CRED[$m]=$CREDDIR/$m
	done
	for k in $(seq 1 "$runs"); do
		ha_loop_run "$k"
		[ $((k % 10)) -eq 0 ] && ha_loop_summary
	done
	ha_loop_summary
	check "Artemis $v: at least 20 runs" test "$HL_RUNS" -ge 20
	check_eq "Artemis $v: no unplanned deletion" 0 "$HL_UNPLANNED"
	check "Artemis $v: some kills landed while the apply ran" test "$HL_KILLED_DURING" -ge 1
	total_unplanned=$((total_unplanned + HL_UNPLANNED))
	art down >/dev/null 2>&1
	run=
done
echo "# HA soak: unplanned deletions over every release: $total_unplanned"
done_testing
