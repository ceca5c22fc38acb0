#!/usr/bin/env bash
# tests/golden/comment/run.sh: pull-request comment bodies (docs/ci.md),
# byte for byte. input/ is one plan: 60 creates and a queue delete whose
# divert goes with it (the cluster, its base and a recorded snapshot). In
# a scratch copy of input/, `plan cluster --out plan --snapshot
# snapshot.json --base-dir base` runs first; then each line of a case's
# NNN-slug/args, an artemis-gitops command (split on spaces). The case's
# comments/ folder is compared with expect/ (every file, none more), the
# commands' stdout with expect/stdout; tests/tools/comment-check.py checks
# the bodies against the plan.md they were cut from (the limit, markers,
# split points, the bodies put together). GOLDEN_UPDATE=1 rewrites expect/
# (review the diff).
. "$AG_TOP/tests/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT


run_case() {
	local c=$1 w=$tmp/$1 line rc limit f
	local -a cmd extra=()
	cp -r "$here/input" "$w"
	(cd "$w" && "$AG_BIN" plan cluster --out plan --snapshot snapshot.json \
		--base-dir base >/dev/null 2>"$w/plan.err")
	: >"$w/stdout"
	while IFS= read -r line; do
		read -r -a cmd <<<"$line"
		(cd "$w" && "$AG_BIN" "${cmd[@]}" >>stdout 2>>stderr)
		rc=$?
		check "$c: '${cmd[0]}' exits 0 or 2" test "$rc" -eq 0 -o "$rc" -eq 2
	done <"$here/$c/args"
	if [ -n "${GOLDEN_UPDATE:-}" ]; then
		rm -rf "$here/$c/expect"
		mkdir -p "$here/$c/expect"
		cp "$w"/comments/* "$w/stdout" "$here/$c/expect/"
	fi
	for f in "$here/$c/expect"/*; do
		[ "$(basename "$f")" = stdout ] && continue
		if cmp -s "$f" "$w/comments/$(basename "$f")"; then ok "$c: $(basename "$f") as expected"; else
			not_ok "$c: $(basename "$f") as expected" \
				"$(diff -u "$f" "$w/comments/$(basename "$f")" | head -40)"
		fi
	done
	check_eq "$c: no other file in comments/" \
		"$(cd "$here/$c/expect" && ls | grep -v '^stdout$')" "$(ls "$w/comments")"
	check_eq "$c: stdout" "$(cat "$here/$c/expect/stdout")" "$(cat "$w/stdout")"
	limit=$(jq -r .limit "$w/comments/comments.json")
	# the blast radius: every body set shows it, a plan too large for
	# its comments in its list of the actions that destroy messages
	if [ "$(jq -r .too_large "$w/comments/comments.json")" = true ]; then
		extra+=(--too-large --has '- 61. delete-queue `orders` — **destroys messages**')
	else
		extra+=(--has 'removed with the queue: divert `audit-copy` (source `audit-in`, forwarding to `orders`)')
	fi
	python3 "$AG_TOP/tests/tools/comment-check.py" --plan-md "$w/plan/plan.md" \
		--limit "$limit" "${extra[@]}" \
		$(jq -r '.parts[].file' "$w/comments/comments.json" | sed "s|^|$w/comments/|") \
		>"$w/check" 2>&1
	tap_import "$w/check" "$c: "
	check_grep "$c: the check ran" '^(not )?ok - ' "$w/check"
}

for d in "$here"/[0-9][0-9][0-9]-*/; do
	run_case "$(basename "$d")"
done

# The check can fail: plan.md cut in two, with well-formed markers, inside
# the Nodes table, inside the Approve section's code block, and before a
# node's sub-item.
w=$tmp/001-split
bad_split() { # NAME TEXT: split plan.md before the line holding TEXT
	python3 - "$w/plan/plan.md" "$2" "$tmp/bad" <<'PY'
import sys
md = open(sys.argv[1]).read()
at = md.rindex("\n", 0, md.index(sys.argv[2])) + 1
m = "<!-- artemis-gitops:plan-comment id=x cluster=shop-eu part=%d/2 digest=0123456789ab -->\n*Part %d of 2 of this plan.*\n\n"
open(sys.argv[3] + "-1", "w").write(m % (1, 1) + md[:at])
open(sys.argv[3] + "-2", "w").write(m % (2, 2) + md[at:])
PY
	check_fails "comment-check refuses a split $1" python3 "$AG_TOP/tests/tools/comment-check.py" \
		--plan-md "$w/plan/plan.md" --limit 1000000 "$tmp/bad-1" "$tmp/bad-2"
}
bad_split "inside the Nodes table" "| node2 |"
bad_split "inside a code block" "artemis-gitops approve plan"
bad_split "before a node's sub-item" "  - operations, in order:"
python3 "$AG_TOP/tests/tools/comment-check.py" --plan-md "$w/plan/plan.md" --limit 1000000 \
	"$w/comments/comment-1.md" "$w/comments/comment-2.md" >"$tmp/short" 2>&1
check_grep "comment-check refuses bodies that are not the whole plan" \
	'^not ok - the bodies put together are plan.md' "$tmp/short"
done_testing
