#!/usr/bin/env bash
# t-gitlab-variables.sh — every variable of every generated GitLab job reaches the job's environment byte for byte as written.
#
# GitLab expands `$NAME`, `${NAME}` and `$$` in `variables:`, so the one writer of a GitLab
# variable (lib/emit/gitlab.c) doubles every '$'.  Four matrices, one per strategy (rename, index,
# meta, variants), each over the llm-rs fixture moved below a directory whose name holds what the
# path grammar allows (blanks, quotes, '%', '#', ':', non-ASCII), with env values holding '$',
# '$$', '${VAR}', '$(...)', '%VAR%', '%%', quotes, backslashes, newlines, blanks and non-ASCII
# (the backend's, and an include's own for one job), are generated; then gitlab-ci-local (nobody
# here wrote it) runs every job of each file, every parallel:matrix instance, on a tag, with each
# job's own `variables:`, `extends:` and `parallel:` as generated and its scripts replaced by one
# line that writes `env -0` to a file.  For each instance, every variable the file gives it:
#   - an env value of the matrix, the project's directory, pyproject.toml's and Cargo.toml's paths
#     are exactly the text the matrix gives (not the text the file holds);
#   - WM_TAG is the tag (the template's own `$CI_COMMIT_TAG`, which GitLab is meant to expand);
#   - every other value is exactly what the file says, and holds no '$' that GitLab could expand
#     (so any value that carries a '$' is one of the above).
# Every instance the file defines must have run once.  A fifth matrix puts '$CI_JOB_TOKEN',
# '${CI_PROJECT_DIR}' and '$$' in the project's directory: the path grammar refuses it (exit 2);
# were it accepted, its jobs are run and checked the same way.
# heavy: the generated pipeline's jobs run by gitlab-ci-local
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"
need base64 "apt-get install coreutils"

"$py" - "$WM" "$ROOT" "$tmp" "$glci" <<'PY' || fail "the GitLab variables (above)"
import copy, json, os, shutil, subprocess, sys
import yaml
wm, root, tmp, glci = sys.argv[1:]
TAG = "v0.2.15"
PYDIR = "py dir/it's \"q\" %x% #1: é"
HOSTILE = {
    "TOKEN_COPY": "$CI_JOB_TOKEN",
    "DOUBLED": "a$$b$$$c",
    "BRACED": "${CI_COMMIT_REF_NAME}x${WM_PYTHON}",
    "LONE": "5$",
    "SUBSHELL": "$(touch pwned) `id`",
    "PERCENT": "%PATH% %% %CI_JOB_TOKEN%",
    "QUOTES": "it's \"q\" \\n \\$HOME",
    "LINES": "one\n  two $HOME\n\nthree\n",
    "BLANKS": "  lead and trail  ",
    "UNICODE": "é ∑ 漢字 $é",
}
OWN = {"TOKEN_COPY": "$$CI_JOB_TOKEN ${CI_JOB_TOKEN}", "OWN_ONLY": "%%$$%"}
STRATEGIES = {
    "rename": "distribution: {strategy: rename}\n",
    "index": "distribution: {strategy: index, index: {url: https://owner.gitlab.io/llm-rs/whl}}\n",
    "meta": "distribution: {strategy: meta}\n",
    "variants": ("distribution:\n  strategy: variants\n  index: {url: https://owner.gitlab.io/llm-rs/variants}\n"
                 "  providers:\n    nvidia: {requires: [\"nvidia-variant-provider>=0.0.1,<1.0.0\"]}\n"),
}


def matrix(strategy, pydir):
    variant = ("\n    variant: {properties: [\"nvidia :: cuda_version_lower_bound :: 12.4\"], label: cu124}"
               if strategy == "variants" else "")
    env = json.dumps(HOSTILE, ensure_ascii=False)
    return ("wheelmatrix: 1\nproject: {name: llm-rs, module: llm_rs, pyproject: %s}\n"
            "python: {abi3: \"3.8\"}\nplatforms: [linux-x86_64, macos-arm64, windows-x86_64]\nbackends:\n"
            "  cuda:\n    features: [cublas]\n    platforms: [linux-x86_64]\n    env: %s%s\n"
            "  cpu:\n    default: true\n    env: %s\n"
            "include:\n  - {backend: cpu, platform: linux-x86_64, python: \"3.13t\", env: %s}\n"
            "%sci: {gitlab: {}}\n"
            % (json.dumps(pydir + "/pyproject.toml", ensure_ascii=False), env, variant, env,
               json.dumps(OWN, ensure_ascii=False), STRATEGIES[strategy]))


def resolve(doc, name):
    """A job's variables after `extends:` (GitLab merges mappings, the job's own winning)."""
    job = doc[name]
    out = {}
    bases = job.get("extends") or []
    for base in [bases] if isinstance(bases, str) else bases:
        out.update(resolve(doc, base))
    out.update(job.get("variables") or {})
    return out


def unescape(v):
    """What GitLab gives for a value with no variable in it: `$$` is '$'."""
    return v.replace("$$", "$")


def expected(var, pydir, own):
    """The value the matrix gives `var` in a job (own: its include's env, or None), or None."""
    paths = {"WM_PROJECT_DIR": pydir, "WM_PYPROJECT": pydir + "/pyproject.toml", "WM_MANIFEST": pydir + "/Cargo.toml"}
    if var in paths:
        return paths[var]
    if own is not None and var in own:
        return own[var]
    return HOSTILE.get(var)


