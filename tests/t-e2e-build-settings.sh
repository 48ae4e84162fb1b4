#!/bin/bash
# t-e2e-build-settings.sh — build settings per platform, per backend and per backend on a platform reach the real build.
#
# tests/fixtures/settings: linux-x86_64 adds the feature `jemalloc` and FIXTURE_FLAVOR=wide to every
# backend's builds there; backend cpu builds with the fat-LTO profile `dist` (debug assertions on, to
# tell it at run time); backend fast adds `simd` through its variant patch and, on linux-x86_64,
# `no-default-features` and FIXTURE_FLAVOR=narrow over the platform's.  The generated GitHub
# workflow's Linux x86_64 build entries are replayed with tests/helpers/replay-github.py (maturin-action's
# `args` given to the pinned maturin as the action gives them), and GitLab's build jobs run under
# gitlab-ci-local (its shell executor: the scripts here, with the job's variables); each wheel is
# installed in a fresh environment and its module says how it was built: the features it was
# compiled with (pyproject.toml's `base` and the backend's `simd` kept beside the platform's
# `jemalloc`, since maturin's --features replaces [tool.maturin].features; Cargo's default feature
# gone where fast says so), the profile's directory and debug assertions, and the environment
# variable of the layer that wins.  What `list --format json` says of each job is checked against
# the same wheels.  The manylinux level is this machine's (as in t-e2e-runners).
. "$ROOT/tests/kit/lib.sh"
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"
glibc=$(ldd --version 2>/dev/null | sed -n '1s/.* \([0-9]*\)\.\([0-9]*\)$/\1_\2/p')
[ -n "$glibc" ] || fatal "cannot tell this machine's glibc version from 'ldd --version'"
host=manylinux_$glibc

# an interpreter of CPython 3.12 (the matrix's version)
python=
for p in "$(command -v python3.12 2>/dev/null)" /usr/bin/python3.12 "$HOME"/.pyenv/versions/3.12.*/bin/python3.12; do
	[ -x "$p" ] && "$p" -c 'import venv' 2>/dev/null && { python=$p; break; }
done
[ -n "$python" ] || fatal "no CPython 3.12 to run the jobs with: install it (apt-get install python3.12, or pyenv install 3.12)"

# venv DIR [TOOLS]: a fresh environment of CPython 3.12, with the pinned maturin when TOOLS is given
venv() {
	uv venv -q --seed --python "$python" "$1" || return 1
	[ -z "${2:-}" ] || uv pip install -q --python "$1/bin/python" --require-hashes --no-deps \
		-r "$ROOT/tests/tools/requirements.txt"
}

# built WHEEL WHAT FEATURES PROFILE DEBUG FLAVOR: the installed wheel's module says how it was built
built() {
	local env=$tmp/check-$RANDOM
	venv "$env" || { fail "$2: no environment to install it in"; return 1; }
	uv pip install -q --python "$env/bin/python" "$1" || { fail "$2: uv cannot install $(basename "$1")"; return 1; }
	(cd "$tmp" && "$env/bin/python" -I - "$2" "$3" "$4" "$5" "$6" <<'PY') || fail "$2: not built as the matrix says (above)"
import sys, settings_rs as m
what, features, profile, debug, flavor = sys.argv[1:]
got = (",".join(m.features()), m.profile(), str(m.debug_assertions()).lower(), m.flavor())
want = (features, profile, debug, flavor)
print(f"{what}: features {got[0]}, profile {got[1]}, debug assertions {got[2]}, FIXTURE_FLAVOR {got[3]!r}")
if got != want:
    print(f"{what}: want features {features}, profile {profile}, debug assertions {debug}, FIXTURE_FLAVOR {flavor!r}")
    sys.exit(1)
PY
}

repo=$tmp/settings
cp -r "$ROOT/tests/fixtures/settings" "$repo"
scratch_repo "$repo"
git -C "$repo" remote add origin "https://gitlab.example/wheelmatrix/settings.git"
"$WM" -C "$repo" generate >/dev/null || fatal "generate failed"
commit_all "$repo" "settings-rs with its generated CI"

# what list says each Linux x86_64 job builds with: its features and maturin's arguments
"$WM" -C "$repo" list --format jsonl >"$tmp/jobs" || fatal "list failed"
"$py" - "$tmp/jobs" <<'PY' || fail "list --format jsonl (above)"
import json, sys
jobs = {j["id"]: j for j in map(json.loads, open(sys.argv[1]))}
want = {
    "cpu-linux-x86_64-cp312": (["jemalloc"], ["--profile", "dist", "--features", "pyo3/extension-module,base,jemalloc"],
                               {"FIXTURE_FLAVOR": "wide"}),
    "fast-linux-x86_64-cp312": (["jemalloc", "simd"], ["--release", "--features", "pyo3/extension-module,base,simd,jemalloc",
                                "--no-default-features"], {"FIXTURE_FLAVOR": "narrow"}),
    "cpu-macos-arm64-cp312": (["metal"], ["--profile", "dist", "--features", "pyo3/extension-module,base,metal"], {}),
}
bad = 0
for id, (features, args, env) in want.items():
    j = jobs[id]
    got = (j["features"], j["build"]["args"], j["build"]["env"])
    if got != (features, args, env):
        print(f"{id}: {got}, want {(features, args, env)}")
        bad = 1
