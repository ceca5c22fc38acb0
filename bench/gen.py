#!/usr/bin/env python3
"""bench/gen.py: reproducible benchmark inputs for artemis-gitops.

  gen.py decl DIR --queues N [--nodes K | --nodes-from CLUSTER_YAML]
                  [--seed S] [--variant base|new]
      a cluster folder: cluster.yaml (K nodes, or the nodes of an existing
      cluster.yaml such as the one `scripts/artemis up` writes) and
      objects-NNN.yaml files (each under the loader's 1 MiB limit)
  gen.py snapshot FILE --queues N --nodes K [--seed S]
      the live state of the `base` variant on every node, in the
      `snapshot --json` format (docs/snapshot-format.md)
  gen.py load URL CREDFILE --queues N [--from M] [--seed S] [--broker B]
              [--batch G]
      create the `base` objects of queues [M, N) on a real broker through
      Jolokia bulk requests (G groups of 10 queues per POST)
  gen.py bulk-body BROKER
      print the bulk read `snapshot` sends (reconcile/snapshot-fetch.c)
  gen.py clusters DIR --clusters N --nodes-from CLUSTER_YAML [--variant V]
      a repository's clusters folder for issue 21's sharding bench: N
      clusters cNNNN/ on the same nodes, each its own address prefix
      (cNNNN.) declaring one anycast address cNNNN.a with one queue
      cNNNN.q (variant `base`), or also cNNNN.b with cNNNN.r in every
      hundredth cluster (variant `new`, n % 100 == 7)

The model: queues come in groups of 10. Group g has an anycast address
gGGGGG.in with queues gGGGGG.q0..q(k-1), a multicast address gGGGGG.out
with queues gGGGGG.qk..q9 (k in 3..7), and one divert gGGGGG.d from .in to
.out: a divert per 10 queues. Every group draws its attributes from its own
random generator seeded with (seed, g), so the first 1,000 queues of the
10,000-queue model are the 1,000-queue model (the loader adds, never
redoes).

Variants: `base` is the model; `new` is what a later commit declares:
in every hundredth group (g % 100 == 7) the .out side is gone (its queues,
address and the divert: queue deletes with a dependent divert); g % 100 ==
3 changes q0's max-consumers; g % 100 == 5 adds a queue gGGGGG.qx. `drop`
removes only the .out side of the groups given with --drop. So a
plan of `new` against a `base` snapshot with `base` as the managed set has
creates, changes and ADR-0084 deletes in the same proportion at every size.
"""
import argparse
import base64
import json
import os
import random
import sys
import urllib.request

GROUP = 10
PER_FILE = 400  # groups per YAML file: ~250 KiB, well under 1 MiB
FILTERS = ["color = 'red'", "priority > 4", "region IN ('eu', 'us')"]


def group_model(seed, g):
    """The `base` objects of group g: (addresses, queues, divert)."""
    r = random.Random(seed * 1000003 + g)
    p = "g%05d" % g
    k = r.randint(3, 7)
    qs = []
    for i in range(GROUP):
        q = {"name": "%s.q%d" % (p, i),
             "address": p + (".in" if i < k else ".out"),
             "routing": "anycast" if i < k else "multicast",
             "durable": r.random() < 0.9,
             "filter": r.choice(FILTERS) if r.random() < 0.1 else None,
             "max_consumers": -1 if r.random() < 0.7 else r.randint(1, 50),
             "purge_on_no_consumers": r.random() < 0.05,
             "exclusive": r.random() < 0.05,
             "ring_size": -1 if r.random() < 0.95 else r.randint(10, 1000),
             "enabled": True,
             "last_value_key": "key" if r.random() < 0.03 else None,
             "consumers_before_dispatch": 0,
             "delay_before_dispatch": -1,
             "message_count": r.randint(0, 5)}
        qs.append(q)
    addrs = [{"name": p + ".in", "routing": ["anycast"]},
             {"name": p + ".out", "routing": ["multicast"]}]
    d = {"name": p + ".d", "address": p + ".in",
         "forwarding_address": p + ".out",
         "routing_type": r.choice(["STRIP", "PASS", "MULTICAST"]),
         "exclusive": r.random() < 0.2,
         "filter": r.choice(FILTERS) if r.random() < 0.2 else None}
    return addrs, qs, d


