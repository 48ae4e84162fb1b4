#!/bin/bash
# t-project-layout.sh — where maturin finds the crate without [tool.maturin].manifest-path: rust/Cargo.toml
# when python-source is set or src/<name>/ is a directory (the python-pendulum layout), else the
# Cargo.toml beside pyproject.toml; init, list and check read the same manifest.  And which version
# check compares: a static [project].version is what maturin publishes, whatever the crate says (the
# pyca/cryptography layout).
. "$ROOT/tests/kit/lib.sh"

# crate DIR NAME VERSION ABI3: a Cargo.toml whose pyo3 feature tells which one was read
crate() {
	mkdir -p "$(dirname "$1")"
	cat >"$1" <<TOML
[package]
name = "$2"
version = "$3"
edition = "2021"

[lib]
crate-type = ["cdylib"]

[dependencies]
pyo3 = { version = "0.25", features = ["extension-module", "$4"] }
TOML
}

# pyproject DIR NAME EXTRA: a maturin pyproject.toml with a dynamic version
pyproject() {
	mkdir -p "$1"
	cat >"$1/pyproject.toml" <<TOML
[build-system]
requires = ["maturin>=1.0,<2.0"]
build-backend = "maturin"

[project]
name = "$2"
dynamic = ["version"]
$3
TOML
}

# expect DIR WHAT WANT: init writes python.abi3 WANT (the manifest it read), list gives cpWANT-abi3
expect() {
	local dir=$1 what=$2 want=$3 got
	rm -f "$dir/wheelmatrix.yaml"
	wm -q -C "$dir" init --offline
	expect_status 0 "$what: init"
	((status == 0)) || return 0
	grep -qx "  abi3: \"3.$want\"" "$dir/wheelmatrix.yaml" ||
		fail "$what: init wrote no 'abi3: \"3.$want\"': $(cat "$dir/wheelmatrix.yaml")"
	got=$("$WM" -C "$dir" list --format jsonl 2>"$tmp/err" | python3 -c 'import json, sys
print(" ".join(sorted({json.loads(l)["python_tag"] for l in sys.stdin})))') || true
	[ "$got" = "cp3$want" ] || fail "$what: list gives '$got', not cp3$want: $(cat "$tmp/err")"
}

# ---- python-pendulum: src/pendulum/ and rust/Cargo.toml, nothing at the root ------------------------
r=$tmp/pendulum
pyproject "$r" pendulum '
[tool.maturin]
module-name = "pendulum._pendulum"'
mkdir -p "$r/src/pendulum"
: >"$r/src/pendulum/__init__.py"
crate "$r/rust/Cargo.toml" _pendulum 3.1.0 abi3-py39
expect "$r" "src/pendulum/ with rust/Cargo.toml" 9

# ---- python-source set: rust/Cargo.toml wins over a Cargo.toml beside pyproject.toml ---------------
r=$tmp/source
pyproject "$r" demo-rs '
[tool.maturin]
python-source = "python"'
crate "$r/rust/Cargo.toml" demo-rs 1.0.0 abi3-py310
crate "$r/Cargo.toml" demo-root 1.0.0 abi3-py38
expect "$r" "python-source with rust/Cargo.toml" 10

# ---- neither: the Cargo.toml beside pyproject.toml, though rust/Cargo.toml exists ---------------------
r=$tmp/flat
pyproject "$r" demo-rs ''
crate "$r/rust/Cargo.toml" demo-rs 1.0.0 abi3-py310
crate "$r/Cargo.toml" demo-root 1.0.0 abi3-py38
expect "$r" "a flat layout beside rust/" 8
rm "$r/Cargo.toml"
wm -q -C "$r" init --offline --force
((status != 0)) || fail "a flat layout without Cargo.toml: init succeeded"
expect_err "Cargo.toml: error: no such file" "a flat layout without Cargo.toml"

# ---- check reads the same manifest from a commit -------------------------------------------------------
r=$tmp/pendulum
"$WM" -q -C "$r" generate
scratch_repo "$r"
commit_all "$r"
"$WM" -C "$r" check >"$tmp/out" 2>&1 || fail "check on the pendulum layout: $(cat "$tmp/out")"
"$WM" -C "$r" check --rev HEAD >"$tmp/out" 2>&1 || fail "check --rev HEAD on the pendulum layout: $(cat "$tmp/out")"

# ---- pyca/cryptography: version 45.0.1 in pyproject.toml, 0.1.0 in src/rust/Cargo.toml ---------------
r=$tmp/cryptography
mkdir -p "$r"
cat >"$r/pyproject.toml" <<'TOML'
[build-system]
requires = ["maturin>=1,<2"]
build-backend = "maturin"

[project]
name = "cryptography"
version = "45.0.1"
requires-python = ">=3.7,!=3.9.0,!=3.9.1"

[tool.maturin]
python-source = "src"
python-packages = ["cryptography"]
manifest-path = "src/rust/Cargo.toml"
module-name = "cryptography.hazmat.bindings._rust"
features = ["pyo3/abi3-py37"]
TOML
crate "$r/src/rust/Cargo.toml" cryptography-rust 0.1.0 abi3
printf 'wheelmatrix: 1\nplatforms: [linux-x86_64]\n' >"$r/wheelmatrix.yaml"
"$WM" -q -C "$r" generate
scratch_repo "$r"
commit_all "$r"
"$WM" -C "$r" check >"$tmp/out" 2>&1 || fail "check with a static version: $(cat "$tmp/out")"
"$WM" -C "$r" plan --offline >"$tmp/out" 2>&1 || fail "plan with a static version: $(cat "$tmp/out")"
grep -qx "version 45.0.1" "$tmp/out" || fail "plan does not take the static version: $(cat "$tmp/out")"
grep -qF "cryptography-45.0.1-cp37-abi3-manylinux_2_28_x86_64.whl" "$tmp/out" || fail "plan: $(cat "$tmp/out")"
finish
