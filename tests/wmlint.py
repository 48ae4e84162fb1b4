#!/usr/bin/env python3
"""wmlint.py — checks GitHub workflows with validators nobody here wrote: actionlint, zizmor, action-validator, shellcheck.

usage: python3 tests/wmlint.py WORKFLOW...     (exit 0 clean, 1 findings or validators missing)
       python3 tests/wmlint.py --missing       (exit 1 and say how to install them when they cannot run)

actionlint 1.7.12 (the Go module, pinned in tests/tools/actionlint/go.mod) and zizmor 1.33.1
(PyPI, pinned in tests/tools/validators.txt) are installed by tests/tools/install-validators.sh
(`make check` runs it) into ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/validators/KEY; the
script's `--dir` names that directory for the current pins, so a moved pin is never met by an old
tool.  Any finding of either is a problem, and nothing is passed over:

- actionlint runs on each file with `-format '{{json .}}'` (a JSON list of findings), Debian's
  shellcheck for the `run:` scripts, pyflakes off, and a configuration that declares exactly the
  custom runner labels the caller names (its `self-hosted-runner.labels`, the way a repository
  with its own runners declares them); exit 0 with no finding or 1 with some, else it crashed.
- zizmor runs offline at its default persona ("regular"), honouring no ignore comment.  The
  generated workflow names actions by the tags of templates/actions.yaml unless the matrix file
  pins them, and zizmor's default policy wants every action hash-pinned; docs/generate.md
  says why wheelmatrix keeps tags by default and gives the zizmor configuration that accepts
  them (`unpinned-uses` with `ref-pin` for exactly those actions).  So a workflow whose every
  `uses:` is a full commit SHA is audited with no configuration at all, any other with that
  configuration, read from docs/generate.md (and checked to name exactly the actions of
  templates/actions.yaml).  A publish step that uses a token
  (`publish.pypi.trusted: false`) must draw exactly one use-trusted-publishing finding, the
  consequence docs/generate.md states for that choice: that finding is checked to be there, not
  passed over, and any other finding is a problem.  The "pedantic" persona's findings are
  information only: `pedantic()` counts them for the tests to print.

action-validator (@action-validator/cli, npm, pinned in tests/external) checks the workflow against
the JSON schema and must report no error.  Its schema (0.6.0, the newest release) predates
GitHub's `attestations` permission, which the publish jobs need to store build provenance: it
gets the workflow with each `attestations:` entry of a `permissions:` block left out (nothing
else), and actionlint, which knows that permission and its values, checks those entries.  Every `run:` script whose shell is bash (the workflow
default), and every `before-script-linux` of PyO3/maturin-action (a bash script too), also goes
through `shellcheck -s bash` here, with each ${{ ... }} expression replaced by a placeholder
variable quoted for its context, and must have no finding at all.
"""

import collections
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

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
EXTERNAL = os.path.join(TESTS, "external")
BIN = os.path.join(EXTERNAL, "node_modules", ".bin")
INSTALL = os.path.join(TESTS, "tools", "install-validators.sh")
PINS = {"@action-validator/cli": "0.6.0"}
ACTIONLINT_VERSION = "v1.7.12"
ZIZMOR_VERSION = "1.33.1"
_SHA = re.compile(r"[0-9a-f]{40}")


class LintError(Exception):
    """A validator did something its wrapper does not understand (a crash, unexpected output)."""


@functools.lru_cache(maxsize=None)
def tool_dir():
    """The directory install-validators.sh installs the current pins into."""
    return subprocess.run(["bash", INSTALL, "--dir"], capture_output=True, text=True, check=True).stdout.strip()


def _actionlint_bin():
    return os.path.join(tool_dir(), "bin", "actionlint")


def _zizmor_bin():
    return os.path.join(tool_dir(), "venv", "bin", "zizmor")


def missing():
    """Returns why the validators cannot run, with the command that installs them (a sentence), or
    None when they can."""
    if shutil.which("shellcheck") is None:
        return "shellcheck is not installed: run 'apt-get install shellcheck' (.ci/run installs it)"
    if not os.path.isfile(os.path.join(tool_dir(), "complete")):
        return ("actionlint %s and zizmor %s are not installed for the current pins: run "
                "'tests/tools/install-validators.sh' (make check runs it)" % (ACTIONLINT_VERSION, ZIZMOR_VERSION))
    if shutil.which("node") is None:
        return "node is not installed: run 'apt-get install nodejs npm' (.ci/run installs it)"
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


