#!/usr/bin/env python3
"""glcheck.py — a generated GitLab CI file checked with gitlab-ci-local and against `wheelmatrix list`.

usage: python3 tests/helpers/glcheck.py REPO LIST.jsonl [VERSION [PATH]]   (exit 0 when every property holds, 1 otherwise)

REPO is a git repository holding the generated file at PATH (default .gitlab-ci.yml).  gitlab-ci-local (tests/external)
lists its jobs twice, without a tag and with `--variable CI_COMMIT_TAG=v<VERSION>`; then:
- both listings succeed: gitlab-ci-local's embedded JSON schema accepts the file, and it resolves
  every `needs` and `dependencies` by job name (it fails otherwise);
- the build jobs (stage build, `build-...`), with each parallel:matrix instance's job id read from
  its name (`build-x: [<id>,<python>]`) and an explicit job's from its WM_JOB_ID variable,
  are exactly list's jobs, each once; a job's python value is list's interpreter version; a
  job sits in `build-<backend>-<platform>` or a job of its own, `build-<id>`, and runs on runners
  with list's `gitlab_tags` (its own `tags`, or those it `extends`);
- every `needs` entry names another job of an earlier stage or its own, and every needs:parallel:matrix selection
  an instance of it; `dependencies` name jobs of earlier stages;
- GitLab.com's limits, recounted here: at most 200 instances per job, names of at most 255
  characters, at most 50 needed instances per job;
- smoke test instances (stage test) test built jobs, and need (or depend on) their build job;
- one publish job per distribution; with no tag it is `when: never`, with the tag it runs; the
  build jobs it downloads from are exactly its distribution's, and its sdist job;
- under strategy meta (`meta` = the meta package's name): a `meta-package` job in stage build, and
  `publish-meta-package`, `when: never` without a tag and run with one, publishing that name,
  with the artifacts of `meta-package` only, after every backend's publish job;
- under strategy index (`index` = the backends served from their own index, all but the default):
  no publish job for those; one `pages` job, `when: never` without a tag and run with one, in
  stage publish, that downloads exactly their build and sdist jobs (and needs their smoke
  tests), keeps `public` as its artifact, and gets their ids in WM_BACKENDS;
- under strategy variants (`variants` = each backend's (label, properties), the default's label
  `null`): one publish job, the default backend's, and no sdist job of another backend; one
  `pages` job, `when: never` without a tag and run with one, in stage publish, that downloads
  exactly every build job and the default's sdist (and needs every smoke test), keeps `public`,
  applies the default's patch (WM_PATCH, when it has one), installs variantlib at templates/actions.yaml's pin
  (WM_VARIANTLIB), and gets a line `<backend> <label> <property>...` per backend in WM_VARIANTS
  and the default's id in WM_DEFAULT;
- no job id or distribution name is written into a script line: values come from `variables:`;
- the drift check (unless `drift` is false, when no job has that name or needs it): the job
  `wheelmatrix-check`, in stage build with and without a tag, needs nothing, holds no ID token,
  installs `wheelmatrix==$WM_WHEELMATRIX` (WM_WHEELMATRIX a release, X.Y.Z) with pip,
  `--only-binary :all:` and `--no-deps`, and runs `wheelmatrix ... check --rev "$CI_COMMIT_SHA"`;
  every job of stage publish with `needs` needs it (without artifacts); one with `dependencies`
  instead (past GitLab's 50 needs) waits for the build stage, which holds it.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GCL = os.path.join(ROOT, "tests", "external", "node_modules", ".bin", "gitlab-ci-local")
_INSTANCE = re.compile(r"^(.*): \[(.*)\]$")
STAGES = {"build": 0, "test": 1, "publish": 2}


def missing():
    """Why the checks cannot run here, or None."""
    if not os.access(GCL, os.X_OK):
        return "gitlab-ci-local is not installed: run 'npm ci --prefix tests/external'"
    return None


def list_jobs(repo, tag=None, path=".gitlab-ci.yml", schema=True):
    """gitlab-ci-local's --list-json of REPO's file PATH: (jobs, error text or None); with SCHEMA
    false, without its check of the file against GitLab's JSON schema (half its time)."""
    args = [GCL, "--list-json", "--file", path]
    if tag:
        args += ["--variable", "CI_COMMIT_TAG=" + tag]
    if not schema:
        args.append("--json-schema-validation=false")
    # stdout is a file, not a pipe: Node writes to a pipe asynchronously, and a process that
    # exits with more than the pipe's 64 KiB still queued loses the rest (a large file's list)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        p = subprocess.run(args, cwd=repo, stdout=out, stderr=subprocess.PIPE, text=True)
        out.seek(0)
        stdout = out.read()
    if p.returncode != 0:
        return None, "gitlab-ci-local %s exited %d:\n%s" % (" ".join(args[1:]), p.returncode, p.stderr[-2000:])
    try:
        return json.loads(stdout), None
    except ValueError as e:
        return None, "gitlab-ci-local printed no JSON: %s" % e


