#!/usr/bin/env bash
# tests/golden/cli/run.sh: the command line's own output, byte for byte:
# every command's --help, the top-level help, --version and the usage
# errors with their exit codes.
#
#   cases         one case a line: `artemis-gitops ARGS...` (split on
#                 spaces; TOP is the top of the tree); a line starting
#                 with `~` keeps only the first line of stdout (the
#                 --describe-config table is docs/agent-config.md's);
#                 `#` starts a comment line
#   cases.expect  per case: `$ ` and the case, stderr, `exit N`, then
#                 `--- stdout` and stdout when there is any (the version
#                 shows as VERSION)
# Every command that `artemis-gitops --help` lists must also answer
# `--help` on stdout with exit 0 and nothing on stderr.
# GOLDEN_UPDATE=1 rewrites cases.expect (review the diff!).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
version=$(cat "$AG_TOP/VERSION")

# run_case LINE: print the case's actual block. It runs in an empty
# folder, so that nothing it may read or write is in the tree.
run_case() {
	local line=$1 first=0 rc
	local -a args
	if [ "${line:0:1}" = "~" ]; then
		first=1
		line=${line:1}
	fi
	read -r -a args <<<"${line//TOP/$AG_TOP}"
	mkdir -p "$scratch/cwd"
	(cd "$scratch/cwd" && env -u POSIXLY_CORRECT "$AG_BIN" "${args[@]:1}" \
		>"$scratch/stdout" 2>"$scratch/stderr" </dev/null)
	rc=$?
	echo "\$ $line"
	cat "$scratch/stderr"
	echo "exit $rc"
	if [ -s "$scratch/stdout" ]; then
		echo "--- stdout"
		if [ "$first" = 1 ]; then
			head -n 1 "$scratch/stdout"
		else
			sed "s/^artemis-gitops $version\$/artemis-gitops VERSION/" "$scratch/stdout"
		fi
	fi
}

cd "$here" || exit 2
mkdir -p "$scratch/expect"
# One file per expected block, named by its position.
awk -v d="$scratch/expect" '/^\$ /{n++} n{print > (d "/" n)}' cases.expect 2>/dev/null
n=0
: >"$scratch/all"
while IFS= read -r line; do
	case $line in '' | '#'*) continue ;; esac
	n=$((n + 1))
	run_case "$line" >"$scratch/actual"
	cat "$scratch/actual" >>"$scratch/all"
	[ "${GOLDEN_UPDATE:-0}" = 1 ] && continue
	if [ ! -f "$scratch/expect/$n" ]; then
		not_ok "${line#\~}" "not in cases.expect (run with GOLDEN_UPDATE=1)"
	elif diff -u "$scratch/expect/$n" "$scratch/actual" >"$scratch/diff"; then
		ok "${line#\~}"
	else
		not_ok "${line#\~}" "$(cat "$scratch/diff")"
	fi
done <cases
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
	cp "$scratch/all" cases.expect
	ok "cases.expect (updated, $n cases)"
elif [ -f "$scratch/expect/$((n + 1))" ]; then
	not_ok "cases.expect has no more blocks than cases" \
		"$(cat "$scratch/expect/$((n + 1))")"
fi

# Every listed command answers --help.
cmds=$("$AG_BIN" --help | sed -n '/^Commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
check_grep "artemis-gitops --help lists commands" . <(printf '%s\n' "$cmds")
for c in $cmds; do
	"$AG_BIN" "$c" --help >"$scratch/stdout" 2>"$scratch/stderr"
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$scratch/stderr" ] &&
		head -n 1 "$scratch/stdout" | grep -Eq "^Usage: artemis-gitops $c( |$)"; then
		ok "$c --help: usage on stdout, exit 0"
	else
		not_ok "$c --help: usage on stdout, exit 0" "exit $rc" \
			"$(cat "$scratch/stderr")" "$(head -n 3 "$scratch/stdout")"
	fi
done
done_testing
