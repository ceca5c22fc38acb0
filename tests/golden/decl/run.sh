#!/usr/bin/env bash
# tests/golden/decl/run.sh: `artemis-gitops validate` against golden files.
#
# A case NNN-slug is a folder (the input, passed as the PATH) and/or:
#   NNN-slug.args    the validate arguments instead of the folder (one
#                    line, split on spaces; paths relative to this folder)
#   NNN-slug.gen     a bash script that builds the input folder NNN-slug in
#                    the current directory (for inputs too big or too odd
#                    to keep in git); it runs in a scratch directory
#   NNN-slug.expect  stderr, then `exit N`, then `--- stdout` and stdout
#                    when there is any
# GOLDEN_UPDATE=1 rewrites the .expect files (review the diff!).
# Then every cluster that validates with --dump is dumped, the dump loaded
# again as YAML, and the second dump must equal the first.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# run_case NAME: print the case's actual output.
run_case() {
	local name=$1 dir=$here rc
	local -a args
	if [ -f "$here/$name.gen" ]; then
		dir=$scratch/gen
		rm -rf "$dir" && mkdir -p "$dir"
		(cd "$dir" && bash "$here/$name.gen") || echo "generator failed"
	fi
	if [ -f "$here/$name.args" ]; then
		read -r -a args <"$here/$name.args"
	else
		args=("$name")
	fi
	(cd "$dir" && "$AG_BIN" validate "${args[@]}" >"$scratch/out" 2>"$scratch/err")
	rc=$?
	cat "$scratch/err"
	echo "exit $rc"
	if [ -s "$scratch/out" ]; then
		echo "--- stdout"
		cat "$scratch/out"
	fi
}

cd "$here" || exit 2
names=$(ls -d [0-9][0-9][0-9]-* | sed -E 's/\.(args|gen|expect)$//' | sort -u)
for name in $names; do
	actual=$(run_case "$name")
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		printf '%s\n' "$actual" >"$name.expect"
		ok "$name (updated)"
	elif [ ! -f "$name.expect" ]; then
		not_ok "$name" "no $name.expect (run with GOLDEN_UPDATE=1)"
	elif diff -u "$name.expect" <(printf '%s\n' "$actual") >"$scratch/diff"; then
		ok "$name"
	else
		not_ok "$name" "$(cat "$scratch/diff")"
	fi
done

# --format github against GitHub's documented workflow command syntax:
# every line parsed as the runner parses it must say what --format json
# says of the same diagnostic (workflow-commands.py); and the check itself
# fails on a line with an unescaped ',' in a property and on a message
# with a bare '%'.
wc_check() { # NAME PATH...
	local name=$1
	shift
	(cd "$here" && "$AG_BIN" validate --format github "$@" >"$scratch/gh" 2>"$scratch/gh.err"
		"$AG_BIN" validate --format json "$@" >"$scratch/js" 2>>"$scratch/gh.err")
	check "$name" python3 "$here/workflow-commands.py" "$scratch/gh" "$scratch/js"
}
wc_check "--format github: the documented syntax and escaping (%, CR, LF, ':' and ',' in paths)" 100-format-repo
wc_check "--format github: a warning alone" 043-nothing-consumes-config
# A line that is wrong in one way only each time: the JSON says the same.
(cd "$here" && "$AG_BIN" validate --format json 043-nothing-consumes-config) >"$scratch/js"
sed 's|"043-nothing-consumes-config/a.yaml"|"043,x/a.yaml"|' "$scratch/js" >"$scratch/js1"
printf '::warning file=043,x/a.yaml,line=15,col=5::%s\n' \
	"$(jq -r '.diagnostics[0].message' "$scratch/js")" >"$scratch/gh1"
check_fails "the syntax check refuses an unescaped ',' in a property" \
	python3 "$here/workflow-commands.py" "$scratch/gh1" "$scratch/js1"
sed 's|"message": "divert|"message": "50% divert|' "$scratch/js" >"$scratch/js2"
printf '::warning file=043-nothing-consumes-config/a.yaml,line=15,col=5::50%% %s\n' \
	"$(jq -r '.diagnostics[0].message' "$scratch/js")" >"$scratch/gh2"
check_fails "the syntax check refuses a bare '%' in a message" \
	python3 "$here/workflow-commands.py" "$scratch/gh2" "$scratch/js2"
sed 's/50%/50%25/' "$scratch/gh2" >"$scratch/gh3"
check "... and takes the same line escaped" \
	python3 "$here/workflow-commands.py" "$scratch/gh3" "$scratch/js2"

# --version prints the binary's version, as on every subcommand.
"$AG_BIN" validate --version >"$scratch/v" 2>&1
check_grep "validate --version" '^artemis-gitops [0-9]+\.[0-9]+\.[0-9]+$' "$scratch/v"

# Round trip: dump(load(dump(x))) == dump(x), for the examples and for
# every case folder whose .expect says it validates (exit 0). Each must
# validate: one that stops validating fails, it is not left out.
roundtrip() {
	local label=$1 src=$2 d1 d2
	if ! d1=$("$AG_BIN" validate --dump "$src" 2>"$scratch/rt.err"); then
		not_ok "round trip: $label" "validate --dump $src failed:" "$(cat "$scratch/rt.err")"
		return 0
	fi
	rm -rf "$scratch/rt" && mkdir -p "$scratch/rt"
	printf '%s\n' "$d1" >"$scratch/rt/dump.yaml"
	d2=$("$AG_BIN" validate --dump "$scratch/rt" 2>/dev/null)
	check_eq "round trip: $label" "$d1" "$d2"
}
for c in "$AG_TOP"/examples/clusters/*/; do
	roundtrip "examples/$(basename "$c")" "$c"
done
for name in $names; do
	[ -d "$name" ] && [ ! -f "$name.args" ] && grep -qx 'exit 0' "$name.expect" &&
		roundtrip "$name" "$name"
done
done_testing
