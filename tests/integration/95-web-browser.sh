#!/usr/bin/env bash
# Approval from a real browser (issue 18): Debian's chromium, headless,
# driven through the Chrome DevTools Protocol (puppeteer-core, pinned by
# tests/browser/package-lock.json, installed by scripts/browser-deps)
# against `artemis-gitops run` with its web server on, two real brokers,
# and tokens in files of its credentials folder: an approver (alice) and a
# viewer (grafana).
#
# A commit removes a declared queue whose address is the forwarding address
# of a runtime divert (removed with it: ADR-0084's dependent divert) and the
# source address of another (kept), on both brokers; the daemon posts a
# pending delete preview. The browser signs in with the token typed into
# the form, finds the preview on the status page, reads its blast radius
# per node (the divert removed, the divert kept and why; drawn as one SVG
# by the server, since both nodes agree), types the
# confirmation the page shows, submits, and the daemon applies it: both
# brokers, read with curl through Jolokia (never through the agent), no
# longer have the queue nor the dependent divert, and keep the other.
#
# Before that, what must be refused is tried from the same browser and
# changes nothing (the queue and both diverts still on both brokers, no
# approval.json): a wrong token (401), the viewer's approval (403), a wrong
# confirmation (422), a form without its CSRF token (403), a form posted
# from another origin of the same site, which the browser sends with the
# session cookie, even carrying the right CSRF token (403).
#
# Last, outside the cluster's sync window (a test clock): a change's
# preview page shows the "Override the sync window" checkbox, unticked;
# the browser ticks it and approves: approval.json says override_window,
# the daemon applies it at once, and the audit rows name alice.
#
# Screenshots (PNG) of every step are kept under
# $AG_OUT/95-web-browser/ (tests/run's logs folder; tests/out by default).
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t95-$$
daemon_setup t95
trap 'janitor "$u"; daemon_cleanup; _brokers_cleanup' EXIT
shots=${AG_OUT:-$AG_TOP/tests/out}/95-web-browser
rm -rf "$shots"
mkdir -p "$shots"
port=$((${ARTEMIS_PORT_BASE:-100} + 510))
base=http://127.0.0.1:$port
chromium=${AG_CHROMIUM:-/usr/bin/chromium}

if ! [ -x "$chromium" ] || ! mods=$(scripts/browser-deps 2>"$T/browser-deps.log"); then
	not_ok "a browser and its CDP client (chromium at $chromium, scripts/browser-deps)" "$(cat "$T/browser-deps.log")"
	done_testing
	exit 1
fi
ok "chromium and puppeteer-core ($mods)"

