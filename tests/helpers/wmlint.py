#!/usr/bin/env python3
"""wmlint.py — checks GitHub workflows with validators nobody here wrote: actionlint, zizmor, action-validator, shellcheck.

usage: python3 tests/helpers/wmlint.py WORKFLOW...     (exit 0 clean, 1 findings or validators missing)
       python3 tests/helpers/wmlint.py --missing       (exit 1 and say how to install them when they cannot run)

actionlint 1.7.12 (the Go module, pinned in tests/tools/actionlint/go.mod) and zizmor 1.33.1
(PyPI, pinned in tests/tools/validators.txt) are installed by tests/tools/install-validators.sh
(`make check` runs it) into ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/validators/KEY; the
script's `--dir` names that directory for the current pins, so a moved pin is never met by an old
tool.  Any finding of either is a problem, but for those docs/generate.md explains, each where it
says and checked to be there:

Each validator runs once over all the files of a call (lint_all, and the command line), not once a
file, and each finding is told to its file by the path the validator names it by:

- actionlint runs on the files with `-format '{{json .}}'` (a JSON list of findings), Debian's
  shellcheck for the `run:` scripts, pyflakes off, and a configuration that declares exactly the
  custom runner labels the caller names (its `self-hosted-runner.labels`, the way a repository
  with its own runners declares them; on the command line, those the workflow's repository
  declares in its .github/actionlint.yaml); exit 0 with no finding or 1 with some, else it crashed.
- zizmor runs offline at its auditor persona (every audit, at every confidence), honouring no
  ignore comment.  The
  generated workflow names actions by the tags of templates/actions.yaml unless the matrix file
  pins them, and zizmor's default policy wants every action hash-pinned; docs/generate.md
  says why wheelmatrix keeps tags by default and gives the zizmor configuration that accepts
  them (`unpinned-uses` with `ref-pin` for exactly those actions).  So a workflow whose every
  `uses:` is a full commit SHA is audited with no configuration at all, any other with that
  configuration, read from docs/generate.md (and checked to name exactly the actions of
  templates/actions.yaml).  A publish step that uses a token
  (`publish.pypi.trusted: false`) must draw exactly one use-trusted-publishing finding, the
  consequence docs/generate.md states for that choice: that finding is checked to be there, not
  passed over.  The auditor persona's own findings that docs/generate.md explains (its list of
  them, read by `auditor_explained()`: an audit each, with where it is expected) are passed only
  where that list says, each checked against what the documentation states: a permission against
  the Permissions table of docs/generate.md, an expression against the contexts docs/matrix.md
  lets setup steps read, a secret against the build jobs, which have no environment.  Any other
  finding is a problem.

action-validator (@action-validator/cli, npm, pinned in tests/external) checks the workflow against
the JSON schema and must report no error; its CLI takes one file a run, so
tests/helpers/action-validator-many.mjs gives each file to the same validator (the CLI's
@action-validator/core) as the CLI does, in one node process.  Its schema (0.6.0, the newest release) predates
GitHub's `attestations` permission, which the publish jobs need to store build provenance: it
gets the workflow with each `attestations:` entry of a `permissions:` block left out (nothing
else), and actionlint, which knows that permission and its values, checks those entries.  Every `run:` script whose shell is bash (the workflow
default), and every `before-script-linux` of PyO3/maturin-action (a bash script too), also goes
through `shellcheck -s bash` here, with each ${{ ... }} expression replaced by a placeholder
variable quoted for its context, and must have no finding at all.

The local composite actions a workflow's steps use (`uses: ./DIR`, which `wheelmatrix generate`
writes beside it) are checked too, each once: action-validator with its action schema, zizmor at
its auditor persona with no configuration, and shellcheck on each `run:` step, which must be bash.
"""

import concurrent.futures
import fnmatch
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ghinline  # noqa: E402

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
    return actionlint_many([path], labels)[path]


