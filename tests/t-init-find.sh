#!/bin/bash
# t-init-find.sh — init finds the project when the repository's root holds none that maturin builds:
# in the directory maturin-action's working-directory names, beside the manifest a workflow passes
# maturin with --manifest-path (or in its parent, for maturin's rust/Cargo.toml layout), among the
# uv workspace's members, else among the tracked pyproject.toml files.  One is written as
# project.pyproject and the CI generate then writes runs maturin there; several are listed with
# the `init --pyproject` line of each (exit 2); a pyproject.toml that maturin does not build is
# never proposed.  Paths in the workflows are data: `..`, absolute paths, expressions and control
# characters are ignored with a note, as is a workflow whose name has a control character, and a
# workflow over 1 MiB is not read.
#
# The layouts are modelled on real projects': a uv workspace over a virtual Cargo workspace with
# the bindings in crates/<x>-python (whose workflow says working-directory: crates/<x>-python), and
# bindings/python with nothing at the root (whose workflow passes --manifest-path).
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

# pyo3_project DIR NAME: a maturin project (pyproject.toml, Cargo.toml and its PyO3 module) in DIR
pyo3_project() {
	maturin_project "$1" "$2" 0.1.0
	printf 'edition = "2021"\n\n[lib]\nname = "%s"\ncrate-type = ["cdylib"]\n\n[dependencies]\npyo3 = { version = "0.25", features = ["extension-module"] }\n' \
		"${2//-/_}" >>"$1/Cargo.toml"
	mkdir -p "$1/src"
	printf 'use pyo3::prelude::*;\n\n#[pymodule]\nfn %s(_m: &Bound<'"'"'_, PyModule>) -> PyResult<()> {\n    Ok(())\n}\n' "${2//-/_}" >"$1/src/lib.rs"
}
# other_project DIR: a pyproject.toml built by another backend (a docs or tooling package)
other_project() {
	mkdir -p "$1"
	printf '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "tooling"\nversion = "0.1.0"\n' >"$1/pyproject.toml"
}
# yq FILE EXPR: a Python expression over the YAML document `d` of FILE, printed as JSON
yq() {
	"$py" -c 'import json, sys, yaml; d = yaml.safe_load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2]), sort_keys=True))' "$1" "$2"
}

# (a) a uv workspace over a virtual Cargo workspace, the bindings in crates/quux-python
r=$tmp/uvws
mkdir -p "$r/.github/workflows" "$r/crates/quux-core/src"
printf '[project]\nname = "quux-workspace"\nversion = "0"\nrequires-python = ">=3.9"\n\n[tool.uv.workspace]\nmembers = ["crates/quux-python", "tools/*"]\n' >"$r/pyproject.toml"
printf '[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n' >"$r/Cargo.toml"
printf '[package]\nname = "quux-core"\nversion = "0.1.0"\nedition = "2021"\n' >"$r/crates/quux-core/Cargo.toml"
: >"$r/crates/quux-core/src/lib.rs"
pyo3_project "$r/crates/quux-python" quux
other_project "$r/tools/lint"
cat >"$r/.github/workflows/python.yml" <<'EOF'
name: python
on: {push: {tags: ["v*"]}}
jobs:
  linux:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with:
          working-directory: crates/quux-python
          args: --release --out dist
EOF
scratch_repo "$r"
commit_all "$r"
wm -C "$r" init --offline
expect_status 0 "init in a uv workspace whose bindings are in crates/quux-python"
expect_err "crates/quux-python/pyproject.toml: note: the project (the root's pyproject.toml is not one maturin builds), found by .github/workflows/python.yml:10: maturin-action's working-directory: crates/quux-python" \
	"init names where it found the project"
[[ $(yq "$r/wheelmatrix.yaml" 'd["project"]') == '{"module": "quux", "name": "quux", "pyproject": "crates/quux-python/pyproject.toml"}' ]] ||
	fail "uv workspace: project is $(yq "$r/wheelmatrix.yaml" 'd["project"]')"
grep -q tooling "$tmp/err" && fail "a hatchling project was proposed: $(cat "$tmp/err")"
expect_run 0 "$WM" -C "$r" generate
"$py" - "$r/.github/workflows/wheels.yml" <<'PY' || fail "the generated workflow does not run maturin in crates/quux-python"
import sys, yaml
gh = yaml.safe_load(open(sys.argv[1]))
dirs = set()
for name, job in gh["jobs"].items():
    for s in job["steps"]:
        if s.get("uses", "").startswith("PyO3/maturin-action@"):
            dirs.add(s["with"].get("working-directory"))
        if "WM_PROJECT_DIR" in s.get("env", {}):
            dirs.add(s["env"]["WM_PROJECT_DIR"])
