#!/bin/bash
# t-gitlab-exclude-platforms.sh — ci.gitlab.exclude-platforms leaves a platform GitLab.com cannot host
# (windows-arm64) out of the GitLab pipeline alone: gitlab-ci-local lists `wheelmatrix list`'s jobs
# but those (an include's job there too), while the GitHub workflow keeps every job and passes its
# validators; without the key the GitLab file is refused.
# heavy: the generated pipelines' jobs run by gitlab-ci-local
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
if ! why=$("$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import glcheck; print(glcheck.missing() or "")' "$ROOT/tests/helpers") || [[ -n $why ]]; then
	fatal "${why:-cannot import tests/helpers/glcheck.py}"
fi
why=$("$py" "$ROOT/tests/helpers/wmlint.py" --missing) || fatal "$why"
repo=$tmp/repo
mkdir "$repo"
matrix() {
	cat >"$repo/wheelmatrix.yaml" <<YAML
wheelmatrix: 1
project: {name: armpkg}
python:
  versions: ["3.12", "3.13"]
platforms: [linux-x86_64, windows-x86_64, windows-arm64, macos-arm64]
backends:
  vulkan:
    features: [vulkan]
    platforms: ["windows-*"]
  cpu:
    default: true
include:
  - {backend: cpu, platform: windows-arm64, python: "3.13t"}
ci:
  github: {}
$1
YAML
}

# 1. without the key, GitLab cannot have the platform: generate refuses and writes nothing
matrix '  gitlab: {}'
scratch_repo "$repo"
wm -q -C "$repo" generate
expect_status 2 "windows-arm64 on GitLab without runner tags"
grep -q "GitLab's hosted runners cannot build windows-arm64: .*exclude-platforms: \[windows-arm64\]" "$tmp/err" ||
	fail "the refusal does not point at exclude-platforms: $(cat "$tmp/err")"
[[ ! -e $repo/.gitlab-ci.yml && ! -e $repo/.github ]] || fail "a refused generate wrote files"

# 2. with it, both files; each holds exactly the jobs it should
matrix '  gitlab: {exclude-platforms: [windows-arm64]}'
wm -q -C "$repo" generate
expect_status 0 "generate with ci.gitlab.exclude-platforms"
wm -q -C "$repo" list --format jsonl
expect_status 0 "list"
cp "$tmp/out" "$tmp/all.jsonl"
"$py" - "$tmp/all.jsonl" "$tmp/gitlab.jsonl" <<'PY' || fail "list's jobs on windows-arm64 (above)"
import json, sys
jobs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
arm = [j["id"] for j in jobs if j["platform"] == "windows-arm64"]
# the plain jobs of both backends there, and the include's free-threaded one
want = {"vulkan-windows-arm64-cp312", "vulkan-windows-arm64-cp313", "cpu-windows-arm64-cp312",
        "cpu-windows-arm64-cp313", "cpu-windows-arm64-cp313t"}
if set(arm) != want:
    print("FAIL: list's windows-arm64 jobs are %s, not %s" % (sorted(arm), sorted(want)))
    sys.exit(1)
with open(sys.argv[2], "w") as f:
    for j in jobs:
        if j["platform"] != "windows-arm64":
            f.write(json.dumps(j) + "\n")
PY
commit_all "$repo" generated
# GitLab: gitlab-ci-local's jobs are list's jobs without windows-arm64, each once
"$py" "$ROOT/tests/helpers/glcheck.py" "$repo" "$tmp/gitlab.jsonl" >"$tmp/gl" 2>&1 ||
	fail "the GitLab pipeline is not list's jobs less windows-arm64: $(cat "$tmp/gl")"
# (the Rust and uv installers name the ARM64 Windows host beside the x64 one: a target is what a job builds for)
! grep -q 'windows-arm64\|WM_TARGET: aarch64-pc-windows' "$repo/.gitlab-ci.yml" || fail ".gitlab-ci.yml still builds on windows-arm64"
# GitHub: every job of list, windows-arm64 included, and no validator finding
"$py" "$ROOT/tests/helpers/wfcheck.py" "$repo/.github/workflows/wheels.yml" "$tmp/all.jsonl" >"$tmp/wf" 2>&1 ||
	fail "the GitHub workflow is not list's jobs: $(cat "$tmp/wf")"
"$py" "$ROOT/tests/helpers/wmlint.py" "$repo/.github/workflows/wheels.yml" >"$tmp/lint" 2>&1 ||
	fail "the GitHub workflow has validator findings: $(cat "$tmp/lint")"
wm -q -C "$repo" generate --check
expect_status 0 "generate --check after generate"
finish
