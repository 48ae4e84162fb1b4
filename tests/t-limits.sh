#!/bin/bash
# t-limits.sh — inputs over the loader's limits are refused with exit 2 and nothing on stdout.
set -euo pipefail
: "${WM:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect() { # name, expected exit, expected stderr file, command...
	local name=$1 code=$2 want=$3 got
	shift 3
	set +e
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	set -e
	if [ "$got" != "$code" ] || [ -s "$tmp/out" ] || ! diff -u "$want" "$tmp/err"; then
		echo "FAIL $name: exit $got (want $code), stdout $(wc -c <"$tmp/out") bytes"
		fail=1
	fi
}

# One byte over 16 MiB: a comment line padded to size.
python3 - "$tmp/big.yaml" <<'PY'
import sys
limit = 16 << 20
head = b"wheelmatrix: 1\nproject: {name: x}\n#"
with open(sys.argv[1], "wb") as f:
    f.write(head + b"x" * (limit + 1 - len(head) - 1) + b"\n")
PY
[ "$(stat -c %s "$tmp/big.yaml")" = $((16 * 1024 * 1024 + 1)) ] || { echo "FAIL: the big file has the wrong size"; exit 1; }
echo "$tmp/big.yaml: error: the file is larger than the limit of 16 MiB" >"$tmp/want"
expect over-limit 2 "$tmp/want" "$WM" -f "$tmp/big.yaml" list
# the same through standard input
echo "<stdin>: error: the file is larger than the limit of 16 MiB" >"$tmp/want"
expect over-limit-stdin 2 "$tmp/want" "$WM" -f - list <"$tmp/big.yaml"

# Exactly at the limit is read (and then judged on its content: here it is valid).
truncate -s $((16 * 1024 * 1024)) "$tmp/big.yaml"
printf '\n' | dd of="$tmp/big.yaml" bs=1 seek=$((16 * 1024 * 1024 - 1)) conv=notrunc status=none
set +e
"$WM" -f "$tmp/big.yaml" list --format jsonl >"$tmp/out" 2>"$tmp/err"
code=$?
set -e
if [ "$code" != 0 ] || [ "$(wc -l <"$tmp/out")" != 25 ]; then
	echo "FAIL at-limit: exit $code, $(wc -l <"$tmp/out") jobs (want 25: the default 5 platforms × 5 versions)"
	cat "$tmp/err"
	fail=1
fi
exit $fail
