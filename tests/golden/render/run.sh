#!/usr/bin/env bash
# tests/golden/render/run.sh: `artemis-gitops render` against golden files.
#
# A case NNN-slug is a cluster folder (YAML files, broker/broker.xml,
# broker/nodes/<node>.xml) and:
#   NNN-slug.args    the render arguments instead of the default
#                    `NNN-slug --out OUT --schema-dir SCHEMA` (one line,
#                    split on spaces; OUT and SCHEMA are substituted)
#   NNN-slug.expect  stderr, then `exit N`, then `--- stdout` and stdout
#                    when there is any (the output folder shows as OUT)
#   NNN-slug.out/    the files render must write, byte for byte: exactly
#                    these, no others (absent: nothing may be written)
# GOLDEN_UPDATE=1 rewrites .expect files and .out folders (review the diff!).
# The Artemis schema comes from $ARTEMIS_GITOPS_SCHEMA_DIR or is extracted
# by scripts/artemis-schema; without it every case fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

schema=${ARTEMIS_GITOPS_SCHEMA_DIR:-}
if [ -z "$schema" ]; then
	schema=$("$AG_TOP/scripts/artemis-schema" 2>"$scratch/schema.err") || {
		not_ok "Artemis schema available" "$(cat "$scratch/schema.err")"
		done_testing
		exit 1
	}
fi

# run_case NAME: render into $scratch/out; print the case's actual log.
run_case() {
	local name=$1 rc a
	local -a args
	rm -rf "$scratch/out"
	if [ -f "$here/$name.args" ]; then
		read -r -a args <"$here/$name.args"
	else
		args=("$name" --out OUT --schema-dir SCHEMA)
	fi
	for a in "${!args[@]}"; do
		case ${args[$a]} in
		OUT) args[$a]=$scratch/out ;;
		SCHEMA) args[$a]=$schema ;;
		esac
	done
	(cd "$here" && "$AG_BIN" render "${args[@]}" >"$scratch/stdout" 2>"$scratch/stderr")
	rc=$?
	sed "s|$scratch/out|OUT|g" "$scratch/stderr"
	echo "exit $rc"
	if [ -s "$scratch/stdout" ]; then
		echo "--- stdout"
		sed "s|$scratch/out|OUT|g" "$scratch/stdout"
	fi
}

cd "$here" || exit 2
names=$(ls -d [0-9][0-9][0-9]-* | sed -E 's/\.(args|expect|out)$//' | sort -u)
for name in $names; do
	actual=$(run_case "$name")
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		printf '%s\n' "$actual" >"$name.expect"
		rm -rf "$name.out"
		[ -d "$scratch/out" ] && cp -r "$scratch/out" "$name.out"
		ok "$name (updated)"
		continue
	fi
	if [ ! -f "$name.expect" ]; then
		not_ok "$name" "no $name.expect (run with GOLDEN_UPDATE=1)"
	elif diff -u "$name.expect" <(printf '%s\n' "$actual") >"$scratch/diff"; then
		ok "$name"
	else
		not_ok "$name" "$(cat "$scratch/diff")"
	fi
	# With --diff-against PREV, the printed diff is a patch that turns
	# PREV into the written files.
	prev=$(sed -n 's/.*--diff-against \([^ ]*\).*/\1/p' "$name.args" 2>/dev/null)
	if [ -n "$prev" ] && [ -d "$scratch/out" ]; then
		rm -rf "$scratch/patched" && cp -r "$prev" "$scratch/patched"
		if (cd "$scratch/patched" && patch -s -p1 <"$scratch/stdout") >"$scratch/patch.log" 2>&1 &&
			diff -r "$scratch/out" "$scratch/patched" >"$scratch/diff" 2>&1; then
			ok "$name: the diff patches $prev into the written files"
		else
			not_ok "$name: the diff patches $prev into the written files" \
				"$(cat "$scratch/patch.log")" "$(head -c 3000 "$scratch/diff")"
		fi
	fi
	if [ -d "$name.out" ]; then
		if diff -r "$name.out" "$scratch/out" >"$scratch/diff" 2>&1; then
			ok "$name: files"
		else
			not_ok "$name: files" "$(head -c 4000 "$scratch/diff")"
		fi
	elif [ -e "$scratch/out" ] && [ -n "$(ls -A "$scratch/out")" ]; then
		not_ok "$name: nothing written" "$(cd "$scratch/out" && find .)"
	else
		ok "$name: nothing written"
	fi
