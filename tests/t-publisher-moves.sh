#!/bin/bash
# t-publisher-moves.sh — when the matrix uploads to PyPI with trusted publishing what one of the project's own workflows uploads, init and the generate that first writes the CI say, at that workflow's upload step, that PyPI's trusted publisher of each project must name the generated workflow file (and its environment); a later generate, and a matrix publishing with a token, say nothing of it.
#
# The workflows are llm-rs's (tests/repos/llm-rs, see its README.md): CI.yml uploads llm-rs,
# CI-Metal.yml llm-rs-metal and CI-OpenCL.yml llm-rs-opencl with maturin-action's `command: upload`
# on tags; where each upload step is, is read from those files.
. "$ROOT/tests/kit/lib.sh"
fixture=$ROOT/tests/repos/llm-rs
r=$tmp/llm-rs
mkdir -p "$r"
cp "$ROOT/tests/fixtures/llm-rs/pyproject.toml" "$ROOT/tests/fixtures/llm-rs/Cargo.toml" "$r/"
cp -r "$fixture/.github" "$fixture/build_scripts" "$r/"
scratch_repo "$r"

# note FILE DIST: the note for the workflow FILE uploading DIST, at its `command: upload` line
note() {
	local at
	at=$(awk '/command: upload/ { print NR ":" index($0, "command: upload") + length("command: "); exit }' "$fixture/.github/workflows/$1")
	[ -n "$at" ] || fatal "no 'command: upload' in $1"
	printf "%s\n" ".github/workflows/$1:$at: note: job 'release' uploads '$2' to an index on a tag push (maturin-action's command: upload), as the generated CI does to PyPI with trusted publishing, which PyPI accepts only from a trusted publisher that names the CI file: before the first release, make PyPI's trusted publisher of project '$2' name the GitHub workflow 'wheels.yml' of this repository, environment 'pypi' (pypi.org, the project's Settings, Publishing: change the one naming this workflow, or add one), or PyPI refuses the upload"
}
{
	note CI-Metal.yml llm-rs-metal
	note CI-OpenCL.yml llm-rs-opencl
	note CI.yml llm-rs
} >"$tmp/want"

wm -C "$r" init --offline
expect_status 0 "init"
grep "trusted publisher" "$tmp/err" >"$tmp/got" || true
expect_same "$tmp/want" "$tmp/got" "init's notes of the trusted publishers"

wm -C "$r" generate
expect_status 0 "the first generate"
grep "trusted publisher" "$tmp/err" >"$tmp/got" || true
expect_same "$tmp/want" "$tmp/got" "the first generate's notes of the trusted publishers"
grep -q "^wrote .github/workflows/wheels.yml$" "$tmp/out" || fail "the first generate did not write the workflow: $(cat "$tmp/out")"

wm -C "$r" generate
expect_status 0 "a second generate"
grep -q "trusted publisher" "$tmp/err" && fail "a second generate repeats the notes: $(cat "$tmp/err")"

# -q: nothing but errors
rm "$r/.github/workflows/wheels.yml"
wm -q -C "$r" generate
expect_status 0 "generate -q"
[ -s "$tmp/err" ] && fail "generate -q says: $(cat "$tmp/err")"

# uploads with a token: no trusted publisher to move
rm "$r/.github/workflows/wheels.yml"
printf 'publish:\n  pypi: {trusted: false}\n' >>"$r/wheelmatrix.yaml"
wm -C "$r" generate
expect_status 0 "generate, publishing with a token"
grep -q "trusted publisher" "$tmp/err" && fail "publishing with a token, generate says: $(cat "$tmp/err")"
finish
