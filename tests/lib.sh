# tests/lib.sh: TAP helpers for golden and integration scripts.
#
#   . "$AG_TOP/tests/lib.sh"
#   check "name" command args...        ok when the command exits 0
#   check_fails "name" command args...  ok when it exits non-zero
#   check_exit "name" CODE command...   ok when it exits with CODE
#   check_eq "name" EXPECTED ACTUAL
#   check_grep "name" PATTERN FILE      grep -E; shows FILE on failure
#   check_nogrep "name" PATTERN FILE
#   check_absent "name" PATTERN FILE KNOWN
#                                       PATTERN is not in FILE, and FILE is
#                                       readable and holds KNOWN (grep -E),
#                                       a line known to be there: an empty
#                                       or failed read cannot pass
#   done_testing                        exit status = any failure
#
# Every check prints `ok N - name` or `not ok N - name`; tests/run counts
# them. Diagnostics go after a failing line, prefixed with '# '.
_t_n=0
_t_failed=0
AG_TOP=${AG_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
AG_BIN=${AG_BIN:-$AG_TOP/build/asan/artemis-gitops}

ok() {
	_t_n=$((_t_n + 1))
	echo "ok $_t_n - $1"
}

not_ok() {
	_t_n=$((_t_n + 1))
	_t_failed=$((_t_failed + 1))
	echo "not ok $_t_n - $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
	return 0
}

check() {
	local name=$1 o
	shift
	if o=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$o"; fi
}

check_fails() {
	local name=$1 o
	shift
	if o=$("$@" 2>&1); then not_ok "$name" "unexpected success:" "$o"; else ok "$name"; fi
}

check_exit() {
	local name=$1 want=$2 o rc
	shift 2
	o=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$name"; else not_ok "$name" "exit $rc, expected $want" "$o"; fi
}

check_eq() {
	if [ "$2" == "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2" "actual:   $3"; fi
}

check_grep() {
	if grep -qE -- "$2" "$3" 2>/dev/null; then ok "$1"; else
		not_ok "$1" "pattern not found: $2" "in $3:" "$(head -c 3000 "$3" 2>/dev/null)"
	fi
}

check_nogrep() {
	local rc
	grep -qE -- "$2" "$3" 2>/dev/null
	rc=$?
	if [ "$rc" -eq 1 ]; then
		ok "$1"
	elif [ "$rc" -eq 0 ]; then
		not_ok "$1" "pattern unexpectedly found: $2" "$(grep -nE -- "$2" "$3" | head -5)"
	else
		not_ok "$1" "cannot read '$3' (grep exit $rc)"
	fi
}

check_absent() {
	if ! [ -r "$3" ]; then
		not_ok "$1" "cannot read '$3'"
	elif ! grep -qE -- "$4" "$3"; then
		not_ok "$1" "'$3' lacks '$4', which is known to be there (a failed or empty read?):" "$(head -c 2000 "$3")"
	else
		check_nogrep "$1" "$2" "$3"
	fi
}

# tap_import FILE PREFIX: another program's `ok - NAME` / `not ok - NAME`
# lines (a not ok's "# " lines after it its detail) as this script's
# results, named PREFIX NAME (tests/tools/comment-check.py's, for one).
tap_import() {
	local -a lines detail
	local i j
	mapfile -t lines <"$1"
	for ((i = 0; i < ${#lines[@]}; i++)); do
		case ${lines[i]} in
		'ok - '*) ok "$2${lines[i]#ok - }" ;;
		'not ok - '*)
			detail=()
			for ((j = i + 1; j < ${#lines[@]}; j++)); do
				[ "${lines[j]:0:2}" = "# " ] || break
				detail+=("${lines[j]:2}")
			done
			not_ok "$2${lines[i]#not ok - }" "${detail[@]}"
			;;
		esac
	done
}

# help_options CMD: the options of `artemis-gitops CMD --help` (-h and -V
# included), one a line: what its Options: labels name ("  -c, --config
# FILE   ..."), not what the help texts mention.
help_options() {
	"$AG_BIN" "$1" --help | sed -n '/^Options:$/,/^$/p' | grep -E '^  -' |
		sed -E 's/^  (([^ ]| [^ ])*).*/\1/' | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' |
		tr -d ' ,' | sort -u
}

done_testing() {
	echo "1..$_t_n"
	[ "$_t_failed" -eq 0 ]
}
