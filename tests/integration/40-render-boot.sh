#!/usr/bin/env bash
# tests/integration/40-render-boot.sh: a rendered broker.xml boots Artemis
# (the version of `scripts/artemis version`) with exactly the declared
# addresses, queues and diverts (and, last, address-settings and
# security-settings read back per address), and what a reload of a changed
# file does
# (config-delete-* OFF, then FORCE); each reload is predicted by `render
# --predict-reload` and by the preview of a CONFIG_MANAGED `plan`, whose
# rendered file is the one deployed.
#
# Starts its own broker (its broker.xml is the point of the test): an
# instance from `artemis create`, whose generated etc/broker.xml is the
# base; port offset ARTEMIS_PORT_BASE + 40 (node5's slot of scripts/artemis,
# unused by the suite's two nodes). Stopped by pid on exit.
set -u
. "$(dirname "$0")/../lib.sh"
top=$AG_TOP
ver=$("$top/scripts/artemis" version)
home=${ARTEMIS_CACHE:-$top/.cache/artemis}/apache-artemis-$ver
run=${ARTEMIS_RUN_DIR:-$top/.run/artemis}/render-boot
off=$((${ARTEMIS_PORT_BASE:-100} + 40))
web=$((8161 + off))
broker=render-boot
url=http://localhost:$web/console/jolokia
work=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	fi
	rm -rf "$work"
}
trap cleanup EXIT

[ -x "$home/bin/artemis" ] || { [ -x "$top/scripts/artemis" ] && "$top/scripts/artemis" fetch >&2; }
[ -x "$home/bin/artemis" ] || { not_ok "Artemis $ver available in $home"; done_testing; exit 1; }
schema=$("$top/scripts/artemis-schema") || { not_ok "schema extracted"; done_testing; exit 1; }

# --- the instance and the cluster folder --------------------------------
if curl -s -o /dev/null --max-time 2 "http://localhost:$web/"; then
	not_ok "port $web is free" "something (a leftover broker?) answers there"
	done_testing
	exit 1
fi
rm -rf "$run"
mkdir -p "$(dirname "$run")"
check "artemis create" "$home/bin/artemis" create "$run" --silent --force \
	--user admin --password admin --role amq --require-login --name "$broker" \
	--host localhost --http-host localhost --port-offset "$off" \
	--no-autotune --no-fsync --java-memory 512M --no-amqp-acceptor \
	--no-mqtt-acceptor --no-hornetq-acceptor --no-stomp-acceptor
cl=$work/rb
mkdir -p "$cl/broker"
cp "$run/etc/broker.xml" "$cl/broker/broker.xml"
cat >"$cl/cluster.yaml" <<YAML
version: 1
cluster: rb
mode: CONFIG_MANAGED
nodes:
  - {name: $broker, jolokia: "$url", credentials: $broker}
YAML

# declare V: write the objects of declaration version V.
declare_v1() {
	cat >"$cl/objects.yaml" <<'YAML'
version: 1
addresses:
  - {name: DLQ, routing: [anycast], queues: [{name: DLQ}]}
  - {name: ExpiryQueue, routing: [anycast], queues: [{name: ExpiryQueue}]}
  - name: orders
    routing: [anycast]
    queues:
      - name: orders
        filter: "region = 'EU' AND kind <> \"x\" AND n < 3"
        max-consumers: 5
        purge-on-no-consumers: true
        exclusive: true
        ring-size: 100
        enabled: false
        last-value-key: "k&v"
        consumers-before-dispatch: 2
        delay-before-dispatch: 1500
  - name: events
    routing: [multicast]
    queues: [{name: events.a, durable: false}, {name: events.b}]
  - {name: audit, routing: [anycast], queues: [{name: audit}]}
  - {name: spare, routing: [anycast], queues: [{name: spare}]}
diverts:
  - name: orders-audit
    address: orders
    forwarding-address: audit
    exclusive: true
    filter: "p > 4 AND t = 'a&b'"
    routing-name: "rn<&>"
    routing-type: ANYCAST
    transformer-class-name: org.apache.activemq.artemis.core.server.transformer.AddHeadersTransformer
    transformer-properties: {x-via: "orders&audit"}
  - {name: events-audit, address: events, forwarding-address: audit, routing-type: PASS}
YAML
}

