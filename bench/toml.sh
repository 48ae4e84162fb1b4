#!/usr/bin/env bash
# toml.sh — the TOML reader's memory: peak RSS per byte of pyproject.toml, for each kind of TOML at several sizes.
#
# For each kind of gen_toml.py and each size it writes a project whose pyproject.toml is that file,
# and a baseline project whose pyproject.toml is only its [project] table, and runs `wheelmatrix
# list` in each in turn, RUNS pairs (peak.c: peak RSS, the command's exit status checked). Each
# pair gives (peak RSS - baseline's peak RSS) / file size: the bytes the reading of each input byte
# costs (the file read and its copy included); the table shows the median of the pairs, the
# file's peak RSS, and whether it was accepted or refused (past WM_TOML_MAX_VALUES). It asserts
# nothing.
#
#   bench/toml.sh                                    # 5 pairs per size
#   RUNS=3 SIZES="65536 16777216" bench/toml.sh
#   KINDS="array keys" bench/toml.sh
#   WHEELMATRIX=/path/to/wheelmatrix bench/toml.sh   # another binary (no build)
set -euo pipefail

# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
sizes=${SIZES:-65536 1048576 16777216}
kinds=${KINDS:-array keys tables inline strings long-string}

cc -O2 -o "$tmp/peak" "$here/peak.c"
mkdir "$tmp/base" "$tmp/big"
for d in base big; do
	printf 'wheelmatrix: 1\nproject: {name: bench}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\n' \
		>"$tmp/$d/wheelmatrix.yaml"
	printf '[package]\nname = "bench"\nversion = "1.0.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n' \
		>"$tmp/$d/Cargo.toml"
done
printf '[build-system]\nrequires = ["maturin>=1.0,<2.0"]\nbuild-backend = "maturin"\n\n[project]\nname = "bench"\nversion = "1.0.0"\n' \
	>"$tmp/base/pyproject.toml"

# peak DIR STATUS: the peak RSS in KiB of `wheelmatrix list` in DIR, which exits with STATUS
peak() {
	(cd "$1" && "$tmp/peak" -e "$2" "$wm" list 2>/dev/null)
}

echo "$runs pairs per size: wheelmatrix list with the file, then with a baseline pyproject.toml ($wm)"
printf '%-12s %10s  %-8s  %12s  %14s\n' kind "file size" verdict "peak MiB" "bytes per byte"
for kind in $kinds; do
	for size in $sizes; do
		python3 "$here/gen_toml.py" "$kind" "$size" "$tmp/big/pyproject.toml"
		status=0
		(cd "$tmp/big" && "$wm" list >/dev/null 2>&1) || status=$?
		case $status in
		0) verdict=accepted ;;
		2) verdict=refused ;;
		*) echo "toml.sh: wheelmatrix list exited with $status on $kind, $size bytes" >&2; exit 1 ;;
		esac
		ratios=() top=0
		peak "$tmp/base" 0 >/dev/null  # one unmeasured pair first: the files are then in the page cache
		for ((i = 0; i < runs; i++)); do
			big=$(peak "$tmp/big" "$status")
			base=$(peak "$tmp/base" 0)
			ratios+=("$(awk -v a="$big" -v b="$base" -v n="$size" 'BEGIN { printf "%.2f", (a - b) * 1024 / n }')")
			((big > top)) && top=$big
		done
		median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		printf '%-12s %10d  %-8s  %12.1f  %14.2f\n' "$kind" "$size" "$verdict" "$(awk -v k="$top" 'BEGIN { print k / 1024 }')" "$median"
	done
done
