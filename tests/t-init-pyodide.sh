#!/bin/bash
# t-init-pyodide.sh — init takes a project's Pyodide (Emscripten wasm32) wheels over as the
# catalogue's pyodide-wasm32, judged against the release on an index (nginx, PEP 691 JSON).
#
# 1. `maturin new` and `maturin generate-ci github --platform linux --platform emscripten`, run
#    here with the pinned maturin: its emscripten job builds with maturin-action, target
#    wasm32-unknown-emscripten, `-i ${{ env.PYTHON_VERSION }}` and a rust-toolchain that a step
#    writes into $GITHUB_ENV from `pyodide config get`.  Offline, init writes pyodide-wasm32 with
#    Pyodide's one CPython (the other versions excluded there), drops nothing and says the
#    generated workflow replaces CI.yml; `list` loads the matrix.
# 2. Against a release with cp314-cp314-pyemscripten_2026_0_wasm32 (PEP 783's name), and again
#    with the name Pyodide gave that platform before (pyodide_2026_0_wasm32): every wheel is
#    reproduced, by list's job of its tags; a wheel of another Pyodide ABI
#    (cp313-cp313-pyemscripten_2025_0_wasm32) is named with why, by its workflow, and the counts
#    (JSON and text) add up.
# 3. An abi3 crate's cp310-abi3-pyemscripten_2026_0_wasm32 wheel is its abi3 wheel there, and a
#    plain-abi3 crate's cp314-abi3 one (named by Pyodide's CPython) too.
# 4. `run:` builds: `maturin build --target wasm32-unknown-emscripten -i 3.14`, `pyodide build`
#    (pyodide-build's CLI), and a build for another CPython there (-i 3.13), which is named as a
#    drop while the matrix still loads.
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

# ---- 1. maturin's own CI for Linux and Emscripten, offline ------------------------------------
repo=$tmp/demo
maturin_new_ci "$repo" linux emscripten
# the shape this test is about: maturin-action for wasm32-unknown-emscripten, -i from pyodide config
"$py" - "$repo/.github/workflows/CI.yml" <<'PY' || fatal "maturin's emscripten job no longer has the shape this test reads"
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["jobs"]["emscripten"]
assert job["strategy"]["matrix"]["platform"][0]["target"] == "wasm32-unknown-emscripten", job
step = next(s for s in job["steps"] if "maturin-action" in s.get("uses", ""))
assert step["with"]["target"] == "${{ matrix.platform.target }}", step
assert "-i ${{ env.PYTHON_VERSION }}" in step["with"]["args"], step
assert step["with"]["rust-toolchain"] == "${{ env.RUST_TOOLCHAIN }}", step
PY
scratch_repo "$repo"
commit_all "$repo"
wm -C "$repo" init --offline
expect_status 0 "init of maturin's CI for Linux and Emscripten"
cp "$tmp/err" "$tmp/offline-err"
"$py" - "$repo/wheelmatrix.yaml" <<'PY' || fail "maturin's CI: pyodide-wasm32 is not written as its one CPython: $(cat "$repo/wheelmatrix.yaml")"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert "pyodide-wasm32" in d["platforms"], d["platforms"]
versions = d["python"]["versions"]
left_out = {e["python"] for e in d.get("exclude", []) if e["platform"] == "pyodide-wasm32"}
assert "3.14" in versions and "3.14" not in left_out, (versions, left_out)
assert set(versions) - {"3.14"} == left_out, (versions, left_out)
PY
grep -q "drops" "$tmp/offline-err" "$repo/wheelmatrix.yaml" && fail "maturin's CI: drops: $(cat "$tmp/offline-err")"
grep -q "^.github/workflows/CI.yml: note: builds wheels.*replaces it" "$tmp/offline-err" ||
	fail "maturin's CI: CI.yml, whose every build the matrix makes, is not replaced: $(cat "$tmp/offline-err")"
wm -C "$repo" list --format json
expect_status 0 "list of the matrix init wrote for maturin's CI"
"$py" -c 'import json, sys
jobs = [j for j in json.load(open(sys.argv[1])) if j["platform"] == "pyodide-wasm32"]
assert [(j["python_tag"], j["abi_tag"], j["platform_tag"]) for j in jobs] == [("cp314", "cp314", "pyemscripten_2026_0_wasm32")], jobs' "$tmp/out" ||
	fail "maturin's CI: list's pyodide-wasm32 jobs: $(cat "$tmp/out")"

