#!/bin/bash
# t-readme.sh — the examples in README.md are real: its matrix gives exactly the output shown.
. "$ROOT/tests/lib.sh"
# the first ```yaml block is the matrix; the block after it that starts with "$ wheelmatrix list" is the output
python3 - "$ROOT/README.md" "$tmp" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"```(\w*)\n(.*?)```", text, re.S)
yaml = next(body for lang, body in blocks if lang == "yaml")
out = next(body for lang, body in blocks if body.startswith("$ wheelmatrix list\n"))
open(sys.argv[2] + "/wheelmatrix.yaml", "w").write(yaml)
open(sys.argv[2] + "/want", "w").write(out.split("\n", 1)[1])
# the plan example: the command after "$ wheelmatrix " and its output
plan = next(body for lang, body in blocks if body.startswith("$ wheelmatrix plan "))
command, output = plan.split("\n", 1)
open(sys.argv[2] + "/plan-args", "w").write("\n".join(command.split()[2:]) + "\n")
open(sys.argv[2] + "/plan-want", "w").write(output)
PY
wm -C "$tmp" list
expect_status 0 "the README's list example"
expect_same "$tmp/want" "$tmp/out" "the README's list example"
mapfile -t args <"$tmp/plan-args"
[[ " ${args[*]} " == *" --offline "* ]] || fatal "the README's plan example needs the network"
wm -C "$tmp" "${args[@]}"
expect_status 0 "the README's plan example"
expect_same "$tmp/plan-want" "$tmp/out" "the README's plan example"
finish
