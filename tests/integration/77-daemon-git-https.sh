#!/usr/bin/env bash
# git over HTTPS with a token, against a real TLS server on loopback
# (tests/tools/githttp.py: `git http-backend` behind Basic auth) with a CA
# the test makes (openssl): the agent's tls.ca-file applies to git (another
# CA is refused, logged), a wrong token is refused (logged, retried with
# backoff, the agent keeps running), the right one clones and fetches; the
# token never reaches the log (at debug level), the state folder (clone
# config, FETCH_HEAD, ...), the outbox or the audit.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
. "$AG_TOP/tests/integration/gitsrv-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
daemon_setup t77
gitsrv_trap
own_creds
check "test CA made" tls_ca t77
check "another CA made" tls_ca other
check "server certificate signed by the test CA" tls_server t77
token=t77tok$(openssl rand -hex 16)
wrong=t77bad$(openssl rand -hex 16)
echo "$token" >"$T/server-token"
echo "$wrong" >"$T/creds/git-token"
chmod 600 "$T/creds/git-token"
githttp_start "$T/server-token"
check "HTTPS git server up (port ${HTTPS_PORT:-none})" test -n "${HTTPS_PORT:-}"
url="https://localhost:$HTTPS_PORT/origin.git"
u=$RANDOM$RANDOM
printf "version: 1\naddresses: [{name: t77.a$u, routing: [anycast], queues: [{name: t77.q$u}]}]\n" >"$T/work/clusters/t77/addresses.yaml"
c1=$(daemon_commit "t77: one queue")
check "the server serves git to git itself" env GIT_SSL_CAINFO="$T/tls/t77-ca.pem" git ls-remote "https://x:$token@localhost:$HTTPS_PORT/origin.git" main

# The agent, with the test CA and a wrong token.
sed "s|^  url: .*|  url: $url\n  token-file: git-token|; s|^credentials:|tls: {ca-file: $T/tls/t77-ca.pem}\nlog-level: debug\nauto-apply-creates: true\ncredentials:|" "$T/agent.yaml" >"$T/agent.https"
cp "$T/agent.https" "$T/agent.yaml"
daemon_start
refusals() { grep -F "warning cycle: git: fetch 'main' from $url: authentication refused with repository.token-file 'git-token' from the credentials folder, retrying in" "$T/agent.log"; }
three() { [ "$(refusals | wc -l)" -ge 3 ]; }
check "wrong token: refused three times" wait_for 40 three
refusals >"$T/refusals.txt"
check_grep "wrong token: backoff 1s" "retrying in 1s$" "$T/refusals.txt"
check_grep "wrong token: backoff doubles to 2s" "retrying in 2s$" "$T/refusals.txt"
check_grep "server: the wrong token was offered and refused" "^GET /origin.git/info/refs 401 auth=refused$" "$T/githttp.log"
check "wrong token: nothing previewed" test -z "$(preview_of "$c1")"
check "agent alive with a wrong token" kill -0 "$PID"

# A token file others can read (issue 14, defect 13): refused before it is
# sent, naming the file and its mode; the agent keeps running.
n0=$(wc -l <"$T/agent.log")
chmod 644 "$T/creds/git-token"
open_token() { tail -n +"$((n0 + 1))" "$T/agent.log" | grep -qF "warning cycle: git: fetch 'main' from $url: repository.token-file '$T/creds/git-token': mode 0644: its group can read it, others can read it; a secret must be readable by its owner only (chmod 600 '$T/creds/git-token'), retrying in"; }
check "token file mode 0644: refused, logged" wait_for 40 open_token
check "agent alive with an open token file" kill -0 "$PID"
chmod 600 "$T/creds/git-token"

# The right token: clone, preview, auto-apply (an audit row), then a fetch.
echo "$token" >"$T/creds/git-token"
check "c1 previewed (cloned over HTTPS)" wait_for 60 has_preview "$c1"
check_grep "server: the token accepted" "^POST /origin.git/git-upload-pack 200 auth=ok$" "$T/githttp.log"
applied() { p=$(preview_of "$c1"); [ -f "$p/result.json" ]; }
check "c1 auto-applied (creates only): a result" wait_for 90 applied
check_applied "c1 auto-applied: every node APPLIED" "$(preview_of "$c1")"
for n in $(awk 'NF { print $1 }' "$AG_NODES_FILE"); do
	check_listed "c1 auto-applied: $n has t77.q$u" "$n" queues "t77.q$u"
done
check "audit row written" test -s "$T/state/audit.jsonl"
echo "# c2" >>"$T/work/clusters/t77/cluster.yaml"
c2=$(daemon_commit "t77: c2")
check "c2 previewed (fetched over HTTPS)" wait_for 30 has_preview "$c2"

# Another CA: the server's certificate is not trusted, the fetch refused.
sed "s|$T/tls/t77-ca.pem|$T/tls/other-ca.pem|" "$T/agent.https" >"$T/agent.yaml"
kill -HUP "$PID"
n0=$(wc -l <"$T/agent.log")
echo "# c3" >>"$T/work/clusters/t77/cluster.yaml"
c3=$(daemon_commit "t77: c3")
untrusted() { tail -n +"$((n0 + 1))" "$T/agent.log" | grep -qF "warning cycle: git: fetch 'main' from $url: TLS certificate of 'localhost' not trusted (tls.ca-file $T/tls/other-ca.pem), retrying in"; }
check "another CA: certificate refused, logged" wait_for 30 untrusted
check "another CA: c3 not previewed" test -z "$(preview_of "$c3")"
cp "$T/agent.https" "$T/agent.yaml"
kill -HUP "$PID"
check "c3 previewed with the test CA again" wait_for 60 has_preview "$c3"
daemon_stop
check_eq "agent exits 0" 0 "$RC"

# The token is nowhere: log, state (clone, FETCH_HEAD, last-seen,
# inventory, audit) and outbox (previews, commit.txt, results).
check "the clone's FETCH_HEAD exists (scanned below)" test -s "$T/state/repo/FETCH_HEAD"
check_grep "FETCH_HEAD names the URL" "$url" "$T/state/repo/FETCH_HEAD"
nfiles=$(find "$T/state" -type f | wc -l)
check "state folder holds files to scan ($nfiles)" test "$nfiles" -ge 20
for secret in "$token" "$wrong"; do
	hits=$(grep -rlaF "$secret" "$T/state" "$T/agent.log" 2>&1)
	check_eq "secret ${secret:0:6}… in no file of state, outbox, audit or log" "" "$hits"
	b64=$(printf 'x-access-token:%s' "$secret" | base64 -w0)
	hits=$(grep -rlaF "$b64" "$T/state" "$T/agent.log" 2>&1)
	check_eq "its Basic header in none either" "" "$hits"
done
check_nogrep "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log"
done_testing
