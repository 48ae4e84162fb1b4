#!/usr/bin/env python3
"""wfcheck.py — the structural properties of a generated GitHub workflow, checked against `wheelmatrix list`.

usage: python3 tests/helpers/wfcheck.py WORKFLOW LIST.jsonl [--meta NAME | --index DEFAULT-BACKEND] [--no-check]
       (exit 0 when every property holds, 1 otherwise; DEFAULT-BACKEND "" when there is none;
       --no-check for a matrix with `ci.github.check: false`)

Properties (issue 3, design section 5):
- the file starts with the three header comment lines, the last `# wheelmatrix-digest: sha256:<hex>`;
- the workflow's default shell is bash;
- each build job (`build-...`) has strategy.fail-fast false and a strategy.matrix.include list
  whose entries each carry an `id`; a field other than `id` has more than one value across the
  entries (a field equal everywhere is written inline instead);
- the ids across all build matrices are exactly `list`'s job ids, each once, and each sits in the
  build job that `list` names for it;
- every upload-artifact name, with ${{ matrix.NAME }} evaluated per entry, is unique in the whole
  workflow; a build entry uploads `wheels-<id>`;
- each distribution has exactly one `sdist-<backend>` job and one `publish-<backend>` job; the
  publish job runs only on tags, and the artifacts it downloads (each download's `name`, or its
  `pattern` matched against every upload name) are exactly the wheels of that distribution's
  build entries plus its sdist, and it `needs` every job that uploads them;
- under strategy meta (`--meta NAME`): one `meta-package` job uploads the artifact `meta-package`,
  which no backend's download matches, and `publish-meta-package` runs on tags only, downloads
  exactly that artifact and `needs` it and every backend's publish job;
- provenance: every publish job downloads into `dist` only, then runs
  actions/attest with `subject-path` `dist/*.whl` and `dist/*.tar.gz` (every
  wheel and sdist it downloaded), then pypa/gh-action-pypi-publish; it asks for exactly
  contents: read, id-token: write and attestations: write; no other job asks for id-token or
  attestations, and only a `github-release` job (on tags only) for contents: write (the drift
  check's contents: read, below, aside).
- under strategy variants (list's jobs carry variant_label): the default backend (label null) has
  its sdist and publish jobs and no other backend has any; `variants`, on tags only, with
  contents: write, id-token: write and attestations: write, needs every build job and the
  default's sdist, downloads each backend's wheels into dist/<backend> and the default's wheels
  and sdist into dist/plain, makes each backend's variants with list's label (properties exactly
  when not null), then the variants.json, the attestation of variants/*, the release
  <tag>-variants and the upload of `variants`, in that order; `index-pages` needs it alone, reads
  the repository only and lays out a variant index from the artifact `variants`; `deploy-pages`
  as under strategy index;
- under strategy index (`--index DEFAULT`): the default backend has a publish job and no other; every
  other backend has no publish job but `index-<backend>`, on tags only, which downloads exactly
  that backend's wheels and sdist into `dist`, attests them as a publish job does, then creates the
  release `"$GITHUB_REF_NAME-$WM_BACKEND"` at `--target "$GITHUB_SHA"` with GH_TOKEN from
  github.token and WM_BACKEND the backend, asking for exactly contents: write, id-token: write and
  attestations: write; `index-pages`, on tags only, asks for contents: read, needs every
  index-<backend> job, downloads each such backend's wheels and sdist into `dist/<backend>` (and
  nothing else), runs actions/configure-pages before its script and uploads with
  actions/upload-pages-artifact; `deploy-pages`, on tags only, needs index-pages, asks for exactly
  pages: write and id-token: write, runs in the environment github-pages and deploys with
  actions/deploy-pages; no `run:` script of these jobs (nor of a release job) holds a `${{`
  expression: values reach them through `env:`;
- the drift check (unless --no-check, when no job has that name or needs it): the job
  `wheelmatrix-check`, which runs on every event (no `if`) and needs nothing, asks for exactly
  contents: read and reads no secret; checks out without persisting credentials, installs
  `wheelmatrix==$WM_WHEELMATRIX` (WM_WHEELMATRIX a release, X.Y.Z) with pip, `--only-binary :all:`
  and `--no-deps`, and runs `wheelmatrix ... check --rev "$WM_REV"` with WM_REV
  `${{ github.sha }}`; every job that publishes (publish-*, index-<backend>, variants) needs it,
  and every job that runs on tags only needs it, directly or not (but the tag check);
- the tag check: when a job publishes, the job `wheelmatrix-tag`, on tags only, asks for exactly
  contents: read and reads no secret, checks out without persisting credentials and runs one
  script reading WM_TAG, which is `${{ github.ref_name }}` (templates/check-version.py, whose
  work t-check-version proves); every job that publishes needs it; no other job has that script.
"""

