#!/bin/bash
# t-init-repo.sh — init reads the repository's CI: `ci` names the providers it uses and never
# proposes to replace a .gitlab-ci.yml of the project's own; the backends take the names of the
# distributions its workflows and scripts publish, built with the features they build with; the
# wheel workflows the generated one replaces are listed in the file and on stderr.
#
# llm-rs's CI (tests/repos/llm-rs, see its README.md) is read beside tests/fixtures/llm-rs's
# pyproject.toml and Cargo.toml; what init must find is read from those workflows here, not
# written down a second time.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
fixture=$ROOT/tests/repos/llm-rs

# project DIR: a fresh copy of the llm-rs project, without its matrix and CI
project() {
	mkdir -p "$1"
	cp "$ROOT/tests/fixtures/llm-rs/pyproject.toml" "$ROOT/tests/fixtures/llm-rs/Cargo.toml" "$1/"
}
# yq FILE EXPR: a Python expression over the YAML document `d` of FILE, printed as JSON
yq() {
	"$py" -c 'import json, sys, yaml; d = yaml.safe_load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2]), sort_keys=True))' "$1" "$2"
}

# 1. llm-rs: GitHub only; backends named after llm-rs-cuda, -opencl, -metal with their features
repo=$tmp/llm-rs
project "$repo"
cp -r "$fixture/.github" "$fixture/build_scripts" "$repo/"
wm -C "$repo" init --offline
expect_status 0 "init in llm-rs"
cp "$tmp/err" "$tmp/init-err"
[[ $(yq "$repo/wheelmatrix.yaml" 'd["ci"]') == '{"github": {}}' ]] ||
	fail "llm-rs has .github/ and no .gitlab-ci.yml, but ci is $(yq "$repo/wheelmatrix.yaml" 'd.get("ci")')"
# what the workflows publish: PYPROJECT_NAME and --features of each, and the plain build as llm-rs
"$py" - "$fixture/.github/workflows" >"$tmp/want" <<'PY'
import glob, json, re, sys
want = {"llm-rs": []}
for path in sorted(glob.glob(sys.argv[1] + "/*.yml")):
    text = open(path).read()
    name = re.search(r'PYPROJECT_NAME: "([^"]+)"', text)
    if name:
        want[name.group(1)] = sorted(set(re.findall(r"--features (\w+)", text)))
print(json.dumps(want, sort_keys=True))
PY
(($(grep -o '"llm-rs-' "$tmp/want" | wc -l) == 3)) || fail "the fixture's workflows do not publish 3 GPU builds: $(cat "$tmp/want")"
wm -C "$repo" list --format jsonl
expect_status 0 "list after init in llm-rs"
"$py" -c 'import json, sys
got = {}
for line in open(sys.argv[1]):
    j = json.loads(line)
    got[j["distribution"]] = sorted(j["features"])
print(json.dumps(got, sort_keys=True))' "$tmp/out" >"$tmp/got"
expect_same "$tmp/want" "$tmp/got" "llm-rs: the distributions and features of the matrix init wrote"
# each backend is the distribution's suffix: cuda, not cublas
[[ $(yq "$repo/wheelmatrix.yaml" 'sorted(d["backends"])') == '["cpu", "cuda", "metal", "opencl"]' ]] ||
	fail "llm-rs: backends $(yq "$repo/wheelmatrix.yaml" 'sorted(d["backends"])')"
# where each builds: the feature's platforms, narrowed to the runners of its workflow (OpenCL: Linux, Windows),
# and to the matrix's platforms where the toolkit builds on some of a family only (not linux-riscv64)
[[ $(yq "$repo/wheelmatrix.yaml" '{b: v.get("platforms") for b, v in d["backends"].items()}') == \
	'{"cpu": null, "cuda": ["linux-x86_64", "windows-x86_64"], "metal": ["macos-*"], "opencl": ["linux-x86_64", "linux-i686", "windows-*"]}' ]] ||
	fail "llm-rs: platforms $(yq "$repo/wheelmatrix.yaml" '{b: v.get("platforms") for b, v in d["backends"].items()}')"
