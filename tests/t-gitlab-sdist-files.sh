#!/bin/bash
# t-gitlab-sdist-files.sh — a GitLab sdist job writes nothing into the checkout: its sdist holds exactly the project's files.
#
# The pure fixture (no .gitignore: git ignores nothing, so maturin ships every file of the checkout
# it is not told to leave out) with its generated .gitlab-ci.yml, committed. gitlab-ci-local
# (tests/external) runs the job sdist-cuda, the sdist of the non-default backend cuda, whose
# before_script applies the variant patch, with its shell executor in a copy of the checkout
# (--shell-isolation: .gitlab-ci-local/builds/sdist-cuda/, the committed files and .git). The
# sdist's files are the committed files (`git ls-files`) and maturin's PKG-INFO, nothing else; the
# job's copy of the checkout differs from the commit only by the patched pyproject.toml and the
# sdist in dist/. The job runs as the generated file says; what is not the generated file's:
# the image is not pulled (the shell executor) and the jobs' interpreter is a Python 3.12 with the
# pinned maturin, first on PATH. The Windows jobs, which cannot run here, are read instead: in the
# GitLab file of a matrix with every toolkit that has a Windows recipe, each Windows build job's
# before_script makes a new directory under the system's temporary directory, $env:WM_TEMP, first,
# and everything its lines download (-OutFile) or clone goes below it. No sdist job has a
# `cache:`, which would put the Linux builds' .wheelmatrix-cache/ into its checkout.
. "$ROOT/tests/kit/lib.sh"
# each step below is checked where it happens: a failed one does not end the script
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
. "$ROOT/tests/kit/plan-servers.sh"
export PIP_NO_CACHE_DIR=1
# shellcheck source=tests/kit/gitlab-jobs.sh
. "$ROOT/tests/kit/gitlab-jobs.sh"

repo=$tmp/pure
cp -RL "$ROOT/tests/fixtures/pure" "$repo"
[ ! -e "$repo/.gitignore" ] || fatal "the pure fixture has a .gitignore: this test needs a project that ignores nothing"
scratch_repo "$repo"
"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate"; }
commit_all "$repo" "pure-rs with its generated CI"
grep -qx "sdist-cuda:" "$repo/.gitlab-ci.yml" || fatal "no job sdist-cuda in the generated .gitlab-ci.yml"

jobs_env
gitlab "" "" "$tmp/run.log" sdist-cuda || { tail -n 40 "$tmp/run.log" | show /dev/stdin; fatal "gitlab-ci-local sdist-cuda failed"; }
grep -q "^sdist-cuda .*Applied patch pyproject.toml cleanly" "$tmp/run.log" ||
	{ fail "the job did not apply the cuda patch"; grep '^sdist-cuda' "$tmp/run.log" | show /dev/stdin; }

# The sdist: its files below pure_rs_cuda-0.3.0/ are PKG-INFO and the committed files
sdist=$repo/dist/pure_rs_cuda-0.3.0.tar.gz
dist=$(find "$repo/dist" -type f -printf '%P ' 2>&1)
[ "$dist" = "${sdist##*/} " ] || fatal "the job's dist/ holds '$dist', not ${sdist##*/} alone"
{ echo PKG-INFO; git -C "$repo" ls-files; } | LC_ALL=C sort >"$tmp/want"
tar -tzf "$sdist" | grep -v '/$' | sed 's|^pure_rs_cuda-0\.3\.0/||' | LC_ALL=C sort >"$tmp/got"
expect_same "$tmp/want" "$tmp/got" "the files of the sdist of cuda"
tar -xzOf "$sdist" pure_rs_cuda-0.3.0/PKG-INFO | grep -qx "Name: pure-rs-cuda" || fail "the sdist's PKG-INFO does not name pure-rs-cuda"

