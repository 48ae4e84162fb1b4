#!/bin/bash
# t-check-replaced.sh — check reports each wheel workflow of the project's own that still uploads
# a distribution of the matrix to an index on a tag push or a release, at its upload step, from
# the working tree, the index and a commit, in text and JSON, until the workflow is removed; a
# workflow that only tests, uploads on other events only or uploads another distribution, and a
# .gitlab-ci.yml of the project's own, are no finding.  Its advice never destroys: it proposes
# removing the workflow only when the matrix builds all it builds and every job of it is one the
# generated workflow replaces; otherwise it names the publishing job, and what the workflow still
# builds that the matrix does not, read from its builds (CI-Metal.yml's deployment target 10.9
# through $GITHUB_ENV, CI-OpenCL.yml's build off a manylinux container) and from the wheels init
# recorded as lost in the matrix file's header.
#
# The workflows are llm-rs's (tests/repos/llm-rs, see its README.md) and the one the pinned
# maturin's `generate-ci github` writes, run here.  Where each uploads, and what, is read from
# those files, not written down a second time.
. "$ROOT/tests/kit/lib.sh"
fixture=$ROOT/tests/repos/llm-rs
tools=$("$ROOT/tests/tools/install.sh" --path)
[[ -x $tools/bin/maturin && -f $tools/.complete ]] ||
	fatal "the pinned maturin is not installed in $tools: run tests/tools/install.sh (make check does)"
case ":$PATH:" in *":$HOME/.cargo/bin:"*) ;; *) [[ -d $HOME/.cargo/bin ]] && PATH=$PATH:$HOME/.cargo/bin ;; esac
need cargo "install Rust with rustup (https://rustup.rs), which maturin generate-ci runs"
need iconv "apt-get install libc-bin"
generated=.github/workflows/wheels.yml

# project DIR: a git repository holding the llm-rs project, without a matrix or CI
project() {
	mkdir -p "$1"
	cp "$ROOT/tests/fixtures/llm-rs/pyproject.toml" "$ROOT/tests/fixtures/llm-rs/Cargo.toml" "$1/"
	scratch_repo "$1"
}
# matrix DIR: init's matrix and the files generate writes from it, committed with everything there
matrix() {
	wm -C "$1" init --offline
	expect_status 0 "init in ${1#"$tmp"/}"
	cp "$tmp/err" "$tmp/init-err"
	wm -q -C "$1" generate
	expect_status 0 "generate in ${1#"$tmp"/}"
	commit_all "$1"
}
# kept FILE LINE COLUMN JOB DISTS EVENT HOW LOST: the error for a workflow that builds wheels the matrix does not
kept() {
	printf "%s:%s:%s: error: job '%s' uploads %s to an index on %s (%s), as %s does: two publishers of the same files; but this workflow builds wheels the matrix does not (%s), so keep it until the matrix builds them, and stop job '%s' publishing what %s publishes\n" \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7" "$generated" "$8" "$4" "$generated"
}
# finding FILE LINE COLUMN DISTS EVENT HOW [JOB]: the error check must report for a workflow whose
# every job the generated one replaces (its publishing job JOB, default release)
finding() {
	printf "%s:%s:%s: error: job '%s' uploads %s to an index on %s (%s), as %s does: two publishers of the same files; remove this workflow, whose every job that one replaces ('git rm %s'), or stop job '%s' publishing\n" \
		"$1" "$2" "$3" "${7:-release}" "$4" "$5" "$6" "$generated" "$1" "${7:-release}"
}
# position FILE TEXT: the line and column where TEXT first starts in FILE ("74 20")
position() {
	awk -v t="$2" 'i = index($0, t) { print NR, i; exit }' "$1"
}
# sources WANT DIR [WHAT]: check of the working tree, the index and HEAD each exits 1 with stderr
# exactly WANT (a file), or 0 and silent when WANT is empty
sources() {
	local s
	for s in --worktree --staged "--rev HEAD"; do
		# shellcheck disable=SC2086
		wm -C "$2" check $s
		if [[ -s $1 ]]; then
			expect_status 1 "${3:-check} $s"
		else
			expect_status 0 "${3:-check} $s"
		fi
		expect_same "$1" "$tmp/err" "${3:-check} $s: stderr"
	done
}