import fnmatch
import json
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ghinline  # noqa: E402

_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_MATRIX = re.compile(r"matrix\.([A-Za-z_][A-Za-z0-9_-]*)")
_HEADER_DIGEST = re.compile(r"# wheelmatrix-digest: sha256:[0-9a-f]{64}")


class Unevaluable(Exception):
    pass


def evaluate(text, entry):
    """`text` with each ${{ matrix.NAME }} replaced by the entry's value; any other expression is an error."""
    def one(m):
        mm = _MATRIX.fullmatch(m[1])
        if not mm:
            raise Unevaluable("expression %r is not a matrix field" % m[0])
        if entry is None or mm[1] not in entry:
            raise Unevaluable("matrix field %r is not in entry %r" % (mm[1], entry))
        return str(entry[mm[1]])
    return _EXPR.sub(one, str(text))


def uses(step, action):
    return str(step.get("uses", "")).split("@")[0] == action


def _entries(job):
    strategy = job.get("strategy") or {}
    matrix = strategy.get("matrix") or {}
    return matrix.get("include") if isinstance(matrix, dict) else None


def _needs(jobs, name):
    """Every job that `name` depends on, directly or not."""
    seen, todo = set(), [name]
    while todo:
        n = jobs.get(todo.pop(), {}).get("needs") or []
        for d in [n] if isinstance(n, str) else n:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def check(text, listed, meta=None, index=None, drift=True, root=None):
    """Returns the list of violated properties (strings) of workflow `text` for `list`'s jobs `listed`;
    `meta` is the meta package's name under strategy meta, `index` the default backend's id under
    strategy index ("" without one); `drift` whether the workflow has the drift-check job; `root`
    the repository, whose local actions (`uses: ./DIR`) the steps that use them run, read as the
    runner runs them (tests/helpers/ghinline.py)."""
    bad = []
    lines = text.split("\n")
    if len(lines) < 4 or not all(l.startswith("# ") for l in lines[:3]) or not _HEADER_DIGEST.fullmatch(lines[2]):
        bad.append("the file does not start with 3 header comment lines ending in the digest: %r" % lines[:3])
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), dict):
        return bad + ["the workflow has no jobs mapping"]
    try:
        doc = ghinline.inline(doc, root) if root else doc
    except ghinline.InlineError as e:
        return bad + [str(e)]
    if any(str(st.get("uses", "")).startswith("./") for j in doc["jobs"].values() for st in j.get("steps") or []):
        return bad + ["a step uses a local action, and no repository was named to read it from"]
    if ((doc.get("defaults") or {}).get("run") or {}).get("shell") != "bash":
        bad.append("the workflow's defaults.run.shell is not bash: %r" % doc.get("defaults"))
    jobs = doc["jobs"]
    by_id = {j["id"]: j for j in listed}
    backends = {}
    for j in listed:
        backends.setdefault(j["backend"], j["distribution"])

    seen_ids, uploads = [], []   # uploads: (job, entry id or None, artifact name)
    for name, job in jobs.items():
        entries = _entries(job)
        if name.startswith("build-"):
            if (job.get("strategy") or {}).get("fail-fast") is not False:
                bad.append("%s: strategy.fail-fast is not false" % name)
            if not isinstance(entries, list) or not entries:
                bad.append("%s: no strategy.matrix.include list" % name)
                continue
            for e in entries:
                if not isinstance(e, dict) or not isinstance(e.get("id"), str):
                    bad.append("%s: a matrix entry without an id: %r" % (name, e))
                    continue
                seen_ids.append(e["id"])
                want = by_id.get(e["id"], {}).get("build_job")
                if want is not None and want != name:
                    bad.append("%s: entry %s belongs in %s according to list" % (name, e["id"], want))
            keys = sorted({k for e in entries if isinstance(e, dict) for k in e} - {"id"})
            for k in keys:
                values = [json.dumps(e.get(k, None), sort_keys=True) for e in entries if isinstance(e, dict)]
                if len(set(values)) == 1:
                    bad.append("%s: matrix field %r has the same value %s in every entry (write it inline)"
                               % (name, k, values[0]))
        for n, step in enumerate(job.get("steps") or [], 1):
            if not uses(step, "actions/upload-artifact"):
                continue
            art = (step.get("with") or {}).get("name")
            for e in entries if isinstance(entries, list) and entries else [None]:
                try:
                    uploads.append((name, e.get("id") if isinstance(e, dict) else None, evaluate(art, e)))
                except Unevaluable as err:
                    bad.append("%s step %d: the artifact name %r cannot be evaluated: %s" % (name, n, art, err))

    counts = {}
    for i in seen_ids:
        counts[i] = counts.get(i, 0) + 1
    want_ids = [j["id"] for j in listed]
    if sorted(seen_ids) != sorted(want_ids) or len(set(want_ids)) != len(want_ids):
        missing = sorted(set(want_ids) - set(seen_ids))
        extra = sorted(set(seen_ids) - set(want_ids))
        twice = sorted(i for i, c in counts.items() if c > 1)
        bad.append("build matrix ids differ from list's: missing %s, not in list %s, more than once %s"
                   % (missing[:10], extra[:10], twice[:10]))

    names = [u[2] for u in uploads]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        bad.append("artifact names uploaded more than once: %s" % dup[:10])
    for job, eid, art in uploads:
        if job.startswith("build-") and eid is not None and art != "wheels-" + eid:
            bad.append("%s: entry %s uploads %r, not 'wheels-%s'" % (job, eid, art, eid))

    # strategy variants: list gives every job its variant label, the default backend's "null"
    variants = any("variant_label" in j for j in listed)
    default = next((j["backend"] for j in listed if j.get("variant_label") == "null"), None)
    for backend, dist in backends.items():
        kinds = ("sdist", "publish")
        if variants and backend != default:
            for kind in ("sdist", "publish", "index"):
                if "%s-%s" % (kind, backend) in jobs:
                    bad.append("strategy variants: backend %s is not the default, but has a %s job" % (backend, kind))
            continue
        if index is not None and backend != index:
            kinds = ("sdist", "index")
            if "publish-" + backend in jobs:
                bad.append("strategy index: backend %s is not the default, but has a publish job" % backend)
        elif index is not None and "index-" + backend in jobs:
            bad.append("strategy index: the default backend %s has an index job" % backend)
        for kind in kinds:
            found = [n for n in jobs if n == "%s-%s" % (kind, backend)]
            if len(found) != 1:
                bad.append("distribution %s (backend %s) has %d %s jobs" % (dist, backend, len(found), kind))
        sdist = [u[2] for u in uploads if u[0] == "sdist-" + backend]
        if sdist != ["sdist-" + backend]:
            bad.append("sdist-%s uploads %r, not ['sdist-%s']" % (backend, sdist, backend))
    extra_jobs = sorted(n for n in jobs if n.split("-")[0] in ("sdist", "publish") and n.split("-", 1)[1] not in backends
                        and not (meta and n == "publish-meta-package"))
    if extra_jobs:
        bad.append("sdist or publish jobs for no distribution: %s" % extra_jobs)

    for backend in backends:
        if variants and backend != default:
            continue
        pub = ("index-" if index is not None and backend != index else "publish-") + backend
        job = jobs.get(pub)
        if not isinstance(job, dict):
            continue
        if "refs/tags/" not in str(job.get("if", "")):
            bad.append("%s: does not run on tags only (if: %r)" % (pub, job.get("if")))
        got, sources = set(), set()
        for n, step in enumerate(job.get("steps") or [], 1):
            if not uses(step, "actions/download-artifact"):
                continue
            w = step.get("with") or {}
            if "name" in w:
                hit = [u for u in uploads if u[2] == str(w["name"])]
            elif "pattern" in w:
                hit = [u for u in uploads if fnmatch.fnmatchcase(u[2], str(w["pattern"]))]
                if w.get("merge-multiple") is not True:
                    bad.append("%s step %d: pattern download without merge-multiple: true" % (pub, n))
            else:
                bad.append("%s step %d: downloads every artifact of the run" % (pub, n))
                hit = uploads
            if not hit:
                bad.append("%s step %d: downloads %r, which no job uploads" % (pub, n, w))
            got |= {u[2] for u in hit}
            sources |= {u[0] for u in hit}
        want = {"wheels-" + j["id"] for j in listed if j["backend"] == backend} | {"sdist-" + backend}
        if got != want:
            bad.append("%s downloads %d artifacts; missing %s; not its own %s"
                       % (pub, len(got), sorted(want - got)[:10], sorted(got - want)[:10]))
        late = sorted(sources - _needs(jobs, pub))
        if late:
            bad.append("%s downloads artifacts of jobs it does not need: %s" % (pub, late))
    bad += _check_meta(jobs, uploads, backends, meta, drift)
    bad += _check_provenance(jobs, index is not None, variants)
    bad += _check_drift(jobs, drift)
    bad += _check_tag(jobs)
    if variants:
        bad += _check_variants(jobs, uploads, listed, default)
    elif index is not None:
        bad += _check_index(jobs, uploads, listed, [b for b in backends if b != index])
    elif any(n in jobs for n in ("index-pages", "deploy-pages")) or any(n.startswith("index-") for n in jobs):
        bad.append("index jobs under another strategy: %s" % sorted(n for n in jobs if n.startswith("index-")))
    return bad


