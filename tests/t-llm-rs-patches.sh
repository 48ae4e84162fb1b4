#!/bin/bash
# t-llm-rs-patches.sh — matrices/llm-rs.yaml on the real llm-rs project (its sdist from PyPI): generate writes patches
# that git apply takes and that turn pyproject.toml into llm-rs-cuda, -opencl and -metal.
. "$ROOT/tests/kit/lib.sh"
# llm-rs 0.2.15's sdist, from the corpus of tests/tools/corpus.txt (`make testdata` installs it)
testdata corpus/llm-rs-0.2.15/pyproject.toml
corpus=$data/corpus/llm-rs-0.2.15
repo=$tmp/repo
mkdir -p "$repo"
cp "$corpus/pyproject.toml" "$corpus/Cargo.toml" "$repo/"
cp "$ROOT/matrices/llm-rs.yaml" "$repo/wheelmatrix.yaml"
scratch_repo "$repo"
commit_all "$repo"
"$WM" -q -C "$repo" generate
base=$(git -C "$repo" hash-object pyproject.toml)
[ ! -e "$repo/.wheelmatrix/patches/cpu.patch" ] || fail "the default backend builds the base file, yet has a patch"
# backend, expected name, expected features (written here by hand from the matrix and pyproject.toml)
while read -r backend name features; do
	patch=.wheelmatrix/patches/$backend.patch
	grep -q "^index $base\.\." "$repo/$patch" || fail "$patch does not start from pyproject.toml's blob $base"
	if ! git -C "$repo" apply --check "$patch" || ! git -C "$repo" apply "$patch"; then
		fail "git apply refused $patch"
		continue
	fi
	python3 - "$repo/pyproject.toml" "$name" "$features" <<'PY' || fail "$backend: the patched pyproject.toml (above)"
import json, sys, tomllib
doc = tomllib.load(open(sys.argv[1], "rb"))
name, features = sys.argv[2], json.loads(sys.argv[3])
got = (doc["project"]["name"], doc["tool"]["maturin"]["features"], doc["tool"]["maturin"].get("module-name"))
# [lib].name = "llm_rs" in Cargo.toml keeps the import name: no module-name is pinned
if got != (name, features, None):
    print(f"FAIL: {sys.argv[1]}: got {got}, want {(name, features, None)}")
    sys.exit(1)
PY
	# nothing but those two lines changed
	changed=$(git -C "$repo" diff --numstat pyproject.toml | awk '{print $1 "+" $2 "-"}')
	[ "$changed" = "2+2-" ] || fail "$backend: the patch changed $changed lines"
	git -C "$repo" checkout -q pyproject.toml
done <<'EOF_LIST'
cuda llm-rs-cuda ["pyo3/extension-module", "cublas"]
opencl llm-rs-opencl ["pyo3/extension-module", "clblast"]
metal llm-rs-metal ["pyo3/extension-module", "metal"]
EOF_LIST
# the workflow applies exactly the patches that exist
grep -o '\.wheelmatrix/patches/[a-z_0-9]*\.patch' "$repo/.github/workflows/wheels.yml" | sort -u >"$tmp/used"
(cd "$repo" && ls .wheelmatrix/patches/*.patch) | sort >"$tmp/have"
expect_same "$tmp/have" "$tmp/used" "the patches the workflow applies (those that exist)"
finish
