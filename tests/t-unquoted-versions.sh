#!/bin/bash
# t-unquoted-versions.sh — `3.10` written without quotes stays "3.10" (not 3.1) through to the jobs.
. "$ROOT/tests/lib.sh"
cat >"$tmp/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: demo}
python:
  versions: [3.10, 3.9, 3.14t, 3.12]
platforms: [linux-x86_64]
YAML
wm -C "$tmp" list --format jsonl
expect_status 0 "list"
python3 - "$tmp/out" <<'PY' || fail "unquoted versions (above)"
import json, sys
jobs = [json.loads(line) for line in open(sys.argv[1])]
got = [(j["python"], j["id"], j["interpreter"], j["abi_tag"]) for j in jobs]
want = [("3.9", "cpu-linux-x86_64-cp39", "python3.9", "cp39"),
        ("3.10", "cpu-linux-x86_64-cp310", "python3.10", "cp310"),
        ("3.12", "cpu-linux-x86_64-cp312", "python3.12", "cp312"),
        ("3.14t", "cpu-linux-x86_64-cp314t", "python3.14t", "cp314t")]
if got != want:
    print("FAIL: got", got)
    sys.exit(1)
PY
finish
