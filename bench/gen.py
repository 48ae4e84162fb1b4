#!/usr/bin/env python3
"""gen.py — writes a benchmark matrix that expands to exactly N jobs (platforms × versions × backends)."""

import argparse
import sys

# Spread over the three OS families so that every size exercises every build job kind.
PLATFORMS = [
    "linux-x86_64", "macos-arm64", "windows-x86_64", "linux-aarch64", "macos-x86_64",
    "musllinux-x86_64", "linux-ppc64le", "linux-armv7", "musllinux-aarch64", "linux-i686",
]
VERSIONS = ["3.11", "3.12", "3.13", "3.13t", "3.14", "3.14t", "3.15", "3.15t"]

# jobs -> (platforms, Python versions, backends); no filter, exclude or include, so the
# product is the job count.
SIZES = {
    10: (5, 2, 1),
    1000: (5, 8, 25),
    100000: (10, 8, 1250),
    1000000: (10, 8, 12500),
}


def matrix(jobs):
    """The matrix text for one of SIZES."""
    nplat, nvers, nback = SIZES[jobs]
    assert nplat * nvers * nback == jobs, (jobs, nplat, nvers, nback)
    assert nplat <= len(PLATFORMS) and nvers <= len(VERSIONS)
    width = max(5, len(str(nback)))
    versions = ", ".join(f'"{v}"' for v in VERSIONS[:nvers])
    lines = [
        f"# bench matrix: {nplat} platforms × {nvers} Python versions × {nback} backends"
        f" = {jobs} jobs",
        "wheelmatrix: 1",
        "project: {name: bench}",
        f"python: {{versions: [{versions}]}}",
        "platforms: [" + ", ".join(PLATFORMS[:nplat]) + "]",
        "backends:",
    ]
    for i in range(1, nback + 1):
        bid = f"b{i:0{width}d}"
        lines.append(f"  {bid}: {{features: [{bid}]}}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split(" — ", 1)[1])
    ap.add_argument("jobs", type=int, help="one of " + ", ".join(map(str, SIZES)))
    ap.add_argument("out", nargs="?", help="output file (default: standard output)")
    args = ap.parse_args()
    if args.jobs not in SIZES:
        ap.error(f"no factorisation for {args.jobs} jobs; sizes: "
                 + ", ".join(map(str, SIZES)))
    text = matrix(args.jobs)
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