def group_variant(seed, g, variant, drop=()):
    addrs, qs, d = group_model(seed, g)
    if variant == "drop":
        if g in drop:
            return addrs[:1], [q for q in qs
                               if q["address"].endswith(".in")], []
        return addrs, qs, [d]
    if variant == "base":
        return addrs, qs, [d]
    if g % 100 == 7:
        return addrs[:1], [q for q in qs if q["address"].endswith(".in")], []
    if g % 100 == 3:
        qs[0]["max_consumers"] = 77
    if g % 100 == 5:
        qs.append(dict(qs[0], name="g%05d.qx" % g))
    return addrs, qs, [d]


def yq(s):
    return json.dumps(s)


def queue_yaml(q):
    f = ["name: " + yq(q["name"]), "routing: " + q["routing"]]
    if not q["durable"]:
        f.append("durable: false")
    if q["filter"] is not None:
        f.append("filter: " + yq(q["filter"]))
    if q["max_consumers"] != -1:
        f.append("max-consumers: %d" % q["max_consumers"])
    if q["purge_on_no_consumers"]:
        f.append("purge-on-no-consumers: true")
    if q["exclusive"]:
        f.append("exclusive: true")
    if q["ring_size"] != -1:
        f.append("ring-size: %d" % q["ring_size"])
    if q["last_value_key"] is not None:
        f.append("last-value-key: " + yq(q["last_value_key"]))
    return "      - {" + ", ".join(f) + "}\n"


def divert_yaml(d):
    f = ["name: " + yq(d["name"]), "address: " + yq(d["address"]),
         "forwarding-address: " + yq(d["forwarding_address"]),
         "routing-type: " + d["routing_type"]]
    if d["exclusive"]:
        f.append("exclusive: true")
    if d["filter"] is not None:
        f.append("filter: " + yq(d["filter"]))
    return "  - {" + ", ".join(f) + "}\n"


def cluster_yaml(nodes):
    out = ["version: 1\n", "cluster: bench\n", "mode: STUDIO_MANAGED\n",
           "settings:\n", "  max-destroyed-messages: 1000000000\n",
           "nodes:\n"]
    for name, url, cred in nodes:
        out.append("  - name: %s\n    jolokia: %s\n    credentials: %s\n"
                   % (name, url, cred))
    return "".join(out)


def fake_nodes(k):
    return [("node%d" % i, "http://localhost:%d/console/jolokia"
             % (18161 + 10 * (i - 1)), "node%d" % i) for i in range(1, k + 1)]


def nodes_from(path):
    """name/jolokia/credentials of a cluster.yaml written by scripts/artemis."""
    nodes, cur = [], None
    for line in open(path):
        s = line.strip()
        if s.startswith("- name:"):
            cur = [s.split(":", 1)[1].strip(), None, None]
            nodes.append(cur)
        elif cur is not None and s.startswith("jolokia:"):
            cur[1] = s.split(":", 1)[1].strip()
        elif cur is not None and s.startswith("credentials:"):
            cur[2] = s.split(":", 1)[1].strip()
    return [tuple(n) for n in nodes]


def cmd_decl(a):
    groups = a.queues // GROUP
    os.makedirs(a.dir, exist_ok=True)
    nodes = nodes_from(a.nodes_from) if a.nodes_from else fake_nodes(a.nodes)
    with open(os.path.join(a.dir, "cluster.yaml"), "w") as f:
        f.write(cluster_yaml(nodes))
    for fi, g0 in enumerate(range(0, groups, PER_FILE)):
        out = ["version: 1\n", "addresses:\n"]
        divs = []
        for g in range(g0, min(g0 + PER_FILE, groups)):
            addrs, qs, ds = group_variant(a.seed, g, a.variant, a.drop)
            for ad in addrs:
                out.append("  - name: %s\n    routing: [%s]\n    queues:\n"
                           % (yq(ad["name"]), ", ".join(ad["routing"])))
                out.extend(queue_yaml(q) for q in qs
                           if q["address"] == ad["name"])
            divs.extend(ds)
        out.append("diverts:\n" if divs else "diverts: []\n")
        out.extend(divert_yaml(d) for d in divs)
        with open(os.path.join(a.dir, "objects-%03d.yaml" % fi), "w") as f:
            f.write("".join(out))