print(sorted(map(str, dirs)))
sys.exit(0 if dirs == {"crates/quux-python"} else 1)
PY
# the same repository at the root: init exits 0 only because it found the project; without the workflow
# and the workspace it is still the only maturin project tracked
rm -r "$r/.github" "$r/wheelmatrix.yaml"
sed -i '/tool.uv/,$d' "$r/pyproject.toml"
commit_all "$r" "no workflow"
wm -C "$r" init --offline
expect_status 0 "init with the bindings tracked, no workflow"
expect_err "found by a tracked pyproject.toml that maturin builds" "init names the tracked file"
[[ $(yq "$r/wheelmatrix.yaml" 'd["project"]["pyproject"]') == '"crates/quux-python/pyproject.toml"' ]] ||
	fail "tracked: project is $(yq "$r/wheelmatrix.yaml" 'd["project"]')"

# (b) bindings/python, nothing at the root; the workflow passes --manifest-path to maturin
r=$tmp/bindings
mkdir -p "$r/.github/workflows"
pyo3_project "$r/bindings/python" tokenish
cat >"$r/.github/workflows/python-release.yml" <<'EOF'
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: |
          pip install maturin
          maturin build --release \
            --manifest-path "bindings/python/Cargo.toml" --out dist
EOF
scratch_repo "$r"
wm -C "$r" init --offline
expect_status 0 "init with bindings/python and --manifest-path"
expect_err "found by .github/workflows/python-release.yml:9: --manifest-path bindings/python/Cargo.toml" "init names the manifest"
[[ $(yq "$r/wheelmatrix.yaml" 'd["project"]["pyproject"]') == '"bindings/python/pyproject.toml"' ]] ||
	fail "bindings: project is $(yq "$r/wheelmatrix.yaml" 'd["project"]')"
# maturin's src layout: -m py/rust/Cargo.toml in maturin-action's args is the project of py/
r=$tmp/srclayout
mkdir -p "$r/.github/workflows" "$r/py/rust"
pyo3_project "$r/py/rust" srcish
mv "$r/py/rust/pyproject.toml" "$r/py/"
mkdir -p "$r/py/python/srcish"
printf '[tool.maturin]\npython-source = "python"\n' >>"$r/py/pyproject.toml"
printf 'jobs:\n  a:\n    steps:\n      - uses: PyO3/maturin-action@v1\n        with: {args: "-m py/rust/Cargo.toml --release"}\n' >"$r/.github/workflows/ci.yaml"
wm -C "$r" init --offline
expect_status 0 "init with -m py/rust/Cargo.toml"
expect_err "py/pyproject.toml: note: the project" "init finds the src layout's pyproject.toml"
expect_err "(maturin's src layout)" "init says why the parent"

# (c) two maturin projects tracked, no workflow: both, with the line that picks each
r=$tmp/two
pyo3_project "$r/a" alpha
pyo3_project "$r/b" beta
other_project "$r/docs"
scratch_repo "$r"
commit_all "$r"
wm -C "$r" init --offline
expect_status 2 "init with two maturin projects"
expect_err "error: 2 maturin projects in the repository and none at the root" "init says there are two"
expect_err "a/pyproject.toml: note: found by a tracked pyproject.toml that maturin builds: wheelmatrix init --pyproject a/pyproject.toml" "init lists a"
expect_err "b/pyproject.toml: note: found by a tracked pyproject.toml that maturin builds: wheelmatrix init --pyproject b/pyproject.toml" "init lists b"
grep -q docs/ "$tmp/err" && fail "init proposed docs/: $(cat "$tmp/err")"
[[ -e $r/wheelmatrix.yaml ]] && fail "init wrote a matrix with two candidates"
# the line it gives works
wm -C "$r" init --offline --pyproject b/pyproject.toml
expect_status 0 "init --pyproject b/pyproject.toml"
# a maturin project at the root is the project, whatever else is tracked: no note
rm "$r/wheelmatrix.yaml"
pyo3_project "$r" root
commit_all "$r" root
wm -C "$r" init --offline
expect_status 0 "init with a maturin project at the root"
grep -q "pyproject" "$tmp/err" && fail "init looked past the root's project: $(cat "$tmp/err")"
[[ $(yq "$r/wheelmatrix.yaml" '"pyproject" in d["project"]') == false ]] || fail "init wrote project.pyproject for the root's"

# (d) only projects maturin does not build, one named by a workflow: none proposed, the root's error and a hint
r=$tmp/other
mkdir -p "$r/.github/workflows"
other_project "$r/py"
printf 'jobs:\n  a:\n    steps:\n      - uses: PyO3/maturin-action@v1\n        with: {working-directory: py}\n' >"$r/.github/workflows/ci.yml"
scratch_repo "$r"
commit_all "$r"
wm -C "$r" init --offline
expect_status 2 "init with no maturin project"
expect_err "pyproject.toml: error: no such file" "init reports the root's pyproject.toml"
expect_err "give its pyproject.toml with --pyproject PATH" "init gives the hint"
grep -q "py/pyproject.toml" "$tmp/err" && fail "init proposed a hatchling project: $(cat "$tmp/err")"

