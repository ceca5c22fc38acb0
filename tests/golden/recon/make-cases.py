#!/usr/bin/env python3
"""tests/golden/recon/make-cases.py: writes the inputs of the planner's
golden cases (cluster YAML, base YAML or inventory, recorded snapshot JSON
in the `snapshot --json` format, the command's arguments and the checks).
The expected outputs (expect/) come from `GOLDEN_UPDATE=1 run.sh` and are
reviewed by hand. Run it after editing a case below; commit what it writes.

A live node is described compactly and expanded into the canonical snapshot
format (docs/snapshot-format.md): queues (name, address, consumers,
messages, overrides), diverts (name, source, forwarding, overrides); the
addresses, their queue and binding names follow from them."""
import json, os, shutil, sys

HERE = os.path.dirname(os.path.abspath(__file__))

HEAD = """version: 1
cluster: shop-eu
mode: {mode}
nodes:
  - name: node1
    jolokia: http://localhost:8161/console/jolokia
    credentials: node1
  - name: node2
    jolokia: http://localhost:8171/console/jolokia
    credentials: node2
settings:
  capture-prefix: "__capture."
  max-destroyed-messages: {cap}
"""


def cluster(body, mode="STUDIO_MANAGED", cap=1000, protect=None):
    """protect: settings.protect patterns (docs/policy.md), or None."""
    extra = ""
    if protect is not None:
        extra = "  protect: [%s]\n" % ", ".join(json.dumps(x) for x in protect)
    return HEAD.format(mode=mode, cap=cap) + extra + body


def q(name, address, consumers=0, messages=0, **kw):
    d = {"address": address, "auto_created": False,
         "configuration_managed": False, "consumer_count": consumers,
         "consumers_before_dispatch": 0, "delay_before_dispatch": -1,
         "durable": True, "enabled": True, "exclusive": False,
         "filter": None, "internal": False, "last_value_key": None,
         "max_consumers": -1, "message_count": messages, "name": name,
         "purge_on_no_consumers": False, "ring_size": -1,
         "routing": "anycast"}
    d.update(kw)
    return d


def dv(name, src, fwd, **kw):
    d = {"address": src, "exclusive": False, "filter": None,
         "forwarding_address": fwd, "name": name, "routing_name": name,
         "routing_type": "STRIP", "transformer_class_name": None,
         "transformer_properties": {}}
    d.update(kw)
    return d


def tap(capture, address, **kw):
    """A capture tap as the capture pass creates it (docs/captures.md)."""
    kw.setdefault("routing_type", "ANYCAST")
    return dv("__capture.%s.%s" % (capture, address), address,
              "__capture." + capture, **kw)


def ring(capture, size=1000, **kw):
    """A capture's ring queue as the capture pass creates it."""
    kw.setdefault("durable", False)
    return q("__capture." + capture, "__capture." + capture, ring_size=size, **kw)


def node(name, queues=(), diverts=(), addresses=(), refusal=None,
         kind="UNREACHABLE", version="2.40.0"):
    port = {"node1": 8161, "node2": 8171}[name]
    n = {"address_settings": [], "addresses": [], "broker_name": name,
         "broker_version": version, "diverts": sorted(diverts, key=lambda d: d["name"]),
         "node": name, "queues": sorted(queues, key=lambda d: d["name"]),
         "refusal": None, "requests": 1,
         "url": "http://localhost:%d/console/jolokia" % port}
    if refusal is not None:
        n.update({"broker_name": None, "broker_version": None, "diverts": [],
                  "queues": [], "refusal": {"http_status": 0,
                  "kind": kind, "status": 0, "text": refusal}})
        return n
    addrs = {}
    for a in addresses:
        addrs[a] = {"auto_created": False, "binding_names": [],
                    "internal": False, "name": a, "queue_names": [],
                    "routing": ["anycast"]}
    for x in n["queues"]:
        a = addrs.setdefault(x["address"], {"auto_created": False,
            "binding_names": [], "internal": False, "name": x["address"],
            "queue_names": [], "routing": []})
        a["queue_names"].append(x["name"])
        a["binding_names"].append(x["name"])
        if x["routing"] not in a["routing"]:
            a["routing"].append(x["routing"])
    for x in n["diverts"]:
        a = addrs.setdefault(x["address"], {"auto_created": False,
            "binding_names": [], "internal": False, "name": x["address"],
            "queue_names": [], "routing": ["anycast"]})
        a["binding_names"].append(x["name"])
    for a in addrs.values():
        a["queue_names"].sort()
        a["binding_names"].sort()
        a["routing"] = [r for r in ("anycast", "multicast") if r in a["routing"]] or ["anycast"]
    n["addresses"] = [addrs[k] for k in sorted(addrs)]
    return n


