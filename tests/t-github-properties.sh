#!/usr/bin/env bash
# t-github-properties.sh — seeded random valid matrices: the workflow lints clean and its jobs, ids and artifacts add up.
#
# For seeds 1-20 (fixed, so a failure reproduces with `python3 tests/helpers/gen_matrix.py SEED`) and for
# each example matrix: generate in a scratch repository, then
# - the generator's matrix is valid (generate exits 0) and `list` expands it to the jobs the
#   generator worked out (otherwise the generator is wrong);
# - actionlint, zizmor (its auditor persona, but for the findings docs/generate.md explains),
#   action-validator and shellcheck have no finding (tests/helpers/wmlint.py);
# - the properties of tests/helpers/wfcheck.py hold against `list --format jsonl`: build matrix ids are
#   list's job ids exactly once each, artifact names are unique, each distribution has one sdist
#   and one publish job, and a publish job downloads exactly its distribution's wheels and sdist
#   (under strategy index the default backend's; each other backend's index job and the Pages
#   jobs as wfcheck.py says).
# heavy: actionlint, zizmor and action-validator on the workflows of twenty seeded matrices
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
why=$("$py" "$ROOT/tests/helpers/wmlint.py" --missing) || fatal "$why"
"$py" - "$WM" "$ROOT" "$tmp" <<'PY' || fail "the seeded and example matrices (above)"
import glob, json, os, shutil, subprocess, sys
wm, root, tmp = sys.argv[1:]
sys.path.insert(0, os.path.join(root, "tests", "helpers"))
import gen_matrix, wfcheck, wmlint
import yaml

SEEDS = range(1, 21)
cases = [("seed %d" % s, s, gen_matrix.dump(gen_matrix.generate(s)[0])) for s in SEEDS]
for path in sorted(glob.glob(os.path.join(root, "matrices", "*.yaml"))):
    with open(path, encoding="utf-8") as f:
        cases.append((os.path.basename(path), None, f.read()))

failures = {}
def fail(name, message):
    failures.setdefault(name, []).append(message)

def run(args):
    return subprocess.run([wm, "-q"] + args, capture_output=True, text=True)

workflows = {}
for n, (name, seed, text) in enumerate(cases):
    repo = os.path.join(tmp, "repo%d" % n)
    os.mkdir(repo)
    with open(os.path.join(repo, "wheelmatrix.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    g = run(["-C", repo, "generate"])
    if g.returncode != 0:
        fail(name, "generate exited %d%s:\n%s" % (g.returncode, " (a generator bug: the matrix must be valid)"
                                                  if g.returncode == 2 and seed is not None else "", g.stderr))
        continue
    ls = run(["-C", repo, "list", "--format", "jsonl"])
    if ls.returncode != 0:
        fail(name, "list exited %d:\n%s" % (ls.returncode, ls.stderr))
        continue
    listed = [json.loads(line) for line in ls.stdout.splitlines() if line.strip()]
    if seed is not None:
        want = gen_matrix.generate(seed)[1]
        got = sorted(j["id"] for j in listed)
        if got != want:
            fail(name, "list's jobs are not the generator's (a generator bug): only in list %s, only in the generator %s"
                 % (sorted(set(got) - set(want))[:10], sorted(set(want) - set(got))[:10]))
    wf = os.path.join(repo, ".github", "workflows", "wheels.yml")
    try:
        with open(wf, encoding="utf-8") as f:
            wtext = f.read()
    except OSError as e:
        fail(name, "no workflow: %s" % e)
        continue
    spec = yaml.safe_load(text)
    meta = index = None
    if (spec.get("distribution") or {}).get("strategy") == "meta":
        meta = (spec.get("project") or {}).get("name")
    if (spec.get("distribution") or {}).get("strategy") == "index":
        index = "".join(b for b, v in (spec.get("backends") or {}).items() if (v or {}).get("default"))
    for problem in wfcheck.check(wtext, listed, meta, index, root=repo):
        fail(name, problem)
    workflows[wf] = name

for path, found in wmlint.lint_all(list(workflows)):
    for problem in found:
        fail(workflows[path], problem.replace(tmp + "/", ""))

for name, seed, text in cases:
    if name in failures:
        print("FAIL %s%s" % (name, " (reproduce: python3 tests/helpers/gen_matrix.py %d)" % seed if seed is not None else ""))
        for problem in failures[name]:
            print("  " + problem.replace("\n", "\n  "))
        if seed is not None:
            print("  matrix:\n    " + text.rstrip("\n").replace("\n", "\n    "))
print("%d of %d matrices passed" % (len(cases) - len(failures), len(cases)))
sys.exit(1 if failures else 0)
PY
finish
