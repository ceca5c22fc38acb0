#!/usr/bin/env bash
# examples/ci/verdict.sh: the check's verdict, after the comments are
# posted: fails when validate failed ($OUT/validate.status, validate.sh),
# a changed cluster was not planned, or a plan exited 1 (refused, invalid
# declaration, a node unreadable) or worse ($OUT/status, plan.sh); passes
# on 0 (nothing to do) and 2 (changes to approve after the merge).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bad=0
if [ -f "$OUT/validate.status" ] && [ "$(cat "$OUT/validate.status")" != 0 ]; then
	ci_log "the declarations do not validate (see the annotations or the log above)"
	bad=1
fi
[ -f "$OUT/changed" ] && [ -f "$OUT/status" ] || ci_die "$OUT/status is missing: plan.sh did not run"
while read -r c; do
	awk -v c="$c" '$1 == c { f = 1 } END { exit !f }' "$OUT/status" || {
		ci_log "$c: not planned (plan.sh stopped before it; see its step)"
		bad=1
	}
done <"$OUT/changed"
while read -r c rc; do
	case $rc in
	removed) ci_log "$c: the request removes the folder; nothing planned" ;;
	0) ci_log "$c: nothing to do" ;;
	2) ci_log "$c: changes to approve once merged (see the comment)" ;;
	1)
		ci_log "$c: refused or invalid (see the comment and $OUT/$c/plan/plan.md)"
		bad=1
		;;
	*)
		ci_log "$c: plan failed with exit code $rc"
		bad=1
		;;
	esac
done <"$OUT/status"
exit "$bad"
