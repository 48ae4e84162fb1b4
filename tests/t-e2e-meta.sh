#!/bin/bash
# t-e2e-meta.sh — strategy meta under real pip and uv, offline: the llm-rs fixture (tests/fixtures/llm-rs,
# a PyO3 crate) under matrices/llm-rs-meta.yaml, each backend built by maturin from its generated
# patch and the meta wheel built by setuptools, installed into fresh virtual environments, where
# `import llm_rs` is watched choosing, falling back, skipping, surviving an uninstall, and an
# upgrade from the rename era (the cuda wheel of matrices/llm-rs.yaml).
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
unset LLM_RS_BACKEND

# project DIR MATRIX: the fixture as a git repository under MATRIX, with what generate writes committed
project() {
	cp -RL "$ROOT/tests/fixtures/llm-rs" "$1"
	cp "$ROOT/matrices/$2" "$1/wheelmatrix.yaml"
	scratch_repo "$1"
	"$WM" -q -C "$1" generate >"$tmp/gen.log" 2>&1 || { cat "$tmp/gen.log"; fatal "generate failed in $1"; }
	commit_all "$1" fixture
}
p=$tmp/llm-rs
project "$p" llm-rs-meta.yaml

# wheel OUT VERSION PATCH [REPO]: one backend's wheel, built by maturin in a copy of the project
# (REPO, default the meta one) with PATCH applied by git (none: the project as it is) and VERSION
# in Cargo.toml
n=0
wheel() {
	local out=$1 version=$2 patch=$3 s=$tmp/src$((n += 1))
	cp -r "${4:-$p}" "$s"
	if [ "$patch" != none ]; then
		git -C "$s" apply ".wheelmatrix/patches/$patch.patch" || { fail "git apply $patch.patch failed"; return 1; }
	fi
	sed -i "s/^version = .*/version = \"$version\"/" "$s/Cargo.toml"
	if ! (cd "$s" && maturin build --release --out "$out" -i "$tools/bin/python") >"$tmp/build.log" 2>&1; then
		fail "maturin build of $patch at $version failed"
		tail -n 20 "$tmp/build.log"
		exit 1
	fi
}

for b in cuda opencl metal cpu; do
	wheel "$tmp/wheels" 0.2.15 "$b"
done
cp -r "$p/.wheelmatrix/meta" "$tmp/metasrc"  # setuptools writes build/ and *.egg-info beside its input
"$tools/bin/python" -m pip wheel -q --no-deps --no-build-isolation --no-index -w "$tmp/wheels" "$tmp/metasrc" >"$tmp/pip.log" 2>&1 ||
	{ cat "$tmp/pip.log"; exit 1; }