def _downloads(job, uploads):
    """(path, artifact names) of each download-artifact step of `job`."""
    out = []
    for step in job.get("steps") or []:
        if uses(step, "actions/download-artifact"):
            w = step.get("with") or {}
            out.append((w.get("path"), {u[2] for u in uploads if u[2] == str(w.get("name")) or
                                        ("pattern" in w and fnmatch.fnmatchcase(u[2], str(w["pattern"])))}))
    return out


def _check_index(jobs, uploads, listed, indexed):
    """Strategy index: the Pages jobs, and no expression in a release or Pages script."""
    bad = []
    tags_only = "startsWith(github.ref, 'refs/tags/')"
    for name in ["index-" + b for b in indexed] + ["index-pages", "deploy-pages", "github-release"]:
        job = jobs.get(name)
        if not isinstance(job, dict):
            if name != "github-release" and (indexed or name.startswith("index-")):
                bad.append("strategy index: no %s job" % name)
            continue
        if job.get("if") != tags_only:
            bad.append("%s: does not run on tags only (if: %r)" % (name, job.get("if")))
        for n, step in enumerate(job.get("steps") or [], 1):
            if "${{" in str(step.get("run", "")):
                bad.append("%s step %d: an expression in its run: script" % (name, n))
    for b in indexed:
        job = jobs.get("index-" + b) or {}
        runs = [s for s in job.get("steps") or [] if "run" in s]
        release = runs[-1] if runs else {}
        script, env = str(release.get("run", "")), release.get("env") or {}
        if ('gh release create "$GITHUB_REF_NAME-$WM_BACKEND"' not in script or '--target "$GITHUB_SHA"' not in script
                or env.get("WM_BACKEND") != b or env.get("GH_TOKEN") != "${{ github.token }}"):
            bad.append("index-%s: the release step %r" % (b, release))
        steps = job.get("steps") or []
        if not steps or release is not steps[-1]:
            bad.append("index-%s: the release is not its last step" % b)
    if not indexed:
        return bad
    pages = jobs.get("index-pages") or {}
    needs = pages.get("needs") or []
    if sorted(needs) != sorted("index-" + b for b in indexed):
        bad.append("index-pages needs %r, not every index job" % needs)
    if pages.get("permissions") != {"contents": "read"}:
        bad.append("index-pages: permissions %r" % pages.get("permissions"))
    got = {}
    for path, names in _downloads(pages, uploads):
        got.setdefault(path, set()).update(names)
    want = {"dist/" + b: {"wheels-" + j["id"] for j in listed if j["backend"] == b} | {"sdist-" + b} for b in indexed}
    if got != want:
        bad.append("index-pages downloads %r, not %r" % (got, want))
    steps = pages.get("steps") or []
    kinds = ["configure" if uses(s, "actions/configure-pages") else "upload" if uses(s, "actions/upload-pages-artifact")
             else "run" if "run" in s else None for s in steps]
    kinds = [k for k in kinds if k]
    if kinds != ["configure", "run", "upload"]:
        bad.append("index-pages: steps %r, not configure-pages, the script, upload-pages-artifact" % kinds)
    deploy = jobs.get("deploy-pages") or {}
    if deploy.get("needs") != ["index-pages"] or deploy.get("permissions") != {"pages": "write", "id-token": "write"}:
        bad.append("deploy-pages: needs %r, permissions %r" % (deploy.get("needs"), deploy.get("permissions")))
    if (deploy.get("environment") or {}) != {"name": "github-pages", "url": "${{ steps.deploy.outputs.page_url }}"}:
        bad.append("deploy-pages: environment %r" % deploy.get("environment"))
    if [s.get("id") for s in deploy.get("steps") or [] if uses(s, "actions/deploy-pages")] != ["deploy"]:
        bad.append("deploy-pages: no step `deploy` using actions/deploy-pages")
    return bad


