#!/usr/bin/env bash
# t-path-grammar.sh — every path from the matrix file or the project's files has one grammar: no '$', no control or format character.
#
# The paths (project.pyproject, project.manifest, ci.*.path, and pyproject.toml's
# [tool.maturin].manifest-path and python-source) reach the CI files as they are: GitHub's
# `working-directory:` and env values, where a `${{ ... }}` is evaluated, and GitLab's job
# variables, where `$CI_JOB_TOKEN` is expanded.  So:
#   1. each character Python's unicodedata (nobody here wrote it) puts in Unicode's Cc, Cf, Zl or
#      Zp, written as an escape in a matrix path (YAML "\U...") and in python-source (TOML
#      "\U..."), is refused: exit 2, the first error at the value's line and inside it, naming
#      the code point (U+0000 by name: the YAML reader refuses a NUL in any string); and the
#      assigned characters next to each such range (other categories) are accepted;
#   2. '$', '${{', '${VAR}' and '$$' are refused in every path, each at its own column, and the
#      manifest path, python-source and module name of pyproject.toml at theirs (a module name is
#      dotted identifiers: it reaches WM_MODULE); an absolute or '..' manifest path is refused at
#      its value;
#   3. a path with the characters the grammar allows (blanks, quotes, '%', '#', ':', non-ASCII)
#      comes out intact: as PyYAML reads the generated files, GitHub's working-directory,
#      WM_PROJECT_DIR, WM_PYPROJECT and WM_MANIFEST, and GitLab's WM_PROJECT_DIR, WM_PYPROJECT and
#      WM_MANIFEST are the paths the matrix and pyproject.toml give (gitlab-ci-local's reading of
#      the GitLab variables is t-gitlab-variables).
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

"$py" - "$WM" "$tmp" <<'PY' || fail "the path grammar (above)"
import os, re, subprocess, sys, unicodedata
import yaml
wm, tmp = sys.argv[1:]
failures = []

PYPROJECT = ('[build-system]\nrequires = ["maturin>=1.0,<2.0"]\nbuild-backend = "maturin"\n\n'
             '[project]\nname = "paths"\nversion = "0.1.0"\n\n[tool.maturin]\n')
CARGO = '[package]\nname = "paths"\nversion = "0.1.0"\n\n[lib]\ncrate-type = ["cdylib"]\n'


def run(repo, *args):
    return subprocess.run([wm, "-q", "-C", repo] + list(args), capture_output=True)


def repo_with(name, matrix, pyproject=None, files=()):
    repo = os.path.join(tmp, name)
    os.makedirs(repo)
    with open(os.path.join(repo, "wheelmatrix.yaml"), "w", encoding="utf-8") as f:
        f.write(matrix)
    if pyproject is not None:
        with open(os.path.join(repo, "pyproject.toml"), "w", encoding="utf-8") as f:
            f.write(pyproject)
    for path, text in files:
        os.makedirs(os.path.dirname(os.path.join(repo, path)) or repo, exist_ok=True)
        with open(os.path.join(repo, path), "w", encoding="utf-8") as f:
            f.write(text)
    return repo


def refused(case, repo, file, line, col0, col1, names):
    """The first error is FILE:LINE:COL with COL in [col0, col1), naming one of `names`."""
    p = run(repo, "list")
    first = p.stderr.decode("utf-8", "replace").splitlines()[:1]
    m = re.match(r"(\S+):(\d+):(\d+): error: (.*)", first[0]) if first else None
    if p.returncode != 2:
        failures.append("%s: exit %d, not 2: %r" % (case, p.returncode, first))
    elif not m or m[1] != file or int(m[2]) != line or not col0 <= int(m[3]) < col1:
        failures.append("%s: the first error is not at %s:%d:%d-%d: %r" % (case, file, line, col0, col1 - 1, first))
    elif not any(n in m[4] for n in names):
        failures.append("%s: the error names none of %r: %r" % (case, names, m[4]))