# a cuda build needing a runtime library that this machine lacks (the cuda wheel with one more
# DT_NEEDED entry, as a build linked against the CUDA runtime has), one at another version, and
# the rename era's llm-rs-cuda, which owned llm_rs/; the first from the cuda wheel built above (the
# same patch and version), as a build of its own would be
"$tools/bin/wheel" unpack -d "$tmp/unpacked" "$tmp"/wheels/llm_rs_cuda-0.2.15-*.whl >/dev/null
so=("$tmp"/unpacked/*/_llm_rs_cuda/llm_rs*.so)
patchelf --add-needed libmissing_cudart.so.12 "${so[0]}"
mkdir -p "$tmp/broken"
"$tools/bin/wheel" pack -d "$tmp/broken" "$tmp"/unpacked/* >/dev/null
wheel "$tmp/old" 0.2.14 cuda
project "$tmp/rename-era" llm-rs.yaml
wheel "$tmp/rename" 0.2.14 cuda "$tmp/rename-era"
# 1. each wheel's RECORD names its own top-level directories only
"$py" - "$tmp/wheels" <<'PY' || fail "the wheels' RECORD files share top-level directories"
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

# The environments have no pip of their own: the pinned pip (tests/tools/requirements.txt) works in
# each from outside (--python), as t-e2e-fixtures' does; python -m venv would install and compile a
# pip into each, the most of this script's time.
venv() {  # venv NAME: a fresh virtual environment of $py
	"$py" -m venv --without-pip "$tmp/$1" || { fail "venv $1 failed"; return 1; }
}
pip() {  # pip VENV ARGS...: the pinned pip, in VENV
	local v=$1
	shift
	"$tools/bin/python" -m pip --python "$tmp/$v/bin/python" "$@"
}
pipin() {  # pipin VENV ARGS...: pip install offline from the wheels
	local v=$1
	shift
	if ! pip "$v" install -q --no-index --find-links "$tmp/wheels" "$@" >"$tmp/pip.log" 2>&1; then
		fail "pip install $* in $v failed"
		sed 's/^/    /' "$tmp/pip.log"
		return 1
	fi
}
pipout() {  # pipout VENV ARGS...: pip uninstall
	local v=$1
	shift
	pip "$v" uninstall -q -y "$@" >"$tmp/pip.log" 2>&1 || { fail "pip uninstall $* in $v failed"; cat "$tmp/pip.log"; }
}
dists() {  # dists VENV: the installed llm-rs distributions, one per line
	pip "$1" list --format=freeze 2>/dev/null | grep '^llm-rs' | tr '\n' ' ' | sed 's/ $//'
}
# try VENV EXPECTED-EXIT CODE: runs CODE in VENV's python from an empty directory; stdout to
# $tmp/out, stderr to $tmp/err
try() {
	local v=$1 want=$2
	shift 2
	mkdir -p "$tmp/cwd"
	run env -C "$tmp/cwd" "$tmp/$v/bin/python" -c "$1"
	expect_status "$want" "$v: python -c '$1'"
}
says() {  # says FILE TEXT CONTEXT
	grep -qF -- "$2" "$1" || { fail "$3: no '$2' in:"; sed 's/^/    /' "$1"; }
}
quiet() {  # quiet CONTEXT: nothing on stderr
	[ ! -s "$tmp/err" ] || { fail "$1: stderr not empty:"; sed 's/^/    /' "$tmp/err"; }
}
show='import llm_rs, llm_rs.models
print(llm_rs.__backend__, "|", llm_rs.generate("hi"), "|", llm_rs.LLAMA, "|", llm_rs.models.LLAMA, "|", llm_rs.__doc__)
print(sorted(llm_rs.__backend_errors__.items()))'

# 2. plain llm-rs: the default backend only; the mixed layout's own imports work through it
venv a
pipin a llm-rs
[ "$(dists a)" = "llm-rs==0.2.15 llm-rs-cpu==0.2.15" ] || fail "pip install llm-rs installed: $(dists a)"
try a 0 "$show"
says "$tmp/out" "cpu | cpu: hi | llama on cpu | llama on cpu | llm-rs native module (cpu)" "plain llm-rs"
says "$tmp/out" "('cuda', 'llm-rs-cuda is not installed (pip install \"llm-rs[cuda]==0.2.15\")')" "plain llm-rs"
quiet "plain llm-rs"

# 3. llm-rs[cuda]: both; cuda first; LLM_RS_BACKEND chooses; a backend not installed or not in the matrix
pipin a "llm-rs[cuda]"
[ "$(dists a)" = "llm-rs==0.2.15 llm-rs-cpu==0.2.15 llm-rs-cuda==0.2.15" ] || fail "llm-rs[cuda] installed: $(dists a)"
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
says "$tmp/out" "('cuda', 'llm-rs-cuda 0.2.15 does not import: libmissing_cudart.so.12: cannot open shared object file" "cuda without its runtime"
says "$tmp/err" "RuntimeWarning: llm-rs: skipping backend cuda: llm-rs-cuda 0.2.15 does not import: libmissing_cudart.so.12" "cuda without its runtime"
LLM_RS_BACKEND=cuda try a 1 'import llm_rs'
says "$tmp/err" "ImportError: LLM_RS_BACKEND=cuda: llm-rs-cuda 0.2.15 does not import: libmissing_cudart.so.12" "LLM_RS_BACKEND=cuda without its runtime"

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
[ "$(dists b)" = "llm-rs==0.2.15 llm-rs-cpu==0.2.15 llm-rs-cuda==0.2.15" ] || fail "the upgrade installed: $(dists b)"
try b 0 "$show"
says "$tmp/out" "cuda | cuda: hi | llama on cuda" "upgrade with llm-rs[cuda]"
ls "$(site b)"/llm_rs/*.so >/dev/null 2>&1 && fail "the upgrade left a native module in llm_rs/"
# plain llm-rs beside it: the old native module stays in llm_rs/, shadows the dispatcher (an extension
# module is found before a .py file), and uninstalling the old llm-rs-cuda removes files of llm_rs/
venv c
pipin c "$tmp"/rename/*.whl
pipin c llm-rs
try c 0 'import llm_rs; print(getattr(llm_rs, "__backend__", "no dispatcher"), "|", llm_rs.generate("hi"))'
says "$tmp/out" "no dispatcher | cuda: hi" "llm-rs over rename-era llm-rs-cuda"
pipout c llm-rs-cuda
[ -f "$(site c)/llm_rs/__init__.py" ] && fail "uninstalling the rename-era llm-rs-cuda kept llm_rs/__init__.py: the README is wrong"
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
grep -qF 'pip uninstall llm-rs-cuda' "$ROOT/README.md" || fail "README.md does not give the migration steps"

# 8. uv installs the same wheels: llm-rs[cuda] gives cuda, plain llm-rs cpu
for extra in "[cuda]" ""; do
	rm -rf "$tmp/u"
	if ! { uv venv -q --python "$py" "$tmp/u" &&
		uv pip install -q --offline --no-index --find-links "$tmp/wheels" --python "$tmp/u/bin/python" "llm-rs$extra"; } >"$tmp/uv.log" 2>&1; then
		fail "uv pip install llm-rs$extra failed"
		sed 's/^/    /' "$tmp/uv.log"
		continue
	fi
	got=$(uv pip freeze --python "$tmp/u/bin/python" 2>/dev/null | grep '^llm-rs' | tr '\n' ' ' | sed 's/ $//')
	if [ -n "$extra" ]; then
		[ "$got" = "llm-rs==0.2.15 llm-rs-cpu==0.2.15 llm-rs-cuda==0.2.15" ] || fail "uv: llm-rs[cuda] installed: $got"
		try u 0 "$show"
		says "$tmp/out" "cuda | cuda: hi | llama on cuda | llama on cuda | llm-rs native module (cuda)" "uv: llm-rs[cuda]"
	else
		[ "$got" = "llm-rs==0.2.15 llm-rs-cpu==0.2.15" ] || fail "uv: llm-rs installed: $got"
		try u 0 "$show"
		says "$tmp/out" "cpu | cpu: hi | llama on cpu | llama on cpu | llm-rs native module (cpu)" "uv: llm-rs"
	fi
	quiet "uv: llm-rs$extra"
done

finish
