#!/bin/bash
# t-llm-rs-patches.sh — matrices/llm-rs.yaml on the real llm-rs project (its sdist from PyPI): generate writes patches
# that git apply takes and that turn pyproject.toml into llm-rs-cuda, -opencl and -metal.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
# llm-rs 0.2.15's sdist, from the corpus of tests/tools/corpus.txt (`make testdata` installs it)
data=$("$ROOT/tests/tools/install-testdata.sh" --dir)
corpus=$data/corpus/llm-rs-0.2.15
if [ ! -f "$data/complete" ] || [ ! -f "$corpus/pyproject.toml" ]; then
	echo "FAIL: the corpus is not installed in $data: run 'make testdata' (tests/tools/install-testdata.sh)"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo=$tmp/repo
mkdir -p "$repo"
cp "$corpus/pyproject.toml" "$corpus/Cargo.toml" "$repo/"
cp "$ROOT/matrices/llm-rs.yaml" "$repo/wheelmatrix.yaml"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=t -c user.email=t@example.com commit -qm base
"$WM" -q -C "$repo" generate
fail=0
base=$(git -C "$repo" hash-object pyproject.toml)
[ ! -e "$repo/.wheelmatrix/patches/cpu.patch" ] || { echo "FAIL: the default backend builds the base file, yet has a patch"; fail=1; }
# backend, expected name, expected features (written here by hand from the matrix and pyproject.toml)
while read -r backend name features; do
	patch=.wheelmatrix/patches/$backend.patch
	if ! grep -q "^index $base\.\." "$repo/$patch"; then
		echo "FAIL: $patch does not start from pyproject.toml's blob $base"
		fail=1
	fi
	if ! git -C "$repo" apply --check "$patch" || ! git -C "$repo" apply "$patch"; then
		echo "FAIL: git apply refused $patch"
		fail=1
		continue
	fi
	python3 - "$repo/pyproject.toml" "$name" "$features" <<'PY' || fail=1
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
	[ "$changed" = "2+2-" ] || { echo "FAIL: $backend: the patch changed $changed lines"; fail=1; }
	git -C "$repo" checkout -q pyproject.toml
done <<'EOF_LIST'
cuda llm-rs-cuda ["pyo3/extension-module", "cublas"]
opencl llm-rs-opencl ["pyo3/extension-module", "clblast"]
metal llm-rs-metal ["pyo3/extension-module", "metal"]
EOF_LIST
# the workflow applies exactly the patches that exist
grep -o '\.wheelmatrix/patches/[a-z_0-9]*\.patch' "$repo/.github/workflows/wheels.yml" | sort -u >"$tmp/used"
(cd "$repo" && ls .wheelmatrix/patches/*.patch) | sort >"$tmp/have"
diff -u "$tmp/have" "$tmp/used" || { echo "FAIL: the workflow and the patches disagree"; fail=1; }
exit $fail
