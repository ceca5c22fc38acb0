#!/usr/bin/env python3
"""tests/tools/prapi.py PORT_FILE LOG_FILE ARTIFACTS: a local stand-in
for the parts of GitHub's and GitLab's REST APIs that examples/ci/ uses,
for tests/integration/97-ci-examples.sh. It keeps comments in memory,
records every request (one JSON line each in LOG_FILE: method, path, query,
status, the token it was given or not, the body of a write) and answers as
the real APIs document:

GitHub, under /github (GITHUB_API_URL), token "Authorization: Bearer
gh-token" (user github-actions[bot]):
  GET    /repos/O/R/issues/N/comments?per_page=&page=   (Link rel="next")
  POST   /repos/O/R/issues/N/comments        {"body"}   201
  PATCH  /repos/O/R/issues/comments/ID       {"body"}   200 (403 if not
                                                        the token's user's)
  DELETE /repos/O/R/issues/comments/ID                  204
  GET    /repos/O/R/actions/artifacts?name=NAME         the newest first
  GET    /repos/O/R/actions/artifacts/ID/zip            302 to /blob/ID
  A body over 65536 characters: 422 "body is too long (maximum is 65536
  characters)".
GitLab, under /gitlab/api/v4 (CI_API_V4_URL), token "PRIVATE-TOKEN:
gl-token" (user project_7_bot):
  GET    /user
  GET    /projects/P/merge_requests/I/notes?per_page=&page=  (X-Next-Page)
  POST   /projects/P/merge_requests/I/notes  {"body"}   201
  PUT    /projects/P/merge_requests/I/notes/ID {"body"} 200 (403 likewise)
  DELETE /projects/P/merge_requests/I/notes/ID          204
  GET    /projects/P/jobs/artifacts/REF/download?job=NAME    the zip
  A body over 1,000,000 characters: 400.
Lists are served 3 to a page whatever per_page asks (both APIs cap
per_page), so that a client that does not follow the pages misses
comments. For the test: GET /_state gives every thread's comments; POST
/_seed {"thread", "author", "body"} adds a comment by someone else.
The artifacts are the folder ARTIFACTS's github.zip and gitlab.zip, when
they exist (the name artemis-gitops-snapshots, the job of that name).
"""
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

PAGE = 3
GH_USER, GL_USER = "github-actions[bot]", "project_7_bot"
GH_TOKEN, GL_TOKEN = "gh-token", "gl-token"