# The credentials folder: the brokers' credentials and two tokens, each a
# file of mode 0600.
creds=$T/creds
mkdir -m 0700 "$creds"
cp -p "$CREDS"/* "$creds/"
newtoken() { (umask 077 && head -c 24 /dev/urandom | base64 | tr -d '/+=\n' >"$creds/$1" && echo >>"$creds/$1"); }
newtoken alice.token
newtoken grafana.token
sed -i "s|^credentials: .*|credentials: $creds|" "$T/agent.yaml"
cat >>"$T/agent.yaml" <<EOC
auto-apply-creates: true
http:
  listen: 127.0.0.1:$port
  approver-tokens: [alice.token]
  viewer-tokens: [grafana.token]
# one allow window a day, judged at the test clock's time (docs/policy.md)
sync-windows:
  - kind: allow
    schedule: 0 0 * * *
    duration: 1h
    time-zone: UTC
EOC
# inside the window until the override step moves the clock out of it
export ARTEMIS_GITOPS_WINDOW_CLOCK_FILE=$T/clock
echo 2026-12-02T00:30:00Z >"$T/clock"

# v1: three addresses, each with its queue; applied on its own (creates)
addr() { echo "  - {name: $u.$1, routing: [anycast], queues: [{name: $u.$1}]}"; }
# and a queue whose name is markup: the pages must show it as text
hostile="$u.<i>x</i>&amp;\"q'"
hostile_yaml() {
	local q=${hostile//\"/\\\"}
	echo "  - {name: \"$q\", routing: [anycast], queues: [{name: \"$q\"}]}"
}
{
	echo "version: 1"
	echo "addresses:"
	addr a
	addr s
	addr x
	hostile_yaml
} >"$T/work/clusters/t95/addresses.yaml"
c1=$(daemon_commit "t95: queues a, s, x")
daemon_start
check "the daemon answers /healthz on $base" wait_for 60 curl -fsS "$base/healthz"
applied() { [ -f "$(preview_of "$1")/result.json" ]; }
check "v1 applied by auto-apply-creates" wait_for 120 applied "$c1"
p1=$(preview_of "$c1")
check_applied "v1: every node APPLIED" "$p1"

# runtime diverts on both brokers: d (s -> a) depends on the queue a (the
# last queue of its forwarding address), k (a -> x) is sourced at a's
# address and stays
for n in "${NODES[@]}"; do
	check_eq "$n: runtime divert $u.d ($u.s -> $u.a)" OK "$(jexec "$n" create-divert "$u.d" "$u.s" "$u.a" routing-type=ANYCAST)"
	check_eq "$n: runtime divert $u.k ($u.a -> $u.x)" OK "$(jexec "$n" create-divert "$u.k" "$u.a" "$u.x" routing-type=ANYCAST)"
done

# v2: the queue a leaves the declaration (its address stays)
{
	echo "version: 1"
	echo "addresses:"
	echo "  - {name: $u.a, routing: [anycast]}"
	addr s
	addr x
	hostile_yaml
} >"$T/work/clusters/t95/addresses.yaml"
c2=$(daemon_commit "t95: queue a removed")
check "v2 previewed" wait_for 120 has_preview "$c2"
p2=$(preview_of "$c2")
check_eq "v2 would apply (plan.json)" WOULD_APPLY "$(rj "$p2/plan.json" 'j["outcome"]')"
check_eq "v2 deletes the queue a" "[\"delete-queue:$u.a\"]" "$(rj "$p2/plan.json" '[a["kind"] + ":" + a["name"] for a in j["actions"]]')"
C=$(confirm_of "$p2")
check "v2 is pending: no approval" test ! -e "$p2/approval.json"

# brokers_state: what both brokers hold of the three objects, read with curl
brokers_state() {
	local n
	for n in "${NODES[@]}"; do
		printf '%s: queue %s, divert d %s, divert k %s\n' "$n" \
			"$(broker_names "$n" queues | grep -cx "$u.a")" \
			"$(broker_names "$n" diverts | grep -cx "$u.d")" \
			"$(broker_names "$n" diverts | grep -cx "$u.k")"
	done
}
before=$(brokers_state)
check_eq "before: both brokers have the queue and both diverts (curl)" \
	"$(printf '%s: queue 1, divert d 1, divert k 1\n' "${NODES[@]}")" "$before"

# a queue nobody declared, for the delete-queue form
for n in "${NODES[@]}"; do
	check_eq "$n: an undeclared queue $u.z" OK "$(jexec "$n" create-address "$u.z" anycast >/dev/null && jexec "$n" create-queue "$u.z" "$u.z" anycast)"
done

# another origin of the same site, serving what the browser writes there
mkdir "$T/evil"
evil_port=$((port + 1))
python3 -m http.server --bind 127.0.0.1 --directory "$T/evil" "$evil_port" >"$T/evil.log" 2>&1 &
evil_pid=$!
trap 'kill "$evil_pid" 2>/dev/null; janitor "$u"; daemon_cleanup; _brokers_cleanup' EXIT

# the browser
rel=${p2#"$T/state/outbox/"}
cat >"$T/browser.json" <<EOC
{"base": "$base", "cluster": "t95", "node_modules": "$mods/node_modules",
 "viewer_token_file": "$creds/grafana.token",
 "approver_token_file": "$creds/alice.token",
 "confirmation": $(printf '%s' "$C" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'),
 "hostile": $(printf '%s' "$hostile" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'),
 "v1_href": "/clusters/t95/previews/${p1##*/}",
 "dq_queue": "$u.z",
 "evil_dir": "$T/evil", "evil_base": "http://127.0.0.1:$evil_port",
 "shots": "$shots", "out": "$T/seen.json", "ready": "$T/ready", "go": "$T/go",
 "ready2": "$T/ready2", "go2": "$T/go2",
 "chromium": "$chromium"}
EOC
(cd "$mods" && timeout 300 node "$AG_TOP/tests/browser/approve-delete.mjs" "$T/browser.json") >"$T/node.log" 2>&1 &
npid=$!
wait_for 200 test -f "$T/ready" || true
s() { jq -r "$1" "$T/seen.json" 2>/dev/null; }
check "the browser reached the refusals (see $T/node.log)" test -f "$T/ready"
check_grep "a headless chromium: --headless=new, --no-sandbox" '"--headless=new"' "$T/seen.json"
check_eq "nobody: / sends the browser to /login (303)" "303 $base/login" "$(s '"\(.anonymous.redirects[0]) \(.anonymous.url)"')"
check_eq "the page's headers: CSP, nosniff, no-store, no-referrer" \
	"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'|nosniff|no-store|no-referrer" \
	"$(s '[.login_headers.csp, .login_headers.nosniff, .login_headers.cache, .login_headers.referrer] | join("|")')"
