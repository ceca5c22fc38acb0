#!/usr/bin/env bash
# /metrics against a real Prometheus: the daemon serves it (http.listen, a
# viewer token from the credentials folder) while it plans against the
# suite's two brokers; the scraped text passes `promtool check metrics`
# and holds every family of docs/http-api.md "Metrics"; a Prometheus
# server started here scrapes it with the token (authorization
# credentials_file) and answers, through its HTTP API, node2's
# artemis_gitops_node_up: 1, then 0 once node2 is stopped (and the next
# plan finds it unreachable), then 1 again when it is back. An approved
# apply shows in the applies, its duration and the last success.
. "$AG_TOP/tests/lib.sh"
. "$AG_TOP/tests/integration/brokers.sh"
. "$AG_TOP/tests/integration/daemon-lib.sh"
cd "$AG_TOP" || exit 1
[ -n "${AG_NODES_FILE:-}" ] || { not_ok "brokers are running (AG_NODES_FILE)"; done_testing; exit 1; }
command -v prometheus >/dev/null && command -v promtool >/dev/null ||
	{ not_ok "prometheus and promtool are installed (Debian prometheus, scripts/install-deps)"; done_testing; exit 1; }
run=${ARTEMIS_RUN_DIR:-$AG_TOP/.run/artemis}
node1=$(awk 'NR==1{print $1}' "$AG_NODES_FILE")
node2=$(awk 'NR==2{print $1}' "$AG_NODES_FILE")
pidfile=$run/$node2/data/gitops.pid
check "the suite started $node2 (pid file)" test -s "$pidfile"
daemon_setup t96
PROM_PID=
cleanup96() {
	if [ -n "$PROM_PID" ]; then
		kill "$PROM_PID" 2>/dev/null
		wait "$PROM_PID" 2>/dev/null
	fi
	daemon_cleanup
}
trap cleanup96 EXIT

# A credentials folder of our own: the brokers' files and a viewer token.
mkdir -m 0700 "$T/creds"
cp -p "$CREDS"/* "$T/creds/" 2>/dev/null
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
(umask 077 && echo "$token" >"$T/creds/prometheus.token")
# Prometheus reads its bearer token from a file of its own
(umask 077 && printf '%s' "$token" >"$T/prom.token")
sed -i "s|^credentials: .*|credentials: $T/creds|" "$T/agent.yaml"
cat >>"$T/agent.yaml" <<EOC
http:
  listen: 127.0.0.1:0
  viewer-tokens: [prometheus.token]
EOC
u=$RANDOM$RANDOM
printf "version: 1\naddresses: [{name: t96.a$u, routing: [anycast], queues: [{name: t96.q$u}]}]\n" \
	>"$T/work/clusters/t96/addresses.yaml"
c1=$(daemon_commit "t96: one queue")
daemon_start
check "the web server says its port" wait_for 30 grep -qE "notice .*web server on 127\\.0\\.0\\.1:0 \\(port [0-9]+\\)" "$T/agent.log"
port=$(sed -nE 's/.*web server on 127\.0\.0\.1:0 \(port ([0-9]+)\).*/\1/p' "$T/agent.log" | head -n 1)
base=http://127.0.0.1:$port
check "c1 previewed" wait_for 60 has_preview "$c1"
p1=$(preview_of "$c1")

scrape() { curl -s -H "Authorization: Bearer $token" "$base/metrics"; }
code=$(curl -s -o /dev/null -w '%{http_code}' "$base/metrics")
check_eq "/metrics without a token: 401" 401 "$code"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer wrong-token-wrong-token" "$base/metrics")
check_eq "/metrics with a wrong token: 401" 401 "$code"
curl -s -D "$T/m.headers" -o "$T/m1.txt" -H "Authorization: Bearer $token" "$base/metrics"
check_grep "/metrics with the token: 200" '^HTTP/1\.[01] 200' "$T/m.headers"
check_grep "the text format's content type" '^[Cc]ontent-[Tt]ype: text/plain; version=0\.0\.4' "$T/m.headers"
promtool check metrics <"$T/m1.txt" >"$T/promtool.out" 2>&1
prc=$?
check_eq "promtool check metrics passes (exit 0; its words: $(tr '\n' ' ' <"$T/promtool.out"))" 0 "$prc"
for f in build_info:gauge cycles_total:counter cycle_duration_seconds:histogram \
	fetch_duration_seconds:histogram plan_duration_seconds:histogram \
	apply_duration_seconds:histogram previews:gauge applies_total:counter \
	node_up:gauge node_read_duration_seconds:histogram \
	node_last_read_timestamp_seconds:gauge node_requests_total:counter \
	drift_objects:gauge last_apply_success_timestamp_seconds:gauge \
	notifications_sent_total:counter notifications_dropped_total:counter \
	http_requests_total:counter http_connections:gauge; do
	check_grep "family artemis_gitops_${f%%:*} (${f##*:}), with help" \
		"^# TYPE artemis_gitops_${f%%:*} ${f##*:}\$" "$T/m1.txt"