def accepted(case, repo):
    p = run(repo, "list")
    if p.returncode != 0:
        failures.append("%s: exit %d: %r" % (case, p.returncode, p.stderr.decode("utf-8", "replace")[:300]))


def matrix_path(c):
    """A matrix whose GitHub path holds code point c as a YAML escape; (text, line, col0, col1)."""
    value = '".github/workflows/a\\U%08Xb.yml"' % c
    head = "wheelmatrix: 1\nproject: {name: paths}\nplatforms: [linux-x86_64]\nci:\n"
    line = "  github: {path: %s}\n" % value
    return head + line, 5, line.index(value) + 1, line.index(value) + 1 + len(value)


def toml_source(c):
    value = '"py\\U%08Xsrc"' % c
    line = "python-source = %s\n" % value
    return PYPROJECT + line, PYPROJECT.count("\n") + 1, line.index(value) + 1, line.index(value) + 1 + len(value)


# 1. the hidden characters, by Python's Unicode database
hidden = [c for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp")]
if len(hidden) < 200:
    failures.append("only %d hidden characters: the database is not Unicode's" % len(hidden))
shown = set()
for c in hidden:
    for n in (c - 1, c + 1):
        if 0 <= n < 0x110000 and n not in hidden and unicodedata.category(chr(n)) not in ("Cn", "Cs", "Co"):
            shown.add(n)
for c in hidden:
    names = ("NUL",) if c == 0 else ("U+%04X" % c,)
    text, line, col0, col1 = matrix_path(c)
    refused("U+%04X in ci.github.path" % c, repo_with("m%x" % c, text), "wheelmatrix.yaml", line, col0, col1, names)
    text, line, col0, col1 = toml_source(c)
    refused("U+%04X in python-source" % c,
            repo_with("t%x" % c, "wheelmatrix: 1\nplatforms: [linux-x86_64]\n", text, [("Cargo.toml", CARGO)]),
            "pyproject.toml", line, col0, col1, ("U+%04X" % c,))
for c in sorted(shown):
    text = matrix_path(c)[0]
    accepted("U+%04X (%s) in ci.github.path" % (c, unicodedata.category(chr(c))), repo_with("sm%x" % c, text))
    accepted("U+%04X (%s) in python-source" % (c, unicodedata.category(chr(c))),
             repo_with("st%x" % c, "wheelmatrix: 1\nplatforms: [linux-x86_64]\n", toml_source(c)[0],
                       [("Cargo.toml", CARGO)]))

# 2. '$' in every path, at its own column
E = "${{"
for n, (key, value) in enumerate([("pyproject", E + " github.head_ref }}/pyproject.toml"),
                                  ("manifest", "rust/$CI_JOB_TOKEN/Cargo.toml"),
                                  ("pyproject", "py/${CI_COMMIT_REF_NAME}/pyproject.toml"), ("manifest", "a$$b/Cargo.toml")]):
    line = "project: {name: paths, %s: '%s'}\n" % (key, value)
    col = line.index(value) + 1 + value.index("$")
    refused("%r in project.%s" % (value, key), repo_with("d%d" % n, "wheelmatrix: 1\n" + line +
            "platforms: [linux-x86_64]\n"), "wheelmatrix.yaml", 2, col, col + 1, (E,) if value.startswith(E) else ("'$'",))
for provider in ("github", "gitlab"):
    value = "ci/%s-$CI_JOB_TOKEN.yml" % provider
    line = "  %s: {path: %s}\n" % (provider, value)
    col = line.index("$") + 1
    refused("%r in ci.%s.path" % (value, provider), repo_with("d-ci-" + provider, "wheelmatrix: 1\nproject: {name: "
            "paths}\nplatforms: [linux-x86_64]\nci:\n" + line), "wheelmatrix.yaml", 5, col, col + 1, ("'$'",))
for n, (key, value, names, exact) in enumerate([
        ("manifest-path", "rust/$CI_JOB_TOKEN/Cargo.toml", ("'$'",), True),
        ("manifest-path", "rust/" + E + " github.head_ref }}/Cargo.toml", (E,), True),
        ("python-source", "python/${HOME}", ("'$'",), True),
        ("manifest-path", "rust/a\\u200dcb/Cargo.toml", ("U+200D",), False),
        ("manifest-path", "/etc/Cargo.toml", ("absolute",), False),
        ("manifest-path", "../../Cargo.toml", ("leaves the repository",), False),
        ("manifest-path", ".git/Cargo.toml", ("'.git'",), False),
        ("module-name", "llm_rs." + E + " github.event.issue.title }}", ("invalid module name",), False)]):
    line = '%s = "%s"\n' % (key, value)
    start = line.index('"') + 1
    col0 = start + 1 + value.index("$") if exact else start
    refused("%r in [tool.maturin].%s" % (value, key), repo_with("p%d" % n, "wheelmatrix: 1\nplatforms: [linux-x86_64]\n",
            PYPROJECT + line, [("Cargo.toml", CARGO)]), "pyproject.toml", PYPROJECT.count("\n") + 1, col0,
            col0 + 1 if exact else start + 1, names)

# 3. the characters the grammar allows come out intact in both CI files
pydir = "py dir/it's \"q\" %x% #1: é"
manifest = "rust %PATH%/Cargo.toml"
matrix = ("wheelmatrix: 1\nproject: {pyproject: %s, manifest: %s}\npython: {versions: [\"3.12\"]}\n"
          "platforms: [linux-x86_64]\nci: {github: {}, gitlab: {}}\n"
          % (yaml.safe_dump(pydir + "/pyproject.toml").split("\n")[0], yaml.safe_dump(manifest).split("\n")[0]))
repo = repo_with("intact", matrix, None, [(pydir + "/pyproject.toml", PYPROJECT), (manifest, CARGO)])
p = run(repo, "generate")
if p.returncode != 0:
    failures.append("intact: generate exited %d: %s" % (p.returncode, p.stderr.decode()[:500]))
else:
    want = {"WM_PROJECT_DIR": pydir, "WM_PYPROJECT": pydir + "/pyproject.toml", "WM_MANIFEST": manifest}
    with open(os.path.join(repo, ".github", "workflows", "wheels.yml"), encoding="utf-8") as f:
        gh = yaml.safe_load(f)
    seen = set()
    for name, job in gh["jobs"].items():
        for step in job.get("steps") or []:
            for k, v in (step.get("env") or {}).items():
                if k in want:
                    seen.add(k)
                    if v != want[k]:
                        failures.append("intact: GitHub %s %s is %r, not %r" % (name, k, v, want[k]))
            wd = (step.get("with") or {}).get("working-directory")
            if wd is not None:
                seen.add("working-directory")
                if wd != pydir:
                    failures.append("intact: GitHub %s working-directory is %r, not %r" % (name, wd, pydir))
    if seen != {"WM_PYPROJECT", "WM_MANIFEST", "working-directory"}:
        failures.append("intact: the workflow carries %s of the paths" % sorted(seen))
    with open(os.path.join(repo, ".gitlab-ci.yml"), encoding="utf-8") as f:
        gl = yaml.safe_load(f)
    seen = set()
    for name, job in gl.items():
        for k, v in ((job.get("variables") or {}) if isinstance(job, dict) else {}).items():
            if k in want:
                seen.add(k)
                if v != want[k]:
                    failures.append("intact: GitLab %s %s is %r, not %r" % (name, k, v, want[k]))
    if seen != set(want):
        failures.append("intact: the GitLab file carries %s of the paths" % sorted(seen))

for f in failures:
    print("FAIL " + f)
print("%d hidden and %d shown characters, %d failures" % (len(hidden), len(shown), len(failures)))
sys.exit(1 if failures else 0)
PY
finish
