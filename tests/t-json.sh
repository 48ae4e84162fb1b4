#!/usr/bin/env bash
# t-json.sh — the JSON formats of `list` parse, agree with each other and keep the documented member order.
. "$ROOT/tests/kit/lib.sh"
need python3 "make deps (apt-get install python3)"
for m in llm-rs per-version large; do
	[[ -f $ROOT/matrices/$m.yaml ]] || { fail "matrices/$m.yaml is missing"; continue; }
	python3 - "$WM" "$ROOT/matrices/$m.yaml" <<'PY' || fail "matrices/$m.yaml (above)"
import json, subprocess, sys

wm, matrix = sys.argv[1], sys.argv[2]

def run(*args):
    return subprocess.run([wm, "-f", matrix, "list", *args], check=True, capture_output=True,
                          text=True).stdout

JOB_KEYS = ["id", "backend", "platform", "python", "distribution", "features", "os", "arch",
            "target", "runner", "cross", "container", "manylinux", "platform_tag", "python_tag",
            "abi_tag", "interpreter", "gitlab_image", "gitlab_tags", "toolkits", "smoke",
            "build_job"]
LEFT_KEYS = ["id", "backend", "platform", "python", "left_out", "reason", "rule"]

text = run("--format", "json")
jobs = json.loads(text)
lines = text.splitlines()
assert lines[0] == "[" and lines[-1] == "]", "json: the array's brackets stand on their own lines"
assert all(l.endswith(",") for l in lines[1:-2]) and not lines[-2].endswith(","), "json: commas"
assert len(lines) == len(jobs) + 2, "json: one job a line"
for j in jobs:
    assert list(j) == JOB_KEYS, f"member order: {list(j)}"
    assert isinstance(j["features"], list) and isinstance(j["gitlab_tags"], list)
    assert isinstance(j["toolkits"], dict) and isinstance(j["cross"], bool)
    assert j["os"] in ("linux", "macos", "windows")
    assert j["id"] == f"{j['backend']}-{j['platform']}-" + (
        "abi3" if j["python"] == "abi3" else "cp3" + j["python"][2:].replace("t", "") +
        ("t" if j["python"].endswith("t") else "")), j["id"]
assert len({j["id"] for j in jobs}) == len(jobs), "ids are unique"

jsonl = [json.loads(l) for l in run("--format", "jsonl").splitlines()]
assert jsonl == jobs, "jsonl and json list the same jobs in the same order"

table = run().splitlines()
assert table[-1] == f"{len(jobs)} {'job' if len(jobs) == 1 else 'jobs'}", table[-1]
assert [row.split()[0] for row in table[1:-1]] == [j["id"] for j in jobs], "table ids"
assert all(not row.endswith(" ") for row in table), "no trailing spaces"

# github: one line per build job; together they hold every job once, in order within each
grouped = []
for line in run("--format", "github").splitlines():
    name, _, value = line.partition("=")
    assert name.startswith("matrix-build-"), name
    include = json.loads(value)["include"]
    assert 0 < len(include) <= 256, (name, len(include))
    assert all(j["build_job"] == name[len("matrix-"):] for j in include), name
    grouped += include
assert sorted(grouped, key=lambda j: j["id"]) == sorted(jobs, key=lambda j: j["id"]), "github"

why = json.loads(run("--format", "json", "--why"))
assert why[:len(jobs)] == jobs, "--why keeps the jobs first"
for left in why[len(jobs):]:
    assert list(left) == LEFT_KEYS and left["left_out"] is True, left
    assert left["rule"] is None or left["rule"].count(":") >= 2, left["rule"]
assert not {l["id"] for l in why[len(jobs):]} & {j["id"] for j in jobs}, "left out and kept differ"
PY
done
finish
