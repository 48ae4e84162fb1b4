#!/usr/bin/env bash
# t-gitlab-ci-local.sh — generated GitLab CI files, listed by gitlab-ci-local, match `wheelmatrix list`.
#
# For each example matrix (matrices/*.yaml with GitLab enabled; under strategies index and
# variants glcheck checks the `pages` job too), a matrix of overrides written
# here (image and tags per platform and per include, include env, setup lines, token mode, a
# custom path, windows-arm64 on a self-hosted runner), PyPy and GraalPy beside abi3, the project's tests (a
# backend's test jobs on runner tags of its own, the musllinux and Windows test jobs), and for seeds 1-6 of
# tests/helpers/gen_matrix.py (turned into GitLab matrices: `ci: {gitlab: {}}`, and runner tags for
# windows-arm64, which GitLab.com does not host), generate in a scratch git repository, then check
# with tests/helpers/glcheck.py: gitlab-ci-local --list-json accepts the file, with and without a tag; its
# build jobs (parallel:matrix instances read from their names) are list's jobs one to one; every
# `needs` resolves; publish jobs run only on tags; GitLab.com's limits hold.  Publish jobs carry
# an ID token for PyPI (audience pypi) and one for Sigstore (audience sigstore, which signs the PEP
# 740 attestations, with pypi-attestations from the publish template's hashed lock,
# tests/t-publish-lock.sh) exactly when trusted publishing is on, and no tool pin of their own.  Two workers share the
# runs, since gitlab-ci-local takes a second or more to start.
# heavy: the generated pipelines' jobs run by gitlab-ci-local
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
if ! why=$("$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); import glcheck; print(glcheck.missing() or "")' "$ROOT/tests/helpers") || [[ -n $why ]]; then
	fatal "${why:-cannot import tests/helpers/glcheck.py}"
fi
need git "make test-deps (apt-get install git)"
"$py" - "$WM" "$ROOT" "$tmp" <<'PY' || fail "the GitLab files gitlab-ci-local reads (above)"
import concurrent.futures, glob, json, os, subprocess, sys
import yaml
wm, root, tmp = sys.argv[1:]
sys.path.insert(0, os.path.join(root, "tests", "helpers"))
import gen_matrix, glcheck

def gitlab(m):
    """A generated matrix with GitLab instead of GitHub, windows-arm64 and musllinux-armv7 (no hosted
    runner) on self-hosted ones, and musllinux-riscv64 likewise."""
    m["ci"] = {"gitlab": {}}
    if isinstance(m["platforms"], list):
        m["platforms"] = {p: {} for p in m["platforms"]}
    if "windows-arm64" in m["platforms"]:
        m["platforms"]["windows-arm64"] = dict(m["platforms"]["windows-arm64"] or {}, tags=["windows", "arm64"])
    if "musllinux-armv7" in m["platforms"]:
        m["platforms"]["musllinux-armv7"] = dict(m["platforms"]["musllinux-armv7"] or {}, tags=["linux", "armv7"])
    if "musllinux-riscv64" in m["platforms"]:
        m["platforms"]["musllinux-riscv64"] = dict(m["platforms"]["musllinux-riscv64"] or {}, tags=["linux", "riscv64"])
    return m

cases = []
for path in sorted(glob.glob(os.path.join(root, "matrices", "*.yaml"))):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "gitlab" in (yaml.safe_load(text).get("ci") or {"gitlab": None}):
        cases.append((os.path.basename(path), None, text))
cases.append(("overrides", None, """wheelmatrix: 1
project: {name: overpkg, module: overpkg}
python:
  versions: ["3.11", "3.12", "3.13t"]
platforms:
  linux-x86_64: {image: registry.example.com/manylinux_2_28_x86_64:latest}
  linux-aarch64: {cross: true}
  macos-x86_64: {}
  windows-arm64: {tags: [windows, arm64, self-hosted]}
backends:
  gpu:
    features: [cublas]
    platforms: [linux-x86_64]
    toolkit: {cuda: "12.8"}
    env: {CUDA_COMPUTE_CAP: "80", APP_NOTE: "a: b # c"}
    setup:
      gitlab:
        linux: ["dnf install -y libfoo-devel"]
  cpu:
    default: true
    env: {APP_YES: "yes", APP_EMPTY: ""}
include:
  - {backend: gpu, platform: linux-x86_64, python: "3.13", env: {CUDA_COMPUTE_CAP: "90"}}
  - {backend: cpu, platform: linux-x86_64, python: "3.10", tags: [big-runner]}
ci: {gitlab: {path: ci/pipeline.yml}}
publish:
  pypi: {trusted: false, environment: release}
"""))
# A backend's runner tags: on all its platforms (big), per platform (cuda, one entry matching by
# pattern), and an include of the backend on a platform its per-platform entries do not name
cases.append(("backend tags", None, """wheelmatrix: 1
project: {name: btpkg, module: btpkg}
python: {versions: ["3.12", "3.13"]}
platforms: [linux-x86_64, linux-aarch64, windows-x86_64]
backends:
  cpu: {default: true}
  cuda:
    features: [cublas]
    platforms: [linux-x86_64, windows-x86_64]
    per-platform:
      linux-x86_64: {tags: [gpu, linux]}
      "windows-*": {tags: [gpu, windows]}
  big:
    platforms: ["linux-*"]
    tags: [big]
    per-platform:
      linux-aarch64: {tags: [big, arm64]}
include:
  - {backend: cuda, platform: linux-aarch64, python: "3.12"}
ci: {gitlab: {}}
"""))
# PyPy beside abi3 and a free-threaded build, on every platform with PyPy: the jobs with WM_INTERPRETER
# (macOS, Windows) or WM_TARGET_PYTHON (Linux, images with and without PyPy, cross-built)
cases.append(("pypy", None, """wheelmatrix: 1
project: {name: pppkg, module: pppkg}
python:
  abi3: "3.9"
  versions: ["pp3.11", "pp3.12", "3.14t"]
platforms: [linux-x86_64, linux-aarch64, linux-i686, linux-armv7, musllinux-x86_64, macos-x86_64, macos-arm64, windows-x86_64]
ci: {gitlab: {}}
"""))
# GraalPy beside abi3: from maturin's table on Linux (WM_TARGET_PYTHON), under uv's GraalPy on macOS
# (WM_INTERPRETER), 3.13 left out of macOS x86_64
cases.append(("graalpy", None, """wheelmatrix: 1
project: {name: gppkg, module: gppkg}
python:
  abi3: "3.9"
  versions: ["graalpy3.11", "graalpy3.12", "graalpy3.13"]
platforms: [linux-x86_64, linux-aarch64, macos-x86_64, macos-arm64]
exclude:
  - {platform: macos-x86_64, python: "graalpy3.13"}
ci: {gitlab: {}}
"""))
# The project's tests: in the test jobs (musllinux ones in the musllinux image, Windows ones in
# PowerShell), a backend's on runners of its own tags, with skips
cases.append(("tests", None, """wheelmatrix: 1
project: {name: tpkg}
python: {versions: ["3.12", "3.13", "pp3.11"]}
platforms: [linux-x86_64, linux-aarch64, linux-armv7, musllinux-x86_64, musllinux-aarch64, musllinux-i686, macos-arm64, windows-x86_64]
backends:
  cpu: {default: true}
  cuda:
    features: [cublas]
    platforms: [linux-x86_64]
    test: {tags: [gpu, cuda-12], requires: [pytest, "cupy-cuda12x>=13"]}
test:
  command: python -m pytest -x tests
  requires: [pytest]
  extras: [test]
  sources: [tests, conftest.py]
  skip: ["*-cp313"]
ci: {gitlab: {}}
"""))
for seed in range(1, 7):
    cases.append(("seed %d" % seed, seed, gen_matrix.dump(gitlab(gen_matrix.generate(seed)[0]))))
if len([c for c in cases if c[1] is None]) < 4:
    print("FAIL: fewer than 3 example matrices enable GitLab")
    sys.exit(1)

def run(args, cwd=None):
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd)

