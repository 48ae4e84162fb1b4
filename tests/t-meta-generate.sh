#!/bin/bash
# t-meta-generate.sh — strategy meta: the reviewed files of three layouts, the patches as git and tomllib
# read them, the meta package as setuptools builds it, staleness when the Python package changes, and errors.
# heavy: pip builds the meta packages' wheels
. "$ROOT/tests/kit/lib.sh"
py=/usr/bin/python3

matrix() {  # matrix DIR [PLATFORMS]: a meta matrix of two GPU backends and the default
	cat >"$1/wheelmatrix.yaml" <<YAML
wheelmatrix: 1
python: {versions: ["3.11", "3.12"]}
platforms: [${2:-linux-x86_64, macos-arm64, windows-x86_64}]
backends:
  cuda: {features: [cublas], platforms: [linux-x86_64, windows-x86_64]}
  metal: {features: [metal], platforms: ["macos-*"]}
  cpu: {default: true}
distribution: {strategy: meta}
ci: {}
YAML
}

cargo() {  # cargo FILE NAME
	cat >"$1" <<TOML
[package]
name = "$2"
version = "1.2.0-rc.1"
edition = "2021"

[lib]
name = "${2//-/_}"
crate-type = ["cdylib"]

[features]
cublas = []
metal = []
TOML
}

# 1. the layouts: llm-rs itself (mixed, beside pyproject.toml), a pure-Rust crate in a subdirectory,
#    and the src/ layout with the crate in rust/
#    (llm-rs 0.2.15's sdist, from the corpus of tests/tools/corpus.txt: `make testdata` installs it)
testdata corpus/llm-rs-0.2.15/pyproject.toml
llmrs=$data/corpus/llm-rs-0.2.15
cases=()
r=$tmp/llm-rs
mkdir -p "$r/llm_rs"
cp "$llmrs/pyproject.toml" "$llmrs/Cargo.toml" "$r/"
{ sed 's/strategy: rename/strategy: meta/; /^ci:/,/^$/d' "$ROOT/matrices/llm-rs.yaml"; echo 'ci: {}'; } >"$r/wheelmatrix.yaml"
printf 'from .llm_rs import *\n\n__doc__ = llm_rs.__doc__\n' >"$r/llm_rs/__init__.py"
printf 'class Model:\n    def generate(self, prompt: str) -> str: ...\n' >"$r/llm_rs/llm_rs.pyi"
mkdir -p "$r/llm_rs/convert" "$r/llm_rs/__pycache__"
printf 'def convert(path: str) -> None:\n    pass\n' >"$r/llm_rs/convert/__init__.py"
: >"$r/llm_rs/py.typed"
: >"$r/llm_rs/__pycache__/x.cpython-311.pyc"
printf 'not carried\n' >"$r/llm_rs/data.json"
cases+=(llm-rs)

r=$tmp/pure
mkdir -p "$r/py"
matrix "$r"
sed -i 's|^ci: {}|project: {pyproject: py/pyproject.toml}\nci: {}|' "$r/wheelmatrix.yaml"
cargo "$r/py/Cargo.toml" fastcalc
cat >"$r/py/pyproject.toml" <<'TOML'
[build-system]
requires = ["maturin>=1.5,<2"]
build-backend = "maturin"

[project]
name = "fastcalc"
dynamic = ["version"]
requires-python = ">=3.9"
description = 'Fast "calc"'
dependencies = ["numpy>=1.24"]

[project.optional-dependencies]
Plot = ["matplotlib"]

[tool.maturin]
features = ["pyo3/extension-module"]
TOML
printf 'def add(a: int, b: int) -> int: ...\n' >"$r/py/fastcalc.pyi"
cases+=(pure)

r=$tmp/src
mkdir -p "$r/rust" "$r/src/geo_rs"
matrix "$r" "linux-x86_64, linux-aarch64, macos-arm64"
sed -i 's/platforms: \[linux-x86_64, windows-x86_64\]/platforms: ["linux-*"]/' "$r/wheelmatrix.yaml"
cargo "$r/rust/Cargo.toml" geo-rs
sed -i 's/^name = "geo_rs"/name = "_geo"/' "$r/rust/Cargo.toml"
cat >"$r/pyproject.toml" <<'TOML'
[build-system]
requires = ["maturin>=1.5,<2"]
build-backend = "maturin"

[project]
name = "geo-rs"
version = "1.2.0rc1"