failures, ran = [], 0
src = os.path.join(root, "tests", "fixtures", "llm-rs")


def probe(case, strategy, pydir):
    """Generates the case's matrix, runs every job of its GitLab file, and checks what arrived."""
    global ran
    repo = os.path.join(tmp, case)
    os.makedirs(os.path.join(repo, pydir))
    for f in ("pyproject.toml", "Cargo.toml", "Cargo.lock", "src", "llm_rs"):
        (shutil.copytree if os.path.isdir(os.path.join(src, f)) else shutil.copy)(
            os.path.join(src, f), os.path.join(repo, pydir, f))
    with open(os.path.join(repo, "wheelmatrix.yaml"), "w", encoding="utf-8") as f:
        f.write(matrix(strategy, pydir))
    g = subprocess.run([wm, "-q", "-C", repo, "generate"], capture_output=True, text=True)
    if "$" in pydir:
        # the path grammar refuses it; were it written, what follows shows what GitLab makes of it
        if g.returncode == 2 and "it holds '$'" in g.stderr:
            return
        failures.append("%s: a path with '$' is not refused: generate exited %d" % (case, g.returncode))
    if g.returncode != 0:
        failures.append("%s: generate exited %d:\n%s" % (case, g.returncode, g.stderr))
        return
    with open(os.path.join(repo, ".gitlab-ci.yml"), encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    # the probe: the file's jobs with their variables, extends and parallel as they are, scripts replaced
    probe, instances = {}, []
    for name, job in doc.items():
        if not isinstance(job, dict) or name in ("default", "variables", "workflow"):
            probe[name] = copy.deepcopy(job)
            continue
        keep = {k: copy.deepcopy(v) for k, v in job.items() if k in ("extends", "variables", "parallel", "stage", "rules")}
        if not name.startswith("."):
            keep["script"] = ['f=$(mktemp "$WM_PROBE_DIR/job.XXXXXX") && { printf "%s\\0" "$CI_JOB_NAME"; env -0; } >"$f"']
            for e in (job.get("parallel") or {}).get("matrix") or [{}]:
                instances.append((name, e))
        probe[name] = keep
    out = os.path.join(tmp, "env-" + case)
    os.mkdir(out)
    with open(os.path.join(repo, ".gitlab-ci.yml"), "w", encoding="utf-8") as f:
        yaml.safe_dump(probe, f, allow_unicode=True, sort_keys=False)
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-q", "-m", "probe"],
                ["git", "remote", "add", "origin", "https://gitlab.example/a/llm-rs.git"]):
        subprocess.run(cmd, cwd=repo, check=True)
    log = os.path.join(tmp, "log-" + case)
    with open(log, "w") as f:
        r = subprocess.run([glci, "--force-shell-executor", "--variable", "CI_COMMIT_TAG=" + TAG,
                            "--variable", "WM_PROBE_DIR=" + out], cwd=repo, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        with open(log, encoding="utf-8", errors="replace") as f:
            failures.append("%s: gitlab-ci-local exited %d:\n%s" % (case, r.returncode, f.read()[-3000:]))
        return
    arrived = {}
    for fn in os.listdir(out):
        with open(os.path.join(out, fn), "rb") as f:
            parts = f.read().split(b"\0")
        env = dict(p.decode("utf-8").split("=", 1) for p in parts[1:] if p)
        arrived.setdefault(parts[0].decode("utf-8"), []).append(env)
    for name, entry in instances:
        written = resolve(doc, name)
        written.update(entry)
        label = name + (" [%s]" % entry["WM_JOB_ID"] if "WM_JOB_ID" in entry else "")
        got = [e for n, envs in arrived.items() if n == name or n.startswith(name + ": [")
               for e in envs if e.get("WM_JOB_ID") == written.get("WM_JOB_ID")]
        if len(got) != 1:
            failures.append("%s: %s ran %d times, not once" % (case, label, len(got)))
            continue
        env, ran = got[0], ran + 1
        own = OWN if name.endswith("-cpu-linux-x86_64-cp313t") else None  # its build and smoke test
        for var, value in written.items():
            value = str(value)
            if var == "WM_TAG":
                want = TAG
            elif expected(var, pydir, own) is not None:
                want = expected(var, pydir, own)
            else:
                want = value
                if "$" in value:
                    failures.append("%s: %s's %s = %r holds a '$' that is not the matrix's" % (case, label, var, value))
            if env.get(var) != want:
                failures.append("%s: %s's %s arrived as %r, the matrix says %r (the file: %r)"
                                % (case, label, var, env.get(var), want, value))
        for var in set(HOSTILE) | set(OWN if own else {}):
            if name.startswith("build-") and var not in written:
                failures.append("%s: %s has no %s" % (case, label, var))


for strategy in STRATEGIES:
    probe(strategy, strategy, PYDIR)
probe("dollar-paths", "rename", "py$CI_JOB_TOKEN ${CI_PROJECT_DIR} $$x")
for f in failures:
    print("FAIL " + f)
print("%d job instances checked, %d failures" % (ran, len(failures)))
sys.exit(1 if failures or ran < 20 else 0)
PY
finish
