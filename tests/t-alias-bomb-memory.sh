#!/bin/bash
# t-alias-bomb-memory.sh — a billion-laughs document is refused within a small address-space limit.
set -euo pipefail
: "${WM:?}"
if grep -q __asan_init "$WM"; then
	echo "skip: the AddressSanitizer build reserves more address space than the limit"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# ten levels of nine: 9^10 (3.5 billion) strings if the aliases were expanded
python3 - "$tmp/bomb.yaml" <<'PY'
import sys
lines = ["wheelmatrix: 1", "project: {name: x}", "a0: &a0 [" + ", ".join(["lol"] * 9) + "]"]
for i in range(1, 10):
    lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 9) + "]")
lines.append("backends: *a9")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
set +e
(ulimit -v 131072; exec "$WM" -f "$tmp/bomb.yaml" list) >"$tmp/out" 2>"$tmp/err"
code=$?
set -e
if [ "$code" != 2 ] || [ -s "$tmp/out" ] || ! grep -q "alias bomb" "$tmp/err"; then
	echo "FAIL: exit $code; stderr:"
	head -5 "$tmp/err"
	exit 1
fi