# v2: events.b and spare (address and queue) and the divert events-audit
# are removed; orders' max-consumers changes; queue new.q and divert
# orders-copy are added.
declare_v2() {
	declare_v1
	python3 - "$cl/objects.yaml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("{name: events.a, durable: false}, {name: events.b}", "{name: events.a, durable: false}")
s = s.replace("  - {name: spare, routing: [anycast], queues: [{name: spare}]}\n",
              "  - {name: new, routing: [anycast], queues: [{name: new.q}]}\n")
s = s.replace("max-consumers: 5", "max-consumers: 7")
s = s.replace("  - {name: events-audit, address: events, forwarding-address: audit, routing-type: PASS}\n",
              "  - {name: orders-copy, address: orders, forwarding-address: new}\n")
open(p, "w").write(s)
PY
}

# predict: render, and predict each node's reload from its live state;
# plan the same declaration too (issue 7 item 2: a CONFIG_MANAGED plan's
# preview holds the rendered file and the same prediction): its
# broker/<node>/broker.xml must be the file render wrote, and its diff
# must turn the base into it.
predict() {
	local rc prc
	rm -rf "$work/out" "$work/plan"
	"$AG_BIN" render "$cl" --out "$work/out" --schema-dir "$schema" \
		--predict-reload --credentials "$work/creds" >"$work/pred.md" 2>"$work/pred.err"
	rc=$?
	sed 's/^/# /' "$work/pred.md" >&2
	"$AG_BIN" plan "$cl" --out "$work/plan" --schema-dir "$schema" \
		--credentials "$work/creds" >"$work/plan.out" 2>"$work/plan.err"
	prc=$?
	if [ $prc -ne 0 ] && [ $prc -ne 2 ]; then
		echo "plan failed ($prc): $(cat "$work/plan.err")" >&2
		return 1
	fi
	if ! cmp -s "$work/out/$broker/broker.xml" "$work/plan/broker/$broker/broker.xml"; then
		echo "the plan's broker.xml is not the rendered one" >&2
		return 1
	fi
	if [ "$(jq -r '.broker_xml.nodes[0].sha256' "$work/plan/plan.json")" != \
		"$(sha256sum "$work/plan/broker/$broker/broker.xml" | cut -d' ' -f1)" ]; then
		echo "plan.json's sha256 is not the file's" >&2
		return 1
	fi
	cp "$cl/broker/broker.xml" "$work/patched.xml"
	jq -r '.broker_xml.nodes[0].diff // ""' "$work/plan/plan.json" >"$work/plan.diff"
	if [ -s "$work/plan.diff" ] && ! patch -s "$work/patched.xml" "$work/plan.diff" >&2; then
		echo "the plan's diff does not apply to the base" >&2
		return 1
	fi
	if ! cmp -s "$work/patched.xml" "$work/plan/broker/$broker/broker.xml"; then
		echo "the plan's diff does not turn the base into the rendered file" >&2
		return 1
	fi
	return $rc
}
# predicted LINE...: each line is in the prediction, exactly, and in the
# plan's preview (plan.md) too.
predicted() {
	local l
	for l in "$@"; do
		if grep -qxF -- "$l" "$work/pred.md"; then ok "predicted: $l"; else
			not_ok "predicted: $l" "$(cat "$work/pred.md" "$work/pred.err")"
		fi
		if grep -qxF -- "$l" "$work/plan/plan.md"; then ok "plan.md predicts: $l"; else
			not_ok "plan.md predicts: $l" "$(sed -n '/^## broker.xml/,$p' "$work/plan/plan.md")"
		fi
	done
}

render() {
	rm -rf "$work/out"
	"$AG_BIN" render "$cl" --out "$work/out" --schema-dir "$schema" 2>&1 | grep -v warning
	return "${PIPESTATUS[0]}"
}

