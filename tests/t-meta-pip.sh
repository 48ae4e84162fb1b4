#!/bin/bash
# t-meta-pip.sh — strategy meta under real pip, offline: stand-in backends (C extension modules built
# against Python.h and packed as maturin lays out each patched project) and the meta wheel that
# setuptools builds are installed into fresh virtual environments, and `import llm_rs` is watched
# choosing, falling back, skipping, surviving an uninstall, and an upgrade from the rename era.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
unset PYTHONPATH PYTHONHOME PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS LLM_RS_BACKEND
py=/usr/bin/python3
skip() { echo "SKIP: $*"; exit 77; }
[ -x "$py" ] || skip "$py is missing: install Debian's python3"
"$py" -c 'import ensurepip, venv' 2>/dev/null || skip "$py has no venv: install python3-venv"
"$py" -m pip --version >/dev/null 2>&1 || skip "$py has no pip: install python3-pip"
"$py" -c 'import setuptools, wheel' 2>/dev/null || skip "$py lacks setuptools or wheel: install python3-setuptools python3-wheel"
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
[ -f "$inc/Python.h" ] || skip "$inc/Python.h is missing: install python3-dev"
command -v gcc >/dev/null || skip "gcc is missing: install build-essential"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
standin=$ROOT/tests/standin

# the project: llm-rs's shape (a mixed layout: llm_rs/__init__.py imports the native llm_rs.llm_rs,
# whose init registers llm_rs.models in sys.modules), under the bundled meta example matrix
p=$tmp/llm-rs
mkdir -p "$p/llm_rs"
cp "$ROOT/matrices/llm-rs-meta.yaml" "$p/wheelmatrix.yaml"
cat >"$p/pyproject.toml" <<'TOML'
[build-system]
requires = ["maturin>=1.0,<2.0"]
build-backend = "maturin"

[project]
name = "llm-rs"
description = "A stand-in of llm-rs"
requires-python = ">=3.8"
dynamic = ["version"]

[tool.maturin]
features = ["pyo3/extension-module"]
TOML
cat >"$p/Cargo.toml" <<'TOML'
[package]
name = "llm-rs"
version = "0.2.15"
edition = "2021"

[lib]
name = "llm_rs"
crate-type = ["cdylib"]

[features]
cublas = []
clblast = []
metal = []
TOML
printf 'from .llm_rs import *\nfrom .models import LLAMA\n\n__doc__ = llm_rs.__doc__\n' >"$p/llm_rs/__init__.py"
printf 'BACKEND: str\ndef generate(prompt: str) -> str: ...\n' >"$p/llm_rs/llm_rs.pyi"
: >"$p/llm_rs/py.typed"
git init -q "$p"
"$WM" -q -C "$p" generate >"$tmp/gen.log" 2>&1 || { cat "$tmp/gen.log"; exit 1; }

# wheel OUT VERSION PATCH BACKEND [GCC ARGS]: one stand-in wheel, built from a copy of the project
# with PATCH applied by git (none: the project as it is) and VERSION in Cargo.toml
n=0
wheel() {
	local out=$1 version=$2 patch=$3 backend=$4 s
	shift 4
	n=$((n + 1))
	s=$tmp/src$n
	cp -r "$p" "$s"
	rm -rf "$s/.git"
	if [ "$patch" != none ]; then
		(cd "$s" && git apply ".wheelmatrix/patches/$patch.patch") || { bad "git apply $patch.patch failed"; return 1; }
	fi
	sed -i "s/^version = .*/version = \"$version\"/" "$s/Cargo.toml"
	gcc -shared -fPIC -O1 -I"$inc" -DLEAF=llm_rs -DBACKEND="\"$backend\"" -DSUBMODULES='"llm_rs"' \
		-o "$s/native.so" "$standin/backend.c" "$@"
	"$py" "$standin/maturin.py" "$s" "$s/native.so" "$out" >/dev/null
}

for b in cuda opencl metal cpu; do
	wheel "$tmp/wheels" 0.2.15 "$b" "$b"
