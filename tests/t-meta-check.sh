#!/bin/bash
# t-meta-check.sh — `check` of a strategy meta project: the meta package's pins and extras, its copy of
# the Python package as each source (working tree, --staged, --rev) holds it, and the meta patches.
. "$ROOT/tests/kit/lib.sh"

check() {  # check EXIT ARGS...
	local want=$1
	shift
	wm -C "$r" check "$@"
	expect_status "$want" "check $*"
}

says() {  # says WHAT: stderr is exactly standard input
	expect_same - "$tmp/err" "$1: stderr"
}

r=$tmp/repo
mkdir -p "$r/demo"
maturin_project "$r" demo 1.2.0
cat >>"$r/pyproject.toml" <<'EOF'

[tool.maturin]
features = ["pyo3/extension-module"]
EOF
cat >>"$r/Cargo.toml" <<'EOF'
edition = "2021"

[lib]
name = "demo"
crate-type = ["cdylib"]

[features]
cublas = []
EOF
cat >"$r/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
python: {versions: ["3.12"]}
platforms: [linux-x86_64, macos-arm64]
backends:
  cuda: {features: [cublas], platforms: [linux-x86_64]}
  cpu: {default: true}
distribution: {strategy: meta}
ci: {}
EOF
printf 'from .demo import *\n' >"$r/demo/__init__.py"
printf 'def f() -> int: ...\n' >"$r/demo/demo.pyi"
scratch_repo "$r"
"$WM" -q -C "$r" generate
commit_all "$r"

# 1. generated and committed: all three sources agree
check 0
check 0 --staged
check 0 --rev HEAD

# 2. a module added to the Python package: missing from the meta package in the index and the working tree
printf 'X = 1\n' >"$r/demo/extra.py"
check 0 --staged                   # not staged yet: the index is as committed
git -C "$r" add demo/extra.py
check 1 --staged
says "a staged new module" <<'EOF'
.wheelmatrix/meta/demo/extra.py: error: '.wheelmatrix/meta/demo/extra.py' is missing from the index: run 'wheelmatrix generate' and 'git add' it
EOF
check 0 --rev HEAD
"$WM" -q -C "$r" generate
git -C "$r" add -A
check 0 --staged
git -C "$r" commit -qm extra

# 3. a changed stub is stale until regenerated
printf 'def f() -> str: ...\n' >"$r/demo/demo.pyi"
check 1
says "a changed stub" <<'EOF'
.wheelmatrix/meta/demo/demo.pyi:4:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'
EOF
git -C "$r" checkout -q -- demo/demo.pyi

# 4. the meta package's pins, hand-edited: a wrong version, a missing extra, a wrong pin
meta=$r/.wheelmatrix/meta/pyproject.toml
cp "$meta" "$tmp/meta.toml"
sed -i 's/^version = "1.2.0"/version = "1.1.0"/; s/^cuda = .*//; s/"demo-cpu==1.2.0"/"demo-cpu==1.2.0.post1"/' "$meta"
check 1
says "hand-edited pins" <<'EOF'
.wheelmatrix/meta/pyproject.toml:10:1: error: edited by hand since it was generated: move the change into wheelmatrix.yaml and run 'wheelmatrix generate' (--force drops the edit)
.wheelmatrix/meta/pyproject.toml:10:11: error: the meta package's version is '1.1.0', but the project's is 1.2.0 (pyproject.toml): run 'wheelmatrix generate'
.wheelmatrix/meta/pyproject.toml:11:17: error: [project].dependencies requires 'demo-cpu==1.2.0.post1', but the project's version is 1.2.0: the meta package must pin demo-cpu==1.2.0; run 'wheelmatrix generate'
.wheelmatrix/meta/pyproject.toml:13:1: error: no extra 'cuda': 'pip install "demo[cuda]"' would not install demo-cuda; run 'wheelmatrix generate'
.wheelmatrix/meta/pyproject.toml:15:8: error: the extra 'cpu' requires 'demo-cpu==1.2.0.post1', but the project's version is 1.2.0: the meta package must pin demo-cpu==1.2.0; run 'wheelmatrix generate'
EOF
cp "$tmp/meta.toml" "$meta"
check 0

# 5. the version moves on in pyproject.toml and Cargo.toml: every pin is stale, and says so
sed -i 's/^version = "1.2.0"/version = "1.3.0"/' "$r/pyproject.toml" "$r/Cargo.toml"
check 1
grep -q "^.wheelmatrix/meta/pyproject.toml:10:11: error: the meta package's version is '1.2.0', but the project's is 1.3.0 (pyproject.toml)" "$tmp/err" ||
	fail "a new version: $(cat "$tmp/err")"
grep -q "^.wheelmatrix/meta/pyproject.toml:[0-9]*:[0-9]*: error: the extra 'cuda' requires 'demo-cuda==1.2.0; sys_platform == \"linux\" and platform_machine == \"x86_64\"', but the project's version is 1.3.0" "$tmp/err" ||
	fail "a new version, the cuda pin: $(cat "$tmp/err")"
git -C "$r" checkout -q -- .

# 6. a meta patch whose python-source was edited away
patch=$r/.wheelmatrix/patches/cuda.patch
sed -i 's|^+python-source = .*|+python-source = "python"|' "$patch"
check 1
grep -q "^.wheelmatrix/patches/cuda.patch:1:1: error: the patched pyproject.toml takes its Python sources from 'python', not '.wheelmatrix/backends/cuda': maturin would not put the native module into _demo_cuda" "$tmp/err" ||
	fail "python-source: $(cat "$tmp/err")"
git -C "$r" checkout -q -- .
check 0
finish
