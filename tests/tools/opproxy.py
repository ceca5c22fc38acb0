#!/usr/bin/env python3
"""tests/tools/opproxy.py: an HTTP proxy in front of a real broker's Jolokia
endpoint that fails or stalls chosen management operations, for apply's
fault-injection tests. Everything else is forwarded untouched.

  opproxy.py UPSTREAM PORTFILE LOGFILE [RULE...]

RULE: fail:OP[:NAME]   a request that execs OP (e.g. destroyDivert) -- on the
                       object NAME when given -- is answered, without
                       reaching the broker, with one Jolokia element per
                       request element: status 500,
                       `java.lang.IllegalStateException : injected by
                       opproxy: OP NAME`
      stall:OP[:NAME]  such a request is read and never answered
      hold:OP:NAME:FILE  such a request waits until FILE exists (at most
                       60 s), then is forwarded: the test acts on the
                       broker between apply's check and its call
      hold-any:OP:NAME:FILE  as hold, for a request any of whose elements
                       (a bulk apply sent as one batch) execs OP on NAME:
                       its first argument, or the "name" of a JSON one
                       (createQueue(java.lang.String) takes the queue's JSON)
      hold-req:N:FILE  the N-th request through this proxy (1-based, any
                       kind: reads too) waits until FILE exists (at most
                       60 s), then is forwarded: a test kills apply there,
                       between two of its requests (stop the proxy with
                       it, so that the held request never goes out)
      drop:OP[:NAME]   such a request is read and its connection closed,
                       without reaching the broker (a lost request)
      A lost reply after the broker acted: the request is forwarded, the
      broker's answer is read, and then instead of it
      lost-stall:OP[:NAME]     nothing is sent, ever (the client times out)
      lost-drop:OP[:NAME]      the connection is closed (an empty reply)
      lost-reset:OP[:NAME]     the connection is reset (TCP RST)
      lost-truncate:OP[:NAME]  the headers and half of the body, then close
      lost-drip:OP[:NAME]      the headers, then one byte of the body every
                               2 s (the client times out)
      lost-garbage:OP[:NAME]   200 with a body that is not JSON
      lost-status:N:OP[:NAME]  HTTP N with an empty body (a gateway's 502)
      A lost-... action ending in +down (lost-drop+down:OP) makes every
      later request of any kind dropped too: the node cannot be read back.
UPSTREAM: http://localhost:PORT. Listens on 127.0.0.1 on a free port (on
$OPPROXY_PORT when set: a proxy started again in the place of one stopped),
writes it to PORTFILE, appends one line per request to LOGFILE:
`<forward|fail|stall|hold|drop|lost-...> <operation or read> <first
argument>`. Runs until killed.
With $OPPROXY_ARGS_LOG set, every exec element of a request (each of a
batch's) also appends `<operation>\t<its arguments as JSON>` there (the whole argument list: a positional overload's
settings, as sent).
"""
import http.client
import http.server
import json
import os
import socket
import socketserver
import struct
import sys
import threading
import time
import urllib.parse

UPSTREAM, PORTFILE, LOGFILE = sys.argv[1:4]


def parse_rule(r):
    """[action, OP, NAME?, extra?]: hold's FILE and lost-status's N are
    kept last; hold-req is [hold-req, N, FILE]."""
    if r.startswith("hold-req:"):
        return r.split(":", 2)
    if r.startswith("hold:") or r.startswith("hold-any:"):
        return r.split(":", 3)
    if r.startswith("lost-status:"):
        _, n, rest = r.split(":", 2)
        parts = rest.split(":", 1)
        return ["lost-status", parts[0], parts[1] if len(parts) > 1
                else None, n]
    return r.split(":", 2)


RULES = [parse_rule(r) for r in sys.argv[4:]]
HOLD_REQ = [r for r in RULES if r[0] == "hold-req"]
RULES = [r for r in RULES if r[0] != "hold-req"]
COUNT = [0]
UP = urllib.parse.urlparse(UPSTREAM)
LOCK = threading.Lock()
DOWN = threading.Event()


