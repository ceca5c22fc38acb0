#!/usr/bin/env bash
# The JSON API (issue 18, docs/http-api.md) of `run` with http.listen on
# loopback, against the suite's real brokers: a viewer and an approver
# token (files of the credentials folder); every GET route read with curl
# and checked against the outbox and the state folder (a preview's
# plan.json served byte for byte: its SHA-256 is the file's); a preview
# approved through the API (a wrong confirmation 422, a viewer 403, no
# token 401, a session cookie 403, each leaving no approval.json), then
# applied by the daemon, the audit row naming the token, the brokers
# (read with curl through Jolokia, not through the agent) showing the
# queues; an operator's delete-queue posted through the API (its
# disconnect_consumers false by default in plan.json), approved and
# applied: the queue gone from both brokers. Bad input: an oversized body
# (413), malformed JSON (400 naming line:col), unknown members and wrong
# types (400), a wrong Content-Type (415), unknown routes (404), wrong
# methods (405 with Allow), path traversal in ids (`..%2f`, `%2e%2e`, an
# absolute path: 400/404, a canary beside the outbox never served), bad
# paging (400), a header flood (431 or the connection refused, and the
# server answers afterwards): each leaves the outbox and the audit log as
# they were. Last, an approver token file readable by others (0644): the
# daemon refuses to start, naming the file. Outside its sync window (the
# test clock), a preview approved through the API with override_window:
# true is applied at once, the audit rows naming the token as the one who
# overrode the window.
. "${AG_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/apply-lib.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
brokers_setup
u=t94w$$
daemon_setup t94
STATE=$T/state
OB=$STATE/outbox
trap 'janitor "$u"; daemon_cleanup; _brokers_cleanup' EXIT
PORT=$((${ARTEMIS_PORT_BASE:-100} + 500))
H=http://127.0.0.1:$PORT

# the credentials folder of this test: the brokers' files and two tokens
mkdir -m 700 "$T/creds"
for n in "${NODES[@]}"; do
	install -m 600 "${CRED[$n]}" "$T/creds/"
done
VT=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
AT=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077 && echo "$VT" >"$T/creds/vera.token" && echo "$AT" >"$T/creds/alice.token")
sed -i "s|^credentials: .*|credentials: $T/creds|" "$T/agent.yaml"
cat >>"$T/agent.yaml" <<EOC
http:
  listen: 127.0.0.1:$PORT
  viewer-tokens: [vera.token]
  approver-tokens: [alice.token]
# one allow window a day, judged at the test clock's time (docs/policy.md)
sync-windows:
  - kind: allow
    schedule: 0 0 * * *
    duration: 1h
    time-zone: UTC
EOC
# inside the window until the override test moves the clock out of it
export ARTEMIS_GITOPS_WINDOW_CLOCK_FILE=$T/clock
echo 2026-12-02T00:30:00Z >"$T/clock"

addresses() {
	printf 'version: 1\naddresses:\n' >"$T/work/clusters/t94/addresses.yaml"
	for q in "$@"; do
		echo "  - {name: $u.$q, routing: [anycast], queues: [{name: $u.$q}]}" >>"$T/work/clusters/t94/addresses.yaml"
	done
}

# api METHOD PATH [TOKEN [BODYFILE [CONTENT-TYPE]]]: the status code;
# the body in $T/r.body, the headers in $T/r.head
api() {
	local a=(-s --path-as-is -o "$T/r.body" -D "$T/r.head" -w '%{http_code}' -X "$1")
	[ -z "${3:-}" ] || a+=(-H "Authorization: Bearer $3")
	[ -z "${4:-}" ] || a+=(--data-binary "@$4" -H "Content-Type: ${5:-application/json}")
	curl "${a[@]}" "$H$2"
}
# jb EXPR: EXPR of the last body's JSON (j), as rj prints it
jb() { rj "$T/r.body" "$1"; }
body() { printf '%s' "$1" >"$T/req.json"; }
# the outbox's files with their digests and the audit log's: what
# "nothing changed" compares
fingerprint() {
	(cd "$STATE" && find outbox -type f -print0 | sort -z | xargs -0 sha256sum
		[ ! -f audit.jsonl ] || sha256sum audit.jsonl) | sha256sum
}

