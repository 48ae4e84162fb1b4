#!/usr/bin/env bash
# run.sh — times `wheelmatrix list --format json` on matrices of 10 to 10^6 jobs: medians, peak RSS, linearity.
#
# Usage: bench/run.sh            (RUNS=N for N runs per size, default 5;
#                                 WHEELMATRIX=PATH to time another binary instead of building)
# Benchmarks are reported, not asserted: the script fails only when a command fails, a matrix
# is over the loader's input limit, or a matrix does not expand to the expected job count.
# The last line, starting with "goal:", says whether 10^6 jobs take under 3 s and 1 GiB (bench/goals.sh).
set -euo pipefail

sizes=(10 1000 100000 1000000)
max_bytes=$((16 * 1024 * 1024))   # WM_MATRIX_MAX_BYTES in lib/wheelmatrix.h
limit_seconds=3
limit_mib=1024
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

echo "wheelmatrix: $("$wm" --version 2>/dev/null || echo "$wm")"
echo "runs per size: $runs (median wall time; peak RSS is the largest of the runs)"
echo

declare -A seconds rss matrix_bytes
for n in "${sizes[@]}"; do
	file=$tmp/m$n.yaml
	python3 "$here/gen.py" "$n" "$file"
	bytes=$(wc -c <"$file")
	if ((bytes > max_bytes)); then
		echo "run.sh: the $n-job matrix is $bytes bytes, over the loader's limit of $max_bytes" >&2
		exit 1
	fi
	got=$("$wm" -f "$file" list --format jsonl | wc -l)
	if ((got != n)); then
		echo "run.sh: the $n-job matrix expanded to $got jobs" >&2
		exit 1
	fi
	result=$(python3 "$here/measure.py" --runs "$runs" -- "$wm" -f "$file" list --format json)
	read -r "seconds[$n]" "rss[$n]" <<<"$result"
	matrix_bytes[$n]=$bytes
done

# A child's ru_maxrss counts the wrapper's pages it held between fork and exec: measure that floor.
floor=$(python3 "$here/measure.py" --runs 1 -- true)
floor=${floor#* }

printf '%10s  %10s  %10s  %12s  %10s  %14s\n' jobs "file size" "median s" "peak RSS MiB" "us/job" "per-job ratio"
prev=
for n in "${sizes[@]}"; do
	awk -v n="$n" -v b="${matrix_bytes[$n]}" -v s="${seconds[$n]}" -v k="${rss[$n]}" \
		-v pn="${prev:-0}" -v ps="${prev:+${seconds[$prev]}}" 'BEGIN {
		size = b < 1024 ? sprintf("%d B", b) : b < 1048576 ? sprintf("%.1f KiB", b / 1024) : sprintf("%.1f MiB", b / 1048576)
		ratio = pn > 0 && ps > 0 ? sprintf("%.2f", (s / n) / (ps / pn)) : "-"
		printf "%10d  %10s  %10.3f  %12.1f  %10.3f  %14s\n", n, size, s, k / 1024, s / n * 1e6, ratio
	}'
	prev=$n
done

echo
echo "per-job ratio: time per job at this size / time per job at the previous size"
echo "(1.00 = linear; below 1 while start-up time dominates, above 1 = worse than linear)"
awk -v k="$floor" 'BEGIN { printf "peak RSS includes %.1f MiB that any command shows under this wrapper (its RSS at fork)\n", k / 1024 }'
big=${sizes[-1]}
awk -v s="${seconds[$big]}" -v k="${rss[$big]}" -v ls="$limit_seconds" -v lm="$limit_mib" -v n="$big" 'BEGIN {
	printf "goal: %s  list of %d jobs: %.3f s (%s %d s), %.1f MiB peak RSS (%s %d MiB)\n",
		s < ls && k / 1024 < lm ? "met" : "NOT met", n,
		s, s < ls ? "under" : "NOT under", ls, k / 1024, k / 1024 < lm ? "under" : "NOT under", lm
}'
