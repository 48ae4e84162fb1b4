#!/usr/bin/env python3
"""measure.py — runs a command R times with its output discarded; prints median wall seconds and peak RSS KiB."""

import argparse
import resource
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser(
        description="Runs COMMAND RUNS times (stdin and stdout on /dev/null) and prints one line: "
                    "the median wall time in seconds and the largest maximum resident set size "
                    "of any run in KiB.")
    ap.add_argument("-r", "--runs", type=int, default=5, help="number of runs (default 5)")
    ap.add_argument("--status", type=int, default=0,
                    help="the exit status the command must end with (default 0; 2 for a matrix with errors)")
    ap.add_argument("--quiet", action="store_true", help="standard error on /dev/null too")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd or args.runs < 1:
        ap.error("need a command and at least one run")
    walls = []
    for _ in range(args.runs):
        start = time.perf_counter()
        rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL if args.quiet else None).returncode
        walls.append(time.perf_counter() - start)
        if rc != args.status:
            print(f"measure.py: '{cmd[0]}' exited with {rc}", file=sys.stderr)
            return 1
    # ru_maxrss of RUSAGE_CHILDREN is the largest of all waited-for children (KiB on Linux).
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"{statistics.median(walls):.6f} {peak}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
