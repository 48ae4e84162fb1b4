#!/bin/bash
# t-readme.sh — the examples in README.md are real: its matrix gives exactly the output shown.
. "$ROOT/tests/kit/lib.sh"
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

# The usage block, on the README's first screen (its first 30 lines): every command `wheelmatrix
# help` lists but help itself, hook and init's schema among them, and the files it names exist
mapfile -t listed < <("$WM" help | sed -n '/^commands:$/,/^$/s/^  \([a-z]*\) .*/\1/p')
python3 - "$ROOT/README.md" "${listed[@]}" >"$tmp/usage.report" 2>&1 <<'PY' || fail "README.md's usage block: $(cat "$tmp/usage.report")"
import os, re, sys
lines = open(sys.argv[1]).read().split("\n")
commands = set(sys.argv[2:]) - {"help"}
try:
    start = lines.index("## Usage")
    first = lines.index("```", start) + 1
    end = lines.index("```", first)
except ValueError:
    sys.exit("no '## Usage' section with a code block")
if end > 30:
    sys.exit("it ends at line %d, not on the first screen (30 lines)" % (end + 1))
block = "\n".join(lines[first:end])
shown = set(re.findall(r"wheelmatrix ([a-z]+)", block))
problems = ["'%s' is not a command" % c for c in sorted(shown - commands)]
problems += ["'%s' is missing" % c for c in sorted(commands - shown)]
for path in re.findall(r"\b(docs/[\w./-]+)", block):
    if not os.path.exists(os.path.join(os.path.dirname(sys.argv[1]), path)):
        problems.append("%s does not exist" % path)
if "Schema" not in block:
    problems.append("the schema is not named")
if problems:
    sys.exit("; ".join(problems))
PY
finish
