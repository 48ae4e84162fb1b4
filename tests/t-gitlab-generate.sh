#!/bin/bash
# t-gitlab-generate.sh — generate for GitLab: the reviewed files, determinism, --check, hand edits, paths, providers.
. "$ROOT/tests/kit/lib.sh"
gl=.gitlab-ci.yml


# 1. each example that writes a GitLab file (no `ci:`, or one naming gitlab) matches its reviewed
# GitLab file; a second run writes the same bytes
examples=()
for example in "$ROOT"/matrices/*.yaml; do
	if grep -q '^ci:' "$example" && ! grep -q '^  gitlab:' "$example"; then
		continue
	fi
	examples+=("$example")
done
for example in "${examples[@]}"; do
	name=$(basename "$example" .yaml)
	repo=$tmp/$name
	mkdir -p "$repo"
	cp "$example" "$repo/wheelmatrix.yaml"
	expect_run 0 "$WM" -C "$repo" generate
	grep -qx "wrote $gl" "$tmp/out" || fail "$name: generate did not say it wrote $gl: $(cat "$tmp/out")"
	[ -s "$tmp/err" ] && fail "$name: generate printed $(cat "$tmp/err")"
	# WM_UPDATE=1 rewrites the reviewed file: read its diff before committing it
	[ "${WM_UPDATE:-}" = 1 ] && cp "$repo/$gl" "$ROOT/tests/expected/gitlab/$name.yml"
	expect_same "$ROOT/tests/expected/gitlab/$name.yml" "$repo/$gl" "$name: $gl (tests/expected/gitlab/$name.yml)"
	cp "$repo/$gl" "$tmp/$name.yml"
	expect_run 0 "$WM" -q -C "$repo" generate
	cmp -s "$tmp/$name.yml" "$repo/$gl" || fail "$name: a second run wrote different bytes"
	expect_run 0 "$WM" -q -C "$repo" generate --check
	[ -s "$tmp/out" ] && fail "$name: --check printed $(cat "$tmp/out") for up-to-date files"
done
expected=("$ROOT"/tests/expected/gitlab/*.yml)
[ "${#expected[@]}" = "${#examples[@]}" ] || fail "tests/expected/gitlab/ does not hold one file per example matrix that writes one"

repo=$tmp/llm-rs
# 2. stale: --check names it; generate rewrites it
sed -i 's/cuda: "12.4"/cuda: "12.6"/' "$repo/wheelmatrix.yaml"
expect_run 1 "$WM" -q -C "$repo" generate --check
grep -qx "$gl: out of date" "$tmp/out" || fail "--check said '$(cat "$tmp/out")'"
cmp -s "$tmp/llm-rs.yml" "$repo/$gl" || fail "--check wrote $gl"
expect_run 0 "$WM" -q -C "$repo" generate
grep -q 'cuda-nvcc-12-6' "$repo/$gl" || fail "the rewritten $gl does not install CUDA 12.6's compiler"

# 3. a hand edit is refused unless --force; a CRLF checkout is not a hand edit
cp "$repo/$gl" "$tmp/current.yml"
sed 's/$/\r/' "$tmp/current.yml" >"$repo/$gl"
expect_run 0 "$WM" -q -C "$repo" generate --check
sed -i 's/interruptible: true/interruptible: false/' "$repo/$gl"
cp "$repo/$gl" "$tmp/edited.yml"
expect_run 1 "$WM" -q -C "$repo" generate
[ "$(cat "$tmp/err")" = "wheelmatrix: error: '$gl' was edited by hand since it was generated: not overwriting it (move the change into the matrix file, or use --force)" ] ||
	fail "hand edit message: $(cat "$tmp/err")"
cmp -s "$tmp/edited.yml" "$repo/$gl" || fail "the hand-edited $gl was changed"
expect_run 0 "$WM" -q -C "$repo" generate --force
cmp -s "$tmp/current.yml" "$repo/$gl" || fail "--force did not restore $gl"

# 4. ci.gitlab.path is honoured, inside the repository; without ci.gitlab nothing is written for GitLab
mkdir -p "$tmp/path"
cat >"$tmp/path/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: pathpkg}
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends: {cpu: {default: true}}
ci:
  gitlab: {path: ci/gitlab/pipeline.yml}
YAML
expect_run 0 "$WM" -C "$tmp/path" generate
[ "$(cat "$tmp/out")" = "wrote ci/gitlab/pipeline.yml" ] || fail "custom path: $(cat "$tmp/out")"
[ -e "$tmp/path/.github" ] || [ -e "$tmp/path/$gl" ] && fail "files beside ci.gitlab.path were written"
sed -i 's|gitlab: {path: ci/gitlab/pipeline.yml}|github: {}|' "$tmp/path/wheelmatrix.yaml"
rm -rf "$tmp/path/ci"
expect_run 0 "$WM" -C "$tmp/path" generate
[ "$(cat "$tmp/out")" = "wrote .github/workflows/wheels.yml
wrote .github/actions/wheelmatrix-check-version/action.yml" ] || fail "without ci.gitlab: $(cat "$tmp/out")"
[ -e "$tmp/path/ci" ] || [ -e "$tmp/path/$gl" ] && fail "a GitLab file was written without ci.gitlab"

# 5. a platform GitLab cannot host is an error before anything is written, also for GitHub
mkdir -p "$tmp/arm"
cat >"$tmp/arm/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: armpkg}
python: {versions: ["3.12"]}
platforms: [linux-x86_64, windows-arm64]
backends: {cpu: {default: true}}
YAML
expect_run 2 "$WM" -C "$tmp/arm" generate
[ "$(find "$tmp/arm" -mindepth 1 ! -name wheelmatrix.yaml | wc -l)" = 0 ] || fail "a matrix GitLab cannot build wrote files"
grep -q "GitLab's hosted runners cannot build windows-arm64" "$tmp/err" || fail "windows-arm64 message: $(cat "$tmp/err")"
sed -i 's/platforms: \[linux-x86_64, windows-arm64\]/platforms: {linux-x86_64: {}, windows-arm64: {tags: [my-arm-runner]}}/' "$tmp/arm/wheelmatrix.yaml"
expect_run 0 "$WM" -q -C "$tmp/arm" generate
grep -q 'tags: \[my-arm-runner\]' "$tmp/arm/$gl" || fail "the matrix file's runner tags are not used"

# 6. the sh scripts (Linux and macOS jobs) have no shellcheck warning; PowerShell is not checked
need shellcheck "make test-deps (apt-get install shellcheck)"
python3 - "$tmp" <<'PY' || fail "shellcheck on the pipelines' scripts (above)"
import glob, os, subprocess, sys, yaml
# each distinct script checked once (most jobs share theirs with others), named by every job
# that runs it
bad, checked, where = 0, 0, {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", ".gitlab-ci.yml"))):
    doc = yaml.safe_load(open(path))
    for name, job in doc.items():
        if not isinstance(job, dict) or "windows" in name or name.startswith("test-") and "windows" in job.get("extends", ""):
            continue
        for key in ("before_script", "script"):
            text = "\n".join(str(line) for line in job.get(key) or [])
            if not text:
                continue
            checked += 1
            where.setdefault(text, []).append("%s %s.%s" % (os.path.basename(os.path.dirname(path)), name, key))
for text, jobs in where.items():
    p = subprocess.run(["shellcheck", "--shell=bash", "--severity=warning", "-"],
                       input=text + "\n", capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL: shellcheck on %s:\n%s" % (", ".join(jobs), p.stdout))
        bad = 1
if checked < 10:
    print("FAIL: only %d scripts were checked" % checked)
    bad = 1
sys.exit(bad)
PY

# 7. past 50 needed jobs, a publish job relies on the stage order and names its artifacts in `dependencies`
# shellcheck disable=SC2015  # no publish-cpu job is a failure too
grep -q '^publish-cpu:' "$tmp/large/$gl" &&
	python3 - "$tmp/large/$gl" "$tmp/llm-rs.yml" <<'PY' || fail "large's publish-cpu job (above, or large has none)"
import sys, yaml
large = yaml.safe_load(open(sys.argv[1]))
small = yaml.safe_load(open(sys.argv[2]))
bad = 0
if "needs" in large["publish-cpu"] or "build-cpu-linux-x86_64" not in large["publish-cpu"].get("dependencies", []):
    print("FAIL: large's publish-cpu (104 builds) keeps needs or lacks dependencies:", large["publish-cpu"])
    bad = 1
if "needs" not in small["publish-cpu"] or "dependencies" in small["publish-cpu"]:
    print("FAIL: llm-rs's publish-cpu (5 builds) does not use needs")
    bad = 1
sys.exit(bad)
PY
finish