done
check_grep "build_info names the version" "^artemis_gitops_build_info\\{version=\"$(cat VERSION)\"\\} 1\$" "$T/m1.txt"
# a series appears with the first read, and the read comes before the
# preview is written: the scrape after the preview sees it
for n in $node1 $node2; do
	check_grep "$n up" "^artemis_gitops_node_up\\{cluster=\"t96\",node=\"$n\"\\} 1\$" "$T/m1.txt"
	check_grep "$n read: a good request" "^artemis_gitops_node_requests_total\\{cluster=\"t96\",node=\"$n\",refusal=\"none\"\\} [1-9][0-9]*\$" "$T/m1.txt"
	check_grep "$n read duration observed" "^artemis_gitops_node_read_duration_seconds_count\\{cluster=\"t96\",node=\"$n\"\\} [1-9][0-9]*\$" "$T/m1.txt"
	check_grep "$n read duration: cumulative +Inf bucket" "^artemis_gitops_node_read_duration_seconds_bucket\\{cluster=\"t96\",node=\"$n\",le=\"\\+Inf\"\\} [1-9][0-9]*\$" "$T/m1.txt"
done
ts=$(sed -nE "s/^artemis_gitops_node_last_read_timestamp_seconds\\{cluster=\"t96\",node=\"$node1\"\\} ([0-9.e+]+)\$/\\1/p" "$T/m1.txt")
check "$node1's last read is within the last 5 minutes ($ts, now $(date +%s))" \
	python3 -c "import sys, time; t = float(sys.argv[1]); sys.exit(not time.time() - 300 <= t <= time.time() + 5)" "${ts:-0}"
check_grep "plan duration of t96 observed" '^artemis_gitops_plan_duration_seconds_count\{cluster="t96"\} [1-9][0-9]*$' "$T/m1.txt"
check_grep "fetch duration observed" '^artemis_gitops_fetch_duration_seconds_count [1-9][0-9]*$' "$T/m1.txt"
check_grep "the preview of c1 is pending" '^artemis_gitops_previews\{cluster="t96",state="pending"\} 1$' "$T/m1.txt"
check_grep "no preview applied yet" '^artemis_gitops_previews\{cluster="t96",state="applied"\} 0$' "$T/m1.txt"
cycled() { scrape | grep -qE '^artemis_gitops_cycles_total\{result="ok"\} [1-9][0-9]*$'; }
check "a cycle counted ok" wait_for 30 cycled

# An approved apply: counted, timed, its time kept.
conf=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["confirmation"])' "$p1/plan.json")
check_exit "c1 approved" 0 "$AG_BIN" approve "$p1" --confirm "$conf" --by tester --state "$T/state"
check "c1 applied by the daemon" wait_for 60 test -f "$p1/result.json"
applied() { scrape >"$T/m2.txt"; grep -qE '^artemis_gitops_applies_total\{cluster="t96",result="ok"\} 1$' "$T/m2.txt"; }
check "applies_total{cluster=t96,result=ok} 1" wait_for 30 applied
check_grep "apply duration observed" '^artemis_gitops_apply_duration_seconds_count\{cluster="t96"\} 1$' "$T/m2.txt"
check_grep "last successful apply time" '^artemis_gitops_last_apply_success_timestamp_seconds\{cluster="t96"\} [0-9.e+]+$' "$T/m2.txt"
check_grep "the preview of c1 is applied" '^artemis_gitops_previews\{cluster="t96",state="applied"\} 1$' "$T/m2.txt"
check_grep "requests are counted by status" '^artemis_gitops_http_requests_total\{code="200"\} [1-9][0-9]*$' "$T/m2.txt"
check_grep "and the refused ones" '^artemis_gitops_http_requests_total\{code="401"\} [1-9][0-9]*$' "$T/m2.txt"