def base(name):
    m = _INSTANCE.match(name)
    return m.group(1) if m else name


def _permutations(matrix):
    n = 0
    for entry in matrix or []:
        p = 1
        for v in entry.values():
            p *= len(v) if isinstance(v, list) else 1
        n += p
    return n


def _scripts(job):
    for key in ("before_script", "script", "after_script"):
        for line in job.get(key) or []:
            yield str(line)


def _resolved(doc, name, key, depth=0):
    """KEY of job NAME as GitLab resolves `extends` (the job's own, else the last template's that has it)."""
    job = doc.get(name) or {}
    if key in job or depth > 10:
        return job.get(key)
    parents = job.get("extends") or []
    for parent in reversed([parents] if isinstance(parents, str) else parents):
        value = _resolved(doc, parent, key, depth + 1)
        if value is not None:
            return value
    return (doc.get("default") or {}).get(key)


CHECK_JOB = "wheelmatrix-check"


def _check_drift(jobs, plain, tagged, drift):
    job = jobs.get(CHECK_JOB)
    if not drift:
        bad = ["%s: the job is there, but the matrix turns it off" % CHECK_JOB] if job is not None else []
        return bad + ["%s needs %s, which the matrix turns off" % (n, CHECK_JOB) for n, j in jobs.items()
                      if any(isinstance(x, dict) and x.get("job") == CHECK_JOB for x in j.get("needs") or [])]
    if not isinstance(job, dict):
        return ["no %s job" % CHECK_JOB]
    bad = []
    for listing, what in ((plain, "without a tag"), (tagged, "with a tag")):
        got = [(j["stage"], j["when"]) for j in listing if j["name"] == CHECK_JOB]
        if got != [("build", "on_success")]:
            bad.append("%s %s: %r, not run in stage build" % (CHECK_JOB, what, got))
    if job.get("needs") != [] or "rules" in job or "id_tokens" in job:
        bad.append("%s: needs %r, rules %r, id_tokens %r" % (CHECK_JOB, job.get("needs"), job.get("rules"), job.get("id_tokens")))
    if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", str((job.get("variables") or {}).get("WM_WHEELMATRIX"))):
        bad.append("%s: WM_WHEELMATRIX %r is no release" % (CHECK_JOB, (job.get("variables") or {}).get("WM_WHEELMATRIX")))
    script = "\n".join(str(line) for line in job.get("script") or [])
    if not re.search(r'pip install --only-binary :all: --no-deps "wheelmatrix==\$WM_WHEELMATRIX"', script) or \
            not re.search(r'wheelmatrix"( -f "\$WM_MATRIX")? check --rev "\$CI_COMMIT_SHA"', script):
        bad.append("%s: does not install the pinned wheel and check the pipeline's commit: %r" % (CHECK_JOB, script))
    if "$CI_JOB_TOKEN" in script or "_TOKEN" in json.dumps(job.get("variables") or {}):
        bad.append("%s: reads a token" % CHECK_JOB)
    for j in plain:
        if j["stage"] != "publish":
            continue
        name = base(j["name"])
        needs = jobs[name].get("needs")
        if needs is not None and {"job": CHECK_JOB, "artifacts": False} not in needs:
            bad.append("%s publishes, but does not need %s: %r" % (name, CHECK_JOB, needs))
    return bad


