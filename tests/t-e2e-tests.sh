#!/bin/bash
# t-e2e-tests.sh — the project's own tests (the matrix's `test:`) run against the built wheels by the
# generated CI, on tests/fixtures/pure with a pytest suite of its own (written here) and two
# backends: cpu, tested in its build job, and gpu (smoke: false, as a backend whose wheels need
# hardware the build runner lacks), tested in a job of its own on its test runner (`gpu-t4` on
# GitHub, the tag `gpu` on GitLab).  It proves that:
#
# - the structure: GitHub's test-gpu-linux runs on gpu-t4, needs build-gpu-linux and downloads
#   its artifact wheels-<id>, then imports and tests; build-cpu-linux tests after its import test and
#   build-gpu-linux does not test at all; publish-gpu needs test-gpu-linux.  GitLab's
#   test-gpu-linux-x86_64 has the tags [gpu], needs build-gpu-linux-x86_64's artifacts, and
#   publish-gpu needs it; every entry that tests says WM_TEST "true";
# - GitHub (tests/helpers/replay-github.py, each job in a fresh clone, real pip and pytest): the cpu build
#   job's suite passes against its wheel; the gpu build job uploads its wheel, and the gpu test job
#   downloads it and passes, as a CPU runner would run it;
# - GitLab (gitlab-ci-local's shell executor, real pip and pytest): the same four jobs pass;
# - the checkout holds a Python package pure_rs without its compiled module pure_rs.pure_rs (a
#   mixed project, whose wheels hold both): run in the checkout, the suite fails on it (the
#   control), and the generated jobs pass, so their tests never import the checkout;
# - a suite with a failing test fails the GitHub build job and the GitLab test job, and
#   gitlab-ci-local, asked for the publish job with its needs, stops before publishing.
#
# pip installs pytest from tests/tools/install-pytest.sh's wheelhouse (PIP_NO_INDEX, PIP_FIND_LINKS:
# the generated `pip install` runs offline).  Not the real jobs': the manylinux level is this
# machine's, no container and no GPU (the gpu backend builds without a toolkit).
. "$ROOT/tests/kit/lib.sh"
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"
wheelhouse=$("$ROOT/tests/tools/install-pytest.sh" --dir)
[ -f "$wheelhouse/complete" ] || fatal "pytest's wheels are not in $wheelhouse: run 'make tools' (tests/tools/install-pytest.sh)"
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$wheelhouse
glibc=$(ldd --version 2>/dev/null | sed -n '1s/.* \([0-9]*\)\.\([0-9]*\)$/\1_\2/p')
[ -n "$glibc" ] || fatal "cannot tell this machine's glibc version from 'ldd --version'"
host=manylinux_$glibc
python=
for p in "$(command -v python3.12 2>/dev/null)" /usr/bin/python3.12 "$HOME"/.pyenv/versions/3.12.*/bin/python3.12; do
	[ -x "$p" ] && "$p" -c 'import venv' 2>/dev/null && { python=$p; break; }
done
[ -n "$python" ] || fatal "no CPython 3.12 to run the jobs with: install it (apt-get install python3.12, or pyenv install 3.12)"
# env DIR: a fresh environment of 3.12 with the pinned tools (maturin, auditwheel, pip)
env312() {
	uv venv -q --seed --python "$python" "$1" &&
		uv pip install -q --python "$1/bin/python" --require-hashes --no-deps -r "$ROOT/tests/tools/requirements.txt"
}

repo=$tmp/repo
cp -r "$ROOT/tests/fixtures/pure" "$repo"
cat >"$repo/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
project:
  name: pure-rs
python:
  versions: ["3.12"]
platforms: [linux-x86_64]
backends:
  cpu:
    default: true
  gpu:
    smoke: false
    test:
      runner: gpu-t4
      tags: [gpu]
test:
  command: python -m pytest -p no:cacheprovider tests
  requires: [pytest]
  sources: [tests]