check_eq "a wrong token: the form again, 401, 'wrong token'" "401 true" "$(s '"\(.wrong_token.status) \(.wrong_token.says)"')"
check_eq "the viewer signs in: 303 to the status page" "303 $base/ signed in as grafana (viewer)" \
	"$(s '"\(.viewer_login.redirects[0]) \(.viewer_login.url) \(.viewer_login.says)"')"
check_eq "the viewer finds the preview" "/clusters/t95/previews/${rel#t95/}" "$(s .viewer_found)"
check_eq "the viewer's preview page has no approve form, and says why" "200 false true" \
	"$(s '"\(.viewer_preview.status) \(.viewer_preview.has_form) \(.viewer_preview.says)"')"
check_eq "the viewer's approval (its CSRF token, the right text): 403" "403 true" "$(s '"\(.viewer_approve.status) \(.viewer_approve.says)"')"
check_eq "sign out: 303 to /login" "303 $base/login" "$(s '"\(.viewer_logout.redirects[0]) \(.viewer_logout.url)"')"
check_eq "the approver signs in" "303 $base/ signed in as alice (approver)" \
	"$(s '"\(.approver_login.redirects[0]) \(.approver_login.url) \(.approver_login.says)"')"
check_eq "the status page lists the pending delete preview" "/clusters/t95/previews/${rel#t95/}" "$(s .found)"
s .status_text >"$T/status.txt"
for n in "${NODES[@]}"; do
	check_grep "the status page: $n up" "^$n	up	" "$T/status.txt"
done
check_grep "the status page: the applied revision is v1" "Applied revision: $c1" "$T/status.txt"
check_grep "the status page: the delete-queue form's caveat" "may reconnect and re-create an auto-created queue" "$T/status.txt"
check_eq "the preview page: 200, the plan's node table, no script" "200 1 0" "$(s '"\(.preview.status) \(.preview.tables) \(.preview.scripts)"')"
check_eq "the preview page shows the confirmation to type" "$C" "$(s .preview.confirmation)"
for n in "${NODES[@]}"; do
	check_eq "blast radius on $n: divert d removed with the queue" \
		"removed with the queue: divert $u.d (source $u.s, forwarding to $u.a)" \
		"$(s ".preview.nodes[\"$n\"][] | select(startswith(\"removed with the queue\"))")"
	check_eq "blast radius on $n: divert k kept, and why" \
		"kept: divert $u.k (source $u.a, forwarding to $u.x): its source is the queue's address" \
		"$(s ".preview.nodes[\"$n\"][] | select(startswith(\"kept:\"))" | sed 's/\(address\): .*/\1/')"
