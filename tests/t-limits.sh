#!/bin/bash
# t-limits.sh — inputs over the loader's limits are refused with exit 2 and nothing on stdout.
. "$ROOT/tests/kit/lib.sh"

refused() { # refused NAME < STDERR: the last run exited 2 with exactly STDERR and nothing on stdout
	expect_status 2 "$1"
	[ -s "$tmp/out" ] && fail "$1: stdout $(wc -c <"$tmp/out") bytes"
	expect_same - "$tmp/err" "$1: stderr"
}

# One byte over 16 MiB: a comment line padded to size.
python3 - "$tmp/big.yaml" <<'PY'
import sys
limit = 16 << 20
head = b"wheelmatrix: 1\nproject: {name: x}\n#"
with open(sys.argv[1], "wb") as f:
    f.write(head + b"x" * (limit + 1 - len(head) - 1) + b"\n")
PY
[ "$(stat -c %s "$tmp/big.yaml")" = $((16 * 1024 * 1024 + 1)) ] || fatal "the big file has the wrong size"
wm -f "$tmp/big.yaml" list
refused over-limit <<<"$tmp/big.yaml: error: the file is larger than the limit of 16 MiB"
# the same through standard input
wm -f - list <"$tmp/big.yaml"
refused over-limit-stdin <<<"<stdin>: error: the file is larger than the limit of 16 MiB"

# Exactly at the limit is read (and then judged on its content: here it is valid).
truncate -s $((16 * 1024 * 1024)) "$tmp/big.yaml"
printf '\n' | dd of="$tmp/big.yaml" bs=1 seek=$((16 * 1024 * 1024 - 1)) conv=notrunc status=none
wm -f "$tmp/big.yaml" list --format jsonl
expect_status 0 at-limit
[ "$(wc -l <"$tmp/out")" = 25 ] || fail "at-limit: $(wc -l <"$tmp/out") jobs (want 25: the default 5 platforms × 5 versions)"
finish
