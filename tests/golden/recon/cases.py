# The planner's golden cases (read by make-cases.py). Each names the
# decision it pins. Snapshots: node1 and node2 of cluster shop-eu.

# ---- D1: dependent diverts -------------------------------------------------
case("001-d1-last-queue-removes-divert", "delete-queue orders",
     cluster(ORDERS + AUDIT_IN),
     snapshot(node("node1", [q("orders", "orders", messages=3), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json .outcome "WOULD_APPLY"
json .actions[0].kind "delete-queue"
json .actions[0].nodes[0].removed_diverts[0].name "audit-copy"
json .actions[0].nodes[0].removed_diverts[0].address "audit-in"
json .actions[0].nodes[0].removed_diverts[0].forwarding_address "orders"
json .actions[0].nodes[0].removed_diverts[0].declared false
json [.actions[0].nodes[0].operations[].op] ["destroyDivert","destroyQueue"]
json .actions[0].nodes[0].operations[0].config["routing-name"] "audit-copy"
json .actions[0].nodes[0].observed.queue.messages 3
json .summary.deleted_diverts 1
json .confirmation|test("^delete 1 queue, 1 divert on shop-eu [0-9a-f]{12}$") => true
md # shop-eu: WOULD_APPLY — delete 1 queue, 1 divert; destroys 3 messages (cap 1000)
md removed with the queue: divert `audit-copy` (source `audit-in`, forwarding to `orders`)
md if a removed divert is in this node's broker.xml, the broker creates it again at the next restart
md artemis-gitops approve plan --confirm 'delete 1 queue, 1 divert on shop-eu
""", exit=2)

case("002-d1-other-queue-not-dependent", "delete-queue orders",
     cluster(ORDERS + AUDIT_IN),
     snapshot(node("node1", [q("orders", "orders"), q("orders-b", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json .actions[0].nodes[0].removed_diverts []
json .actions[0].nodes[0].kept_diverts[0].name "audit-copy"
json [.actions[0].nodes[0].operations[].op] ["destroyQueue"]
json .actions[0].nodes[1].removed_diverts[0].name "audit-copy"
md kept: divert `audit-copy` (source `audit-in`, forwarding to `orders`): not dependent: it forwards into 'orders', which still has queue 'orders-b' on this node when 'orders' goes
""", exit=2)

# ---- D2: declared dependent diverts ---------------------------------------
case("003-d2-studio-declared-recreates", "delete-queue orders",
     cluster(ORDERS + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
"""),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json .actions[0].nodes[0].removed_diverts[0].declared true
json .actions[0].nodes[0].warnings|length 2
md — **declared** in the cluster's declaration
md the removal does not stick; the next apply acts on the declaration again and re-creates queue 'orders' on 'orders' and the divert; remove the divert from the declaration
""", exit=2)

case("004-d2-git-flow-nothing-consumes", "plan",
     cluster("""addresses:
  - name: orders
    routing: [anycast]
""" + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
"""),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "INVALID_DECLARATION"
json .confirmation null
json .actions []
json .diagnostics[0]|test("Nothing consumes at orders") => true
md **Refused (INVALID_DECLARATION):**
md divert 'audit-copy' forwards to 'orders': Nothing consumes at orders
md This plan is refused and cannot be approved
err Nothing consumes at orders
""", base=cluster(ORDERS.replace("addresses:\n", "addresses:\n") + AUDIT_IN + """      - name: orders
diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
""".replace("      - name: orders\n", "", 1)), exit=1)

# ---- order rule: creates before deletes ------------------------------------
case("005-order-create-before-delete", "plan",
     cluster("""addresses:
  - name: orders
    routing: [anycast]
    queues:
      - name: orders-v2
""" + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
"""),
     snapshot(node("node1", [q("orders", "orders", messages=2), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json [.actions[].kind] ["create-queue","delete-queue"]
json .actions[1].nodes[0].removed_diverts []
json .actions[1].nodes[0].kept_diverts[0].reason|test("still has queue 'orders-v2'") => true
json .actions[0].nodes[0].operations[0].config["auto-create-address"] false
json .base.source "base"
json .destroyed_messages 2
md ### 1. create-queue `orders-v2` (address `orders`)
md ### 2. delete-queue `orders` — **destroys messages**
""", base=cluster(ORDERS + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
"""), exit=2)

case("006-d2-config-managed-declared", "plan",
     cluster("""addresses:
  - name: orders
    routing: [anycast]
""" + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
""", mode="CONFIG_MANAGED"),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json .mode "CONFIG_MANAGED"
json .actions[0].kind "delete-queue"
json .actions[0].nodes[0].removed_diverts[0].declared true
md the broker.xml rendered from it still carries the divert, so the next deployment and restart bring it back
md if a removed divert is in this node's broker.xml
json .diagnostics[0]|test("warning: divert 'audit-copy' forwards to 'orders': Nothing consumes at orders") => true
md ## Declaration diagnostics
md ## broker.xml (CONFIG_MANAGED)
md +            <anycast/>
md - **divert `audit-copy` is carried by the rendered broker.xml**
json .broker_xml.nodes[0].carried_diverts ["audit-copy"]
json .broker_xml.nodes[0].reload.settings.queues "OFF"
json .broker_xml.nodes[0].path "broker/node1/broker.xml"
md keeps queue 'orders' on address 'orders': created at runtime
md Messages lost by the reload: 0
""", base=cluster(ORDERS + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
""", mode="CONFIG_MANAGED"), exit=2, broker_xml=broker_base("OFF"))

# ---- CONFIG_MANAGED: a reload with config-delete-* FORCE loses messages -----
case("029-config-managed-force-reload", "plan",
     cluster("""addresses:
  - name: orders
    routing: [anycast]
""" + AUDIT_IN, mode="CONFIG_MANAGED"),
     snapshot(node("node1", [q("orders", "orders", messages=7,
                              configuration_managed=True),
                             q("audit-in", "audit-in")]),
              node("node2", refusal="connection refused")),
     """
json .broker_xml.nodes[0].reload.settings.queues "FORCE"
json .broker_xml.nodes[0].reload.messages_lost 7
json .broker_xml.nodes[1].reload null
md removes queue 'orders' on address 'orders': config-delete-queues FORCE: removed with its 7 messages, which are lost
md **A reload of the rendered files loses 7 messages**
md Reload not predicted: node not read (UNREACHABLE).
""", base=cluster(ORDERS + AUDIT_IN, mode="CONFIG_MANAGED"), exit=1,
     broker_xml=broker_base("FORCE"))

# ---- D4: diverts sourced at the queue's address ----------------------------
case("007-d4-source-divert-kept", "delete-queue orders",
     cluster(ORDERS),
     snapshot(node("node1", [q("orders", "orders"), q("archive", "archive")],
                   [dv("orders-archive", "orders", "archive")]),
              node("node2", [q("orders", "orders"), q("archive", "archive")],
                   [dv("orders-archive", "orders", "archive")])),
     """
json .actions[0].nodes[0].kept_diverts[0].name "orders-archive"
json .actions[0].nodes[0].removed_diverts []
json [.actions[0].nodes[0].operations[].op] ["destroyQueue"]
md kept: divert `orders-archive` (source `orders`, forwarding to `archive`): its source is the queue's address: it still routes what producers send to 'orders'
""", exit=2)

# ---- D5: capture taps ------------------------------------------------------
CAPTURE = """captures:
  - name: debug-orders
    pattern: "orders*"
"""
case("008-d5-tap-removed-by-subscription", "delete-queue orders",
     cluster(ORDERS + CAPTURE),
     snapshot(node("node1", [q("orders", "orders"), q("audit", "orders"), ring("debug-orders")],
                   [tap("debug-orders", "orders")]),
              node("node2", [q("orders", "orders"), ring("debug-orders")])),
     """
json .actions[0].nodes[0].taps[0].fate "removed-by-subscription"
json .actions[0].nodes[0].taps[0].capture "debug-orders"
json [.actions[0].nodes[0].operations[].op] ["destroyQueue"]
json .unmanaged|map(.name)|index("__capture.debug-orders") null
json [.actions[]|.kind+":"+.name] ["delete-queue:orders","delete-tap:__capture.debug-orders.orders"]
json [.actions[1].nodes[]|.outcome] ["WOULD_APPLY","NO_CHANGE"]
json [.actions[1].nodes[0].operations[].op] ["destroyDivert"]
json .actions[1].nodes[0].operations[0].config["forwarding-address"] "__capture.debug-orders"
json .confirmation|test("^delete 1 queue, 1 divert on shop-eu ") => true
md capture tap `__capture.debug-orders.orders` (capture `debug-orders`): removed by its capture subscription — 'orders' is the last queue on 'orders' that capture 'debug-orders' (pattern 'orders*') matches
md delete-tap `__capture.debug-orders.orders`
md no queue on 'orders' matches capture 'debug-orders' (pattern 'orders*') once the plan's queue changes are done: the capture pass removes the tap
""", exit=2)

case("009-d5-tap-kept", "delete-queue orders",
     cluster(ORDERS + CAPTURE),
     snapshot(node("node1", [q("orders", "orders"), q("orders.priority", "orders"), ring("debug-orders")],
                   [tap("debug-orders", "orders")]),
              node("node2", [q("orders", "orders"), ring("debug-orders")])),
     """
json .actions[0].nodes[0].taps[0].fate "kept"
json [.actions[0].nodes[0].operations[].op] ["destroyQueue"]
json [.actions[].kind] ["delete-queue"]
md kept — kept: capture 'debug-orders' still covers 'orders' through queue 'orders.priority'
""", exit=2)

# ---- D6: consumers ---------------------------------------------------------
D6SNAP = snapshot(node("node1", [q("orders", "orders", consumers=2)]),
                  node("node2", [q("orders", "orders")]))
case("010-d6-consumers-refused", "delete-queue orders", cluster(ORDERS), D6SNAP,
     """
json .outcome "REFUSED"
json .refusal "NODE_REFUSED"
json .actions[0].nodes[0].outcome "REFUSED"
json .actions[0].nodes[0].refusal "HAS_CONSUMERS"
json .actions[0].nodes[0].consumers 2
json .actions[0].nodes[1].outcome "WOULD_APPLY"
json .confirmation null
json .disconnect_consumers false
md **node1**: REFUSED (HAS_CONSUMERS) — queue 'orders' has 2 consumers on this node
md **next step:** stop the consumers, or plan again with --disconnect-consumers to close them
nomd artemis-gitops approve
""", exit=1)

case("011-d6-consumers-disconnect-flag", "delete-queue orders --disconnect-consumers",
     cluster(ORDERS), D6SNAP,
     """
json .outcome "WOULD_APPLY"
json .disconnect_consumers true
json .actions[0].nodes[0].operations[0].remove_consumers true
json .actions[0].nodes[0].warnings[0]|test("^--disconnect-consumers: 2 consumers") => true
md **warning:** --disconnect-consumers: 2 consumers of queue 'orders' will be disconnected; a client that reconnects can create the queue again if auto-create is on for address 'orders'
md - disconnect consumers: yes (--disconnect-consumers)
""", exit=2)

# ---- D7: bulk cap ----------------------------------------------------------
D7SNAP = snapshot(node("node1", [q("orders", "orders", messages=600), q("keep", "keep")]),
                  node("node2", [q("orders", "orders", messages=500), q("keep", "keep")]))
KEEP = """addresses:
  - name: keep
    routing: [anycast]
    queues:
      - name: keep
"""
case("012-d7-over-cap", "plan", cluster(KEEP, cap=1000), D7SNAP,
     """
json .outcome "REFUSED"
json .refusal "BULK_CAP"
json .destroyed_messages 1100
json .message "the plan destroys 1100 messages across its nodes, 100 over the cap of 1000 (settings.max-destroyed-messages)"
md **Refused (BULK_CAP):** the plan destroys 1100 messages across its nodes, 100 over the cap of 1000
md raise settings.max-destroyed-messages to at least 1100
""", inventory=inv(["orders", "keep"], ["orders", "keep"]), exit=1)

case("013-d7-under-cap", "plan", cluster(KEEP, cap=1100), D7SNAP,
     """
json .outcome "WOULD_APPLY"
json .destroyed_messages 1100
json [.actions[].kind] ["delete-queue","delete-address"]
json .base.source "inventory"
md destroys 1100 messages (cap 1100)
""", inventory=inv(["orders", "keep"], ["orders", "keep"]), exit=2)

# ---- unmanaged objects and taps are left alone -----------------------------
case("014-unmanaged-left-alone", "plan", cluster(ORDERS + CAPTURE),
     snapshot(node("node1", [q("orders", "orders"), q("legacy", "legacy", messages=9), ring("debug-orders")],
                   [dv("legacy-copy", "legacy", "orders"), tap("debug-orders", "orders"),
                    tap("never-declared", "orders")]),
              node("node2", [q("orders", "orders"), q("DLQ", "DLQ"), ring("debug-orders")],
                   [tap("debug-orders", "orders")])),
     """
json .outcome "NO_CHANGE"
json .actions []
json [.unmanaged[]|.kind+":"+.name] ["address:legacy","divert:legacy-copy","queue:legacy"]
json .confirmation null
md queue `legacy` on node1
md Nothing to approve
""", inventory=inv(["orders"], ["orders"], [], ["debug-orders"]), exit=0)

case("015-no-inventory-deletes-nothing", "plan", cluster(KEEP),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders", messages=1)]),
              node("node2", [q("keep", "keep")])),
     """
json .outcome "NO_CHANGE"
json .base.source "none"
json [.unmanaged[].name] ["orders","orders"]
md - revision: (working tree); base: none
md - queue `orders` on node1
json .adopts {"addresses":1,"diverts":0,"queues":1}
md **Adopts 2 objects** (1 addresses, 1 queues, 0 diverts)
md --confirm 'adopt 2 objects on shop-eu
nomd ## Actions
""", exit=0)

# ---- change in place vs change by recreate ---------------------------------
case("016-change-vs-recreate", "plan", cluster("""addresses:
  - name: orders
    routing: [anycast]
    queues:
      - name: orders
        max-consumers: 10
      - name: ledger
        durable: false
diverts:
  - name: orders-copy
    address: orders
    forwarding-address: orders
    filter: "kind = 'x'"
  - name: orders-excl
    address: orders
    forwarding-address: orders
    exclusive: true
"""),
     snapshot(node("node1", [q("orders", "orders"), q("ledger", "orders", messages=4)],
                   [dv("orders-copy", "orders", "orders"), dv("orders-excl", "orders", "orders")]),
              node("node2", [q("orders", "orders", max_consumers=10), q("ledger", "orders", durable=False)],
                   [dv("orders-copy", "orders", "orders", filter="kind = 'x'"), dv("orders-excl", "orders", "orders", exclusive=True)])),
     """
json [.actions[].kind] ["change-queue","change-divert","recreate-queue","recreate-divert"]
json .actions[0].nodes[0].operations[0].config["max-consumers"] 10
json .actions[0].nodes[1].outcome "NO_CHANGE"
json .actions[1].nodes[0].operations[0].config["filter-string"] "kind = 'x'"
json .actions[2].destroys_messages true
json [.actions[2].nodes[0].operations[].op] ["destroyQueue","createQueue"]
json [.actions[3].nodes[0].operations[].op] ["destroyDivert","createDivert"]
json .confirmation|test("^change 2, recreate 2 on shop-eu ") => true
md differs in what updateQueue cannot change: durable
md differs: filter
md   - destroyed, then created again as declared: divert `orders-excl` (source `orders`, forwarding to `orders`)
""", exit=2)

# ---- creates on an empty cluster; an unreachable node ----------------------
case("017-create-and-unreachable", "plan", cluster(ORDERS + """diverts:
  - name: orders-copy
    address: orders
    forwarding-address: orders
"""),
     snapshot(node("node1"), node("node2", refusal="connection refused")),
     """
json [.actions[].kind] ["create-address","create-queue","create-divert"]
json .actions[0].nodes[1].outcome "UNREACHABLE"
json .nodes[1].reachable false
json .actions[1].nodes[0].operations[0].config["routing-type"] "ANYCAST"
json .actions[2].nodes[0].operations[0].config["routing-type"] "STRIP"
md **node2** could not be read (UNREACHABLE): connection refused
""", exit=1)

# ---- two deleted queues on one address: the second takes the divert --------
case("018-two-deletes-one-address", "plan", cluster(AUDIT_IN.replace("  - name", "addresses:\n  - name", 1)),
     snapshot(node("node1", [q("orders", "orders"), q("orders-b", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders-b", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["delete-queue:orders","delete-queue:orders-b","delete-address:orders"]
json .actions[0].nodes[0].kept_diverts[0].reason|test("still has queue 'orders-b' on this node when 'orders' goes") => true
json .actions[0].nodes[0].removed_diverts []
json .actions[1].nodes[0].removed_diverts[0].name "audit-copy"
json .actions[0].nodes[1].outcome "NO_CHANGE"
json .actions[1].nodes[1].removed_diverts[0].name "audit-copy"
json [.actions[2].nodes[].outcome] ["WOULD_APPLY","WOULD_APPLY"]
json .summary.deleted_diverts 1
json .confirmation|test("^delete 2 queues, 1 divert, 1 address on shop-eu ") => true
md **node2**: NO_CHANGE — queue 'orders' does not exist on this node
json .unmanaged []
nomd Unmanaged (left alone)
""", inventory=inv(["orders", "audit-in"], ["orders", "orders-b", "audit-in"]), exit=2)

# ---- an address that is not empty after the plan is kept ------------------
case("019-address-kept-not-empty", "plan", cluster(KEEP),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders"), q("mine", "orders")]),
              node("node2", [q("keep", "keep"), q("orders", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["delete-queue:orders","delete-address:orders"]
json .actions[1].nodes[0].outcome "NO_CHANGE"
json .actions[1].nodes[0].warnings ["address 'orders' kept on this node: binding 'mine' stays on it (not removed by this plan)"]
json .actions[1].nodes[1].outcome "WOULD_APPLY"
json [.actions[1].nodes[1].operations[].op] ["deleteAddress"]
json [.unmanaged[]|.kind+":"+.name] ["queue:mine"]
md - **node1**: NO_CHANGE — kept: the address is not empty after the plan
""", inventory=inv(["orders", "keep"], ["orders", "keep"]), exit=2)

# ---- explicit divert delete; the queue delete does not list it again -------
case("020-divert-deleted-explicitly", "plan", cluster(AUDIT_IN.replace("  - name", "addresses:\n  - name", 1)),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["delete-divert:audit-copy","delete-queue:orders","delete-address:orders"]
json [.actions[0].nodes[0].operations[].op] ["destroyDivert"]
json .actions[0].nodes[0].warnings[0]|test("broker.xml") => true
json .actions[1].nodes[0].removed_diverts []
json .actions[1].nodes[0].kept_diverts []
json .summary.deleted_diverts 1
md ### 1. delete-divert `audit-copy` (address `audit-in`)
md   - removed: divert `audit-copy` (source `audit-in`, forwarding to `orders`)
""", inventory=inv(["orders", "audit-in"], ["orders", "audit-in"], ["audit-copy"]), exit=2)

# ---- routing types: widened before creates, narrowed after deletes ---------
case("021-address-routing", "plan", cluster("""addresses:
  - name: events
    routing: [multicast]
    queues:
      - name: billing
        routing: multicast
  - name: orders
    routing: [anycast, multicast]
    queues:
      - name: orders
        routing: anycast
"""),
     snapshot(node("node1", [q("billing", "events", routing="multicast"), q("orders", "orders")],
                   addresses=()),
              node("node2", [q("billing", "events", routing="multicast"), q("old", "events"), q("orders", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["widen-address:orders","delete-queue:old","narrow-address:events"]
json .actions[0].nodes[0].operations[0].routing_types ["ANYCAST","MULTICAST"]
json .actions[2].nodes[0].outcome "NO_CHANGE"
json .actions[2].nodes[1].operations[0].routing_types ["MULTICAST"]
md `updateAddress` `orders` (ANYCAST,MULTICAST)
""", inventory=inv(["events", "orders"], ["billing", "old", "orders"]), exit=2)

# ---- delete-queue of a queue no node has -----------------------------------
case("022-delete-queue-absent", "delete-queue nope", cluster(ORDERS),
     snapshot(node("node1", [q("orders", "orders")]), node("node2", [q("orders", "orders")])),
     """
json .outcome "NO_CHANGE"
json .actions []
md # shop-eu: NO_CHANGE — no changes
md Nothing to approve
""", exit=0)

# ---- the capture pass (ADR-0084 D5; docs/captures.md) ----------------------
CAPTURE500 = """captures:
  - name: debug-orders
    pattern: "orders*"
    ring-size: 500
"""
ORDERS_EU = """  - name: orders-eu
    routing: [multicast]
    queues:
      - name: orders.eu
"""
case("023-capture-creates-taps", "plan", cluster(ORDERS + ORDERS_EU + CAPTURE500),
     snapshot(node("node1", [q("orders", "orders"), q("orders.legacy", "legacy"),
                             q("orders.sys", "sys", internal=True)],
                   [tap("debug-orders", "orders", routing_type="STRIP")]),
              node("node2", [q("orders", "orders"), q("orders.eu", "orders-eu", routing="multicast"),
                             ring("debug-orders")],
                   [tap("debug-orders", "orders-eu")])),
     """
json .outcome "WOULD_APPLY"
json [.actions[]|.kind+":"+.name] ["create-address:orders-eu","create-queue:orders.eu","create-capture:__capture.debug-orders","change-capture:__capture.debug-orders","create-tap:__capture.debug-orders.legacy","create-tap:__capture.debug-orders.orders","create-tap:__capture.debug-orders.orders-eu","change-tap:__capture.debug-orders.orders"]
json [.actions[2].nodes[0].operations[]|.op+":"+.name] ["createAddress:__capture.debug-orders","createQueue:__capture.debug-orders"]
json .actions[2].nodes[0].operations[0].routing_types ["ANYCAST"]
json .actions[2].nodes[0].operations[1].config => {"address":"__capture.debug-orders","auto-create-address":false,"consumers-before-dispatch":0,"delay-before-dispatch":-1,"durable":false,"enabled":true,"exclusive":false,"last-value":false,"max-consumers":-1,"name":"__capture.debug-orders","purge-on-no-consumers":false,"ring-size":500,"routing-type":"ANYCAST"}
json .actions[2].nodes[1].outcome "NO_CHANGE"
json .actions[3].nodes[1].message "the ring queue differs: ring-size"
json [.actions[3].nodes[1].operations[]|.op] ["updateQueue"]
json .actions[3].nodes[1].operations[0].config["ring-size"] 500
json [.actions[4].nodes[]|.outcome] ["WOULD_APPLY","NO_CHANGE"]
json .actions[5].nodes[0].outcome "NO_CHANGE"
json .actions[5].nodes[1].operations[0].config => {"address":"orders","exclusive":false,"filter-string":"","forwarding-address":"__capture.debug-orders","name":"__capture.debug-orders.orders","routing-name":"__capture.debug-orders.orders","routing-type":"ANYCAST"}
json [.actions[6].nodes[]|.outcome] ["WOULD_APPLY","NO_CHANGE"]
json .actions[6].nodes[0].message "capture 'debug-orders' (pattern 'orders*') covers 'orders-eu' through queue 'orders.eu'"
json [.actions[7].nodes[0].operations[]|.op] ["destroyDivert","createDivert"]
json .actions[7].nodes[0].message "capture 'debug-orders' (pattern 'orders*') covers 'orders' through queue 'orders'; the tap differs: routing-type"
json .actions|map(select(.name|test("sys")))|length 0
json .settings.captures[0].ring_size 500
json .confirmation|test("^create 6, change 2 on shop-eu ") => true
md ### 3. create-capture `__capture.debug-orders`
md capture 'debug-orders' (pattern 'orders*'): its capture address and ring queue (ring-size 500)
md Why: capture pass: an address holds a queue the capture's pattern matches, and has no tap.
""", exit=2)

case("024-capture-last-queue-removes-tap", "plan", cluster(ORDERS + CAPTURE),
     snapshot(node("node1", [q("orders", "orders"), q("orders.b", "orders-b", messages=2), ring("debug-orders")],
                   [tap("debug-orders", "orders"), tap("debug-orders", "orders-b")]),
              node("node2", [q("orders", "orders"), ring("debug-orders")],
                   [tap("debug-orders", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["delete-queue:orders.b","delete-address:orders-b","delete-tap:__capture.debug-orders.orders-b"]
json [.actions[0].nodes[0].operations[]|.op+":"+.name] ["destroyQueue:orders.b"]
json .actions[0].nodes[0].taps => [{"capture":"debug-orders","fate":"removed-by-subscription","name":"__capture.debug-orders.orders-b","reason":"'orders.b' is the last queue on 'orders-b' that capture 'debug-orders' (pattern 'orders*') matches: the capture pass that follows the delete removes the tap"}]
json .actions[1].nodes[0].outcome "NO_CHANGE"
json .actions[1].nodes[0].warnings[0]|test("capture tap '__capture.debug-orders.orders-b' is bound to it until the capture pass removes it") => true
json [.actions[2].nodes[]|.outcome] ["WOULD_APPLY","NO_CHANGE"]
json [.actions[2].nodes[0].operations[]|.op+":"+.name] ["destroyDivert:__capture.debug-orders.orders-b"]
json .summary.deleted_diverts 1
md removed by its capture subscription
""", inventory=inv(["orders", "orders-b"], ["orders", "orders.b"], [], ["debug-orders"]), exit=2)

case("025-capture-other-queue-keeps-tap", "plan", cluster(ORDERS + CAPTURE),
     snapshot(node("node1", [q("orders", "orders"), q("orders.b", "orders"), ring("debug-orders")],
                   [tap("debug-orders", "orders")]),
              node("node2", [q("orders", "orders"), ring("debug-orders")],
                   [tap("debug-orders", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["delete-queue:orders.b"]
json .actions[0].nodes[0].taps[0].fate "kept"
json .actions[0].nodes[0].taps[0].reason "kept: capture 'debug-orders' still covers 'orders' through queue 'orders'"
json [.actions[0].nodes[0].operations[]|.op] ["destroyQueue"]
""", inventory=inv(["orders"], ["orders", "orders.b"], [], ["debug-orders"]), exit=2)

case("026-capture-removed-from-declaration", "plan", cluster(ORDERS),
     snapshot(node("node1", [q("orders", "orders"), ring("debug-orders", messages=40)],
                   [tap("debug-orders", "orders"), tap("other", "orders")]),
              node("node2", [q("orders", "orders"), ring("debug-orders")],
                   [tap("debug-orders", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["delete-tap:__capture.debug-orders.orders","delete-capture:__capture.debug-orders"]
json [.actions[0].nodes[]|.outcome] ["WOULD_APPLY","WOULD_APPLY"]
json .actions[0].nodes[0].message "capture 'debug-orders' is no longer declared: the capture pass removes every tap of it"
json [.actions[1].nodes[0].operations[]|.op+":"+.name] ["destroyQueue:__capture.debug-orders","deleteAddress:__capture.debug-orders"]
json .actions[1].nodes[0].message "capture 'debug-orders' is no longer declared: its ring queue and capture address go (the ring holds 40 copies, not counted by the bulk cap)"
json .destroyed_messages 0
json .confirmation|test("^delete 1 queue, 1 divert, 1 address on shop-eu ") => true
json .unmanaged []
""", inventory=inv(["orders"], ["orders"], [], ["debug-orders"]), exit=2)

case("027-delete-queue-stale-tap", "delete-queue audit", cluster(ORDERS + CAPTURE),
     snapshot(node("node1", [q("orders", "orders"), q("audit", "audit"), ring("debug-orders")],
                   [tap("debug-orders", "orders"), tap("debug-orders", "audit")]),
              node("node2", [q("orders", "orders"), ring("debug-orders")],
                   [tap("debug-orders", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["delete-queue:audit","delete-tap:__capture.debug-orders.audit"]
json .actions[0].nodes[0].taps[0].fate "removed-by-subscription"
json .actions[0].nodes[0].taps[0].reason "no queue left on 'audit' matches capture 'debug-orders' (pattern 'orders*'; it does not match 'audit' either): the capture pass that follows the delete removes the tap"
json [.actions[0].nodes[0].operations[]|.op] ["destroyQueue"]
""", exit=2)

case("028-capture-ring-consumers-refused", "plan", cluster(ORDERS),
     snapshot(node("node1", [q("orders", "orders"), ring("debug-orders", consumers=1)]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "REFUSED"
json [.actions[]|.kind+":"+.name] ["delete-capture:__capture.debug-orders"]
json .actions[0].nodes[0].outcome "REFUSED"
json .actions[0].nodes[0].refusal "HAS_CONSUMERS"
json .actions[0].nodes[0].message "capture ring '__capture.debug-orders' has 1 consumer on this node"
json .actions[0].nodes[1].outcome "NO_CHANGE"
""", inventory=inv(["orders"], ["orders"], [], ["debug-orders"]), exit=1)


# ---- CONFIG_MANAGED: broker.xml cannot be rendered -> REFUSED ---------------
case("030-config-managed-render-failed", "plan",
     cluster(ORDERS, mode="CONFIG_MANAGED"),
     snapshot(node("node1", [q("orders", "orders")]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "RENDER_FAILED"
json .message "the nodes' broker.xml cannot be rendered: cluster/cluster.yaml:5:5: node 'node1': no base broker.xml (looked for cluster/broker/nodes/node1.xml and cluster/broker/broker.xml)"
json .broker_xml null
json .diagnostics[1] "cluster/cluster.yaml:8:5: node 'node2': no base broker.xml (looked for cluster/broker/nodes/node2.xml and cluster/broker/broker.xml)"
err refused (RENDER_FAILED)
""", exit=1)
# ---- unreadable nodes: UNREACHABLE, never NO_CHANGE (issue 14, defect 6) ---
case("031-all-nodes-unreachable", "plan", cluster(ORDERS),
     snapshot(node("node1", refusal="no reply within 30 s", kind="TIMEOUT"),
              node("node2", refusal="no reply within 30 s", kind="TIMEOUT")),
     """
json .outcome "UNREACHABLE"
json .refusal "TIMEOUT"
json .message "2 of 2 nodes could not be read, so they were not compared with the declaration"
json .actions []
json .confirmation null
md # shop-eu: UNREACHABLE — no node could be read (2 of 2)
md **Not compared (TIMEOUT):** 2 of 2 nodes could not be read
md Nothing to approve yet: 2 of 2 nodes could not be read
nomd NO_CHANGE —
nomd the cluster is as declared
nomd artemis-gitops approve
err node 'node1': TIMEOUT: no reply within 30 s
""", exit=1)

case("032-only-unreachable-node-differs", "plan",
     cluster(ORDERS + """diverts:
  - name: orders-copy
    address: orders
    forwarding-address: orders
"""),
     snapshot(node("node1", [q("orders", "orders")], [dv("orders-copy", "orders", "orders")]),
              node("node2", refusal="connection refused")),
     """
json .outcome "UNREACHABLE"
json .refusal "UNREACHABLE"
json .message "node 'node2' could not be read (connection refused), so it was not compared with the declaration"
json .nodes[1].reachable false
json .actions []
md # shop-eu: UNREACHABLE — 1 of 2 nodes could not be read; the others are as declared
md **node2** could not be read (UNREACHABLE): connection refused
md Nothing to approve yet
nomd NO_CHANGE —
nomd Nothing to approve: the cluster is as declared
""", exit=1)

# ---- dependency checks see each divert as the plan leaves it (issue 4) -----
BILLING = """  - name: billing
    routing: [anycast]
    queues:
      - name: billing
"""
case("101-divert-repointed-not-dependent", "plan",
     cluster("addresses:\n" + BILLING + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: billing
"""),
     snapshot(node("node1", [q("orders", "orders"), q("billing", "billing"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("billing", "billing"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["change-divert:audit-copy","delete-queue:orders","delete-address:orders"]
json [.actions[1].nodes[0].operations[].op] ["destroyQueue"]
json .actions[1].nodes[0].removed_diverts []
json .actions[1].nodes[0].warnings []
json .summary.deleted_diverts 0
nomd Nothing consumes at orders
nomd removed with the queue
""", base=cluster(ORDERS + BILLING + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
"""), exit=2)

case("102-divert-repointed-into-deleted", "plan",
     cluster("""addresses:
  - name: orders
    routing: [anycast]
""" + BILLING + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
""", mode="CONFIG_MANAGED"),
     snapshot(node("node1", [q("orders", "orders"), q("billing", "billing"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "billing")]),
              node("node2", [q("orders", "orders"), q("billing", "billing"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "billing")])),
     """
json [.actions[]|.kind+":"+.name] ["change-divert:audit-copy","delete-queue:orders"]
json [.actions[1].nodes[0].operations[].op] ["destroyDivert","destroyQueue"]
json .actions[1].nodes[0].removed_diverts[0].forwarding_address "orders"
json .actions[1].nodes[0].removed_diverts[0].declared true
""", base=cluster(ORDERS + BILLING + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: billing
""", mode="CONFIG_MANAGED"), exit=2, broker_xml=broker_base("OFF"))

# ---- a queue moved to another address leaves its old address (H2) ---------
case("103-recreate-moved-removes-dependent", "plan",
     cluster("""addresses:
  - name: orders
    routing: [anycast]
  - name: orders-new
    routing: [anycast]
    queues:
      - name: orders
""" + AUDIT_IN),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in"), q("archive", "archive")],
                   [dv("audit-copy", "audit-in", "orders"), dv("orders-archive", "orders", "archive")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in"), q("archive", "archive")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["create-address:orders-new","recreate-queue:orders"]
json [.actions[1].nodes[0].operations[]|.op+":"+.name] ["destroyDivert:audit-copy","destroyQueue:orders","createQueue:orders"]
json .actions[1].nodes[0].removed_diverts[0].name "audit-copy"
json .actions[1].nodes[0].kept_diverts[0].name "orders-archive"
json .actions[1].nodes[1].removed_diverts[0].name "audit-copy"
md removed with the queue: divert `audit-copy` (source `audit-in`, forwarding to `orders`)
""", inventory=inv(["orders", "audit-in"], ["orders", "audit-in"]), exit=2)

case("104-delete-sees-moved-queue-gone", "plan",
     cluster("""addresses:
  - name: orders
    routing: [anycast]
  - name: other
    routing: [anycast]
    queues:
      - name: orders-b
""" + AUDIT_IN),
     snapshot(node("node1", [q("orders", "orders"), q("orders-b", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("orders-b", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json [.actions[]|.kind+":"+.name] ["create-address:other","recreate-queue:orders-b","delete-queue:orders"]
json .actions[1].nodes[0].kept_diverts[0].name "audit-copy"
json [.actions[2].nodes[0].operations[]|.op+":"+.name] ["destroyDivert:audit-copy","destroyQueue:orders"]
json .actions[2].nodes[0].removed_diverts[0].name "audit-copy"
""", inventory=inv(["orders", "audit-in"], ["orders", "orders-b", "audit-in"]), exit=2)

# ---- D2 with several forwarding targets and a routing type (H3) -----------
case("105-d2-several-targets", "delete-queue orders",
     cluster(ORDERS + BILLING + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: " orders ,billing"
"""),
     snapshot(node("node1", [q("orders", "orders"), q("billing", "billing"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", " orders ,billing")]),
              node("node2", [q("orders", "orders"), q("billing", "billing"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "billing,\torders")])),
     """
json .actions[0].nodes[0].removed_diverts[0].declared true
json [.actions[0].nodes[].removed_diverts[0].name] ["audit-copy","audit-copy"]
md the removal does not stick; the next apply acts on the declaration again and re-creates queue 'orders' on 'orders' and the divert; remove the divert from the declaration
nomd Nothing consumes at
""", exit=2)

case("106-d2-routing-type-matches-validation", "delete-queue orders",
     cluster("""addresses:
  - name: orders
    routing: [anycast, multicast]
    queues:
      - name: orders
        routing: anycast
      - name: orders-mc
        routing: multicast
""" + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
    routing-type: MULTICAST
"""),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders", routing_type="MULTICAST")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders", routing_type="MULTICAST")])),
     """
json .actions[0].nodes[0].removed_diverts[0].declared true
md re-creates queue 'orders-mc' on 'orders' and the divert
nomd re-creates queue 'orders', 'orders-mc'
""", exit=2)

# ---- D5: an internal queue is never covered by a capture (L3) --------------
case("107-d5-internal-queue-not-covered", "delete-queue orders",
     cluster(CAPTURE + "addresses:\n" + AUDIT_IN),
     snapshot(node("node1", [q("orders", "orders", internal=True), ring("debug-orders")],
                   [tap("debug-orders", "orders")]),
              node("node2", [q("audit-in", "audit-in")])),
     """
json .actions[0].nodes[0].taps[0].fate "removed-by-subscription"
json .actions[0].nodes[0].taps[0].reason "no queue left on 'orders' matches capture 'debug-orders' (pattern 'orders*'; a capture never covers internal queue 'orders' either): the capture pass that follows the delete removes the tap"
""", exit=2)


# ---- Artemis releases: each node planned with its own (docs/compatibility.md)
# A rolling upgrade: node1 on 2.44.0, node2 still on 2.31.2. A divert change
# is in place on node1 and a recreate on node2 (no updateDivert(String)
# before 2.38, and the positional one breaks the restart); a create on
# node2 is the positional createDivert; a delete on node2 warns that 2.31
# keeps the journal record; a transformer divert on node2 is lost at a
# restart.
case("110-versions-rolling-upgrade", "plan", cluster("""addresses:
  - name: orders
    routing: [anycast]
    queues:
      - name: orders
diverts:
  - name: orders-copy
    address: orders
    forwarding-address: orders
    filter: "kind = 'x'"
  - name: orders-tagged
    address: orders
    forwarding-address: orders
    transformer-class-name: org.apache.activemq.artemis.core.server.transformer.AddHeadersTransformer
    transformer-properties:
      tag: eu
"""),
     snapshot(node("node1", [q("orders", "orders")],
                   [dv("orders-copy", "orders", "orders"), dv("orders-old", "orders", "orders")],
                   version="2.44.0"),
              node("node2", [q("orders", "orders")],
                   [dv("orders-copy", "orders", "orders"), dv("orders-old", "orders", "orders")],
                   version="2.31.2")),
     """
json [.nodes[].broker_version] ["2.44.0","2.31.2"]
json [.actions[]|.kind+":"+.name] ["create-divert:orders-tagged","change-divert:orders-copy","recreate-divert:orders-copy","delete-divert:orders-old"]
json [.actions[1].nodes[].outcome] ["WOULD_APPLY","NO_CHANGE"]
json [.actions[2].nodes[].outcome] ["NO_CHANGE","WOULD_APPLY"]
json [.actions[2].nodes[1].operations[].op] ["destroyDivert","createDivert"]
json .actions[0].nodes[0].warnings []
json .actions[0].nodes[1].warnings|length 1
json .actions[3].nodes[0].warnings|length 1
json .actions[3].nodes[1].warnings|length 2
md | node1 | 2.44.0 | ok |
md | node2 | 2.31.2 | ok |
md Artemis 2.31.2 has no updateDivert(java.lang.String), and its positional updateDivert journals the divert without its address (the broker then fails to start), so the divert is destroyed and created again
md (the positional overload: Artemis 2.31.2 has no createDivert(java.lang.String))
md Artemis 2.31.2 does not remove a destroyed divert from its journal (ARTEMIS-4521, fixed in 2.32.0): divert 'orders-old' comes back at this broker's next restart
md Artemis 2.31.2 does not write a divert with a transformer to its journal: divert 'orders-tagged' is gone after this broker's next restart
nomd Artemis 2.44.0
""", inventory=inv(["orders"], ["orders"], ["orders-copy", "orders-old"]), exit=2)

# The oldest release supported is 2.28.0: a node below it is refused with
# its version and the floor, and so is the plan, even with nothing to do.
case("111-versions-below-floor", "plan", cluster(ORDERS),
     snapshot(node("node1", [q("orders", "orders")], version="2.28.0"),
              node("node2", [q("orders", "orders")], version="2.27.1")),
     """
json .outcome "REFUSED"
json .refusal "UNSUPPORTED_VERSION"
json .message "node 'node2' is not managed: Artemis 2.27.1 is older than 2.28.0, the oldest release the agent manages (docs/compatibility.md)"
json [.nodes[].broker_version] ["2.28.0","2.27.1"]
json [.nodes[].reachable] [true,false]
md | node2 | 2.27.1 | UNSUPPORTED_VERSION |
md **node2** is not managed (UNSUPPORTED_VERSION): Artemis 2.27.1 is older than 2.28.0
md upgrade the broker to Artemis 2.28.0 or later
""", inventory=inv(["orders"], ["orders"]), exit=1)

# With a change to make, the step on the unsupported node is REFUSED.
case("112-versions-below-floor-with-changes", "plan", cluster(ORDERS + """diverts:
  - name: orders-copy
    address: orders
    forwarding-address: orders
"""),
     snapshot(node("node1", [q("orders", "orders")], version="2.28.0"),
              node("node2", [q("orders", "orders")], version="2.18.0")),
     """
json .refusal "UNSUPPORTED_VERSION"
json [.actions[0].nodes[].outcome] ["WOULD_APPLY","REFUSED"]
json .actions[0].nodes[1].refusal "UNSUPPORTED_VERSION"
json .actions[0].nodes[1].next_step "upgrade the broker to Artemis 2.28.0 or later, or take the node out of the cluster's declaration"
md (the positional overload: Artemis 2.28.0 has no createDivert(java.lang.String))
""", inventory=inv(["orders"], ["orders"]), exit=1)

# A queue delete on 2.28: the dependent divert removed with it comes back at
# the restart (2.28 keeps the record too), beside the broker.xml caveat; and
# ADR-0084 §17's damage does not happen there (measured), which is said; on
# 2.37 it does, and nothing more is said.
case("113-versions-queue-delete-2-28", "delete-queue orders",
     cluster(ORDERS + AUDIT_IN),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")], version="2.28.0"),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")], version="2.37.0")),
     """
json .actions[0].nodes[0].warnings|length 3
json .actions[0].nodes[1].warnings|length 1
md Artemis 2.28.0 does not remove a destroyed divert from its journal (ARTEMIS-4521, fixed in 2.32.0): divert 'audit-copy' comes back
md on Artemis 2.28.0 a divert into an address that has lost its queue does not create it again, nor make sends to its source fail
""", exit=2)

# ---- HA nodes (docs/ha-pairs.md) ----------------------------------------
# node1 is an HA pair (a primary and its backup, members of one node);
# node2 a broker of its own. Only the live member is planned against.
HA_HEAD = """version: 1
cluster: shop-eu
mode: STUDIO_MANAGED
nodes:
  - name: node1
    credentials: node1
    members:
      - name: primary
        jolokia: http://localhost:8161/console/jolokia
      - name: backup
        jolokia: http://localhost:8261/console/jolokia
  - name: node2
    jolokia: http://localhost:8171/console/jolokia
    credentials: node2
settings:
  capture-prefix: "__capture."
  max-destroyed-messages: 1000
"""

HA_ID = "0b4f5c2e-c0de-11ef-9a1b-0242ac120002"


def ha(active, backup, policy, node_id=HA_ID, sync=None):
    return {"active": active, "backup": backup, "node_id": node_id,
            "policy": policy, "replica_sync": sync}


def member(name, state, policy=None, node_id=HA_ID, text=None, sync=None):
    """A member's read: LIVE, PASSIVE, or a refusal kind."""
    port = {"primary": 8161, "backup": 8261}[name]
    m = {"broker_name": "node1-" + name, "broker_version": "2.44.0",
         "name": name, "refusal": None, "requests": 1,
         "url": "http://localhost:%d/console/jolokia" % port}
    if state in ("LIVE", "PASSIVE"):
        m["ha"] = ha(state == "LIVE", name == "backup", policy, node_id, sync)
    if state == "PASSIVE":
        m["refusal"] = {"http_status": 0, "kind": "PASSIVE", "status": 0,
                        "text": text or "passive backup (HAPolicy '%s', NodeID %s): it serves no client and holds no journal until it becomes live, so nothing is planned or applied on it" % (policy, node_id)}
    elif state != "LIVE":
        m.update({"broker_name": None, "broker_version": None,
                  "refusal": {"http_status": 0, "kind": state, "status": 0,
                              "text": text or "Connection refused"}})
    return m


def ha_node(live, members, queues=(), diverts=(), refusal=None, kind=None,
            addresses=()):
    """node1 as an HA node: the live member's read, and every member's."""
    n = node("node1", queues, diverts, addresses, version="2.44.0")
    n["members"] = members
    n["member"] = live
    if live is not None:
        m = [x for x in members if x["name"] == live][0]
        n["url"] = m["url"]
        n["broker_name"] = m["broker_name"]
        n["ha"] = m["ha"]
    else:
        n.update({"url": None, "broker_name": None, "broker_version": None,
                  "addresses": [], "queues": [], "diverts": [],
                  "refusal": {"http_status": 0, "kind": kind, "status": 0,
                              "text": refusal}})
    n["requests"] = len(members)
    return n


SSP, SSB = "Shared Store Primary", "Shared Store Backup"

# The primary is live and its backup passive: planned against the primary
# only; the backup gets no step of its own and no operation.
case("120-ha-primary-live", "plan", HA_HEAD + ORDERS + AUDIT_IN,
     snapshot(ha_node("primary", [member("primary", "LIVE", SSP),
                                  member("backup", "PASSIVE", SSB)],
                      [q("orders", "orders")]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "WOULD_APPLY"
json .nodes[0].member "primary"
json [.nodes[0].members[]|.name+":"+.state] ["primary:LIVE","backup:PASSIVE"]
json .nodes[0].members[1].ha_policy "Shared Store Backup"
json [.actions[0].nodes[].outcome] ["WOULD_APPLY","WOULD_APPLY"]
json [.actions[0].nodes[].node] ["node1","node2"]
md | node1 | 2.44.0 | ok | 2 | 0 | 0 | 0 | 0 |
md ### HA members
md | node1 | primary | LIVE (planned against) | Shared Store Primary | 2.44.0 | - |
md | node1 | backup | PASSIVE | Shared Store Backup | 2.44.0 | - |
md Only the live member of an HA node is planned against and acted on
""", inventory=inv(["orders"], ["orders"]), exit=2)

# After a failover: the primary is gone, the backup is live and holds what
# the primary had (the shared journal): nothing to do, not UNREACHABLE. The
# MQTT sessions address comes back without its internal flag (measured on
# 2.44.0): not unmanaged.
case("121-ha-failed-over", "plan", HA_HEAD + ORDERS,
     snapshot(ha_node("backup", [member("primary", "UNREACHABLE"),
                                 member("backup", "LIVE", SSB)],
                      [q("orders", "orders")],
                      addresses=["$sys.mqtt.sessions"]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "NO_CHANGE"
json .nodes[0].reachable true
json .nodes[0].member "backup"
json [.nodes[0].members[]|.name+":"+.state] ["primary:UNREACHABLE","backup:LIVE"]
json .nodes[0].members[0].message "Connection refused"
json .unmanaged []
md | node1 | 2.44.0 | ok |
md | node1 | backup | LIVE (planned against) | Shared Store Backup | 2.44.0 | - |
md - **node1/primary** UNREACHABLE: Connection refused
""", inventory=inv(["orders"], ["orders"]), exit=0)

# Both members active: a split brain refuses the node and the plan.
case("122-ha-split-brain", "plan", HA_HEAD + ORDERS + AUDIT_IN,
     snapshot(ha_node(None, [member("primary", "LIVE", SSP),
                             member("backup", "LIVE", SSB)],
                      refusal="split brain: members 'primary' and 'backup' (NodeID %s) are all active, each serving clients from its own journal; nothing is applied on this node until one member is live" % HA_ID,
                      kind="SPLIT_BRAIN"),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "SPLIT_BRAIN"
json .nodes[0].refusal "SPLIT_BRAIN"
json .nodes[0].member null
json [.actions[0].nodes[].outcome] ["REFUSED","WOULD_APPLY"]
json [.actions[0].nodes[0].operations[]] []
md - **node1** is refused (SPLIT_BRAIN): split brain: members 'primary' and 'backup'
md stop the member that should not be live
""", inventory=inv(["orders"], ["orders"]), exit=1)

# A passive backup declared as a node of its own: PASSIVE, never an
# operation; the plan goes on with the other node.
case("123-ha-passive-declared-node", "plan", cluster(ORDERS + AUDIT_IN),
     snapshot(node("node1", [q("orders", "orders")]),
              dict(node("node2", refusal="passive backup (HAPolicy 'Shared Store Backup', NodeID %s): it serves no client and holds no journal until it becomes live, so nothing is planned or applied on it" % HA_ID,
                        kind="PASSIVE"),
                   broker_name="node2", broker_version="2.44.0",
                   ha=ha(False, True, SSB))),
     """
json .outcome "WOULD_APPLY"
json .nodes[1].refusal "PASSIVE"
json [.actions[0].nodes[].outcome] ["WOULD_APPLY","PASSIVE"]
json [.actions[0].nodes[1].operations[]] []
json .summary.unreachable_node_steps 0
md | node2 | 2.44.0 | PASSIVE | 0 | 0 | 0 | 0 | 2 |
md - **node2** is passive, and left alone (PASSIVE)
nomd UNREACHABLE (
""", inventory=inv(["orders"], ["orders"]), exit=2)

# Members whose NodeIDs differ are two brokers, not one pair: refused,
# naming both ids.
case("124-ha-not-a-pair", "plan", HA_HEAD + ORDERS,
     snapshot(ha_node(None, [member("primary", "LIVE", SSP),
                             member("backup", "PASSIVE", SSB, node_id="7e57-other")],
                      refusal="members 'primary' (NodeID %s) and 'backup' (NodeID 7e57-other) report different NodeIDs: the members of one HA node share their journal's NodeID, so they are not one pair; declare them as separate nodes, or fix the pair's HA configuration" % HA_ID,
                      kind="NOT_A_PAIR"),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "NOT_A_PAIR"
md 'backup' (NodeID 7e57-other)
md declare each broker as its own node
""", inventory=inv(["orders"], ["orders"]), exit=1)

# No member live (the primary down, the backup not yet live): the node is
# not read, with each member's state.
case("125-ha-no-member-live", "plan", HA_HEAD + ORDERS,
     snapshot(ha_node(None, [member("primary", "UNREACHABLE"),
                             member("backup", "PASSIVE", SSB)],
                      refusal="no member is live: 'primary' UNREACHABLE (Connection refused), 'backup' PASSIVE (Shared Store Backup)",
                      kind="UNREACHABLE"),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "UNREACHABLE"
json .nodes[0].refusal "UNREACHABLE"
json .nodes[0].member null
md no member is live: 'primary' UNREACHABLE (Connection refused), 'backup' PASSIVE (Shared Store Backup)
""", inventory=inv(["orders"], ["orders"]), exit=1)

# ---- per-object policy (docs/policy.md) ------------------------------------
# deletion-policy: retain, recorded in the inventory from the last applied
# declaration: the queue removed from the declaration is forgotten, never
# deleted, and its address with it (a broker keeps an address while a
# queue is bound to it). A plan that only forgets can be approved.
case("140-policy-retain-queue-forgotten", "plan", cluster(KEEP),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders", messages=5)]),
              node("node2", [q("keep", "keep"), q("orders", "orders", messages=2)])),
     """
json .outcome "NO_CHANGE"
json .actions []
json [.policy.forgotten[]|.kind+":"+.name] ["queue:orders","address:orders"]
json .policy.forgotten[0].reason|test("deletion-policy: retain") => true
json .policy.forgotten[1].reason|test("'orders', retained") => true
json .confirmation|test("^forget 2 objects on shop-eu [0-9a-f]{12}$") => true
json .unmanaged []
md **Forgets 2 objects**
md ## Forgotten (retained)
md - forget queue `orders`: removed from the declaration with deletion-policy: retain
md artemis-gitops approve plan --confirm 'forget 2 objects on shop-eu
""", inventory=inv(["keep", "orders"], ["keep", "orders"],
                   retain={"queues": ["orders"]}), exit=0)

# A retained address removed with a queue that said deletion-policy:
# delete under it: the queue is deleted, the address forgotten.
case("141-policy-retained-address-deletes-explicit-queue", "plan", cluster(KEEP),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders"), q("orders-tmp", "orders")]),
              node("node2", [q("keep", "keep"), q("orders", "orders"), q("orders-tmp", "orders")])),
     """
json .outcome "WOULD_APPLY"
json [.actions[]|.kind+":"+.name] ["delete-queue:orders-tmp"]
json [.policy.forgotten[]|.kind+":"+.name] ["queue:orders","address:orders"]
md - forget address `orders`: removed from the declaration with deletion-policy: retain
""", inventory=inv(["keep", "orders"], ["keep", "orders", "orders-tmp"],
                   retain={"addresses": ["orders"], "queues": ["orders"]}), exit=2)

# A retained divert removed from the declaration is forgotten; the queue
# delete that would remove it as a dependent divert (ADR-0084 D1) is
# refused on every node, naming the conflict.
case("142-policy-retained-dependent-divert-refused", "plan",
     cluster("addresses:\n" + AUDIT_IN),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "NODE_REFUSED"
json [.policy.forgotten[]|.kind+":"+.name] ["divert:audit-copy"]
json .policy.retained_diverts ["audit-copy"]
json .actions[0].kind "delete-queue"
json .actions[0].nodes[0].refusal "RETAINED_DEPENDENT"
json .actions[0].nodes[0].removed_diverts []
json .actions[0].nodes[0].kept_diverts[0].name "audit-copy"
json [.actions[0].nodes[0].operations[].op] ["destroyQueue"]
md divert 'audit-copy' has deletion-policy: retain, but deleting queue 'orders' would remove it as a dependent divert (ADR-0084 D1)
""", inventory=inv(["audit-in", "orders"], ["audit-in", "orders"], ["audit-copy"],
                   retain={"diverts": ["audit-copy"]}), exit=1)

# The whole file declaring 'orders' is removed in the same commit that
# drops settings.protect: the last applied declaration's pattern still
# holds, and the plan is refused as a whole.
case("143-policy-protect-removed-file", "plan", cluster(KEEP),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders", messages=4)]),
              node("node2", [q("keep", "keep"), q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "PROTECTED"
json .policy.protect ["orders*"]
json [.policy.protected[]|.kind+":"+.name+":"+.pattern] ["queue:orders:orders*","address:orders:orders*"]
json .confirmation null
md **Refused (PROTECTED):** queue 'orders' is protected by settings.protect pattern 'orders*', and the plan would delete it (removed from the declaration: deleted); 1 more protected object is listed under Protected
md ## Protected (refused)
md - address `orders`: pattern `orders*`; removed from the declaration: deleted
""", inventory=inv(["keep", "orders"], ["keep", "orders"], protect=["orders*"]), exit=1)

# A change only a recreate can make destroys the queue: refused.
case("144-policy-protect-recreate", "plan",
     cluster(ORDERS.replace("      - name: orders\n", "      - name: orders\n        durable: false\n"),
             protect=["orders"]),
     snapshot(node("node1", [q("orders", "orders")]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "PROTECTED"
json .actions[0].kind "recreate-queue"
json .policy.protected[0].why|test("^recreated") => true
""", inventory=inv(["orders"], ["orders"]), exit=1)

# A dependent divert the pattern covers: its node refused, and the plan.
case("145-policy-protect-dependent-divert", "plan",
     cluster("addresses:\n" + AUDIT_IN, protect=["audit-*"]),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "PROTECTED"
json .actions[0].nodes[0].refusal "PROTECTED"
json [.policy.protected[]|.kind+":"+.name] ["divert:audit-copy"]
json .policy.protected[0].why "removed with queue 'orders' (a dependent divert, ADR-0084 D1)"
""", inventory=inv(["audit-in", "orders"], ["audit-in", "orders"]), exit=1)

# The operator's delete-queue honours settings.protect.
case("146-policy-protect-delete-queue", "delete-queue orders",
     cluster(ORDERS, protect=["ord*"]),
     snapshot(node("node1", [q("orders", "orders")]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "PROTECTED"
json .policy.protected[0].why "the operator's delete-queue"
md queue 'orders' is protected by settings.protect pattern 'ord*'
""", exit=1)

# managed: false: never created (absent on node2), changed (max-consumers
# differs on node1) or listed as drift; listed as unmanaged by
# declaration, not as unmanaged.
case("147-policy-unmanaged-left-alone", "plan",
     cluster(KEEP + """  - name: legacy
    routing: [anycast]
    managed: false
    queues:
      - name: legacy
diverts:
  - name: legacy-copy
    address: legacy
    forwarding-address: elsewhere
    managed: false
"""),
     snapshot(node("node1", [q("keep", "keep"), q("legacy", "legacy", max_consumers=5)],
                   [dv("legacy-copy", "legacy", "elsewhere")]),
              node("node2", [q("keep", "keep")])),
     """
json .outcome "NO_CHANGE"
json .actions []
json .unmanaged []
json [.policy.unmanaged_by_declaration[]|.kind+":"+.name+"@"+(.nodes|join(","))] ["address:legacy@node1","divert:legacy-copy@node1","queue:legacy@node1"]
json .policy.forgotten []
md ## Unmanaged by declaration
md - queue `legacy` on node1
md Nothing to approve
""", inventory=inv(["keep"], ["keep"]), exit=0)

# A managed object now declared with managed: false is forgotten.
case("148-policy-managed-false-forgets", "plan",
     cluster(KEEP + """  - name: orders
    routing: [anycast]
    managed: false
    queues:
      - name: orders
"""),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders", messages=3)]),
              node("node2", [q("keep", "keep"), q("orders", "orders")])),
     """
json .outcome "NO_CHANGE"
json .actions []
json [.policy.forgotten[]|.kind+":"+.name] ["queue:orders","address:orders"]
json .policy.forgotten[0].reason|test("managed: false") => true
json .confirmation|test("^forget 2 objects") => true
""", inventory=inv(["keep", "orders"], ["keep", "orders"]), exit=0)

# A queue delete whose dependent divert is declared managed: false is
# refused on its nodes, naming the conflict (ADR-0084 D1).
case("149-policy-unmanaged-dependent-refused", "plan",
     cluster("addresses:\n" + AUDIT_IN + """diverts:
  - name: audit-copy
    address: audit-in
    forwarding-address: orders
    managed: false
"""),
     snapshot(node("node1", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")]),
              node("node2", [q("orders", "orders"), q("audit-in", "audit-in")],
                   [dv("audit-copy", "audit-in", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "NODE_REFUSED"
json .actions[0].nodes[0].refusal "UNMANAGED_DEPENDENT"
json .actions[0].nodes[1].refusal "UNMANAGED_DEPENDENT"
json [.actions[0].nodes[0].operations[].op] ["destroyQueue"]
md divert 'audit-copy' is declared with managed: false (cluster/cluster.yaml:
md the agent never deletes an object it does not manage
""", inventory=inv(["audit-in", "orders"], ["audit-in", "orders"]), exit=1)
# ---- delete-if-empty (docs/policy.md) --------------------------------------
# A queue's own key, or settings.delete-if-empty: a delete (removed, recreated,
# the delete-queue command) is refused on the node where the queue holds
# messages, with the count and the key's place; other nodes are unaffected.
ORDERS_DIE = """addresses:
  - name: orders
    routing: [anycast]
    queues:
      - name: orders
        delete-if-empty: true
"""
KEEP_Q = """addresses:
  - name: keep
    routing: [anycast]
    queues:
      - name: keep
"""


def die_default(yaml):
    """The cluster with settings.delete-if-empty: true (line 13, col 3)."""
    return yaml.replace("  max-destroyed-messages:",
                        "  delete-if-empty: true\n  max-destroyed-messages:")


def die_inv(addresses, queues, die):
    i = inv(addresses, queues)
    i["delete_if_empty"] = die
    return i


# Removed from the declaration: the base declaration's policy holds.
case("130-die-removed-refused-on-node-with-messages", "plan", cluster(KEEP_Q),
     snapshot(node("node1", [q("orders", "orders", messages=12), q("keep", "keep")]),
              node("node2", [q("orders", "orders"), q("keep", "keep")])),
     """
json .outcome "REFUSED"
json .refusal "NODE_REFUSED"
json .actions[0].kind "delete-queue"
json .actions[0].delete_if_empty "delete-if-empty is set (base/cluster.yaml:23:9) in the base declaration (base)"
json .actions[0].nodes[0].outcome "REFUSED"
json .actions[0].nodes[0].refusal "HAS_MESSAGES"
json .actions[0].nodes[0].message "queue 'orders' holds 12 messages on node1; delete-if-empty is set (base/cluster.yaml:23:9) in the base declaration (base)"
json .actions[0].nodes[1].outcome "WOULD_APPLY"
json .destroyed_messages 12
json .confirmation null
md **node1**: REFUSED (HAS_MESSAGES) — queue 'orders' holds 12 messages on node1
md **next step:** consume or move the messages (the queue is deleted only when empty on every node), then plan again; to delete it with them, first apply delete-if-empty: false for it (docs/policy.md, "Changing the policy")
md Delete-if-empty: a node where the queue holds messages is refused, here and again at apply
""", base=cluster(KEEP_Q + ORDERS_DIE.replace("addresses:\n", "")), exit=1)

# Removed, the last applied declaration's policy in inventory.json; empty on
# both nodes: the delete goes through, under the policy (checked at apply).
case("131-die-removed-empty-deletes", "plan", cluster(KEEP_Q),
     snapshot(node("node1", [q("orders", "orders"), q("keep", "keep")]),
              node("node2", [q("orders", "orders"), q("keep", "keep")])),
     """
json .outcome "WOULD_APPLY"
json .actions[0].delete_if_empty "delete-if-empty is set (shop-eu/orders.yaml:14:9) in the last applied declaration (revision base-rev)"
json [.actions[0].nodes[].outcome] ["WOULD_APPLY","WOULD_APPLY"]
json .settings.delete_if_empty null
md Delete-if-empty: a node where the queue holds messages is refused, here and again at apply
""", inventory=die_inv(["orders", "keep"], ["orders", "keep"],
                      {"orders": "delete-if-empty is set (shop-eu/orders.yaml:14:9)"}),
     exit=2)

# Removed, not protected by the last applied declaration, but the new one
# turns the cluster's default on: the default covers the delete.
case("132-die-removed-new-default-covers", "plan", die_default(cluster(KEEP_Q)),
     snapshot(node("node1", [q("orders", "orders", messages=1), q("keep", "keep")]),
              node("node2", [q("orders", "orders", messages=4), q("keep", "keep")])),
     """
json .outcome "REFUSED"
json [.actions[0].nodes[].refusal] ["HAS_MESSAGES","HAS_MESSAGES"]
json .actions[0].nodes[0].message "queue 'orders' holds 1 message on node1; settings.delete-if-empty is set (cluster/cluster.yaml:13:3)"
json .actions[0].nodes[1].message "queue 'orders' holds 4 messages on node2; settings.delete-if-empty is set (cluster/cluster.yaml:13:3)"
json .settings.delete_if_empty => {"default":"settings.delete-if-empty is set (cluster/cluster.yaml:13:3)","queues":{}}
""", inventory=inv(["orders", "keep"], ["orders", "keep"]), exit=1)

# Recreated (durable changes): the new declaration's policy, here the
# default; the queue's own key false wins over it for another queue.
case("133-die-recreate-default-and-own-key", "plan",
     die_default(cluster("""addresses:
  - name: orders
    routing: [anycast]
    queues:
      - name: orders
        durable: false
      - name: loose
        durable: false
        delete-if-empty: false
      - name: kept
        delete-if-empty: true
""")),
     snapshot(node("node1", [q("orders", "orders", messages=3), q("loose", "orders", messages=7),
                             q("kept", "orders", messages=2)]),
              node("node2", [q("orders", "orders"), q("loose", "orders", messages=7),
                             q("kept", "orders", messages=2)])),
     """
json .outcome "REFUSED"
json [.actions[].kind] ["recreate-queue","recreate-queue"]
json .actions[0].name "loose"
json .actions[0].delete_if_empty null
json [.actions[0].nodes[].outcome] ["WOULD_APPLY","WOULD_APPLY"]
json .actions[1].name "orders"
json .actions[1].nodes[0].refusal "HAS_MESSAGES"
json .actions[1].nodes[0].message "differs in what updateQueue cannot change: durable; queue 'orders' holds 3 messages on node1; settings.delete-if-empty is set (cluster/cluster.yaml:13:3)"
json .actions[1].nodes[1].outcome "WOULD_APPLY"
json .settings.delete_if_empty.queues => {"kept":"delete-if-empty is set (cluster/cluster.yaml:25:9)"}
json .destroyed_messages 17
""", inventory=inv(["orders"], ["orders", "loose", "kept"]), exit=1)

# The delete-queue command: the declared queue's key; messages refuse the
# node before its consumers do (draining takes consumers).
case("134-die-delete-queue-messages-before-consumers", "delete-queue orders",
     cluster(ORDERS_DIE),
     snapshot(node("node1", [q("orders", "orders", consumers=1, messages=2)]),
              node("node2", [q("orders", "orders", consumers=1)])),
     """
json .outcome "REFUSED"
json .actions[0].nodes[0].refusal "HAS_MESSAGES"
json .actions[0].nodes[0].consumers 1
json .actions[0].nodes[0].message "queue 'orders' holds 2 messages on node1; delete-if-empty is set (cluster/cluster.yaml:19:9)"
json .actions[0].nodes[1].refusal "HAS_CONSUMERS"
""", exit=1)

# --disconnect-consumers is untouched: an empty queue with consumers goes,
# with the warning and removeConsumers.
case("135-die-disconnect-consumers-empty", "delete-queue orders --disconnect-consumers",
     cluster(ORDERS_DIE),
     snapshot(node("node1", [q("orders", "orders", consumers=2)]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "WOULD_APPLY"
json .actions[0].delete_if_empty "delete-if-empty is set (cluster/cluster.yaml:19:9)"
json .actions[0].nodes[0].operations[0].remove_consumers true
json .actions[0].nodes[0].warnings[0]|test("^--disconnect-consumers: 2 consumers") => true
""", exit=2)

# The bulk cap still counts a refused node's messages (ADR-0084 D7): past
# it the plan is refused BULK_CAP; the node stays refused HAS_MESSAGES.
case("136-die-bulk-cap-still-counts", "plan", cluster(KEEP_Q),
     snapshot(node("node1", [q("orders", "orders", messages=1500), q("keep", "keep")]),
              node("node2", [q("orders", "orders"), q("keep", "keep")])),
     """
json .outcome "REFUSED"
json .refusal "BULK_CAP"
json .destroyed_messages 1500
json .actions[0].nodes[0].refusal "HAS_MESSAGES"
""", inventory=die_inv(["orders", "keep"], ["orders", "keep"],
                      {"orders": "delete-if-empty is set (shop-eu/orders.yaml:14:9)"}),
     exit=1)
# ---- policy changes (docs/policy.md "Changing the policy") -----------------
# The inventory records the last applied declaration's policy; a commit that
# changes only the policy sends nothing to a broker, and its plan lists the
# changes, is approvable (NO_CHANGE) and records them when applied.

# settings.protect's pattern removed alone: a lift, said in the headline.
case("150-policy-change-protect-lifted", "plan", cluster(ORDERS),
     snapshot(node("node1", [q("orders", "orders", messages=3)]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "NO_CHANGE"
json .actions []
json .policy.changes => [{"at":null,"effect":"after this apply, removing one of queue 'orders', address 'orders' from the declaration deletes it: no pattern refuses that any more","from":"present","kind":"pattern","lifts":true,"name":"orders*","setting":"settings.protect","to":"absent"}]
json .policy.protect ["orders*"]
json .confirmation|test("^update policy \\\\(1 change, 1 lifting protection\\\\) on shop-eu [0-9a-f]{12}$") => true
md # shop-eu: NO_CHANGE — nothing sent to a broker; LIFTS PROTECTION (1 of 1 policy change)
md **Updates the policy (1 change)**
md **It lifts protection (1 change):**
md ## Policy changes
md - **lifts protection:** settings.protect pattern `orders*`: present → absent; after this apply, removing one of queue 'orders', address 'orders'
md artemis-gitops approve plan --confirm 'update policy (1 change, 1 lifting protection) on shop-eu
""", inventory=inv(["orders"], ["orders"], protect=["orders*"]), exit=0)

# delete-if-empty turned off on a queue (its own key, with its place), and
# deletion-policy: retain of an address changed back to delete: two lifts.
case("151-policy-change-die-off-retain-delete", "plan",
     cluster(ORDERS_DIE.replace("delete-if-empty: true", "delete-if-empty: false")),
     snapshot(node("node1", [q("orders", "orders", messages=3)]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "NO_CHANGE"
json [.policy.changes[]|.setting+":"+.kind+":"+.name+":"+.from+"->"+.to] ["delete-if-empty:queue:orders:true->false","deletion-policy:address:orders:retain->delete"]
json [.policy.changes[].lifts] [true,true]
json .policy.changes[0].at "cluster/cluster.yaml:19:9"
json .policy.changes[1].at null
json .policy.changes[0].effect "after this apply, removing queue 'orders' from the declaration deletes it on every node, with the messages it holds"
json .policy.changes[1].effect "after this apply, removing address 'orders' from the declaration deletes it on every broker"
json .confirmation|test("^update policy \\\\(2 changes, 2 lifting protection\\\\) on shop-eu ") => true
md LIFTS PROTECTION (2 of 2 policy changes)
md - **lifts protection:** delete-if-empty of queue `orders`: true → false (cluster/cluster.yaml:19:9); after this apply
""", inventory=dict(die_inv(["orders"], ["orders"],
                           {"orders": "delete-if-empty is set (shop-eu/orders.yaml:14:9)"}),
                    retain={"addresses": ["orders"], "diverts": [], "queues": []}),
     exit=0)

# Only more protection: a new pattern and delete-if-empty on; the headline
# says the policy is updated, not that it is lifted.
case("152-policy-change-adds-protection", "plan",
     cluster(ORDERS_DIE, protect=["orders"]),
     snapshot(node("node1", [q("orders", "orders")]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "NO_CHANGE"
json [.policy.changes[]|.setting+":"+.name+":"+(.lifts|tostring)] ["delete-if-empty:orders:false","settings.protect:orders:false"]
json .policy.changes[1].at "cluster/cluster.yaml:14:13"
json .policy.changes[1].effect "after this apply, a plan that would delete queue 'orders', address 'orders' is refused (PROTECTED), even one that removes the pattern again"
json .confirmation|test("^update policy \\\\(2 changes\\\\) on shop-eu ") => true
md # shop-eu: NO_CHANGE — nothing sent to a broker; updates the policy (2 changes)
md - adds protection: delete-if-empty of queue `orders`: false → true
nomd LIFTS PROTECTION
nomd It lifts protection
""", inventory=inv(["orders"], ["orders"]), exit=0)

# With actions: the change is listed and named in the confirmation after
# the actions; with an adopt: after the adopt.
case("153-policy-change-with-create", "plan",
     cluster(ORDERS + KEEP.replace("addresses:\n", "")),
     snapshot(node("node1", [q("orders", "orders")]),
              node("node2", [q("orders", "orders")])),
     """
json .outcome "WOULD_APPLY"
json [.actions[]|.kind+":"+.name] ["create-address:keep","create-queue:keep"]
json [.policy.changes[]|.name] ["orders*"]
json .confirmation|test("^create 2, update policy \\\\(1 change, 1 lifting protection\\\\) on shop-eu ") => true
md # shop-eu: WOULD_APPLY — create 2; LIFTS PROTECTION (1 of 1 policy change)
""", inventory=inv(["orders"], ["orders"], protect=["orders*"]), exit=2)

case("154-policy-change-with-adopt", "plan",
     cluster(ORDERS + KEEP.replace("addresses:\n", ""), protect=["keep"]),
     snapshot(node("node1", [q("orders", "orders"), q("keep", "keep")]),
              node("node2", [q("orders", "orders"), q("keep", "keep")])),
     """
json .outcome "NO_CHANGE"
json .adopts => {"addresses":1,"diverts":0,"queues":1}
json [.policy.changes[]|.name+":"+.effect] ["keep:after this apply, a plan that would delete an object it matches is refused (PROTECTED); no managed object matches it now"]
json .confirmation|test("^adopt 2 objects, update policy \\\\(1 change\\\\) on shop-eu ") => true
""", inventory=inv(["orders"], ["orders"]), exit=0)

# A refused plan records nothing: its policy changes are not listed.
case("155-policy-change-refused-lists-none", "plan", cluster(KEEP),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders")]),
              node("node2", [q("keep", "keep"), q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "PROTECTED"
json .policy.changes null
nomd ## Policy changes
""", inventory=inv(["keep", "orders"], ["keep", "orders"], protect=["orders*"]), exit=1)

# ---- delete-queue with the inventory (--state): docs/policy.md, protect ----
# The pattern is only in the last applied declaration (the inventory): the
# operator's delete-queue is refused all the same.
case("156-policy-protect-delete-queue-inventory", "delete-queue orders",
     cluster(KEEP),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders")]),
              node("node2", [q("keep", "keep"), q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .refusal "PROTECTED"
json .base.source "inventory"
json .policy.protect ["ord*"]
json [.policy.protected[]|.kind+":"+.name+":"+.pattern+":"+.why] ["queue:orders:ord*:the operator's delete-queue"]
md queue 'orders' is protected by settings.protect pattern 'ord*'
""", inventory=inv(["keep", "orders"], ["keep", "orders"], protect=["ord*"]), exit=1)

# A queue the given declaration does not declare takes the delete-if-empty
# the inventory recorded for it: the node holding messages is refused.
case("157-die-delete-queue-inventory", "delete-queue orders", cluster(KEEP_Q),
     snapshot(node("node1", [q("keep", "keep"), q("orders", "orders", messages=4)]),
              node("node2", [q("keep", "keep"), q("orders", "orders")])),
     """
json .outcome "REFUSED"
json .actions[0].delete_if_empty "delete-if-empty is set (shop-eu/orders.yaml:14:9) in the last applied declaration (revision base-rev)"
json .actions[0].nodes[0].refusal "HAS_MESSAGES"
json .actions[0].nodes[1].outcome "WOULD_APPLY"
""", inventory=die_inv(["orders", "keep"], ["orders", "keep"],
                      {"orders": "delete-if-empty is set (shop-eu/orders.yaml:14:9)"}),
     exit=1)

# ---- managed: false and the capture pass (docs/captures.md) ----------------
# The pattern matches a queue on an unmanaged address and an unmanaged queue
# on a managed one: no tap goes on either address, the pass says so
# (policy.capture_skipped); a tap left from before on the unmanaged address
# is removed, the agent's own divert. 'orders' still gets its tap.
case("158-capture-skips-unmanaged", "plan", cluster(ORDERS + """  - name: orders-legacy
    routing: [anycast]
    managed: false
    queues:
      - name: orders.legacy
  - name: orders-mixed
    routing: [anycast]
    queues:
      - name: orders.mixed
        managed: false
""" + CAPTURE),
     snapshot(node("node1", [q("orders", "orders"), q("orders.legacy", "orders-legacy"),
                             q("orders.mixed", "orders-mixed"), ring("debug-orders")],
                   [tap("debug-orders", "orders-legacy")]),
              node("node2", [q("orders", "orders"), q("orders.legacy", "orders-legacy"),
                             q("orders.mixed", "orders-mixed"), ring("debug-orders")],
                   [tap("debug-orders", "orders")])),
     """
json .outcome "WOULD_APPLY"
json [.actions[]|.kind+":"+.name] ["create-tap:__capture.debug-orders.orders","delete-tap:__capture.debug-orders.orders-legacy"]
json [.actions[0].nodes[]|.outcome] ["WOULD_APPLY","NO_CHANGE"]
json [.actions[1].nodes[]|.outcome] ["WOULD_APPLY","NO_CHANGE"]
json .actions[1].nodes[0].message "address 'orders-legacy' is declared with managed: false: the capture pass removes its tap of capture 'debug-orders' and puts none there"
json .policy.capture_skipped ["node1: capture 'debug-orders' (pattern 'orders*') leaves queue 'orders.legacy' on 'orders-legacy' out: its address is declared with managed: false (no tap for it)","node1: capture 'debug-orders' (pattern 'orders*') leaves queue 'orders.mixed' on 'orders-mixed' out: it is declared with managed: false (no tap for it)","node2: capture 'debug-orders' (pattern 'orders*') leaves queue 'orders.legacy' on 'orders-legacy' out: its address is declared with managed: false (no tap for it)","node2: capture 'debug-orders' (pattern 'orders*') leaves queue 'orders.mixed' on 'orders-mixed' out: it is declared with managed: false (no tap for it)"]
md ## Capture pass: left out
md - `node1: capture 'debug-orders' (pattern 'orders*') leaves queue 'orders.legacy' on 'orders-legacy' out: its address is declared with managed: false (no tap for it)`
""", inventory=inv(["orders", "orders-mixed"], ["orders"], [], ["debug-orders"]), exit=2)
