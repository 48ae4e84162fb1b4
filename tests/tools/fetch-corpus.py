#!/usr/bin/env python3
"""fetch-corpus.py — fetches the sdists pinned in corpus.txt and extracts the files the tests read.

usage: tests/tools/fetch-corpus.py CORPUS.TXT DEST

For each line "NAME VERSION SHA256 PATH...": the release's files are looked up in the package
index's JSON simple API (PEP 691; PIP_INDEX_URL, or PyPI's), the sdist NAME-VERSION.tar.gz is
downloaded, its sha256 must be the pinned one, and each PATH (relative to the sdist's top
directory) is extracted to DEST/NAME-VERSION/PATH.  Nothing else of the archive is written; a
single PATH "-" keeps the archive itself instead, as DEST/FILENAME (install-takeover-build.sh).
Exits 1 with the reason on the first problem.  install-testdata.sh runs it.
"""
import hashlib
import io
import json
import os
import re
import sys
import tarfile
import urllib.parse
import urllib.request

INDEX = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/").rstrip("/") + "/"


def die(msg):
    print(f"fetch-corpus: {msg}", file=sys.stderr)
    sys.exit(1)


def normal(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(path):
    pins = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) < 4 or not re.fullmatch(r"[0-9a-f]{64}", line[2]):
                die(f"{path}:{n}: want NAME VERSION SHA256 PATH...")
            pins.append((line[0], line[1], line[2], line[3:]))
    return pins


def sdist_url(name, version):
    url = urllib.parse.urljoin(INDEX, normal(name) + "/")
    req = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            page = json.load(resp)
    except (OSError, ValueError) as e:
        die(f"{url}: {e}")
    # an sdist's file name: the normalised name with '_' for '-' (PEP 625), or as older tools wrote it
    want = {f"{normal(name).replace('-', '_')}-{version}.tar.gz", f"{name}-{version}.tar.gz"}
    for f in page.get("files", []):
        if f.get("filename") in want:
            return urllib.parse.urljoin(url, f["url"]), f["filename"]
    die(f"{url}: no sdist of {name} {version} (looked for {' or '.join(sorted(want))})")


def main():
    if len(sys.argv) != 3:
        die("usage: fetch-corpus.py CORPUS.TXT DEST")
    pins, dest = read_pins(sys.argv[1]), sys.argv[2]
    for name, version, sha256, paths in pins:
        url, filename = sdist_url(name, version)
        try:
            with urllib.request.urlopen(url, timeout=300) as resp:
                data = resp.read()
        except OSError as e:
            die(f"{url}: {e}")
        got = hashlib.sha256(data).hexdigest()
        if got != sha256:
            die(f"{filename}: sha256 {got}, but corpus.txt pins {sha256}")
        if paths == ["-"]:
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(dest, filename), "wb") as f:
                f.write(data)
            print(f"fetch-corpus: {name} {version}: {filename}")
            continue
        top = filename[: -len(".tar.gz")]
        out = os.path.join(dest, f"{name}-{version}")
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for path in paths:
                if path.startswith("/") or ".." in path.split("/"):
                    die(f"{name} {version}: {path}: not a path inside the sdist")
                try:
                    member = tar.getmember(f"{top}/{path}")
                except KeyError:
                    die(f"{filename} has no {top}/{path}")
                if not member.isfile():
                    die(f"{filename}: {top}/{path} is not a regular file")
                target = os.path.join(out, path)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(tar.extractfile(member).read())
        print(f"fetch-corpus: {name} {version}: {len(paths)} files")


main()