# ---- 1. llm-rs: CI.yml, CI-Metal.yml and CI-OpenCL.yml upload on tags with maturin-action ----
repo=$tmp/llm-rs
project "$repo"
cp -r "$fixture/.github" "$fixture/build_scripts" "$repo/"
matrix "$repo"
# what uploads: the workflows with maturin-action's `command: upload`, each its PYPROJECT_NAME or llm-rs
: >"$tmp/want"
for f in "$fixture"/.github/workflows/*.yml; do
	grep -q 'command: upload' "$f" || continue
	name=$(sed -n 's/^ *PYPROJECT_NAME: "\(.*\)"$/\1/p' "$f")
	read -r line column < <(position "$f" 'command: upload')
	read -r build _ < <(position "$f" 'PyO3/maturin-action@')
	w=.github/workflows/${f##*/}
	case ${f##*/} in
	CI-Metal.yml)
		# shellcheck disable=SC2016  # the workflow's own text, $GITHUB_ENV as written there
		grep -q 'MACOSX_DEPLOYMENT_TARGET=10.9" >>"$GITHUB_ENV"' "$f" || fail "CI-Metal.yml no longer sets 10.9"
		kept "$w" "$line" $((column + 9)) release "$name" "a tag push" "maturin-action's command: upload" \
			"1: the wheels of job macos ($w:$build): built with MACOSX_DEPLOYMENT_TARGET 10.9 ($w:$build), which init carries for the default backend's builds only" ;;
	CI-OpenCL.yml)
		kept "$w" "$line" $((column + 9)) release "$name" "a tag push" "maturin-action's command: upload" \
			"1: some wheels of job linux ($w:$build): built on the runner, off a manylinux container: its level follows the runner's glibc" ;;
	*)
		finding "$w" "$line" $((column + 9)) "${name:-llm-rs}" "a tag push" "maturin-action's command: upload" ;;
	esac >>"$tmp/want"
done
(($(wc -l <"$tmp/want") == 3)) || fail "the fixture has not 3 workflows uploading on tags: $(cat "$tmp/want")"
grep -q 'softprops/action-gh-release' "$fixture/.github/workflows/CI-CuBLAS.yml" ||
	fail "CI-CuBLAS.yml no longer uploads to a GitHub release only"
sources "$tmp/want" "$repo" "llm-rs"
# init said it too, of those three and no other
sed -n "s/^\([^:]*\): note: builds wheels.*'wheelmatrix check' reports the two publishers until then)$/\1/p" \
	"$tmp/init-err" >"$tmp/said"
cut -d: -f1 "$tmp/want" | expect_same - "$tmp/said" "init's notes of the workflows check reports"

# the same findings as JSON
wm -C "$repo" check --format json
expect_status 1 "check --format json"
python3 - "$tmp/out" "$tmp/want" >"$tmp/json" 2>&1 <<'PY' || fail "check --format json: $(cat "$tmp/json")"
import json, re, sys
got = json.load(open(sys.argv[1]))
want = []
for line in open(sys.argv[2]):
    m = re.match(r"([^:]*):(\d+):(\d+): error: (.*)\n", line)
    want.append({"file": m[1], "line": int(m[2]), "column": int(m[3]), "severity": "error", "message": m[4]})
assert got["ok"] is False and got["errors"] == len(want), got
assert got["findings"] == want, json.dumps(got["findings"], indent=1)
PY

# llm-rs saves CI.yml as UTF-16 with a byte-order mark, which GitHub reads: init and check read it too
utf16=$tmp/llm-rs-utf16
project "$utf16"
cp -r "$fixture/.github" "$fixture/build_scripts" "$utf16/"
iconv -f UTF-8 -t UTF-16 "$fixture/.github/workflows/CI.yml" >"$utf16/.github/workflows/CI.yml"
[[ $(head -c 2 "$utf16/.github/workflows/CI.yml" | od -An -tx1 | tr -d ' ') == @(fffe|feff) ]] ||
	fatal "iconv wrote no byte-order mark"
matrix "$utf16"
sources "$tmp/want" "$utf16" "llm-rs with a UTF-16 CI.yml"
grep -q "^.github/workflows/CI.yml: note: builds wheels and uploads them to an index on a tag push" "$tmp/init-err" ||
	fail "init did not read the UTF-16 CI.yml: $(cat "$tmp/init-err")"