BUILTIN_ADDRS = [
    {"auto_created": True, "binding_names": ["$sys.mqtt.sessions"],
     "internal": True, "name": "$sys.mqtt.sessions",
     "queue_names": ["$sys.mqtt.sessions"], "routing": ["anycast"]},
    {"auto_created": False, "binding_names": ["DLQ"], "internal": False,
     "name": "DLQ", "queue_names": ["DLQ"], "routing": ["anycast"]},
    {"auto_created": False, "binding_names": ["ExpiryQueue"],
     "internal": False, "name": "ExpiryQueue",
     "queue_names": ["ExpiryQueue"], "routing": ["anycast"]},
    {"auto_created": False, "binding_names": [], "internal": False,
     "name": "activemq.notifications", "queue_names": [],
     "routing": ["multicast"]},
]


def snap_queue(q, **over):
    s = {"address": q["address"], "auto_created": False,
         "configuration_managed": False, "consumer_count": 0,
         "consumers_before_dispatch": q["consumers_before_dispatch"],
         "delay_before_dispatch": q["delay_before_dispatch"],
         "durable": q["durable"], "enabled": q["enabled"],
         "exclusive": q["exclusive"], "filter": q["filter"],
         "internal": False, "last_value_key": q["last_value_key"],
         "max_consumers": q["max_consumers"],
         "message_count": q["message_count"], "name": q["name"],
         "purge_on_no_consumers": q["purge_on_no_consumers"],
         "ring_size": q["ring_size"], "routing": q["routing"]}
    s.update(over)
    return s


def builtin_queues():
    base = {"consumers_before_dispatch": 0, "delay_before_dispatch": -1,
            "durable": True, "enabled": True, "exclusive": False,
            "filter": None, "max_consumers": -1, "message_count": 0,
            "purge_on_no_consumers": False, "ring_size": -1,
            "routing": "anycast"}
    return [
        snap_queue(dict(base, name="$sys.mqtt.sessions",
                        address="$sys.mqtt.sessions",
                        last_value_key="_AMQ_LVQ_NAME"), internal=True),
        snap_queue(dict(base, name="DLQ", address="DLQ", last_value_key=None),
                   configuration_managed=True),
        snap_queue(dict(base, name="ExpiryQueue", address="ExpiryQueue",
                        last_value_key=None), configuration_managed=True),
    ]


def node_objects(seed, groups):
    addrs, queues, diverts = list(BUILTIN_ADDRS), builtin_queues(), []
    for g in range(groups):
        ads, qs, d = group_model(seed, g)
        for ad in ads:
            qn = sorted(q["name"] for q in qs if q["address"] == ad["name"])
            bn = qn + ([d["name"]] if d["address"] == ad["name"] else [])
            addrs.append({"auto_created": False, "binding_names": sorted(bn),
                          "internal": False, "name": ad["name"],
                          "queue_names": qn, "routing": ad["routing"]})
        queues.extend(snap_queue(q) for q in qs)
        diverts.append({"address": d["address"], "exclusive": d["exclusive"],
                        "filter": d["filter"],
                        "forwarding_address": d["forwarding_address"],
                        "name": d["name"], "routing_name": d["name"],
                        "routing_type": d["routing_type"],
                        "transformer_class_name": None,
                        "transformer_properties": {}})
    key = lambda o: o["name"].encode()
    return sorted(addrs, key=key), sorted(queues, key=key), \
        sorted(diverts, key=key)