EOF
# A mixed project, as maturin lays one out: the package pure_rs of the checkout, whose compiled
# module pure_rs.pure_rs only the wheel holds
mkdir -p "$repo/tests" "$repo/pure_rs"
printf 'from .pure_rs import backend\n\n__all__ = ["backend"]\n' >"$repo/pure_rs/__init__.py"
sed -i 's|^\[tool.maturin\]$|&\nmodule-name = "pure_rs.pure_rs"|' "$repo/pyproject.toml"
grep -q '^module-name = "pure_rs.pure_rs"$' "$repo/pyproject.toml" || fatal "the fixture's pyproject.toml has no [tool.maturin] to name the module in"
cat >"$repo/tests/test_wheel.py" <<'EOF'
import os
import pure_rs


def test_backend():
    assert pure_rs.backend() == "cpu"


def test_from_the_wheel():
    assert "site-packages" in pure_rs.__file__, pure_rs.__file__
    assert not os.path.exists("pyproject.toml"), "the tests run in the checkout"
EOF
scratch_repo "$repo"
"$WM" -C "$repo" generate >/dev/null || fatal "generate failed: $("$WM" -C "$repo" generate 2>&1)"
commit_all "$repo" "pure-rs with a test suite and its generated CI"
wf=$repo/.github/workflows/wheels.yml

# The structure of both providers' files
"$py" - "$wf" "$repo/.gitlab-ci.yml" <<'PY' || fail "the generated files' test jobs are not as the matrix says"
import sys, yaml
gh = yaml.safe_load(open(sys.argv[1]))["jobs"]
gl = yaml.safe_load(open(sys.argv[2]))
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
        print("FAIL:", what)
t = gh.get("test-gpu-linux") or {}
check(t.get("runs-on") == "gpu-t4", "GitHub test-gpu-linux runs on gpu-t4")
check(t.get("needs") == ["build-gpu-linux"], "GitHub test-gpu-linux needs build-gpu-linux")
check([e["id"] for e in t.get("strategy", {}).get("matrix", {}).get("include", [])] == ["gpu-linux-x86_64-cp312"],
      "GitHub test-gpu-linux tests the entry gpu-linux-x86_64-cp312")
steps = t.get("steps", [])
uses = [s.get("uses", "").split("@")[0] for s in steps]
dl = [s for s in steps if s.get("uses", "").startswith("actions/download-artifact@")]
check(len(dl) == 1 and dl[0]["with"] == {"name": "wheels-${{ matrix.id }}", "path": "dist"},
      "GitHub test-gpu-linux downloads the artifact wheels-<id> into dist")
check(gh["build-gpu-linux"]["steps"][-1]["with"]["name"] == "wheels-${{ matrix.id }}",
      "GitHub build-gpu-linux uploads the artifact wheels-<id>")
names = [s.get("name") for s in steps]
check(names[-2:] == ["Import the module from the built wheel", "Run the project's tests against the wheel"],
      "GitHub test-gpu-linux imports, then tests")
cpu = [s.get("name") for s in gh["build-cpu-linux"]["steps"]]
check("Run the project's tests against the wheel" in cpu and
      cpu.index("Run the project's tests against the wheel") == cpu.index("Import the module from the built wheel") + 1,
      "GitHub build-cpu-linux tests right after its import test")
check("Run the project's tests against the wheel" not in [s.get("name") for s in gh["build-gpu-linux"]["steps"]],
      "GitHub build-gpu-linux does not test")
check("test-gpu-linux" in gh["publish-gpu"]["needs"], "GitHub publish-gpu needs test-gpu-linux")
g = gl.get("test-gpu-linux-x86_64") or {}
check(g.get("tags") == ["gpu"], "GitLab test-gpu-linux-x86_64 has the tags [gpu]")
check(g.get("needs") == [{"job": "build-gpu-linux-x86_64", "artifacts": True}],
      "GitLab test-gpu-linux-x86_64 needs build-gpu-linux-x86_64's artifacts")
