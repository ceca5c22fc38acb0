#!/usr/bin/env bash
# examples/ci/validate.sh PROVIDER: `artemis-gitops validate` of every
# cluster of $DECLARATIONS, its exit code kept in $OUT/validate.status for
# verdict.sh. github: the diagnostics as workflow commands, so that each
# shows on the line that causes it ("Nothing consumes at ..." on the
# divert's line); gitlab: as text in the job log, and as a Code Quality
# report ($OUT/gl-code-quality-report.json, artifacts:reports:codequality)
# from `--format json`. Exits with validate's exit code.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 1 ] || ci_die "usage: validate.sh github|gitlab"
mkdir -p "$OUT"
rc=0
case $1 in
github) "$AG" validate --format github "$DECLARATIONS" || rc=$? ;;
gitlab)
	"$AG" validate "$DECLARATIONS" || rc=$?
	"$AG" validate --format json "$DECLARATIONS" >"$OUT/validate.json" || true
	jq '[.diagnostics[] | {
		description: .message,
		check_name: "artemis-gitops validate",
		fingerprint: ([.path, (.line|tostring), (.col|tostring), .message] | join(":") | @base64),
		severity: (if .severity == "error" then "major" else "minor" end),
		location: {path: (.path // "."), lines: {begin: (.line // 1)}}}]' \
		"$OUT/validate.json" >"$OUT/gl-code-quality-report.json"
	;;
*) ci_die "usage: validate.sh github|gitlab" ;;
esac
echo "$rc" >"$OUT/validate.status"
exit "$rc"
