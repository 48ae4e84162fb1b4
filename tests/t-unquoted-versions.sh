#!/bin/bash
# t-unquoted-versions.sh — `3.10` written without quotes stays "3.10" (not 3.1) through to the jobs, with a warning and the fix wherever PyYAML reads another number.
#
# The matrices below write every version-like value the loader reads as text without quotes:
# python.versions, python.abi3, an exclude's and an include's python, a toolkit's version in both
# forms, an environment value.  The tool keeps each one's text; it warns, at the value, at exactly
# those that PyYAML (a YAML 1.1 reader; 3.10 is a float to YAML 1.2 as well) reads as a float
# whose shortest form is not the text (3.10 is 3.1, 12.0 is 12), and at none of the others
# (3.9, 3.12, 3.14t).
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
mkdir "$tmp/versions" "$tmp/abi3"
cat >"$tmp/versions/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: demo}
python:
  versions: [3.10, 3.9, 3.14t, 3.12]
platforms: [linux-x86_64, windows-x86_64]
backends:
  cpu: {default: true}
  cuda:
    features: [cublas]
    toolkit: {cuda: 12.0}
    env: {TORCH_CUDA_ARCH_LIST: 8.0}
  rocm:
    features: [hipblas]
    platforms: [linux-x86_64]
    toolkit: {rocm: {version: 6.0}}
exclude:
  - {backend: cuda, platform: windows-x86_64, python: 3.10}
include:
  - {backend: cuda, platform: windows-x86_64, python: 3.10}
YAML
cat >"$tmp/abi3/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: demo}
python: {abi3: 3.10}
platforms: [linux-x86_64]
YAML