def check(doc, listed, plain, tagged, meta=None, index=None, variants=None, drift=True):
    """Problems (strings) of the parsed file `doc` for list's jobs `listed`, given both listings."""
    bad = []
    jobs = {k: v for k, v in doc.items() if isinstance(v, dict) and not k.startswith(".") and k != "default"}
    by_id = {j["id"]: j for j in listed}
    names = [j["name"] for j in plain]
    if len(set(names)) != len(names):
        bad.append("gitlab-ci-local lists a job name twice")
    stage_of = {}
    for j in plain:
        stage_of[base(j["name"])] = j["stage"]
    instances = {}
    for j in plain:
        instances[base(j["name"])] = instances.get(base(j["name"]), 0) + 1

    # build jobs against list
    seen = []
    for j in plain:
        if j["stage"] != "build" or not j["name"].startswith("build-"):
            continue
        name = base(j["name"])
        m = _INSTANCE.match(j["name"])
        if m:
            # the job id, WM_PYTHON, and a PyPy job's WM_INTERPRETER, or on Linux its
            # WM_TARGET_PYTHON (the build runs maturin -i ${WM_TARGET_PYTHON:-${WM_INTERPRETER:-python$WM_PYTHON}})
            values = m.group(2).split(",")
            if len(values) not in (2, 3):
                bad.append("%s: an instance name with %d values, not the job id, python and interpreter"
                           % (j["name"], len(values)))
                continue
            job_id, python = values[:2]
            interpreter = values[2] if len(values) == 3 else "python" + python
        else:
            variables = jobs.get(name, {}).get("variables") or {}
            job_id, python = variables.get("WM_JOB_ID"), variables.get("WM_PYTHON")
            interpreter = variables.get("WM_TARGET_PYTHON") or variables.get("WM_INTERPRETER") or "python" + str(python)
        seen.append(job_id)
        want = by_id.get(job_id)
        if not want:
            bad.append("%s builds %r, which list does not have" % (j["name"], job_id))
            continue
        # a Windows x86 job asks uv for the 32-bit interpreter, and builds with what `uv python find` gives
        request = re.match(r"cpython-(3\.\d+t?)-windows-(x86|x86_64|aarch64)$", str(python))
        if request:
            interpreter = "python" + request.group(1)
            if (want["os"], want["arch"]) != ("windows", "x86") or request.group(2) != "x86":
                bad.append("%s asks uv for %s for %s, built on %s %s" % (j["name"], python, job_id, want["os"], want["arch"]))
        elif want["os"] == "windows" and want["arch"] == "x86" and not python.startswith("pypy"):
            bad.append("%s installs Python %s for %s: uv would install the runner's 64-bit one" % (j["name"], python, job_id))
        if interpreter != want["interpreter"]:
            bad.append("%s builds %s with %s, list says %s" % (j["name"], job_id, interpreter, want["interpreter"]))
        tags = _resolved(doc, name, "tags")
        if tags != want["gitlab_tags"]:
            bad.append("%s runs %s on runners tagged %r, list says %r" % (j["name"], job_id, tags, want["gitlab_tags"]))
        if name not in ("build-%s-%s" % (want["backend"], want["platform"]), "build-" + job_id):
            bad.append("%s holds %s of backend %s on %s" % (name, job_id, want["backend"], want["platform"]))
    if sorted(seen) != sorted(by_id):
        bad.append("build jobs are not list's jobs: only in the file %s, only in list %s, twice %s"
                   % (sorted(set(seen) - set(by_id))[:5], sorted(set(by_id) - set(seen))[:5],
                      sorted({i for i in seen if seen.count(i) > 1})[:5]))

    # needs, dependencies and the limits
    for name, job in jobs.items():
        stage = stage_of.get(name)
        if stage is None:
            bad.append("gitlab-ci-local does not list %s" % name)
            continue
        matrix = (job.get("parallel") or {}).get("matrix") if isinstance(job.get("parallel"), dict) else None
        if matrix and _permutations(matrix) > 200:
            bad.append("%s has %d permutations" % (name, _permutations(matrix)))
        count = 0
        for need in job.get("needs") or []:
            target = need if isinstance(need, str) else need.get("job")
            # GitLab (14.2 and later) runs a job after the jobs of its own stage it needs
            if target not in stage_of or target == name or STAGES[stage_of[target]] > STAGES[stage]:
                bad.append("%s needs %r, which is not a job of an earlier stage or its own" % (name, target))
                continue
            sel = (need.get("parallel") or {}).get("matrix") if isinstance(need, dict) else None
            if sel:
                tm = (jobs[target].get("parallel") or {}).get("matrix") or []
                for s in sel:
                    if s not in tm:
                        bad.append("%s needs an instance %r that %s does not have" % (name, s, target))
                count += _permutations(sel)
            else:
                count += instances[target]
        if count > 50:
            bad.append("%s needs %d instances" % (name, count))
        for dep in job.get("dependencies") or []:
            if dep not in stage_of or STAGES[stage_of[dep]] >= STAGES[stage]:
                bad.append("%s depends on %r, which is not a job of an earlier stage" % (name, dep))
        for line in _scripts(job):
            for word in list(by_id) + [j["distribution"] for j in listed]:
                if re.search(r"(?<![\w.-])" + re.escape(word) + r"(?![\w.-])", line):
                    bad.append("%s: a script line holds %r: %s" % (name, word, line[:80]))
    for j in plain:
        if len(j["name"]) > 255:
            bad.append("the job name %r... has %d characters" % (j["name"][:40], len(j["name"])))

    # smoke tests
    for j in plain:
        if j["stage"] != "test":
            continue
        name = base(j["name"])
        m = _INSTANCE.match(j["name"])
        job_id = m.group(2).split(",")[0] if m else (jobs[name].get("variables") or {}).get("WM_JOB_ID")
        build = "build-" + name[len("test-"):]
        if job_id not in seen:
            bad.append("%s tests %r, which no build job builds" % (j["name"], job_id))
        deps = [n if isinstance(n, str) else n.get("job") for n in jobs[name].get("needs") or []]
        deps += jobs[name].get("dependencies") or []
        if build not in deps:
            bad.append("%s does not get the artifacts of %s" % (name, build))

    # publish jobs
    dists = {}
    for j in listed:
        if j["backend"] not in (index or ()) and (not variants or variants[j["backend"]][0] == "null"):
            dists.setdefault(j["backend"], j["distribution"])
    publish = {base(j["name"]): j for j in plain if j["stage"] == "publish"}
    publish_tagged = {base(j["name"]): j for j in tagged if j["stage"] == "publish"}
    meta_jobs = ["publish-meta-package"] if meta else []
    meta_jobs += ["pages"] if index or variants else []
    if sorted(publish) != sorted(["publish-" + b for b in dists] + meta_jobs):
        bad.append("publish jobs %s, want one per distribution %s" % (sorted(publish), sorted(dists)))
    for b, dist in dists.items():
        name = "publish-" + b
        if name not in publish:
            continue
        if publish[name]["when"] != "never":
            bad.append("%s runs without a tag (when: %s)" % (name, publish[name]["when"]))
        if publish_tagged.get(name, {}).get("when") != "on_success":
            bad.append("%s does not run on a tag (when: %s)" % (name, publish_tagged.get(name, {}).get("when")))
        job = jobs[name]
        if (job.get("variables") or {}).get("WM_DIST") != dist:
            bad.append("%s publishes %r, not %s" % (name, (job.get("variables") or {}).get("WM_DIST"), dist))
        if "needs" in job:
            got = {n["job"] for n in job["needs"] if n.get("artifacts", True)}
        else:
            got = set(job.get("dependencies") or [])
        builds = {n for n in got if n.startswith("build-")}
        want_builds = {n for n in jobs if n.startswith("build-") and
                       any(by_id[i]["backend"] == b for i in _ids_of(n, jobs[n]))}
        if builds != want_builds or got - builds != {"sdist-" + b}:
            bad.append("%s downloads from %s, want %s and sdist-%s" % (name, sorted(got), sorted(want_builds), b))
        for n in builds:
            others = [i for i in _ids_of(n, jobs[n]) if by_id[i]["backend"] != b]
            if others:
                bad.append("%s downloads %s, which builds %s" % (name, n, others))
    bad += _check_meta(jobs, stage_of, publish, publish_tagged, dists, meta)
    bad += _check_drift(jobs, plain, tagged, drift)
    if variants:
        bad += _check_variant_pages(jobs, by_id, publish, publish_tagged, variants)
    else:
        bad += _check_pages(jobs, by_id, publish, publish_tagged, index)
    plain_rest = sorted((j["name"], j["when"]) for j in plain if j["stage"] != "publish")
    tagged_rest = sorted((j["name"], j["when"]) for j in tagged if j["stage"] != "publish")
    if plain_rest != tagged_rest:
        bad.append("the jobs other than publish differ with a tag")
    return bad