# ---- 2. against the release ------------------------------------------------------------------
www=$tmp/www
mkdir -p "$tmp/srv" "$www/simple"
start_nginx "$tmp/srv" "$www" || fatal "nginx did not start"
index=http://127.0.0.1:$HTTP_PORT/simple/
# release NAME VERSION FILE...: the project's page (PEP 691 JSON), listing FILE... of VERSION
release() {
	local name=$1 version=$2
	shift 2
	mkdir -p "$www/simple/$name"
	"$py" - "$www/simple/$name/index.json" "$name" "$version" "$@" <<'PY'
import json, sys
out, name, version, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
files = ["%s-%s.tar.gz" % (name, version)] + ["%s-%s-%s.whl" % (name, version, f) for f in files]
json.dump({"meta": {"api-version": "1.1"}, "name": name,
           "files": [{"filename": f, "url": f, "hashes": {"sha256": "0" * 64}} for f in files]}, open(out, "w"))
PY
}
# judge NAME LOST...: init's JSON summary of the release: every wheel reproduced by a job of list's
# with its tags, but LOST..., each named with why and its workflow
judge() {
	local name=$1
	shift
	wm -C "$repo" init --force --index "$index" --format json
	expect_status 0 "$name: init against the release"
	cp "$tmp/out" "$tmp/$name.json"
	wm -C "$repo" list --format json
	expect_status 0 "$name: list loads the matrix init wrote"
	"$py" - "$www/simple/demo/index.json" "$tmp/$name.json" "$tmp/out" "$@" <<'PY' || fail "$name: $(cat "$tmp/$name.json")"
import json, sys
page, summary, jobs, lost = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4:]
published = sorted(f["filename"] for f in page["files"] if f["filename"].endswith(".whl"))
wheels = {w["file"]: w for w in summary["wheels"]}
assert sorted(wheels) == published, (sorted(wheels), published)
assert (summary["published"], summary["reproduced"], summary["not_reproduced"]) == \
    (len(published), len(published) - len(lost), len(lost)), summary
by_id = {j["id"]: j for j in jobs}
for f, w in wheels.items():
    if f.split("-", 2)[2] in lost:
        assert not w["reproduced"] and w["why"] and w["workflow"] == ".github/workflows/CI.yml", w
        continue
    assert w["reproduced"] and not w["why"], w
    py, abi, plat = f[:-4].split("-")[2:]
    j = by_id[w["job"]]
    assert py in j["python_tag"].split(".") and abi == j["abi_tag"], (f, j)
    # the name Pyodide gave the platform before PEP 783 is the same wheel
    assert {t.replace("pyodide_", "pyemscripten_") for t in plat.split(".")} & set(j["platform_tag"].split(".")), (f, j)
PY
}
linux=(cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64 cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64
	cp314-cp314-manylinux_2_17_x86_64.manylinux2014_x86_64)
release demo 0.1.0 "${linux[@]}" cp314-cp314-pyemscripten_2026_0_wasm32 cp313-cp313-pyemscripten_2025_0_wasm32
judge pep783 cp313-cp313-pyemscripten_2025_0_wasm32.whl
"$py" -c 'import json, sys
w = next(w for w in json.load(open(sys.argv[1]))["wheels"] if "2025_0" in w["file"])
assert "another Pyodide ABI" in w["why"] and "pyemscripten_2026_0_wasm32" in w["why"], w' "$tmp/pep783.json" ||
	fail "the wheel of another Pyodide ABI is not named with the one the matrix builds: $(cat "$tmp/pep783.json")"
"$py" -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["python"] == {"versions": ["3.12", "3.13", "3.14"]}, d["python"]
assert sorted(e["python"] for e in d["exclude"] if e["platform"] == "pyodide-wasm32") == ["3.12", "3.13"], d["exclude"]' \
	"$repo/wheelmatrix.yaml" || fail "pep783: the matrix: $(cat "$repo/wheelmatrix.yaml")"
grep -qF "#   lost: demo-0.1.0-cp313-cp313-pyemscripten_2025_0_wasm32.whl (.github/workflows/CI.yml)" "$repo/wheelmatrix.yaml" ||
	fail "pep783: the file's header does not name the lost wheel: $(cat "$repo/wheelmatrix.yaml")"
wm -C "$repo" init --force --index "$index"
grep -qxF "5 wheels published in 0.1.0, 4 reproduced, 1 not:" "$tmp/out" || fail "pep783: the text summary: $(cat "$tmp/out")"

