#!/bin/bash
# t-runner-layout.sh — what real runners need of the generated CI, read back from the files: maturin
# runs in pyproject.toml's directory, the Linux repair runs in the build container, the backend's env
# and before-script-linux reach that container, the import test runs outside the checkout, the maturin
# pin follows [build-system].requires (and check reports a pin outside it), and Python versions a
# platform's runners cannot build for are refused; a bindings = "bin" project builds one py3-none wheel per platform;
# and every workflow written passes the validators of tests/helpers/wmlint.py.
# heavy: actionlint, zizmor and action-validator on the generated workflows
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

# project REPO REQUIRES: a Cargo workspace with the Python project in python/ (delta-rs' layout)
project() {
	local r=$1
	mkdir -p "$r/python/src" "$r/crates/core/src"
	cat >"$r/Cargo.toml" <<'EOF'
[workspace]
members = ["crates/core", "python"]
resolver = "2"
EOF
	cat >"$r/python/pyproject.toml" <<EOF
[build-system]
requires = ["$2"]
build-backend = "maturin"

[project]
name = "deltaish"
version = "0.3.0"

[tool.maturin]
module-name = "deltaish._native"
EOF
	cat >"$r/python/Cargo.toml" <<'EOF'
[package]
name = "deltaish-python"
version = "0.3.0"
edition = "2021"

[lib]
name = "deltaish"
crate-type = ["cdylib"]

[features]
cublas = []
simd = []
EOF
	cat >"$r/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
project: {pyproject: python/pyproject.toml}
python: {versions: ["3.12"]}
platforms: [linux-x86_64, windows-x86_64]
backends:
  cuda:
    features: [cublas]
    toolkit: {cuda: "12.4"}
    env: {CUDA_COMPUTE_CAP: "80"}
    before-script-linux: |
      dnf install -y zlib-devel
      export ZLIB_STATIC=1
  fast:
    features: [simd]
    env: {FAST_LEVEL: "3"}
    before-script-linux: dnf install -y lz4-devel
    smoke: true
  cpu: {default: true}
EOF
	scratch_repo "$r"
}

# 1. a project in python/: every maturin run is there, and every output reaches the root's dist/
r=$tmp/sub
project "$r" "maturin>=1.0,<1.14"
expect_run 0 "$WM" -C "$r" generate
"$py" - "$r/.github/workflows/wheels.yml" "$r/.gitlab-ci.yml" <<'PY' || fail "the generated CI does not build in python/"
import os, sys, yaml
sys.path.insert(0, os.path.join(os.environ["ROOT"], "tests", "helpers"))
import ghinline
gh, gl = ghinline.load(sys.argv[1]), yaml.safe_load(open(sys.argv[2]))  # the container script from its local action
bad = []
def want(cond, what):
    if not cond:
        bad.append(what)
steps = {name: job["steps"] for name, job in gh["jobs"].items()}
for name, job_steps in steps.items():
    for s in job_steps:
        uses = s.get("uses", "")
        if uses.startswith("PyO3/maturin-action@"):
            w = s["with"]
            want(w.get("working-directory") == "python", f"{name}: maturin-action without working-directory")
            want("--out ../dist" in w.get("args", ""), f"{name}: maturin-action does not write ../dist: {w.get('args')}")
            want(w.get("maturin-version") == "1.13.3", f"{name}: maturin {w.get('maturin-version')}, not 1.13.3")
        if s.get("name", "").startswith("Build and repair the wheel in the manylinux container"):
            env = s["env"]
            want(env["WM_PROJECT_DIR"] == "python", f"{name}: container build not in python/")
            want(env["WM_MATURIN"] == "1.13.3", f"{name}: container maturin {env['WM_MATURIN']}")
            # 3. the repair runs in the container, where the toolkit's libraries are
            body = s["run"].split("<<'CONTAINER'", 1)[1]
            want("auditwheel repair" in body, f"{name}: no auditwheel repair in the container")
            want("--auditwheel skip" in body, f"{name}: maturin repairs on its own in the container")
            # 4. the backend's env and before-script-linux reach the container
            want(env.get("WM_CONTAINER_ENV") == "CUDA_COMPUTE_CAP", f"{name}: env not passed: {env.get('WM_CONTAINER_ENV')}")
            want("export ZLIB_STATIC=1" in env.get("WM_BEFORE_SCRIPT", ""), f"{name}: before-script-linux lost")
            want("cuda-nvcc-12-4" in env.get("WM_BEFORE_SCRIPT", ""), f"{name}: the CUDA recipe lost")
        if s.get("name") == "Repair the wheel":
            want("windows" in name, f"{name}: a repair step outside the build container")
want(any("maturin-action" in s.get("uses", "") and s["with"].get("docker-options") == "--env FAST_LEVEL"
         and s["with"].get("before-script-linux") == "dnf install -y lz4-devel\n"
         for s in steps["build-fast-linux"]), "build-fast-linux: env or before-script-linux do not reach the container")
