#!/usr/bin/env python3
"""replay-github.py — runs one Linux job of a generated GitHub Actions workflow on this machine.

usage: replay-github.py WORKFLOW JOB [MATRIX-ID]

The job's steps run in order in the current directory, a fresh clone of the repository, as the
runner would run them, with the job's and each step's `env:` and the entry MATRIX-ID of its
`strategy.matrix.include` (`${{ matrix.NAME }}`, `${{ github.ref_name }}`, `${{ github.repository }}`,
`${{ github.sha }}` and `${{ github.server_url }}` from GITHUB_REF_NAME, GITHUB_REPOSITORY, GITHUB_SHA
and GITHUB_SERVER_URL, and `${{ github.token }}`, a placeholder, are the expressions replaced, and
`startsWith(github.ref, '...')` and its negation are evaluated against GITHUB_REF; any other one in
a value the replay uses is an error).  GITHUB_REF is `refs/tags/replay` unless set: the job runs as
a tag's build, the one that publishes, where the caches of a build (sccache, cargo's registry,
`actions/cache`) are off, so they are not replayed.  What it does per step:

- `uses: ./DIR`, a local composite action of one bash `run:` step (those `wheelmatrix generate`
  writes) — its script, run as a `run:` step with the calling step's env (tests/helpers/ghinline.py);
- `run:` — bash -e -o pipefail, as `defaults.run.shell: bash` says, with GITHUB_WORKSPACE and
  RUNNER_TEMP set, and GITHUB_ENV a fresh file whose `NAME=value` and `NAME<<DELIMITER` entries
  are then set for the steps after it, as the runner does;
- `actions/checkout` — nothing: the directory is the checkout;
- `actions/setup-python` — checks that `python` on PATH is the version the step asks for; with
  WM_REPLAY_PYTHON (a Python interpreter, whose directory holds `python` and `pip`) that one
  replaces the version asked for (said on stderr): its directory goes first on PATH for the steps
  after it;
- `PyO3/maturin-action` — `maturin COMMAND ARGS` in `working-directory`, adding `--target` and
  `--compatibility manylinux_X` as the action does for `build`, after running
  `before-script-linux` with bash; checks that `maturin --version` is `maturin-version`;
- `actions/upload-artifact` — checks that `path` matches a file (`if-no-files-found: error`); with
  WM_REPLAY_ARTIFACTS, copies the files into the artifact store as the artifact `name` (an artifact
  of that name already there is an error, as it is for the action without `overwrite`);
- `actions/attest` — checks that `subject-path` matches a file; no attestation
  is made (said on stderr);
- `gh release create TAG --repo R --target SHA --title T --notes N FILE...` in a `run:` script
  (a `gh` on PATH; any other use of gh is an error) — checks GH_TOKEN is set, R is GITHUB_REPOSITORY
  and SHA GITHUB_SHA, and copies the files where WM_REPLAY_RELEASES (the directory served as
  GITHUB_SERVER_URL) serves R/releases/download/TAG/; a release of that tag already there is an
  error, as it is for gh;
- `actions/download-artifact` — copies the artifacts of WM_REPLAY_ARTIFACTS (a directory holding
  one directory per artifact, named as the artifact) that its `name` or `pattern` selects into
  `path` (each into `path/<artifact>` when a pattern is not merged, as the action does);
- `actions/configure-pages` — its outputs `base_url`, `origin`, `host` and `base_path` are those of
  WM_REPLAY_PAGES_URL (the Pages site's URL), and `${{ steps.<id>.outputs.<name> }}` reads them
  in the steps after it;
- `actions/upload-pages-artifact` — checks that `path` is a directory and copies its contents into
  WM_REPLAY_PAGES_DIR, where the test serves them.

A job runs on an `ubuntu-*` label, or on the labels WM_REPLAY_LINUX_RUNNER names (a list
space-separated): a runner of one's own, a Linux machine as this one is; any other is an error.

What it does not emulate, and says so on stderr: containers (maturin-action's manylinux
container and the `docker run` of a build that repairs its wheel there run on this machine:
`docker run ... IMAGE bash -s` becomes `bash -s` in the checkout, and the manylinux level
becomes WM_REPLAY_MANYLINUX, this machine's, since a wheel built here links a newer glibc), the
toolkit recipes of a container build (WM_BEFORE_SCRIPT is emptied: they install with dnf into an
AlmaLinux image), other operating systems, sccache and every other action (an error).
"""