done
cp -r "$p/.wheelmatrix/meta" "$tmp/metasrc"  # setuptools writes build/ and *.egg-info beside its input
"$py" -m pip wheel -q --no-deps --no-build-isolation --no-index -w "$tmp/wheels" "$tmp/metasrc" >"$tmp/pip.log" 2>&1 ||
	{ cat "$tmp/pip.log"; exit 1; }
# a cuda build needing a runtime library that this machine lacks, one at another version, and the
# rename era's llm-rs-cuda, which owned llm_rs/
mkdir -p "$tmp/rt"
printf 'int standin_runtime_version(void) { return 12040; }\n' >"$tmp/rt/rt.c"
gcc -shared -fPIC -o "$tmp/rt/libstandin_cudart.so" "$tmp/rt/rt.c"
wheel "$tmp/broken" 0.2.15 cuda cuda -DNEEDS_RUNTIME -L"$tmp/rt" -Wl,-rpath,"$tmp/rt" -lstandin_cudart
rm "$tmp/rt/libstandin_cudart.so"
wheel "$tmp/old" 0.2.14 cuda cuda
sed -i 's/^name = "llm-rs"/name = "llm-rs-cuda"/' "$p/pyproject.toml"
wheel "$tmp/rename" 0.2.14 none cuda
sed -i 's/^name = "llm-rs-cuda"/name = "llm-rs"/' "$p/pyproject.toml"

# 1. each wheel's RECORD names its own top-level directories only
"$py" - "$tmp/wheels" <<'PY' || bad "the wheels' RECORD files share top-level directories"
import csv, io, os, sys, zipfile
owners, failed = {}, False
for w in sorted(os.listdir(sys.argv[1])):
    with zipfile.ZipFile(os.path.join(sys.argv[1], w)) as z:
        record = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
        tops = {row[0].split("/")[0] for row in csv.reader(io.TextIOWrapper(z.open(record), "utf-8")) if row}
    dist = w.split("-")[0]
    want = {dist + "-0.2.15.dist-info", "llm_rs" if dist == "llm_rs" else "_" + dist}
    if tops != want:
        print("%s: top-level %s, not %s" % (w, sorted(tops), sorted(want)))
        failed = True
    for t in tops:
        if t in owners:
            print("%s and %s both own %s/" % (owners[t], w, t))
            failed = True
        owners[t] = w
if len(owners) != 10:
    print("%d top-level names in the wheels, not 10 (5 wheels)" % len(owners))
    failed = True
sys.exit(failed)
PY

venv() {  # venv NAME: a fresh virtual environment of $py
	"$py" -m venv "$tmp/$1" || { bad "venv $1 failed"; return 1; }
}
pipin() {  # pipin VENV ARGS...: pip install offline from the wheels
	local v=$1
	shift
	if ! "$tmp/$v/bin/pip" install -q --no-index --find-links "$tmp/wheels" "$@" >"$tmp/pip.log" 2>&1; then
		bad "pip install $* in $v failed"
		sed 's/^/    /' "$tmp/pip.log"
		return 1
	fi
}
pipout() {  # pipout VENV ARGS...: pip uninstall
	local v=$1
	shift
	"$tmp/$v/bin/pip" uninstall -q -y "$@" >"$tmp/pip.log" 2>&1 || { bad "pip uninstall $* in $v failed"; cat "$tmp/pip.log"; }
}
dists() {  # dists VENV: the installed llm-rs distributions, one per line
	"$tmp/$1/bin/pip" list --format=freeze 2>/dev/null | grep '^llm-rs' | tr '\n' ' ' | sed 's/ $//'
}
# try VENV EXPECTED-EXIT CODE: runs CODE in VENV's python from an empty directory; stdout to
# $tmp/out, stderr to $tmp/err
try() {
	local v=$1 want=$2 got
	shift 2
	mkdir -p "$tmp/cwd"
	set +e
	(cd "$tmp/cwd" && "$tmp/$v/bin/python" -c "$1") >"$tmp/out" 2>"$tmp/err"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		bad "$v: python exited $got, not $want: $1"
		sed 's/^/    /' "$tmp/err"
	fi
}
says() {  # says FILE TEXT CONTEXT
	grep -qF -- "$2" "$1" || { bad "$3: no '$2' in:"; sed 's/^/    /' "$1"; }
}
quiet() {  # quiet CONTEXT: nothing on stderr
	[ ! -s "$tmp/err" ] || { bad "$1: stderr not empty:"; sed 's/^/    /' "$tmp/err"; }
}
show='import llm_rs, llm_rs.models
print(llm_rs.__backend__, "|", llm_rs.generate("hi"), "|", llm_rs.LLAMA, "|", llm_rs.models.LLAMA, "|", llm_rs.__doc__)
print(sorted(llm_rs.__backend_errors__.items()))'

