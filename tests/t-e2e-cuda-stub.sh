#!/bin/bash
# t-e2e-cuda-stub.sh — a CUDA wheel is import-tested on a runner without a GPU or a toolkit: the
# generated GitHub build job of tests/fixtures/cuda-stub (a PyO3 module that calls
# cudaRuntimeGetVersion in libcudart and cuDriverGetVersion in libcuda when it is imported) runs
# on this machine (tests/helpers/replay-github.py: the container's script runs here), with the real CUDA
# runtime of nvidia-cuda-runtime-cu12 (tests/tools/install-cuda.sh) laid out as the toolkit under
# CUDA_PATH, and proves that:
#
# - the build links both libraries, and the repaired wheel (the pinned auditwheel, with the toolkit
#   catalog's excludes) needs them but holds neither, under any name;
# - the build copies what the import test needs from the toolkit's directories (the catalog's
#   `smoke-libraries`): libcuda.so.1 from the stubs directory's libcuda.so, libcudart.so.12 from
#   lib64; and the job's import test passes with them on its library path;
# - the same generated import step fails without the driver stub, naming libcuda.so.1, and fails on
#   a wheel that holds a copy of libcudart; the module imported with the copies answers the
#   runtime's version (12.9) and the stub's CUDA_ERROR_STUB_LIBRARY (34);
# - a build whose toolkit has no driver stub stops with an error that names it;
# - GitLab alike: the generated build-cuda-linux-x86_64 and test-cuda-linux-x86_64 jobs pass under
#   gitlab-ci-local, the copies carried from one to the other as the build's artifact.
#
# What is not the real job's: the driver stub is a stand-in (tests/fixtures/cuda-stub/stub/libcuda.c,
# built here with the stub's soname and answer), since no package this test can install ships
# NVIDIA's (tests/tools/cuda-requirements.txt); the toolkit is at $tmp/toolkit, not
# /usr/local/cuda (the generated files' paths are rewritten to it); the manylinux level is this
# machine's; the toolkit recipe (dnf) does not run; no container is run.
. "$ROOT/tests/kit/lib.sh"
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

cuda=$("$ROOT/tests/tools/install-cuda.sh" --dir)
[ -f "$cuda/complete" ] ||
	fatal "the CUDA runtime is not installed in $cuda: run 'make tools' (tests/tools/install-cuda.sh)"
glibc=$(ldd --version 2>/dev/null | sed -n '1s/.* \([0-9]*\)\.\([0-9]*\)$/\1_\2/p')
[ -n "$glibc" ] || fatal "cannot tell this machine's glibc version from 'ldd --version'"
python=
for p in "$(command -v python3.12 2>/dev/null)" /usr/bin/python3.12 "$HOME"/.pyenv/versions/3.12.*/bin/python3.12; do
	[ -x "$p" ] && "$p" -c 'import venv' 2>/dev/null && { python=$p; break; }
done
[ -n "$python" ] || fatal "no CPython 3.12 to run the job with: install it (apt-get install python3.12, or pyenv install 3.12)"

# The toolkit, as the build container has it under /usr/local/cuda: lib64 (the real runtime) and
# lib64/stubs (the stand-in driver stub)
tk=$tmp/toolkit
mkdir -p "$tk/lib64/stubs"
cp -P "$cuda"/cuda/lib64/libcudart.so* "$tk/lib64/"
cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$tk/lib64/stubs/libcuda.so" "$ROOT/tests/fixtures/cuda-stub/stub/libcuda.c" ||
	fatal "cc could not build the stand-in driver stub"

# elf FILE...: each file's soname and DT_NEEDED, read with the pinned pyelftools
elf() {
	"$tools/bin/python" - "$@" <<'PY'
import sys
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for s in ELFFile(f).iter_sections():
            if isinstance(s, DynamicSection):
                print(path.rsplit("/", 1)[-1], *[f"soname={t.soname}" for t in s.iter_tags("DT_SONAME")],
                      *[f"needed={t.needed}" for t in s.iter_tags("DT_NEEDED")])
PY
}
elf "$tk/lib64/stubs/libcuda.so" "$tk/lib64/libcudart.so.12" >"$tmp/sonames"
if ! { grep -q '^libcuda.so soname=libcuda.so.1' "$tmp/sonames" && grep -q '^libcudart.so.12 soname=libcudart.so.12' "$tmp/sonames"; }; then
	fail "the toolkit's libraries do not have the sonames the wheel will need"
	show "$tmp/sonames"
