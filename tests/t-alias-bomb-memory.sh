#!/bin/bash
# t-alias-bomb-memory.sh — a billion-laughs document is refused within a small address-space limit.
#
# The AddressSanitizer build reserves terabytes of address space for its shadow memory, so there
# the limit is on what the process really uses instead: its peak resident set, 256 MiB (the shadow
# and the allocator's quarantine take tens of MiB; expanding the aliases would take hundreds of GiB).
set -euo pipefail
: "${WM:?}"
asan=0
grep -q __asan_init "$WM" && asan=1
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
if ((asan)); then
	python3 - "$WM" "$tmp" <<'PY'
import resource, subprocess, sys
wm, tmp = sys.argv[1:]
with open(tmp + "/out", "w") as out, open(tmp + "/err", "w") as err:
    code = subprocess.run([wm, "-f", tmp + "/bomb.yaml", "list"], stdout=out, stderr=err).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
if peak > 256:
    print("FAIL: the refusal took %d MiB at its peak (the limit is 256 MiB)" % peak)
    sys.exit(1)
sys.exit(code)
PY
else
	(ulimit -v 131072; exec "$WM" -f "$tmp/bomb.yaml" list) >"$tmp/out" 2>"$tmp/err"
fi
code=$?
set -e
if [ "$code" != 2 ] || [ -s "$tmp/out" ] || ! grep -q "alias bomb" "$tmp/err"; then
	echo "FAIL: exit $code; stderr:"
	head -5 "$tmp/err"
	exit 1
fi