def snapshot(*nodes):
    return {"cluster": "shop-eu", "format": 1, "nodes": list(nodes),
            "taken_at": "2026-11-29T20:00:00Z"}


ORDERS = """addresses:
  - name: orders
    routing: [anycast]
    queues:
      - name: orders
"""
AUDIT_IN = """  - name: audit-in
    routing: [anycast]
    queues:
      - name: audit-in
"""

CASES = {}


def case(slug, args, yaml, snap, checks, base=None, inventory=None, exit=0,
         broker_xml=None):
    CASES[slug] = dict(args=args, yaml=yaml, snap=snap, checks=checks,
                       base=base, inventory=inventory, exit=exit,
                       broker_xml=broker_xml)


def broker_base(delete="OFF"):
    """A CONFIG_MANAGED cluster's base broker.xml (cluster/broker/), with
    config-delete-{queues,addresses,diverts} set to delete on '#'."""
    return """<?xml version='1.0'?>
<configuration xmlns="urn:activemq" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="urn:activemq /schema/artemis-configuration.xsd">
   <core xmlns="urn:activemq:core">
      <name>0.0.0.0</name>
      <address-settings>
         <address-setting match="#">
            <config-delete-queues>%s</config-delete-queues>
            <config-delete-addresses>%s</config-delete-addresses>
            <config-delete-diverts>%s</config-delete-diverts>
         </address-setting>
      </address-settings>
      <addresses>
         <address name="DLQ">
            <anycast>
               <queue name="DLQ"/>
            </anycast>
         </address>
      </addresses>
   </core>
</configuration>
""" % (delete, delete, delete)


def inv(addresses=(), queues=(), diverts=(), captures=(), retain=None,
        protect=None):
    """retain: {"addresses": [...], "queues": [...], "diverts": [...]} and
    protect: the last applied declaration's policy (docs/state.md)."""
    d = {"addresses": sorted(addresses), "captures": sorted(captures),
         "cluster": "shop-eu", "diverts": sorted(diverts), "format": 1,
         "queues": sorted(queues), "revision": "base-rev"}
    if retain is not None:
        d["retain"] = {k: sorted(retain.get(k, ()))
                       for k in ("addresses", "diverts", "queues")}
    if protect is not None:
        d["protect"] = sorted(protect)
    return d

exec(open(os.path.join(HERE, "cases.py")).read())


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    for slug, c in CASES.items():
        d = os.path.join(HERE, slug)
        for sub in ("cluster", "base"):
            shutil.rmtree(os.path.join(d, sub), ignore_errors=True)
        write(os.path.join(d, "cluster", "cluster.yaml"), c["yaml"])
        if c["broker_xml"] is not None:
            write(os.path.join(d, "cluster", "broker", "broker.xml"),
                  c["broker_xml"])
        if c["base"] is not None:
            write(os.path.join(d, "base", "cluster.yaml"), c["base"])
        if c["inventory"] is not None:
            write(os.path.join(d, "state", "shop-eu", "inventory.json"),
                  json.dumps(c["inventory"], indent=2, sort_keys=True) + "\n")
        write(os.path.join(d, "snapshot.json"),
              json.dumps(c["snap"], indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        write(os.path.join(d, "args"), c["args"] + "\n")
        write(os.path.join(d, "exit"), "%d\n" % c["exit"])
        write(os.path.join(d, "checks"), c["checks"].strip() + "\n")


main()
