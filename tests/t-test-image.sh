#!/bin/bash
# t-test-image.sh — a musllinux wheel's import test and tests, run by the GitHub step in its musllinux image, replayed here.
#
# There is no docker engine here, so the image itself cannot run; what this proves instead:
#
# - the structure: the build job's step "Test the wheel in its musllinux image" runs for the
#   entries of musllinux-x86_64 (CPython, on the x86_64 runner) in quay.io/pypa/musllinux_1_2_x86_64,
#   not for PyPy (the image has none) nor the cross-built musllinux-armv7; its docker command line
#   holds no expression and no value of the matrix (the image, the Python, the test command): each
#   reaches the container by name (--env NAME), set in the step's env: or, for the job's own
#   variables, named in WM_CONTAINER_ENV; its script holds the steps `smoke` and `test` verbatim;
#   GitLab's musllinux test job runs in the same image, for the same entries;
# - the script, replayed on this machine for the musllinux-x86_64 CPython entry with a `docker` of
#   this test's own, which checks the command line (run --rm -i, the workspace at /io, bare
#   variable names, the entry's image, bash -s) and runs `bash -s` with nothing but the variables
#   named and what an image sets (PATH, HOME), in a mount namespace where /usr/local/bin holds
#   only python3.12 (a script running a fresh environment of this machine's CPython 3.12, as the
#   image's runs its own) and
#   /tmp is a scratch directory of the test: the import and a pytest suite pass against a wheel
#   (pure Python, made here: a musllinux wheel pip refuses on this glibc machine), never the
#   checkout's package of the same name; a variable of the job reaches the tests and one of the
#   runner does not; with the entry's test-in-image false the import runs and the tests do not; a
#   failing test fails the step.  Unlike the real image: the workspace is at its own path, not /io;
# - GitLab's musllinux test job, under gitlab-ci-local's shell executor (which runs no image: the
#   Linux test template in this machine's shell, the image's python3.12 first on PATH), fails
#   without the build's artifact, and with the wheel where gitlab-ci-local keeps that artifact
#   imports it and passes the suite.
# heavy: pip installs into a fresh environment, and a job run by gitlab-ci-local
. "$ROOT/tests/kit/lib.sh"
set +e
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
need unshare "apt-get install util-linux"
wheelhouse=$("$ROOT/tests/tools/install-pytest.sh" --dir)
[ -f "$wheelhouse/complete" ] || fatal "pytest's wheels are not in $wheelhouse: run 'make tools' (tests/tools/install-pytest.sh)"
python=
for p in "$(command -v python3.12 2>/dev/null)" /usr/bin/python3.12 "$HOME"/.pyenv/versions/3.12.*/bin/python3.12; do
	[ -x "$p" ] && "$p" -c 'import venv, ensurepip' 2>/dev/null && { python=$p; break; }
done
[ -n "$python" ] || fatal "no CPython 3.12 to stand in for the image's: install it (apt-get install python3.12 python3.12-venv)"
userns=()
[ "$(id -u)" = 0 ] || userns=(-r)
unshare "${userns[@]}" -m --propagation private true 2>"$tmp/err" || fatal "no mount namespace to run the image's script in: $(cat "$tmp/err")"

repo=$tmp/repo
mkdir -p "$repo/tests" "$repo/wm_image_probe"
cat >"$repo/wheelmatrix.yaml" <<EOF
wheelmatrix: 1
project: {name: wm-image-probe}
python:
  versions: ["3.12", "pp3.11"]
platforms: [linux-x86_64, musllinux-x86_64, musllinux-armv7]
backends:
  cpu:
    default: true
    env: {PROBE_JOB: job value, PIP_NO_INDEX: "1", PIP_FIND_LINKS: $wheelhouse}
test:
  command: python -m pytest -p no:cacheprovider tests
  requires: [pytest]
  sources: [tests]
ci:
  github:
  gitlab: {exclude-platforms: [musllinux-armv7]}
EOF
# the checkout's package of the same name, which a test run in the checkout would import
printf 'def where():\n    return "checkout"\n' >"$repo/wm_image_probe/__init__.py"
cat >"$repo/tests/test_probe.py" <<'EOF'
import os
import wm_image_probe


def test_from_the_wheel():
    assert wm_image_probe.where() == "wheel", wm_image_probe.__file__


def test_variables():
    assert os.environ.get("PROBE_JOB") == "job value"
    assert "PROBE_RUNNER" not in os.environ, "a variable of the runner reached the container"
EOF
scratch_repo "$repo"
"$WM" -C "$repo" generate >"$tmp/gen.log" 2>&1 || fatal "generate failed: $(cat "$tmp/gen.log")"
commit_all "$repo" "a probe with tests and its generated CI"
wf=$repo/.github/workflows/wheels.yml