addresses a b
c1=$(daemon_commit "t94: queues a and b")
: >"$T/agent.log"
daemon_start
check "the daemon plans the commit" wait_for 60 has_preview "$c1"
p1=$(preview_of "$c1")
id1=${p1##*/}
check "the web server answers /healthz" wait_for 20 curl -sf "$H/healthz"
check_grep "the log names the server's address" "notice run: web server on 127.0.0.1:$PORT" "$T/agent.log"

# ---- reads ----
check_eq "GET /api/v1/clusters without a token: 401" 401 "$(api GET /api/v1/clusters)"
check_grep "401 asks for a bearer token" '^WWW-Authenticate: Bearer' "$T/r.head"
check_eq "401's body is a JSON error" '[401, true]' "$(jb '[j["error"]["status"], "token" in j["error"]["message"]]')"
check_eq "a wrong token: 401" 401 "$(api GET /api/v1/clusters "x$VT")"
# the nodes: read by the daemon's cycle (wait for both)
nodes_up() {
	[ "$(api GET /api/v1/clusters "$VT")" = 200 ] &&
		[ "$(jb '[n["node"] for c in j["clusters"] if c["name"] == "t94" for n in c["nodes"] if n["up"] and n["read"]]')" = "$(printf '%s\n' "${NODES[@]}" | python3 -c 'import json,sys; print(json.dumps(sorted(sys.stdin.read().split())))')" ]
}
check "GET /api/v1/clusters: cluster t94 with every node up and read" wait_for 30 nodes_up
check_eq "GET /api/v1/clusters as the viewer: 200, JSON" 200 "$(api GET /api/v1/clusters "$VT")"
check_grep "  served as application/json" '^Content-Type: application/json' "$T/r.head"
check_eq "  each node's read time and duration" true "$(jb 'all(n["read_at"].endswith("Z") and n["read_seconds"] >= 0 and n["refusal"] is None for c in j["clusters"] for n in c["nodes"])')"
check_eq "  the head commit is the branch's" "$c1" "$(jb 'j["head"]["commit"]')"
check_eq "  one pending preview, nothing applied yet" '[1, null]' "$(jb '[[c["previews"]["pending"], c["applied"]] for c in j["clusters"] if c["name"] == "t94"][0]')"
check_eq "GET /api/v1/clusters/t94: 200" 200 "$(api GET /api/v1/clusters/t94 "$VT")"
check_eq "  its latest preview is the commit's, pending" "[\"$id1\", \"pending\", \"${c1:0:12}\"]" \
	"$(jb '[j["cluster"]["latest_previews"][0][k] for k in ("id", "state")] + [j["cluster"]["latest_previews"][0]["commit"].split()[-1][:12]]')"
check_eq "  its nodes by name" "$(printf '%s\n' "${NODES[@]}" | sort | tr '\n' ' ')" "$(jb '" ".join(sorted(n["node"] for n in j["cluster"]["nodes"])) + " "')"
check_eq "GET /api/v1/clusters/nope: 404" 404 "$(api GET /api/v1/clusters/nope "$VT")"
check_eq "GET /api/v1/clusters/t94/previews: 200" 200 "$(api GET /api/v1/clusters/t94/previews "$VT")"
check_eq "  lists the preview with its summary and confirmation" \
	"[\"$id1\", \"pending\", \"WOULD_APPLY\", \"$(confirm_of "$p1")\"]" \
	"$(jb '[j["previews"][0][k] for k in ("id", "state", "outcome", "confirmation")]')"
check_eq "GET /api/v1/previews?state=pending: the same preview" "[\"t94\", \"$id1\"]" \
	"$(api GET '/api/v1/previews?state=pending' "$VT" >/dev/null; jb '[[p["cluster"], p["id"]] for p in j["previews"] if p["cluster"] == "t94"][0]')"
check_eq "GET /api/v1/previews?state=applied: none of t94" '[]' \
	"$(api GET '/api/v1/previews?state=applied' "$VT" >/dev/null; jb '[p["id"] for p in j["previews"] if p["cluster"] == "t94"]')"
check_eq "GET /api/v1/previews?state=bogus: 400" 400 "$(api GET '/api/v1/previews?state=bogus' "$VT")"
check_eq "GET .../previews/ID: 200" 200 "$(api GET "/api/v1/clusters/t94/previews/$id1" "$VT")"
check_eq "  state, links to plan.json and approve" \
	"[\"pending\", \"/api/v1/clusters/t94/previews/$id1/plan.json\", \"/api/v1/clusters/t94/previews/$id1/approve\"]" \
	"$(jb '[j["preview"]["state"], j["preview"]["links"]["plan_json"], j["preview"]["links"]["approve"]]')"
check_eq "GET .../plan.json: 200" 200 "$(api GET "/api/v1/clusters/t94/previews/$id1/plan.json" "$VT")"
check_eq "  its SHA-256 is the outbox file's" "$(sha256sum <"$p1/plan.json")" "$(sha256sum <"$T/r.body")"
check_eq "GET .../plan.md: 200" 200 "$(api GET "/api/v1/clusters/t94/previews/$id1/plan.md" "$VT")"
check_eq "  the outbox file's bytes" "$(sha256sum <"$p1/plan.md")" "$(sha256sum <"$T/r.body")"
check_grep "  served as Markdown" '^Content-Type: text/markdown; charset=utf-8' "$T/r.head"
check_eq "GET .../result before the apply: 404" 404 "$(api GET "/api/v1/clusters/t94/previews/$id1/result" "$VT")"
check_eq "GET .../previews/NOPE: 404" 404 "$(api GET "/api/v1/clusters/t94/previews/20990101T000000Z-000000000000" "$VT")"
code=$(api GET /api/v1/clusters/t94/drift "$VT")
if [ -f "$OB/t94/drift/drift.json" ]; then
	check_eq "GET .../drift: the drift report, as written" "200 $(sha256sum <"$OB/t94/drift/drift.json")" "$code $(sha256sum <"$T/r.body")"
else
	check_eq "GET .../drift before any drift check: 404 naming why" '404 no drift report for this cluster yet' "$code $(jb 'j["error"]["message"]')"
fi
check_eq "GET /api/v1/jobs/999999: 404" 404 "$(api GET /api/v1/jobs/999999 "$VT")"
check_eq "GET /api/v1/jobs/abc: 400" 400 "$(api GET /api/v1/jobs/abc "$VT")"

# ---- approve through the API ----
A=/api/v1/clusters/t94/previews/$id1/approve
C1=$(confirm_of "$p1")
body "{\"confirmation\": \"$C1\"}"
check_eq "approve without a token: 401" 401 "$(api POST "$A" "" "$T/req.json")"
check_eq "approve as the viewer: 403" 403 "$(api POST "$A" "$VT" "$T/req.json")"
check_eq "  naming the role" "approving takes an approver's token; vera is a viewer" "$(jb 'j["error"]["message"]')"
code=$(curl -s -o /dev/null -w '%{http_code}' -c "$T/jar" --data-urlencode "token=$AT" "$H/login")
check_eq "sign in with the approver's token (the page): 303" 303 "$code"
# the session's value as the jar holds it (whatever the cookie's name)
sess=$(awk '/ag_session/ { v = $NF } END { print v }' "$T/jar")
check_eq "  a session of 64 hex digits" 64 "${#sess}"
check_eq "approve with the session cookie alone: 403" 403 \
	"$(curl -s -o "$T/r.body" -w '%{http_code}' -H "Cookie: ag_session=$sess" -H 'Content-Type: application/json' --data-binary "@$T/req.json" "$H$A")"
check_eq "  the API's POSTs take a bearer token" true "$(jb '"bearer token" in j["error"]["message"]')"
body '{"confirmation": "delete everything on t94 0123456789ab"}'
check_eq "approve with a wrong confirmation: 422" 422 "$(api POST "$A" "$AT" "$T/req.json")"
check_grep "  the message says what to type" 'the confirmation text does not match this plan' "$T/r.body"
check "  no approval.json after the refusals" test ! -e "$p1/approval.json"
check_eq "GET $A: 405" 405 "$(api GET "$A" "$AT")"
check_grep "  Allow: POST" '^Allow: POST' "$T/r.head"
body "{\"confirmation\": \"$C1\"}"
check_eq "approve with the right confirmation: 200" 200 "$(api POST "$A" "$AT" "$T/req.json")"
check_eq "  the preview is approved by alice" '["approved", "alice"]' "$(jb '[j["preview"]["state"], j["preview"]["approved_by"]]')"
check_eq "  approval.json: by alice, via http, the daemon's uid, bound to plan.json" \
	"[\"alice\", \"http\", $(id -u), \"$(sha256sum <"$p1/plan.json" | cut -d' ' -f1)\"]" \
	"$(rj "$p1/approval.json" '[j["approved_by"], j["via"], j["approved_uid"], j["plan_digest"]]')"
check_eq "  mode 0640, the daemon's own file" "640 $(id -u)" "$(stat -c '%a %u' "$p1/approval.json")"
check_eq "approve again: 409" 409 "$(api POST "$A" "$AT" "$T/req.json")"
check "the daemon applies it (result.json)" wait_for 60 test -f "$p1/result.json"
check_applied "  every node APPLIED" "$p1"
check_eq "  the result row's approver is the token's name" alice "$(audit_rows result | tail -n 1 | jq -r .approver)"
for n in "${NODES[@]}"; do
	check_listed "  $n has $u.a (Jolokia)" "$n" queues "$u.a"
	check_listed "  $n has $u.b (Jolokia)" "$n" queues "$u.b"
done
check_eq "GET .../result: 200, result.json as written" "200 $(sha256sum <"$p1/result.json")" \
	"$(api GET "/api/v1/clusters/t94/previews/$id1/result" "$VT") $(sha256sum <"$T/r.body")"
check_eq "GET .../previews/ID: applied" applied "$(api GET "/api/v1/clusters/t94/previews/$id1" "$VT" >/dev/null; jb 'j["preview"]["state"]')"
check_eq "GET /api/v1/clusters/t94: the applied revision is the commit" "$c1" \
	"$(api GET /api/v1/clusters/t94 "$VT" >/dev/null; jb 'j["cluster"]["applied"]["revision"]')"

# ---- the audit, paged ----
rows=$(wc -l <"$STATE/audit.jsonl")
check_eq "GET /api/v1/audit?limit=2: 200" 200 "$(api GET '/api/v1/audit?limit=2' "$VT")"
check_eq "  the total is the log's rows, two shown" "[$rows, 2]" "$(jb '[j["total"], len(j["rows"])]')"
check_eq "  newest first: the log's last row" "$(tail -n 1 "$STATE/audit.jsonl" | jq -cS .)" "$(jb 'j["rows"][0]' | jq -cS .)"
check_eq "  offset 1: the row before the last" "$(tail -n 2 "$STATE/audit.jsonl" | head -n 1 | jq -cS .)" \
	"$(api GET '/api/v1/audit?offset=1&limit=1' "$VT" >/dev/null; jb 'j["rows"][0]' | jq -cS .)"
check_eq "  past the end: no rows" "[$rows, []]" "$(api GET "/api/v1/audit?offset=$rows" "$VT" >/dev/null; jb '[j["total"], j["rows"]]')"
for q in 'limit=501' 'limit=-1' 'limit=abc' 'offset=1x' 'offset=' 'limit=99999999999999999999'; do
	check_eq "GET /api/v1/audit?$q: 400" 400 "$(api GET "/api/v1/audit?$q" "$VT")"
done

# ---- an operator's delete-queue through the API ----
D=/api/v1/clusters/t94/delete-queue
body "{\"queue\": \"$u.b\"}"
check_eq "delete-queue as the viewer: 403" 403 "$(api POST "$D" "$VT" "$T/req.json")"
code=$(api POST "$D" "$AT" "$T/req.json")
if [ "$code" = 202 ]; then
	job=$(jb 'j["job"]["id"]')
	wait_for 60 sh -c "curl -s -H 'Authorization: Bearer $VT' $H/api/v1/jobs/$job | jq -e .job.done"
	code=$(api GET "/api/v1/jobs/$job" "$VT")
	code=$(jb 'j["job"]["status"]')
fi
check_eq "delete-queue $u.b: 201, a preview" 201 "$code"
id2=$(jb 'j["job"]["preview"]')
p2=$OB/t94/$id2
check "  its folder is in the outbox" test -n "$id2" -a -f "$p2/plan.json"
check_eq "  plan.json: a delete-queue, disconnect_consumers false (the default)" '["delete-queue", false]' \
	"$(rj "$p2/plan.json" '[j["kind"], j["disconnect_consumers"]]')"
check_grep "  request.txt: who asked" '^requested-by alice$' "$p2/request.txt"
check_eq "  the job says so" "[true, 201, \"alice\", false]" "$(jb '[j["job"]["done"], j["job"]["status"], j["job"]["by"], j["job"]["disconnect_consumers"]]')"
check_eq "  the preview is pending" pending "$(api GET "/api/v1/clusters/t94/previews/$id2" "$VT" >/dev/null; jb 'j["preview"]["state"]')"
check_eq "  its page (inside the window): 200" 200 "$(curl -s -b "$T/jar" -o "$T/page.html" -w '%{http_code}' "$H/clusters/t94/previews/$id2")"
check_grep "  an approve form" 'name="confirmation"' "$T/page.html"
check_nogrep "  without the window override" 'override_window' "$T/page.html"
body '{"queue": "a b"}'
check_eq "delete-queue of a name with a space: 400" 400 "$(api POST "$D" "$AT" "$T/req.json")"
body '{"queue": ""}'
check_eq "delete-queue of an empty name: 400" 400 "$(api POST "$D" "$AT" "$T/req.json")"
body "{\"queue\": \"$u.b\", \"disconnect_consumers\": \"yes\"}"
check_eq "delete-queue with disconnect_consumers a string: 400" 400 "$(api POST "$D" "$AT" "$T/req.json")"

# ---- bad input: each changes nothing ----
fp=$(fingerprint)
A2=/api/v1/clusters/t94/previews/$id2/approve
C2=$(confirm_of "$p2")
python3 -c 'import sys; sys.stdout.write("{\"confirmation\": \"" + "x" * 70000 + "\"}")' >"$T/big.json"
check_eq "an oversized body (70000 bytes): 413" 413 "$(api POST "$A2" "$AT" "$T/big.json")"
printf '{"confirmation": "%s",\n  "x": }' "$C2" >"$T/req.json"
check_eq "malformed JSON: 400" 400 "$(api POST "$A2" "$AT" "$T/req.json")"
check_grep "  naming line and column" 'request body:2:8: not valid JSON' "$T/r.body"
body "{\"confirmation\": \"$C2\", \"by\": \"mallory\"}"
check_eq "an unknown member: 400" 400 "$(api POST "$A2" "$AT" "$T/req.json")"
check_eq "  named" "request body: unknown member 'by'" "$(jb 'j["error"]["message"]')"
body '{"confirmation": 42}'
check_eq "a wrong type: 400" 400 "$(api POST "$A2" "$AT" "$T/req.json")"
body '["confirmation"]'
check_eq "not an object: 400" 400 "$(api POST "$A2" "$AT" "$T/req.json")"
body "confirmation=$C2"
check_eq "a form body: 415" 415 "$(api POST "$A2" "$AT" "$T/req.json" application/x-www-form-urlencoded)"
check_eq "an empty body: 400" 400 "$(curl -s -o "$T/r.body" -w '%{http_code}' -X POST -H "Authorization: Bearer $AT" -H 'Content-Type: application/json' "$H$A2")"
check_eq "an unknown route: 404" 404 "$(api GET /api/v1/nope "$VT")"
check_eq "  a JSON error naming it" "no such route: GET /api/v1/nope" "$(jb 'j["error"]["message"]')"
check_eq "another version: 404" 404 "$(api GET /api/v2/clusters "$VT")"
check_eq "a trailing slash: 404" 404 "$(api GET /api/v1/clusters/ "$VT")"
check_eq "DELETE /api/v1/clusters: 405" 405 "$(api DELETE /api/v1/clusters "$AT")"
check_grep "  Allow: GET, HEAD" '^Allow: GET, HEAD' "$T/r.head"
check_eq "POST .../plan.json: 405" 405 "$(api POST "/api/v1/clusters/t94/previews/$id2/plan.json" "$AT" "$T/req.json")"
# a canary beside the outbox: OUTBOX/../canary/plan.json
mkdir -p "$STATE/canary"
echo '{"canary": "CANARY94"}' >"$STATE/canary/plan.json"
ln -s /etc "$OB/t94/etc-link"
for p in \
	"/api/v1/clusters/..%2fcanary/previews/x/plan.json" \
	"/api/v1/clusters/%2e%2e/previews/canary/plan.json" \
	"/api/v1/clusters/t94/previews/..%2f..%2fcanary/plan.json" \
	"/api/v1/clusters/t94/previews/%2e%2e/plan.json" \
	"/api/v1/clusters/t94/previews/$id2%2f..%2f..%2f..%2fcanary/plan.json" \
	"/api/v1/clusters/t94/previews/%2fetc%2fpasswd/plan.json" \
	"/api/v1/clusters/t94/previews/$STATE/canary/plan.json" \
	"/api/v1/clusters/t94/previews/.hidden/plan.json" \
	"/api/v1/clusters/t94/previews/etc-link/plan.json" \
	"/api/v1/clusters/t94/previews/etc-link/result" \
	"/api/v1/clusters/../canary/previews/x/plan.json" \
	"/api/v1/clusters/t94/../../canary/plan.json"; do
	code=$(api GET "$p" "$VT")
	case $code in 400 | 404) ok "traversal $p: $code" ;; *) not_ok "traversal $p: $code" "$(head -c 300 "$T/r.body")" ;; esac
	check_nogrep "  nothing outside the outbox served" 'CANARY94|root:' "$T/r.body"
