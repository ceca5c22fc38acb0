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
UPSTREAM: http://localhost:PORT. Listens on 127.0.0.1 on a free port,
writes it to PORTFILE, appends one line per request to LOGFILE:
`<forward|fail|stall> <operation or read> <first argument>`. Runs until
killed.
"""
import http.client
import http.server
import json
import os
import socketserver
import sys
import threading
import time
import urllib.parse

UPSTREAM, PORTFILE, LOGFILE = sys.argv[1:4]
RULES = [r.split(":", 3) if r.startswith("hold:") else r.split(":", 2)
         for r in sys.argv[4:]]
UP = urllib.parse.urlparse(UPSTREAM)
LOCK = threading.Lock()


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
    return op, str(args[0])


def rule_for(op, name):
    for r in RULES:
        if r[1] == op and (len(r) < 3 or r[2] == name):
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
        rule = rule_for(op, name)
        action = rule[0]
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
        self.reply(r.status, data)

    def reply(self, status, data):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain;charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
