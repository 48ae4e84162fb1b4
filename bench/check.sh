#!/usr/bin/env bash
# check.sh — times `wheelmatrix check --staged` and `wheelmatrix check` (the working tree) against
# `git status` in the same repository, run in turn, at 10,000 and 100,000 tracked files with a
# 200-job matrix: medians, the median of the paired ratios (targets: at most 0.5 at 10,000 files,
# at most 0.1 at 100,000), and each command's peak RSS.
#
# Usage: bench/check.sh          (RUNS=N for N pairs per size, default 21; SIZES="10000 100000";
#                                 FLOOR=0 skips the floor; WHEELMATRIX=PATH times another binary)
# Reported, not asserted: the script fails only when a command fails or the check finds something.
# Each goal is one line starting with "goal:", "met" or "NOT met", for bench/goals.sh.
set -euo pipefail

RUNS=${RUNS:-21}
read -r -a sizes <<<"${SIZES:-10000 100000}"
declare -A target=([10000]=0.5 [100000]=0.1)
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
cc -O2 -o "$tmp/peak" "$here/peak.c"

# A repository of $2 tracked files in directories of 100 (src/dNNN/fNNNNNN.rs), the project's own
# files and the generated ones among them, committed, the index as `git add` left it.
make_repo() {
	local repo=$1 files=$2
	mkdir -p "$repo"
	python3 - "$repo" "$files" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2]) - 8  # the project's files and the generated ones make up the rest
for i in range(n):
    d = os.path.join(root, "src", f"d{i // 100:04d}")
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"f{i:06d}.rs"), "w") as f:
        f.write(f"// file {i}\npub fn f{i}() -> u32 {{ {i} }}\n")
PY
	printf '[build-system]\nrequires = ["maturin>=1.5,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "bench"\nversion = "1.0.0"\n' >"$repo/pyproject.toml"
	{
		printf '[package]\nname = "bench"\nversion = "1.0.0"\n\n[lib]\nname = "bench"\n\n[features]\n'
		for i in 0 1 2 3 4 5 6 7 8; do printf 'gpu%d = []\n' "$i"; done
	} >"$repo/Cargo.toml"
	# 5 platforms x 4 versions x 10 backends = 200 jobs
	{
		printf 'wheelmatrix: 1\npython:\n  versions: ["3.11", "3.12", "3.13", "3.14"]\n'
		printf 'platforms: [linux-x86_64, linux-aarch64, macos-arm64, macos-x86_64, windows-x86_64]\nbackends:\n'
		for i in 0 1 2 3 4 5 6 7 8; do printf '  gpu%d: {features: [gpu%d]}\n' "$i" "$i"; done
		printf '  cpu: {default: true}\nci:\n  github: {path: .github/workflows/wheels.yml}\n'
	} >"$repo/wheelmatrix.yaml"
	"$wm" -q -C "$repo" generate
	git -C "$repo" init -q
	git -C "$repo" add -A
	git -C "$repo" commit -qm base
	git -C "$repo" status >/dev/null  # refreshes the index's stat data, as any first status would
}

echo "wheelmatrix: $("$wm" --version)"
echo "$runs pairs per size, each command run in turn with git status (median wall time; peak RSS of one run)"
for files in "${sizes[@]}"; do
	repo=$tmp/repo$files
	make_repo "$repo" "$files"
	count=$(git -C "$repo" ls-files | wc -l)
	jobs=$("$wm" -C "$repo" list --format jsonl | wc -l)
	for mode in --staged --worktree; do
		"$wm" -C "$repo" check "$mode" || { echo "check.sh: the repository does not pass check $mode" >&2; exit 1; }
	done
	echo
	echo "$count tracked files, $jobs jobs, index $(( $(stat -c %s "$repo/.git/index") / 1024 )) KiB"
	status_rss=$(cd "$repo" && "$tmp/peak" git status)
	t=${target[$files]:-}
	for mode in --staged --worktree; do
		read -r a b ratio _ _ < <(cd "$repo" && python3 "$here/pair.py" --runs "$runs" -- \
			"$wm" check "$mode" -- git status)
		rss=$(cd "$repo" && "$tmp/peak" "$wm" check "$mode")
		awk -v m="$mode" -v a="$a" -v b="$b" -v r="$ratio" -v ka="$rss" -v kb="$status_rss" 'BEGIN {
			printf "  check %-10s %8.2f ms  %6.1f MiB   git status %8.2f ms  %6.1f MiB   ratio %.2f\n",
				m, a * 1000, ka / 1024, b * 1000, kb / 1024, r
		}'
		if [[ -n $t ]]; then
			awk -v m="$mode" -v n="$count" -v r="$ratio" -v t="$t" 'BEGIN {
				printf "goal: %s  check %s at %d files: %.2f of git status (target at most %.1f)\n",
					(r <= t ? "met" : "NOT met"), m, n, r, t
			}'
		fi
	done
done

[[ ${FLOOR:-1} = 0 ]] && exit 0
# The floor under any program here: a process that does nothing, one that only links libcurl,
# and one that only runs git_libgit2_init() and git_libgit2_shutdown(), against git status in
# the first repository.
printf 'int main(void) { return 0; }\n' >"$tmp/empty.c"
printf '#include <curl/curl.h>\nint main(int argc, char **argv) { (void)argv; if (argc > 9) curl_easy_init(); return 0; }\n' >"$tmp/curl.c"
printf '#include <git2.h>\nint main(void) { git_libgit2_init(); git_libgit2_shutdown(); return 0; }\n' >"$tmp/git2.c"
cc -O2 -o "$tmp/empty" "$tmp/empty.c"
# shellcheck disable=SC2046
cc -O2 -o "$tmp/curl" "$tmp/curl.c" $(pkg-config --cflags --libs libcurl)
# shellcheck disable=SC2046
cc -O2 -o "$tmp/git2" "$tmp/git2.c" $(pkg-config --cflags --libs libgit2)
echo
echo "the floor (median wall time, and its share of git status at ${sizes[0]} files, paired):"
for floor in "empty:a process that does nothing" "curl:a process linked with libcurl" \
		"git2:git_libgit2_init() and git_libgit2_shutdown() alone" "wm:wheelmatrix --version"; do
	name=${floor%%:*}
	cmd=("$tmp/$name")
	[[ $name = wm ]] && cmd=("$wm" --version)
	read -r a _ ratio _ _ < <(cd "$tmp/repo${sizes[0]}" && python3 "$here/pair.py" --runs "$runs" -- "${cmd[@]}" -- git status)
	awk -v s="$a" -v r="$ratio" -v w="${floor#*:}" 'BEGIN { printf "  %-56s %7.2f ms  %.2f\n", w, s * 1000, r }'
done
