#!/usr/bin/env bash
# examples/ci/record-snapshots.sh DIR: record every cluster of
# $DECLARATIONS as DIR/<folder>.json (`artemis-gitops snapshot --json`),
# read with the read-only user of $ARTEMIS_VIEWER_CREDENTIALS (lib.sh,
# docs/ci.md). Run on a schedule, on the default branch, by a runner that
# reaches the brokers; pull requests then plan against the newest
# recording (plan.sh with ARTEMIS_SNAPSHOT_SOURCE) on runners that do not.
# Exits 1 when a node could not be read (its file records why), so that
# the recording is not published and the previous one stays the newest.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 1 ] || ci_die "usage: record-snapshots.sh DIR"
out=$1
mkdir -p "$out"
ci_credentials
tls=()
[ -z "${ARTEMIS_CA_FILE:-}" ] || tls=(--ca-file "$ARTEMIS_CA_FILE")
failed=0
n=0
for dir in "$DECLARATIONS"/*/; do
	dir=${dir%/}
	compgen -G "$dir/*.yaml" >/dev/null || compgen -G "$dir/*.yml" >/dev/null || continue
	n=$((n + 1))
	if "$AG" snapshot --json "$dir" --credentials "$CI_CREDENTIALS" "${tls[@]}" \
		>"$out/$(basename "$dir").json"; then
		ci_log "recorded $dir"
	else
		failed=1
		ci_log "$dir: a node could not be read (see $out/$(basename "$dir").json)"
	fi
done
[ "$n" -gt 0 ] || ci_die "no cluster folder under $DECLARATIONS/"
exit "$failed"