# The structure of both providers' files
"$py" - "$wf" "$repo/.gitlab-ci.yml" >"$tmp/structure.log" 2>&1 <<'PY' || { fail "the image step is not as the matrix says"; show "$tmp/structure.log"; }
import re, sys, yaml
gh = yaml.safe_load(open(sys.argv[1]))["jobs"]
gl = yaml.safe_load(open(sys.argv[2]))
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
        print("FAIL:", what)
job = gh["build-cpu-linux"]
entries = {e["id"]: e for e in job["strategy"]["matrix"]["include"]}
image = "quay.io/pypa/musllinux_1_2_x86_64"
check(entries["cpu-musllinux-x86_64-cp312"].get("test-image") == image and
      entries["cpu-musllinux-x86_64-cp312"].get("test-in-image") is True,
      "the musllinux-x86_64 CPython entry is tested in " + image)
for id in ("cpu-musllinux-x86_64-pp311", "cpu-musllinux-armv7-cp312", "cpu-linux-x86_64-cp312"):
    check("test-image" not in entries[id], id + " has no test image")
check(entries["cpu-musllinux-x86_64-cp312"].get("smoke") is False and entries["cpu-musllinux-x86_64-cp312"].get("test") is False,
      "the runner does not import or test the musllinux wheel itself")
steps = {s.get("name"): s for s in job["steps"]}
step = steps.get("Test the wheel in its musllinux image")
check(step is not None, "the build job has the image step")
step = step or {"run": "", "env": {}}
check(step.get("if") == "matrix.test-image", "the image step runs for the entries with a test image")
run = step["run"]
check("${{" not in run, "the image step's script holds no expression")
command = run[:run.index("<<'IMAGE'")] if "<<'IMAGE'" in run else run
for value in (image, "3.12", "python -m pytest", "job value"):
    check(value not in run, f"the image step's script holds no value of the matrix ({value!r})")
names = re.findall(r"--env (\S+)", command)
check(names and all(re.fullmatch(r"[A-Z_]+", n) for n in names[1:]) and names[0] == '"$name");',
      "the docker command line passes variables by name alone")
env = step.get("env", {})
check(env.get("WM_IMAGE") == "${{ matrix.test-image }}" and env.get("WM_PYTHON") == "${{ matrix.python-version }}"
      and env.get("WM_TEST") == "${{ matrix.test-in-image }}", "the image and the Python come from the entry through env:")
check(sorted(env.get("WM_CONTAINER_ENV", "").split()) == sorted(job["env"]), "the job's variables go into the container by name")
for n in names[1:]:
    check(n in env or n in ("WM_REPAIR_EXCLUDE", "WM_LIBRARY_PATH", "WM_TEST_EXTRAS"), f"--env {n} is set in the step's env: or optional")
for piece in ("Import the module from the built wheel", "Run the project's tests against the wheel"):
    check(piece in steps and steps[piece]["run"] in run, f"the image step runs the script of '{piece}' verbatim")
t = gl.get("test-cpu-musllinux-x86_64") or {}
check(t.get("image") == image, "GitLab's musllinux test job runs in " + image)
v = t.get("variables", {})
check("parallel" not in t and v.get("WM_JOB_ID") == "cpu-musllinux-x86_64-cp312" and v.get("WM_TEST") == "true",
      "GitLab's musllinux test job imports and tests the CPython entry alone")
sys.exit(1 if bad else 0)
PY