# 2. plain llm-rs: the default backend only; the mixed layout's own imports work through it
venv a
pipin a llm-rs
[ "$(dists a)" = "llm-rs==0.2.15 llm-rs-cpu==0.2.15" ] || bad "pip install llm-rs installed: $(dists a)"
try a 0 "$show"
says "$tmp/out" "cpu | cpu: hi | llama on cpu | llama on cpu | stand-in native module (cpu)" "plain llm-rs"
says "$tmp/out" "('cuda', 'llm-rs-cuda is not installed (pip install \"llm-rs[cuda]==0.2.15\")')" "plain llm-rs"
quiet "plain llm-rs"

# 3. llm-rs[cuda]: both; cuda first; LLM_RS_BACKEND chooses; a backend not installed or not in the matrix
pipin a "llm-rs[cuda]"
[ "$(dists a)" = "llm-rs==0.2.15 llm-rs-cpu==0.2.15 llm-rs-cuda==0.2.15" ] || bad "llm-rs[cuda] installed: $(dists a)"
try a 0 "$show"
says "$tmp/out" "cuda | cuda: hi | llama on cuda | llama on cuda" "llm-rs[cuda]"
quiet "llm-rs[cuda]"
LLM_RS_BACKEND=cpu try a 0 "$show"
says "$tmp/out" "cpu | cpu: hi | llama on cpu" "LLM_RS_BACKEND=cpu"
LLM_RS_BACKEND=metal try a 1 'import llm_rs'
says "$tmp/err" "ImportError: LLM_RS_BACKEND=metal: llm-rs-metal is not installed (pip install \"llm-rs[metal]==0.2.15\"); installed backends: cuda, cpu" "LLM_RS_BACKEND=metal"
LLM_RS_BACKEND=gpu try a 1 'import llm_rs'
says "$tmp/err" "ImportError: LLM_RS_BACKEND=gpu names no backend of llm-rs: choose one of cuda, opencl, metal, cpu" "LLM_RS_BACKEND=gpu"

