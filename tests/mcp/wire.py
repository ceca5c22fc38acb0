#!/usr/bin/env python3
# tests/mcp/wire.py: `artemis-gitops mcp` on the wire, byte by byte, where
# no SDK lets a client go: malformed JSON-RPC, ids MCP forbids, unknown
# methods, messages before initialize, every revision's negotiation and
# what each one's results carry, 2025-03-26's batches, 2026-07-28's
# stateless requests (server/discover, _meta, UnsupportedProtocolVersion),
# an oversized message, notifications, a stdin closed in the middle of a
# message and in the middle of a request, a stdout closed under it, and a
# signal. Every case starts the server afresh. Prints `ok - NAME` /
# `not ok - NAME` lines (a failure's detail on `# ` lines), for
# tests/integration/98-mcp-wire.sh (tap_import).
#
#   wire.py LOG CLUSTER -- COMMAND ARGS...
#
# LOG receives every server's stderr; CLUSTER is a cluster the server's
# repository declares, on live brokers.
import json
import os
import select
import signal
import subprocess
import sys
import time

log_path, cluster = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
log = open(log_path, "ab")
failed = 0


def check(name, ok, detail=None):
    global failed
    print(("ok" if ok else "not ok") + " - " + name)
    if not ok:
        failed += 1
        if detail is not None:
            for line in str(detail).splitlines()[:30]:
                print("# " + line)
    sys.stdout.flush()
    return ok


class Server:
    def __init__(self):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=log, bufsize=0)
        self.buf = b""

    def send(self, raw):
        if isinstance(raw, (dict, list)):
            raw = json.dumps(raw)
        if isinstance(raw, str):
            raw = raw.encode()
        self.p.stdin.write(raw + b"\n")

    def line(self, timeout=30):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
        raw, _, self.buf = self.buf.partition(b"\n")
        return json.loads(raw)

    def ask(self, msg):
        self.send(msg)
        return self.line()

    def close(self, timeout=30):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return "killed"


def init(s, version="2025-11-25"):
    return s.ask({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": version, "capabilities": {},
                             "clientInfo": {"name": "wire", "version": "1"}}})


def req(i, method, params=None):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return m


def code(r):
    return r.get("error", {}).get("code") if isinstance(r, dict) else None


MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": "wire", "version": "1"}}