def cmd_snapshot(a):
    """Every node holds the same objects: the node body is encoded once and
    repeated (json's indenting encoder is slow), with the canonical layout of
    `snapshot --json` (keys sorted, 2-space indent, names sorted)."""
    addrs, queues, diverts = node_objects(a.seed, a.queues // GROUP)
    settings = [{"config_delete_addresses": "OFF",
                 "config_delete_diverts": "OFF",
                 "config_delete_queues": "OFF", "match": "#"}]
    body = json.dumps({"address_settings": settings, "addresses": addrs},
                      indent=2, sort_keys=True, ensure_ascii=False)
    objs = {"diverts": diverts, "queues": queues}
    tail = json.dumps(objs, indent=2, sort_keys=True, ensure_ascii=False)
    body = "\n".join("    " + ln for ln in body.split("\n")[1:-1])
    tail = tail.split("\n")[1:-1]
    dv = "\n".join("    " + ln for ln in tail[:tail.index('  "queues": [')])
    qs = "\n".join("    " + ln for ln in tail[tail.index('  "queues": ['):])
    parts = []
    for name, url, _ in fake_nodes(a.nodes):
        parts.append("    {\n" + body + ",\n" +
                     '      "broker_name": %s,\n' % json.dumps(name) +
                     '      "broker_version": "2.40.0",\n' + dv + "\n" +
                     '      "node": %s,\n' % json.dumps(name) + qs + ",\n" +
                     '      "refusal": null,\n      "requests": 1,\n' +
                     '      "url": %s\n    }' % json.dumps(url))
    with open(a.file, "w") as f:
        f.write('{\n  "cluster": "bench",\n  "format": 1,\n  "nodes": [\n')
        f.write(",\n".join(parts))
        f.write('\n  ],\n  "taken_at": "2026-11-29T20:00:00Z"\n}\n')


D = "org.apache.activemq.artemis:"


def broker_mbean(b):
    return D + 'broker="%s"' % b


def queue_config(q):
    c = {"name": q["name"], "address": q["address"],
         "routing-type": q["routing"].upper(), "durable": q["durable"],
         "auto-create-address": False, "filter-string": q["filter"] or "",
         "max-consumers": q["max_consumers"],
         "purge-on-no-consumers": q["purge_on_no_consumers"],
         "exclusive": q["exclusive"], "ring-size": q["ring_size"],
         "enabled": q["enabled"], "last-value": q["last_value_key"] is not None,
         "consumers-before-dispatch": q["consumers_before_dispatch"],
         "delay-before-dispatch": q["delay_before_dispatch"]}
    if q["last_value_key"] is not None:
        c["last-value-key"] = q["last_value_key"]
    return json.dumps(c)


def divert_config(d):
    return json.dumps({"name": d["name"], "routing-name": d["name"],
                       "address": d["address"],
                       "forwarding-address": d["forwarding_address"],
                       "exclusive": d["exclusive"],
                       "filter-string": d["filter"] or "",
                       "routing-type": d["routing_type"]})


def group_ops(seed, g, broker):
    m = broker_mbean(broker)
    addrs, qs, d = group_model(seed, g)
    ops = [{"type": "exec", "mbean": m,
            "operation": "createAddress(java.lang.String,java.lang.String)",
            "arguments": [ad["name"], ad["routing"][0].upper()]}
           for ad in addrs]
    ops += [{"type": "exec", "mbean": m,
             "operation": "createQueue(java.lang.String)",
             "arguments": [queue_config(q)]} for q in qs]
    ops.append({"type": "exec", "mbean": m,
                "operation": "createDivert(java.lang.String)",
                "arguments": [divert_config(d)]})
    return ops


def post(url, cred, body):
    req = urllib.request.Request(url, data=body.encode(), method="POST")
    req.add_header("Content-Type", "application/json")
    req.add_header("Origin", "http://localhost")
    req.add_header("Authorization",
                   "Basic " + base64.b64encode(cred.encode()).decode())
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())


def cmd_load(a):
    cred = open(a.credfile).read().strip()
    broker = a.broker
    g0, g1 = a.start // GROUP, a.queues // GROUP
    posts = 0
    for b0 in range(g0, g1, a.batch):
        ops = []
        for g in range(b0, min(b0 + a.batch, g1)):
            ops.extend(group_ops(a.seed, g, broker))
        reply = post(a.url, cred, json.dumps(ops))
        posts += 1
        bad = [r for r in reply if r.get("status") != 200]
        if bad:
            sys.exit("gen.py load: %d of %d operations failed, first: %s"
                     % (len(bad), len(ops), json.dumps(bad[0])[:400]))
    print("%d groups in %d requests" % (g1 - g0, posts))