def _check_meta(jobs, stage_of, publish, publish_tagged, dists, meta):
    if not meta:
        return ["%s under strategy rename" % n for n in ("meta-package", "publish-meta-package") if n in jobs]
    bad = []
    if stage_of.get("meta-package") != "build":
        return ["no meta-package job in stage build (%s)" % stage_of.get("meta-package")]
    name = "publish-meta-package"
    if name not in publish:
        return bad + ["no %s job" % name]
    if publish[name]["when"] != "never":
        bad.append("%s runs without a tag (when: %s)" % (name, publish[name]["when"]))
    if publish_tagged.get(name, {}).get("when") != "on_success":
        bad.append("%s does not run on a tag" % name)
    job = jobs[name]
    if (job.get("variables") or {}).get("WM_DIST") != meta:
        bad.append("%s publishes %r, not %s" % (name, (job.get("variables") or {}).get("WM_DIST"), meta))
    needs = {(n["job"], n.get("artifacts", True)) for n in job.get("needs") or [] if n["job"] != CHECK_JOB}
    want = {("meta-package", True)} | {("publish-" + b, False) for b in dists}
    if needs != want:
        bad.append("%s needs %s, not %s" % (name, sorted(needs), sorted(want)))
    return bad


def _check_pages(jobs, by_id, publish, publish_tagged, index):
    if not index:
        return ["pages job under a strategy other than index"] if "pages" in jobs else []
    bad = []
    name = "pages"
    if name not in publish:
        return ["no pages job in stage publish"]
    if publish[name]["when"] != "never":
        bad.append("pages runs without a tag (when: %s)" % publish[name]["when"])
    if publish_tagged.get(name, {}).get("when") != "on_success":
        bad.append("pages does not run on a tag")
    job = jobs[name]
    if (job.get("artifacts") or {}).get("paths") != ["public"]:
        bad.append("pages keeps %r, not public" % (job.get("artifacts") or {}).get("paths"))
    if ((job.get("variables") or {}).get("WM_BACKENDS") or "").split() != list(index):
        bad.append("pages serves WM_BACKENDS %r, not %s" % ((job.get("variables") or {}).get("WM_BACKENDS"), list(index)))
    if "needs" in job:
        got = {n["job"] for n in job["needs"] if n.get("artifacts", True)}
        tests = {n["job"] for n in job["needs"] if not n.get("artifacts", True)} - {CHECK_JOB}
    else:
        got, tests = set(job.get("dependencies") or []), None
    want = {n for n in jobs if n.startswith("build-") and
            any(by_id[i]["backend"] in index for i in _ids_of(n, jobs[n]))}
    want |= {"sdist-" + b for b in index}
    if got != want:
        bad.append("pages downloads from %s, want %s" % (sorted(got), sorted(want)))
    want_tests = {n for n in jobs if n.startswith("test-") and
                  any(by_id[i]["backend"] in index for i in _ids_of(n, jobs[n]) if i in by_id)}
    if tests is not None and tests != want_tests:
        bad.append("pages needs the smoke tests %s, want %s" % (sorted(tests), sorted(want_tests)))
    return bad


