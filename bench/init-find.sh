#!/usr/bin/env bash
# init-find.sh — times `wheelmatrix init` where the root holds no maturin project, so that it looks
# for one among the tracked files, against `git ls-files` in the same repository: a repository of
# 10,000 and 100,000 tracked files (src/dNNNN/fNNNNNN.rs), about 500 of them pyproject.toml files that
# maturin does not build spread over the tree (tests' fixtures, tools), the project's in
# bindings/python, and a root pyproject.toml with no [build-system]: nothing points at the project, so init reads
# the tracked pyproject.toml files, the shallowest first, at most 64 of them (the worst case).
# Then the same sizes holding a real release's files instead (tests/takeover/prqlc/repo: 119 KB of
# workflows, a release workflow called by another, a composite action, the project in
# prqlc/bindings/prqlc-python) and filler: init reads every workflow as GitHub runs it, and finds
# the project through them.
#
# Usage: bench/init-find.sh     (RUNS=N runs per command, default 11; SIZES="10000 100000";
#                                WHEELMATRIX=PATH times another binary)
# Reported, not asserted: it fails only when init does not find bindings/python/pyproject.toml.
set -euo pipefail

RUNS=${RUNS:-11}
read -r -a sizes <<<"${SIZES:-10000 100000}"
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

make_repo() {
	local repo=$1 files=$2
	mkdir -p "$repo/bindings/python"
	python3 - "$repo" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2]) - 3
step = max(n // 500, 1)
for i in range(n):
    d = os.path.join(root, "src", f"d{i // 100:04d}")
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    if i % step == 0:
        name, text = "pyproject.toml", '[build-system]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "x"\n'
        d = os.path.join(d, f"p{i:06d}")
        os.makedirs(d, exist_ok=True)
    else:
        name, text = f"f{i:06d}.rs", f"pub fn f{i}() -> u32 {{ {i} }}\n"
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
PY
	printf '[project]\nname = "ws"\nversion = "0"\n' >"$repo/pyproject.toml"
	printf '[build-system]\nrequires = ["maturin>=1.5,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "bench"\nversion = "1.0.0"\n' \
		>"$repo/bindings/python/pyproject.toml"
	printf '[package]\nname = "bench"\nversion = "1.0.0"\n\n[lib]\nname = "bench"\n' >"$repo/bindings/python/Cargo.toml"
	git -C "$repo" init -q
	git -C "$repo" add -A
	git -C "$repo" commit -qm base
}

# make_takeover_repo REPO FILES: tests/takeover/prqlc's files and filler, FILES tracked in all
make_takeover_repo() {
	local repo=$1 files=$2
	cp -R "$root/tests/takeover/prqlc/repo" "$repo"
	python3 - "$repo" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
n -= sum(len(f) for _, _, f in os.walk(root))
for i in range(n):
    d = os.path.join(root, "filler", f"d{i // 100:04d}")
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:06d}.rs"), "w") as f:
        f.write(f"pub fn f{i}() -> u32 {{ {i} }}\n")
PY
	git -C "$repo" init -q
	git -C "$repo" add -A
	git -C "$repo" commit -qm base
}

echo "wheelmatrix: $("$wm" --version)"
echo "$RUNS runs per command (median wall time, peak RSS)"
for files in "${sizes[@]}"; do
	repo=$tmp/repo$files
	make_repo "$repo" "$files"
	count=$(git -C "$repo" ls-files | wc -l)
	py=$(git -C "$repo" ls-files '*pyproject.toml' | wc -l)
	(cd "$repo" && "$wm" init --offline --force 2>"$tmp/err" >/dev/null) || { cat "$tmp/err" >&2; exit 1; }
	grep -q "^bindings/python/pyproject.toml: note: the project" "$tmp/err" ||
		{ echo "init-find.sh: init did not find bindings/python:" >&2; cat "$tmp/err" >&2; exit 1; }
	echo
	echo "$count tracked files, $py pyproject.toml"
	read -r t rss < <(cd "$repo" && python3 "$here/measure.py" --quiet --runs "$RUNS" -- "$wm" init --offline --force)
	read -r p prss < <(cd "$repo" && python3 "$here/measure.py" --quiet --runs "$RUNS" -- "$wm" init --offline --force \
		--pyproject bindings/python/pyproject.toml)
	read -r g grss < <(cd "$repo" && python3 "$here/measure.py" --runs "$RUNS" -- git ls-files)
	awk -v t="$t" -v r="$rss" -v p="$p" -v pr="$prss" -v g="$g" -v gr="$grss" 'BEGIN {
		printf "  init (found)       %8.2f ms  %6.1f MiB\n", t * 1000, r / 1024
		printf "  init --pyproject   %8.2f ms  %6.1f MiB\n", p * 1000, pr / 1024
		printf "  git ls-files       %8.2f ms  %6.1f MiB\n", g * 1000, gr / 1024
	}'
done
for files in "${sizes[@]}"; do
	repo=$tmp/takeover$files
	make_takeover_repo "$repo" "$files"
	(cd "$repo" && "$wm" init --offline --force 2>"$tmp/err" >/dev/null) || { cat "$tmp/err" >&2; exit 1; }
	grep -q "^prqlc/bindings/prqlc-python/pyproject.toml: note: the project" "$tmp/err" ||
		{ echo "init-find.sh: init did not find prqlc/bindings/prqlc-python:" >&2; cat "$tmp/err" >&2; exit 1; }
	echo
	echo "$(git -C "$repo" ls-files | wc -l) tracked files, prqlc's workflows ($(cat "$repo"/.github/workflows/* | wc -c) bytes)"
	read -r t rss < <(cd "$repo" && python3 "$here/measure.py" --quiet --runs "$RUNS" -- "$wm" init --offline --force)
	read -r g grss < <(cd "$repo" && python3 "$here/measure.py" --runs "$RUNS" -- git ls-files)
	awk -v t="$t" -v r="$rss" -v g="$g" -v gr="$grss" 'BEGIN {
		printf "  init (workflows)   %8.2f ms  %6.1f MiB\n", t * 1000, r / 1024
		printf "  git ls-files       %8.2f ms  %6.1f MiB\n", g * 1000, gr / 1024
	}'
done
