#!/usr/bin/env bash
# check.sh — times `wheelmatrix check --staged` on a repository of 10,000 files with a 200-job matrix,
# against `git status` on the same repository: medians and their ratio (target: at most 0.5).
#
# Usage: bench/check.sh          (RUNS=N for N runs of each command, default 21;
#                                 WHEELMATRIX=PATH to time another binary instead of building)
# Reported, not asserted: the script fails only when a command fails or the check finds something.
set -euo pipefail

files=10000
target=0.5
RUNS=${RUNS:-21}
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

repo=$tmp/repo
mkdir -p "$repo"
# 10,000 files in 100 directories, the project's own among them
python3 - "$repo" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2]) - 8  # the project's files and the generated ones make up the rest
for i in range(n):
    d = os.path.join(root, "src", f"d{i // 100:02d}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:05d}.rs"), "w") as f:
        f.write(f"// file {i}\npub fn f{i}() -> u32 {{ {i} }}\n")
PY
printf '[build-system]\nrequires = ["maturin>=1.5,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "bench"\nversion = "1.0.0"\n' >"$repo/pyproject.toml"
{
	printf '[package]\nname = "bench"\nversion = "1.0.0"\n\n[lib]\nname = "bench"\n\n[features]\n'
	for i in 0 1 2 3 4 5 6 7 8; do printf 'gpu%d = []\n' "$i"; done
} >"$repo/Cargo.toml"
# 5 platforms x 4 versions x 10 backends = 200 jobs
{
	printf 'wheelmatrix: 1\npython:\n  versions: ["3.10", "3.11", "3.12", "3.13"]\n'
	printf 'platforms: [linux-x86_64, linux-aarch64, macos-arm64, macos-x86_64, windows-x86_64]\nbackends:\n'
	for i in 0 1 2 3 4 5 6 7 8; do printf '  gpu%d: {features: [gpu%d]}\n' "$i" "$i"; done
	printf '  cpu: {default: true}\nci:\n  github: {path: .github/workflows/wheels.yml}\n'
} >"$repo/wheelmatrix.yaml"
"$wm" -q -C "$repo" generate
jobs=$("$wm" -C "$repo" list --format jsonl | wc -l)
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" commit -qm base
count=$(git -C "$repo" ls-files | wc -l)
"$wm" -C "$repo" check --staged || { echo "check.sh: the repository does not pass check" >&2; exit 1; }

echo "wheelmatrix: $("$wm" --version)"
echo "$count tracked files, $jobs jobs, $runs runs each (median wall time)"
echo
check=$(cd "$repo" && python3 "$here/measure.py" --runs "$runs" -- "$wm" check --staged)
status=$(cd "$repo" && python3 "$here/measure.py" --runs "$runs" -- git status)
awk -v s="${check% *}" 'BEGIN { printf "wheelmatrix check --staged  %8.2f ms\n", s * 1000 }'
awk -v s="${status% *}" 'BEGIN { printf "git status                  %8.2f ms\n", s * 1000 }'
awk -v a="${check% *}" -v b="${status% *}" -v t="$target" 'BEGIN {
	r = a / b
	printf "\nratio (check --staged / git status): %.2f (%s the %.1f target)\n", r, (r <= t ? "meets" : "DOES NOT meet"), t
}'

# The floor under any libgit2 program here: a process that does nothing, one that only links
# libcurl, and one that only runs git_libgit2_init() and git_libgit2_shutdown().
printf 'int main(void) { return 0; }\n' >"$tmp/empty.c"
printf '#include <curl/curl.h>\nint main(int argc, char **argv) { (void)argv; if (argc > 9) curl_easy_init(); return 0; }\n' >"$tmp/curl.c"
printf '#include <git2.h>\nint main(void) { git_libgit2_init(); git_libgit2_shutdown(); return 0; }\n' >"$tmp/git2.c"
cc -O2 -o "$tmp/empty" "$tmp/empty.c"
# shellcheck disable=SC2046
cc -O2 -o "$tmp/curl" "$tmp/curl.c" $(pkg-config --cflags --libs libcurl)
# shellcheck disable=SC2046
cc -O2 -o "$tmp/git2" "$tmp/git2.c" $(pkg-config --cflags --libs libgit2)
echo
echo "the floor (median wall time, and its share of git status):"
for floor in "empty:a process that does nothing" "curl:a process linked with libcurl" \
		"git2:git_libgit2_init() and git_libgit2_shutdown() alone" "wm:wheelmatrix --version"; do
	name=${floor%%:*}
	if [ "$name" = wm ]; then
		t=$(python3 "$here/measure.py" --runs "$runs" -- "$wm" --version)
	else
		t=$(python3 "$here/measure.py" --runs "$runs" -- "$tmp/$name")
	fi
	awk -v s="${t% *}" -v b="${status% *}" -v w="${floor#*:}" 'BEGIN { printf "  %-56s %7.2f ms  %.2f\n", w, s * 1000, s / b }'
done
