#!/usr/bin/env python3
"""tests/tools/webhook-receiver.py: a webhook receiver of the tests' own
(docs/notifications.md, "Receiving"), written from the documentation and not
from the agent's code: it checks every delivery the way a receiver should
and records what it saw.

  webhook-receiver.py SECRETFILE PORTFILE LOG MODEFILE

Listens on 127.0.0.1 (a free port, or RECEIVER_PORT), writes the port to
PORTFILE, and appends one JSON line per POST to LOG:
  {"path", "event", "delivery", "cluster", "title", "format" (json, slack),
   "sig_ok", "stamp_ok", "replay", "mode"}
sig_ok: X-Artemis-Gitops-Signature is sha256=HMAC-SHA256(secret, the exact
body bytes), compared in constant time; stamp_ok: the body's delivery id and
timestamp are the headers' (so the signature covers them) and the
timestamp is within 300 s of now; replay: this delivery id was answered 2xx
before. MODEFILE's first word, read per request, says how to answer: ok
(200), fail (500), reject (400), hang (never answer). A missing file: ok.
"""
import hashlib
import hmac
import http.server
import json
import os
import socketserver
import sys
import threading
import time

SECRET_FILE, PORTFILE, LOG, MODEFILE = sys.argv[1:5]
SECRET = open(SECRET_FILE, "rb").read().split(b"\n")[0]
LOCK = threading.Lock()
ANSWERED = set()


def mode():
    try:
        with open(MODEFILE) as f:
            return (f.read().split() or ["ok"])[0]
    except OSError:
        return "ok"


def check(headers, body):
    rec = {"sig_ok": False, "stamp_ok": False}
    want = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
    rec["sig_ok"] = hmac.compare_digest(want, headers.get(
        "X-Artemis-Gitops-Signature", ""))
    delivery = headers.get("X-Artemis-Gitops-Delivery", "")
    stamp = headers.get("X-Artemis-Gitops-Timestamp", "")
    rec["delivery"] = delivery
    rec["event"] = headers.get("X-Artemis-Gitops-Event")
    doc = json.loads(body)
    if "attachments" in doc:
        att = doc["attachments"][0]
        rec["format"] = "slack"
        rec["title"] = att.get("title")
        in_body = ("delivery " + delivery in att.get("footer", "")
                   and str(att.get("ts")) == stamp)
    else:
        rec["format"] = "json"
        rec["title"] = doc.get("title")
        rec["cluster"] = doc.get("cluster")
        rec["data"] = doc.get("data")
        in_body = (doc.get("delivery") == delivery
                   and str(doc.get("timestamp")) == stamp
                   and doc.get("event") == rec["event"]
                   and doc.get("format") == "artemis-gitops/notification"
                   and doc.get("version") == 1)
    rec["stamp_ok"] = bool(in_body and stamp.isdigit()
                           and abs(time.time() - int(stamp)) < 300)
    return rec


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        m = mode()
        try:
            rec = check(self.headers, body)
        except (ValueError, KeyError, IndexError) as e:
            rec = {"sig_ok": False, "stamp_ok": False, "error": str(e)}
        rec["path"] = self.path
        rec["mode"] = m
        with LOCK:
            rec["replay"] = rec.get("delivery") in ANSWERED
            if m == "ok":
                ANSWERED.add(rec.get("delivery"))
            with open(LOG, "a") as f:
                f.write(json.dumps(rec, sort_keys=True) + "\n")
        if m == "hang":
            time.sleep(3600)
            return
        code = {"ok": 200, "fail": 500, "reject": 400}.get(m, 500)
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", int(os.environ.get("RECEIVER_PORT", "0"))),
                 Handler)
    with open(PORTFILE + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(PORTFILE + ".tmp", PORTFILE)
    srv.serve_forever()


if __name__ == "__main__":
    main()
