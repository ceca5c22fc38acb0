#!/usr/bin/env bash
# The MCP server (issue 24, docs/mcp.md) driven by a client nobody here
# wrote: the official TypeScript SDK (@modelcontextprotocol/sdk, pinned by
# tests/mcp/package-lock.json, installed by scripts/mcp-deps), whose Client
# spawns `artemis-gitops mcp --config FILE --repo R --credentials RO` over
# its StdioClientTransport (tests/mcp/sdk-client.mjs holds the checks),
# against the suite's two real brokers.
#
# On every node: address $u.src (queue $u.src), address $u.a whose last
# queue is $u.q with a consumer attached, a divert $u.d from $u.src into
# $u.a (it depends on $u.q: ADR-0084 D1) and a divert $u.k sourced at $u.a
# (kept: D4). The MCP server gets a credentials folder holding only the
# brokers' read-only user (scripts/artemis's `viewer`, role view), which the
# broker's RBAC is first shown to refuse a create. The SDK lists the tools
# (no approve, no apply), explains $u.q (the dependent divert removed with
# it, the kept one with its reason, HAS_CONSUMERS), plans its delete
# without the flag (refused, naming the count and the flag) and with it
# (warned, approvable by a person), reads the preview as a resource, and
# tries what must be refused (an unknown tool, a wrong argument type, an
# unknown method, a path out of the outbox). Afterwards the brokers, read
# with curl through Jolokia (never through the agent), are unchanged: the
# same queues, diverts and addresses, the consumer still attached, and no
# preview approved. The server's log names every tool call and its
# arguments, and no secret.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t98s-$$
consumers=()
stop_consumers() {
	local p
	for p in "${consumers[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	consumers=()
}
trap 'stop_consumers; janitor "$u"; _brokers_cleanup' EXIT

if ! mods=$(scripts/mcp-deps 2>"$TMP/mcp-deps.log"); then
	not_ok "the SDK and the conformance suite (scripts/mcp-deps)" "$(cat "$TMP/mcp-deps.log")"
	done_testing
	exit 1
fi
ok "@modelcontextprotocol/sdk installed ($mods)"

# ---- the brokers ----------------------------------------------------------
for n in "${NODES[@]}"; do
	check_eq "$n: $u.src, $u.a with its last queue $u.q, $u.out, the diverts $u.d (into $u.a) and $u.k (from $u.a), a capture tap on $u.a" OK "$(broker_bulk "$n" "
ops = [addr('$u.src'), queue(name='$u.src', address='$u.src'),
       addr('$u.a'), queue(name='$u.q', address='$u.a'),
       addr('$u.out'), queue(name='$u.out', address='$u.out'),
       divert(name='$u.d', address='$u.src', **{'forwarding-address': '$u.a', 'routing-name': '$u.d'}),
       divert(name='$u.k', address='$u.a', **{'forwarding-address': '$u.out', 'routing-name': '$u.k'}),
       divert(name='__capture.$u.tap', address='$u.a', exclusive=False, **{'forwarding-address': '$u.out', 'routing-name': '__capture.$u.tap'})]
print(json.dumps(ops))")"
	"$ARTEMIS" consumer "$n" "$u.q" >"$TMP/consumer-$n.log" 2>&1 &
	consumers+=($!)
	check "$n: a consumer attached to $u.q" "$ARTEMIS" wait-consumers "$n" "$u.q" 1 60
done

# The read-only user: the broker's own RBAC refuses it a create.
n1=${NODES[0]}
admin=${CRED[$n1]}
CRED[$n1]=$admin-viewer
refusal=$(broker_bulk "$n1" "print(json.dumps([addr('$u.viewer')]))")
CRED[$n1]=$admin
check_eq "$n1's RBAC: the viewer may not create an address" \
	"1 failed, first: java.lang.Exception : User not authorized to access operation: createAddress" "$refusal"

# ---- the declarations repository, the configuration, the credentials -----
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
commit=$(git -C "$R" rev-parse HEAD)
# the MCP server's credentials folder: each node's file holds the viewer
mkdir -m 700 "$TMP/ro"
for n in "${NODES[@]}"; do
	install -m 600 "${CRED[$n]}-viewer" "$TMP/ro/$(basename "${CRED[$n]}")"
done
cat >"$TMP/agent.yaml" <<EOC
version: 1
repository:
  url: file://$R
  path: clusters
state: $TMP/state
credentials: $CREDDIR
EOC

