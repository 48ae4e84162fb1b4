#!/bin/bash
# t-examples.sh — each example matrix expands to the job counts worked out by hand in its header.
. "$ROOT/tests/kit/lib.sh"
# Counts per backend, from the arithmetic in each file's header comment (not from a golden file).
python3 - "$WM" "$ROOT/matrices" <<'PY' || fail "the example matrices' job counts (above)"
import collections, json, subprocess, sys
wm, dir = sys.argv[1], sys.argv[2]
expected = {
    "llm-rs.yaml": {"cuda": 2, "opencl": 3, "metal": 2, "cpu": 5},
    "llm-rs-meta.yaml": {"cuda": 2, "opencl": 3, "metal": 2, "cpu": 5},
    "llm-rs-index.yaml": {"cuda": 2, "opencl": 3, "metal": 2, "cpu": 5},
    "llm-rs-variants.yaml": {"cuda": 2, "cpu": 5},
    "per-version.yaml": {"cuda": 16 - 6 + 1, "vulkan": 28, "cpu": 40 - 1},
    "build-settings.yaml": {"cpu": 5 + 1, "lean": 5},
    "large.yaml": {"cuda": 24 - 9 + 1, "rocm": 8 - 3, "vulkan": 56, # windows-x86 *t, linux-ppc64le and -s390x *t
                   "opencl": 96 - 3 - 6, "metal": 24, "cpu": 112 - 3 - 6},
}
totals = {"build-settings.yaml": 11, "llm-rs.yaml": 12, "llm-rs-meta.yaml": 12, "llm-rs-index.yaml": 12, "llm-rs-variants.yaml": 7, "per-version.yaml": 78, "large.yaml": 291}
bad = 0
for name, want in expected.items():
    out = subprocess.run([wm, "-f", f"{dir}/{name}", "list", "--format", "jsonl"],
                         check=True, capture_output=True, text=True).stdout
    jobs = [json.loads(line) for line in out.splitlines()]
    got = collections.Counter(j["backend"] for j in jobs)
    ids = [j["id"] for j in jobs]
    if dict(got) != want or len(jobs) != totals[name] or sum(want.values()) != totals[name]:
        print(f"FAIL {name}: {dict(got)} ({len(jobs)} jobs), want {want} ({totals[name]})")
        bad = 1
    if len(set(ids)) != len(ids):
        print(f"FAIL {name}: job ids are not unique")
        bad = 1
    table = subprocess.run([wm, "-f", f"{dir}/{name}", "list"], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    expect_last = f"{totals[name]} jobs"
    if table[-1] != expect_last or len(table) != totals[name] + 2:
        print(f"FAIL {name}: the table ends {table[-1]!r} with {len(table)} lines")
        bad = 1
sys.exit(bad)
PY
finish