# A docker of the test's own: see the header
mkdir -p "$tmp/bin" "$tmp/image-bin" "$tmp/image-tmp" "$tmp/home"
"$python" -m venv "$tmp/image-python" || fatal "no environment for the image's Python"
# as the image's own: a script that runs the interpreter (pypa/manylinux docker/build_scripts/finalize-one.sh),
# here the environment's, so that nothing is installed into this machine's Python
printf '#!/bin/sh\nexec "%s" "$@"\n' "$tmp/image-python/bin/python" >"$tmp/image-bin/python3.12"
chmod +x "$tmp/image-bin/python3.12"
cat >"$tmp/bin/docker" <<'EOF'
#!/bin/bash
# docker run --rm -i --volume SRC:/io --workdir /io [--env NAME]... IMAGE bash -s
bad() { echo "test docker: $*" >&2; exit 90; }
printf '%s\n' "$@" >"$WM_DOCKER_LOG"
[ "$1 $2 $3 $4" = "run --rm -i --volume" ] || bad "not 'run --rm -i --volume': $*"
src=${5%:/io}
[ "$5" = "$src:/io" ] && [ "$src" = "$GITHUB_WORKSPACE" ] || bad "the volume is not the workspace at /io: $5"
[ "$6 $7" = "--workdir /io" ] || bad "the workdir is not /io: $6 $7"
shift 7
vars=(PATH=/usr/local/bin:/usr/bin:/bin "HOME=$WM_DOCKER_HOME")
while [ "$1" = --env ]; do
	[[ $2 =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || bad "--env '$2' is not a bare name"
	if [ -n "${!2+set}" ]; then vars+=("$2=${!2}"); fi
	shift 2
done
echo "$1" >"$WM_DOCKER_LOG.image"
[ "$#" = 3 ] && [ "$2 $3" = "bash -s" ] || bad "not IMAGE bash -s: $*"
cd "$src" || exit 90
# /usr/local/bin: the image's Pythons; /tmp: a scratch directory that keeps $tmp (under /tmp) at its path
exec unshare $WM_USERNS -m --propagation private bash -c '
	set -e
	mount --bind "$WM_DOCKER_BIN" /usr/local/bin
	case $WM_DOCKER_KEEP in
	/tmp/?*) mkdir -p "$WM_DOCKER_TMP${WM_DOCKER_KEEP#/tmp}"; mount --bind "$WM_DOCKER_KEEP" "$WM_DOCKER_TMP${WM_DOCKER_KEEP#/tmp}" ;;
	esac
	mount --rbind "$WM_DOCKER_TMP" /tmp
	cd "$PWD"
	exec env -i "$@" bash -s' docker "${vars[@]}"
EOF
chmod +x "$tmp/bin/docker"

# A pure-Python wheel of the probe, in dist/ as the build leaves it
"$py" - "$repo/dist" <<'PY' || fatal "cannot write the probe's wheel"
import base64, hashlib, os, sys, zipfile
os.makedirs(sys.argv[1], exist_ok=True)
name = "wm_image_probe-0.1.0"
files = {
    "wm_image_probe/__init__.py": 'def where():\n    return "wheel"\n',
    f"{name}.dist-info/METADATA": "Metadata-Version: 2.1\nName: wm-image-probe\nVersion: 0.1.0\n",
    f"{name}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: t-test-image\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = ""
for path, text in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
    record += f"{path},sha256={digest},{len(text.encode())}\n"
files[f"{name}.dist-info/RECORD"] = record + f"{name}.dist-info/RECORD,,\n"
with zipfile.ZipFile(os.path.join(sys.argv[1], f"{name}-py3-none-any.whl"), "w") as z:
    for path, text in files.items():
        z.writestr(path, text)
PY

# step ENTRY NAME [ENTRY-OVERRIDES]: the image step of ENTRY run in $repo as the runner would (the
# job's and the step's env:, the entry's values), with PROBE_RUNNER set on the runner; log $tmp/NAME.log
step() {
	(cd "$repo" && PROBE_RUNNER=runner PATH=$tmp/bin:$PATH GITHUB_WORKSPACE=$repo RUNNER_TEMP=$tmp/image-tmp \
		WM_DOCKER_LOG=$tmp/$2.docker WM_DOCKER_HOME=$tmp/home WM_DOCKER_BIN=$tmp/image-bin WM_DOCKER_TMP=$tmp/image-tmp \
		WM_DOCKER_KEEP=$tmp WM_USERNS="${userns[*]}" "$py" - "$wf" "$1" "${3:-null}" <<'PY') >"$tmp/$2.log" 2>&1
import json, os, re, subprocess, sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["jobs"]["build-cpu-linux"]
entry = next(e for e in job["strategy"]["matrix"]["include"] if e["id"] == sys.argv[2])
entry.update(json.loads(sys.argv[3]) or {})
def subst(v):
    v = "true" if v is True else "false" if v is False else str(v)
    return re.sub(r"\$\{\{ matrix\.([a-z-]+) \}\}", lambda m: subst(entry.get(m.group(1), "")), v)
step = next(s for s in job["steps"] if s.get("name") == "Test the wheel in its musllinux image")
env = dict(os.environ)
env.update({k: subst(v) for k, v in job.get("env", {}).items()})
env.update({k: subst(v) for k, v in step["env"].items()})
sys.exit(subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], env=env).returncode)
PY
}

step cpu-musllinux-x86_64-cp312 image || { fail "the image step failed"; show "$tmp/image.log"; }
[ "$(cat "$tmp/image.docker.image" 2>/dev/null)" = quay.io/pypa/musllinux_1_2_x86_64 ] ||
	fail "the step ran $(cat "$tmp/image.docker.image" 2>/dev/null), not quay.io/pypa/musllinux_1_2_x86_64"