done
check_eq "an id that is not one: 400 naming the rule" 400 "$(api GET "/api/v1/clusters/t94/previews/%2e%2e" "$VT")"
check_grep "  the rule" "not a preview id: letters, digits" "$T/r.body"
rm "$OB/t94/etc-link"
# a header flood: more headers than libmicrohttpd's pool holds, and one
# huge header
hdrs=()
for i in $(seq 1 300); do hdrs+=(-H "X-Flood-$i: $(printf '%0200d' 0)"); done
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $VT" "${hdrs[@]}" "$H/api/v1/clusters" || true)
case $code in 431 | 000) ok "300 headers of 200 bytes: $code (refused)" ;; *) not_ok "300 headers of 200 bytes: $code" ;; esac
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $VT" -H "X-Huge: $(printf '%0100000d' 0)" "$H/api/v1/clusters" || true)
case $code in 431 | 000) ok "one header of 100000 bytes: $code (refused)" ;; *) not_ok "one header of 100000 bytes: $code" ;; esac
check_eq "the server answers afterwards" 200 "$(api GET /api/v1/clusters "$VT")"
body '{"confirmation": "wrong"}'
check_eq "a wrong confirmation for the delete: 422" 422 "$(api POST "$A2" "$AT" "$T/req.json")"
rm -rf "$STATE/canary"
check_eq "after every bad request: the outbox and the audit log as they were" "$fp" "$(fingerprint)"
check "  the delete preview is not approved" test ! -e "$p2/approval.json"
check_eq "  and still pending" pending "$(api GET "/api/v1/clusters/t94/previews/$id2" "$VT" >/dev/null; jb 'j["preview"]["state"]')"
for n in "${NODES[@]}"; do
	check_listed "  $n still has $u.b" "$n" queues "$u.b"
