#!/usr/bin/env python3
"""pair.py — runs two commands in turn R times; prints each one's median wall time and peak RSS, and the median ratio."""

import argparse
import os
import statistics
import sys
import time


def run(cmd, quiet=False):
    """Runs cmd with stdin and stdout (and stderr when quiet) on /dev/null: (wall seconds, exit status, max RSS KiB)."""
    devnull = os.open(os.devnull, os.O_RDWR)
    dups = [(os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1)]
    if quiet:
        dups.append((os.POSIX_SPAWN_DUP2, devnull, 2))
    try:
        start = time.perf_counter()
        pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=dups)
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    finally:
        os.close(devnull)
    return wall, os.waitstatus_to_exitcode(status), usage.ru_maxrss


def main():
    ap = argparse.ArgumentParser(
        description="Runs COMMAND-A and COMMAND-B one after the other, RUNS times (A, B, A, B, ...; "
                    "stdin and stdout on /dev/null), and prints one line: A's median wall seconds, "
                    "B's, the median of the RUNS ratios A/B (each pair measured back to back), "
                    "and A's and B's largest maximum resident set size in KiB.")
    ap.add_argument("-r", "--runs", type=int, default=11, help="number of pairs (default 11)")
    ap.add_argument("--status", type=int, default=0,
                    help="the exit status both commands must end with (default 0; 2 for a matrix with errors)")
    ap.add_argument("--quiet", action="store_true", help="standard error on /dev/null too")
    ap.add_argument("commands", nargs=argparse.REMAINDER, help="-- COMMAND-A... -- COMMAND-B...")
    args = ap.parse_args()
    words = args.commands[1:] if args.commands[:1] == ["--"] else args.commands
    if "--" not in words:
        ap.error("give two commands, separated by --")
    cut = words.index("--")
    a, b = words[:cut], words[cut + 1:]
    if not a or not b or args.runs < 1:
        ap.error("need two commands and at least one run")
    # one unmeasured pair first: the files both read are then in the page cache
    run(a, args.quiet)
    run(b, args.quiet)
    walls_a, walls_b, ratios = [], [], []
    peak_a = peak_b = 0
    for _ in range(args.runs):
        for cmd, walls in ((a, walls_a), (b, walls_b)):
            wall, rc, rss = run(cmd, args.quiet)
            if rc != args.status:
                print(f"pair.py: '{' '.join(cmd)}' exited with {rc}", file=sys.stderr)
                return 1
            walls.append(wall)
            if cmd is a:
                peak_a = max(peak_a, rss)
            else:
                peak_b = max(peak_b, rss)
        ratios.append(walls_a[-1] / walls_b[-1])
    print(f"{statistics.median(walls_a):.6f} {statistics.median(walls_b):.6f} {statistics.median(ratios):.4f} "
          f"{peak_a} {peak_b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
