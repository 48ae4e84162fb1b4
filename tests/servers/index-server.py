#!/usr/bin/env python3
"""index-server.py — a simple index on loopback that misbehaves on request, for the tests of `plan`.

usage: index-server.py PORT_FILE [--latency SECONDS] [--log FILE]

Binds 127.0.0.1 on a free port, writes the port to PORT_FILE, and serves
/simple/NAME/ (also as a proxy: a request for http://HOST/simple/NAME/ is
served the same).  Most names get an empty PEP 691 page; these misbehave:

  flaky          500 on the first request, then the page
  throttled      429 with Retry-After: 1 on the first request, then the page
  throttled-date 429 with Retry-After: a date 2 s ahead on the first request, then the page
  patient        429 with Retry-After: 3600, always
  unavailable    503, always
  stalled        no answer for 60 s
  truncated      a Content-Length of 2000 and 100 bytes, then the connection closes
  huge           a 50 MB page (with a Content-Length)
  huge-chunked   a 50 MB page in chunks, without a Content-Length
  malformed      JSON that stops in the middle
  nolinks        an HTML page without links
  loop           a redirect to itself
  plain          text/plain
  good           a page listing good-1.0.0.tar.gz
  escapes        a page listing a wheel of 1.0.0 whose name holds a terminal escape sequence
  hostile        a page listing wheels of 1.0.0 whose names hold C1 controls (CSI, OSC) and bidi controls
  hostile-html   a PEP 503 page whose anchor texts hold a raw 0x9b byte (8-bit CSI), and OSC, ST and RLO in UTF-8
  creds-redirect a redirect to /simple/creds-json/ on this server with a user name and password in its URL
  creds-redirect-ftp   a redirect to an ftp:// URL with a user name and password
  creds-redirect-bad   a redirect to a URL with a user name and password that cannot be read (a bad port)
  creds-auth     401 unless the request's Basic credentials are user SECRET-we@ird, password
                 SECRET-p:ss/w@rd% ?#; then a PEP 691 page listing creds_auth-1.0.0.tar.gz
  creds-json     a PEP 691 page of creds-json 1.0.0 whose file URLs hold a user name and password
  creds-html     a PEP 503 page of creds-html 1.0.0 whose hrefs hold a user name and password, one
                 link without text (its name is the href's last part)

The user names and passwords on these pages start with SECRET- so that a test finds them.

The log has a line per request: seconds since start, the path, the Accept header.
"""
import argparse
import base64
import email.utils
import http.server
import json
import socket
import threading
import time
import urllib.parse

JSON = "application/vnd.pypi.simple.v1+json"
counts = {}
lock = threading.Lock()
start = time.monotonic()