# (e) hostile workflows: paths out of the repository, expressions and controls are ignored with a
# note; a workflow named with a control character is skipped; one over 1 MiB is not read
r=$tmp/hostile/repo
mkdir -p "$r/.github/workflows"
pyo3_project "$tmp/hostile/outside" outside
pyo3_project "$r/real" real
cat >"$r/.github/workflows/evil.yml" <<'EOF'
jobs:
  a:
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          working-directory: ../outside
          args: --manifest-path /etc/Cargo.toml
      - uses: PyO3/maturin-action@v1
        with:
          working-directory: ${{ secrets.DIR }}
      - run: maturin build -m "$DIR/Cargo.toml"
      - run: |
          maturin --version
          other-tool -m real/Cargo.toml
EOF
printf 'jobs:\n  a:\n    steps:\n      - uses: PyO3/maturin-action@v1\n        with: {working-directory: "re\\x1bal"}\n' >"$r/.github/workflows/esc.yml"
printf 'jobs:\n  a:\n    steps:\n      - uses: PyO3/maturin-action@v1\n        with: {working-directory: real}\n' \
	>"$r/.github/workflows/$(printf 'ctl\001.yml')"
{ printf 'jobs:\n  a:\n    steps:\n      - uses: PyO3/maturin-action@v1\n        with: {working-directory: real}\n'
  head -c $((1 << 20)) /dev/zero | tr '\0' '#'; echo; } >"$r/.github/workflows/huge.yml"
wm -C "$r" init --offline
expect_status 2 "init with hostile workflows only (and no repository)"
expect_err ".github/workflows/evil.yml:6:30: note: working-directory ignored" "init ignores ../outside"
expect_err ".github/workflows/evil.yml:7:17: note: --manifest-path ignored" "init ignores /etc/Cargo.toml"
expect_err ".github/workflows/evil.yml:10:30: note: working-directory ignored: it depends on secrets.DIR, not known before the job runs" "init ignores an expression it cannot know"
expect_err ".github/workflows/evil.yml:11:14: note: --manifest-path ignored" "init ignores a variable"
expect_err ".github/workflows/esc.yml:5:35: note: working-directory ignored" "init ignores a control character"
expect_err ".github/workflows: note: skipped 1 workflow whose name has characters other than letters, digits and ._-" "init skips a name with a control character"
grep -q "outside/pyproject.toml\|real/pyproject.toml" "$tmp/err" && fail "init proposed a project from a hostile path: $(cat "$tmp/err")"
"$py" -c 'import sys; t = open(sys.argv[1], encoding="utf-8", errors="replace").read(); sys.exit(any(ord(c) < 32 and c not in "\n\t" or c == "\x7f" for c in t))' "$tmp/err" ||
	fail "a control character reached stderr"

# (f) defaults.run.working-directory: a workflow's, and a job's over it, is where its `run:` steps
# run maturin (GitHub applies it to run steps only, not to an action's); a step's own wins
r=$tmp/defaults
mkdir -p "$r/.github/workflows"
pyo3_project "$r/bindings/python" bound
pyo3_project "$r/elsewhere/rust" elsewhere
cat >"$r/.github/workflows/release.yml" <<'EOF'
defaults:
  run:
    working-directory: elsewhere
jobs:
  wheels:
    defaults:
      run:
        working-directory: bindings/python
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install maturin
      - run: maturin build --release --out dist
EOF
scratch_repo "$r"
commit_all "$r"
wm -C "$r" init --offline
expect_status 0 "init with the project in a job's defaults.run.working-directory"
expect_err "bindings/python/pyproject.toml: note: the project (the root's pyproject.toml is not one maturin builds), found by .github/workflows/release.yml:8: the working directory of maturin's command line (defaults.run): bindings/python" \
	"init names the job's default working directory"
[[ $(yq "$r/wheelmatrix.yaml" 'd["project"]["pyproject"]') == '"bindings/python/pyproject.toml"' ]] ||
	fail "init did not write the job's default directory as project.pyproject: $(cat "$r/wheelmatrix.yaml")"
# the workflow's default alone, and a step's own over it (no project in `elsewhere` itself)
r=$tmp/defaults2
mkdir -p "$r/.github/workflows"
pyo3_project "$r/bindings/python" bound
cat >"$r/.github/workflows/release.yml" <<'EOF'
defaults: {run: {working-directory: bindings/python}}
jobs:
  wheels:
    runs-on: ubuntu-latest
    steps:
      - run: maturin sdist --out dist
      - run: maturin build --release
        working-directory: elsewhere
EOF
scratch_repo "$r"
commit_all "$r"
wm -C "$r" init --offline
expect_status 0 "init with the project in the workflow's defaults.run.working-directory"
expect_err "found by .github/workflows/release.yml:1: the working directory of maturin's command line (defaults.run): bindings/python" \
	"init names the workflow's default working directory"
grep -q "elsewhere" "$tmp/err" && fail "init proposed a directory without a maturin project: $(cat "$tmp/err")"
finish