# ---- malformed JSON-RPC -----------------------------------------------------
s = Server()
init(s)
cases = [
    ('{"jsonrpc":"2.0","id":1,', -32700, None, "truncated JSON"),
    (b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff"}', -32700, None, "invalid UTF-8"),
    ('{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', -32700, None, "a duplicate key"),
    ("[" * 70 + "]" * 70, -32700, None, "nesting past 64 levels"),
    ('"ping"', -32600, None, "a string, not an object"),
    ('{"jsonrpc":"1.0","id":3,"method":"ping"}', -32600, 3, "jsonrpc 1.0"),
    ('{"id":4,"method":"ping"}', -32600, 4, "no jsonrpc member"),
    ('{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, None, "a null id (MCP forbids it)"),
    ('{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, None, "a fractional id"),
    ('{"jsonrpc":"2.0","id":5,"method":7}', -32600, 5, "a method that is not a string"),
    ('{"jsonrpc":"2.0","id":6}', -32600, 6, "no method"),
    ('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}', -32602, 7, "params an array"),
    ('[{"jsonrpc":"2.0","id":8,"method":"ping"}]', -32600, None, "a batch outside 2025-03-26"),
]
for raw, want, want_id, what in cases:
    r = s.ask(raw)
    check("malformed: %s: %d%s" % (what, want, " with its id" if want_id is not None else ", no id"),
          code(r) == want and r.get("id") == want_id and "id" in r if want_id is not None
          else code(r) == want and "id" not in r, r)
r = s.ask(req("s-1", "no/such/method"))
check("an unknown method: -32601, a string id echoed", code(r) == -32601 and r["id"] == "s-1"
      and "no/such/method" in r["error"]["message"], r)
s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
s.send({"jsonrpc": "2.0", "method": "notifications/whatever", "params": [1]})
s.send({"jsonrpc": "2.0", "id": 99, "result": {}})
r = s.ask(req(9, "ping"))
check("notifications and a stray response get no answer; the next request is answered",
      r == {"jsonrpc": "2.0", "id": 9, "result": {}}, r)
big = '{"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":"' + "a" * (2 << 20) + '"}}'
r = s.ask(big)
check("a 2 MiB message: -32600 naming the cap, no id", code(r) == -32600 and "id" not in r
      and "1048576" in r["error"]["message"], r)
r = s.ask(req(11, "ping"))
check("... and the server reads on", r == {"jsonrpc": "2.0", "id": 11, "result": {}}, r)
check("the server exits 0 when stdin closes", s.close() == 0)

# ---- before initialize ------------------------------------------------------
s = Server()
r = s.ask(req(1, "ping"))
check("ping before initialize is answered", r == {"jsonrpc": "2.0", "id": 1, "result": {}}, r)
r = s.ask(req(2, "tools/list"))
check("tools/list before initialize, without _meta: -32602 naming initialize",
      code(r) == -32602 and "initialize" in r["error"]["message"], r)
r = s.ask(req(3, "initialize", {"capabilities": {}}))
check("initialize without protocolVersion: -32602", code(r) == -32602, r)
r = init(s)
r2 = init(s)
check("a second initialize: -32600", "result" in r and code(r2) == -32600, r2)
s.close()

# ---- negotiation and what each revision's results carry ---------------------
for asked, got in [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"),
                   ("2025-03-26", "2025-03-26"), ("2024-11-05", "2024-11-05"),
                   ("2024-10-07", "2025-11-25"), ("2026-07-28", "2025-11-25"),
                   ("1999-01-01", "2025-11-25")]:
    s = Server()
    r = init(s, asked)
    res = r.get("result", {})
    check("initialize %s: answered %s, tools and resources" % (asked, got),
          res.get("protocolVersion") == got and res.get("capabilities") == {"resources": {}, "tools": {}}
          and res.get("serverInfo", {}).get("name") == "artemis-gitops", r)
    if asked != got:
        s.close()
        continue
    tools = s.ask(req(1, "tools/list"))["result"]["tools"]
    t = tools[0]
    check("%s: annotations %s, title %s" % (got, "from 2025-03-26" if got >= "2025-03-26" else "absent",
                                           "from 2025-06-18" if got >= "2025-06-18" else "absent"),
          ("annotations" in t) == (got >= "2025-03-26") and ("title" in t) == (got >= "2025-06-18"), t)
    r = s.ask(req(2, "tools/call", {"name": "validate", "arguments": {"cluster": cluster}}))
    res = r.get("result", {})
    if got >= "2025-06-18":
        ok = res.get("structuredContent", {}).get("valid") is True and len(res["content"]) == 1
    else:
        ok = "structuredContent" not in res and len(res.get("content", [])) == 2 \
            and json.loads(res["content"][1]["text"])["valid"] is True
    check("%s: a result as %s" % (got, "structuredContent" if got >= "2025-06-18"
                                  else "a second text block (no structuredContent yet)"), ok, r)
    r = s.ask(req(3, "tools/call", {"name": "validate", "arguments": {"cluster": 7}}))
    if got >= "2025-11-25":
        ok = r.get("result", {}).get("isError") is True
    else:
        ok = code(r) == -32602 and "must be a string" in r["error"]["message"]
    check("%s: a wrong argument type is %s" % (got, "a tool execution error (isError)" if got >= "2025-11-25"
                                              else "a protocol error (-32602)"), ok, r)
    r = s.ask(req(4, "resources/read", {"uri": "artemis-gitops://audit/../x"}))
    check("%s: a resource not found: -32002" % got, code(r) == -32002, r)
    if got == "2025-03-26":
        r = s.ask([req(5, "ping"), {"jsonrpc": "2.0", "method": "notifications/initialized"},
                   req(6, "no/such"), "x"])
        check("2025-03-26: a batch answered as an array, notifications left out",
              isinstance(r, list) and len(r) == 3 and r[0] == {"jsonrpc": "2.0", "id": 5, "result": {}}
              and code(r[1]) == -32601 and code(r[2]) == -32600, r)
        r = s.ask([])
        check("2025-03-26: an empty batch: -32600", code(r) == -32600, r)
    check("%s: the server exits 0" % got, s.close() == 0)

# ---- 2026-07-28: stateless -------------------------------------------------
s = Server()
r = s.ask(req(1, "server/discover", {"_meta": MODERN}))
res = r.get("result", {})
check("server/discover: every revision, capabilities, resultType, caching hints, serverInfo in _meta",
      res.get("supportedVersions") == ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
      and res.get("resultType") == "complete" and res.get("ttlMs", -1) >= 0
      and res.get("cacheScope") in ("public", "private")
      and res.get("_meta", {}).get("io.modelcontextprotocol/serverInfo", {}).get("name") == "artemis-gitops", r)
r = s.ask(req(2, "tools/list", {"_meta": MODERN}))
res = r.get("result", {})
check("tools/list without initialize, _meta given: the tools, resultType, ttlMs, cacheScope",
      len(res.get("tools", [])) == 6 and res.get("resultType") == "complete" and "ttlMs" in res
      and "cacheScope" in res, r)
r = s.ask(req(3, "tools/call", {"_meta": MODERN, "name": "validate", "arguments": {"cluster": cluster}}))
res = r.get("result", {})
check("tools/call, stateless: structured content and resultType complete",
      res.get("structuredContent", {}).get("valid") is True and res.get("resultType") == "complete", r)
r = s.ask(req(4, "tools/list", {"_meta": dict(MODERN, **{"io.modelcontextprotocol/protocolVersion": "2027-01-01"})}))
check("an unknown revision in _meta: -32022 naming the supported and the requested",
      code(r) == -32022 and r["error"].get("data", {}).get("requested") == "2027-01-01"
      and "2026-07-28" in r["error"]["data"].get("supported", []), r)
m = dict(MODERN)
del m["io.modelcontextprotocol/clientCapabilities"]
r = s.ask(req(5, "tools/list", {"_meta": m}))
check("_meta without clientCapabilities: -32602", code(r) == -32602, r)
r = s.ask(req(6, "ping", {"_meta": MODERN}))
check("ping is not a 2026-07-28 method: -32601", code(r) == -32601, r)
r = s.ask(req(7, "resources/read", {"_meta": MODERN, "uri": "artemis-gitops://previews/x/y/z.md"}))
check("a resource not found in 2026-07-28: -32602 (not -32002)", code(r) == -32602, r)
r = s.ask(req(8, "server/discover"))
check("server/discover without _meta: -32602", code(r) == -32602, r)
check("the server exits 0", s.close() == 0)

# ---- stdin closed mid-message, mid-request; stdout closed; a signal ----------
s = Server()
init(s)
s.p.stdin.write(b'{"jsonrpc":"2.0","id":9,"method":"pi')
rc = s.close(10)
check("stdin closed in the middle of a message: exit 0, nothing written", rc == 0 and s.line(1) is None, rc)

s = Server()
init(s)
s.p.stdin.write((json.dumps(req(1, "tools/call", {"name": "list_clusters", "arguments": {}})) + "\n").encode())
s.p.stdin.close()
r = s.line(60)
rc = s.p.wait(60)
check("stdin closed in the middle of a request (list_clusters reading the brokers): "
      "the answer is written whole, then exit 0",
      rc == 0 and r is not None and r.get("id") == 1 and "result" in r, [rc, r])

s = Server()
init(s)
s.p.stdout.close()
s.send(req(1, "tools/list"))
try:
    rc = s.p.wait(30)
except subprocess.TimeoutExpired:
    s.p.kill()
    rc = "hung"
check("stdout closed under it: the server exits 1 (no SIGPIPE death)", rc == 1, rc)

s = Server()
init(s)
s.p.send_signal(signal.SIGTERM)
try:
    rc = s.p.wait(30)
except subprocess.TimeoutExpired:
    s.p.kill()
    rc = "hung"
check("SIGTERM while waiting for a message: exit 0", rc == 0, rc)
sys.exit(0)