def cmd_bulk_body(a):
    """The body reconcile/snapshot-fetch.c sends (same elements, order)."""
    attrs = {
        "broker=*": ["Version", "Active", "Backup", "HAPolicy", "NodeID",
                     "ReplicaSync"],
        "broker=*,component=addresses,address=*":
            ["Address", "RoutingTypes", "QueueNames", "BindingNames",
             "AutoCreated", "Internal"],
        "broker=*,component=addresses,address=*,subcomponent=queues,"
        "routing-type=*,queue=*":
            ["Name", "Address", "RoutingType", "Durable", "Filter",
             "MaxConsumers", "PurgeOnNoConsumers", "Exclusive", "RingSize",
             "Enabled", "LastValueKey", "ConsumersBeforeDispatch",
             "DelayBeforeDispatch", "ConfigurationManaged", "AutoCreated",
             "InternalQueue", "Temporary", "ConsumerCount",
             "MessageCount"],
        "broker=*,component=addresses,address=*,subcomponent=diverts,"
        "divert=*":
            ["UniqueName", "RoutingName", "Address", "ForwardingAddress",
             "Exclusive", "Filter", "RoutingType", "TransformerClassName",
             "TransformerProperties"],
    }
    ops = [{"type": "read", "mbean": D + k, "attribute": v}
           for k, v in attrs.items()]
    ops.append({"type": "exec", "mbean": broker_mbean(a.broker),
                "operation": "getAddressSettingsAsJSON(java.lang.String)",
                "arguments": ["#"]})
    sys.stdout.write(json.dumps(ops, separators=(",", ":")))


def cmd_clusters(a):
    nodes = nodes_from(a.nodes_from)
    for n in range(a.clusters):
        name = "c%04d" % n
        d = os.path.join(a.dir, name)
        os.makedirs(d, exist_ok=True)
        out = ["version: 1\n", "cluster: %s\n" % name,
               "mode: STUDIO_MANAGED\n", "nodes:\n"]
        for node, url, cred in nodes:
            out.append("  - name: %s\n    jolokia: %s\n    credentials: %s\n"
                       % (node, url, cred))
        out.append("addresses:\n  - name: %s.a\n    routing: [anycast]\n"
                   "    queues: [{name: %s.q}]\n" % (name, name))
        if a.variant == "new" and n % 100 == 7:
            out.append("  - name: %s.b\n    routing: [anycast]\n"
                       "    queues: [{name: %s.r}]\n" % (name, name))
        with open(os.path.join(d, "cluster.yaml"), "w") as f:
            f.write("".join(out))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("decl")
    d.add_argument("dir")
    d.add_argument("--nodes", type=int, default=8)
    d.add_argument("--nodes-from")
    d.add_argument("--variant", choices=["base", "new", "drop"],
                   default="base")
    d.add_argument("--drop", type=lambda v: [int(x) for x in v.split(",")],
                   default=[], help="drop: groups whose .out side goes")
    s = sub.add_parser("snapshot")
    s.add_argument("file")
    s.add_argument("--nodes", type=int, default=8)
    ld = sub.add_parser("load")
    ld.add_argument("url")
    ld.add_argument("credfile")
    ld.add_argument("--from", dest="start", type=int, default=0)
    ld.add_argument("--broker", default="node1")
    ld.add_argument("--batch", type=int, default=100)
    bb = sub.add_parser("bulk-body")
    bb.add_argument("broker")
    cl = sub.add_parser("clusters")
    cl.add_argument("dir")
    cl.add_argument("--clusters", type=int, required=True)
    cl.add_argument("--nodes-from", required=True)
    cl.add_argument("--variant", choices=["base", "new"], default="base")
    for x in (d, s, ld):
        x.add_argument("--queues", type=int, required=True)
        x.add_argument("--seed", type=int, default=9)
    a = p.parse_args()
    if getattr(a, "queues", GROUP) % GROUP != 0:
        p.error("--queues must be a multiple of %d" % GROUP)
    {"decl": cmd_decl, "snapshot": cmd_snapshot, "load": cmd_load,
     "bulk-body": cmd_bulk_body, "clusters": cmd_clusters}[a.cmd](a)


if __name__ == "__main__":
    main()
