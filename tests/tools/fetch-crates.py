#!/usr/bin/env python3
"""fetch-crates.py — fetches the crates pinned in crates.txt and extracts the files the tests read.

usage: tests/tools/fetch-crates.py CRATES.TXT DEST

For each line "NAME VERSION SHA256 PATH...": NAME-VERSION.crate is downloaded from crates.io's
download host (CRATES_DOWNLOAD_URL, or https://static.crates.io/crates/, as Cargo's index config
names it: {url}NAME/NAME-VERSION.crate), its sha256 must be the pinned one, and each PATH (relative
to the archive's top directory, NAME-VERSION/) is extracted to DEST/NAME-VERSION/PATH.  Nothing else
of the archive is written.  Exits 1 with the reason on the first problem.  install-crates.sh runs it.
"""
import hashlib
import io
import os
import re
import sys
import tarfile
import urllib.request

DOWNLOAD = os.environ.get("CRATES_DOWNLOAD_URL", "https://static.crates.io/crates/").rstrip("/") + "/"


def die(msg):
    print(f"fetch-crates: {msg}", file=sys.stderr)
    sys.exit(1)


def read_pins(path):
    pins = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if (len(line) < 4 or not re.fullmatch(r"[0-9a-f]{64}", line[2]) or
                    not re.fullmatch(r"[A-Za-z0-9_-]+", line[0]) or not re.fullmatch(r"[0-9A-Za-z.+-]+", line[1])):
                die(f"{path}:{n}: want NAME VERSION SHA256 PATH...")
            pins.append((line[0], line[1], line[2], line[3:]))
    return pins


def main():
    if len(sys.argv) != 3:
        die("usage: fetch-crates.py CRATES.TXT DEST")
    pins, dest = read_pins(sys.argv[1]), sys.argv[2]
    for name, version, sha256, paths in pins:
        top = f"{name}-{version}"
        url = f"{DOWNLOAD}{name}/{top}.crate"
        req = urllib.request.Request(url, headers={"User-Agent": "wheelmatrix-tests"})
        try:
            with urllib.request.urlopen(req, timeout=300) as resp:
                data = resp.read()
        except OSError as e:
            die(f"{url}: {e}")
        got = hashlib.sha256(data).hexdigest()
        if got != sha256:
            die(f"{top}.crate: sha256 {got}, but crates.txt pins {sha256}")
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for path in paths:
                if path.startswith("/") or ".." in path.split("/"):
                    die(f"{top}: {path}: not a path inside the crate")
                try:
                    member = tar.getmember(f"{top}/{path}")
                except KeyError:
                    die(f"{top}.crate has no {top}/{path}")
                if not member.isfile():
                    die(f"{top}.crate: {top}/{path} is not a regular file")
                target = os.path.join(dest, top, path)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(tar.extractfile(member).read())
        print(f"fetch-crates: {name} {version}: {len(paths)} files")


main()
