#!/usr/bin/env bash
# t-catalog-upstream.sh — the toolkit catalogue is current against the upstream lists kept in tests/upstream/.
#
# CUDA: NVIDIA's cuda-toolkit on PyPI (tests/upstream/pypi-cuda-toolkit.json) has one release per
# CUDA release.  Every minor series it has a final release of, from 11.8 on, is one of
# templates/toolkits.yaml's cuda `versions` and has `archs`; every `full-versions` entry is a release
# it lists; and each version's full release is the newest of its series that the Windows
# installer's pinned list has, else (the installer lists none) the newest of the series PyPI has.
# ROCm: AMD's hip-python on PyPI (tests/upstream/pypi-hip-python.json), whose releases of five
# numbers are a ROCm release followed by HIP's build: every ROCm series it binds is one of rocm's
# `versions`, and no `full-versions` entry of those series is older than the series' newest there
# (HIP Python skipped some patch releases: 6.2.4 is ROCm/ROCm's tag, not a HIP Python release).
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
"$py" - "$ROOT" <<'PY' || fail "the toolkit catalogue against tests/upstream (above)"
import json, os, re, sys
import yaml
root = sys.argv[1]
kits = yaml.safe_load(open(os.path.join(root, "templates", "toolkits.yaml"), encoding="utf-8"))
bad = []

def key(v):
    return tuple(int(x) for x in v.split("."))

def series(v):
    return ".".join(v.split(".")[:2])

# CUDA
page = json.load(open(os.path.join(root, "tests", "upstream", "pypi-cuda-toolkit.json"), encoding="utf-8"))
releases = [v for v in page["versions"] if re.fullmatch(r"\d+(\.\d+){1,3}", v) and key(v) >= (11, 8)]
cuda = kits["cuda"]
newest = {}
for v in releases:
    s = series(v)
    if s not in newest or key(v) > key(newest[s]):
        newest[s] = v
for s in sorted(newest, key=key):
    if s not in cuda["versions"]:
        bad.append("cuda: PyPI's cuda-toolkit has %s (%s), the catalogue's versions do not" % (s, newest[s]))
    if s not in cuda["archs"]:
        bad.append("cuda: %s has no archs" % s)
windows = cuda["installers"]["windows"]["versions"]
for s, full in cuda["full-versions"].items():
    if full not in releases:
        bad.append("cuda: full-versions %s: %s is not a release of PyPI's cuda-toolkit" % (s, full))
    listed = [v for v in windows if series(v) == s]
    want = max(listed, key=key) if listed else newest.get(s)
    if full != want:
        bad.append("cuda: full-versions %s is %s, want %s (%s)" % (s, full, want,
                   "the installer's newest of the series" if listed else "PyPI's newest of the series"))
if len(newest) < 16:
    bad.append("cuda: only %d series read from PyPI's page" % len(newest))

# ROCm
page = json.load(open(os.path.join(root, "tests", "upstream", "pypi-hip-python.json"), encoding="utf-8"))
rocm_releases = [".".join(v.split(".")[:3]) for v in page["versions"] if re.fullmatch(r"\d+(\.\d+){4}", v)]
rocm = kits["rocm"]
newest = {}
for v in rocm_releases:
    s = series(v)
    if s not in newest or key(v) > key(newest[s]):
        newest[s] = v
for s in sorted(newest, key=key):
    if s not in rocm["versions"]:
        bad.append("rocm: HIP Python binds ROCm %s (%s), the catalogue's versions do not" % (s, newest[s]))
    elif key(rocm["full-versions"].get(s) or "0") < key(newest[s]):
        bad.append("rocm: full-versions %s is %r, older than HIP Python's newest of the series, %s"
                   % (s, rocm["full-versions"].get(s), newest[s]))
if len(newest) < 6:
    bad.append("rocm: only %d series read from HIP Python's page" % len(newest))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
finish
