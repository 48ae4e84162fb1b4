#!/usr/bin/env bash
# t-yaml-scalars.sh — tricky env values come out of generate as exactly the same strings, for YAML 1.1 and 1.2 readers.
#
# Each value below is a backend env value (written double-quoted in the matrix file).  Every one
# of them is a legitimate environment value, so the decision is the same for all: accepted and
# written intact; none is rejected at load.  The workflow puts the backend env on each build job
# (`env:` at job level).  Checks, for each build job and each value:
# - PyYAML's safe_load (a YAML 1.1 reader) gives back exactly the string;
# - the emitted scalar is quoted (or a block scalar) whenever the YAML 1.2 core schema would
#   resolve its plain text as null, bool, int or float, and its text is the value;
# - a value with NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR is double-quoted, where they are escaped;
# - the workflow passes actionlint, zizmor, action-validator and shellcheck (tests/helpers/wmlint.py).
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
"$py" - "$WM" "$ROOT" "$tmp" <<'PY' || fail "tricky env values (above)"
import json, os, re, subprocess, sys
import yaml
wm, root, tmp = sys.argv[1:]

VALUES = ["3.10", "3.1", "on", "off", "yes", "no", "y", "n", "true", "False", "null", "~", "", "012", "0o17",
          "0x1F", "1e3", "1:20", "2001-12-14", "2001-12-14T21:59:43.10-05:00", ".inf", "-.NaN", "<<", "=",
          "- item", "key: value", "a #comment", "#lead", " leading space", "trailing space ", "quote's", "dq\"x",
          "back\\slash", "tab\there", "multi\nline\ntext", "\u00fcn\u00efc\u00f6d\u00e9", "*star", "&amp", "!bang",
          "%percent", "@at", "`tick", "{curly}", "[square]", "a,b", "|pipe", ">gt", "?q",
          "line\u2028separator", "para\u2029graph", "next\u0085line", "both\u2028and\nnewline"]
# Line breaks to YAML 1.1, text to YAML 1.2: written raw, the two read them differently.
UNICODE_BREAKS = ("\u2028", "\u2029", "\u0085")
NAMES = ["VAL_%02d" % i for i in range(len(VALUES))]

# The YAML 1.2 core schema (spec 10.3.2): plain scalars matching these are not strings.
CORE_12 = [("null", r"null|Null|NULL|~|"), ("bool", r"true|True|TRUE|false|False|FALSE"),
           ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"),
           ("float", r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.nan|\.NaN|\.NAN")]

def core12_type(text):
    for tag, rx in CORE_12:
        if re.fullmatch(rx, text):
            return tag
    return "str"

assert core12_type("3.10") == "float" and core12_type("~") == "null" and core12_type("0o17") == "int"
assert core12_type("on") == "str" and core12_type("1:20") == "str"

repo = os.path.join(tmp, "repo")
os.mkdir(repo)
lines = ["wheelmatrix: 1", "project: {name: scalars}", 'python: {versions: ["3.12"]}',
         "platforms: [linux-x86_64, macos-arm64, windows-x86_64]", "backends:", "  cpu:", "    default: true", "    env:"]
# (the Unicode line breaks as \\u escapes: a YAML 1.1 reader folds them raw even in double quotes)
lines += ["      %s: %s" % (n, json.dumps(v, ensure_ascii=any(c in v for c in UNICODE_BREAKS))) for n, v in zip(NAMES, VALUES)]
# an empty sequence: the loader copies no items (UBSan's nonnull check in the sanitizer build)
lines += ["exclude: []", "ci: {github: {}}"]
with open(os.path.join(repo, "wheelmatrix.yaml"), "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
# The matrix file itself reads back as the values (so a failure below is generate's, not this file's).
assert yaml.safe_load(open(os.path.join(repo, "wheelmatrix.yaml"), encoding="utf-8"))["backends"]["cpu"]["env"] == dict(zip(NAMES, VALUES))

g = subprocess.run([wm, "-q", "-C", repo, "generate"], capture_output=True, text=True)
if g.returncode != 0:
    print("FAIL: generate exited %d (every value here is meant to be accepted):\n%s" % (g.returncode, g.stderr))
    sys.exit(1)
wf = os.path.join(repo, ".github", "workflows", "wheels.yml")
with open(wf, encoding="utf-8") as f:
    text = f.read()

bad = []
doc = yaml.safe_load(text)
builds = [j for j in doc["jobs"] if j.startswith("build-")]
if len(builds) != 3:
    bad.append("expected 3 build jobs (linux, macos, windows), got %s" % builds)
for job in builds:
    env = doc["jobs"][job].get("env") or {}
    for n, v in zip(NAMES, VALUES):
        if n not in env:
            bad.append("%s: env %s is missing" % (job, n))
        elif env[n] != v or type(env[n]) is not str:
            bad.append("%s: env %s is %r (%s) under YAML 1.1, not %r" % (job, n, env[n], type(env[n]).__name__, v))

def child(node, key):
    for k, v in node.value:
        if k.value == key:
            return v
    return None

root_node = yaml.compose(text)
src = text.splitlines()
for job in builds:
    env = child(child(child(root_node, "jobs"), job), "env")
    for n, v in zip(NAMES, VALUES):
        node = child(env, n) if env is not None else None
        if node is None:
            continue
        where = "%s: env %s (line %d: %s)" % (job, n, node.start_mark.line + 1, src[node.start_mark.line].strip())
        if node.value != v:
            bad.append("%s: the scalar's text is %r, not %r" % (where, node.value, v))
        if any(c in v for c in UNICODE_BREAKS) and node.style != '"':
            bad.append("%s: a Unicode line break written raw (style %r), not escaped in double quotes" % (where, node.style))
        if node.style is None and core12_type(node.value) != "str":
            bad.append("%s: written plain, a YAML 1.2 core schema reader takes it as %s" % (where, core12_type(node.value)))

lint = subprocess.run([sys.executable, os.path.join(root, "tests", "helpers", "wmlint.py"), wf], capture_output=True, text=True)
if lint.returncode != 0:
    bad.append("the workflow has findings:\n" + lint.stdout.replace(tmp + "/", "") + lint.stderr)
for b in bad:
    print("FAIL " + b)
sys.exit(1 if bad else 0)
PY
finish