def actionlint_many(paths, labels=()):
    """actionlint() of each of `paths` (absolute, distinct), in one run of actionlint over them all,
    as a dict path -> findings: each finding names its file (`filepath`)."""
    with tempfile.TemporaryDirectory(prefix="wmlint.") as tmp:
        config = os.path.join(tmp, "actionlint.yaml")
        with open(config, "w", encoding="utf-8") as f:
            yaml.safe_dump({"self-hosted-runner": {"labels": list(labels)}}, f)
        proc = subprocess.run([_actionlint_bin(), "-no-color", "-config-file", config, "-format", "{{json .}}",
                               "-shellcheck", shutil.which("shellcheck"), "-pyflakes", ""] + list(paths),
                              env=_env(), capture_output=True, text=True)
    try:
        found = json.loads(proc.stdout)
    except ValueError:
        raise LintError("actionlint exited %d: %r %r" % (proc.returncode, proc.stdout[:500], proc.stderr[:500]))
    if proc.returncode != (1 if found else 0) or proc.stderr.strip():
        raise LintError("actionlint exited %d with %d findings: %r" % (proc.returncode, len(found), proc.stderr[:500]))
    out = {path: [] for path in paths}
    real = {os.path.realpath(path): path for path in paths}  # it names them relative to the directory it runs in
    for f in found:
        path = real.get(os.path.realpath(str(f.get("filepath"))))
        if path is None:
            raise LintError("actionlint reported a file it was not given: %r" % f.get("filepath"))
        out[path].append({"line": f["line"], "column": f["column"], "kind": f["kind"], "message": f["message"]})
    return out


def uses_refs(doc):
    """Every `uses:` of a loaded workflow as (action, ref), but those of the repository itself
    (`./DIR`, a local action or workflow, which has no ref: it is the workflow's own commit)."""
    out = []
    for job in (doc.get("jobs") or {}).values():
        if isinstance(job, dict):
            uses = [job["uses"]] if "uses" in job else []
            uses += [step["uses"] for step in job.get("steps") or [] if isinstance(step, dict) and "uses" in step]
            out += [tuple(str(u).partition("@")[::2]) for u in uses if not str(u).startswith("./")]
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


def _doc_text(name):
    with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
        return f.read()


def _table_after(text, heading):
    """The rows (lists of cells) of the first Markdown table after the line that starts `heading`."""
    rows, start = [], text.find(heading)
    if start < 0:
        raise LintError("the documentation has no %r, which wmlint.py reads" % heading)
    for line in text[start:].splitlines()[1:]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return [r for r in rows[1:] if not set("".join(r)) <= set("-: ")]


@functools.lru_cache(maxsize=None)
def permissions_table():
    """docs/generate.md's Permissions table: (job name patterns, permissions 'name: value') per row."""
    out = []
    for job, perms in _table_after(_doc_text("generate.md"), "**Permissions.**"):
        # the job names, not the strategies in parentheses after them
        names = [re.sub(r"<[a-z]+>", "*", n) for n in re.findall(r"`([^`]+)`", re.sub(r"\([^)]*\)", "", job))]
        out.append((names, set(re.findall(r"`([a-z-]+: (?:read|write))`", perms))))
    if len(out) < 5 or not all(n for n, _ in out):
        raise LintError("docs/generate.md's Permissions table is not where wmlint.py reads it: %r" % out)
    return out


def documented_permission(job, permission):
    """Whether docs/generate.md's Permissions table gives job `job` the permission ('id-token: write'):
    by the rows naming it exactly, else by the rows whose pattern matches it."""
    rows = permissions_table()
    exact = [p for names, p in rows if job in names]
    matched = exact or [p for names, p in rows if any(fnmatch.fnmatchcase(job, n) for n in names)]
    return any(permission in p for p in matched)


@functools.lru_cache(maxsize=None)
def setup_contexts():
    """The context paths docs/matrix.md lets a setup step's expressions read (its Expressions table):
    exact paths, and the contexts of which one name may be read (secrets.NAME)."""
    paths, named = set(), set()
    for _, cell in _table_after(_doc_text("matrix.md"), "#### Expressions"):
        for item in re.findall(r"`([^`]+)`", cell):
            if item.endswith(".NAME"):
                named.add(item[:-5].lower())
            else:
                paths.add(item.lower())
    if "github.sha" not in paths or "secrets" not in named:
        raise LintError("docs/matrix.md's Expressions table is not where wmlint.py reads it")
    return paths, named


