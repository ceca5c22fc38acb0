#!/usr/bin/env python3
"""tests/tools/githttp.py: a smart-HTTP git server over TLS for the tests:
`git http-backend` run as CGI behind HTTP Basic authentication.

  githttp.py ROOT CERT KEY TOKENFILE PORTFILE LOGFILE

Serves the repositories under ROOT (GIT_PROJECT_ROOT, every one exported)
over HTTPS on 127.0.0.1, on a free port written to PORTFILE once it
listens. CERT and KEY are the server's PEM certificate (chain) and key.
Every request must carry Basic credentials whose password equals the first
line of TOKENFILE (read per request, so a test can change it); any user
name is accepted. Otherwise the answer is 401 with a Basic challenge.
LOGFILE gets one line per request: `<method> <path> <status> auth=<none|
refused|ok>`; never the credentials themselves. Runs until killed.
"""
import base64
import gzip
import http.server
import os
import ssl
import subprocess
import sys

ROOT, CERT, KEY, TOKENFILE, PORTFILE, LOGFILE = sys.argv[1:7]


def log(line):
    with open(LOGFILE, "a") as f:
        f.write(line + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, headers, body):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding", "").lower() == "gzip":
            body = gzip.decompress(body)
        return body

    def check_auth(self):
        """'ok', 'refused' or 'none', and the user name."""
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Basic "):
            return "none", ""
        try:
            user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
        except ValueError:
            return "refused", ""
        with open(TOKENFILE) as f:
            token = f.readline().strip()
        return ("ok" if token and password == token else "refused"), user

    def handle_git(self):
        body = self.read_body()
        state, user = self.check_auth()
        path, _, query = self.path.partition("?")
        if state != "ok":
            log(f"{self.command} {path} 401 auth={state}")
            self.reply(401, [("WWW-Authenticate", 'Basic realm="git"'),
                             ("Content-Type", "text/plain")], b"authentication required\n")
            return
        env = dict(os.environ, GIT_PROJECT_ROOT=ROOT, GIT_HTTP_EXPORT_ALL="1",
                   PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD=self.command,
                   CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(body)), REMOTE_USER=user,
                   REMOTE_ADDR=self.client_address[0],
                   GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        p = subprocess.run(["git", "http-backend"], input=body, env=env,
                           capture_output=True, check=False)
        out = p.stdout
        ends = [(i, n) for i, n in ((out.find(b"\r\n\r\n"), 4),
                                    (out.find(b"\n\n"), 2)) if i >= 0]
        sep, hlen = min(ends) if ends else (len(out), 0)
        head, payload = out[:sep].decode(), out[sep + hlen:]
        code, headers = 200, []
        for line in head.splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                code = int(v.split()[0])
            elif k:
                headers.append((k, v.strip()))
        log(f"{self.command} {path} {code} auth=ok")
        self.reply(code, headers, payload)

    do_GET = handle_git
    do_POST = handle_git


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    with open(PORTFILE + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(PORTFILE + ".tmp", PORTFILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