def actionlint(path, labels=()):
    """Runs actionlint on one file; returns its findings as dicts (line, column, kind, message).
    `labels` are the custom runner labels of the repository (actionlint's self-hosted-runner)."""
    with tempfile.TemporaryDirectory(prefix="wmlint.") as tmp:
        config = os.path.join(tmp, "actionlint.yaml")
        with open(config, "w", encoding="utf-8") as f:
            yaml.safe_dump({"self-hosted-runner": {"labels": list(labels)}}, f)
        proc = subprocess.run([_actionlint_bin(), "-no-color", "-config-file", config, "-format", "{{json .}}",
                               "-shellcheck", shutil.which("shellcheck"), "-pyflakes", "", path],
                              env=_env(), capture_output=True, text=True)
    try:
        found = json.loads(proc.stdout)
    except ValueError:
        raise LintError("actionlint exited %d: %r %r" % (proc.returncode, proc.stdout[:500], proc.stderr[:500]))
    if proc.returncode != (1 if found else 0) or proc.stderr.strip():
        raise LintError("actionlint exited %d with %d findings: %r" % (proc.returncode, len(found), proc.stderr[:500]))
    return [{"line": f["line"], "column": f["column"], "kind": f["kind"], "message": f["message"]} for f in found]


def uses_refs(doc):
    """Every `uses:` of a loaded workflow as (action, ref)."""
    out = []
    for job in (doc.get("jobs") or {}).values():
        if isinstance(job, dict):
            if "uses" in job:
                out.append(tuple(str(job["uses"]).partition("@")[::2]))
            for step in job.get("steps") or []:
                if isinstance(step, dict) and "uses" in step:
                    out.append(tuple(str(step["uses"]).partition("@")[::2]))
    return out


@functools.lru_cache(maxsize=None)
def zizmor_config():
    """The zizmor configuration docs/generate.md gives for the default action references, read
    from its ```yaml block that holds `unpinned-uses`; it must let exactly the actions of
    templates/actions.yaml be pinned by ref (tag) rather than by hash."""
    with open(os.path.join(ROOT, "docs", "generate.md"), encoding="utf-8") as f:
        blocks = re.findall(r"\n *```yaml\n(.*?)\n *```\n", f.read(), re.S)
    found = [yaml.safe_load(b) for b in blocks if "unpinned-uses:" in b]
    with open(os.path.join(ROOT, "templates", "actions.yaml"), encoding="utf-8") as f:
        actions = yaml.safe_load(f)["actions"]
    want = {"rules": {"unpinned-uses": {"config": {"policies": {a: "ref-pin" for a in actions}}}}}
    if found != [want]:
        raise LintError("docs/generate.md should give one zizmor configuration, %r; it gives %r" % (want, found))
    return found[0]


def zizmor(path, persona="regular", config=None):
    """Runs zizmor offline on one file; returns its findings (zizmor's JSON objects).  `config` is
    a configuration (a dict) or None for none at all."""
    with tempfile.TemporaryDirectory(prefix="wmlint.") as tmp:
        args = [_zizmor_bin(), "--offline", "--no-ignores", "--no-exit-codes", "--no-progress", "--color", "never",
                "--format", "json", "--persona", persona]
        if config is None:
            args.append("--no-config")
        else:
            with open(os.path.join(tmp, "zizmor.yml"), "w", encoding="utf-8") as f:
                yaml.safe_dump(config, f)
            args += ["--config", os.path.join(tmp, "zizmor.yml")]
        proc = subprocess.run(args + [path], env=_env(), capture_output=True, text=True)
    try:
        found = json.loads(proc.stdout)
    except ValueError:
        raise LintError("zizmor exited %d: %r %r" % (proc.returncode, proc.stdout[:500], proc.stderr[:500]))
    if proc.returncode != 0 or not isinstance(found, list):
        raise LintError("zizmor exited %d: %r" % (proc.returncode, proc.stderr[:500]))
    return found


def zizmor_mode(doc):
    """None (no configuration) when every action of the workflow is pinned to a full commit SHA,
    else the configuration for the default tags."""
    refs = uses_refs(doc)
    return None if refs and all(_SHA.fullmatch(ref) for _, ref in refs) else zizmor_config()


def token_publish_steps(doc):
    """The steps, as (job id, step index), that run pypa/gh-action-pypi-publish with a token (a
    `password` input): what `publish.pypi.trusted: false` asks for, and where zizmor's
    use-trusted-publishing audit must report, once each (docs/generate.md)."""
    out = set()
    for job_id, job in (doc.get("jobs") or {}).items():
        for n, step in enumerate((job.get("steps") or []) if isinstance(job, dict) else []):
            if (isinstance(step, dict) and str(step.get("uses", "")).startswith("pypa/gh-action-pypi-publish@")
                    and "password" in (step.get("with") or {})):
                out.add((job_id, n))
    return out