import atexit
import fnmatch
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.parse

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ghinline  # noqa: E402

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def fail(msg):
    sys.exit("replay-github.py: " + msg)


def note(msg):
    print("replay: " + msg, file=sys.stderr, flush=True)


GITHUB = {"github.ref_name": "GITHUB_REF_NAME", "github.repository": "GITHUB_REPOSITORY",
          "github.sha": "GITHUB_SHA", "github.server_url": "GITHUB_SERVER_URL"}
OUTPUTS = {}   # "steps.<id>.outputs.<name>" -> value, of the steps replayed so far


def substitute(value, matrix):
    """`value` with ${{ matrix.NAME }} (and a replayed step's output) replaced; any other expression is an error."""
    if not isinstance(value, str):
        return "true" if value is True else "false" if value is False else str(value)

    def one(m):
        expr = m.group(1)
        if expr.startswith("matrix.") and expr[7:] in matrix:
            v = matrix[expr[7:]]
            return "true" if v is True else "false" if v is False else str(v)
        if expr in OUTPUTS:
            return OUTPUTS[expr]
        if expr == "github.token":
            return "replay-token"
        ref = re.fullmatch(r"(!?)startsWith\(github\.ref, '([^']*)'\)", expr)
        if ref:
            holds = os.environ.get("GITHUB_REF", "refs/tags/replay").startswith(ref.group(2))
            return "true" if holds != (ref.group(1) == "!") else "false"
        if expr in GITHUB:
            return os.environ.get(GITHUB[expr]) or fail(f"${{{{ {expr} }}}}: {GITHUB[expr]} is not set")
        fail(f"an expression the replay cannot evaluate: ${{{{ {expr} }}}}")
    return EXPR.sub(one, value)


def read_env_file(path):
    """A $GITHUB_ENV file as the runner reads it: NAME=value lines, and NAME<<DELIMITER ... DELIMITER blocks."""
    out, lines = {}, open(path).read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            if i == len(lines):
                fail(f"GITHUB_ENV: no closing delimiter {delim!r} for {name}")
            i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        else:
            fail(f"GITHUB_ENV: a line that is neither NAME=value nor NAME<<DELIMITER: {line!r}")
    return out


def run_bash(script, env, cwd):
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script)
    try:
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", f.name], env=env, cwd=cwd).returncode
    finally:
        os.unlink(f.name)


DOCKER_SHIM = r'''#!/bin/bash
# docker: `docker run [options] IMAGE CMD...` runs CMD here, in the checkout (replay-github.py)
[ "$1" = run ] || { echo "docker shim: only 'docker run' is replayed" >&2; exit 2; }
shift
while [ $# -gt 0 ]; do
	case $1 in
	--rm|-i) shift ;;
	--volume|--workdir) shift 2 ;;
	--env)
		# a variable passed by name must be one the step has set
		[[ ${2:-} =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && [ -n "${!2+set}" ] ||
			{ echo "docker shim: --env '${2:-}' is not a variable of the step" >&2; exit 2; }
		shift 2 ;;
	-*) echo "docker shim: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
echo "replay: the image $1 is not run: its script runs on this machine" >&2
shift
exec "$@"
'''

