#!/usr/bin/env bash
# t-github-hostile.sh — hostile matrix values are rejected at load with a located error, or come out intact and inert.
#
# Each case puts one value in one place of an otherwise plain matrix and says which outcome is
# right for it:
#   reject  generate exits 2, writes nothing, and its first error is
#           `wheelmatrix.yaml:LINE:COL: error: ...` with LINE the value's line, COL inside the value,
#           and the message quoting the offending text (or, for an expression, its `${{`);
#   intact  generate exits 0, re-parsing the workflow gives back exactly the value where it
#           belongs (the build jobs' env, a build entry's runs-on, maturin-action's container, the
#           publish job's environment; for the GitLab-only `image`, `list`'s gitlab_image, as the
#           GitLab file is not written yet), and the workflow is clean for actionlint,
#           zizmor, action-validator and shellcheck (tests/wmlint.py), a custom runner label
#           being declared to actionlint as a repository declares its own runners.
# A value holding a GitHub expression (${{ ... }}) is never "intact" where GitHub evaluates it as
# untrusted or broken text: runner labels and environment names are literals, and an untrusted
# context or a malformed expression in an env value must be refused.  Environment names are held
# to letters, digits, ' ', '-', '_' and '.' (the loader's rule), so '#' and ': ' are refused there.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
# shellcheck source=tests/python-env.sh
. "$ROOT/tests/python-env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" - "$WM" "$ROOT" "$tmp" <<'PY'
import json, os, re, subprocess, sys
import yaml
wm, root, tmp = sys.argv[1:]
sys.path.insert(0, os.path.join(root, "tests"))
import wfcheck, wmlint

E = "${{"
# (name, place, value, outcome, texts of which the error must quote one)
CASES = [
    ("env-single-quote", "env", "it's", "intact", None),
    ("env-double-quote", "env", 'say "hi"', "intact", None),
    ("env-both-quotes", "env", "'\"'\"'", "intact", None),
    ("env-colon-space", "env", "key: value", "intact", None),
    ("env-hash", "env", "a #b", "intact", None),
    ("env-lead-hash", "env", "#!/bin/sh", "intact", None),
    ("env-newlines", "env", "one\ntwo", "intact", None),
    ("env-trailing-newline", "env", "line\n", "intact", None),
    ("env-indented-first-line", "env", "  indented\nnext", "intact", None),
    ("env-blank-lines", "env", "\n\na\n\n", "intact", None),
    ("env-crlf", "env", "a\r\nb", "intact", None),
    ("env-doc-markers", "env", "---\n...\n", "intact", None),
    ("env-shell", "env", "$(touch pwned); `id` && rm -rf \"$HOME\" # x", "intact", None),
    ("env-recipe-marker", "env", "@version@ @major@", "intact", None),
    ("env-untrusted", "env", E + " github.event.issue.title }}", "reject", ("github.event.issue.title", E)),
    ("env-untrusted-nospace", "env", E + "github.event.pull_request.title}}", "reject",
     ("github.event.pull_request.title", E)),
    ("env-untrusted-embedded", "env", "title: " + E + " github.event.issue.title }} #1", "reject",
     ("github.event.issue.title", E)),
    ("env-unterminated", "env", E + " github.sha", "reject", (E,)),
    ("env-unknown-context", "env", E + " nosuch.value }}", "reject", ("nosuch", E)),
    ("runner-hash", "runner", "x#y", "intact", None),
    ("runner-colon", "runner", "x:y", "intact", None),
    ("runner-quotes", "runner", "a'b\"c", "intact", None),
    ("runner-colon-space", "runner", "x: y", "reject", ("x: y",)),
    ("runner-space-hash", "runner", "x #y", "reject", ("x #y",)),
    ("runner-newline", "runner", "x\ny", "reject", ("x",)),
    ("runner-untrusted", "runner", E + "github.event.issue.title}}", "reject", ("github.event.issue.title", E)),
    ("container-hash", "container", "quay.io/pypa/manylinux_2_28_x86_64:2025#1", "intact", None),
    ("container-colon-space", "container", "quay.io/pypa/x: y", "reject", ("quay.io/pypa/x: y",)),
    ("image-hash", "image", "registry.example/img:1#x", "intact", None),
    ("image-colon-space", "image", "img: 1", "reject", ("img: 1",)),
    ("environment-space", "environment", "pypi release", "intact", None),
    ("environment-punctuation", "environment", "pypi.prod-1_x", "intact", None),
    ("environment-hash", "environment", "pypi #1", "reject", ("pypi #1",)),
    ("environment-colon-space", "environment", "release: pypi", "reject", ("release: pypi",)),
    ("environment-untrusted", "environment", E + " github.head_ref }}", "reject", ("github.head_ref", E)),
]