def _check_variants(jobs, uploads, listed, default):
    """Strategy variants: the variants job, its downloads, labels, attestation and release, and the Pages jobs."""
    bad = []
    tags_only = "startsWith(github.ref, 'refs/tags/')"
    if default is None:
        return ["strategy variants without a null variant in list's jobs"]
    job = jobs.get("variants")
    if not isinstance(job, dict):
        return ["strategy variants: no variants job"]
    if job.get("if") != tags_only:
        bad.append("variants: does not run on tags only (if: %r)" % job.get("if"))
    if job.get("permissions") != {"contents": "write", "id-token": "write", "attestations": "write"}:
        bad.append("variants: permissions %r" % job.get("permissions"))
    builds = sorted({j["build_job"] for j in listed})
    if sorted(n for n in job.get("needs") or [] if n not in (CHECK_JOB, TAG_JOB)) != sorted(builds + ["sdist-" + default]):
        bad.append("variants needs %r, not every build job and sdist-%s" % (job.get("needs"), default))
    got = {}
    for path, names in _downloads(job, uploads):
        got.setdefault(path, set()).update(names)
    backends = sorted({j["backend"] for j in listed})
    want = {"dist/" + b: {"wheels-" + j["id"] for j in listed if j["backend"] == b} for b in backends}
    want["dist/plain"] = {"wheels-" + j["id"] for j in listed if j["backend"] == default} | {"sdist-" + default}
    if got != want:
        bad.append("variants downloads %r, not %r" % (got, want))
    labels = {j["backend"]: j["variant_label"] for j in listed}
    made = {}
    steps = job.get("steps") or []
    for n, step in enumerate(steps, 1):
        if "${{" in str(step.get("run", "")):
            bad.append("variants step %d: an expression in its run: script" % n)
        env = step.get("env") or {}
        if "make-variant" in str(step.get("run", "")):
            made[env.get("WM_BACKEND")] = env.get("WM_VARIANT_LABEL")
            props = str(env.get("WM_VARIANT_PROPERTIES", ""))
            if (env.get("WM_VARIANT_LABEL") == "null") != (props == ""):
                bad.append("variants step %d: label %r with properties %r" % (n, env.get("WM_VARIANT_LABEL"), props))
    if made != labels:
        bad.append("variants makes %r, not list's labels %r" % (made, labels))
    order = ("make-variant", "generate-index-json", "actions/attest", 'gh release create "$GITHUB_REF_NAME-variants"',
             "actions/upload-artifact")
    kinds = [a for step in steps for a in order if uses(step, a) or a in str(step.get("run", ""))]
    if kinds != sorted(kinds, key=order.index) or any(kinds.count(a) != 1 for a in order[1:]):
        bad.append("variants: make-variant, the variants.json, attestation, release and upload out of order: %r" % kinds)
    attest = [s for s in steps if uses(s, "actions/attest")]
    if attest and str((attest[0].get("with") or {}).get("subject-path", "")).split() != ["variants/*"]:
        bad.append("variants: attests %r, not every file of the variant index" % (attest[0].get("with") or {}))
    if [u[2] for u in uploads if u[0] == "variants"] != ["variants"]:
        bad.append("variants uploads %r, not ['variants']" % [u[2] for u in uploads if u[0] == "variants"])
    pages = jobs.get("index-pages") or {}
    if pages.get("if") != tags_only or pages.get("needs") != ["variants"] or pages.get("permissions") != {"contents": "read"}:
        bad.append("index-pages: if %r, needs %r, permissions %r" % (pages.get("if"), pages.get("needs"), pages.get("permissions")))
    if [(p, n) for p, n in _downloads(pages, uploads)] != [("dist/variants", {"variants"})]:
        bad.append("index-pages downloads %r" % _downloads(pages, uploads))
    script = " ".join(str(st.get("run", "")) for st in pages.get("steps") or [])
    if "--variants" not in script or "${{" in script:
        bad.append("index-pages: its script does not lay out a variant index, or holds an expression")
    deploy = jobs.get("deploy-pages") or {}
    if deploy.get("needs") != ["index-pages"] or deploy.get("permissions") != {"pages": "write", "id-token": "write"}:
        bad.append("deploy-pages: needs %r, permissions %r" % (deploy.get("needs"), deploy.get("permissions")))
    if any(n.startswith("index-") and n != "index-pages" for n in jobs):
        bad.append("index jobs under strategy variants: %s" % sorted(n for n in jobs if n.startswith("index-")))
    return bad