# git rm one: gone from the index and the working tree, still in HEAD
git -C "$repo" rm -q .github/workflows/CI.yml
grep -v '^.github/workflows/CI.yml:' "$tmp/want" >"$tmp/want-staged"
for s in --worktree --staged; do
	wm -C "$repo" check $s
	expect_status 1 "check $s after git rm CI.yml"
	expect_same "$tmp/want-staged" "$tmp/err" "check $s after git rm CI.yml: stderr"
done
wm -C "$repo" check --rev HEAD
expect_status 1 "check --rev HEAD after git rm CI.yml"
expect_same "$tmp/want" "$tmp/err" "check --rev HEAD after git rm CI.yml: stderr"
# all three removed and committed: check passes everywhere
git -C "$repo" rm -q .github/workflows/CI-Metal.yml .github/workflows/CI-OpenCL.yml
git -C "$repo" commit -qm "remove the workflows wheels.yml replaces"
sources /dev/null "$repo" "llm-rs without them"

# another distribution: CI-Metal.yml renamed to llm-rs-rocm (the matrix has no rocm backend)
sed 's/"llm-rs-metal"/"llm-rs-rocm"/' "$fixture/.github/workflows/CI-Metal.yml" >"$repo/.github/workflows/CI-Metal.yml"
grep -q 'PYPROJECT_NAME: "llm-rs-rocm"' "$repo/.github/workflows/CI-Metal.yml" || fatal "CI-Metal.yml names no llm-rs-metal"
commit_all "$repo"
sources /dev/null "$repo" "CI-Metal.yml uploading llm-rs-rocm"

# ---- 2. what maturin generate-ci github writes: `uv publish` on a tag ------------------------
# maturin runs cargo metadata: pyo3 is a local crate of that name, so that it needs no registry
gen=$tmp/gen
mkdir -p "$gen/src" "$gen/pyo3/src"
cp "$ROOT/tests/fixtures/llm-rs/pyproject.toml" "$gen/"
sed 's|^pyo3 = .*|pyo3 = { path = "pyo3", features = ["abi3-py38"] }|' "$ROOT/tests/fixtures/llm-rs/Cargo.toml" >"$gen/Cargo.toml"
printf '[package]\nname = "pyo3"\nversion = "0.29.3"\nedition = "2021"\n\n[features]\nextension-module = []\nabi3 = []\nabi3-py38 = ["abi3"]\n' \
	>"$gen/pyo3/Cargo.toml"
touch "$gen/src/lib.rs" "$gen/pyo3/src/lib.rs"
(cd "$gen" && CARGO_HOME=$tmp/cargo-home CARGO_NET_OFFLINE=true "$tools/bin/maturin" generate-ci github) \
	>"$tmp/maturin.yml" 2>"$tmp/maturin.log" || { show "$tmp/maturin.log"; fatal "maturin generate-ci github failed"; }
grep -q "uv publish" "$tmp/maturin.yml" || fatal "maturin generate-ci no longer publishes with uv publish: $(cat "$tmp/maturin.yml")"

repo=$tmp/maturin
project "$repo"
mkdir -p "$repo/.github/workflows"
# init takes maturin's CI.yml over: the matrix builds what it builds
cp "$tmp/maturin.yml" "$repo/.github/workflows/CI.yml"
matrix "$repo"
# workflow NAME FILE: FILE committed as .github/workflows/NAME (replacing what was there), $wf its path
workflow() {
	rm -f "$repo"/.github/workflows/[!w]*
	wf=.github/workflows/$1
	cp "$2" "$repo/$wf"
	commit_all "$repo" "$1"
}
wf=.github/workflows/CI.yml
read -r line column < <(position "$tmp/maturin.yml" 'uv publish')
finding "$wf" "$line" "$column" llm-rs "a tag push" "uv publish" >"$tmp/want"
sources "$tmp/want" "$repo" "maturin's workflow"
wm -C "$repo" check --format json
python3 -c 'import json, sys; f = json.load(open(sys.argv[1]))["findings"]; print("%s:%d:%d" % (f[0]["file"], f[0]["line"], f[0]["column"]))' \
	"$tmp/out" >"$tmp/got" || fail "check --format json: $(cat "$tmp/out")"
