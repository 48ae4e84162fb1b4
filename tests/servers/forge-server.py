#!/usr/bin/env python3
"""forge-server.py — a forge on loopback: git's own smart-HTTP server for real repositories, and faults.

usage: forge-server.py PORT_FILE --root DIR [--index FILE] [--files DIR] [--delay SECONDS] [--hold FILE] [--log FILE]

Binds 127.0.0.1 on a free port, writes the port to PORT_FILE, and answers
GET /OWNER/NAME.git/info/refs?service=git-upload-pack.  For every owner but
`fault`, the answer is git http-backend's (git's smart-HTTP CGI program, run
once per request with GIT_PROJECT_ROOT=DIR and every repository exported):
its status, headers and body as it writes them, a 404 for a repository DIR
does not have.  Under fault/, these misbehave:

  html           200 text/html: a web page, not a git service
  dumb           200 text/plain: the ref list of a dumb HTTP server ("<oid>\\t<ref>")
  no-service     the right Content-Type, the refs without the '# service=' header
  truncated      the right Content-Type, the body cut inside a pkt-line
  oversized      a pkt-line of 65535 bytes (over git's 65520)
  many           200,001 refs (over the cap of 200,000)
  hostile        tags whose names hold C0 and C1 controls, '..', a bidi override; and v9.9.9, fine
  unavailable    503, always
  flaky          503 on the first request, then hostile's refs
  moved          a 301 to /real/moved.git/info/refs?service=git-upload-pack (a renamed repository)
  loop           a 302 to itself

GET /OWNER/NAME/raw/REF/PATH answers the file PATH of the repository at REF (`git show REF:PATH`),
as GitHub's own /raw/ URLs do (there after a redirect to raw.githubusercontent.com), 404 when the
repository, the ref or the file is not there.

With --index, it is also a simple index: GET /simple/NAME/ answers the PEP 691 JSON page (api-version
1.1, with PEP 700's `versions`) of each project FILE (JSON: {"NAME": ["1.0.0", ...]}) lists, 404
for the others, and for a project listed with null (and for /simple/no-versions/) a page of
api-version 1.0, without `versions`; for a project listed with a string, the file it names,
byte for byte (a page as PyPI served it).

With --files, GET /files/PATH answers the file DIR/PATH (JSON as application/json, anything else
as text/plain), 404 when there is none: crates.io's sparse index laid out as files, a release
cycle's JSON.

--delay holds every answer that long first (bench/outdated.sh's slow network).  --hold FILE
holds every answer for as long as FILE exists, as a slow network would, after the
request is logged: a test sees its client waiting on the network (the log's line), does what it
tests meanwhile, then removes FILE.  The log has a line per request: the path, and
" authorization" when the request carried an Authorization header.
"""
import argparse
import http.server
import json
import os
import socket
import subprocess
import threading
import time

CT = "application/x-git-upload-pack-advertisement"
OID = "a" * 40
counts = {}
lock = threading.Lock()


def pkt(s):
    b = s.encode("utf-8", "surrogateescape") if isinstance(s, str) else s
    return b"%04x" % (len(b) + 4) + b


def advert(lines):
    return pkt("# service=git-upload-pack\n") + b"0000" + b"".join(pkt(l) for l in lines) + b"0000"


