#!/usr/bin/env bash
# The man pages (man/, mdoc): mandoc's lint is silent (make lint-man, also
# part of make lint); artemis-gitops(1) names every command and, per
# command, exactly the options of its --help; artemis-gitops.yaml(5) every
# configuration key of the loader's table; artemis-gitops-declarations(5)
# every key of the generated JSON Schema (tests/tools/man-check.py). The
# checks bite on pages with an option or a key taken out. make install-man
# installs the three. scripts/install-deps installs mandoc.
. "$AG_TOP/tests/lib.sh"
cd "$AG_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
[ -x "$py" ] || py=python3

check "mandoc is installed" command -v mandoc
check "make lint-man: mandoc -Tlint finds nothing" make -s lint-man
# the lint bites: an item outside any list
cp man/artemis-gitops.1 "$tmp/bad.1"
printf '.It Fl -nowhere\n' >>"$tmp/bad.1"
check_fails "mandoc -Tlint reports a broken page" make -s lint-man MAN_PAGES="$tmp/bad.1"

for p in man/*.[1-8]; do
	out=$(mandoc -Tutf8 "$p" 2>&1 | col -b)
	case $out in
	*NAME*SYNOPSIS*DESCRIPTION*) ok "$p renders" ;;
	*) not_ok "$p renders" "$(printf '%s' "$out" | head -20)" ;;
	esac
done

"$py" tests/tools/man-check.py man "$AG_BIN" schema/declarations.schema.json >"$tmp/check.out" 2>&1
check_eq "man-check.py exits 0" 0 "$?"
tap_import "$tmp/check.out" "man: "

# The check bites: each page with one option or key taken out.
mkdir -p "$tmp/cut"
cp man/*.[1-8] "$tmp/cut/"
sed -i '0,/^\.It Fl -snapshot Ar FILE$/{/^\.It Fl -snapshot Ar FILE$/d}' "$tmp/cut/artemis-gitops.1"
sed -i '/^\.It Ic http\.session-ttl$/d' "$tmp/cut/artemis-gitops.yaml.5"
sed -i '/^\.It Ic ring-size$/d' "$tmp/cut/artemis-gitops-declarations.5"
"$py" tests/tools/man-check.py "$tmp/cut" "$AG_BIN" schema/declarations.schema.json >"$tmp/cut.out" 2>&1
check_grep "a command's option missing from the man page is caught" \
	'^not ok - artemis-gitops\(1\) render: the options of its --help' "$tmp/cut.out"
check_grep "a configuration key missing is caught" \
	"^not ok - artemis-gitops.yaml\(5\) .*" "$tmp/cut.out"
check_grep "a declaration key missing is caught" \
	"^not ok - artemis-gitops-declarations\(5\) (queues|captures):" "$tmp/cut.out"

check "make install-man" make -s install-man DESTDIR="$tmp/dest" PREFIX=/usr
for p in man1/artemis-gitops.1 man5/artemis-gitops.yaml.5 man5/artemis-gitops-declarations.5; do
	check "installed: $p" test -f "$tmp/dest/usr/share/man/$p"
done
done_testing