# 2. the import test: from outside the checkout, isolated
for name, job_steps in steps.items():
    for s in job_steps:
        if s.get("name") == "Import the module from the built wheel":
            lines = s["run"].splitlines()
            cd = [k for k, line in enumerate(lines) if line.startswith('cd "$RUNNER_TEMP"')]
            imports = [k for k, line in enumerate(lines) if "import_module" in line]
            want(len(cd) == 1 and len(imports) == 1 and imports[0] == cd[0] + 1 and " -I -c " in lines[imports[0]],
                 f"{name}: the import runs in the checkout")
for name in ("sdist-cuda", "sdist-cpu"):
    w = [s for s in steps[name] if s.get("uses", "").startswith("PyO3/maturin-action@")][0]["with"]
    want(w.get("working-directory") == "python" and w.get("args") == "--out ../dist", f"{name}: sdist not built in python/")
for name, job in gl.items():
    if isinstance(job, dict) and name.startswith(("build-", "sdist-")):
        want(job.get("variables", {}).get("WM_PROJECT_DIR") == "python", f"GitLab {name}: no WM_PROJECT_DIR")
        want(job.get("variables", {}).get("WM_MATURIN") == "1.13.3", f"GitLab {name}: maturin not 1.13.3")
want(any("export ZLIB_STATIC=1" in line for line in gl[".wheelmatrix-build-cuda-linux"]["before_script"]),
     "GitLab: before-script-linux not in the Linux build's before_script")
want(not any("ZLIB_STATIC" in line for line in gl.get(".wheelmatrix-build-cuda-windows", {}).get("before_script", [])),
     "GitLab: before-script-linux in the Windows build")
for line in bad:
    print("   ", line)
sys.exit(1 if bad else 0)
PY

# 6. the pin: the newest release the requirement admits, or the catalog's when it admits that
pin() {  # pin REQUIRES WANT
	local r=$tmp/pin$RANDOM
	project "$r" "$1"
	expect_run 0 "$WM" -C "$r" generate
	got=$(sed -n 's/^ *maturin-version: "\(.*\)"$/\1/p' "$r/.github/workflows/wheels.yml" | sort -u)
	[ "$got" = "$2" ] || fail "requires $1: pins '$got', not $2"
}
pin "maturin>=1.0,<1.14" 1.13.3
pin "maturin>=1.14" "$(sed -n 's/^  maturin: "\(.*\)"$/\1/p' "$ROOT/templates/actions.yaml")"
pin "maturin==1.7" 1.7.0
pin "maturin[zig] ~= 1.9.0" 1.9.6
pin "maturin (>=0.14, <0.15)" 0.14.17
pin "maturin!=1.16.0,<1.17,>=1.15" 1.15.0

r=$tmp/nopin
project "$r" "maturin>=3.0"
expect_run 2 "$WM" -C "$r" generate
grep -q "^python/pyproject.toml:2:13: error: no maturin release that the generated CI can pin satisfies 'maturin>=3.0'" "$tmp/err" ||
	fail "an unsatisfiable maturin requirement: $(cat "$tmp/err")"
[ -e "$r/.github" ] && fail "an unsatisfiable maturin requirement wrote files"
r=$tmp/badpin
project "$r" "maturin>=1.*"
expect_run 2 "$WM" -C "$r" generate
grep -q "^python/pyproject.toml:2:13: error: cannot read the maturin requirement '>=1.\*'" "$tmp/err" ||
	fail "an unreadable maturin requirement: $(cat "$tmp/err")"

# check: a committed workflow whose pin the requirement no longer admits is named with the line
r=$tmp/sub
commit_all "$r"
expect_run 0 "$WM" -C "$r" check
sed -i 's/maturin>=1.0,<1.14/maturin>=1.14/' "$r/python/pyproject.toml"
git -C "$r" add -A
expect_run 1 "$WM" -C "$r" check --staged
line=$(grep -n 'maturin-version: "1.13.3"' "$r/.github/workflows/wheels.yml" | head -1 | cut -d: -f1)
grep -q "^.github/workflows/wheels.yml:$line:1: error: pins maturin 1.13.3, which python/pyproject.toml's \[build-system\].requires ('maturin>=1.14') does not admit" "$tmp/err" ||
	fail "check does not report the pin outside the requirement: $(cat "$tmp/err")"
line=$(grep -n 'WM_MATURIN: "1.13.3"' "$r/.gitlab-ci.yml" | head -1 | cut -d: -f1)
grep -q "^.gitlab-ci.yml:$line:1: error: pins maturin 1.13.3" "$tmp/err" ||
	fail "check does not report the GitLab pin outside the requirement"

