#!/bin/bash
# t-pypy-tags.sh — the PyPy wheels wheelmatrix plans are the ones pip installs on the PyPy 3.11 that
# builds them, and on nothing else: every wheel file name `plan` gives a pp3.11 job (as `list` gives
# its tags) is among the tags packaging.tags (the pinned packaging, tests/tools/requirements.txt, the
# library pip vendors) accepts on that PyPy for that job's platform, and none a CPython 3.11 or 3.12
# accepts; the abi3 wheel beside it is not among PyPy's (PyPy has no abi3: the reason for its own
# wheel), and a CPython job's wheel is not either.  PyPy's tag set is packaging's own for PyPy:
# interpreter pp311 (interpreter_name() "pp" + the version), ABI pypy311_ppXY (the EXT_SUFFIX
# .pypy311-ppXY-<platform>.so, as _generic_abi reads it), generic_tags + compatible_tags, on the
# platforms a manylinux_2_28 glibc, macOS 11 or 64-bit Windows machine accepts.  The PyPy is 7.3
# (pp73) on Linux, where maturin builds from its own tables (t-pypy-maturin builds it), and on
# macOS and Windows the newest PyPy 3.11 of the pinned uv's download list (what uv and
# setup-python install there), read here: PyPy 8.0.x, pp80.
. "$ROOT/tests/kit/lib.sh"

tools=$("$ROOT/tests/tools/install.sh" --path)
[ -x "$tools/bin/python" ] ||
	fatal "the pinned test tools are not installed in $tools: run tests/tools/install.sh (make check does)"

mkdir -p "$tmp/p"
printf '[build-system]\nrequires = ["maturin>=1.5,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "pp-demo"\nversion = "1.0.0"\n' >"$tmp/p/pyproject.toml"
printf '[package]\nname = "pp-demo"\nversion = "1.0.0"\n\n[lib]\nname = "pp_demo"\n\n[dependencies]\npyo3 = { version = "0.29", features = ["abi3-py39"] }\n' >"$tmp/p/Cargo.toml"
cat >"$tmp/p/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
python:
  versions: ["pp3.11"]
platforms: [linux-x86_64, linux-aarch64, macos-x86_64, macos-arm64, windows-x86_64]
YAML
wm -C "$tmp/p" plan --offline --first-release --format json
expect_status 0 "plan of an abi3 crate with PyPy"
cp "$tmp/out" "$tmp/plan.json"
wm -C "$tmp/p" list --format json
expect_status 0 "list of an abi3 crate with PyPy"
cp "$tmp/out" "$tmp/list.json"

# the PyPy uv installs for 3.11 on macOS and Windows: its release's C API version (8.0.1: pp80)
"$tools/bin/uv" python list --all-versions --only-downloads --all-platforms --all-arches --output-format json >"$tmp/uv.json" 2>"$tmp/uv.err" ||
	fatal "uv python list failed: $(cat "$tmp/uv.err")"
installed=$("$tools/bin/python" - "$tmp/uv.json" <<'PY'
import json, re, sys
seen = {}
for e in json.load(open(sys.argv[1])):
    if e["implementation"] == "pypy" and e["os"] in ("macos", "windows") and e["version"].startswith("3.11."):
        m = re.search(r"-v(\d+)\.(\d+)\.\d+-", e["url"])
        seen.setdefault(e["os"], "pp%s%s" % m.groups())
assert len(set(seen.values())) == 1 and len(seen) == 2, seen
print(seen["macos"])
PY
) || fatal "uv's download list names no one PyPy 3.11 for macOS and Windows"
[ "$installed" = pp80 ] || fail "uv installs PyPy 3.11 as $installed, not pp80 (templates/interpreters.yaml)"

cat >"$tmp/check.py" <<'PY'
import json, sys
from packaging import tags
from packaging.utils import parse_wheel_filename

plan = json.load(open(sys.argv[1]))
jobs = {j["id"]: j for j in json.load(open(sys.argv[2]))}