fi

repo=$tmp/repo
cp -r "$ROOT/tests/fixtures/cuda-stub" "$repo"
rm -rf "$repo/stub"
scratch_repo "$repo"
commit_all "$repo"
(cd "$repo" && "$WM" generate >/dev/null) || fatal "wheelmatrix generate failed on the cuda-stub fixture"
commit_all "$repo" generated
wf=$repo/.github/workflows/wheels.yml

# What the generated job says, before it runs: the build takes the libraries from the toolkit's
# stubs directory and lib64, and the import test puts the build's copies on its library path
"$py" - "$wf" >"$tmp/steps" <<'PY' || { fail "the generated build-cuda-linux job is not an import-tested container build"; show "$tmp/steps"; }
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["jobs"]["build-cuda-linux"]
steps = {s.get("name"): s for s in job["steps"]}
build = steps["Build and repair the wheel in the manylinux container"]["env"]
smoke = steps["Import the module from the built wheel"]
print("build:", build["WM_SMOKE_LIBRARIES"], "| exclude:", build["WM_REPAIR_EXCLUDE"])
print("smoke:", smoke.get("if", "always"), smoke["env"])
ok = (build["WM_SMOKE_LIBRARIES"] == "/usr/local/cuda/lib64/stubs /usr/local/cuda/lib64"
      and "libcuda.so.1" in build["WM_REPAIR_EXCLUDE"].split() and "libcudart.so.12" in build["WM_REPAIR_EXCLUDE"].split()
      and "if" not in smoke and smoke["env"].get("WM_LIBRARY_PATH") == "smoke-libraries"
      and smoke["env"].get("WM_REPAIR_EXCLUDE") == build["WM_REPAIR_EXCLUDE"])
sys.exit(0 if ok else 1)
PY

env=$tmp/venv
uv venv -q --seed --python "$python" "$env" || fatal "uv cannot make an environment of $python"
uv pip install -q --python "$env/bin/python" --require-hashes --no-deps -r "$ROOT/tests/tools/requirements.txt" ||
	fatal "uv cannot install the pinned tools for CPython 3.12"

# replay WORKFLOW: the job's entry in a fresh clone of the repository ($clone), its log in $clone.log
replay() {
	clone=$tmp/clone-$RANDOM
	git clone -q "$repo" "$clone"
	cp "$1" "$clone/.github/workflows/wheels.yml"
	(cd "$clone" && PATH=$(e2e_python "$env")/bin:$PATH WM_REPLAY_MANYLINUX=manylinux_$glibc CUDA_PATH=$tk \
		"$py" "$ROOT/tests/helpers/replay-github.py" .github/workflows/wheels.yml build-cuda-linux cuda-linux-x86_64-abi3) \
		>"$clone.log" 2>&1
}

# The job, with the toolkit where this test put it
sed "s|/usr/local/cuda/|$tk/|g" "$wf" >"$tmp/wheels.yml"
started=$(date +%s)
if replay "$tmp/wheels.yml"; then
	echo "the build-cuda-linux job passed in $(($(date +%s) - started)) s:"
	grep '^for the import test: \|^cuda_stub_rs from ' "$clone.log" | sed 's/^/    /'
	grep -qx "for the import test: libcuda.so.1 from $tk/lib64/stubs/libcuda.so" "$clone.log" ||
		fail "the build did not take libcuda.so.1 from the driver stub"
	grep -qx "for the import test: libcudart.so.12 from $tk/lib64/libcudart.so.12" "$clone.log" ||
		fail "the build did not take libcudart.so.12 from lib64"
	grep -q "^cuda_stub_rs from $(e2e_python "$env")/lib/python3.12/site-packages/cuda_stub_rs/" "$clone.log" ||
		fail "the job's import test did not import cuda_stub_rs from the installed wheel"