done
check_eq "the blast radius drawn as one SVG for both nodes, no Mermaid code left" "1 0 true" \
	"$(s '"\(.preview.graphs | length) \(.preview.mermaid_code) \((.preview.graphs[0].width // 0) > 100)"')"
check_eq "the drawing: the queue deleted, divert d removed, divert k kept" "true true true" \
	"$(s "[.preview.graphs[0].texts // [] | (index(\"$u.a\") != null), (index(\"divert $u.d\") != null), (index(\"divert $u.k\") != null)] | map(tostring) | join(\" \")")"
check_eq "a queue named $hostile: shown as text, no element parsed from it, no script" \
	"true 0 0" "$(s '"\(.hostile.shown) \(.hostile.elements) \(.hostile.scripts)"')"
check_eq "a wrong confirmation: 422 and the page says so" "422" "$(s .wrong_confirmation.status)"
check_grep "the 422 page names the expected text" "confirmation" <(s .wrong_confirmation.message)
check_eq "no CSRF token: 403" "403 true" "$(s '"\(.no_csrf.status) \(.no_csrf.says)"')"
check_eq "a form of another origin (127.0.0.1:$evil_port), with the session's cookie and CSRF token: 403" "403 true" \
	"$(s '"\(.cross_origin.status) \(.cross_origin.says)"')"
check "after the refusals: no approval.json" test ! -e "$p2/approval.json"
check "after the refusals: no result.json" test ! -e "$p2/result.json"
check_eq "after the refusals: both brokers unchanged (curl)" "$before" "$(brokers_state)"
touch "$T/go"
# the window override (docs/policy.md): outside the window, a change that
# needs an approval (x's max-consumers); the browser ticks the box
check "the browser reached the override step" wait_for 200 test -f "$T/ready2"
echo 2026-12-02T12:00:00Z >"$T/clock"
{
	echo "version: 1"
	echo "addresses:"
	echo "  - {name: $u.a, routing: [anycast]}"
	addr s
	echo "  - {name: $u.x, routing: [anycast], queues: [{name: $u.x, max-consumers: 7}]}"
	hostile_yaml
} >"$T/work/clusters/t95/addresses.yaml"
c3=$(daemon_commit "t95: x at most 7 consumers, outside the window")
check "v3 previewed" wait_for 120 has_preview "$c3"
p3=$(preview_of "$c3")
check "  the window holds the cluster (hold.txt)" wait_for 30 test -s "$T/state/outbox/t95/hold.txt"
printf '{"href": "/clusters/t95/previews/%s", "confirmation": %s}\n' "${p3##*/}" \
	"$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$(confirm_of "$p3")")" >"$T/go2.tmp"
mv "$T/go2.tmp" "$T/go2"
wait "$npid"
nrc=$?
check_eq "the browser's run ends cleanly (exit 0, no error)" "0 null" "$nrc $(s .error)"
[ "$(s .error)" = null ] || sed 's/^/# /' "$T/node.log"
check_eq "approve: 303 back to the preview" "303 $base/clusters/t95/previews/${rel#t95/}" \
	"$(s '"\(.approve.redirects[0]) \(.approve.url)"')"
check_eq "the preview page says approved" approved "$(s .approve.state)"
check_grep "approval.json names the token's name" '"approved_by": "alice"' "$p2/approval.json"
check_grep "approval.json: via http" '"via": "http"' "$p2/approval.json"
check "the daemon applies it" wait_for 120 test -f "$p2/result.json"
check_applied "v2: every node APPLIED" "$p2"
check_eq "the page shows it applied" applied "$(s .applied.state)"
# the brokers' word, read with curl until both agree (the apply is done)
gone() { [ "$(brokers_state)" = "$(printf '%s: queue 0, divert d 0, divert k 1\n' "${NODES[@]}")" ]; }
check "both brokers: the queue and its dependent divert gone, the other divert kept (curl)" wait_for 60 gone
brokers_state | sed 's/^/# /'
for n in "${NODES[@]}"; do
	check_listed "$n: the address $u.a stays" "$n" addresses "$u.a"
done
# the delete-queue form
check_eq "the delete-queue form: its box unticked, the caveat beside it" "true checkbox false true" \
	"$(s '"\(.dq_form.found) \(.dq_form.checkbox) \(.dq_form.checked) \(.dq_form.caveat)"')"
check_eq "the delete-queue form: 303 to the new preview" "303" "$(s '.dq_post.redirects[0]')"
dq=$(s '.dq_post.url' | sed 's|.*/previews/||')
check "the new preview is in the outbox" test -n "$dq" -a -f "$T/state/outbox/t95/$dq/plan.json"
check_eq "its plan: delete-queue $u.z, consumers not disconnected" "[\"delete-queue:$u.z\"] false" \
	"$(rj "$T/state/outbox/t95/$dq/plan.json" '[a["kind"] + ":" + a["name"] for a in j["actions"]]') $(rj "$T/state/outbox/t95/$dq/plan.json" 'j["disconnect_consumers"]')"
check_eq "approved from its page, then applied" "303 applied" "$(s '"\(.dq_approve.redirects[0]) \(.dq_applied)"' | tr 'A-Z' 'a-z')"
zgone() { local n; for n in "${NODES[@]}"; do ! broker_names "$n" queues | grep -qx "$u.z" || return 1; broker_names "$n" queues | grep -qx "$u.s" || return 1; done; }
check "both brokers: $u.z gone (curl)" wait_for 60 zgone
check_eq "v3's page: the override checkbox, unticked, the window's reason shown" "checkbox false true true" \
	"$(s '"\(.override_form.checkbox) \(.override_form.checked) \(.override_form.label | test("Override the sync window")) \(.override_form.status_waiting | test("waiting for sync window until"))"')"
check_eq "ticked and approved: 303, then applied" "303 applied" "$(s '"\(.override_approve.redirects[0]) \(.override_applied)"' | tr 'A-Z' 'a-z')"
check_eq "v3's approval.json: alice, via http, override_window true" '["alice", "http", true]' \
	"$(rj "$p3/approval.json" '[j["approved_by"], j["via"], j.get("override_window")]')"
check_applied "v3: every node APPLIED outside the window" "$p3"
check_eq "v3's audit rows: alice overrode the window" '["alice", "alice"]' \
	"$(grep "\"plan_dir\":\"$p3\"" "$T/state/audit.jsonl" | jq -cs '[.[] | .window_override.by]' | sed 's/,/, /g')"
check_grep "audit: the result row names alice" "\"approver\":\"alice\".*\"event\":\"result\".*\"plan_dir\":\"$p2\"" "$T/state/audit.jsonl"
check_nogrep "no token in the daemon's log" "$(head -n 1 "$creds/alice.token")|$(head -n 1 "$creds/grafana.token")" "$T/agent.log"
check "screenshots kept ($shots)" test "$(find "$shots" -name '*.png' | wc -l)" -ge 10
daemon_stop
check_eq "the daemon stops cleanly on SIGTERM" 0 "$RC"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'signal 15: stopping'
done_testing