done

# ---- the delete approved through the API and applied ----
body "{\"confirmation\": \"$C2\"}"
check_eq "approve the delete-queue preview: 200" 200 "$(api POST "$A2" "$AT" "$T/req.json")"
check "the daemon applies it" wait_for 60 test -f "$p2/result.json"
check_applied "  every node APPLIED" "$p2"
for n in "${NODES[@]}"; do
	check_unlisted "  $n: $u.b gone (Jolokia)" "$n" queues "^$u\\.b\$" "$u.a"
done
check_eq "  the result row's approver is alice" alice "$(audit_rows result | tail -n 1 | jq -r .approver)"
check_eq "GET /api/v1/previews?state=applied: both previews of t94" "[\"$id2\", \"$id1\"]" \
	"$(api GET '/api/v1/previews?state=applied' "$VT" >/dev/null; jb '[p["id"] for p in j["previews"] if p["cluster"] == "t94"]')"

# ---- outside the sync window: approved with override_window ----
echo 2026-12-02T12:00:00Z >"$T/clock"
addresses a c
c3=$(daemon_commit "t94: queue c, outside the window")
kill -USR1 "$PID"
check "the daemon plans commit 3" wait_for 60 has_preview "$c3"
p3=$(preview_of "$c3")
id3=${p3##*/}
A3=/api/v1/clusters/t94/previews/$id3/approve
check "  and holds the cluster: hold.txt" wait_for 30 test -s "$OB/t94/hold.txt"
check_eq "  the API's waiting names the window" true \
	"$(api GET "/api/v1/clusters/t94/previews/$id3" "$VT" >/dev/null; jb '(j["preview"]["waiting"] or "").startswith("waiting for sync window until 2026-12-03T00:00:00Z")')"
# the page (the approver's session from above): the checkbox, unticked,
# only while the window holds the cluster
page() { curl -s -b "$T/jar" -o "$T/page.html" -w '%{http_code}' "$H$1"; }
check_eq "the preview's page: 200" 200 "$(page "/clusters/t94/previews/$id3")"
check_grep "  its approve form offers the window override, unticked" '<input type="checkbox" name="override_window" value="1"> Override the sync window' "$T/page.html"
check_nogrep "  nothing ticks it" 'name="override_window"[^>]*checked' "$T/page.html"
body "{\"confirmation\": \"$(confirm_of "$p3")\", \"override_window\": \"yes\"}"
check_eq "override_window a string: 400" 400 "$(api POST "$A3" "$AT" "$T/req.json")"
check_eq "  named" "request body: 'override_window' must be true or false" "$(jb 'j["error"]["message"]')"
check "  no approval.json" test ! -e "$p3/approval.json"
body "{\"confirmation\": \"$(confirm_of "$p3")\", \"override_window\": true}"
check_eq "approve with override_window true: 200" 200 "$(api POST "$A3" "$AT" "$T/req.json")"
check_eq "  the message says it overrides the window" true "$(jb '"overrides the cluster'"'"'s sync window" in j["message"]')"
check_eq "  approval.json: by alice, via http, override_window true (as approve --override-window writes it)" \
	'["alice", "http", true]' "$(rj "$p3/approval.json" '[j["approved_by"], j["via"], j["override_window"]]')"
kill -USR1 "$PID"
check "the daemon applies it outside the window" wait_for 60 test -f "$p3/result.json"
check_applied "  every node APPLIED" "$p3"
check "  no waiting.txt" test ! -e "$p3/waiting.txt"
check_eq "  the intent and result rows: alice overrode the window" \
	'[["intent", "alice", true], ["result", "alice", true]]' \
	"$(tail -n 2 "$STATE/audit.jsonl" | jq -cs '[.[] | [.event, .window_override.by, (.window_override.window | startswith("waiting for sync window until 2026-12-03T00:00:00Z"))]]' | sed 's/,/, /g')"
for n in "${NODES[@]}"; do
	check_listed "  $n has $u.c (Jolokia)" "$n" queues "$u.c"
done

daemon_stop
check_eq "SIGTERM: exit 0" 0 "$RC"
check_absent "no token in the log" "$VT|$AT" "$T/agent.log" "web server on"

# ---- a token file readable by others ----
chmod 644 "$T/creds/alice.token"
RC=0
timeout 60 "$AG_BIN" run --config "$T/agent.yaml" 2>"$T/loose.log" || RC=$?
check_eq "a token file of mode 0644: the daemon does not start (exit 1)" 1 "$RC"
check_grep "  the log names the file" "$T/creds/alice.token" "$T/loose.log"
check_nogrep "  and the server never listened" "web server on" "$T/loose.log"
check_fails "  nothing answers on the port" curl -sf "$H/healthz"
check_absent "  the token is not in the log" "$AT" "$T/loose.log" "alice.token"
cat "$T"/*.log >"$T/all.log"
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/all.log" 'web server'
done_testing
