#!/usr/bin/env bash
# The declarations' JSON Schema (schema/declarations.schema.json): what
# `artemis-gitops schema` prints from the loader's tables, byte for byte
# (regenerate with `make schema`), and in agreement with the loader
# (tests/tools/schema-check.py with Debian's python3-jsonschema: every
# example, golden and bench declaration valid; the golden refusals for a
# type, key, enum or bound refused at the same place; mutations of every
# key generated from the schema refused by both; the defaults the
# loader's). No broker needed.
. "$AG_TOP/tests/lib.sh"
cd "$AG_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
[ -x "$py" ] || py=python3

check_exit "schema exits 0" 0 "$AG_BIN" schema
"$AG_BIN" schema >"$tmp/schema.json" 2>"$tmp/err"
if diff -u schema/declarations.schema.json "$tmp/schema.json" >"$tmp/diff"; then
	ok "schema/declarations.schema.json is what 'artemis-gitops schema' prints"
else
	not_ok "schema/declarations.schema.json is what 'artemis-gitops schema' prints" \
		"regenerate it: make schema" "$(head -40 "$tmp/diff")"
fi
# the comparison bites: one changed description is a difference
sed 's/"Messages survive a broker restart."/"Messages survive."/' "$tmp/schema.json" >"$tmp/changed.json"
check_fails "a schema that differs is caught" cmp -s "$tmp/changed.json" "$tmp/schema.json"
check_exit "schema takes no argument (64)" 64 "$AG_BIN" schema extra
check_grep "schema --help names the format" 'JSON Schema \(draft 2020-12\)' <("$AG_BIN" schema --help)
check "python3-jsonschema is installed" "$py" -c 'import jsonschema, yaml'

"$py" tests/tools/schema-check.py "$tmp/schema.json" "$AG_BIN" "$AG_TOP" >"$tmp/check.out" 2>&1
rc=$?
check_eq "schema-check.py exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || tail -20 "$tmp/check.out" | sed 's/^/# /'
tap_import "$tmp/check.out" "schema: "
check_grep "schema-check.py checked the golden refusals" '^ok - refused: tests/golden/decl/' "$tmp/check.out"
check_grep "schema-check.py checked the examples" '^ok - valid: examples/clusters/' "$tmp/check.out"
done_testing