# A real Prometheus scrapes the agent every second, with the token.
pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/prometheus.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: artemis-gitops
    metrics_path: /metrics
    authorization:
      type: Bearer
      credentials_file: $T/prom.token
    static_configs:
      - targets: ['127.0.0.1:$port']
EOC
check "promtool check config" promtool check config "$T/prometheus.yml"
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom-data" \
	--web.listen-address="127.0.0.1:$pport" >"$T/prometheus.log" 2>&1 &
PROM_PID=$!
# query EXPR: the first series' value, or "" (the HTTP API's JSON)
query() {
	curl -s -G "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
j = json.load(sys.stdin)
r = j["data"]["result"] if j.get("status") == "success" else []
print(r[0]["value"][1] if r else "")' 2>/dev/null
}
is() { [ "$(query "$1")" = "$2" ]; }
check "Prometheus is ready" wait_for 60 curl -sf "http://127.0.0.1:$pport/-/ready"
check "Prometheus scrapes the agent: up == 1" wait_for 60 is 'up{job="artemis-gitops"}' 1
check "Prometheus: $node1 up" wait_for 30 is "artemis_gitops_node_up{cluster=\"t96\",node=\"$node1\"}" 1
check "Prometheus: $node2 up" wait_for 30 is "artemis_gitops_node_up{cluster=\"t96\",node=\"$node2\"}" 1
check "Prometheus: the agent's version" wait_for 30 is "artemis_gitops_build_info{version=\"$(cat VERSION)\"}" 1

# node2 goes away; the next plan finds it unreachable.
bpid=$(cat "$pidfile")
kill -KILL "$bpid"
wait_for 30 sh -c "! kill -0 $bpid"
printf "version: 1\naddresses: [{name: t96.a$u, routing: [anycast], queues: [{name: t96.q$u}, {name: t96.r$u}]}]\n" \
	>"$T/work/clusters/t96/addresses.yaml"
c2=$(daemon_commit "t96: a second queue")
check "c2 previewed while $node2 is down" wait_for 90 has_preview "$c2"
check "Prometheus: $node2 down (0)" wait_for 60 is "artemis_gitops_node_up{cluster=\"t96\",node=\"$node2\"}" 0
check_eq "Prometheus: $node1 still up" 1 "$(query "artemis_gitops_node_up{cluster=\"t96\",node=\"$node1\"}")"
scrape >"$T/m3.txt"
check_grep "$node2's failed reads by refusal kind" "^artemis_gitops_node_requests_total\\{cluster=\"t96\",node=\"$node2\",refusal=\"(unreachable|timeout)\"\\} [1-9][0-9]*\$" "$T/m3.txt"
promtool check metrics <"$T/m3.txt" >"$T/promtool3.out" 2>&1
prc=$?
check_eq "promtool check metrics passes with a node down (exit 0)" 0 "$prc"

# node2 comes back (scripts/artemis up starts only stopped nodes); the
# replan reads it again.
ARTEMIS_START_TIMEOUT=180 scripts/artemis up "$(wc -l <"$AG_NODES_FILE")" >/dev/null 2>"$T/up.log"
check "$node2 restarted" wait_for 60 sh -c "scripts/artemis status | grep -q '^$node2 running'"
check "Prometheus: $node2 up again" wait_for 120 is "artemis_gitops_node_up{cluster=\"t96\",node=\"$node2\"}" 1

check "agent alive" kill -0 "$PID"
kill "$PROM_PID" 2>/dev/null
wait "$PROM_PID" 2>/dev/null
PROM_PID=
daemon_stop
check_eq "agent exits 0" 0 "$RC"
check_absent "the token is not in the log" "$token" "$T/agent.log" 'notice loop: signal 15: stopping'
check_absent "no sanitizer report" 'ERROR: (Address|Leak)Sanitizer|runtime error' "$T/agent.log" 'notice loop: signal 15: stopping'
done_testing