GH_SHIM = r'''#!/bin/bash
# gh: `gh release create TAG --repo R --target SHA --title T --notes N FILE...` copies FILE... where
# WM_REPLAY_RELEASES serves R/releases/download/TAG/ (replay-github.py)
set -eu
gh_fail() { echo "gh shim: $*" >&2; exit 2; }
[ "${1:-}" = release ] && [ "${2:-}" = create ] || gh_fail "only 'gh release create' is replayed: $*"
shift 2
[ $# -gt 0 ] && [[ $1 != -* ]] || gh_fail "no tag"
tag=$1
shift
repo= target= title= notes=
while [ $# -gt 0 ]; do
	case $1 in
	--repo) repo=${2?}; shift 2 ;;
	--target) target=${2?}; shift 2 ;;
	--title) title=${2?}; shift 2 ;;
	--notes) notes=${2?}; shift 2 ;;
	-*) gh_fail "unknown option $1" ;;
	*) break ;;
	esac
done
[ -n "${GH_TOKEN:-}" ] || gh_fail "GH_TOKEN is not set"
[ "$repo" = "${GITHUB_REPOSITORY:?}" ] || gh_fail "--repo '$repo', not GITHUB_REPOSITORY $GITHUB_REPOSITORY"
[ "$target" = "${GITHUB_SHA:?}" ] || gh_fail "--target '$target', not GITHUB_SHA $GITHUB_SHA"
[ -n "$title" ] && [ -n "$notes" ] || gh_fail "no --title or --notes"
[ $# -gt 0 ] || gh_fail "no file to upload"
dir=${WM_REPLAY_RELEASES:?}/$repo/releases/download/$tag
[ ! -e "$dir" ] || gh_fail "a release with the same tag name already exists: $tag"
mkdir -p "$dir"
for f in "$@"; do
	[ -f "$f" ] || gh_fail "$f: no such file"
	cp "$f" "$dir/"
done
printf '%s\n' "$title" >"$dir.title"
printf '%s\n' "$notes" >"$dir.notes"
echo "replay: release $tag of $repo: $*" >&2
echo "${GITHUB_SERVER_URL:?}/$repo/releases/tag/$tag"
'''


