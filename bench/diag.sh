#!/usr/bin/env bash
# diag.sh — diagnostics on long lines and large files: `list` of matrices whose errors sit on one line of
# 64 KiB to 16 MiB, or on lines spread over a large file, timed with an earlier build in turn (paired):
# both medians, the median of the ratios, the bytes each writes to stderr and the write calls that take.
#
# Usage: BEFORE_REV=REV bench/diag.sh    (REV built from `git archive` in a scratch directory; or
#                                         BEFORE=PATH, a binary; RUNS=N pairs, default 3)
#        bench/diag.sh                   (the built binary alone: its medians, stderr and writes)
# SIZES (default "64K 256K 1M 16M") are the sizes of the inputs; BEFORE_SIZES (default "64K 256K") those
# also run with the earlier build, which writes every quoted line whole, a byte per write call.
# Reported, not asserted.  The write calls are counted with strace when it is installed.
set -euo pipefail

RUNS=${RUNS:-3}
read -r -a sizes <<<"${SIZES:-64K 256K 1M 16M}"
read -r -a before_sizes <<<"${BEFORE_SIZES:-64K 256K}"
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

before=${BEFORE:-}
if [[ -z $before && -n ${BEFORE_REV:-} ]]; then
	mkdir "$tmp/before"
	git -C "$root" archive "$BEFORE_REV" | tar -x -C "$tmp/before"
	make -C "$tmp/before" -s build/wheelmatrix >/dev/null
	before=$tmp/before/build/wheelmatrix
fi

bytes() {
	case $1 in
	*K) echo $((${1%K} << 10)) ;;
	*M) echo $((${1%M} << 20)) ;;
	*) echo "$1" ;;
	esac
}

# make_inputs SIZE: $tmp/{long,flow,lines}-SIZE.yaml, each just under SIZE bytes:
#   long   one line: an unknown key at its start, a value of two-byte characters, unknown keys at its end
#   flow   one line: a flow list of unknown platforms, each named once (100 errors are kept, then a note)
#   lines  100 unknown keys spread over the file, comment lines between them
make_inputs() {
	python3 - "$tmp" "$1" "$(bytes "$1")" <<'PY'
import sys
d, name, size = sys.argv[1], sys.argv[2], int(sys.argv[3]) - 200
head = "wheelmatrix: 1\nbackends: {cpu: {default: true}}\n"
value = "é" * (size // 2 - 60)
open(f"{d}/long-{name}.yaml", "w").write(head + 'project: {name: x, pyhton: 1, notes: "' + value + '", modul: y}\n')
items, n, i = [], 0, 0
while n < size - 100:
    items.append(f"bad{i}")
    n += len(items[-1]) + 2
    i += 1
open(f"{d}/flow-{name}.yaml", "w").write(head + "project: {name: x}\nplatforms: [" + ", ".join(items) + "]\n")
comment = "# " + "c" * 77 + "\n"
gap = max(0, (size // 100 - 10) // len(comment))
open(f"{d}/lines-{name}.yaml", "w").write(
    head + "project:\n  name: x\n" + "".join(f"  key{k}: 1\n" + comment * gap for k in range(100)))
PY
}

# writes BINARY FILE: the write calls of one run, or "-" without strace
writes() {
	if ! command -v strace >/dev/null; then
		echo -
		return
	fi
	strace -f --seccomp-bpf -c -e trace=write -o "$tmp/strace" "$1" -f "$2" list >/dev/null 2>&1 || true
	awk '$NF == "write" { print $4 }' "$tmp/strace"
}

# stderr BINARY FILE: the bytes one run writes to stderr
stderr_bytes() {
	{ "$1" -f "$2" list 2>&1 >/dev/null || true; } | wc -c
}

echo "wheelmatrix: $("$wm" --version)${before:+, before: $before}"
echo "$runs pairs per input; seconds are medians"
printf '%-6s %5s  %10s %10s %8s  %12s %12s  %11s %11s\n' input size before after ratio \
	"stderr bef." "stderr aft." "writes bef." "writes aft."
for size in "${sizes[@]}"; do
	make_inputs "$size"
	for input in long flow lines; do
		f=$tmp/$input-$size.yaml
		after_err=$(stderr_bytes "$wm" "$f")
		after_writes=$(writes "$wm" "$f")
		if [[ -n $before && " ${before_sizes[*]} " == *" $size "* ]]; then
			read -r b a ratio _ _ < <(python3 "$here/pair.py" --runs "$runs" --status 2 --quiet -- \
				"$before" -f "$f" list -- "$wm" -f "$f" list)
			before_err=$(stderr_bytes "$before" "$f")
			before_writes=$(writes "$before" "$f")
		else
			read -r a _ < <(python3 "$here/measure.py" --runs "$runs" --status 2 --quiet -- "$wm" -f "$f" list)
			b=- ratio=- before_err=- before_writes=-
		fi
		printf '%-6s %5s  %10s %10s %8s  %12s %12s  %11s %11s\n' "$input" "$size" "$b" "$a" "$ratio" \
			"$before_err" "$after_err" "$before_writes" "$after_writes"
	done
	rm -f "$tmp"/*-"$size".yaml
done