def one(n, name, seed, text):
    repo = os.path.join(tmp, "repo%d" % n)
    os.mkdir(repo)
    with open(os.path.join(repo, "wheelmatrix.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    g = run([wm, "-q", "-C", repo, "generate"])
    if g.returncode != 0:
        return ["generate exited %d:\n%s" % (g.returncode, g.stderr)]
    ls = run([wm, "-q", "-C", repo, "list", "--format", "jsonl"])
    listed = [json.loads(line) for line in ls.stdout.splitlines() if line.strip()]
    bad = []
    if seed is not None and sorted(j["id"] for j in listed) != gen_matrix.generate(seed)[1]:
        bad.append("list's jobs are not the generator's (a generator bug)")
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                ["git", "-c", "user.name=wheelmatrix", "-c", "user.email=tests@wheelmatrix.invalid",
                 "commit", "-q", "-m", "generated"]):
        r = run(cmd, cwd=repo)
        if r.returncode != 0:
            return bad + ["%s failed: %s" % (" ".join(cmd), r.stderr)]
    path = ((yaml.safe_load(text).get("ci") or {}).get("gitlab") or {}).get("path") or ".gitlab-ci.yml"
    spec = yaml.safe_load(text)
    strategy = (spec.get("distribution") or {}).get("strategy")
    meta = (spec.get("project") or {}).get("name") if strategy == "meta" else None
    index = [b for b, v in spec["backends"].items() if not (v or {}).get("default")] if strategy == "index" else None
    variants = None
    if strategy == "variants":
        variants = {b: ("null", []) if (v or {}).get("default") else
                    (((v or {}).get("variant") or {}).get("label") or b, ((v or {}).get("variant") or {}).get("properties") or [])
                    for b, v in spec["backends"].items()}
    bad += glcheck.check_repo(repo, listed, path=path, meta=meta, index=index, variants=variants)
    with open(os.path.join(repo, path), encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    trusted = ((yaml.safe_load(text).get("publish") or {}).get("pypi") or {}).get("trusted", True)
    for job_name, job in doc.items():
        if job_name.startswith("publish-"):
            tokens = job.get("id_tokens")
            if trusted and tokens != {"PYPI_ID_TOKEN": {"aud": "pypi"}, "SIGSTORE_ID_TOKEN": {"aud": "sigstore"}}:
                bad.append("%s: id_tokens %r with trusted publishing" % (job_name, tokens))
            if not trusted and tokens is not None:
                bad.append("%s: id_tokens %r in token mode" % (job_name, tokens))
            # what it installs comes from the template's hashed lock alone, never a pin of its own
            pins = [v for v in (job.get("variables") or {}) if v in ("WM_TWINE", "WM_PYPI_ATTESTATIONS")]
            if pins:
                bad.append("%s: %s besides the hashed lock" % (job_name, pins))
    return bad

with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(lambda c: one(c[0], *c[1]), enumerate(cases)))
failed = 0
for (name, seed, text), bad in zip(cases, results):
    if not bad:
        continue
    failed += 1
    print("FAIL %s%s" % (name, " (reproduce: python3 tests/helpers/gen_matrix.py %d, with GitLab)" % seed if seed else ""))
    for b in bad:
        print("  " + b.replace(tmp + "/", "").replace("\n", "\n  "))
print("%d of %d matrices passed" % (len(cases) - failed, len(cases)))
sys.exit(1 if failed else 0)
PY
finish