# The job's copy of the checkout: the patched pyproject.toml and the sdist, nothing else
build=$repo/.gitlab-ci-local/builds/sdist-cuda
[ -d "$build/.git" ] || fatal "no copy of the checkout at $build"
git -C "$build" status --porcelain --untracked-files=all --ignored >"$tmp/status"
expect_same - "$tmp/status" "what the job wrote into its checkout" <<'EOF'
 M pyproject.toml
?? dist/pure_rs_cuda-0.3.0.tar.gz
EOF

# The caches of the Linux build jobs (.wheelmatrix-cache/, in the checkout) never reach an sdist:
# no job that builds one has a `cache:`, itself or through what it extends, and the Linux build
# jobs that do keep it in .wheelmatrix-cache/ alone (tests/t-build-cache.sh runs one)
"$py" - "$repo/.gitlab-ci.yml" >"$tmp/cache.log" 2>&1 <<'PY' || { fail "the jobs' caches"; show "$tmp/cache.log"; }
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
def chain(name):
    while name:
        yield name, doc[name]
        name = doc[name].get("extends")
bad, sdists, caches = [], 0, 0
for name, job in doc.items():
    if not isinstance(job, dict) or "script" not in job and "extends" not in job or name.startswith("."):
        continue
    found = [(n, j["cache"]) for n, j in chain(name) if "cache" in j]
    if any(n.startswith(".wheelmatrix-sdist") for n, _ in chain(name)):
        sdists += 1
        if found:
            bad.append("%s builds an sdist and has a cache: %r" % (name, found))
    elif found:
        caches += 1
        if found[0][1].get("paths") != [".wheelmatrix-cache/"]:
            bad.append("%s caches %r" % (name, found[0][1].get("paths")))
if sdists == 0 or caches == 0:
    bad.append("%d sdist jobs and %d jobs with a cache: the file should have both" % (sdists, caches))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

# The Windows build jobs: what they download goes to $env:WM_TEMP, never into the checkout
win=$tmp/win
mkdir -p "$win"
printf '%s\n' "wheelmatrix: 1" "project: {name: win-rs}" "platforms: [windows-x86_64]" "backends:" \
	'  cuda: {features: [cublas], toolkit: {cuda: "12.4"}}' "  opencl: {features: [clblast], toolkit: {clblast: {}}}" \
	'  vk: {features: [vulkan], toolkit: {vulkan: "1.3"}}' "  cpu: {default: true}" "ci: {gitlab: {}}" >"$win/wheelmatrix.yaml"
"$WM" -q -C "$win" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate (Windows)"; }
"$py" - "$win/.gitlab-ci.yml" >"$tmp/windows.log" 2>&1 <<'PY' || { fail "the Windows build jobs write into the checkout"; show "$tmp/windows.log"; }
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
first = ("$env:WM_TEMP = (New-Item -ItemType Directory -Path (Join-Path ([System.IO.Path]::GetTempPath())"
         " ([System.IO.Path]::GetRandomFileName()))).FullName")
bad, recipes = [], set()
for name, job in doc.items():
    if not (name.startswith(".wheelmatrix-build-") and name.endswith("-windows")):
        continue
    lines = job["before_script"]
    if lines[0] != first:
        bad.append("%s: the first line is %r" % (name, lines[0]))
    for line in lines:
        for m in re.finditer(r'-OutFile (\S+)|git clone (?:--depth \d+ )?\S+ (\S+)', line):
            target = m.group(1) or m.group(2)
            recipes.add(target)
            # $wm_dir: the uv piece's own directory under the system's temporary one (it runs in test jobs too)
            if not target.startswith('"$env:WM_TEMP\\') and not (target.startswith('"$wm_dir\\') and
                    "$wm_dir = (New-Item -ItemType Directory -Path (Join-Path ([System.IO.Path]::GetTempPath())" in line):
                bad.append("%s: %s" % (name, line))
# rustup-init, uv's wheel, the CUDA and Vulkan installers, vcpkg
if len(recipes) != 5:
    bad.append("%d download targets, not 5: %s" % (len(recipes), sorted(recipes)))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
finish