def describe(body):
    """(operation name, first argument) of the first element, or ('?', '')."""
    try:
        req = json.loads(body or b"null")
    except ValueError:
        return "?", ""
    el = req[0] if isinstance(req, list) and req else req
    if not isinstance(el, dict):
        return "?", ""
    if el.get("type") != "exec":
        return el.get("type", "?"), ""
    op = el.get("operation", "?").split("(")[0]
    args = el.get("arguments") or [""]
    if os.environ.get("OPPROXY_ARGS_LOG"):
        # every exec element: apply sends creates and changes in batches
        els = req if isinstance(req, list) else [req]
        with LOCK:
            with open(os.environ["OPPROXY_ARGS_LOG"], "a") as f:
                for e in els:
                    if isinstance(e, dict) and e.get("type") == "exec":
                        f.write("%s\t%s\n" % (
                            e.get("operation", "?").split("(")[0],
                            json.dumps(e.get("arguments") or [""],
                                       sort_keys=True)))
    return op, str(args[0])


def element_names(body):
    """(operation, name) of every exec element of a request."""
    try:
        req = json.loads(body or b"null")
    except ValueError:
        return []
    out = []
    for el in req if isinstance(req, list) else [req]:
        if not isinstance(el, dict) or el.get("type") != "exec":
            continue
        args = el.get("arguments") or [""]
        name = str(args[0])
        if name.startswith("{"):
            try:
                name = str(json.loads(name).get("name", name))
            except ValueError:
                pass
        out.append((el.get("operation", "?").split("(")[0], name))
    return out


def rule_for(op, name, body=None):
    for r in RULES:
        if r[0] == "hold-any":
            if (r[1], r[2]) in element_names(body):
                return ["hold"] + r[1:]
            continue
        if r[1] == op and (len(r) < 3 or r[2] is None or r[2] == name):
            return r
    return ["forward"]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n)
        op, name = describe(body)
        rule = rule_for(op, name, body)
        with LOCK:
            COUNT[0] += 1
            seq = COUNT[0]
        for h in HOLD_REQ:
            if int(h[1]) == seq:
                rule = ["hold", op, name, h[2]]
        action = "drop" if DOWN.is_set() else rule[0]
        with LOCK:
            with open(LOGFILE, "a") as f:
                f.write("%s %s %s\n" % (action, op, name))
        if action == "stall":
            time.sleep(3600)
            return
        if action == "hold":
            for _ in range(600):
                if os.path.exists(rule[3]):
                    break
                time.sleep(0.1)
        if action == "drop":
            self.close_connection = True
            self.connection.close()
            return
        if action == "fail":
            req = json.loads(body)
            count = len(req) if isinstance(req, list) else 1
            el = {"status": 500,
                  "error_type": "java.lang.IllegalStateException",
                  "error": "java.lang.IllegalStateException : "
                           "injected by opproxy: %s %s" % (op, name)}
            data = json.dumps([el] * count if isinstance(req, list)
                              else el).encode()
            self.reply(200, data)
            return
        conn = http.client.HTTPConnection(UP.hostname, UP.port, timeout=60)
        hdrs = {k: v for k, v in self.headers.items()
                if k.lower() in ("authorization", "origin", "content-type")}
        conn.request("POST", self.path, body=body, headers=hdrs)
        r = conn.getresponse()
        data = r.read()
        conn.close()
        if action.startswith("lost-"):
            if action.endswith("+down"):
                DOWN.set()
                action = action[: -len("+down")]
            self.lose(action, rule, data)
            return
        self.reply(r.status, data)

    def lose(self, action, rule, data):
        """The broker acted and answered data; the client gets none of
        it, or not all of it, or something else."""
        if action == "lost-stall":
            time.sleep(3600)
            return
        if action == "lost-drop":
            self.close_connection = True
            self.connection.close()
            return
        if action == "lost-reset":
            self.close_connection = True
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.connection.close()
            return
        if action == "lost-garbage":
            self.reply(200, b"<html>this is not JSON</html>")
            return
        if action == "lost-status":
            self.reply(int(rule[3]), b"")
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain;charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.flush()
        if action == "lost-truncate":
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.close()
            return
        try:  # lost-drip
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(2)
        except OSError:
            pass

    def reply(self, status, data):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain;charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


srv = Server(("127.0.0.1", int(os.environ.get("OPPROXY_PORT") or 0)), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
