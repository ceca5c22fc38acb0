#!/usr/bin/env bash
# tests/golden/recon/run.sh: the planner's golden cases. Each NNN-slug/
# holds a cluster folder, optionally base/ (--base-dir) or state/ (--state),
# a recorded snapshot.json, the command (args), the expected exit code, and
# checks on plan.json (jq) and plan.md. The command runs in a scratch copy
# of the case (so paths in the outputs are relative and stable) and its
# plan.json and plan.md are compared byte for byte with expect/;
# GOLDEN_UPDATE=1 rewrites expect/ instead (review the diff).
#
# checks lines:  json FILTER VALUE   `jq -c FILTER plan.json` equals VALUE
#                json FILTER => VALUE   the same, for a FILTER with spaces
#                md TEXT             plan.md contains TEXT (fixed string)
#                nomd TEXT           plan.md does not contain TEXT
#                err TEXT            stderr contains TEXT
. "$AG_TOP/tests/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CONFIG_MANAGED cases render broker.xml: Artemis's schema, as render's
# golden tests find it.
if [ -z "${ARTEMIS_GITOPS_SCHEMA_DIR:-}" ]; then
	# one release's schema only (the suite's): the cache's per-release
	# subfolders would hold each recorded node to its own release
	ARTEMIS_GITOPS_SCHEMA_DIR=$("$AG_TOP/scripts/artemis-schema" "$tmp/schema" 2>"$tmp/schema.err") ||
		not_ok "Artemis schema available" "$(cat "$tmp/schema.err")"
	export ARTEMIS_GITOPS_SCHEMA_DIR
fi

run_checks() {
	local c=$1 w=$2 kind rest filter want got
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		kind=${line%% *}
		rest=${line#* }
		case $kind in
		json)
			if [[ $rest == *' => '* ]]; then
				filter=${rest%% => *}
				want=${rest#* => }
			else
				filter=${rest%% *}
				want=${rest#* }
			fi
			got=$(jq -c "$filter" "$w/plan/plan.json" 2>&1)
			check_eq "$c: plan.json $filter" "$want" "$got"
			;;
		md)
			if grep -qF -- "$rest" "$w/plan/plan.md"; then ok "$c: plan.md has: $rest"; else
				not_ok "$c: plan.md has: $rest" "$(head -c 4000 "$w/plan/plan.md")"; fi
			;;
		nomd)
			if grep -qF -- "$rest" "$w/plan/plan.md"; then not_ok "$c: plan.md lacks: $rest"; else
				ok "$c: plan.md lacks: $rest"; fi
			;;
		err)
			if grep -qF -- "$rest" "$w/stderr"; then ok "$c: stderr has: $rest"; else
				not_ok "$c: stderr has: $rest" "$(cat "$w/stderr")"; fi
			;;
		*) not_ok "$c: unknown check '$kind'" ;;
		esac
	done <"$here/$c/checks"
}

run_case() {
	local c=$1 w=$tmp/$1 rc cmd extra
	mkdir -p "$w"
	cp -r "$here/$c/cluster" "$here/$c/snapshot.json" "$w/"
	extra=()
	[ -d "$here/$c/base" ] && cp -r "$here/$c/base" "$w/" && extra+=(--base-dir base)
	[ -d "$here/$c/state" ] && cp -r "$here/$c/state" "$w/" && extra+=(--state state)
	read -r -a cmd <"$here/$c/args"
	if [ "${cmd[0]}" = delete-queue ]; then
		set -- delete-queue "${cmd[1]}" cluster "${cmd[@]:2}"
	else
		set -- plan cluster "${cmd[@]:1}"
	fi
	(cd "$w" && "$AG_BIN" "$@" --out plan --snapshot snapshot.json "${extra[@]}" >stdout 2>stderr)
	rc=$?
	check_eq "$c: exit code" "$(cat "$here/$c/exit")" "$rc"
	if [ ! -f "$w/plan/plan.json" ]; then
		not_ok "$c: plan written" "$(cat "$w/stderr")"
		return
	fi
	check_eq "$c: plan.json keys sorted" "$(jq -S --indent 2 . "$w/plan/plan.json")" "$(cat "$w/plan/plan.json")"
	check_eq "$c: stdout names the digest" "$(sha256sum "$w/plan/plan.json" | cut -d' ' -f1)" \
		"$(sed -n 's/^plan: plan\/plan.md (sha256 \([0-9a-f]*\))$/\1/p' "$w/stdout")"
	if [ -n "${GOLDEN_UPDATE:-}" ]; then
		mkdir -p "$here/$c/expect"
		cp "$w/plan/plan.json" "$w/plan/plan.md" "$here/$c/expect/"
	fi
	for f in plan.json plan.md; do
		if cmp -s "$here/$c/expect/$f" "$w/plan/$f"; then ok "$c: $f as expected"; else
			not_ok "$c: $f as expected" "$(diff -u "$here/$c/expect/$f" "$w/plan/$f" | head -40)"; fi
	done
	run_checks "$c" "$w"
	# The same plan from the recording narrowed to what a live read of
	# the plan's scope reads (--read scoped, docs/snapshot-format.md "A
	# plan's read"): the objects the plan weighs are all it needs.
	mv "$w/plan" "$w/whole"
	(cd "$w" && "$AG_BIN" "$@" --out plan --snapshot snapshot.json --read scoped "${extra[@]}" >/dev/null 2>&1)
	check_eq "$c: --read scoped: exit code" "$rc" "$?"
	for f in plan.json plan.md; do
		if cmp -s "$w/whole/$f" "$w/plan/$f"; then ok "$c: --read scoped: the same $f"; else
			not_ok "$c: --read scoped: the same $f" "$(diff -u "$w/whole/$f" "$w/plan/$f" | head -40)"; fi
	done
}

for d in "$here"/[0-9][0-9][0-9]-*/; do
	run_case "$(basename "$d")"
done
done_testing