[tool.maturin]
manifest-path = "rust/Cargo.toml"
module-name = "geo_rs._geo"
TOML
printf 'from ._geo import *\n' >"$r/src/geo_rs/__init__.py"
cases+=(src)

for name in "${cases[@]}"; do
	r=$tmp/$name
	scratch_repo "$r"
	commit_all "$r"
	expect_run 0 "$WM" -C "$r" generate
	# what generate says it wrote is exactly the reviewed tree, file for file
	sed -n 's/^wrote //p' "$tmp/out" | sort >"$tmp/wrote"
	# WM_UPDATE=1 rewrites the reviewed tree: read its diff before committing it
	if [ "${WM_UPDATE:-}" = 1 ]; then
		rm -rf "$ROOT/tests/expected/meta/$name"
		while read -r f; do
			mkdir -p "$(dirname "$ROOT/tests/expected/meta/$name/$f")"
			cp "$r/$f" "$ROOT/tests/expected/meta/$name/$f"
		done <"$tmp/wrote"
	fi
	(cd "$ROOT/tests/expected/meta/$name" && find . -type f | sed 's|^\./||' | sort) >"$tmp/want"
	expect_same "$tmp/want" "$tmp/wrote" "$name: the files generate wrote (those of tests/expected/meta/$name)"
	while read -r f; do
		expect_same "$ROOT/tests/expected/meta/$name/$f" "$r/$f" "$name: $f (tests/expected/meta/$name/$f)"
	done <"$tmp/want"
	expect_run 0 "$WM" -q -C "$r" generate --check
	# each patch applies with git, and the result says what maturin needs
	for patch in "$r"/.wheelmatrix/patches/*.patch; do
		b=$(basename "$patch" .patch)
		git -C "$r" apply --check "$patch" || fail "$name: git apply rejects $b.patch"
		(cd "$r" && git apply "$patch")
		pyproject=$(cd "$r" && git diff --name-only)
		"$py" - "$r/$pyproject" "$b" "$r" <<'PY' || fail "$name: the $b variant is not what maturin needs"
import os, sys, tomllib
path, backend, root = sys.argv[1:]
t = tomllib.load(open(path, "rb"))
m = t["tool"]["maturin"]
pkg, leaf = m["module-name"].split(".", 1)
src = os.path.normpath(os.path.join(os.path.dirname(path), m["python-source"]))
assert pkg.endswith("_" + backend) and pkg.startswith("_"), m["module-name"]
assert "." not in leaf, leaf
assert os.path.isfile(os.path.join(src, pkg, "__init__.py")), src
assert os.listdir(src) == [pkg], os.listdir(src)
assert t["project"]["name"].endswith("-" + backend), t["project"]["name"]
PY
		git -C "$r" checkout -q -- .
	done
	# the meta package builds with Debian's setuptools, offline, and holds only its own package
	if "$py" -c 'import setuptools, wheel' 2>/dev/null && "$py" -m pip --version >/dev/null 2>&1; then
		rm -rf "$tmp/wheels" "$tmp/metasrc"
		cp -r "$r/.wheelmatrix/meta" "$tmp/metasrc"  # setuptools writes build/ and *.egg-info beside its input
		if "$py" -m pip wheel -q --no-deps --no-build-isolation --no-index -w "$tmp/wheels" "$tmp/metasrc" \
				>"$tmp/pip.log" 2>&1; then
			"$py" - "$tmp"/wheels/*.whl "$name" <<'PY' || fail "$name: the meta wheel is not as expected"
import sys, zipfile
whl, name = sys.argv[1:]
files = sorted(n for n in zipfile.ZipFile(whl).namelist() if ".dist-info/" not in n)
want = {
    "llm-rs": ["llm_rs/__init__.py", "llm_rs/convert/__init__.py", "llm_rs/llm_rs.py", "llm_rs/llm_rs.pyi",
               "llm_rs/py.typed"],
    "pure": ["fastcalc/__init__.py", "fastcalc/__init__.pyi", "fastcalc/py.typed"],
    "src": ["geo_rs/__init__.py", "geo_rs/_geo.py"],
}[name]
assert files == want, files
assert whl.endswith("-py3-none-any.whl"), whl
PY
		else
			fail "$name: pip wheel failed: $(tail -5 "$tmp/pip.log")"
		fi
	else
		fail "$py lacks setuptools, wheel or pip to build the meta wheel; install them with: sudo apt-get install -y python3-setuptools python3-wheel python3-pip"
	fi
done

# 2. the meta package follows the Python package: a changed module is stale, a new one missing
r=$tmp/src
echo 'VERSION = 2' >>"$r/src/geo_rs/__init__.py"
printf 'X = 1\n' >"$r/src/geo_rs/extra.py"
expect_run 1 "$WM" -q -C "$r" generate --check
[ "$(cat "$tmp/out")" = ".wheelmatrix/meta/geo_rs/__init__.py: out of date
.wheelmatrix/meta/geo_rs/extra.py: missing" ] || fail "a changed package: --check said '$(cat "$tmp/out")'"

# 3. python-source as written by hand ("./python/") is maturin's python source: the package there is carried
r=$tmp/pysrc
mkdir -p "$r/python/pysrc/sub" "$r/pysrc"
matrix "$r"
cargo "$r/Cargo.toml" pysrc
printf '[project]\nname = "pysrc"\nversion = "2.0"\n[tool.maturin]\npython-source = "./python/"\n' >"$r/pyproject.toml"
printf 'from .pysrc import *\n' >"$r/python/pysrc/__init__.py"
: >"$r/python/pysrc/sub/__init__.pyi"
printf 'not the python source\n' >"$r/pysrc/__init__.py"
expect_run 0 "$WM" -C "$r" generate
[ "$(grep '/meta/' "$tmp/out")" = "wrote .wheelmatrix/meta/pyproject.toml
wrote .wheelmatrix/meta/pysrc/__init__.py
wrote .wheelmatrix/meta/pysrc/sub/__init__.pyi
wrote .wheelmatrix/meta/pysrc/pysrc.py" ] || fail "python-source: $(cat "$tmp/out")"
grep -q '^packages = \["pysrc", "pysrc.sub"\]$' "$r/.wheelmatrix/meta/pyproject.toml" || fail "python-source: the packages are not listed"
grep -qx 'from .pysrc import \*' "$r/.wheelmatrix/meta/pysrc/__init__.py" || fail "python-source: the wrong __init__.py was carried"
printf '[project]\nname = "pysrc"\nversion = "2.0"\n[tool.maturin]\npython-source = "../elsewhere"\n' >"$r/pyproject.toml"
expect_run 2 "$WM" -C "$r" generate --check
[ "$(head -n 1 "$tmp/err")" = "pyproject.toml:5:17: error: invalid path '../elsewhere' in [tool.maturin].python-source: it leaves the repository" ] ||
	fail "python-source outside: $(cat "$tmp/err")"

# 4. errors: no version to pin; an extra that takes a backend's name; a dotted module without a package
r=$tmp/errors
mkdir -p "$r"
matrix "$r"
printf '[package]\nname = "nover"\nedition = "2021"\n[features]\ncublas = []\nmetal = []\n' >"$r/Cargo.toml"
printf '[project]\nname = "nover"\ndynamic = ["version"]\n' >"$r/pyproject.toml"
expect_run 2 "$WM" -C "$r" generate
[ "$(cat "$tmp/err")" = "pyproject.toml: error: strategy 'meta' pins every backend to the project's version, but neither [project].version nor Cargo.toml's package.version gives one" ] ||
	fail "no version: $(cat "$tmp/err")"
cargo "$r/Cargo.toml" nover
printf '[project]\nname = "nover"\nversion = "1.0"\n\n[project.optional-dependencies]\nCUDA = ["cupy"]\n' >"$r/pyproject.toml"
expect_run 2 "$WM" -C "$r" generate
grep -q "^pyproject.toml:6:8: error: the extra 'CUDA' has the name of the backend 'cuda'" "$tmp/err" ||
	fail "extra collision: $(cat "$tmp/err")"
printf '[project]\nname = "nover"\nversion = "1.0"\n[tool.maturin]\nmodule-name = "nover._core"\n' >"$r/pyproject.toml"
expect_run 2 "$WM" -C "$r" generate
[ "$(cat "$tmp/err")" = "pyproject.toml: error: strategy 'meta' needs a Python package 'nover' for the module 'nover._core' (maturin's mixed layout), and the project has none" ] ||
	fail "dotted pure module: $(cat "$tmp/err")"
[ -e "$r/.wheelmatrix" ] && fail "a failed generate wrote files"
finish
