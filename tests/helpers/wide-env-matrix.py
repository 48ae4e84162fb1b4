#!/usr/bin/env python3
"""wide-env-matrix.py — writes a matrix whose GitHub workflow passes 64 MiB within the text bound.

usage: python3 tests/helpers/wide-env-matrix.py FILE

One 256 KiB value, through aliases, in 60 env variables of the backend cpu (15 MiB of text), which
an include sets otherwise (for linux-s390x), so that every entry of the Linux build job (36, and
the include's) carries each variable into the job's matrix.  t-alias-text checks that generate
refuses it by name; bench/wide-env.sh times that refusal.
"""
import sys

lines = ["wheelmatrix: 1", "project: {name: demo}",
         "platforms: [linux-x86_64, linux-aarch64, linux-ppc64le, linux-i686, musllinux-x86_64, musllinux-aarch64]",
         'python: {versions: ["3.11", "3.12", "3.13", "3.14", "3.14t", "3.15"]}', "backends:", "  cpu:",
         "    default: true", "    env:", "      V0: &s " + "x" * (256 << 10)]
lines += ["      V%d: *s" % i for i in range(1, 60)]
lines += ["include:", '  - {backend: cpu, platform: linux-s390x, python: "3.12", env: {%s}}'
          % ", ".join("V%d: y" % i for i in range(60))]
with open(sys.argv[1], "w") as f:
    f.write("\n".join(lines) + "\n")
