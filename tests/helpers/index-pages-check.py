"""index-pages-check.py — reads a served simple index of one project as pip reads it, and checks it.

usage: index-pages-check.py BASE PROJECT REQUIRES-PYTHON FILE...

BASE is an index served with PEP 691 content negotiation under BASE/simple/... and as HTML only
under BASE/html/... (tests/kit/plan-servers.sh's nginx), followed by the backend: for
http://127.0.0.1:P/ and cuda, BASE is http://127.0.0.1:P/simple/cuda/ (the HTML pages are found
by replacing /simple/ with /html/).  FILE... are the file names the project's page must list,
exactly; a NAME-VERSION-variants.json among them (strategy variants) is listed without
requires-python.  Checked: the root pages (JSON and HTML) list PROJECT; the project's JSON page
(api-version 1.1, PEP 700's versions and sizes) and HTML page (PEP 503 anchors with
#sha256=, data-requires-python, PEP 629's repository version) list the same files, sorted by
name; every file URL, resolved against its page, serves bytes whose sha256 and size are the
page's.  A failed check prints what was found and exits 1.
"""
import hashlib
import html.parser
import json
import re
import sys
import urllib.parse
import urllib.request

JSON = "application/vnd.pypi.simple.v1+json"
problems = []


def get(url, accept="*/*"):
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept}), timeout=30) as r:
        return r.headers.get("Content-Type", ""), r.read()


class Anchors(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.anchors, self.meta, self._open = [], {}, None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._open = [dict(attrs), ""]
        elif tag == "meta":
            a = dict(attrs)
            self.meta[a.get("name")] = a.get("content")

    def handle_data(self, data):
        if self._open:
            self._open[1] += data

    def handle_endtag(self, tag):
        if tag == "a" and self._open:
            self.anchors.append(tuple(self._open))
            self._open = None


def anchors(url):
    ctype, body = get(url, "text/html")
    if not ctype.startswith("text/html"):
        problems.append("%s: Content-Type %s, not text/html" % (url, ctype))
    p = Anchors()
    p.feed(body.decode("utf-8"))
    if p.meta.get("pypi:repository-version") != "1.1":
        problems.append("%s: pypi:repository-version %r" % (url, p.meta.get("pypi:repository-version")))
    return p.anchors


def json_page(url):
    ctype, body = get(url, JSON)
    if ctype != JSON:
        problems.append("%s: Content-Type %s, not %s" % (url, ctype, JSON))
    doc = json.loads(body)
    if doc.get("meta") != {"api-version": "1.1"}:
        problems.append("%s: meta %r" % (url, doc.get("meta")))
    return doc


def main(base, project, requires, files):
    html_base = base.replace("/simple/", "/html/", 1)
    name = re.sub(r"[-_.]+", "-", project).lower()
    root = json_page(base)
    if root.get("projects") != [{"name": name}]:
        problems.append("%s: projects %r" % (base, root.get("projects")))
    if anchors(html_base) != [({"href": name + "/"}, name)]:
        problems.append("%s: links %r" % (html_base, anchors(html_base)))

    page = base + name + "/"
    doc = json_page(page)
    if doc.get("name") != name:
        problems.append("%s: name %r" % (page, doc.get("name")))
    got = [f.get("filename") for f in doc.get("files", [])]
    if got != sorted(files):
        problems.append("%s: files %r, not %r" % (page, got, sorted(files)))
    versions = set()
    for f in doc.get("files", []):
        label = "%s: %s" % (page, f.get("filename"))
        if set(f) - {"filename", "url", "hashes", "requires-python", "size", "upload-time", "yanked"}:
            problems.append("%s: unknown keys %r" % (label, sorted(f)))
        if not isinstance(f.get("hashes"), dict) or not re.fullmatch(r"[0-9a-f]{64}", f["hashes"].get("sha256", "")):
            problems.append("%s: hashes %r" % (label, f.get("hashes")))
            continue
        variants_json = f["filename"].endswith("-variants.json")
        if f.get("requires-python") != (None if variants_json else requires):
            problems.append("%s: requires-python %r, not %r" % (label, f.get("requires-python"), requires))
        _, data = get(urllib.parse.urljoin(page, f["url"]))
        if hashlib.sha256(data).hexdigest() != f["hashes"]["sha256"]:
            problems.append("%s: the file at %s does not have the page's sha256" % (label, f["url"]))
        if f.get("size") != len(data):
            problems.append("%s: size %r, the file has %d bytes" % (label, f.get("size"), len(data)))
        if variants_json:
            versions.add(f["filename"][:-len("-variants.json")].rpartition("-")[2])
            continue
        stem = f["filename"][:-4] if f["filename"].endswith(".whl") else f["filename"].rsplit(".tar.gz", 1)[0]
        versions.add(stem.split("-")[1] if f["filename"].endswith(".whl") else stem.rpartition("-")[2])
    if doc.get("versions") != sorted(versions):
        problems.append("%s: versions %r, not %r" % (page, doc.get("versions"), sorted(versions)))

    # the HTML page: the same files, as pip reads PEP 503
    want = [(urllib.parse.urljoin(page, f["url"]) + "#sha256=" + f["hashes"]["sha256"], f.get("requires-python"), f["filename"])
            for f in doc.get("files", []) if isinstance(f.get("hashes"), dict)]
    html_page = html_base + name + "/"
    got = [(urllib.parse.urljoin(page, a.get("href", "")), a.get("data-requires-python"), text) for a, text in anchors(html_page)]
    if got != want:
        problems.append("%s: anchors\n    %s\nnot\n    %s" % (html_page, "\n    ".join(map(str, got)), "\n    ".join(map(str, want))))


main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
print("\n".join(problems))
sys.exit(bool(problems))