done

# Every rendered broker.xml differs from its base only inside <addresses>
# and <diverts>, and <address-settings> and <security-settings> when the
# cluster declares them (outside comments): where the base has one, both are cut
# down to an empty element; where it has none, the rendered one must be
# whole lines of their own, which are cut out. The only other change the
# renderer may make is to open a self-closing <core .../> to hold them
# (`<core ...>`, its children, `</core>` at the indent of core's line).
# The base is the node's file of the case's cluster folder (for a case
# with .args, the folder named first there), else its broker.xml.
outside_owned() {
	python3 - "$@" <<'PY'
import difflib, re, sys

def mask(t):  # comments blanked, offsets kept
    return re.sub(rb"<!--.*?-->", lambda m: b" " * len(m.group(0)), t, flags=re.S)

def owned(t, n, whole_lines):
    r = rb"<" + n + rb"(\s*/>|[\s>].*?</" + n + rb">)"
    if whole_lines:
        r = rb"\n[ \t]*" + r + rb"(?=[ \t]*\n)"
    return [m.span() for m in re.finditer(r, mask(t), flags=re.S)]

def cut(t, spans, repl):
    for a, b in reversed(spans):
        t = t[:a] + repl + t[b:]
    return t

base = open(sys.argv[1], "rb").read()
out = open(sys.argv[2], "rb").read()
why = []
for n in [b"addresses", b"diverts"] + [a.encode() for a in sys.argv[3:]]:
    if owned(base, n, False):
        base = cut(base, owned(base, n, False), b"<" + n + b"/>")
        out = cut(out, owned(out, n, False), b"<" + n + b"/>")
    else:
        spans = owned(out, n, True)
        if len(spans) != 1:
            why.append("the base has no <%s>: expected it inserted on lines of its own once, found %d" % (n.decode(), len(spans)))
        out = cut(out, spans, b"")
m = re.search(rb"(?m)^([ \t]*)(<core\b[^>]*?)/>", mask(base))
if m:
    base = base[:m.start(2)] + base[m.start(2):m.end(2)] + b">\n" + m.group(1) + b"</core>" + base[m.end():]
if base != out:
    why += difflib.unified_diff(base.decode("utf-8", "replace").splitlines(),
        out.decode("utf-8", "replace").splitlines(), "base", "rendered", lineterm="")
for w in why:
    print(w)
sys.exit(1 if why else 0)
PY
}
for out in [0-9][0-9][0-9]-*.out/*/broker.xml; do
	[ -f "$out" ] || continue
	name=${out%%.out/*}
	node=$(basename "$(dirname "$out")")
	cluster=$name
	[ -f "$name.args" ] && read -r cluster _ <"$name.args"
	base=$cluster/broker/nodes/$node.xml
	[ -f "$base" ] || base=$cluster/broker/broker.xml
	settings=$(cat "$cluster"/*.yaml | sed -n 's/^\(address-settings\|security-settings\):.*/\1/p' | sort -u)
	# shellcheck disable=SC2086 # the element names, one word each
	check "$out: bytes outside the owned elements are the base's ($base)" outside_owned "$base" "$out" $settings
done
# Rendering a rendered file again (as every node's own base) changes
# nothing: the splice finds its own elements and indentation.
for outdir in [0-9][0-9][0-9]-*.out; do
	[ -d "$outdir" ] || continue
	name=${outdir%.out}
	[ -f "$name.args" ] && continue # another case's cluster
	rm -rf "$scratch/again" "$scratch/again-out"
	mkdir -p "$scratch/again/broker/nodes"
	cp "$name"/*.yaml "$scratch/again/"
	for f in "$outdir"/*/broker.xml; do
		cp "$f" "$scratch/again/broker/nodes/$(basename "$(dirname "$f")").xml"
	done
	if "$AG_BIN" render "$scratch/again" --out "$scratch/again-out" \
		--schema-dir "$schema" >/dev/null 2>"$scratch/again.err" &&
		diff -r "$outdir" "$scratch/again-out" >"$scratch/diff" 2>&1; then
		ok "$name: rendering the rendered files again changes nothing"
	else
		not_ok "$name: rendering the rendered files again changes nothing" \
			"$(cat "$scratch/again.err")" "$(head -c 3000 "$scratch/diff")"
	fi
done
done_testing
