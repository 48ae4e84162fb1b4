# limited.sh — sourced after tests/kit/lib.sh by the tests that bound what a refusal may cost in memory.
# shellcheck shell=bash
#
#   limited AS RSS ARGS...   runs the tool with ARGS as `wm` does, within AS MiB of address space
#                            (ulimit -v), or, in the AddressSanitizer build, RSS MiB of peak resident
#                            set: that build reserves terabytes of address space for its shadow memory
#                            and allocates each arena object on its own, so there the limit is on what
#                            the process really uses. Past the limit the run fails (the tool's "out of
#                            memory", exit 3; or, under ASan, "FAIL: it took N MiB" and exit 1).
#
# An address-space limit is deterministic for a given binary and input, unlike time; the callers
# choose limits several times what the tool needs and a fraction of what the unbounded cases took.
limited_asan=0
grep -q __asan_init "$WM" && limited_asan=1

limited() {
	local as=$1 rss=$2
	shift 2
	if ((limited_asan)); then
		run python3 - "$rss" "$WM" "$@" <<'PY'
import resource, subprocess, sys
mib, cmd = int(sys.argv[1]), sys.argv[2:]
p = subprocess.run(cmd, capture_output=True)
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
if peak > mib:
    sys.stderr.write("FAIL: it took %d MiB at its peak (the limit is %d MiB)\n" % (peak, mib))
    sys.exit(1)
sys.exit(p.returncode)
PY
	else
		run bash -c 'ulimit -v $(($0 * 1024)); exec "$@"' "$as" "$WM" "$@"
	fi
}