cut -d: -f1-3 "$tmp/want" | expect_same - "$tmp/got" "maturin's workflow: the JSON finding's position"
git -C "$repo" rm -q "$wf"
git -C "$repo" commit -qm "remove CI.yml"
sources /dev/null "$repo" "maturin's workflow removed"

# variant NAME PATTERN REPLACEMENT: maturin's workflow with the one match of the regular expression
# PATTERN (Python's, multi-line) replaced, committed as .github/workflows/NAME.yml
variant() {
	python3 - "$tmp/maturin.yml" "$tmp/$1.yml" "$2" "$3" <<'PY' || fatal "$1: the pattern does not match maturin's workflow once"
import re, sys
text, n = re.subn(sys.argv[3], sys.argv[4], open(sys.argv[1]).read(), flags=re.M | re.S)
open(sys.argv[2], "w").write(text)
sys.exit(n != 1)
PY
	workflow "$1.yml" "$tmp/$1.yml"
}

# a release, not a tag push: the same upload step
variant release '^on:\n.*?\n(?=\S)' 'on:\n  release:\n    types: [published]\n\n'
read -r line column < <(position "$tmp/release.yml" 'uv publish')
finding "$wf" "$line" "$column" llm-rs "a release" "uv publish" >"$tmp/want"
sources "$tmp/want" "$repo" "uploading on a release"
# pypa's action instead of uv publish
variant pypa 'run: uv publish .*?$' 'uses: pypa/gh-action-pypi-publish@release/v1'
read -r line column < <(position "$tmp/pypa.yml" 'pypa/gh-action-pypi-publish')
finding "$wf" "$line" "$column" llm-rs "a tag push" "pypa/gh-action-pypi-publish" >"$tmp/want"
sources "$tmp/want" "$repo" "uploading with pypa/gh-action-pypi-publish"

# no finding: the tests only (no release job), ...
variant tests '^  release:\n.*' ''
grep -q 'maturin-action' "$tmp/tests.yml" || fatal "the tests only build no wheel"
sources /dev/null "$repo" "a workflow that only builds and tests"
# ... pushes of branches only (the tags filter removed), ...
variant branches '^    tags:\n(      - .*?\n)+' ''
sources /dev/null "$repo" "uploading on pushes of branches only"
# ... a tag push that the upload step's condition rules out: it uploads on a manual run only
variant manual "if: [^\n]*\n(\s+run: uv publish)" "if: github.event_name == 'workflow_dispatch'\n\1"
sources /dev/null "$repo" "uploading on workflow_dispatch only"

# ---- 3. a .gitlab-ci.yml of the project's own uploads on tags: not a workflow generate replaces --
cat >"$tmp/publish.sh" <<'EOF'
pip install maturin
maturin publish --skip-existing
EOF
repo=$tmp/gitlab
project "$repo"
mkdir -p "$repo/.github"
cat >"$repo/.gitlab-ci.yml" <<'EOF'
publish:
  rules: [{if: $CI_COMMIT_TAG}]
  script:
EOF
sed 's/^/    - /' "$tmp/publish.sh" >>"$repo/.gitlab-ci.yml"
matrix "$repo"
sources /dev/null "$repo" "the project's own .gitlab-ci.yml"
# the same script in a GitHub workflow on tags is one
mkdir -p "$repo/.github/workflows"
printf 'on:\n  push:\n    tags: ["v*"]\njobs:\n  publish:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n' \
	>"$repo/.github/workflows/publish.yml"
sed 's/^/          /' "$tmp/publish.sh" >>"$repo/.github/workflows/publish.yml"
commit_all "$repo"
# maturin publish builds on the runner, off a manylinux container, whose glibc makes the wheel's level:
# not the matrix's wheel, so the workflow is kept
read -r line column < <(position "$repo/.github/workflows/publish.yml" 'maturin publish')
kept .github/workflows/publish.yml "$line" "$column" publish llm-rs "a tag push" "maturin publish" \
	"1: some wheels of job publish (.github/workflows/publish.yml:$line): built on the runner, off a manylinux container: its level follows the runner's glibc" >"$tmp/want"
sources "$tmp/want" "$repo" "the same script in a workflow"
finish
