#!/usr/bin/env bash
# The MCP server (issue 24, docs/mcp.md) on the wire, where no SDK lets a
# client go (tests/mcp/wire.py, a raw JSON-RPC client; every case a fresh
# server process): malformed JSON-RPC (truncated JSON, invalid UTF-8,
# duplicate keys, nesting past 64, non-objects, jsonrpc 1.0, null and
# fractional ids, a method that is no string, params an array) answered
# -32700 / -32600 / -32602 with the id where it could be read; unknown
# methods -32601; notifications and stray responses left unanswered; a
# 2 MiB message refused naming the cap while the server reads on; requests
# before initialize; the negotiation of every revision (2025-11-25,
# 2025-06-18, 2025-03-26, 2024-11-05; 2024-10-07 and unknown ones get
# 2025-11-25) and what each one's results carry (annotations, titles,
# structuredContent, wrong argument types as -32602 or isError),
# 2025-03-26's batches; 2026-07-28 without initialize (server/discover,
# _meta, -32022 for an unknown revision, -32602 for a missing field); a
# stdin closed in the middle of a message and of a request reading the
# suite's real brokers, a stdout closed under it, SIGTERM: each a clean
# exit (0, or 1 for the lost stdout), never a crash, with the sanitizer
# build's checks on.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t98w-$$

R=$TMP/repo
git init -q -b main "$R"
mkdir -p "$R/clusters/$u"
{
	echo "version: 1"
	echo "cluster: $u"
	echo "mode: STUDIO_MANAGED"
	echo "nodes:"
	for n in "${NODES[@]}"; do
		echo "  - name: $n"
		echo "    jolokia: ${URL[$n]}"
		echo "    credentials: $(basename "${CRED[$n]}")"
	done
} >"$R/clusters/$u/cluster.yaml"
git -C "$R" add -A
git -C "$R" -c user.name=Tester -c user.email=t@example.com commit -q -m "cluster $u"
cat >"$TMP/agent.yaml" <<EOC
version: 1
repository:
  url: file://$R
  path: clusters
state: $TMP/state
credentials: $CREDDIR
EOC

: >"$TMP/mcp.log"
timeout 600 python3 tests/mcp/wire.py "$TMP/mcp.log" "$u" -- \
	"$AG_BIN" mcp --config "$TMP/agent.yaml" --repo "$R" >"$TMP/wire.tap" 2>"$TMP/wire.err"
check_eq "wire.py ran to its end" 0 $?
[ ! -s "$TMP/wire.err" ] || sed 's/^/# wire.py: /' "$TMP/wire.err" | head -20
tap_import "$TMP/wire.tap" "wire: "
check_grep "wire.py's checks were read" '^ok - malformed: truncated JSON' "$TMP/wire.tap"
check_grep "the log names a refused message and why" \
	"warning mcp: message refused: Parse error: line 1, column [0-9]+: not valid JSON" "$TMP/mcp.log"
check_grep "the log names the torn message" \
	"stdin closed in the middle of a message \(3[0-9] bytes\), which is dropped" "$TMP/mcp.log"
check_grep "the log names the oversized one" "a message of 2097[0-9]+ bytes, past this server's cap" "$TMP/mcp.log"
check_grep "the log says stdout was lost" "err mcp: stdout is closed: stopping" "$TMP/mcp.log"
check_grep "the log says the signal" "notice mcp: signal 15: stopping" "$TMP/mcp.log"
check_nogrep "no sanitizer report in any server's log" "AddressSanitizer|runtime error|LeakSanitizer" "$TMP/mcp.log"
done_testing