def page(files):
    return json.dumps({"meta": {"api-version": "1.1"}, "name": "x", "files": files}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    latency = 0.0
    log = None

    def setup(self):
        super().setup()
        # headers and body go out in separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK hold the body back 40 ms
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", ctype=JSON, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        parts = [p for p in path.split("/") if p]
        name = parts[1] if len(parts) == 2 and parts[0] == "simple" else ""
        with lock:
            counts[name] = counts.get(name, 0) + 1
            n = counts[name]
            if self.log:
                with open(self.log, "a") as f:
                    f.write("%.3f %s %s\n" % (time.monotonic() - start, self.path, self.headers.get("Accept", "")))
        if self.latency:
            time.sleep(self.latency)
        if name == "flaky" and n == 1:
            return self.send(500, b"try again", "text/plain")
        if name == "throttled" and n == 1:
            return self.send(429, b"slow down", "text/plain", [("Retry-After", "1")])
        if name == "throttled-date" and n == 1:
            when = email.utils.formatdate(time.time() + 2, usegmt=True)
            return self.send(429, b"slow down", "text/plain", [("Retry-After", when)])
        if name == "patient":
            return self.send(429, b"slow down", "text/plain", [("Retry-After", "3600")])
        if name == "unavailable":
            return self.send(503, b"down", "text/plain")
        if name == "stalled":
            time.sleep(60)
            return
        if name == "truncated":
            self.send_response(200)
            self.send_header("Content-Type", JSON)
            self.send_header("Content-Length", "2000")
            self.end_headers()
            self.wfile.write(b" " * 100)
            self.wfile.flush()
            self.close_connection = True
            return
        if name in ("huge", "huge-chunked"):
            self.send_response(200)
            self.send_header("Content-Type", JSON)
            chunk = b" " * (1 << 20)
            if name == "huge":
                self.send_header("Content-Length", str(50 * len(chunk)))
            else:
                self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                for _ in range(50):
                    if name == "huge":
                        self.wfile.write(chunk)
                    else:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                if name == "huge-chunked":
                    self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            self.close_connection = True
            return
        if name == "malformed":
            return self.send(200, b'{"meta": {"api-version": "1.1"}, "files": [{"filename": "x-1.0.tar.gz"')
        if name == "nolinks":
            return self.send(200, b"<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>", "text/html")
        if name == "loop":
            return self.send(302, b"", "text/plain", [("Location", path)])
        if name == "plain":
            return self.send(200, b"hello", "text/plain")
        if name == "good":
            return self.send(200, page([{"filename": "good-1.0.0.tar.gz", "url": "good-1.0.0.tar.gz",
                                         "hashes": {}}]))
        if name == "escapes":
            return self.send(200, page([{"filename": "escapes-1.0.0-cp312-cp312-\u001b[2Jlinux.whl",
                                         "url": "x.whl", "hashes": {}}]))
        if name == "hostile":
            names = ["hostile-1.0.0-cp312-cp312-\u009b2J\u009b31mlinux.whl",
                     "hostile-1.0.0-cp312-cp312-\u009d0;owned\u009clinux.whl",
                     "hostile-1.0.0-cp312-cp312-\u202egpj.exe\u202c\u2066x\u2069\u200e\u200f\u061c\u202a\u202b\u202d.whl",
                     "hostile-1.0.0.tar.gz"]
            return self.send(200, page([{"filename": f, "url": "f", "hashes": {}} for f in names]))
        if name == "hostile-html":
            body = (b'<!DOCTYPE html><html><body>'
                    b'<a href="a.whl">hostile_html-1.0.0-cp312-cp312-\x9b2Jlinux.whl</a>'
                    b'<a href="b.whl">hostile_html-1.0.0-cp312-cp312-\xc2\x9d0;x\xc2\x9c\xe2\x80\xaelinux.whl</a>'
                    b'</body></html>')
            return self.send(200, body, "text/html")
        if name.startswith("creds-"):
            return self.creds(name)
        if name:
            return self.send(200, page([]))
        return self.send(404, b"not found", "text/plain")

    def creds(self, name):
        here = "127.0.0.1:%d" % self.server.server_address[1]
        auth = "SECRET-user%40x:SECRET-pass:w%2Fd"
        if name == "creds-redirect":
            return self.send(302, b"", "text/plain", [("Location", "http://%s@%s/simple/creds-json/" % (auth, here))])
        if name == "creds-redirect-ftp":
            return self.send(302, b"", "text/plain", [("Location", "ftp://%s@%s/simple/x/" % (auth, here))])
        if name == "creds-redirect-bad":
            return self.send(302, b"", "text/plain", [("Location", "http://%s@127.0.0.1:99999999/x/" % auth)])
        if name == "creds-auth":
            given = self.headers.get("Authorization", "")
            want = "Basic " + base64.b64encode("SECRET-we@ird:SECRET-p:ss/w@rd% ?#".encode()).decode()
            if given != want:
                return self.send(401, b"who are you?", "text/plain", [("WWW-Authenticate", 'Basic realm="index"')])
            return self.send(200, page([{"filename": "creds_auth-1.0.0.tar.gz", "url": "x", "hashes": {}}]))
        if name == "creds-json":
            files = ["creds_json-1.0.0.tar.gz", "creds_json-1.0.0-cp312-cp312-win_amd64.whl"]
            return self.send(200, page([{"filename": f, "url": "http://%s@%s/files/%s" % (auth, here, f),
                                         "hashes": {}} for f in files]))
        if name == "creds-html":
            body = ('<!DOCTYPE html><html><body>'
                    '<a href="http://{a}@{h}/files/creds_html-1.0.0.tar.gz#sha256=00">creds_html-1.0.0.tar.gz</a>'
                    '<a href="http://{a}@{h}/files/creds_html-1.0.0-cp312-cp312-win_amd64.whl"></a>'
                    '<a href="http://{a}@{h}"></a>'
                    '</body></html>').format(a=auth, h=here)
            return self.send(200, body.encode(), "text/html")
        return self.send(404, b"not found", "text/plain")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port_file")
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--log")
    args = ap.parse_args()
    Handler.latency = args.latency
    Handler.log = args.log
    # a backlog of 5 (the default) drops the SYNs of a burst of connections: the client retries after a second
    http.server.ThreadingHTTPServer.request_queue_size = 128
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % server.server_address[1])
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