check(g.get("variables", {}).get("WM_TEST") == "true" and gl["test-cpu-linux-x86_64"]["variables"].get("WM_TEST") == "true",
      "GitLab's test jobs say WM_TEST true")
check({"job": "test-gpu-linux-x86_64", "artifacts": False} in gl["publish-gpu"]["needs"],
      "GitLab publish-gpu needs test-gpu-linux-x86_64")
sys.exit(1 if bad else 0)
PY

# replay JOB ENTRY NAME: the GitHub job's entry replayed in a fresh clone $tmp/NAME, with the
# artifact store $tmp/artifacts; its log is $tmp/NAME.log
replay() {
	local clone=$tmp/$3
	git clone -q "$repo" "$clone"
	env312 "$clone.venv" || { fail "$3: no environment"; return 1; }
	(cd "$clone" && PATH=$(e2e_python "$clone.venv")/bin:$PATH WM_REPLAY_MANYLINUX=$host WM_REPLAY_ARTIFACTS=$tmp/artifacts \
		WM_REPLAY_LINUX_RUNNER=gpu-t4 "$py" "$ROOT/tests/helpers/replay-github.py" .github/workflows/wheels.yml "$1" "$2") >"$clone.log" 2>&1
}
mkdir -p "$tmp/artifacts"
replay build-cpu-linux cpu-linux-x86_64-cp312 gh-cpu || { fail "GitHub build-cpu-linux failed"; show "$tmp/gh-cpu.log"; }
grep -q '^2 passed' "$tmp/gh-cpu.log" || grep -q ' 2 passed' "$tmp/gh-cpu.log" ||
	{ fail "GitHub build-cpu-linux: pytest did not pass both tests"; show "$tmp/gh-cpu.log"; }
replay build-gpu-linux gpu-linux-x86_64-cp312 gh-gpu-build || { fail "GitHub build-gpu-linux failed"; show "$tmp/gh-gpu-build.log"; }
grep -q "Run the project's tests" "$tmp/gh-gpu-build.log" && fail "GitHub build-gpu-linux ran the tests"
[ -n "$(ls "$tmp/artifacts/wheels-gpu-linux-x86_64-cp312/"*.whl 2>/dev/null)" ] ||
	fail "GitHub build-gpu-linux uploaded no wheel as wheels-gpu-linux-x86_64-cp312"
replay test-gpu-linux gpu-linux-x86_64-cp312 gh-gpu-test || { fail "GitHub test-gpu-linux failed"; show "$tmp/gh-gpu-test.log"; }
grep -q ' 2 passed' "$tmp/gh-gpu-test.log" || { fail "GitHub test-gpu-linux: pytest did not pass both tests"; show "$tmp/gh-gpu-test.log"; }
grep -q 'pure_rs_gpu-0.3.0-cp312-cp312-.*\.whl' "$tmp/gh-gpu-test.log" ||
	{ fail "GitHub test-gpu-linux did not install the gpu build's wheel"; show "$tmp/gh-gpu-test.log"; }

# The control: the suite run in the checkout, the wheel installed, imports the checkout's package and fails
wheel=$(ls "$tmp/gh-cpu/dist/"*.whl 2>/dev/null)
if [ -f "$wheel" ]; then
	if ! { "$tmp/gh-cpu.venv/bin/python" -m venv "$tmp/control" &&
		"$tmp/control/bin/python" -m pip install -q "$wheel" pytest; }; then
		fail "the control's environment"
	fi
	if (cd "$tmp/gh-cpu" && "$tmp/control/bin/python" -m pytest -p no:cacheprovider tests) >"$tmp/control.log" 2>&1; then
		fail "the suite passes in the checkout: the checkout's package does not shadow the wheel, so the fixture proves nothing"
		show "$tmp/control.log"
	fi
	grep -q "No module named 'pure_rs.pure_rs'" "$tmp/control.log" ||
		{ fail "the control failed otherwise than on the checkout's package"; show "$tmp/control.log"; }