def _check_provenance(jobs, index=False, variants=False):
    bad = []
    for name, job in jobs.items():
        if not isinstance(job, dict):
            continue
        perms = job.get("permissions")
        release = index and name.startswith("index-") and name != "index-pages"
        if not name.startswith("publish-") and not release:
            if name == "github-release" and (perms != {"contents": "write"} or "refs/tags/" not in str(job.get("if", ""))):
                bad.append("%s: permissions %r, if %r" % (name, perms, job.get("if")))
            elif (index or variants) and name in ("index-pages", "deploy-pages"):
                pass  # _check_index, _check_variants
            elif variants and name == "variants":
                pass  # _check_variants
            elif name in (CHECK_JOB, TAG_JOB):
                pass  # _check_drift, _check_tag
            elif name != "github-release" and perms is not None:
                bad.append("%s: asks for permissions %r" % (name, perms))
            continue
        want = {"contents": "write" if release else "read", "id-token": "write", "attestations": "write"}
        if perms != want:
            bad.append("%s: permissions %r" % (name, perms))
        steps = job.get("steps") or []
        order = ("actions/download-artifact", "actions/attest", "pypa/gh-action-pypi-publish")
        if release:
            order = order[:2] + ("gh release create",)
        kinds = [a for step in steps for a in order if uses(step, a) or a in str(step.get("run", ""))]
        if kinds != sorted(kinds, key=order.index) or kinds.count(order[1]) != 1 or kinds.count(order[2]) != 1:
            bad.append("%s: downloads, attestation and upload out of order: %r" % (name, kinds))
        for step in steps:
            w = step.get("with") or {}
            if uses(step, "actions/download-artifact") and w.get("path") != "dist":
                bad.append("%s: downloads into %r, which the attestation does not cover" % (name, w.get("path")))
            if uses(step, "actions/attest") and str(w.get("subject-path", "")).split() != ["dist/*.whl", "dist/*.tar.gz"]:
                bad.append("%s: attests %r, not every wheel and sdist" % (name, w.get("subject-path")))
    return bad