_EXPR_TOKEN = re.compile(r"'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_-]*(?:\.(?:[A-Za-z_][A-Za-z0-9_-]*|\*))*|\S")


def reads_setup_contexts(expr):
    """Whether a GitHub expression reads only contexts docs/matrix.md allows in setup steps: every
    context path (a name not called as a function, not a literal) is one of them, and none is indexed."""
    paths, named = setup_contexts()
    tokens = _EXPR_TOKEN.findall(expr)
    for i, t in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if not re.match(r"[A-Za-z_]", t) or nxt == "(" or t.lower() in ("true", "false", "null"):
            continue
        head, _, rest = t.lower().partition(".")
        if nxt == "[" or not (t.lower() in paths or (head in named and rest and "." not in rest and rest != "*")):
            return False
    return True


def _primaries(f):
    return [loc for loc in f.get("locations") or [] if loc.get("symbolic", {}).get("kind") == "Primary"]


def _route(loc):
    return [next(iter(r.values())) for r in loc["symbolic"].get("route", {}).get("route", [])]


def _explain_permission(doc, text, f):
    for loc in _primaries(f):
        r = _route(loc)
        if not (len(r) == 4 and r[0] == "jobs" and r[2] == "permissions"):
            return False
        if not documented_permission(r[1], loc["concrete"]["feature"].strip()):
            return False
    return bool(_primaries(f))


def _explain_expression(doc, text, f):
    for loc in _primaries(f):
        r, span = _route(loc), loc["concrete"]["location"]["offset_span"]
        if not (len(r) >= 5 and r[0] == "jobs" and r[2] == "steps"):
            return False
        if not reads_setup_contexts(text[span["start"]:span["end"]].decode("utf-8")):
            return False
    return bool(_primaries(f))


def _explain_secret(doc, text, f):
    for loc in _primaries(f):
        r = _route(loc)
        job = (doc.get("jobs") or {}).get(r[1]) if len(r) >= 2 and r[0] == "jobs" else None
        if not (isinstance(job, dict) and str(r[1]).startswith(("build-", "test-")) and "environment" not in job):
            return False
        if not re.fullmatch(r"secrets\.[A-Za-z_][A-Za-z0-9_]*", loc["concrete"]["feature"].strip()):
            return False
    return bool(_primaries(f))


def _generated_local_action(f):
    """zizmor's self-repository finding (every persona) at a `uses: ./.github/actions/wheelmatrix-NAME`,
    a local action generate writes, where docs/generate.md explains why it is `./` and not `$/`."""
    if "`self-repository`" not in _doc_text("generate.md"):
        raise LintError("docs/generate.md does not explain zizmor's self-repository finding")
    return bool(_primaries(f)) and all(
        re.fullmatch(r"\./\.github/actions/wheelmatrix-[a-z-]+", loc["concrete"]["feature"].strip()) for loc in _primaries(f))


# The auditor persona's findings docs/generate.md explains, and where each is expected (see above).
_EXPLAINED = {"undocumented-permissions": _explain_permission, "template-injection": _explain_expression,
              "secrets-outside-env": _explain_secret}


@functools.lru_cache(maxsize=None)
def auditor_explained():
    """The audits docs/generate.md's list explains (the `- \`ident\`:` items after the words "the
    auditor persona alone makes"); they must be exactly those wmlint.py knows where to expect."""
    text = _doc_text("generate.md")
    start = text.find("the auditor persona alone makes")
    if start < 0:
        raise LintError("docs/generate.md has no list of the findings the auditor persona alone makes")
    idents = []
    for line in text[start:].splitlines()[1:]:
        m = re.match(r"- `([a-z-]+)`:", line)
        if m:
            idents.append(m[1])
        elif idents and not line.startswith("  "):
            break
    if sorted(idents) != sorted(_EXPLAINED):
        raise LintError("docs/generate.md explains the auditor findings %s; wmlint.py knows where to expect %s"
                        % (idents, sorted(_EXPLAINED)))
    return tuple(idents)


