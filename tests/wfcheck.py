#!/usr/bin/env python3
"""wfcheck.py — the structural properties of a generated GitHub workflow, checked against `wheelmatrix list`.

usage: python3 tests/wfcheck.py WORKFLOW LIST.jsonl [--meta NAME]   (exit 0 when every property holds, 1 otherwise)

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
  actions/attest-build-provenance with `subject-path` `dist/*.whl` and `dist/*.tar.gz` (every
  wheel and sdist it downloaded), then pypa/gh-action-pypi-publish; it asks for exactly
  contents: read, id-token: write and attestations: write; no other job asks for id-token or
  attestations, and only a `github-release` job (on tags only) for contents: write.
"""

import fnmatch
import json
import re
import sys

import yaml

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


def check(text, listed, meta=None):
    """Returns the list of violated properties (strings) of workflow `text` for `list`'s jobs `listed`;
    `meta` is the meta package's name under strategy meta."""
    bad = []
    lines = text.split("\n")
    if len(lines) < 4 or not all(l.startswith("# ") for l in lines[:3]) or not _HEADER_DIGEST.fullmatch(lines[2]):
        bad.append("the file does not start with 3 header comment lines ending in the digest: %r" % lines[:3])
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), dict):
        return bad + ["the workflow has no jobs mapping"]
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

    for backend, dist in backends.items():
        for kind in ("sdist", "publish"):
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
        pub = "publish-" + backend
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
    bad += _check_meta(jobs, uploads, backends, meta)
    bad += _check_provenance(jobs)
    return bad


def _check_provenance(jobs):
    bad = []
    for name, job in jobs.items():
        if not isinstance(job, dict):
            continue
        perms = job.get("permissions")
        if not name.startswith("publish-"):
            if name == "github-release" and (perms != {"contents": "write"} or "refs/tags/" not in str(job.get("if", ""))):
                bad.append("%s: permissions %r, if %r" % (name, perms, job.get("if")))
            elif name != "github-release" and perms is not None:
                bad.append("%s: asks for permissions %r" % (name, perms))
            continue
        if perms != {"contents": "read", "id-token": "write", "attestations": "write"}:
            bad.append("%s: permissions %r" % (name, perms))
        steps = job.get("steps") or []
        order = ("actions/download-artifact", "actions/attest-build-provenance", "pypa/gh-action-pypi-publish")
        kinds = [a for step in steps for a in order if uses(step, a)]
        if kinds != sorted(kinds, key=order.index) or kinds.count(order[1]) != 1 or kinds.count(order[2]) != 1:
            bad.append("%s: downloads, attestation and upload out of order: %r" % (name, kinds))
        for step in steps:
            w = step.get("with") or {}
            if uses(step, "actions/download-artifact") and w.get("path") != "dist":
                bad.append("%s: downloads into %r, which the attestation does not cover" % (name, w.get("path")))
            if uses(step, "actions/attest-build-provenance") and str(w.get("subject-path", "")).split() != ["dist/*.whl", "dist/*.tar.gz"]:
                bad.append("%s: attests %r, not every wheel and sdist" % (name, w.get("subject-path")))
    return bad


def _check_meta(jobs, uploads, backends, meta):
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
    want = {"meta-package"} | {"publish-" + b for b in backends}
    needs = pub.get("needs") or []
    needs = {needs} if isinstance(needs, str) else set(needs)
    if needs != want:
        bad.append("publish-meta-package needs %s, not %s" % (sorted(needs), sorted(want)))
    if (pub.get("environment") or {}).get("url") != "https://pypi.org/p/" + meta:
        bad.append("publish-meta-package: environment url %r" % (pub.get("environment") or {}).get("url"))
    return bad


def main(argv):
    meta = None
    if len(argv) == 5 and argv[3] == "--meta":
        meta, argv = argv[4], argv[:3]
    if len(argv) != 3:
        print("usage: wfcheck.py WORKFLOW LIST.jsonl [--meta NAME]", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    with open(argv[2], encoding="utf-8") as f:
        listed = [json.loads(line) for line in f if line.strip()]
    bad = check(text, listed, meta)
    for b in bad:
        print("%s: %s" % (argv[1], b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