CHECK_JOB = "wheelmatrix-check"
TAG_JOB = "wheelmatrix-tag"


def _read_only(name, job):
    """A job that asks for contents: read alone, reads no secret and checks out once without
    persisting credentials."""
    bad = []
    if job.get("permissions") != {"contents": "read"}:
        bad.append("%s: permissions %r, not contents: read alone" % (name, job.get("permissions")))
    if "secrets." in json.dumps(job):
        bad.append("%s: reads a secret" % name)
    checkout = [st for st in job.get("steps") or [] if uses(st, "actions/checkout")]
    if len(checkout) != 1 or (checkout[0].get("with") or {}).get("persist-credentials") is not False:
        bad.append("%s: not one checkout without persisted credentials: %r" % (name, checkout))
    return bad


def _publishes(name):
    return name.startswith("publish-") or name == "variants" or (name.startswith("index-") and name != "index-pages")


def _check_tag(jobs):
    bad = []
    publishing = [n for n, j in jobs.items() if isinstance(j, dict) and _publishes(n)]
    job = jobs.get(TAG_JOB)
    for name, j in jobs.items():
        if name != TAG_JOB and isinstance(j, dict) and any("WM_TAG" in str(st.get("run", "")) for st in j.get("steps") or []):
            bad.append("%s checks the tag itself" % name)
    if not publishing:
        if job is not None:
            bad.append("%s: the job is there, but no job publishes" % TAG_JOB)
        return bad
    if not isinstance(job, dict):
        return bad + ["no %s job" % TAG_JOB]
    if job.get("if") != "startsWith(github.ref, 'refs/tags/')" or job.get("needs"):
        bad.append("%s: runs if %r, after %r" % (TAG_JOB, job.get("if"), job.get("needs")))
    bad += _read_only(TAG_JOB, job)
    steps = job.get("steps") or []
    check = [st for st in steps if "WM_TAG" in str(st.get("run", ""))]
    if len(check) != 1 or (check[0].get("env") or {}).get("WM_TAG") != "${{ github.ref_name }}":
        bad.append("%s: not one tag check of github.ref_name: %r" % (TAG_JOB, steps))
    bad += ["%s publishes, but does not need %s: %r" % (n, TAG_JOB, jobs[n].get("needs"))
            for n in publishing if TAG_JOB not in _names(jobs[n].get("needs"))]
    return bad