# the wheel workflows (those running maturin) of a release (those triggered on tags or releases that
# upload to an index or a GitHub release) are listed in the file's comment and each named on stderr;
# the others (manual builds: workflow_dispatch alone) are named as none the matrix replaces
(cd "$fixture" && grep -l 'maturin-action\|maturin build' .github/workflows/*.yml) >"$tmp/wheel-workflows"
(($(wc -l <"$tmp/wheel-workflows") == 6)) || fail "the fixture has not 6 wheel workflows: $(cat "$tmp/wheel-workflows")"
: >"$tmp/release-workflows"
while read -r w; do
	if grep -q "tags:\|release:" "$fixture/$w" && grep -q "command: upload\|action-gh-release" "$fixture/$w"; then
		echo "$w" >>"$tmp/release-workflows"
	else
		grep -q "^$w: note: builds wheels but releases none" "$tmp/init-err" ||
			fail "init did not say $w releases nothing: $(cat "$tmp/init-err")"
	fi
done <"$tmp/wheel-workflows"
(($(wc -l <"$tmp/release-workflows") == 4)) || fail "the fixture has not 4 release workflows: $(cat "$tmp/release-workflows")"
sed -n 's/^#   \([^ ]*\).*/\1/p' "$repo/wheelmatrix.yaml" | sort >"$tmp/listed"
expect_same "$tmp/release-workflows" "$tmp/listed" "llm-rs: the workflows the comment says the generated one replaces or not"
while read -r w; do
	grep -q "^$w: note: builds wheels.*\(replaces it\|keep it until\)" "$tmp/init-err" || fail "init did not name $w: $(cat "$tmp/init-err")"
done <"$tmp/release-workflows"
grep -q "^#   .github/workflows/CI-CuBLAS.yml (llm-rs-cuda, backend 'cuda')$" "$repo/wheelmatrix.yaml" ||
	fail "the comment does not say what CI-CuBLAS.yml publishes: $(head -12 "$repo/wheelmatrix.yaml")"
# generate then writes the GitHub workflow only, beside the old ones, which it leaves alone
scratch_repo "$repo"
commit_all "$repo"
wm -q -C "$repo" generate
expect_status 0 "generate after init in llm-rs"
[[ ! -e $repo/.gitlab-ci.yml ]] || fail "generate wrote a .gitlab-ci.yml for a GitHub project"
! git -C "$repo" status --porcelain .github/workflows build_scripts | grep -v 'wheels.yml' ||
	fail "generate touched the project's workflows: $(git -C "$repo" status --porcelain)"
# init again: the generated workflow is no workflow to replace
wm -C "$repo" init --offline --force
! grep -q '^#   .github/workflows/wheels.yml\|^.github/workflows/wheels.yml:' "$repo/wheelmatrix.yaml" "$tmp/err" ||
	fail "init lists the workflow generate wrote as one to replace: $(cat "$tmp/err")"

# 2. a .gitlab-ci.yml of the project's own is never proposed for replacement
for layout in github gitlab-only; do
	repo=$tmp/own-$layout
	project "$repo"
	[[ $layout == github ]] && cp -r "$fixture/.github" "$repo/"
	printf 'test:\n  script: [cargo test]\n' >"$repo/.gitlab-ci.yml"
	cp "$repo/.gitlab-ci.yml" "$tmp/own.yml"
	wm -C "$repo" init --offline
	expect_status 0 "init with the project's own .gitlab-ci.yml ($layout)"
	[[ $(yq "$repo/wheelmatrix.yaml" 'd["ci"]') == '{"github": {}}' ]] ||
		fail "$layout: ci is $(yq "$repo/wheelmatrix.yaml" 'd["ci"]') beside the project's own .gitlab-ci.yml"
	grep -q "^.gitlab-ci.yml: warning: the project's own pipeline, not written by wheelmatrix: 'ci' leaves GitLab out (ci: {github: {}})" "$tmp/err" ||
		fail "$layout: no warning about .gitlab-ci.yml: $(cat "$tmp/err")"
	wm -q -C "$repo" generate
	expect_status 0 "$layout: generate after init"
	cmp -s "$tmp/own.yml" "$repo/.gitlab-ci.yml" || fail "$layout: the project's own .gitlab-ci.yml changed"
done

# 3. a .gitlab-ci.yml generate wrote is GitLab's: kept, with GitHub when .github/ is there
for providers in gitlab github,gitlab; do
	repo=$tmp/ours-$providers
	project "$repo"
	printf 'wheelmatrix: 1\nproject: {name: llm-rs}\nbackends: {cpu: {default: true}}\nci: {%s}\n' \
		"${providers//,/: {\}, }: {}" >"$repo/wheelmatrix.yaml"
	wm -q -C "$repo" generate
	expect_status 0 "generate for $providers"
	wm -C "$repo" init --offline --force
	expect_status 0 "init beside the files generate wrote ($providers)"
	[[ $(yq "$repo/wheelmatrix.yaml" 'sorted(d["ci"])') == "$(yq /dev/null "sorted('$providers'.split(','))")" ]] ||
		fail "$providers: ci is $(yq "$repo/wheelmatrix.yaml" 'd["ci"]')"
	[[ ! -s $tmp/err ]] || fail "$providers: init said $(cat "$tmp/err")"
done

# 4. no CI at all: both providers, and a note saying so
repo=$tmp/bare
project "$repo"
wm -C "$repo" init --offline
expect_status 0 "init without CI"
[[ $(yq "$repo/wheelmatrix.yaml" 'd["ci"]') == '{"github": {}, "gitlab": {}}' ]] || fail "no CI: ci is $(yq "$repo/wheelmatrix.yaml" 'd["ci"]')"
grep -q "note: no .github/ and no .gitlab-ci.yml" "$tmp/err" || fail "no CI: no note: $(cat "$tmp/err")"

# 5. a build script renames the project (sed on pyproject.toml); a suffix that is no build is not a backend
repo=$tmp/script
project "$repo"
[[ $(tail -n 1 "$repo/Cargo.toml") == "metal = []" ]] || fatal "[features] is no longer the last table of tests/fixtures/llm-rs/Cargo.toml"
echo 'rocm = []' >>"$repo/Cargo.toml"
mkdir -p "$repo/scripts" "$repo/.github/workflows"
cat >"$repo/scripts/build-rocm.sh" <<'SH'
#!/bin/sh
sed -i 's/^name = "llm-rs"$/name = "llm-rs-rocm"/' pyproject.toml
maturin build --release --features "rocm"
SH
cat >"$repo/.github/workflows/docs.yml" <<'YAML'
name: docs
on: push
jobs:
  docs:
    runs-on: ubuntu-latest
    steps:
      - run: echo "https://github.com/owner/llm-rs-python and the llm-rs-docs site"
YAML
wm -C "$repo" init --offline
expect_status 0 "init with a build script"
[[ $(yq "$repo/wheelmatrix.yaml" '{b: v.get("features") for b, v in d["backends"].items()}') == \
	'{"clblast": ["clblast"], "cpu": null, "cublas": ["cublas"], "metal": ["metal"], "rocm": ["rocm"]}' ]] ||
	fail "a build script: backends $(yq "$repo/wheelmatrix.yaml" 'd["backends"]')"
grep -q "^scripts/build-rocm.sh: note: publishes llm-rs-rocm: backend 'rocm' keeps that name$" "$tmp/err" ||
	fail "a build script: no note naming it: $(cat "$tmp/err")"
[[ $(yq "$repo/wheelmatrix.yaml" '[b for b in d["backends"] if b in ("python", "docs")]') == '[]' ]] ||
	fail "a suffix that is no build made a backend: $(cat "$repo/wheelmatrix.yaml")"
finish