else
	fail "the replay of build-cuda-linux failed"
	tail -n 30 "$clone.log" | sed 's/^/    /'
fi
good=$clone

wheel=$(ls "$good"/dist/*.whl 2>/dev/null)
[ "$(wc -w <<<"$wheel")" = 1 ] || fatal "the job made no single wheel: $wheel"
ls "$good/smoke-libraries" >"$tmp/copied"
printf 'libcuda.so.1\nlibcudart.so.12\n' | expect_same - "$tmp/copied" "the libraries the build copied for the import test"

# The wheel needs both libraries and holds neither
x=$tmp/unpacked
mkdir -p "$x"
(cd "$x" && "$py" -m zipfile -e "$wheel" .) || fatal "cannot unpack $wheel"
find "$x" -type f | sed "s|^$x/||" | sort >"$tmp/files"
elf "$x"/cuda_stub_rs/*.so >"$tmp/needed"
if ! { grep -q 'needed=libcuda.so.1' "$tmp/needed" && grep -q 'needed=libcudart.so.12' "$tmp/needed"; }; then
	fail "the module does not link libcuda.so.1 and libcudart.so.12"
	show "$tmp/needed"
fi
if grep -i 'libcuda' "$tmp/files"; then
	fail "the repaired wheel holds a CUDA library"
	show "$tmp/files"
fi
echo "$(basename "$wheel"): $(tr '\n' ' ' <"$tmp/files")"

# The generated import step, run again on the wheel: $1 the library directory, $2 the wheel
smoke_step() {
	"$py" - "$wf" >"$tmp/smoke.sh" 2>"$tmp/step.log" <<'PY' || return 1
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["jobs"]["build-cuda-linux"]
step = [s for s in job["steps"] if s.get("name") == "Import the module from the built wheel"][0]
print(step["run"])
PY
	local dir=$tmp/step-$RANDOM
	mkdir -p "$dir/dist" "$dir/temp"
	cp -r "$1" "$dir/smoke-libraries"
	cp "$2" "$dir/dist/"
	uv venv -q --seed --python "$python" "$dir/venv" || return 1
	(cd "$dir" && PATH=$dir/venv/bin:$PATH RUNNER_TEMP=$dir/temp WM_MODULE=cuda_stub_rs WM_LIBRARY_PATH=smoke-libraries \
		WM_REPAIR_EXCLUDE="libcuda.so.1 libcudart.so.12 libcublas.so.12 libcublasLt.so.12 libnvrtc.so.12 libcurand.so.10" \
		PIP_NO_INDEX=1 bash -e "$tmp/smoke.sh") >"$tmp/step.log" 2>&1
}
mkdir -p "$tmp/no-stub"
cp "$good/smoke-libraries/libcudart.so.12" "$tmp/no-stub/"
if smoke_step "$tmp/no-stub" "$wheel"; then
	fail "the import test passed without the driver stub"
else
	grep -q 'libcuda.so.1: cannot open shared object file' "$tmp/step.log" ||
		{ fail "the import test without the driver stub failed, but not for libcuda.so.1"; show "$tmp/step.log"; }
	echo "without the driver stub, the generated import step fails: $(grep -o 'ImportError: .*' "$tmp/step.log")"
fi
smoke_step "$good/smoke-libraries" "$wheel" || { fail "the generated import step failed with the build's copies"; show "$tmp/step.log"; }

# A wheel that holds a copy of libcudart (as auditwheel names one) fails the step before any import
bad=$tmp/bad/$(basename "$wheel")
mkdir -p "$tmp/bad" "$x/cuda_stub_rs.libs"
cp "$tk/lib64/libcudart.so.12" "$x/cuda_stub_rs.libs/libcudart-0a1b2c3d.so.12"
(cd "$x" && "$py" -m zipfile -c "$bad" ./*) || fatal "cannot pack $bad"
if smoke_step "$good/smoke-libraries" "$bad"; then
	fail "the import test passed on a wheel holding libcudart"
else
	grep -q 'holds cuda_stub_rs.libs/libcudart-0a1b2c3d.so.12: the repair must leave libcudart.so.12 out' "$tmp/step.log" ||
		{ fail "the step on a wheel holding libcudart failed, but not saying so"; show "$tmp/step.log"; }
fi

# The module, imported with the copies on the library path, answers from both libraries
check=$tmp/check
uv venv -q --python "$python" "$check" || fatal "uv cannot make an environment of $python"
uv pip install -q --python "$check/bin/python" "$wheel" || fatal "uv cannot install $wheel"
(cd "$tmp" && LD_LIBRARY_PATH=$good/smoke-libraries "$check/bin/python" -I -c '
import cuda_stub_rs as m
print("runtime", m.runtime, "driver", m.driver)
assert m.runtime == (0, 12090), m.runtime
assert m.driver == (34, 0), m.driver') >"$tmp/answers" 2>&1 ||
	fail "the module did not answer the runtime's version and the stub's error"
show "$tmp/answers"

# GitLab: gitlab-ci-local (tests/external) runs the generated build and test jobs with its shell
# executor (the image is not pulled); the toolkit recipe lines of the build's before_script (those
# after the base template's) are replaced by CUDA_PATH, the toolkit where this test put it
glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"
gl=$tmp/gitlab
git clone -q "$repo" "$gl"
"$py" - "$gl/.gitlab-ci.yml" "$tk" <<'PY' || fatal "cannot put the toolkit's place into the GitLab file"
import sys, yaml
path, tk = sys.argv[1:]
ci = yaml.safe_load(open(path))
base = ci[".wheelmatrix-build-linux"]["before_script"]
job = ci[".wheelmatrix-build-cuda-linux"]
assert job["before_script"][:len(base)] == base
job["before_script"] = base + [f"export CUDA_PATH={tk}"]
text = yaml.safe_dump(ci, sort_keys=False, width=1000).replace("/usr/local/cuda/", tk + "/")
open(path, "w").write(text)
PY
commit_all "$gl" "the toolkit in $tk"
started=$(date +%s)
if (cd "$gl" && PATH=$(e2e_python "$env")/bin:$PATH "$glci" --force-shell-executor --shell-isolation \
	--variable "WM_COMPATIBILITY=manylinux_$glibc" build-cuda-linux-x86_64 test-cuda-linux-x86_64) >"$tmp/gitlab.log" 2>&1; then
	echo "GitLab's build-cuda-linux-x86_64 and test-cuda-linux-x86_64 passed in $(($(date +%s) - started)) s:"
	grep 'for the import test: \|> cuda_stub_rs from ' "$tmp/gitlab.log" | sed 's/^/    /'
	grep -q "for the import test: libcuda.so.1 from $tk/lib64/stubs/libcuda.so" "$tmp/gitlab.log" ||
		fail "GitLab's build did not take libcuda.so.1 from the driver stub"
	grep -q "^test-cuda-linux-x86_64.* > cuda_stub_rs from $(e2e_python "$env")/lib/python3.12/site-packages/" "$tmp/gitlab.log" ||
		fail "GitLab's test job did not import cuda_stub_rs from the installed wheel"
else
	fail "gitlab-ci-local failed on build-cuda-linux-x86_64 and test-cuda-linux-x86_64"
	tail -n 30 "$tmp/gitlab.log" | sed 's/^/    /'
fi

# A toolkit without the driver stub: the build says which library it cannot find
sed "s|/usr/local/cuda/lib64/stubs ||; s|/usr/local/cuda/|$tk/|g" "$wf" >"$tmp/no-stubs.yml"
if replay "$tmp/no-stubs.yml"; then
	fail "the build passed with no driver stub in the toolkit"
else
	grep -q "::error::libcuda.so.1, which the wheel leaves out, is in none of $tk/lib64" "$clone.log" ||
		{ fail "the build without a driver stub failed, but not saying so"; tail -n 20 "$clone.log" | sed 's/^/    /'; }
fi

finish