def _names(needs):
    return [needs] if isinstance(needs, str) else list(needs or [])


def _check_drift(jobs, drift):
    bad = []
    job = jobs.get(CHECK_JOB)
    if not drift:
        if job is not None:
            bad.append("%s: the job is there, but the matrix turns it off" % CHECK_JOB)
        bad += ["%s needs %s, which the matrix turns off" % (n, CHECK_JOB) for n, j in jobs.items()
                if isinstance(j, dict) and CHECK_JOB in _names(j.get("needs"))]
        return bad
    if not isinstance(job, dict):
        return ["no %s job" % CHECK_JOB]
    if "if" in job or job.get("needs"):
        bad.append("%s: runs only if %r, after %r" % (CHECK_JOB, job.get("if"), job.get("needs")))
    bad += _read_only(CHECK_JOB, job)
    if not str(job.get("runs-on", "")).startswith("ubuntu-"):
        bad.append("%s: runs on %r" % (CHECK_JOB, job.get("runs-on")))
    steps = job.get("steps") or []
    install = [st for st in steps if "pip install" in str(st.get("run", ""))]
    if (len(install) != 1 or not re.search(r'pip install --only-binary :all: --no-deps "wheelmatrix==\$WM_WHEELMATRIX"',
                                            install[0]["run"]) or
            not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", str((install[0].get("env") or {}).get("WM_WHEELMATRIX")))):
        bad.append("%s: does not install one pinned release of wheelmatrix's wheel alone: %r" % (CHECK_JOB, install))
    run = [st for st in steps if re.search(r'wheelmatrix"?( -f "\$WM_MATRIX")? check --rev "\$WM_REV"', str(st.get("run", "")))]
    if len(run) != 1 or (run[0].get("env") or {}).get("WM_REV") != "${{ github.sha }}":
        bad.append("%s: does not run check --rev on the workflow's commit: %r" % (CHECK_JOB, steps))
    for name, j in jobs.items():
        if not isinstance(j, dict) or name == CHECK_JOB:
            continue
        publishes = name.startswith("publish-") or name == "variants" or (name.startswith("index-") and name != "index-pages")
        if publishes and CHECK_JOB not in _names(j.get("needs")):
            bad.append("%s publishes, but does not need %s: %r" % (name, CHECK_JOB, j.get("needs")))
        if "refs/tags/" in str(j.get("if", "")) and CHECK_JOB not in _needs(jobs, name) and name != TAG_JOB:
            bad.append("%s runs on tags, but not after %s" % (name, CHECK_JOB))
    return bad


def _check_meta(jobs, uploads, backends, meta, drift=True):
    bad = []
    names = ("meta-package", "publish-meta-package")
    if not meta:
        return ["%s: a meta package job under strategy rename" % n for n in names if n in jobs]
    for n in names:
        if n not in jobs:
            bad.append("strategy meta, but no %s job" % n)
    if bad:
        return bad
    ups = [u for u in uploads if u[0] == "meta-package"]
    if [u[2] for u in ups] != ["meta-package"]:
        bad.append("meta-package uploads %r, not ['meta-package']" % [u[2] for u in ups])
    pub = jobs["publish-meta-package"]
    if "refs/tags/" not in str(pub.get("if", "")):
        bad.append("publish-meta-package: does not run on tags only (if: %r)" % pub.get("if"))
    got = set()
    for step in pub.get("steps") or []:
        if uses(step, "actions/download-artifact"):
            w = step.get("with") or {}
            got |= {u[2] for u in uploads if u[2] == str(w.get("name")) or
                    ("pattern" in w and fnmatch.fnmatchcase(u[2], str(w["pattern"])))}
    if got != {"meta-package"}:
        bad.append("publish-meta-package downloads %s, not just meta-package" % sorted(got))
    want = {"meta-package", TAG_JOB} | {"publish-" + b for b in backends} | ({CHECK_JOB} if drift else set())
    needs = pub.get("needs") or []
    needs = {needs} if isinstance(needs, str) else set(needs)
    if needs != want:
        bad.append("publish-meta-package needs %s, not %s" % (sorted(needs), sorted(want)))
    if (pub.get("environment") or {}).get("url") != "https://pypi.org/p/" + meta:
        bad.append("publish-meta-package: environment url %r" % (pub.get("environment") or {}).get("url"))
    return bad


def main(argv):
    meta = index = None
    drift = "--no-check" not in argv
    argv = [a for a in argv if a != "--no-check"]
    if len(argv) == 5 and argv[3] == "--meta":
        meta, argv = argv[4], argv[:3]
    elif len(argv) == 5 and argv[3] == "--index":
        index, argv = argv[4], argv[:3]
    if len(argv) != 3:
        print("usage: wfcheck.py WORKFLOW LIST.jsonl [--meta NAME | --index DEFAULT-BACKEND] [--no-check]",
              file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    with open(argv[2], encoding="utf-8") as f:
        listed = [json.loads(line) for line in f if line.strip()]
    bad = check(text, listed, meta, index, drift, ghinline.repo_of(argv[1]))
    for b in bad:
        print("%s: %s" % (argv[1], b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