jpost() {
	curl -s -u admin:admin -H 'Origin: http://localhost' -H 'Content-Type: application/json' \
		--max-time 10 -d "$1" "$url"
}
jread() { # MBEAN [ATTR]: value as JSON
	local body
	if [ $# -gt 1 ]; then
		body=$(jq -nc --arg m "$1" --arg a "$2" '{type:"read",mbean:$m,attribute:$a}')
	else
		body=$(jq -nc --arg m "$1" '{type:"read",mbean:$m}')
	fi
	jpost "$body" | jq -c '.value'
}
B="org.apache.activemq.artemis:broker=\"$broker\""
# Live state comes from `artemis-gitops snapshot --json` (the agent's own
# reader); Jolokia is called directly only for operations.
mkdir -p "$work/creds"
chmod 700 "$work/creds" # a credentials folder only its owner writes
(umask 077 && echo admin:admin >"$work/creds/$broker")
snap() { # the node's snapshot object
	"$AG_BIN" snapshot --json --credentials "$work/creds" "$cl" >"$work/snap.json" 2>"$work/snap.err" ||
		{ echo "snapshot failed: $(cat "$work/snap.err")" >&2; return 1; }
	jq -c '.nodes[0]' "$work/snap.json"
}
names() { # addresses|queues|diverts: live names, sorted, internals left out
	snap | jq -r --arg k "$1" '.[$k][] | select((.internal // false) | not) | .name' |
		grep -v '^activemq\.' | grep -v '^\$sys\.' | sort | tr '\n' ' '
}
squeue() { snap | jq -c --arg n "$1" '.queues[] | select(.name == $n)'; }
sdivert() { snap | jq -c --arg n "$1" '.diverts[] | select(.name == $n)'; }
queue_mbean() { echo "$B,component=addresses,address=\"$1\",subcomponent=queues,routing-type=\"$2\",queue=\"$3\""; }
divert_mbean() { echo "$B,component=addresses,address=\"$1\",subcomponent=diverts,divert=\"$2\""; }

wait_active() {
	for _ in $(seq 1 120); do
		[ "$(jread "$B" Active 2>/dev/null)" = true ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

# --- boot with the rendered file ----------------------------------------
declare_v1
check "render v1" render
check "rendered file differs from the base" bash -c "! cmp -s '$work/out/$broker/broker.xml' '$cl/broker/broker.xml'"
cp "$work/out/$broker/broker.xml" "$run/etc/broker.xml"
# A fact, not the renderer: a filter written with a character reference
# for '$' (the renderer refuses "${" in declared strings instead).
python3 - "$run/etc/broker.xml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = '<queue name="audit" '
i = s.index(old)
j = s.index("<durable>true</durable>", i) + len("<durable>true</durable>")
s = s[:j] + "<filter string=\"v = '&#36;{java.version}'\"/>" + s[j:]
open(p, "w").write(s)
PY
mkdir -p "$run/log"
setsid "$run/bin/artemis" run >"$run/log/console.log" 2>&1 </dev/null &
pid=$!
if wait_active; then ok "broker boots with the rendered broker.xml"; else
	not_ok "broker boots with the rendered broker.xml" "$(tail -n 40 "$run/log/console.log")"
	done_testing
	exit 1
fi

check_eq "addresses: exactly the declared ones" \
	"DLQ ExpiryQueue audit events orders spare " "$(names addresses)"
check_eq "queues: exactly the declared ones" \
	"DLQ ExpiryQueue audit events.a events.b orders spare " "$(names queues)"
check_eq "diverts: exactly the declared ones" \
	"events-audit orders-audit " "$(names diverts)"

q=$(squeue orders)
check_eq "queue orders: every declared setting" \
	'{"address":"orders","configuration_managed":true,"consumers_before_dispatch":2,"delay_before_dispatch":1500,"durable":true,"enabled":false,"exclusive":true,"filter":"region = '"'EU'"' AND kind <> \"x\" AND n < 3","last_value_key":"k&v","max_consumers":5,"purge_on_no_consumers":true,"ring_size":100,"routing":"anycast"}' \
	"$(jq -cS '{address,configuration_managed,consumers_before_dispatch,delay_before_dispatch,durable,enabled,exclusive,filter,last_value_key,max_consumers,purge_on_no_consumers,ring_size,routing}' <<<"$q")"
check_eq "queue orders: a last-value queue (Jolokia LastValue)" \
	true "$(jread "$(queue_mbean orders anycast orders)" LastValue)"
q=$(squeue events.a)
check_eq "queue events.a: multicast, not durable, defaults" \
	'{"address":"events","consumers_before_dispatch":0,"delay_before_dispatch":-1,"durable":false,"enabled":true,"exclusive":false,"filter":null,"last_value_key":null,"max_consumers":-1,"purge_on_no_consumers":false,"ring_size":-1,"routing":"multicast"}' \
	"$(jq -cS '{address,consumers_before_dispatch,delay_before_dispatch,durable,enabled,exclusive,filter,last_value_key,max_consumers,purge_on_no_consumers,ring_size,routing}' <<<"$q")"
check_eq "address events: multicast only" '["multicast"]' \
	"$(snap | jq -c '.addresses[] | select(.name == "events") | .routing')"
# Why render refuses "${" in declared strings: Artemis substitutes system
# properties in every value it reads, even one written as "&#36;{" (the
# filter was added to the rendered file by hand, see above).
f=$(squeue audit | jq .filter)
if [[ $f =~ ^\"v\ =\ \'[0-9]+\.[0-9.]+\'\"$ ]]; then
	ok "Artemis substitutes \${java.version} even when written as &#36;{java.version}"
else
	not_ok "Artemis substitutes \${java.version} even when written as &#36;{java.version}" "Filter: $f"
fi
d=$(sdivert orders-audit)
check_eq "divert orders-audit: every declared field" \
	'{"address":"orders","exclusive":true,"filter":"p > 4 AND t = '"'a&b'"'","forwarding_address":"audit","name":"orders-audit","routing_name":"rn<&>","routing_type":"ANYCAST","transformer_class_name":"org.apache.activemq.artemis.core.server.transformer.AddHeadersTransformer","transformer_properties":{"x-via":"orders&audit"}}' \
	"$(jq -cS . <<<"$d")"
d=$(sdivert events-audit)
check_eq "divert events-audit: defaults" \
	'{"address":"events","exclusive":false,"filter":null,"forwarding_address":"audit","name":"events-audit","routing_name":"events-audit","routing_type":"PASS","transformer_class_name":null,"transformer_properties":{}}' \
	"$(jq -cS . <<<"$d")"
check_eq "config-delete-* are OFF in the generated base" \
	'{"config_delete_addresses":"OFF","config_delete_diverts":"OFF","config_delete_queues":"OFF","match":"#"}' \
	"$(snap | jq -cS '.address_settings[] | select(.match == "#")')"

# --- reload ---------------------------------------------------------------
# The broker logs this as the last step of every configuration reload.
RELOADED='AMQ221056: Reloading configuration: protocol services'
reloads() { grep -c "$RELOADED" "$run/log/console.log"; }
wait_reloads() { # N: until N reloads are logged (20 s at most)
	for _ in $(seq 1 40); do
		[ "$(reloads)" -ge "$1" ] && return 0
		sleep 0.5
	done
	return 1
}
# install_and_reload: put the rendered file (the one the plan's preview
# holds, which predict checked is render's) in place with a strictly newer
# mtime (the scanner reloads only when the mtime grew) and wait until the
# broker's periodic check (configuration-file-refresh-period, 5000 ms by
# default) has reloaded it.
install_and_reload() {
	local n
	n=$(reloads)
	cp "$work/plan/broker/$broker/broker.xml" "$run/etc/broker.xml"
	touch -d "@$(($(date +%s) + 1))" "$run/etc/broker.xml"
	wait_reloads $((n + 1)) || return 1
	sleep 0.5
}
cp "$cl/broker/broker.xml" "$work/base.orig"
# force KIND...: the base, with config-delete-KIND FORCE in its catch-all
# address-setting (address-settings are the base's, not the agent's).
force() {
	python3 - "$work/base.orig" "$cl/broker/broker.xml" "$@" <<'PY'
import sys
src, dst, kinds = sys.argv[1], sys.argv[2], sys.argv[3:]
s = open(src).read()
anchor = "<auto-delete-addresses>false</auto-delete-addresses>"
add = "".join("\n            <config-delete-%s>FORCE</config-delete-%s>" % (k, k) for k in kinds)
assert anchor in s
s = s.replace(anchor, anchor + add, 1)
open(dst, "w").write(s)
PY
}
jexec() { # MBEAN OPERATION ARGS-JSON
	jpost "$(jq -nc --arg m "$1" --arg o "$2" --argjson a "$3" '{type:"exec",mbean:$m,operation:$o,arguments:$a}')" |
		jq -c '{status,error}'
}
msgs() { squeue "$3" | jq '.message_count'; }
send() { # ADDRESS ROUTING QUEUE: one durable message into the queue
	jexec "$(queue_mbean "$1" "$2" "$3")" \
		'sendMessage(java.util.Map,int,java.lang.String,boolean,java.lang.String,java.lang.String)' \
		'[{}, 3, "hello", true, "admin", "admin"]'
}

start_broker() {
	setsid "$run/bin/artemis" run >>"$run/log/console.log" 2>&1 </dev/null &
	pid=$!
	wait_active
}
stop_broker() {
	kill "$pid"
	for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	! kill -0 "$pid" 2>/dev/null
}
has() { # LIST NAME
	case " $1" in *" $2 "*) return 0 ;; esac
	return 1
}

# P1, config-delete-* OFF (the default): v2 drops queue events.b, address
# spare (with its queue), divert events-audit; changes orders'
# max-consumers; adds address new (queue new.q) and divert orders-copy.
declare_v2
check "render v2, predict its reload" predict
predicted "- adds address 'new'" \
	"- keeps address 'spare': config-delete-addresses OFF: it stays live, outside the file (a restart keeps it too)" \
	"- adds queue 'new.q' on address 'new'" \
	"- updates queue 'orders' on address 'orders': max-consumers 5 -> 7" \
	"- keeps queue 'events.b' on address 'events': config-delete-queues OFF: it stays live, outside the file (a restart keeps it too)" \
	"- keeps queue 'spare' on address 'spare': config-delete-queues OFF: it stays live, outside the file (a restart keeps it too)" \
	"- adds divert 'orders-copy' from address 'orders': deployed by the reload (so is a divert of the file destroyed at runtime)" \
	"- keeps divert 'events-audit' from address 'events': config-delete-diverts OFF: it stays, and a restart recovers it from the journal" \
	"Messages lost by the reload: 0"
# The broker's own objects that stay are left out (docs/config-managed.md):
# activemq.notifications is live, undeclared, and kept under OFF.
check_eq "P1: activemq.notifications is live (the broker made it)" activemq.notifications \
	"$(snap | jq -r '.addresses[] | select(.name == "activemq.notifications") | .name')"
check_absent "P1 OFF: the broker's own activemq.notifications, which stays, is left out of the prediction" \
	"activemq\\.notifications" "$work/pred.md" "keeps address 'spare'"
check "P1: the broker reloads the new file by itself" install_and_reload
check_eq "P1 OFF: no address removed, the new one added" \
	"DLQ ExpiryQueue audit events new orders spare " "$(names addresses)"
check_eq "P1 OFF: no queue removed, the new one added" \
	"DLQ ExpiryQueue audit events.a events.b new.q orders spare " "$(names queues)"
check_eq "P1 OFF: the removed divert stays, the new one added" \
	"events-audit orders-audit orders-copy " "$(names diverts)"
check_eq "P1: predicted filter change applied (the hand-written filter is gone)" \
	null "$(squeue audit | jq .filter)"
check_eq "P1 OFF: a changed queue setting is applied in place" \
	7 "$(squeue orders | jq .max_consumers)"
check_eq "P1 OFF: the changed queue stays configuration-managed" \
	true "$(squeue orders | jq .configuration_managed)"

# P1 restart: the same file, a restart.
# Not through check: its subshell would lose the new pid.
if stop_broker; then ok "P1 restart: broker stops"; else not_ok "P1 restart: broker stops"; fi
if start_broker; then ok "P1 restart: broker starts"; else
	not_ok "P1 restart: broker starts" "$(tail -n 40 "$run/log/console.log")"
fi
check_eq "P1 restart: removed address and queues still there" \
	"DLQ ExpiryQueue audit events.a events.b new.q orders spare " "$(names queues)"
check_eq "P1 restart: the removed divert is back from the journal" \
	"events-audit orders-audit orders-copy " "$(names diverts)"

# P1b: runtime changes to diverts, then a reload of the same content.
check_eq "P1b: destroy a divert the file carries" '{"status":200,"error":null}' \
	"$(jexec "$B" 'destroyDivert(java.lang.String)' '["orders-copy"]')"
check_eq "P1b: create a divert the file does not carry" '{"status":200,"error":null}' \
	"$(jexec "$B" 'createDivert(java.lang.String,java.lang.String,java.lang.String,java.lang.String,boolean,java.lang.String,java.lang.String)' '["rt-divert","rt-divert","orders","audit",false,null,null]')"
check_eq "P1b: before the reload" "events-audit orders-audit rt-divert " "$(names diverts)"
check "P1b: predict the reload of the same file" predict
predicted "- adds divert 'orders-copy' from address 'orders': deployed by the reload (so is a divert of the file destroyed at runtime)" \
	"- keeps divert 'rt-divert' from address 'orders': config-delete-diverts OFF: it stays, and a restart recovers it from the journal"
# This time the reload is asked for through Jolokia: it runs at once, and
# the periodic check, which does not know, reloads the same file again.
n=$(reloads)
cp "$work/out/$broker/broker.xml" "$run/etc/broker.xml"
touch -d "@$(($(date +%s) + 1))" "$run/etc/broker.xml"
check_eq "P1b: reloadConfigurationFile() accepted" '{"status":200,"error":null}' \
	"$(jexec "$B" 'reloadConfigurationFile()' '[]')"
# Read at once when the call returns: the file is deployed by then. (The
# periodic check may have seen the new mtime a moment before the call and
# reloaded first; that is still a reload before the call returned, so the
# count is at least n + 1, not exactly.)
after_call=$(names diverts)
check "P1b: reloadConfigurationFile() reloads before returning" test "$(reloads)" -ge $((n + 1))
check_eq "P1b OFF: reload brings the destroyed divert back; the runtime one stays" \
	"events-audit orders-audit orders-copy rt-divert " "$after_call"
check "P1b: the periodic check reloads the same file once more" wait_reloads $((n + 2))
sleep 0.5
check_eq "P1b OFF: still so after the periodic reload" \
	"events-audit orders-audit orders-copy rt-divert " "$(names diverts)"

# P2: config-delete-diverts FORCE.
force diverts
check "render v2, diverts FORCE, predict its reload" predict
predicted "- removes divert 'events-audit' from address 'events': config-delete-diverts FORCE: every divert the file does not carry is removed, runtime-created ones and capture taps included" \
	"- removes divert 'rt-divert' from address 'orders': config-delete-diverts FORCE: every divert the file does not carry is removed, runtime-created ones and capture taps included" \
	"- keeps queue 'events.b' on address 'events': config-delete-queues OFF: it stays live, outside the file (a restart keeps it too)"
check "reloaded" install_and_reload
check_eq "P2: the snapshot reads config-delete-diverts FORCE" \
	'{"config_delete_addresses":"OFF","config_delete_diverts":"FORCE","config_delete_queues":"OFF","match":"#"}' \
	"$(snap | jq -cS '.address_settings[] | select(.match == "#")')"
check_eq "P2 diverts FORCE: every divert not in the file is removed, runtime-created included" \
	"orders-audit orders-copy " "$(names diverts)"
check_eq "P2 diverts FORCE: queues untouched" \
	"DLQ ExpiryQueue audit events.a events.b new.q orders spare " "$(names queues)"

# P3: + config-delete-queues FORCE, with a message in each doomed queue.
send events multicast events.b >/dev/null
send spare anycast spare >/dev/null
check_eq "P3: a message in events.b" 1 "$(msgs events multicast events.b)"
check_eq "P3: a message in spare" 1 "$(msgs spare anycast spare)"
check_eq "P3: create a queue at runtime" '{"status":200,"error":null}' \
	"$(jexec "$B" 'createQueue(java.lang.String,java.lang.String,java.lang.String)' '["events","rt.q","MULTICAST"]')"
force diverts queues
check "render v2, diverts+queues FORCE, predict its reload" predict
predicted "- removes queue 'events.b' on address 'events': config-delete-queues FORCE: removed with its 1 message, which is lost" \
	"- removes queue 'spare' on address 'spare': config-delete-queues FORCE: removed with its 1 message, which is lost" \
	"- keeps queue 'rt.q' on address 'events': created at runtime: config-delete-queues removes only configuration-managed queues" \
	"- keeps address 'spare': config-delete-addresses OFF: it stays live, outside the file (a restart keeps it too)" \
	"Messages lost by the reload: 2"
check_grep "P3: plan.md names the messages a reload of its file loses" \
	'A reload of the rendered files loses 2 messages' "$work/plan/plan.md"
check "reloaded" install_and_reload
check_eq "P3 queues FORCE: configuration-managed queues not in the file are removed, messages and all; the runtime queue stays" \
	"DLQ ExpiryQueue audit events.a new.q orders rt.q " "$(names queues)"
check_eq "P3 queues FORCE: the emptied address stays" \
	"DLQ ExpiryQueue audit events new orders spare " "$(names addresses)"

# P4: + config-delete-addresses FORCE.
check_eq "P4: create an address at runtime" '{"status":200,"error":null}' \
	"$(jexec "$B" 'createAddress(java.lang.String,java.lang.String)' '["rt.addr","ANYCAST"]')"
check "P4: the runtime address exists" has "$(names addresses)" rt.addr
force diverts queues addresses
check "render v2, all FORCE, predict its reload" predict
predicted "- removes address 'rt.addr': config-delete-addresses FORCE: every address the file does not carry is removed, runtime-created ones included" \
	"- removes address 'spare': config-delete-addresses FORCE: every address the file does not carry is removed, runtime-created ones included" \
	"- keeps queue 'rt.q' on address 'events': created at runtime: config-delete-queues removes only configuration-managed queues" \
	"- removes address 'activemq.notifications': config-delete-addresses FORCE: every address the file does not carry is removed, runtime-created ones included; the broker's own address (management notifications, which cluster bridges subscribe to): gone until the broker creates it again at its next start" \
	"Messages lost by the reload: 0"
check "reloaded" install_and_reload
check_eq "P4 addresses FORCE: the broker's own activemq.notifications is removed, as predicted" "" \
	"$(snap | jq -r '.addresses[] | select(.name == "activemq.notifications") | .name')"
check_eq "P4: the snapshot reads every config-delete-* FORCE" \
	'{"config_delete_addresses":"FORCE","config_delete_diverts":"FORCE","config_delete_queues":"FORCE","match":"#"}' \
	"$(snap | jq -cS '.address_settings[] | select(.match == "#")')"
check_eq "P4 addresses FORCE: addresses not in the file are removed, runtime-created included" \
	"DLQ ExpiryQueue audit events new orders " "$(names addresses)"
check_eq "P4: queues unchanged" \
	"DLQ ExpiryQueue audit events.a new.q orders rt.q " "$(names queues)"

# P5: every config-delete-* FORCE, and DLQ and ExpiryQueue no longer
# declared, so no longer in the file: the reload removes the broker's own
# dead-letter and expiry addresses, and the prediction says so, with what
# they are. A restart brings activemq.notifications back, not them.
sed -i '/{name: DLQ,/d; /{name: ExpiryQueue,/d' "$cl/objects.yaml"
check "render v2 without DLQ and ExpiryQueue, all FORCE, predict its reload" predict
own="the broker's own (artemis create puts it in broker.xml as the default dead-letter or expiry address): declare it to keep it"
predicted "- removes address 'DLQ': config-delete-addresses FORCE: every address the file does not carry is removed, runtime-created ones included; $own" \
	"- removes address 'ExpiryQueue': config-delete-addresses FORCE: every address the file does not carry is removed, runtime-created ones included; $own" \
	"- removes queue 'DLQ' on address 'DLQ': config-delete-queues FORCE: removed with its 0 messages, which are lost; $own" \
	"- removes queue 'ExpiryQueue' on address 'ExpiryQueue': config-delete-queues FORCE: removed with its 0 messages, which are lost; $own"
check "P5: reloaded" install_and_reload
check_eq "P5: DLQ and ExpiryQueue are removed, as predicted" \
	"audit events new orders " "$(names addresses)"
if stop_broker; then ok "P5 restart: broker stops"; else not_ok "P5 restart: broker stops"; fi
if start_broker; then ok "P5 restart: broker starts"; else
	not_ok "P5 restart: broker starts" "$(tail -n 30 "$run/log/console.log")"
fi
check_eq "P5 restart: the broker made activemq.notifications again" activemq.notifications \
	"$(snap | jq -r '.addresses[] | select(.name == "activemq.notifications") | .name')"
check_eq "P5 restart: DLQ and ExpiryQueue stay gone" "audit events new orders " "$(names addresses)"
# P6: address-settings and security-settings declared (issue 25): the
# rendered file owns <address-settings> and <security-settings> (the base's
# '#' with the FORCE set by hand above is replaced by the declared one),
# the broker boots with it, and the settings read back through Jolokia as
# the broker resolves them for an address (getAddressSettingsAsJSON: the
# matches merged, the most specific first) and the roles of the most
# specific security match (getRolesAsJSON).
cat >>"$cl/objects.yaml" <<'YAML'
address-settings:
  - match: "#"
    config-delete-addresses: FORCE
    config-delete-queues: FORCE
    config-delete-diverts: FORCE
    auto-create-queues: true
    max-delivery-attempts: 9
  - match: orders
    dead-letter-address: audit
    max-delivery-attempts: 3
    redelivery-delay: 2s
    max-size-bytes: 1MB
    address-full-policy: FAIL
    auto-create-queues: false
security-settings:
  - match: "#"
    send: [amq]
    consume: [amq]
    create-durable-queue: [amq]
    delete-durable-queue: [amq]
    create-non-durable-queue: [amq]
    delete-non-durable-queue: [amq]
    create-address: [amq]
    delete-address: [amq]
    manage: [amq]
    browse: [amq]
  - match: orders.#
    send: [producer]
    consume: [consumer, amq]
    browse: [amq]
YAML
check "P6: render with address-settings and security-settings, predict its reload" predict
predicted "- address-settings: the file's 2 matches ('#', 'orders') replace the broker's configured ones at the reload and apply to the next message; a match the file no longer holds is gone, but one added through management (kept in the journal) is applied again over them" \
	"- security-settings: the file's 2 matches ('#', 'orders.#') replace the broker's configured ones at the reload, as address-settings do; a session's permissions already checked hold until the broker's authorization cache expires (security-invalidation-interval, 10 s by default)"
check "P6: the rendered file holds the declared address-setting" \
	grep -q '<address-setting match="orders">' "$work/out/$broker/broker.xml"
if stop_broker; then ok "P6: broker stops"; else not_ok "P6: broker stops"; fi
cp "$work/out/$broker/broker.xml" "$run/etc/broker.xml"
if start_broker; then ok "P6: broker boots with the rendered settings"; else
	not_ok "P6: broker boots with the rendered settings" "$(tail -n 30 "$run/log/console.log")"
fi
jexec() { # OPERATION ARG: the value of an exec on the broker
	jpost "$(jq -nc --arg m "$B" --arg o "$1" --arg a "$2" '{type:"exec",mbean:$m,operation:$o,arguments:[$a]}')" | jq -r '.value'
}
settings_of() { # ADDRESS: the settings the broker resolves for it
	jexec 'getAddressSettingsAsJSON(java.lang.String)' "$1" |
		jq -cS '{addressFullMessagePolicy,autoCreateQueues,configDeleteQueues,deadLetterAddress,maxDeliveryAttempts,maxSizeBytes,redeliveryDelay}'
}
check_eq "P6: address orders reads back the declared settings (its match over '#')" \
	'{"addressFullMessagePolicy":"FAIL","autoCreateQueues":false,"configDeleteQueues":"FORCE","deadLetterAddress":"audit","maxDeliveryAttempts":3,"maxSizeBytes":1048576,"redeliveryDelay":2000}' \
	"$(settings_of orders)"
# observed (2.44.0): what no match writes reads back null, not the
# broker's default, which then applies
check_eq "P6: address events reads back '#' alone, null for what no match writes" \
	'{"addressFullMessagePolicy":null,"autoCreateQueues":true,"configDeleteQueues":"FORCE","deadLetterAddress":null,"maxDeliveryAttempts":9,"maxSizeBytes":null,"redeliveryDelay":null}' \
	"$(settings_of events)"
check_eq "P6: orders.eu's roles are those of orders.#" \
	'[{"browse":true,"consume":true,"manage":false,"name":"amq","send":false},{"browse":false,"consume":true,"manage":false,"name":"consumer","send":false},{"browse":false,"consume":false,"manage":false,"name":"producer","send":true}]' \
	"$(jexec 'getRolesAsJSON(java.lang.String)' orders.eu | jq -cS '[.[] | {name,send,consume,browse,manage}] | sort_by(.name)')"
check_eq "P6: audit's roles are those of '#'" \
	'[{"browse":true,"consume":true,"manage":true,"name":"amq","send":true}]' \
	"$(jexec 'getRolesAsJSON(java.lang.String)' audit | jq -cS '[.[] | {name,send,consume,browse,manage}]')"
check_absent "no schema or deployment errors in the broker log" 'ERROR|AMQ22[0-9]+: (Invalid|Error)' "$run/log/console.log" "$RELOADED"
done_testing
