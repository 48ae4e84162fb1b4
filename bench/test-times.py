#!/usr/bin/env python3
"""test-times.py — where a run of tests/run.sh spends its time, from its output.

usage: bench/test-times.py LOG [JOBS]   (JOBS: the run's WM_TEST_JOBS, default 2)

Reads the `[i/N] NAME ok|FAIL T s` lines of one run (the last `N passed, N failed` ends it; a log
of several runs, as `make check` twice writes, is read up to its first such line after the
scripts began) and prints the scripts by time, their sum, and what the order tests/run.sh starts
them in (the heavy scripts first, each kind by name, as run.sh decides from this repository's
tests/t-*.sh) gives on JOBS processors: the list schedule's wall time of the scripts against the
least possible (sum / JOBS, or the longest script), whose difference is the idle tail, and the
same for the longest-first order.  Prints; asserts nothing.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(path):
    times = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"\[ *\d+/\d+\] (t-[\w-]+) (?:ok|FAIL) ([0-9.]+) s", line)
            if m:
                times[m.group(1)] = float(m.group(2))
            elif times and re.match(r"\d+ passed, \d+ failed", line):
                break
    return times


def heavy(name):
    try:
        with open(os.path.join(ROOT, "tests", name + ".sh"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return False
    return bool(re.search(r"^[^#\n]*(e2e|wheel)-env\.sh|^# heavy: ", text, re.M))


def schedule(order, times, jobs):
    """The wall time of running `order` on `jobs` processors, each next script on the first free one."""
    free = [0.0] * jobs
    for name in order:
        i = free.index(min(free))
        free[i] += times[name]
    return max(free)


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    jobs = int(argv[2]) if len(argv) > 2 else 2
    times = read(argv[1])
    total = sum(times.values())
    for name, t in sorted(times.items(), key=lambda kv: -kv[1])[:30]:
        print("%8.1f s  %s%s" % (t, name, "  (heavy)" if heavy(name) else ""))
    print("%8.1f s  the %d scripts together" % (total, len(times)))
    best = max(total / jobs, max(times.values(), default=0))
    order = sorted((n for n in times if heavy(n))) + sorted((n for n in times if not heavy(n)))
    for what, o in (("run.sh's order", order), ("longest first", sorted(times, key=lambda n: -times[n]))):
        wall = schedule(o, times, jobs)
        print("%8.1f s  wall on %d processors in %s (least possible %.1f s, idle tail %.1f s)"
              % (wall, jobs, what, best, wall - best))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