def zizmor(path, persona="auditor", config=None):
    """Runs zizmor offline on one file; returns its findings (zizmor's JSON objects).  `config` is
    a configuration (a dict) or None for none at all."""
    return zizmor_inputs([path], persona, config)


def zizmor_inputs(paths, persona, config):
    """One run of zizmor over `paths`: every finding, as zizmor's JSON objects."""
    with tempfile.TemporaryDirectory(prefix="wmlint.") as tmp:
        args = [_zizmor_bin(), "--offline", "--no-ignores", "--no-exit-codes", "--no-progress", "--color", "never",
                "--format", "json", "--persona", persona]
        if config is None:
            args.append("--no-config")
        else:
            with open(os.path.join(tmp, "zizmor.yml"), "w", encoding="utf-8") as f:
                yaml.safe_dump(config, f)
            args += ["--config", os.path.join(tmp, "zizmor.yml")]
        proc = subprocess.run(args + paths, env=_env(), capture_output=True, text=True)
    try:
        found = json.loads(proc.stdout)
    except ValueError:
        raise LintError("zizmor exited %d: %r %r" % (proc.returncode, proc.stdout[:500], proc.stderr[:500]))
    if proc.returncode != 0 or not isinstance(found, list):
        raise LintError("zizmor exited %d: %r" % (proc.returncode, proc.stderr[:500]))
    return found


def zizmor_many(paths, persona="auditor", config=None):
    """zizmor() of each of `paths` (absolute, distinct), in one run of zizmor over them all, as a
    dict path -> findings: zizmor audits each input file on its own, and each finding's locations
    name its file (`verbatim_path`, as given)."""
    found = zizmor_inputs(list(paths), persona, config)
    out = {path: [] for path in paths}
    for f in found:
        files = {((loc.get("symbolic") or {}).get("key") or {}).get("Local", {}).get("verbatim_path")
                 for loc in f.get("locations") or []}
        if len(files) != 1 or not files <= set(out):
            raise LintError("zizmor reported a finding not in one of the files given: %r" % sorted(map(str, files)))
        out[files.pop()].append(f)
    return out


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


def without_attestations(text):
    """The workflow text without the `attestations:` entries of its block-style `permissions:`
    mappings, which action-validator's schema does not know (see above), with the comment that
    explains one (zizmor's undocumented-permissions) if it has one."""
    out, block = [], None
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" "))
        if block is not None and line.strip() and indent <= block:
            block = None
        if block is not None and re.fullmatch(r" *attestations: *(read|write|none) *(#.*)?\n?", line):
            continue
        if re.fullmatch(r" *permissions: *\n?", line):
            block = indent
        out.append(line)
    return "".join(out)


def action_validator_many(paths):
    """Runs action-validator on each of `paths`, in one node process (tests/helpers/action-validator-many.mjs:
    the validator of @action-validator/cli, its @action-validator/core, given each file's text as
    the CLI gives it); returns a dict path -> errors (empty when the workflow is valid)."""
    with tempfile.TemporaryDirectory(prefix="wmlint.") as tmp:
        copies = {}
        for n, path in enumerate(paths):
            # the name tells an action from a workflow, as to the CLI (action.yml, action.yaml)
            name = os.path.basename(path)
            copies[path] = os.path.join(tmp, "%d" % n, name if name in ("action.yml", "action.yaml") else "workflow.yml")
            os.mkdir(os.path.dirname(copies[path]))
            with open(path, encoding="utf-8") as f, open(copies[path], "w", encoding="utf-8") as g:
                g.write(without_attestations(f.read()))
        proc = subprocess.run(["node", os.path.join(TESTS, "helpers", "action-validator-many.mjs"),
                               os.path.join(EXTERNAL, "package.json")] + list(copies.values()),
                              env=_env(), capture_output=True, text=True)
    try:
        results = json.loads(proc.stdout)
    except ValueError:
        raise LintError("action-validator exited %d: %r %r" % (proc.returncode, proc.stdout[:500], proc.stderr[:500]))
    if proc.returncode != 0 or proc.stderr.strip() or sorted(results) != sorted(copies.values()):
        raise LintError("action-validator exited %d: %r" % (proc.returncode, proc.stderr[:500]))
    return {path: results[copy] for path, copy in copies.items()}


