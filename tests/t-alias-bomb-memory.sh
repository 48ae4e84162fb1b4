#!/bin/bash
# t-alias-bomb-memory.sh — a billion-laughs document is refused within a small address-space limit.
#
# The AddressSanitizer build reserves terabytes of address space for its shadow memory, so there
# the limit is on what the process really uses instead: its peak resident set, 256 MiB (the shadow
# and the allocator's quarantine take tens of MiB; expanding the aliases would take hundreds of GiB).
. "$ROOT/tests/lib.sh"
asan=0
grep -q __asan_init "$WM" && asan=1
# ten levels of nine: 9^10 (3.5 billion) strings if the aliases were expanded
python3 - "$tmp/bomb.yaml" <<'PY'
import sys
lines = ["wheelmatrix: 1", "project: {name: x}", "a0: &a0 [" + ", ".join(["lol"] * 9) + "]"]
for i in range(1, 10):
    lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 9) + "]")
lines.append("backends: *a9")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
if ((asan)); then
	run python3 - "$WM" "$tmp/bomb.yaml" <<'PY'
import resource, subprocess, sys
wm, bomb = sys.argv[1:]
p = subprocess.run([wm, "-f", bomb, "list"], capture_output=True)
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
if peak > 256:
    sys.stderr.write("FAIL: the refusal took %d MiB at its peak (the limit is 256 MiB)\n" % peak)
    sys.exit(1)
sys.exit(p.returncode)
PY
else
	run bash -c 'ulimit -v 131072; exec "$0" -f "$1" list' "$WM" "$tmp/bomb.yaml"
fi
expect_status 2 "a billion laughs"
[ -s "$tmp/out" ] && fail "a billion laughs: something on stdout: $(head -c 300 "$tmp/out")"
expect_err "alias bomb" "a billion laughs"
finish
