#!/bin/bash
# t-gitlab-powershell.sh — the GitLab Windows test template, PowerShell no machine here runs, parsed by tree-sitter's PowerShell grammar.
#
# PowerShell is packaged neither in Debian nor on PyPI or npm, so the script cannot run here; what
# this proves instead, on a matrix with the project's tests on windows-x86_64 (extras, requirements,
# sources, a skipped entry, a variable of the backend):
#
# - the script of .wheelmatrix-test-windows (before_script, then script, one PowerShell script as
#   the runner joins them) parses with no error and no missing token (tree-sitter-powershell,
#   tests/tools/powershell-requirements.txt); the control: the script without its last closing
#   brace, and with a quote left open, does not;
# - every variable it reads is one it assigned before (the checkout's path, the wheel, ...), a
#   PowerShell automatic one ($_, $?, $LASTEXITCODE) or an environment variable the job or its
#   entry sets (WM_TEST, WM_JOB_ID, WM_PYTHON, WM_TEST_COMMAND, WM_TEST_REQUIRES,
#   WM_TEST_EXTRAS, WM_TEST_SOURCES, WM_MODULE, WM_UV) or Windows does (TEMP, USERPROFILE,
#   PATH); it reads each WM_TEST_* variable, and holds no value of the matrix (the command, a
#   requirement, a source) itself;
# - the Windows test job sets those variables, and WM_TEST is "true" for the entry tested and
#   "false" for the one test.skip matches.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
parser=$("$ROOT/tests/tools/install-powershell-parser.sh" --dir)
[ -f "$parser/complete" ] || fatal "the PowerShell parser is not in $parser: run 'make validators' (tests/tools/install-powershell-parser.sh)"

repo=$tmp/repo
mkdir -p "$repo"
cat >"$repo/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
project: {name: ps-probe}
python:
  versions: ["3.12", "3.13"]
platforms: [windows-x86_64]
backends:
  cpu:
    default: true
    env: {PS_PROBE_LEVEL: "3"}
test:
  command: python -m pytest -p no:cacheprovider tests --wheel {wheel} --root {project}
  requires: [pytest, "hypothesis>=6"]
  extras: [test]
  sources: [tests, conftest.py]
  skip: ["*-cp313"]
ci:
  gitlab:
EOF
scratch_repo "$repo"
"$WM" -C "$repo" generate >"$tmp/gen.log" 2>&1 || fatal "generate failed: $(cat "$tmp/gen.log")"

# the script of the template: the runner's YAML read with PyYAML, parsed by the pinned grammar
"$py" - "$repo/.gitlab-ci.yml" "$tmp/script.json" <<'PY' || fatal "cannot read the Windows test template"
import json, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
t = doc[".wheelmatrix-test-windows"]
job = doc["test-cpu-windows-x86_64"]
json.dump({"lines": t.get("before_script", []) + t["script"], "job": job}, open(sys.argv[2], "w"))
PY
"$parser/venv/bin/python" - "$tmp/script.json" >"$tmp/check.log" 2>&1 <<'PY' || { fail "the PowerShell test template (above)"; show "$tmp/check.log"; }
import json, sys
import tree_sitter, tree_sitter_powershell
parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_powershell.language()))
data = json.load(open(sys.argv[1]))
script = "\n".join(data["lines"]) + "\n"
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
        print("FAIL:", what)

def errors(text):
    found = []
    def walk(n):
        if n.type == "ERROR" or n.is_missing:
            found.append(f"line {n.start_point[0] + 1}: {'missing ' + n.type if n.is_missing else 'error'}")
        for c in n.children:
            walk(c)
    walk(parser.parse(text.encode()).root_node)
    return found

e = errors(script)
check(not e, "the script parses: " + "; ".join(e))
# the controls: the parser finds what breaks a script
cut = script.rstrip()
check(cut.endswith("}") and errors(cut[:-1]), "the script without its last closing brace does not parse")
check(errors(script.replace('"the tests need one wheel', "'the tests need one wheel", 1)),
      "the script with a quote left open does not parse")

# the variables, in the order they occur: a read needs an earlier assignment
def name(n):
    t = n.text.decode()
    return t[2:-1] if t.startswith("${") else t[1:]
def left_side(n):
    while n.parent is not None:
        if n.parent.type == "left_assignment_expression":
            return True
        if n.parent.type == "foreach_statement" and n.prev_sibling is not None and n.prev_sibling.type == "(":
            return True
        n = n.parent
    return False
variables = []
def collect(n):
    if n.type == "variable":
        variables.append(n)
    for c in n.children:
        collect(c)
collect(parser.parse(script.encode()).root_node)
job = data["job"]
entries = job.get("parallel", {}).get("matrix", [])
given = set(job.get("variables", {})) | {k for e in entries for k in e}
windows = {"TEMP", "USERPROFILE", "PATH", "PROCESSOR_ARCHITECTURE"}
automatic = {"_", "?", "LASTEXITCODE", "global:LASTEXITCODE", "true", "false", "null"}
assigned, read_env = set(), set()
for n in variables:
    v = name(n)
    low = v.lower()
    if low.startswith("env:"):
        if left_side(n):
            assigned.add(low)
        else:
            read_env.add(v[4:])
            check(v[4:] in given or v[4:] in windows or low in assigned,
                  f"$env:{v[4:]} (line {n.start_point[0] + 1}) is set by the job, its entry or Windows")
    elif left_side(n):
        assigned.add(low)
    else:
        check(v in automatic or low in assigned, f"${v} (line {n.start_point[0] + 1}) is assigned before it is read")
for v in ("WM_TEST", "WM_JOB_ID", "WM_PYTHON", "WM_TEST_COMMAND", "WM_TEST_REQUIRES", "WM_TEST_EXTRAS", "WM_TEST_SOURCES"):
    check(v in read_env, f"the script reads $env:{v}")
for value in ("pytest", "hypothesis", "conftest.py", "--wheel"):
    check(value not in script, f"the script holds no value of the matrix ({value!r})")
v = job.get("variables", {})
check(v.get("WM_TEST_COMMAND") == "python -m pytest -p no:cacheprovider tests --wheel {wheel} --root {project}" and
      v.get("WM_TEST_REQUIRES") == "pytest\nhypothesis>=6" and v.get("WM_TEST_EXTRAS") == "test" and
      v.get("WM_TEST_SOURCES") == "tests\nconftest.py", "the Windows test job sets the WM_TEST_* variables")
check({e["WM_JOB_ID"]: e.get("WM_TEST") for e in entries} ==
      {"cpu-windows-x86_64-cp312": "true", "cpu-windows-x86_64-cp313": "false"},
      "WM_TEST is true for the tested entry, false for the skipped one")
print(f"{len(variables)} variables, {len(read_env)} read from the environment")
sys.exit(1 if bad else 0)
PY
finish