def main():
    if len(sys.argv) not in (3, 4):
        fail("usage: replay-github.py WORKFLOW JOB [MATRIX-ID]")
    # a step that uses a local composite action the generator wrote (uses: ./DIR) runs its script
    # as the runner does, with the step's env (tests/helpers/ghinline.py)
    wf = yaml.safe_load(open(sys.argv[1]))
    job = wf["jobs"].get(sys.argv[2]) or fail(f"no job {sys.argv[2]}")
    try:
        job = ghinline.inline({"jobs": {sys.argv[2]: job}}, os.getcwd())["jobs"][sys.argv[2]]
    except ghinline.InlineError as e:
        fail(str(e))
    matrix = {}
    include = job.get("strategy", {}).get("matrix", {}).get("include")
    if include is not None:
        want = sys.argv[3] if len(sys.argv) == 4 else None
        entries = [e for e in include if e.get("id") == want]
        if len(entries) != 1:
            fail(f"job {sys.argv[2]} has no matrix entry {want!r}")
        matrix = entries[0]
    if wf.get("defaults", {}).get("run", {}).get("shell") != "bash":
        fail("the workflow's run: steps are not bash")
    workspace = os.getcwd()
    # RUNNER_TEMP and the shims' directory go when the replay ends, whether the job passed, failed
    # or was stopped (SIGTERM and SIGHUP end it as SIGINT does, through the exit handlers)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    runner_temp = tempfile.mkdtemp(prefix="runner-temp.")
    atexit.register(shutil.rmtree, runner_temp, ignore_errors=True)
    shim = tempfile.mkdtemp(prefix="docker-shim.")
    atexit.register(shutil.rmtree, shim, ignore_errors=True)
    with open(os.path.join(shim, "docker"), "w") as f:
        f.write(DOCKER_SHIM)
    os.chmod(os.path.join(shim, "docker"), 0o755)
    with open(os.path.join(shim, "gh"), "w") as f:
        f.write(GH_SHIM)
    os.chmod(os.path.join(shim, "gh"), 0o755)
    manylinux = os.environ.get("WM_REPLAY_MANYLINUX")
    if not manylinux and any("docker run" in str(s.get("run", "")) or str(s.get("uses", "")).startswith("PyO3/maturin-action")
                             for s in job["steps"]):
        fail("WM_REPLAY_MANYLINUX is not set (this machine's manylinux level)")
    base = dict(os.environ, GITHUB_WORKSPACE=workspace, RUNNER_TEMP=runner_temp, CI="true",
                GITHUB_REF=os.environ.get("GITHUB_REF", "refs/tags/replay"),
                PATH=shim + os.pathsep + os.environ["PATH"])
    for k, v in (job.get("env") or {}).items():
        base[k] = substitute(v, matrix)
    runs_on = job["runs-on"]
    runs_on = " ".join(runs_on) if isinstance(runs_on, list) else substitute(runs_on, matrix)
    if not runs_on.startswith("ubuntu-") and runs_on != os.environ.get("WM_REPLAY_LINUX_RUNNER"):
        fail(f"job {sys.argv[2]} runs on {runs_on}: only Linux jobs are replayed")
    for i, step in enumerate(job["steps"], 1):
        name = step.get("name") or step.get("uses") or "run"
        env = dict(base)
        for k, v in (step.get("env") or {}).items():
            env[k] = substitute(v, matrix)
        if "if" in step and substitute("${{ " + step["if"] + " }}" if "${{" not in step["if"] else step["if"], matrix) != "true":
            note(f"step {i} ({name}): skipped (if: {step['if']})")
            continue
        note(f"step {i}: {name}")
        uses = step.get("uses", "")
        action = uses.split("@")[0]
        # sccache (off on tags: an expression over github.ref) is not replayed
        with_ = {k: substitute(v, matrix) for k, v in (step.get("with") or {}).items() if k != "sccache"}
        if "run" in step:
            if "WM_BEFORE_SCRIPT" in env and "docker run" in step["run"]:
                note("the toolkit recipe in WM_BEFORE_SCRIPT is not run (it installs into the AlmaLinux image)")
                env["WM_BEFORE_SCRIPT"] = ""
            if "WM_COMPATIBILITY" in env and "docker run" in step["run"]:
                note(f"manylinux level {env['WM_COMPATIBILITY']} replaced by {manylinux}")
                env["WM_COMPATIBILITY"] = manylinux
            env["GITHUB_ENV"] = os.path.join(runner_temp, f"github-env-{i}")
            open(env["GITHUB_ENV"], "w").close()
            if run_bash(step["run"], env, workspace) != 0:
                fail(f"step {i} ({name}) failed")
            for k, v in read_env_file(env["GITHUB_ENV"]).items():
                note(f"step {i}: {k} set for the steps after it")
                base[k] = v
        elif action == "actions/checkout":
            pass
        elif action == "actions/setup-python":
            want = with_["python-version"]
            if os.environ.get("WM_REPLAY_PYTHON"):
                python = os.environ["WM_REPLAY_PYTHON"]
                base["PATH"] = os.path.dirname(python) + os.pathsep + base["PATH"]
                env["PATH"] = base["PATH"]
                if not os.path.samefile(shutil.which("python", path=env["PATH"]) or python, python):
                    fail(f"step {i}: python on PATH is not {python}")
                note(f"setup-python {want} replaced by {python}, " +
                     subprocess.run([python, "--version"], capture_output=True, text=True).stdout.strip())
                continue
            got = subprocess.run(["python", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                 env=env, capture_output=True, text=True).stdout.strip()
            if got != want:
                fail(f"step {i}: setup-python asks for {want}, and python on PATH is {got}")
        elif action == "PyO3/maturin-action":
            version = subprocess.run(["maturin", "--version"], env=env, capture_output=True, text=True).stdout.strip()
            if version != "maturin " + with_.get("maturin-version", ""):
                fail(f"step {i}: the step pins maturin {with_.get('maturin-version')}, PATH has '{version}'")
            command = with_.get("command", "build")
            args = [command] + shlex.split(with_.get("args", ""))
            if command in ("build", "publish"):
                if with_.get("manylinux") not in (None, "", "auto", "off"):
                    note(f"manylinux {with_['manylinux']} replaced by {manylinux}")
                    args += ["--compatibility", manylinux]
                if with_.get("target"):
                    args += ["--target", with_["target"]]
            for opt in shlex.split(with_.get("docker-options", "")):
                if opt != "--env" and opt not in env:
                    fail(f"step {i}: docker-options passes {opt}, which the job does not set")
            cwd = os.path.join(workspace, with_.get("working-directory", "."))
            if with_.get("before-script-linux"):
                if run_bash(with_["before-script-linux"], env, cwd) != 0:
                    fail(f"step {i}: before-script-linux failed")
            note("maturin " + " ".join(shlex.quote(a) for a in args) + f" (in {os.path.relpath(cwd, workspace)})")
            if subprocess.run(["maturin"] + args, env=env, cwd=cwd).returncode != 0:
                fail(f"step {i} ({name}): maturin failed")
        elif action == "actions/upload-artifact":
            files = [f for p in with_["path"].split("\n") if p for f in glob.glob(os.path.join(workspace, p))]
            if not files and with_.get("if-no-files-found") == "error":
                fail(f"step {i}: no file matches {with_['path']}")
            note(f"artifact {with_.get('name')}: " + " ".join(os.path.relpath(f, workspace) for f in sorted(files)))
            store = os.environ.get("WM_REPLAY_ARTIFACTS")
            if store:
                dest = os.path.join(store, with_["name"])
                if os.path.exists(dest):
                    fail(f"step {i}: an artifact {with_['name']} exists already")
                os.makedirs(dest)
                for f in files:
                    if not os.path.isfile(f):
                        fail(f"step {i}: {os.path.relpath(f, workspace)} is not a file")
                    shutil.copy(f, os.path.join(dest, os.path.basename(f)))
        elif action == "actions/attest":
            files = [f for p in with_["subject-path"].split("\n") if p for f in glob.glob(os.path.join(workspace, p))]
            if not files:
                fail(f"step {i}: no file matches {with_['subject-path']!r}")
            note("no provenance attested (not replayed) for: " + " ".join(os.path.relpath(f, workspace) for f in sorted(files)))
        elif action == "actions/download-artifact":
            store = os.environ.get("WM_REPLAY_ARTIFACTS") or fail(f"step {i}: WM_REPLAY_ARTIFACTS is not set")
            if "name" in with_:
                chosen, merge = [with_["name"]], True
            else:
                chosen = sorted(a for a in os.listdir(store) if fnmatch.fnmatchcase(a, with_.get("pattern", "*")))
                merge = with_.get("merge-multiple") == "true"
            if not chosen or not all(os.path.isdir(os.path.join(store, a)) for a in chosen):
                fail(f"step {i}: no artifact {with_.get('name') or with_.get('pattern')} in {store}")
            for a in chosen:
                dest = os.path.join(workspace, with_.get("path", "."), "" if merge else a)
                os.makedirs(dest, exist_ok=True)
                for f in sorted(os.listdir(os.path.join(store, a))):
                    shutil.copy(os.path.join(store, a, f), os.path.join(dest, f))
                note(f"artifact {a} into {os.path.relpath(dest, workspace)}: " + " ".join(sorted(os.listdir(os.path.join(store, a)))))
        elif action == "actions/configure-pages":
            url = os.environ.get("WM_REPLAY_PAGES_URL") or fail(f"step {i}: WM_REPLAY_PAGES_URL is not set")
            parts = urllib.parse.urlsplit(url)
            outputs = {"base_url": url, "origin": f"{parts.scheme}://{parts.netloc}", "host": parts.netloc,
                       "base_path": parts.path.rstrip("/")}
            for k, v in outputs.items():
                if step.get("id"):
                    OUTPUTS[f"steps.{step['id']}.outputs.{k}"] = v
            note(f"configure-pages: base_url {url}")
        elif action == "actions/upload-pages-artifact":
            site = os.path.join(workspace, with_.get("path", "_site/"))
            out = os.environ.get("WM_REPLAY_PAGES_DIR") or fail(f"step {i}: WM_REPLAY_PAGES_DIR is not set")
            if not os.path.isdir(site):
                fail(f"step {i}: {with_.get('path')} is not a directory")
            shutil.copytree(site, out, dirs_exist_ok=True)
            note(f"the Pages site {with_.get('path')} copied to {out}")
        else:
            fail(f"step {i}: the action {uses} is not replayed")
    print(f"replayed {sys.argv[2]} {matrix.get('id', '')}".rstrip())


if __name__ == "__main__":
    main()