def action_validator(path):
    """action-validator's errors for one file (empty when it is valid)."""
    return action_validator_many([path])[path]


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
    return lint_all([path], {path: labels})[0][1]


def _problems(path, text, actionlint_found, action_validator_errors, zizmor_found):
    """The lines of problems() for one file, from what each validator found in it (zizmor's findings,
    or the LintError of its run)."""
    out = []
    src = text.splitlines()
    for fnd in actionlint_found:
        out.append("%s:%d:%d: actionlint [%s] %s" % (path, fnd["line"], fnd["column"], fnd["kind"], fnd["message"]))
        if 0 < fnd["line"] <= len(src):
            out.append("    | " + src[fnd["line"] - 1])
    doc = _validated(path, text, action_validator_errors, out)
    if doc is None:
        return out
    try:
        if isinstance(zizmor_found, LintError):
            raise zizmor_found
        found = zizmor_found
        explained = auditor_explained()
    except LintError as e:
        found = []
        out.append("%s: %s" % (path, e))
    token_steps = token_publish_steps(doc)
    for fnd in found:
        if fnd["ident"] == "use-trusted-publishing" and _zizmor_step(fnd) in token_steps:
            token_steps.discard(_zizmor_step(fnd))
            continue
        if fnd["ident"] in explained and _EXPLAINED[fnd["ident"]](doc, text.encode("utf-8"), fnd):
            continue
        if fnd["ident"] == "self-repository" and _generated_local_action(fnd):
            continue
        out.append(_zizmor_line(path, fnd))
    for job_id, n in sorted(token_steps):
        out.append("%s: job %s step %d publishes with a token, and zizmor did not report use-trusted-publishing"
                   % (path, job_id, n + 1))
    for job_id, n, name, script in bash_scripts(doc):
        out += _shellcheck_lines(path, "job %s step %d%s" % (job_id, n, " (%s)" % name if name else ""), script)
    try:
        local = _local_actions(path, doc)
    except ghinline.InlineError as e:
        return out + ["%s: %s" % (path, e)]
    for action in local:
        out += action_problems(action)
    return out


def _local_actions(path, doc):
    """The action files of the local actions (`uses: ./DIR`) the workflow DOC at PATH uses."""
    if not any(str(s.get("uses", "")).startswith("./") for j in (doc.get("jobs") or {}).values()
               for s in j.get("steps") or []):
        return []
    return ghinline.actions(doc, ghinline.repo_of(path))


def _validated(path, text, action_validator_errors, out):
    """Appends action-validator's errors for a file to `out`, and returns the file's text loaded
    by PyYAML, or None when it cannot be loaded (said in `out`)."""
    for err in action_validator_errors:
        out.append("%s: action-validator %s" % (path, json.dumps(err, sort_keys=True)))
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        out.append("%s: PyYAML cannot load it: %s" % (path, str(e).replace("\n", " ")))
        return None


def _shellcheck_lines(path, where, script):
    out = []
    checked = placeholder(script)
    for c in shellcheck(checked):
        line = checked.splitlines()[c["line"] - 1] if c["line"] <= len(checked.splitlines()) else ""
        out.append("%s: %s: shellcheck SC%d (%s) line %d: %s\n    | %s"
                   % (path, where, c["code"], c["level"], c["line"], c["message"], line))
    return out


# action path -> (action-validator's errors, zizmor's findings), either a LintError, of the runs
# lint_all makes over all the files of a call, the workflows' local actions with them
_prefetched = {}


@functools.lru_cache(maxsize=None)
def action_problems(path):
    """Everything wrong with a local composite action a workflow uses (the generator writes them
    beside it): action-validator's action schema, zizmor at its auditor persona with no
    configuration (the action uses no other action), and shellcheck on each bash `run:` step."""
    out = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    errors, found = _prefetched.get(path) or (None, None)
    if errors is None:
        errors = action_validator(path)
    elif isinstance(errors, LintError):
        raise errors
    doc = _validated(path, text, errors, out)
    if doc is None:
        return tuple(out)
    try:
        if found is None:
            found = zizmor(path, "auditor", None)
        elif isinstance(found, LintError):
            raise found
        out += [_zizmor_line(path, f) for f in found]
    except LintError as e:
        out.append("%s: %s" % (path, e))
    for n, step in enumerate(((doc.get("runs") or {}).get("steps") or []), 1):
        if "run" in step:
            if str(step.get("shell", "")).split()[:1] != ["bash"]:
                out.append("%s: step %d runs in %r, not bash" % (path, n, step.get("shell")))
            out += _shellcheck_lines(path, "step %d" % n, str(step["run"]))
    return tuple(out)