def matrix(place, value):
    q = json.dumps(value, ensure_ascii=False)
    plat = {"runner": "runner", "container": "container", "image": "image"}.get(place)
    lines = ["wheelmatrix: 1", "project: {name: hostile}", 'python: {versions: ["3.12"]}', "platforms:",
             "  linux-x86_64: {%s}" % ("%s: %s" % (plat, q) if plat else ""),
             "  macos-arm64: {}", "  windows-x86_64: {}", "backends:", "  cpu:", "    default: true"]
    if place == "env":
        lines += ["    env:", "      HOSTILE_VALUE: %s" % q]
    lines += ["ci: {github: {}}"]
    if place == "environment":
        lines += ["publish: {pypi: {environment: %s}}" % q]
    text = "\n".join(lines) + "\n"
    line = next(i for i, l in enumerate(lines, 1) if q in l)
    col = lines[line - 1].index(q) + 1
    return text, line, col, col + len(q)


def found(doc, listed, place):
    """The values the workflow (or list) gives for the place: one per build job, entry or publish job."""
    jobs = doc.get("jobs") or {}
    out = []
    if place == "env":
        for name, job in jobs.items():
            if name.startswith("build-"):
                out.append((name, (job.get("env") or {}).get("HOSTILE_VALUE")))
    elif place in ("runner", "container"):
        for name, job in jobs.items():
            for e in wfcheck._entries(job) or []:
                if "-linux-x86_64-" not in e.get("id", ""):
                    continue
                where = "%s entry %s" % (name, e["id"])
                if place == "runner":
                    out.append((where + " runs-on", wfcheck.evaluate(job.get("runs-on"), e)))
                for step in job.get("steps") or []:
                    if place == "container" and wfcheck.uses(step, "PyO3/maturin-action"):
                        c = (step.get("with") or {}).get("container")
                        out.append((where + " maturin-action container", None if c is None else wfcheck.evaluate(c, e)))
    elif place == "environment":
        for name, job in jobs.items():
            if name.startswith("publish-"):
                env = job.get("environment")
                out.append((name + " environment", env.get("name") if isinstance(env, dict) else env))
    elif place == "image":
        out = [("list gitlab_image of " + j["id"], j.get("gitlab_image")) for j in listed if j["platform"] == "linux-x86_64"]
    return out


failures, to_lint, labels = [], {}, {}
for n, (name, place, value, outcome, quote) in enumerate(CASES):
    repo = os.path.join(tmp, "repo%d" % n)
    os.mkdir(repo)
    text, line, col0, col1 = matrix(place, value)
    with open(os.path.join(repo, "wheelmatrix.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    assert (yaml.safe_load(text) is not None), name
    g = subprocess.run([wm, "-q", "-C", repo, "generate"], capture_output=True, text=True)
    wrote = os.path.exists(os.path.join(repo, ".github"))
    if outcome == "reject":
        first = g.stderr.splitlines()[0] if g.stderr else ""
        m = re.match(r"wheelmatrix\.yaml:(\d+):(\d+): error: (.*)", first)
        if g.returncode != 2:
            failures.append("%s: %r in %s should be rejected at load; generate exited %d%s"
                            % (name, value, place, g.returncode, ", and wrote the workflow" if wrote else ""))
        elif wrote:
            failures.append("%s: rejected, but generate wrote files" % name)
        elif not m:
            failures.append("%s: the error does not start 'wheelmatrix.yaml:L:C: error:': %r" % (name, first))
        elif int(m[1]) != line or not col0 <= int(m[2]) < col1:
            failures.append("%s: the error points at %s:%s, the value is at line %d, columns %d-%d: %r"
                            % (name, m[1], m[2], line, col0, col1 - 1, first))
        elif not any(q in m[3] for q in quote):
            failures.append("%s: the message quotes none of %r: %r" % (name, quote, first))
        continue
    if g.returncode != 0:
        failures.append("%s: %r in %s should come out intact; generate exited %d:\n%s" % (name, value, place, g.returncode, g.stderr))
        continue
    wf = os.path.join(repo, ".github", "workflows", "wheels.yml")
    with open(wf, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    ls = subprocess.run([wm, "-q", "-C", repo, "list", "--format", "jsonl"], capture_output=True, text=True, check=True)
    listed = [json.loads(l) for l in ls.stdout.splitlines()]
    got = found(doc, listed, place)
    if not got:
        failures.append("%s: the workflow has no place for the %s value" % (name, place))
    for where, v in got:
        if v != value:
            failures.append("%s: %s is %r, not %r" % (name, where, v, value))
    to_lint[wf] = name
    if place == "runner":
        labels[wf] = (value,)

why = wmlint.missing()
if why:
    failures.append("the validators cannot run: " + why)
else:
    for path, problems in wmlint.lint_all(list(to_lint), labels):
        for p in problems:
            failures.append("%s: %s" % (to_lint[path], p.replace(tmp + "/", "")))
for f in failures:
    print("FAIL " + f)
print("%d cases, %d failures" % (len(CASES), len(failures)))
sys.exit(1 if failures else 0)
PY