# ---- the brokers as they are, read with curl ------------------------------
fingerprint() {
	local n
	for n in "${NODES[@]}"; do
		echo "$n queues: $(broker_names "$n" queues | grep -F "$u" | tr '\n' ' ')"
		echo "$n diverts: $(broker_names "$n" diverts | grep -F "$u" | tr '\n' ' ')"
		echo "$n addresses: $(broker_names "$n" addresses | grep -F "$u" | tr '\n' ' ')"
		echo "$n $u.q: $(broker_attr "$n" queues "$u.q" ConsumerCount MessageCount)"
		echo "$n $u.d: $(broker_attr "$n" diverts "$u.d" Address ForwardingAddress)"
	done
}
fingerprint >"$TMP/before"
check_grep "the fingerprint holds the divert" "$u.d" "$TMP/before"

# ---- the SDK's session ----------------------------------------------------
: >"$TMP/mcp.log"
args=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' \
	mcp --config "$TMP/agent.yaml" --repo "$R" --credentials "$TMP/ro")
AG_MCP_MODULES=$mods/node_modules AG_MCP_BIN=$AG_BIN AG_MCP_ARGS=$args \
	AG_MCP_STDERR=$TMP/mcp.log AG_MCP_OUT=$TMP/out.json AG_MCP_CLUSTER=$u \
	AG_MCP_QUEUE=$u.q AG_MCP_DIVERT=$u.d AG_MCP_SOURCE_DIVERT=$u.k \
	AG_MCP_TAP=__capture.$u.tap AG_MCP_COMMIT=$commit \
	timeout 300 node tests/mcp/sdk-client.mjs >"$TMP/sdk.tap" 2>"$TMP/sdk.err"
check_eq "the SDK client's script ran to its end" 0 $?
[ ! -s "$TMP/sdk.err" ] || sed 's/^/# node: /' "$TMP/sdk.err" | head -20
tap_import "$TMP/sdk.tap" "sdk: "
check_grep "the SDK's checks were read" '^ok - the SDK client connects' "$TMP/sdk.tap"

# ---- the previews ---------------------------------------------------------
refused=$(rj "$TMP/out.json" 'j.get("refused") or ""')
warned=$(rj "$TMP/out.json" 'j.get("warned") or ""')
check "the refused preview is in the outbox" test -f "$refused/plan.json"
check_eq "... REFUSED, disconnect_consumers false" '["REFUSED", false]' \
	"$(rj "$refused/plan.json" '[j["outcome"], j["disconnect_consumers"]]')"
check_grep "... its request.txt says it came through MCP" '^via mcp$' "$refused/request.txt"
check "the warned preview is in the outbox" test -f "$warned/plan.json"
check_eq "... WOULD_APPLY, disconnect_consumers true" '["WOULD_APPLY", true]' \
	"$(rj "$warned/plan.json" '[j["outcome"], j["disconnect_consumers"]]')"
check_eq "... its confirmation is what the tool said" "$(rj "$TMP/out.json" 'j["confirmation"]')" \
	"$(rj "$warned/plan.json" 'j["confirmation"]')"
check_eq "nothing in the outbox is approved or applied" "" \
	"$(find "$TMP/state/outbox" -name approval.json -o -name result.json)"
check_eq "no audit row was written" "absent" "$([ -e "$TMP/state/audit.jsonl" ] && echo present || echo absent)"

# ---- the brokers afterwards: unchanged ------------------------------------
fingerprint >"$TMP/after"
check_eq "the brokers are unchanged (curl through Jolokia)" "$(cat "$TMP/before")" "$(cat "$TMP/after")"
check_grep "... the consumer still attached to $u.q" "$u.q: \[1, 0\]" "$TMP/after"

# ---- the server's log -----------------------------------------------------
check_grep "the log names a tool call with its arguments" \
	"info mcp: tool plan_delete_queue \{\"cluster\":\"$u\",\"queue\":\"$u.q\",\"disconnect_consumers\":true\}" "$TMP/mcp.log"
check_grep "the log names the wrong argument" "tool plan_delete_queue: argument 'queue' must be a string" "$TMP/mcp.log"
check_grep "the server stopped when the SDK closed stdin" "stdin closed: stopping" "$TMP/mcp.log"
for n in "${NODES[@]}"; do
	pw=$(cut -d: -f2- "${CRED[$n]}-viewer")
	check_absent "no password of $n's viewer in the log" "$pw" "$TMP/mcp.log" "serving MCP over stdio"
done
check_nogrep "no sanitizer report in the log" "AddressSanitizer|runtime error|LeakSanitizer" "$TMP/mcp.log"
done_testing