def _variantlib_pin():
    with open(os.path.join(ROOT, "templates", "actions.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)["tools"]["variantlib"]


def _check_variant_pages(jobs, by_id, publish, publish_tagged, variants):
    bad = []
    default = [b for b, (label, _) in variants.items() if label == "null"]
    built = [b for b in variants if any(j["backend"] == b for j in by_id.values())]
    sdists = sorted(n for n in jobs if n.startswith("sdist-"))
    if sdists != ["sdist-" + b for b in default if b in built]:
        bad.append("sdist jobs %s under strategy variants, want the default's alone" % sdists)
    name = "pages"
    if name not in publish:
        return bad + ["no pages job in stage publish"]
    if publish[name]["when"] != "never":
        bad.append("pages runs without a tag (when: %s)" % publish[name]["when"])
    if publish_tagged.get(name, {}).get("when") != "on_success":
        bad.append("pages does not run on a tag")
    job = jobs[name]
    variables = job.get("variables") or {}
    if (job.get("artifacts") or {}).get("paths") != ["public"]:
        bad.append("pages keeps %r, not public" % (job.get("artifacts") or {}).get("paths"))
    want_lines = [" ".join([b, label] + [p.replace(" ", "") for p in props]) for b, (label, props) in variants.items()
                  if b in built]
    if (variables.get("WM_VARIANTS") or "").splitlines() != want_lines:
        bad.append("pages makes the variants %r, not %r" % (variables.get("WM_VARIANTS"), want_lines))
    if [variables.get("WM_DEFAULT")] != default:
        bad.append("pages has the default backend %r, not %s" % (variables.get("WM_DEFAULT"), default))
    if default and variables.get("WM_PATCH") not in (None, ".wheelmatrix/patches/%s.patch" % default[0]):
        bad.append("pages applies the patch %r, not the default backend's" % variables.get("WM_PATCH"))
    if str(variables.get("WM_VARIANTLIB")) != _variantlib_pin():
        bad.append("pages installs variantlib %r, not the pin %s" % (variables.get("WM_VARIANTLIB"), _variantlib_pin()))
    got = {n["job"] for n in job.get("needs") or [] if n.get("artifacts", True)}
    tests = {n["job"] for n in job.get("needs") or [] if not n.get("artifacts", True)} - {CHECK_JOB}
    want = {n for n in jobs if n.startswith("build-")} | {"sdist-" + b for b in default}
    if got != want:
        bad.append("pages downloads from %s, want %s" % (sorted(got), sorted(want)))
    want_tests = {n for n in jobs if n.startswith("test-")}
    if tests != want_tests:
        bad.append("pages needs the smoke tests %s, want %s" % (sorted(tests), sorted(want_tests)))
    return bad


def _ids_of(name, job):
    matrix = (job.get("parallel") or {}).get("matrix")
    if matrix:
        return [e["WM_JOB_ID"] for e in matrix]
    return [(job.get("variables") or {}).get("WM_JOB_ID")]


def check_repo(repo, listed, version="0.1.0", path=".gitlab-ci.yml", meta=None, index=None, variants=None):
    with open(os.path.join(repo, path), encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    bad = []
    if not (len(lines) > 3 and all(l.startswith("# ") for l in lines[:3]) and
            re.fullmatch(r"# wheelmatrix-digest: sha256:[0-9a-f]{64}", lines[2])):
        bad.append("the file does not start with the 3 header lines: %r" % lines[:3])
    plain, err = list_jobs(repo, path=path)
    if err:
        return bad + [err]
    # the same text again, on a tag: the schema's verdict on it is the listing's above
    tagged, err = list_jobs(repo, "v" + version, path, schema=False)
    if err:
        return bad + [err]
    doc = yaml.safe_load(text)
    # the default backend's patch (with a pyproject.toml to patch) gives make-variant its [variant] table
    for b, (label, _) in (variants or {}).items():
        patch = ".wheelmatrix/patches/%s.patch" % b
        got = ((doc.get("pages") or {}).get("variables") or {}).get("WM_PATCH")
        if label == "null" and os.path.exists(os.path.join(repo, patch)) and got != patch:
            bad.append("pages applies the patch %r, not %s" % (got, patch))
    return bad + check(doc, listed, plain, tagged, meta, index, variants)


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    why = missing()
    if why:
        print("FAIL: " + why)
        return 1
    with open(argv[2], encoding="utf-8") as f:
        listed = [json.loads(l) for l in f if l.strip()]
    bad = check_repo(argv[1], listed, *(argv[3:]))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