else
	fail "GitHub build-cpu-linux left no wheel in dist/"
fi

# GitLab: the build and test jobs of both backends, one backend at a time (gitlab-ci-local runs a
# stage's jobs together, and two maturin builds of one crate in the shared target directory race)
gl=$tmp/gl
env312 "$gl" || fatal "no environment for the GitLab jobs"
: >"$tmp/gitlab.log"
for b in cpu gpu; do
	if ! (cd "$repo" && PATH=$(e2e_python "$gl")/bin:$PATH "$glci" --force-shell-executor --shell-isolation \
		--variable "WM_COMPATIBILITY=$host" --variable "PIP_NO_INDEX=1" --variable "PIP_FIND_LINKS=$wheelhouse" \
		"build-$b-linux-x86_64" "test-$b-linux-x86_64") >>"$tmp/gitlab.log" 2>&1; then
		fail "gitlab-ci-local failed on the $b jobs"
		grep -E 'FAIL|rror' "$tmp/gitlab.log" | tail -n 20 | sed 's/^/    /'
	fi
done
for job in test-cpu-linux-x86_64 test-gpu-linux-x86_64; do
	grep -q "^$job.* 2 passed" "$tmp/gitlab.log" || { fail "GitLab $job: pytest did not pass both tests"; show "$tmp/gitlab.log"; }
done

# A failing test fails the job, and nothing is published
cat >>"$repo/tests/test_wheel.py" <<'EOF'


def test_fails():
    assert pure_rs.backend() == "no such backend"
EOF
commit_all "$repo" "a failing test"
rm -rf "$tmp/artifacts" "$tmp/gh-cpu" "$tmp/gh-cpu.venv"
mkdir -p "$tmp/artifacts"
if replay build-cpu-linux cpu-linux-x86_64-cp312 gh-cpu; then
	fail "GitHub build-cpu-linux passed with a failing test"
	show "$tmp/gh-cpu.log"
fi
grep -q ' 1 failed, 2 passed' "$tmp/gh-cpu.log" || { fail "GitHub build-cpu-linux did not fail on the failing test"; show "$tmp/gh-cpu.log"; }
[ -d "$tmp/artifacts/wheels-cpu-linux-x86_64-cp312" ] && fail "GitHub build-cpu-linux uploaded its wheel after a failing test"
(cd "$repo" && PATH=$(e2e_python "$gl")/bin:$PATH "$glci" --force-shell-executor --shell-isolation --needs \
	--variable "WM_COMPATIBILITY=$host" --variable "PIP_NO_INDEX=1" --variable "PIP_FIND_LINKS=$wheelhouse" \
	--variable CI_COMMIT_TAG=v0.3.0 publish-cpu) >"$tmp/gitlab-fail.log" 2>&1 &&
	fail "gitlab-ci-local passed the publish job's pipeline with a failing test"
grep -q "^test-cpu-linux-x86_64.* 1 failed, 2 passed" "$tmp/gitlab-fail.log" ||
	{ fail "GitLab test-cpu-linux-x86_64 did not fail on the failing test"; show "$tmp/gitlab-fail.log"; }
# gitlab-ci-local ran publish-cpu's needs (the build and the sdist passed) and stopped there
if ! { grep -q '^ PASS  build-cpu-linux-x86_64' "$tmp/gitlab-fail.log" && grep -q '^ PASS  sdist-cpu' "$tmp/gitlab-fail.log"; }; then
	fail "gitlab-ci-local did not run publish-cpu's needs"
	show "$tmp/gitlab-fail.log"
fi
grep -q '^publish-cpu' "$tmp/gitlab-fail.log" && { fail "GitLab's publish-cpu started after a failing test"; show "$tmp/gitlab-fail.log"; }
finish