# PyYAML's reading: each plain scalar it resolves to a float, with that number's shortest form
# where it is not the scalar's text ("file:line:column number"); the warnings must name exactly these
cat >"$tmp/misread.py" <<'PY'
import sys, yaml
for path in sys.argv[1:]:
    with open(path) as f:
        text = f.read()
    stack = [yaml.compose(text)]
    found = []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            stack.extend(v for pair in node.value for v in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif node.style is None and node.tag == "tag:yaml.org,2002:float":
            number = yaml.safe_load(node.value)
            shortest = repr(number)
            if shortest.endswith(".0"):
                shortest = shortest[:-2]
            if float(shortest) != number:
                sys.exit("%s: %r is not %r" % (path, shortest, number))
            if shortest != node.value:
                found.append((node.start_mark.line + 1, node.start_mark.column + 1, node.value, shortest))
    for line, column, value, shortest in sorted(found):
        print("wheelmatrix.yaml:%d:%d %s %s" % (line, column, value, shortest))
PY
for case in versions abi3; do
	expect_run 0 "$py" "$tmp/misread.py" "$tmp/$case/wheelmatrix.yaml"
	cp "$tmp/out" "$tmp/$case.pyyaml"
	wm -C "$tmp/$case" list --format jsonl
	expect_status 0 "list ($case)"
	cp "$tmp/out" "$tmp/$case.jobs"
	sed -n 's/^\(wheelmatrix\.yaml:[0-9]*:[0-9]*\): warning: \([^ ]*\) without quotes is the number \([^ ]*\) to other YAML readers: write "\([^"]*\)"$/\1 \2 \3 \4/p' \
		"$tmp/err" >"$tmp/$case.warned"
	awk '{ print $1, $2, $3, $2 }' "$tmp/$case.pyyaml" >"$tmp/$case.want"
	expect_same "$tmp/$case.want" "$tmp/$case.warned" "the warnings of $case (where, the text, PyYAML's number, the fix)"
done
grep -q '3.10 3.1$' "$tmp/versions.pyyaml" || fail "PyYAML does not read the unquoted 3.10 as 3.1: $(cat "$tmp/versions.pyyaml")"

# the messages in full, each with its source line and caret
expect_same - "$tmp/err" "the warning of python.abi3" <<'EOF'
wheelmatrix.yaml:3:16: warning: 3.10 without quotes is the number 3.1 to other YAML readers: write "3.10"
    3 | python: {abi3: 3.10}
      |                ^~~~
EOF
wm -C "$tmp/versions" list --format jsonl
expect_same - "$tmp/err" "the warnings of the versions" <<'EOF'
wheelmatrix.yaml:4:14: warning: 3.10 without quotes is the number 3.1 to other YAML readers: write "3.10"
    4 |   versions: [3.10, 3.9, 3.14t, 3.12]
      |              ^~~~
wheelmatrix.yaml:10:21: warning: 12.0 without quotes is the number 12 to other YAML readers: write "12.0"
   10 |     toolkit: {cuda: 12.0}
      |                     ^~~~
wheelmatrix.yaml:11:33: warning: 8.0 without quotes is the number 8 to other YAML readers: write "8.0"
   11 |     env: {TORCH_CUDA_ARCH_LIST: 8.0}
      |                                 ^~~
wheelmatrix.yaml:15:31: warning: 6.0 without quotes is the number 6 to other YAML readers: write "6.0"
   15 |     toolkit: {rocm: {version: 6.0}}
      |                               ^~~
wheelmatrix.yaml:17:55: warning: 3.10 without quotes is the number 3.1 to other YAML readers: write "3.10"
   17 |   - {backend: cuda, platform: windows-x86_64, python: 3.10}
      |                                                       ^~~~
wheelmatrix.yaml:19:55: warning: 3.10 without quotes is the number 3.1 to other YAML readers: write "3.10"
   19 |   - {backend: cuda, platform: windows-x86_64, python: 3.10}
      |                                                       ^~~~
EOF
wm -q -C "$tmp/versions" list --format jsonl
expect_status 0 "list -q"
expect_same /dev/null "$tmp/err" "the warnings under -q"

# the text is kept: 3.10 is CPython 3.10 everywhere, the toolkits get 12.0 and 6.0, and the
# workflow gives the build jobs the environment value 8.0 as the text "8.0", which PyYAML reads back
wm -q -C "$tmp/versions" generate --stdout github
expect_status 0 "generate --stdout github"
"$py" - "$tmp/versions.jobs" "$tmp/abi3.jobs" "$tmp/out" <<'PY' || fail "unquoted versions (above)"
import json, sys, yaml
jobs = [json.loads(line) for line in open(sys.argv[1])]
got = sorted({(j["python"], j["abi_tag"], j["interpreter"]) for j in jobs})
want = [("3.10", "cp310", "python3.10"), ("3.12", "cp312", "python3.12"),
        ("3.14t", "cp314t", "python3.14t"), ("3.9", "cp39", "python3.9")]
if got != want:
    sys.exit("FAIL: versions %s, not %s" % (got, want))
ids = [j["id"] for j in jobs]
if ids.count("cuda-windows-x86_64-cp310") != 1:
    sys.exit("FAIL: the excluded and included job cuda-windows-x86_64-cp310: %s" % ids)
toolkits = {(j["backend"], json.dumps(j["toolkits"], sort_keys=True)) for j in jobs}
if toolkits != {("cpu", "{}"), ("cuda", '{"cuda": "12.0"}'), ("rocm", '{"rocm": "6.0"}')}:
    sys.exit("FAIL: toolkits %s" % sorted(toolkits))
abi3 = [json.loads(line) for line in open(sys.argv[2])]
if [(j["id"], j["python_tag"], j["abi_tag"]) for j in abi3] != [("cpu-linux-x86_64-abi3", "cp310", "abi3")]:
    sys.exit("FAIL: abi3 jobs %s" % abi3)
workflow = yaml.safe_load(open(sys.argv[3]))
values = [job.get("env", {}).get("TORCH_CUDA_ARCH_LIST") for job in workflow["jobs"].values()]
if not [v for v in values if v is not None] or any(v not in (None, "8.0") for v in values):
    sys.exit("FAIL: TORCH_CUDA_ARCH_LIST in the workflow's jobs: %s" % values)
PY
finish
