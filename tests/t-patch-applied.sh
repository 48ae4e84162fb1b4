#!/bin/bash
# t-patch-applied.sh — while a variant patch is applied to the working tree (`wheelmatrix patch cuda`
# before `maturin build`, the local workflow of docs/patch.md), list, plan and check see the project as
# committed: the same jobs, files and findings as without the patch, with and without `project.name`;
# check adds one error, since `git commit -a` would commit the variant.
. "$ROOT/tests/kit/lib.sh"

# The llm-rs project's shape: abi3-py38, one feature per GPU backend.
repo=$tmp/repo
mkdir -p "$repo/src"
cat >"$repo/pyproject.toml" <<'TOML'
[build-system]
requires = ["maturin>=1.5,<2.0"]
build-backend = "maturin"

[project]
name = "llm-rs"
requires-python = ">=3.8"
dynamic = ["version"]

[tool.maturin]
features = ["pyo3/extension-module"]
TOML
cat >"$repo/Cargo.toml" <<'TOML'
[package]
name = "llm-rs"
version = "0.2.15"
edition = "2021"

[lib]
name = "llm_rs"
crate-type = ["cdylib"]

[dependencies.pyo3]
version = "0.19.2"
features = ["abi3-py38", "extension-module", "generate-import-lib"]

[features]
cublas = []
clblast = []
metal = []
TOML
: >"$repo/src/lib.rs"
cp "$ROOT/matrices/llm-rs.yaml" "$repo/wheelmatrix.yaml"

# outputs NAME: list (table and JSON), plan --offline and check of the working tree, into $tmp/NAME.*
outputs() {
	local name=$1 code
	for cmd in "list" "list --format json" "plan --offline" "check"; do
		code=0
		# shellcheck disable=SC2086
		"$WM" -C "$repo" $cmd >"$tmp/$name.out" 2>"$tmp/$name.err" || code=$?
		{
			echo "== $cmd: exit $code"
			cat "$tmp/$name.out"
			echo "-- stderr"
			cat "$tmp/$name.err"
		} >>"$tmp/$name.all"
	done
}

# same WHAT: the patched run's outputs are the committed ones
same() {
	expect_same "$tmp/base.all" "$tmp/patched.all" "$1: list, plan and check while the patch is applied"
}

for variant in named unnamed; do
	rm -rf "$repo/.git" "$repo/.github" "$repo/.gitlab-ci.yml" "$repo/.wheelmatrix" "$tmp"/*.all
	[ "$variant" = unnamed ] && sed -i '/^  name: llm-rs$/d' "$repo/wheelmatrix.yaml"
	"$WM" -q -C "$repo" generate
	git -C "$repo" init -q
	git -C "$repo" add -A
	git -C "$repo" commit -qm base
	outputs base
	grep -qx "== check: exit 0" "$tmp/base.all" || fail "$variant: check fails on the committed project: $(cat "$tmp/base.all")"
	grep -q "llm_rs_cuda-0.2.15-cp38-abi3-manylinux_2_28_x86_64.whl" "$tmp/base.all" ||
		fail "$variant: plan: $(cat "$tmp/base.all")"
	for backend in cuda opencl; do
		"$WM" -q -C "$repo" patch "$backend"
		grep -qx "name = \"llm-rs-$backend\"" "$repo/pyproject.toml" || fail "$variant: patch $backend did not rename"
		outputs patched
		# check says so, as an error (git commit -a would commit the variant), and finds nothing else
		note="pyproject.toml: error: has the patch of backend '$backend' applied (wheelmatrix patch), which 'git commit -a' would commit: run 'wheelmatrix patch $backend --revert' (the other findings are the project's without it)"
		grep -qxF "$note" "$tmp/patched.all" || fail "$variant, $backend applied: check does not say so"
		grep -qx "== check: exit 1" "$tmp/patched.all" || fail "$variant, $backend applied: check did not exit 1"
		grep -vxF "$note" "$tmp/patched.all" | sed 's/^== check: exit 1$/== check: exit 0/' >"$tmp/patched.tmp" || true
		mv "$tmp/patched.tmp" "$tmp/patched.all"
		same "$variant, $backend applied"
		grep -q "llm-rs-$backend-$backend" "$tmp/patched.all" && fail "$variant, $backend applied: llm-rs-$backend-$backend"
		"$WM" -q -C "$repo" check --staged >"$tmp/out" 2>&1 || fail "$variant, $backend applied: check --staged: $(cat "$tmp/out")"
		"$WM" -q -C "$repo" patch --revert "$backend"
		git -C "$repo" diff --quiet || fail "$variant: patch --revert $backend left a change"
		rm -f "$tmp/patched.all"
	done
	# staged with the patch: what would be committed is the variant, and check says so
	"$WM" -q -C "$repo" patch cuda
	git -C "$repo" add pyproject.toml
	if "$WM" -C "$repo" check --staged >"$tmp/out" 2>&1; then
		fail "$variant: check --staged passed a pyproject.toml staged with the cuda patch applied"
	fi
	git -C "$repo" reset -q
	"$WM" -q -C "$repo" patch --revert cuda
done
finish