# 7. Python versions a platform's runners cannot build for
m=$tmp/arm.yaml
cat >"$m" <<'EOF'
wheelmatrix: 1
project: {name: armpkg}
python: {versions: ["3.10", "3.11", "3.12"]}
platforms: [linux-x86_64, windows-arm64]
backends: {cpu: {default: true}}
EOF
expect_run 2 "$WM" -f "$m" list
# (the end-of-life note of 3.10 is said by init, -v and list --why only)
cat >"$tmp/want" <<EOF
$m:3:21: error: Python 3.10 cannot be built for windows-arm64: python.org ships Windows arm64 interpreters from 3.11; leave it out there with an exclude such as {platform: windows-arm64, python: "3.10"}
    3 | python: {versions: ["3.10", "3.11", "3.12"]}
      |                     ^~~~
EOF
expect_same "$tmp/want" "$tmp/err" "3.10 on windows-arm64: the refusal"
printf 'exclude:\n  - {platform: windows-arm64, python: "3.10"}\n' >>"$m"
expect_run 0 "$WM" -f "$m" list
[ "$(tail -n 1 "$tmp/out")" = "5 jobs" ] || fail "the exclude does not leave 5 jobs: $(tail -n 1 "$tmp/out")"
sed -i '3d;/^exclude/,$d' "$m"
expect_run 0 "$WM" -f "$m" list --format jsonl
"$py" -c '
import json, sys
jobs = [json.loads(l) for l in open(sys.argv[1])]
arm = sorted(j["python"] for j in jobs if j["platform"] == "windows-arm64")
sys.exit(0 if arm and min(arm, key=lambda v: int(v.split(".")[1].rstrip("t"))) >= "3.11" else 1)' "$tmp/out" ||
	fail "the default versions build windows-arm64 below 3.11"

# 8. bindings = "bin": one py3-none wheel per platform, no import test, no Python axis
r=$tmp/bin
mkdir -p "$r/src"
printf '[package]\nname = "hello-bin"\nversion = "0.1.0"\nedition = "2021"\n' >"$r/Cargo.toml"
cat >"$r/pyproject.toml" <<'EOF'
[build-system]
requires = ["maturin>=1.0,<2"]
build-backend = "maturin"

[project]
name = "hello-bin"
version = "0.1.0"

[tool.maturin]
bindings = "bin"
EOF
cat >"$r/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
platforms: [linux-x86_64, macos-arm64, windows-x86_64]
backends:
  fast: {env: {FAST: "1"}}
  cpu: {default: true}
EOF
scratch_repo "$r"
expect_run 0 "$WM" -C "$r" list --format jsonl
"$py" -c '
import json, sys
jobs = [json.loads(l) for l in open(sys.argv[1])]
tags = sorted({(j["python_tag"], j["abi_tag"]) for j in jobs})
sys.exit(0 if len(jobs) == 6 and tags == [("py3", "none")] and not any(j["smoke"] for j in jobs) else 1)' "$tmp/out" ||
	fail "bindings = bin: not one py3-none wheel per platform and backend without smoke: $(cat "$tmp/out")"
expect_run 0 "$WM" -C "$r" plan --offline
grep -q "hello_bin-0.1.0-py3-none-win_amd64.whl" "$tmp/out" || fail "bindings = bin: plan does not name py3-none wheels"
expect_run 0 "$WM" -C "$r" generate
grep -q "Import the module" "$r/.github/workflows/wheels.yml" && fail "bindings = bin: GitHub imports a module that does not exist"
grep -q "wheelmatrix-test-" "$r/.gitlab-ci.yml" && fail "bindings = bin: GitLab imports a module that does not exist"
printf 'python: {versions: ["3.12"]}\n' >>"$r/wheelmatrix.yaml"
expect_run 2 "$WM" -C "$r" list
grep -q "^wheelmatrix.yaml:6:9: error: 'python' does not apply: pyproject.toml sets bindings = \"bin\"" "$tmp/err" ||
	fail "bindings = bin with python versions: $(cat "$tmp/err")"
sed -i '$d' "$r/wheelmatrix.yaml"
printf 'distribution: {strategy: meta}\n' >>"$r/wheelmatrix.yaml"
expect_run 2 "$WM" -C "$r" list
grep -q "error: strategy 'meta' dispatches between backends' modules" "$tmp/err" || fail "bindings = bin under meta: $(cat "$tmp/err")"

# every workflow written here passes actionlint, zizmor, action-validator and shellcheck
shopt -s nullglob
workflows=("$tmp"/*/.github/workflows/wheels.yml)
((${#workflows[@]} >= 3)) || fail "only ${#workflows[@]} workflows to lint"
"$py" "$ROOT/tests/helpers/wmlint.py" "${workflows[@]}" >"$tmp/lint" 2>&1 || fail "the workflows have findings:
$(sed "s|$tmp/||" "$tmp/lint")"

finish
