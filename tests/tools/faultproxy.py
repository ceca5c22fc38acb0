#!/usr/bin/env python3
"""tests/tools/faultproxy.py: a tiny HTTP proxy in front of a real broker's
Jolokia endpoint (or an etcd member's JSON gateway) that misbehaves on
purpose, for the client's TIMEOUT, BAD_RESPONSE and UNREACHABLE
classifications, and that counts requests.

  faultproxy.py MODE UPSTREAM PORTFILE LOGFILE

MODE: pass      forward the request, return the broker's answer
      stall     read the request, never answer
      garbage   answer 200 with a body that is not JSON
      truncate  forward, then send only half of the body and close
      drop      read the request and close the connection
      big       answer 200 with a 40 MiB body
      status:N  answer HTTP N with an empty body
      delay:MS  wait MS milliseconds, then forward as pass does (a slow
                server: etcd's client times out and moves on)
      late:MS[:PATH]
                forward at once, answer MS milliseconds later (the server
                acted; the answer is lost to a client that timed out); with
                PATH only requests whose path holds PATH, others as pass
      sub/RE/TO forward, then replace every match of the regular
                expression RE in the broker's answer by TO (re.sub; RE
                and TO hold no '/'): a broker that says what no broker
                says, e.g. sub/"MessageCount":[0-9]+/"MessageCount":-5
UPSTREAM: http://localhost:PORT. With FAULTPROXY_TLS_CERT and
FAULTPROXY_TLS_KEY set (PEM files) the proxy speaks HTTPS. The proxy listens on 127.0.0.1 (or the
address FAULTPROXY_BIND names) on a free port (FAULTPROXY_PORT: that one, so that a
proxy killed for an outage comes back where the agent expects it), writes the port to PORTFILE, and appends one line per request
(`<method> <path> <body-bytes>`) to LOGFILE. FAULTPROXY_UPSTREAM_TIMEOUT: seconds
the upstream may take to answer (default 30; the bench's 100,000-queue
reads take longer). With FAULTPROXY_BODIES set (a
folder) it also keeps each request's body there as N.json (1, 2, ...: the
order the requests came in). Runs until killed.
"""
import http.client
import http.server
import os
import re
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse

MODE, UPSTREAM, PORTFILE, LOGFILE = sys.argv[1:5]
UP = urllib.parse.urlparse(UPSTREAM)
LOCK = threading.Lock()
SEEN = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        self.handle_one(b"")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.handle_one(self.rfile.read(n))

    def forward(self, body):
        conn = http.client.HTTPConnection(
            UP.hostname, UP.port,
            timeout=float(os.environ.get("FAULTPROXY_UPSTREAM_TIMEOUT", "30")))
        hdrs = {k: v for k, v in self.headers.items()
                if k.lower() in ("authorization", "origin", "content-type")}
        conn.request(self.command, self.path, body=body, headers=hdrs)
        r = conn.getresponse()
        data = r.read()
        conn.close()
        return r.status, data

    def reply(self, status, data, length=None):
        self.send_response(status)
        self.send_header("Content-Type", "text/plain;charset=utf-8")
        self.send_header("Content-Length",
                         str(len(data) if length is None else length))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def handle_one(self, body):
        global SEEN
        with LOCK:
            with open(LOGFILE, "a") as f:
                f.write("%s %s %d\n" % (self.command, self.path, len(body)))
            if os.environ.get("FAULTPROXY_BODIES"):
                SEEN += 1
                with open(os.path.join(os.environ["FAULTPROXY_BODIES"],
                                       "%d.json" % SEEN), "wb") as f:
                    f.write(body)
        if MODE == "pass":
            status, data = self.forward(body)
            self.reply(status, data)
        elif MODE == "stall":
            time.sleep(3600)
        elif MODE == "garbage":
            self.reply(200, b"<html>this is not JSON</html>")
        elif MODE == "truncate":
            status, data = self.forward(body)
            self.reply(status, data[: len(data) // 2], length=len(data))
            self.close_connection = True
            self.connection.close()
        elif MODE == "drop":
            self.close_connection = True
            self.connection.close()
        elif MODE == "big":
            chunk = b" " * (1 << 20)
            self.send_response(200)
            self.send_header("Content-Length", str(40 << 20))
            self.end_headers()
            try:
                for _ in range(40):
                    self.wfile.write(chunk)
            except OSError:
                pass
        elif MODE.startswith("delay:"):
            time.sleep(int(MODE[6:]) / 1000.0)
            status, data = self.forward(body)
            try:
                self.reply(status, data)
            except OSError:
                pass  # the client gave up waiting
        elif MODE.startswith("late:"):
            ms, _, only = MODE[5:].partition(":")
            status, data = self.forward(body)
            if only in self.path:
                time.sleep(int(ms) / 1000.0)
            try:
                self.reply(status, data)
            except OSError:
                pass  # the client gave up waiting
        elif MODE.startswith("status:"):
            self.reply(int(MODE[7:]), b"")
        elif MODE.startswith("sub/"):
            _, pat, to = MODE.split("/", 2)
            status, data = self.forward(body)
            self.reply(status, re.sub(pat.encode(), to.encode(), data))
        else:
            self.reply(500, b"faultproxy: unknown mode")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server((os.environ.get("FAULTPROXY_BIND", "127.0.0.1"),
                  int(os.environ.get("FAULTPROXY_PORT", "0"))), Handler)
    cert = os.environ.get("FAULTPROXY_TLS_CERT")
    if cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, os.environ["FAULTPROXY_TLS_KEY"])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(PORTFILE + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(PORTFILE + ".tmp", PORTFILE)
    srv.serve_forever()


if __name__ == "__main__":
    main()
