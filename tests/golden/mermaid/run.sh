#!/usr/bin/env bash
# tests/golden/mermaid/run.sh: plan.md's blast-radius diagrams (```mermaid
# blocks, reconcile/plan/plan-mermaid.c) rendered by the official Mermaid
# CLI, mmdc (@mermaid-js/mermaid-cli as pinned by tests/mermaid/, installed
# by scripts/mermaid-deps), in Debian's chromium (headless, through
# tests/mermaid/puppeteer-config.json; AG_CHROMIUM for another). A diagram
# GitHub or GitLab could not draw fails here: mmdc exits non-zero on a
# syntax error, which the first run proves on a broken diagram.
#
# Rendered: every block of every golden delete case's expected plan.md
# (tests/golden/recon/*/expect/plan.md; each distinct text once, since the
# same text renders the same), and those of build/asan/tools/graph-md:
# hostile names, a capped large case. All in one Markdown
# file, so one mmdc run and one Chromium: each diagram still costs a page.
. "$AG_TOP/tests/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chromium=${AG_CHROMIUM:-/usr/bin/chromium}
conf=$AG_TOP/tests/mermaid/puppeteer-config.json

if ! [ -x "$chromium" ] || ! mods=$("$AG_TOP/scripts/mermaid-deps" 2>"$tmp/deps.log"); then
	not_ok "chromium at $chromium and the Mermaid CLI (scripts/mermaid-deps)" "$(cat "$tmp/deps.log")"
	done_testing
	exit 1
fi
mmdc=$mods/node_modules/.bin/mmdc
ok "the Mermaid CLI $(jq -r .version "$mods/node_modules/@mermaid-js/mermaid-cli/package.json") ($mods)"
if [ "$chromium" != /usr/bin/chromium ]; then
	jq --arg c "$chromium" '.executablePath = $c' "$conf" >"$tmp/puppeteer.json"
	conf=$tmp/puppeteer.json
fi
check_grep "the puppeteer config: chromium headless, no sandbox, no background networking" \
	'"--disable-background-networking"' "$conf"

# blocks FILE...: each ```mermaid block of the files, each distinct text
# once, as one Markdown file on stdout; "FILE N" per file on fd 3.
blocks() {
	python3 - "$@" <<'PY'
import os, re, sys
seen = []
for f in sys.argv[1:]:
    text = open(f, encoding="utf-8").read()
    found = re.findall(r"^```mermaid\n(.*?)^```$", text, re.S | re.M)
    os.write(3, f"{f} {len(found)}\n".encode())
    for b in found:
        if b not in seen:
            seen.append(b)
for b in seen:
    sys.stdout.write("```mermaid\n" + b + "```\n\n")
PY
}

# Every golden case with a delete-queue action has a block per action at
# least; a case without one has none.
blocks "$AG_TOP"/tests/golden/recon/*/expect/plan.md >"$tmp/golden.md" 3>"$tmp/counts"
cases=0
while read -r f n; do
	c=$(basename "$(dirname "$(dirname "$f")")")
	a=$(jq '[.actions[] | select(.kind == "delete-queue")] | length' "$(dirname "$f")/plan.json")
	if [ "$a" -gt 0 ]; then
		cases=$((cases + 1))
		if [ "$n" -ge "$a" ]; then ok "$c: $n diagram(s) for $a queue delete(s)"; else
			not_ok "$c: $n diagram(s) for $a queue delete(s)"; fi
	elif [ "$n" -ne 0 ]; then
		not_ok "$c: $n diagram(s) without a queue delete"
	fi
done <"$tmp/counts"
check "golden delete cases found ($cases)" test "$cases" -ge 20
if "$AG_TOP/build/asan/tools/graph-md" >"$tmp/tool.md" 2>"$tmp/tool.err"; then
	ok "graph-md: hostile names, a large case"
else
	not_ok "graph-md: hostile names, a large case" "$(cat "$tmp/tool.err")"
fi
blocks "$tmp/tool.md" >"$tmp/hostile.md" 3>/dev/null
cat "$tmp/golden.md" "$tmp/hostile.md" >"$tmp/all.md"
n=$(grep -c '^```mermaid$' "$tmp/all.md")

# It can fail: a diagram with a syntax error makes mmdc exit non-zero.
# This run goes beside the main one (its own Chromium): on two cores it
# costs no wall time of its own.
printf '```mermaid\nflowchart LR\n    n0["address<br/>a"]\n    n0 -->|"x"\n```\n' >"$tmp/broken.md"
mkdir "$tmp/broken" "$tmp/out"
timeout 120 "$mmdc" -q -p "$conf" -i "$tmp/broken.md" -o "$tmp/broken/out.md" >"$tmp/broken.log" 2>&1 &
broken=$!

# The diagrams: all of them, in one run.
start=$(date +%s%N)
timeout 300 "$mmdc" -q -p "$conf" -i "$tmp/all.md" -o "$tmp/out/all.md" >"$tmp/mmdc.log" 2>&1
rc=$?
took=$((($(date +%s%N) - start) / 100000000))
took=$((took / 10)).$((took % 10))
if wait "$broken"; then
	not_ok "a broken diagram: mmdc fails" "$(cat "$tmp/broken.log")"
else
	check_grep "a broken diagram: mmdc fails with a parse error" 'Parse error|Syntax error|Expecting' "$tmp/broken.log"
fi
if [ "$rc" -eq 0 ]; then
	ok "mmdc renders the $n distinct diagrams ($(grep -c '^```mermaid$' "$tmp/golden.md") golden, $(grep -c '^```mermaid$' "$tmp/hostile.md") graph-md) in $took s"
else
	not_ok "mmdc renders the $n distinct diagrams (exit $rc)" "$(tail -n 30 "$tmp/mmdc.log")"
fi
check_eq "one SVG per diagram" "$n" "$(find "$tmp/out" -name 'all-*.svg' | wc -l)"
check_nogrep "no diagram drawn as Mermaid's syntax-error picture" 'Syntax error in|aria-roledescription="error"' <(cat "$tmp"/out/all-*.svg 2>/dev/null)
check_nogrep "no <script> element in any SVG" '<script' <(cat "$tmp"/out/all-*.svg 2>/dev/null)
# names drawn as text: a name of HTML, a right-to-left override made
# visible, the cap's count
check_grep "a name of HTML is text" '&lt;script&gt;alert\(1\)&lt;/script&gt;' <(cat "$tmp"/out/all-*.svg 2>/dev/null)
check_grep "a right-to-left override is shown as <U+202E>" 'rl&lt;U\+202E&gt;o' <(cat "$tmp"/out/all-*.svg 2>/dev/null)
check_grep "the large case's rest counted" 'and 334 more' <(cat "$tmp"/out/all-*.svg 2>/dev/null)
done_testing