def platforms(job):
    """What pip on that machine accepts: glibc 2.28 (manylinux_2_28 down to 2_5, and the legacy
    aliases packaging adds), macOS 11 on that architecture, 64-bit Windows."""
    arch = job["arch"]
    if job["os"] == "linux":
        out = [f"manylinux_2_{m}_{arch}" for m in range(28, 4, -1)]
        out += [f"manylinux2014_{arch}"] + ([f"manylinux2010_{arch}", f"manylinux1_{arch}"] if arch == "x86_64" else [])
        return out + [f"linux_{arch}"]
    if job["os"] == "macos":
        return list(tags.mac_platforms((11, 0), "x86_64" if arch == "x86_64" else "arm64"))
    return ["win_amd64"]

installed = sys.argv[3]

def pypy_abi(job):
    """The ABI tag of the PyPy 3.11 that builds the job's wheel: PyPy 7.3 on Linux, uv's elsewhere."""
    return "pypy311_pp73" if job["os"] == "linux" else "pypy311_" + installed

def pypy(job):
    plats = platforms(job)
    return set(tags.generic_tags("pp311", [pypy_abi(job)], plats)) | set(tags.compatible_tags((3, 11), "pp311", plats))

def cpython(job, minor):
    plats = platforms(job)
    return set(tags.cpython_tags((3, minor), None, plats)) | set(tags.compatible_tags((3, minor), f"cp3{minor}", plats))

bad = seen_pp = seen_abi3 = 0
for dist in plan["distributions"]:
    for a in dist["artifacts"]:
        if a["kind"] != "wheel":
            continue
        job = jobs[a["job"]]
        _, _, _, wheel_tags = parse_wheel_filename(a["file"])
        on_pypy = bool(wheel_tags & pypy(job))
        on_cpython = any(wheel_tags & cpython(job, m) for m in (11, 12))
        if job["python"] == "pp3.11":
            seen_pp += 1
            if (job["python_tag"], job["abi_tag"]) != ("pp311", pypy_abi(job)):
                print(f"FAIL {a['job']}: list says {job['python_tag']}-{job['abi_tag']}"); bad = 1
            if not on_pypy:
                print(f"FAIL {a['file']}: PyPy 3.11 on {job['platform']} does not accept it"); bad = 1
            if on_cpython:
                print(f"FAIL {a['file']}: CPython accepts it"); bad = 1
        else:
            seen_abi3 += job["python"] == "abi3"
            if on_pypy:
                print(f"FAIL {a['file']}: PyPy 3.11 accepts a CPython wheel"); bad = 1
            if not on_cpython:
                print(f"FAIL {a['file']}: CPython 3.11/3.12 on {job['platform']} does not accept it"); bad = 1
        print(a["file"], "pypy" if on_pypy else "", "cpython" if on_cpython else "")
if seen_pp != 5 or seen_abi3 != 5:
    print(f"FAIL: {seen_pp} PyPy and {seen_abi3} abi3 wheels planned, not 5 of each"); bad = 1
sys.exit(bad)
PY
run "$tools/bin/python" "$tmp/check.py" "$tmp/plan.json" "$tmp/list.json" "$installed"
expect_status 0 "packaging.tags on the planned PyPy and abi3 wheels"
show "$tmp/out"

# the check fails on a name pip would refuse: CPython's tags on a PyPy job
sed 's/-pp311-pypy311_pp73-/-pp311-cp311-/' "$tmp/plan.json" >"$tmp/bad.json"
cmp -s "$tmp/bad.json" "$tmp/plan.json" && fatal "the altered plan is the plan"
run "$tools/bin/python" "$tmp/check.py" "$tmp/bad.json" "$tmp/list.json" "$installed"
expect_status 1 "a PyPy job's wheel with CPython's ABI tag"
grep -q "^FAIL pp_demo-1.0.0-pp311-cp311-manylinux_2_28_x86_64.whl: PyPy 3.11 on linux-x86_64 does not accept it" "$tmp/out" ||
	fail "the altered name was not refused: $(cat "$tmp/out")"
exit "$failures"