def declared_labels(path):
    """The custom runner labels the repository of a workflow (.github/workflows/NAME) declares in
    its .github/actionlint.yaml, as actionlint reads them there; none without that file."""
    config = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))), "actionlint.yaml")
    try:
        with open(config, encoding="utf-8") as f:
            doc = yaml.safe_load(f) or {}
    except OSError:
        return ()
    return tuple((doc.get("self-hosted-runner") or {}).get("labels") or ())


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
    for path, found in lint_all(argv[1:], {path: declared_labels(path) for path in argv[1:]}):
        for line in found:
            print(line)
        bad |= bool(found)
    return 1 if bad else 0


def lint_all(paths, labels=None):
    """problems() of each path, as (path, problems) in the order given; `labels` maps a path to the
    custom runner labels expected in it; a LintError becomes a problem of its file (of each file of
    the validator's run that failed).  Each validator runs once over all the files (actionlint once
    per set of labels, zizmor once per configuration), not once a file: their start-up (node's and
    the validator's own) is most of the time a file takes."""
    labels = labels or {}
    files = {}
    for path in paths:
        key = os.path.abspath(path)
        if key not in files:
            with open(path, encoding="utf-8") as f:
                files[key] = f.read()
    groups, configs, actions = {}, {}, []
    for key, text in files.items():
        groups.setdefault(tuple(labels.get(key, labels.get(_given(paths, key), ()))), []).append(key)
        try:
            doc = yaml.safe_load(text)
            config = zizmor_mode(doc)
        except yaml.YAMLError:
            continue  # _problems says so, and zizmor does not run
        configs.setdefault(json.dumps(config, sort_keys=True), []).append(key)
        # the local actions each workflow uses go through the same runs of action-validator and of
        # zizmor (with no configuration) as the workflows; action_problems() reads their verdicts
        try:
            actions += [a for a in _local_actions(key, doc) if a not in actions and a not in files and
                        a not in _prefetched and os.path.isfile(a)]
        except (ghinline.InlineError, AttributeError, TypeError):
            pass  # _problems says what is wrong with the workflow
    configs.setdefault("null", []).extend(actions)

    def guarded(run, keys, *args):
        try:
            return run(keys, *args)
        except LintError as e:
            return {key: e for key in keys}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        runs = [pool.submit(guarded, actionlint_many, keys, group) for group, keys in groups.items()]
        runs.append(pool.submit(guarded, action_validator_many, list(files) + actions))
        runs += [pool.submit(guarded, zizmor_many, keys, "auditor", json.loads(config)) for config, keys in configs.items()]
        results = [r.result() for r in runs]
    actionlint_of, action_validator_of, zizmor_of = {}, {}, {}
    for result in results[:len(groups)]:
        actionlint_of.update(result)
    action_validator_of = results[len(groups)]
    for result in results[len(groups) + 1:]:
        zizmor_of.update(result)
    for a in actions:
        _prefetched[a] = (action_validator_of[a], zizmor_of[a])

    def one(key):
        first = [r for r in (actionlint_of[key], action_validator_of[key]) if isinstance(r, LintError)]
        if first:
            return ["%s: %s" % (key, first[0])]
        try:
            return _problems(key, files[key], actionlint_of[key], action_validator_of[key], zizmor_of.get(key, []))
        except LintError as e:
            return ["%s: %s" % (key, e)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        done = dict(zip(files, pool.map(one, files)))
    return [(path, done[os.path.abspath(path)]) for path in paths]


def _given(paths, key):
    """The path of `paths` given for the absolute path `key`."""
    return next((p for p in paths if os.path.abspath(p) == key), key)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