# 4. a cuda build whose runtime library is missing: cpu, with the reason kept and warned
pipin a --force-reinstall --no-deps "$tmp"/broken/*.whl
try a 0 "$show"
says "$tmp/out" "cpu | cpu: hi" "cuda without its runtime"
says "$tmp/out" "('cuda', 'llm-rs-cuda 0.2.15 does not import: libstandin_cudart.so: cannot open shared object file" "cuda without its runtime"
says "$tmp/err" "RuntimeWarning: llm-rs: skipping backend cuda: llm-rs-cuda 0.2.15 does not import: libstandin_cudart.so" "cuda without its runtime"
LLM_RS_BACKEND=cuda try a 1 'import llm_rs'
says "$tmp/err" "ImportError: LLM_RS_BACKEND=cuda: llm-rs-cuda 0.2.15 does not import: libstandin_cudart.so" "LLM_RS_BACKEND=cuda without its runtime"

# 5. a backend at another version is skipped before it is imported
pipin a --force-reinstall --no-deps "$tmp"/old/*.whl
try a 0 "$show"
says "$tmp/out" "cpu | cpu: hi" "llm-rs-cuda 0.2.14"
says "$tmp/err" "RuntimeWarning: llm-rs: skipping backend cuda: llm-rs-cuda 0.2.14 is installed, but llm-rs 0.2.15 needs llm-rs-cuda==0.2.15" "llm-rs-cuda 0.2.14"
try a 0 'import sys, llm_rs; print([m for m in sys.modules if m.startswith("_llm_rs_cuda")])'
says "$tmp/out" "[]" "llm-rs-cuda 0.2.14 was imported"

# 6. uninstalling one backend leaves the other working, either way round; none left: ImportError
pipin a --force-reinstall --no-deps "$tmp"/wheels/llm_rs_cuda-*.whl
pipout a llm-rs-cuda
try a 0 "$show"
says "$tmp/out" "cpu | cpu: hi | llama on cpu" "cuda uninstalled"
quiet "cuda uninstalled"
pipin a "llm-rs[cuda]"
pipout a llm-rs-cpu
try a 0 "$show"
says "$tmp/out" "cuda | cuda: hi | llama on cuda" "cpu uninstalled"
quiet "cpu uninstalled"
pipout a llm-rs-cuda
try a 1 'import llm_rs'
says "$tmp/err" "ImportError: no backend of llm-rs could be loaded:" "no backend"
says "$tmp/err" "  cpu: llm-rs-cpu is not installed (pip install \"llm-rs[cpu]==0.2.15\")" "no backend"

# 7. the rename era's llm-rs-cuda 0.2.14 owned llm_rs/ (llm_rs/llm_rs.*.so): what the README says
site() { echo "$tmp/$1/lib/python3.$("$py" -c 'import sys; print(sys.version_info[1])')/site-packages"; }
venv b
pipin b "$tmp"/rename/*.whl
try b 0 'import llm_rs; print(llm_rs.generate("hi"))'
says "$tmp/out" "cuda: hi" "rename-era llm-rs-cuda"
# upgrading with the extra: pip replaces llm-rs-cuda (removing its llm_rs/ files) before it writes llm-rs
pipin b "llm-rs[cuda]"
[ "$(dists b)" = "llm-rs==0.2.15 llm-rs-cpu==0.2.15 llm-rs-cuda==0.2.15" ] || bad "the upgrade installed: $(dists b)"
try b 0 "$show"
says "$tmp/out" "cuda | cuda: hi | llama on cuda" "upgrade with llm-rs[cuda]"
ls "$(site b)"/llm_rs/*.so >/dev/null 2>&1 && bad "the upgrade left a native module in llm_rs/"
# plain llm-rs beside it: the old native module stays in llm_rs/, shadows the dispatcher (an extension
# module is found before a .py file), and uninstalling the old llm-rs-cuda removes files of llm_rs/
venv c
pipin c "$tmp"/rename/*.whl
pipin c llm-rs
try c 0 'import llm_rs; print(getattr(llm_rs, "__backend__", "no dispatcher"), "|", llm_rs.generate("hi"))'
says "$tmp/out" "no dispatcher | cuda: hi" "llm-rs over rename-era llm-rs-cuda"
pipout c llm-rs-cuda
[ -f "$(site c)/llm_rs/__init__.py" ] && bad "uninstalling the rename-era llm-rs-cuda kept llm_rs/__init__.py: the README is wrong"
try c 1 'import llm_rs; llm_rs.generate'
says "$tmp/err" "AttributeError: module 'llm_rs' has no attribute 'generate'" "after uninstalling rename-era llm-rs-cuda"
# the README's repair
pipin c --force-reinstall llm-rs
try c 0 "$show"
says "$tmp/out" "cpu | cpu: hi | llama on cpu" "after the repair"
# the README's migration: uninstall first, then install with the extra
venv d
pipin d "$tmp"/rename/*.whl
pipout d llm-rs-cuda
pipin d "llm-rs[cuda]"
try d 0 "$show"
says "$tmp/out" "cuda | cuda: hi | llama on cuda" "migration"
quiet "migration"
grep -qF 'pip uninstall llm-rs-cuda' "$ROOT/README.md" || bad "README.md does not give the migration steps"

exit "$fail"