grep -q "^wm_image_probe from $tmp/image-python/lib/python3.12/site-packages/" "$tmp/image.log" ||
	{ fail "the import test did not import the wheel installed in the image's Python"; show "$tmp/image.log"; }
grep -q ' 2 passed' "$tmp/image.log" || { fail "pytest did not pass both tests in the image"; show "$tmp/image.log"; }
grep -q '^job value$' "$tmp/image.docker" && fail "a value of the matrix is on docker's command line"
[ -z "$(ls "$tmp/image-tmp")" ] || [ -d "$tmp/image-tmp/wheelmatrix-python" ] ||
	fail "the script's /tmp was not the scratch directory"
[ -e /tmp/wheelmatrix-python ] && [ ! -e "$tmp/image-tmp/wheelmatrix-python" ] && fail "the script wrote /tmp/wheelmatrix-python on this machine"

# The control: the suite run in the checkout imports the checkout's package and fails
if (cd "$repo" && PROBE_JOB="job value" PYTHONPATH=$repo "$tmp/image-python/bin/python" -m pytest -p no:cacheprovider tests) \
	>"$tmp/control.log" 2>&1; then
	fail "the suite passes in the checkout: the checkout's package does not shadow the wheel, so the probe proves nothing"
	show "$tmp/control.log"
fi

# GitLab: the musllinux test job under gitlab-ci-local's shell executor, which runs no image (its
# script is the Linux one, in this machine's shell), with the image's python3.12 first on PATH.
# Without the build's artifact it fails (the control), and its log names where gitlab-ci-local
# keeps the artifact of each build instance ("artifacts from NAME was empty"): the wheel laid
# there, it passes.
glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"
gitlab() {
	(cd "$repo" && PATH=$tmp/image-python/bin:$PATH HOME=$tmp/home "$glci" --force-shell-executor --shell-isolation \
		test-cpu-musllinux-x86_64) >"$tmp/$1.log" 2>&1
}
gitlab gitlab-none && { fail "gitlab-ci-local passed test-cpu-musllinux-x86_64 without a wheel"; show "$tmp/gitlab-none.log"; }
instance=$(sed -n 's/.* artifacts from \(build-cpu-musllinux-x86_64[^ ]*cp312[^ ]*\) was empty$/\1/p' "$tmp/gitlab-none.log")
if [ -n "$instance" ] && [ "$(wc -l <<<"$instance")" = 1 ]; then
	artifact=$repo/.gitlab-ci-local/artifacts/$instance/dist/cpu-musllinux-x86_64-cp312
	mkdir -p "$artifact" && cp "$repo"/dist/*.whl "$artifact/"
	gitlab gitlab || { fail "gitlab-ci-local failed on test-cpu-musllinux-x86_64"; show "$tmp/gitlab.log"; }
	grep -q "^test-cpu-musllinux-x86_64 > wm_image_probe from $tmp/image-python/lib/python3.12/site-packages/" "$tmp/gitlab.log" ||
		{ fail "GitLab test-cpu-musllinux-x86_64 did not import the wheel"; show "$tmp/gitlab.log"; }
	grep -q "^test-cpu-musllinux-x86_64.* 2 passed" "$tmp/gitlab.log" ||
		{ fail "GitLab test-cpu-musllinux-x86_64: pytest did not pass both tests"; show "$tmp/gitlab.log"; }
else
	fail "gitlab-ci-local's log names no one artifact of cpu-musllinux-x86_64-cp312"
	show "$tmp/gitlab-none.log"
fi
rm -rf "$repo/.gitlab-ci-local"

# An entry whose tests do not run there: the import alone
"$tmp/image-python/bin/python" -m pip uninstall -q -y wm-image-probe >/dev/null 2>&1
step cpu-musllinux-x86_64-cp312 import-only '{"test-in-image": false}' || { fail "the image step failed without tests"; show "$tmp/import-only.log"; }
grep -q '^wm_image_probe from ' "$tmp/import-only.log" || { fail "the import test did not run"; show "$tmp/import-only.log"; }
grep -q 'passed' "$tmp/import-only.log" && { fail "the tests ran for an entry whose test-in-image is false"; show "$tmp/import-only.log"; }

# A failing test fails the step
cat >>"$repo/tests/test_probe.py" <<'EOF'


def test_fails():
    assert wm_image_probe.where() == "nowhere"
EOF
if step cpu-musllinux-x86_64-cp312 failing; then
	fail "the image step passed with a failing test"
	show "$tmp/failing.log"
fi
grep -q ' 1 failed, 2 passed' "$tmp/failing.log" || { fail "the image step did not fail on the failing test"; show "$tmp/failing.log"; }
finish