release demo 0.1.0 "${linux[@]}" cp314-cp314-pyodide_2026_0_wasm32
judge pyodide-name

# ---- 3. an abi3 crate ------------------------------------------------------------------------
sed -i 's/^pyo3 = .*/pyo3 = { version = "0.29.0", features = ["abi3-py310"] }/' "$repo/Cargo.toml"
commit_all "$repo"
release demo 0.1.0 cp310-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64 cp310-abi3-pyemscripten_2026_0_wasm32
judge abi3
"$py" -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["python"] == {"abi3": "3.10"} and "pyodide-wasm32" in d["platforms"], d' "$repo/wheelmatrix.yaml" ||
	fail "abi3: the matrix: $(cat "$repo/wheelmatrix.yaml")"

# pyo3's plain abi3 (no abi3-py3X): maturin names the Pyodide wheel by Pyodide's CPython, cp314-abi3,
# and the others by the interpreter that builds them (list's cp312-abi3 for python.abi3 3.12)
sed -i 's/^pyo3 = .*/pyo3 = { version = "0.29.0", features = ["abi3"] }/' "$repo/Cargo.toml"
commit_all "$repo"
release demo 0.1.0 cp312-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64 cp314-abi3-pyemscripten_2026_0_wasm32
judge plain-abi3

# ---- 4. run: builds ---------------------------------------------------------------------------
repo=$tmp/scripts
demo_project "$repo"
rm -f "$repo/wheelmatrix.yaml"
printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n[lib]\ncrate-type = ["cdylib"]\n[dependencies]\npyo3 = "0.29"\n' >"$repo/Cargo.toml"
mkdir -p "$repo/.github/workflows"
cat >"$repo/.github/workflows/release.yml" <<'EOF'
on: {push: {tags: ["v*"]}}
jobs:
  linux:
    runs-on: ubuntu-latest
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          manylinux: 2_28
          args: --release --out dist -i 3.13 3.14
  wasm:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/setup-python@v5
        with: {python-version: "3.14"}
      - run: |
          pip install pyodide-build
          maturin build --release --out dist --target wasm32-unknown-emscripten -i 3.14
  pyodide:
    runs-on: ubuntu-24.04
    steps:
      - run: pip install pyodide-build && pyodide build -o dist --exports pyinit
  publish:
    needs: [linux, wasm, pyodide]
    runs-on: ubuntu-latest
    steps:
      - uses: pypa/gh-action-pypi-publish@release/v1
EOF
scratch_repo "$repo"
commit_all "$repo"
wm -C "$repo" init --offline
expect_status 0 "init of run: builds for Pyodide"
cp "$tmp/err" "$tmp/scripts-err"
"$py" -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert set(d["platforms"]) == {"linux-x86_64", "pyodide-wasm32"}, d["platforms"]
assert d["python"] == {"versions": ["3.13", "3.14"]}, d["python"]
assert d["exclude"] == [{"platform": "pyodide-wasm32", "python": "3.13"}], d["exclude"]' "$repo/wheelmatrix.yaml" ||
	fail "run: builds: the matrix: $(cat "$repo/wheelmatrix.yaml")"
grep -q "drops" "$tmp/scripts-err" && fail "run: builds: drops: $(cat "$tmp/scripts-err")"
grep -q "^.github/workflows/release.yml: note: builds wheels.*replaces it" "$tmp/scripts-err" ||
	fail "run: builds: release.yml is not replaced: $(cat "$tmp/scripts-err")"
wm -C "$repo" list
expect_status 0 "list of the matrix of run: builds for Pyodide"

# a build for another CPython there: named, the workflow kept, and the matrix still loads
sed -i 's/--target wasm32-unknown-emscripten -i 3.14/--target wasm32-unknown-emscripten -i 3.13 3.14/' "$repo/.github/workflows/release.yml"
wm -C "$repo" init --offline --force
expect_status 0 "init of a Pyodide build for another CPython"
grep -qxF ".github/workflows/release.yml: note: drops CPython 3.13 on pyodide-wasm32: Pyodide 314.0.5 is CPython 3.14.2 alone, not free-threaded" "$tmp/err" ||
	fail "a Pyodide build for CPython 3.13 is not named: $(cat "$tmp/err")"
grep -q "^.github/workflows/release.yml: note: builds wheels.*replaces it" "$tmp/err" &&
	fail "a Pyodide build for CPython 3.13: release.yml is said replaced"
wm -C "$repo" list
expect_status 0 "list of the matrix without the Pyodide build for another CPython"
finish