lock = threading.Lock()
threads = {}  # thread key -> list of {id, author, body}
next_id = [1000]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, status, obj=None, headers=None, raw=None):
        data = raw if raw is not None else (
            b"" if obj is None else json.dumps(obj).encode())
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if raw is None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.status = status

    def record(self, body):
        auth = self.headers.get("Authorization") or self.headers.get("PRIVATE-TOKEN")
        rec = {"method": self.command, "path": self.u.path,
               "query": self.u.query, "status": getattr(self, "status", 0),
               "token": auth, "body": body}
        with lock, open(self.server.log, "a") as f:
            f.write(json.dumps(rec) + "\n")

    def handle_any(self):
        self.u = urlsplit(self.path)
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        body = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                self.reply(400, {"message": "Problems parsing JSON"})
                self.record(None)
                return
        try:
            self.route(body)
        finally:
            self.record(body.get("body") if isinstance(body, dict) else None)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_any

    def page(self, items, link_style):
        q = parse_qs(self.u.query)
        p = int(q.get("page", ["1"])[0])
        chunk = items[(p - 1) * PAGE:p * PAGE]
        headers = {}
        if p * PAGE < len(items):
            nq = re.sub(r"(^|&)page=[0-9]+", "", self.u.query).strip("&")
            nxt = "%s?%s%spage=%d" % (self.u.path, nq, "&" if nq else "", p + 1)
            if link_style:
                headers["Link"] = '<http://%s%s>; rel="next", <http://%s%s>; rel="last"' % (
                    self.headers["Host"], nxt, self.headers["Host"], nxt)
            else:
                headers["X-Next-Page"] = str(p + 1)
        return chunk, headers

    def route(self, body):
        path = self.u.path
        if path == "/_state":
            with lock:
                return self.reply(200, threads)
        if path == "/_seed" and self.command == "POST":
            with lock:
                next_id[0] += 1
                threads.setdefault(body["thread"], []).append(
                    {"id": next_id[0], "author": body["author"], "body": body["body"]})
            return self.reply(201, {"id": next_id[0]})
        if path.startswith("/github/"):
            if self.headers.get("Authorization") != "Bearer " + GH_TOKEN:
                return self.reply(401, {"message": "Bad credentials"})
            return self.github(path[len("/github"):], body)
        if path.startswith("/gitlab/api/v4/"):
            if self.headers.get("PRIVATE-TOKEN") != GL_TOKEN:
                return self.reply(401, {"message": "401 Unauthorized"})
            return self.gitlab(path[len("/gitlab/api/v4"):], body)
        if path.startswith("/blob/"):
            return self.artifact("github")
        return self.reply(404, {"message": "Not Found"})

    def artifact(self, which):
        path = os.path.join(self.server.zip, which + ".zip")
        if not os.path.exists(path):
            return self.reply(404, {"message": "Not Found"})
        data = open(path, "rb").read()
        return self.reply(200, raw=data, headers={"Content-Type": "application/zip"})

    def write(self, key, body, limit, cid=None, user=None):
        """POST (cid None) or PATCH/PUT a comment's body; None if refused."""
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            return 400, {"message": "body is missing"}
        if len(body["body"]) > limit:
            return (422 if limit == 65536 else 400), {
                "message": "body is too long (maximum is %d characters)" % limit}
        with lock:
            items = threads.setdefault(key, [])
            if cid is None:
                next_id[0] += 1
                c = {"id": next_id[0], "author": user, "body": body["body"]}
                items.append(c)
                return 201, c
            for c in items:
                if c["id"] == cid:
                    if c["author"] != user:
                        return 403, {"message": "Must have admin rights"}
                    c["body"] = body["body"]
                    return 200, c
        return 404, {"message": "Not Found"}

    def delete(self, key, cid, user):
        with lock:
            items = threads.get(key, [])
            for c in items:
                if c["id"] == cid:
                    if c["author"] != user:
                        return 403
                    items.remove(c)
                    return 204
        return 404

    def github(self, path, body):
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/([0-9]+)/comments", path)
        if m:
            key = "github:%s#%s" % m.groups()
            if self.command == "GET":
                with lock:
                    items = [{"id": c["id"], "body": c["body"], "user": {"login": c["author"]}}
                             for c in threads.get(key, [])]
                chunk, h = self.page(items, True)
                return self.reply(200, chunk, h)
            if self.command == "POST":
                st, c = self.write(key, body, 65536, None, GH_USER)
                return self.reply(st, c)
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/([0-9]+)", path)
        if m:
            key = next((k for k, v in threads.items() if k.startswith("github:%s#" % m.group(1))
                        and any(c["id"] == int(m.group(2)) for c in v)), None)
            if key is None:
                return self.reply(404, {"message": "Not Found"})
            if self.command == "PATCH":
                st, c = self.write(key, body, 65536, int(m.group(2)), GH_USER)
                return self.reply(st, c)
            if self.command == "DELETE":
                return self.reply(self.delete(key, int(m.group(2)), GH_USER))
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/actions/artifacts", path)
        if m and self.command == "GET":
            q = parse_qs(self.u.query)
            arts = []
            if os.path.exists(os.path.join(self.server.zip, "github.zip")) and \
                    q.get("name") == ["artemis-gitops-snapshots"]:
                arts = [{"id": 9, "name": "artemis-gitops-snapshots", "expired": False,
                         "archive_download_url": "http://%s/github/repos/%s/actions/artifacts/9/zip"
                         % (self.headers["Host"], m.group(1))}]
            return self.reply(200, {"total_count": len(arts), "artifacts": arts})
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)/actions/artifacts/([0-9]+)/zip", path)
        if m and self.command == "GET":
            return self.reply(302, headers={"Location": "/blob/%s" % m.group(2)}, raw=b"")
        return self.reply(404, {"message": "Not Found"})

    def gitlab(self, path, body):
        if path == "/user" and self.command == "GET":
            return self.reply(200, {"id": 7, "username": GL_USER})
        m = re.fullmatch(r"/projects/([0-9]+)/merge_requests/([0-9]+)/notes(?:/([0-9]+))?", path)
        if m:
            key = "gitlab:%s!%s" % m.group(1, 2)
            cid = int(m.group(3)) if m.group(3) else None
            if self.command == "GET" and cid is None:
                with lock:
                    items = [{"id": c["id"], "body": c["body"], "system": False,
                              "author": {"username": c["author"]}}
                             for c in threads.get(key, [])]
                chunk, h = self.page(items, False)
                return self.reply(200, chunk, h)
            if self.command == "POST" and cid is None:
                st, c = self.write(key, body, 1000000, None, GL_USER)
                return self.reply(st, c)
            if self.command == "PUT" and cid is not None:
                st, c = self.write(key, body, 1000000, cid, GL_USER)
                return self.reply(st, c)
            if self.command == "DELETE" and cid is not None:
                return self.reply(self.delete(key, cid, GL_USER))
        m = re.fullmatch(r"/projects/([0-9]+)/jobs/artifacts/([^/]+)/download", path)
        if m and self.command == "GET":
            if parse_qs(self.u.query).get("job") != ["artemis-gitops-snapshots"]:
                return self.reply(404, {"message": "404 Not found"})
            return self.artifact("gitlab")
        return self.reply(404, {"message": "404 Not Found"})


def main():
    port_file, log, zipf = sys.argv[1:4]
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.log, srv.zip = log, zipf
    open(log, "w").close()
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