def _zizmor_step(f):
    """The (job id, step index) of a finding's primary location, or None."""
    for loc in f.get("locations") or []:
        if loc.get("symbolic", {}).get("kind") == "Primary":
            route = [next(iter(r.values())) for r in loc["symbolic"].get("route", {}).get("route", [])]
            if len(route) >= 4 and route[0] == "jobs" and route[2] == "steps":
                return (route[1], route[3])
    return None


def _zizmor_line(path, f):
    where = ""
    for loc in f.get("locations") or []:
        if loc.get("symbolic", {}).get("kind") == "Primary":
            p = loc["concrete"]["location"]["start_point"]
            where = ":%d:%d" % (p["row"] + 1, p["column"] + 1)
            note = loc["symbolic"].get("annotation", "")
            feature = loc["concrete"].get("feature", "").split("\n")[0]
            return "%s%s: zizmor [%s] %s: %s\n    | %s" % (path, where, f["ident"], f["desc"], note, feature)
    return "%s: zizmor [%s] %s" % (path, f["ident"], f["desc"])


def pedantic(paths):
    """The pedantic persona's findings over `paths` (information, not problems): printable lines,
    a count per audit then each distinct message once."""
    def one(path):
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        return zizmor(path, "pedantic", zizmor_mode(doc))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        found = [f for fs in pool.map(one, paths) for f in fs]
    counts = collections.Counter(f["ident"] for f in found)
    out = ["zizmor --persona pedantic over %d workflows: %d findings%s"
           % (len(paths), len(found), "".join(" %s=%d" % kv for kv in sorted(counts.items())))]
    seen = set()
    for f in found:
        primary = [l for l in f.get("locations") or [] if l.get("symbolic", {}).get("kind") == "Primary"]
        key = (f["ident"], primary[0]["symbolic"].get("annotation", "") if primary else "")
        if key not in seen:
            seen.add(key)
            out.append("  %s (%s): %s" % (key[0], f["determinations"]["severity"], key[1] or f["desc"]))
    return out


def without_attestations(text):
    """The workflow text without the `attestations:` entries of its block-style `permissions:`
    mappings, which action-validator's schema does not know (see above)."""
    out, block = [], None
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" "))
        if block is not None and line.strip() and indent <= block:
            block = None
        if block is not None and re.fullmatch(r" *attestations: *(read|write|none) *\n?", line):
            continue
        if re.fullmatch(r" *permissions: *\n?", line):
            block = indent
        out.append(line)
    return "".join(out)


def action_validator(path):
    """Runs action-validator on one file; returns its errors (empty when the workflow is valid)."""
    with tempfile.TemporaryDirectory(prefix="wmlint.") as tmp:
        copy = os.path.join(tmp, "workflow.yml")
        with open(path, encoding="utf-8") as f, open(copy, "w", encoding="utf-8") as g:
            g.write(without_attestations(f.read()))
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
    """Everything wrong with one workflow file, as printable lines (empty when every validator is
    clean); `labels` are the custom runner labels the workflow may use."""
    out = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    src = text.splitlines()
    for fnd in actionlint(path, labels):
        out.append("%s:%d:%d: actionlint [%s] %s" % (path, fnd["line"], fnd["column"], fnd["kind"], fnd["message"]))
        if 0 < fnd["line"] <= len(src):
            out.append("    | " + src[fnd["line"] - 1])
    for err in action_validator(path):
        out.append("%s: action-validator %s" % (path, json.dumps(err, sort_keys=True)))
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        return out + ["%s: PyYAML cannot load it: %s" % (path, str(e).replace("\n", " "))]
    try:
        found = zizmor(path, "regular", zizmor_mode(doc))
    except LintError as e:
        found = []
        out.append("%s: %s" % (path, e))
    token_steps = token_publish_steps(doc)
    for fnd in found:
        if fnd["ident"] == "use-trusted-publishing" and _zizmor_step(fnd) in token_steps:
            token_steps.discard(_zizmor_step(fnd))
            continue
        out.append(_zizmor_line(path, fnd))
    for job_id, n in sorted(token_steps):
        out.append("%s: job %s step %d publishes with a token, and zizmor did not report use-trusted-publishing"
                   % (path, job_id, n + 1))
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
        return 1
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