HOSTILE = [
    OID + " refs/heads/main\0side-band\n",
    OID + " refs/tags/v1\x1b[31mred\n",
    OID + " refs/tags/v1\u009b2J\n",
    OID + " refs/tags/v1..2\n",
    OID + " refs/tags/v1\u202e2\n",
    OID + " refs/tags/v9.9.9\n",
]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = None
    index = {}
    files = None
    delay = 0.0
    hold = None
    log = None

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", ctype=CT, headers=()):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def backend(self, path, query):
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": self.root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "REMOTE_ADDR": "127.0.0.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "GATEWAY_INTERFACE": "CGI/1.1",
        }
        out = subprocess.run(["git", "http-backend"], env=env, stdin=subprocess.DEVNULL, capture_output=True).stdout
        head, _, body = out.partition(b"\r\n\r\n")
        if not _:
            head, _, body = out.partition(b"\n\n")
        status, headers, ctype = 200, [], None
        for line in head.decode("latin-1").splitlines():
            k, _, v = line.partition(":")
            v = v.strip()
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k.lower() == "content-type":
                ctype = v
            elif k.lower() not in ("content-length",):
                headers.append((k, v))
        self.send(status, body, ctype, headers)

    def fault(self, name, path, query):
        with lock:
            counts[name] = counts.get(name, 0) + 1
            n = counts[name]
        if name == "html":
            return self.send(200, b"<!DOCTYPE html><html><body>Sign in</body></html>", "text/html; charset=utf-8")
        if name == "dumb":
            return self.send(200, (OID + "\trefs/tags/v1\n").encode(), "text/plain")
        if name == "no-service":
            return self.send(200, pkt(OID + " refs/tags/v1\n") + b"0000")
        if name == "truncated":
            return self.send(200, advert([OID + " refs/tags/v1\n", OID + " refs/tags/v2\n"])[:-20])
        if name == "oversized":
            return self.send(200, pkt("# service=git-upload-pack\n") + b"0000" + b"ffff" + b"x" * 65531 + b"0000")
        if name == "many":
            return self.send(200, advert(["%s refs/tags/v1.%d.0\n" % (OID, i) for i in range(200001)]))
        if name == "hostile" or (name == "flaky" and n > 1):
            return self.send(200, advert(HOSTILE))
        if name in ("unavailable", "flaky"):
            return self.send(503, b"unavailable\n", "text/plain")
        if name == "moved":
            return self.send(301, b"", None, [("Location", "/real/moved.git/info/refs?" + query)])
        if name == "loop":
            return self.send(302, b"", None, [("Location", path + "?" + query)])
        return self.send(404, b"no such fault\n", "text/plain")

    def project(self, name):
        ctype = "application/vnd.pypi.simple.v1+json"
        if name == "no-versions":
            return self.send(200, json.dumps({"meta": {"api-version": "1.0"}, "name": name, "files": []}).encode(), ctype)
        if name not in self.index:
            return self.send(404, b"not found\n", "text/plain")
        if self.index[name] is None:
            return self.send(200, json.dumps({"meta": {"api-version": "1.0"}, "name": name, "files": []}).encode(), ctype)
        if isinstance(self.index[name], str):
            with open(self.index[name], "rb") as f:
                return self.send(200, f.read(), ctype)
        page = {"meta": {"api-version": "1.1"}, "name": name, "files": [], "versions": self.index[name]}
        return self.send(200, json.dumps(page).encode(), ctype)

    def raw(self, owner, name, rest):
        git_dir = os.path.join(self.root, owner, name + ".git")
        parts = rest.split("/")
        if not os.path.isdir(git_dir):
            return self.send(404, b"not found\n", "text/plain")
        # a ref may hold slashes (release/v1): the longest ref the repository has, as GitHub takes it
        for i in range(len(parts) - 1, 0, -1):
            ref, path = "/".join(parts[:i]), "/".join(parts[i:])
            if subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "-q", "--verify", ref + "^{commit}"],
                              stdin=subprocess.DEVNULL, capture_output=True).returncode:
                continue
            out = subprocess.run(["git", "--git-dir", git_dir, "show", "%s:%s" % (ref, path)], stdin=subprocess.DEVNULL,
                                 capture_output=True)
            if out.returncode:
                break
            return self.send(200, out.stdout, "text/plain; charset=utf-8")
        return self.send(404, b"not found\n", "text/plain")

    def file(self, rel):
        path = os.path.realpath(os.path.join(self.files, rel))
        if not self.files or not path.startswith(os.path.realpath(self.files) + os.sep) or not os.path.isfile(path):
            return self.send(404, b"not found\n", "text/plain")
        with open(path, "rb") as f:
            return self.send(200, f.read(), "application/json" if path.endswith(".json") else "text/plain")

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if self.log:
            with lock, open(self.log, "a") as f:
                f.write(path + (" authorization" if self.headers.get("Authorization") else "") + "\n")
        if self.delay:
            time.sleep(self.delay)
        while self.hold and os.path.exists(self.hold):
            time.sleep(0.02)
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == "simple" and parts[3] == "":
            return self.project(parts[2])
        if len(parts) == 5 and parts[1] == "fault" and parts[2].endswith(".git") and parts[3:] == ["info", "refs"]:
            return self.fault(parts[2][:-4], path, query)
        if len(parts) >= 6 and parts[3] == "raw":
            return self.raw(parts[1], parts[2], "/".join(parts[4:]))
        if len(parts) >= 3 and parts[1] == "files":
            return self.file("/".join(parts[2:]))
        return self.backend(path, query)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port_file")
    ap.add_argument("--root", required=True)
    ap.add_argument("--index")
    ap.add_argument("--files")
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--hold")
    ap.add_argument("--log")
    args = ap.parse_args()
    Handler.root = os.path.abspath(args.root)
    Handler.delay = args.delay
    Handler.hold = args.hold
    Handler.files = os.path.abspath(args.files) if args.files else None
    if args.index:
        with open(args.index, encoding="utf-8") as f:
            Handler.index = json.load(f)
    Handler.log = args.log
    http.server.ThreadingHTTPServer.request_queue_size = 128
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