sys.exit(bad)
PY

# GitHub's step set-env sets a variable only for the entries that have one (FIXTURE_FLAVOR is
# linux-x86_64's alone), and a value whatever it holds: run as the runner runs it, its $GITHUB_ENV
# read back as replay-github.py reads it
"$py" - "$repo/.github/workflows/wheels.yml" "$ROOT/tests/helpers/replay-github.py" "$tmp" <<'PY' || fail "the step set-env (above)"
import importlib.util, os, subprocess, sys, yaml
workflow, replay, tmp = sys.argv[1:]
spec = importlib.util.spec_from_file_location("replay", replay)
replay = importlib.util.module_from_spec(spec)
spec.loader.exec_module(replay)
job = yaml.safe_load(open(workflow))["jobs"]["build-cpu-linux"]
step = [s for s in job["steps"] if s.get("name") == "Set the entry's build environment"]
if len(step) != 1 or "FIXTURE_FLAVOR" in (job.get("env") or {}):
    sys.exit(f"build-cpu-linux: FIXTURE_FLAVOR is not set by one set-env step: {job.get('env')}, {step}")
if step[0]["env"]["WM_ENV_FIXTURE_FLAVOR"] != "${{ matrix.env-FIXTURE_FLAVOR }}":
    sys.exit(f"set-env takes FIXTURE_FLAVOR from {step[0]['env']}")
entries = {e["id"]: e for e in job["strategy"]["matrix"]["include"]}
if entries["cpu-linux-x86_64-cp312"].get("env-FIXTURE_FLAVOR") != "wide" or "env-FIXTURE_FLAVOR" in entries["cpu-linux-aarch64-cp312"]:
    sys.exit(f"the entries' FIXTURE_FLAVOR: {entries}")
tricky = "two\nlines with wm_0123 and <<EOF and $HOME"
for values, want in (({"A": "x", "B": ""}, {"A": "x"}), ({"A": tricky}, {"A": tricky})):
    path = os.path.join(tmp, "github-env")
    open(path, "w").close()
    env = dict(os.environ, GITHUB_ENV=path, WM_ENV_NAMES=" ".join(["A", "B"]),
               **{"WM_ENV_" + k: v for k, v in values.items()})
    env.setdefault("WM_ENV_B", "")
    subprocess.run(["bash", "-e", "-o", "pipefail", "-c", step[0]["run"]], env=env, check=True)
    got = replay.read_env_file(path)
    if got != want:
        sys.exit(f"set-env with {values} wrote {got}, not {want}")
print("set-env: sets what an entry has, and nothing else")
PY

# GitHub: the Linux x86_64 entry of each build job, in a fresh clone
for job in build-cpu-linux build-fast-linux; do
	clone=$tmp/gh-$job
	git clone -q "$repo" "$clone"
	venv "$clone.venv" tools || { fail "$job: no environment"; continue; }
	b=${job#build-}
	b=${b%-linux}
	if ! (cd "$clone" && PATH=$(e2e_python "$clone.venv")/bin:$PATH WM_REPLAY_MANYLINUX=$host \
		"$py" "$ROOT/tests/helpers/replay-github.py" .github/workflows/wheels.yml "$job" "$b-linux-x86_64-cp312") >"$clone.log" 2>&1; then
		fail "the replay of $job failed"
		tail -n 20 "$clone.log" | sed 's/^/    /'
		continue
	fi
	grep '^replay: maturin ' "$clone.log" | sed 's/^/    /'
	wheel=$(ls "$clone"/dist/*.whl 2>/dev/null)
	[ "$(wc -w <<<"$wheel")" = 1 ] || { fail "$job made no single wheel: $wheel"; continue; }
	case $b in
	cpu) built "$wheel" "GitHub $job" dflt,base,jemalloc dist true wide ;;
	fast) built "$wheel" "GitHub $job" base,jemalloc,simd release false narrow ;;
	esac
done

# GitLab: the build jobs of linux-x86_64, as gitlab-ci-local runs them with the shell executor, one at a
# time (on one machine the jobs' sccache servers would be one, which the first to finish stops)
gl=$tmp/gl
venv "$gl" tools || fatal "no environment for the GitLab jobs"
if ! (cd "$repo" && PATH=$(e2e_python "$gl")/bin:$PATH "$glci" --force-shell-executor --shell-isolation --concurrency 1 \
	--variable "WM_COMPATIBILITY=$host" build-cpu-linux-x86_64 build-fast-linux-x86_64) >"$tmp/gitlab.log" 2>&1; then
	fail "gitlab-ci-local failed"
	grep -E 'FAIL|Error|error' "$tmp/gitlab.log" | tail -n 20 | sed 's/^/    /'
fi
grep -E '^ (PASS|FAIL) ' "$tmp/gitlab.log"
for b in cpu fast; do
	wheel=$(find "$repo/dist" -path "*/$b-linux-x86_64-cp312/*.whl" | head -n 1)
	[ -f "$wheel" ] || { fail "GitLab's build-$b-linux-x86_64 made no wheel"; continue; }
	case $b in
	cpu) built "$wheel" "GitLab build-cpu-linux-x86_64" dflt,base,jemalloc dist true wide ;;
	fast) built "$wheel" "GitLab build-fast-linux-x86_64" base,jemalloc,simd release false narrow ;;
	esac
done
finish
