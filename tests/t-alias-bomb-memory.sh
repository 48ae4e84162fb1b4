#!/bin/bash
# t-alias-bomb-memory.sh — a billion-laughs document is refused within a small address-space limit.
#
# The AddressSanitizer build reserves terabytes of address space for its shadow memory, so there
# the limit is on what the process really uses instead: its peak resident set, 256 MiB (the shadow
# and the allocator's quarantine take tens of MiB; expanding the aliases would take hundreds of GiB).
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/limited.sh"
# ten levels of nine: 9^10 (3.5 billion) strings if the aliases were expanded
python3 - "$tmp/bomb.yaml" <<'PY'
import sys
lines = ["wheelmatrix: 1", "project: {name: x}", "a0: &a0 [" + ", ".join(["lol"] * 9) + "]"]
for i in range(1, 10):
    lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 9) + "]")
lines.append("backends: *a9")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
limited 128 256 -f "$tmp/bomb.yaml" list
expect_status 2 "a billion laughs"
[ -s "$tmp/out" ] && fail "a billion laughs: something on stdout: $(head -c 300 "$tmp/out")"
expect_err "alias bomb" "a billion laughs"
finish
