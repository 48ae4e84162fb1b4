#!/usr/bin/env python3
"""provcheck.py — the provenance, permissions and release job checks of tests/t-provenance.sh.

usage: python3 tests/helpers/provcheck.py WHEELMATRIX SCRATCH-DIR     (exit 0: no problem; 1: problems, printed)

What it checks is said at the top of tests/t-provenance.sh.
"""

import fnmatch
import glob
import os
import subprocess
import sys

import yaml

import wmlint

wm, tmp = sys.argv[1:]
root = wmlint.ROOT

with open(os.path.join(root, "templates", "actions.yaml"), encoding="utf-8") as f:
    catalog = yaml.safe_load(f)
attest_ref = "actions/attest@" + catalog["actions"]["actions/attest"]
problems = []


def bad(case, message):
    problems.append("%s: %s" % (case, message))


def generate(case, example, release, trusted):
    with open(os.path.join(root, "matrices", example + ".yaml"), encoding="utf-8") as f:
        m = yaml.safe_load(f)
    # strategy index: the GitHub workflow alone (generate does not write its GitLab file)
    m["ci"] = {"github": None} if example.endswith("-index") else {"github": None, "gitlab": None}
    publish = m.setdefault("publish", {}) or {}
    publish.setdefault("pypi", {})["trusted"] = trusted
    if release is not None:
        publish["github-release"] = release
    m["publish"] = publish
    repo = os.path.join(tmp, case)
    os.makedirs(repo)
    with open(os.path.join(repo, "wheelmatrix.yaml"), "w", encoding="utf-8") as f:
        yaml.safe_dump(m, f, sort_keys=False)
    r = subprocess.run([wm, "-q", "-C", repo, "generate"], capture_output=True, text=True)
    if r.returncode != 0:
        bad(case, "generate exited %d: %s" % (r.returncode, r.stderr))
        return None
    return repo


def uses(step):
    return str(step.get("uses", "")).partition("@")[0]


def artifacts(doc):
    """Each artifact the workflow uploads: name -> the files it holds (by its upload path)."""
    out = {}
    for job in doc["jobs"].values():
        ids = [e["id"] for e in ((job.get("strategy") or {}).get("matrix") or {}).get("include", [])]
        for step in job["steps"]:
            if uses(step) != "actions/upload-artifact":
                continue
            name, path = step["with"]["name"], step["with"]["path"]
            for n in ([name.replace("${{ matrix.id }}", i) for i in ids] if "${{" in name else [name]):
                out[n] = {"dist/*.whl": [n + ".whl"], "dist/*.tar.gz": [n + ".tar.gz"],
                          "dist/*": [n + "-1.0-py3-none-any.whl", n + "-1.0.tar.gz"]}[path]
    return out


def download(workspace, step, uploaded):
    """Writes into `workspace` what a download-artifact step writes; returns the files' paths."""
    w = step.get("with") or {}
    if "name" in w:
        chosen, merge = [w["name"]], True
    else:
        chosen = [a for a in uploaded if fnmatch.fnmatchcase(a, w.get("pattern", "*"))]
        merge = w.get("merge-multiple", False)
    written = set()
    for a in chosen:
        d = os.path.join(workspace, w["path"], "" if merge else a)
        os.makedirs(d, exist_ok=True)
        for f in uploaded[a]:
            open(os.path.join(d, f), "w").close()
            written.add(os.path.relpath(os.path.join(d, f), workspace))
    return written


def attested(case, name, steps, a, uploaded):
    """Checks the attestation step steps[a] of job `name`: at the pinned reference, after every
    download, its subject-path matching exactly what the downloads before it wrote; returns those
    files and the job's workspace."""
    kinds = [uses(s) for s in steps]
    if not max(i for i, k in enumerate(kinds) if k == "actions/download-artifact") < a:
        bad(case, "%s: the attestation is not after the downloads: %r" % (name, kinds))
    if steps[a]["uses"] != attest_ref:
        bad(case, "%s: %s, not %s" % (name, steps[a]["uses"], attest_ref))
    workspace = os.path.join(tmp, "ws-%s-%s" % (case, name))
    os.makedirs(workspace)
    files = set()
    for s in steps[:a]:
        if uses(s) == "actions/download-artifact":
            files |= download(workspace, s, uploaded)
    patterns = str(steps[a]["with"]["subject-path"]).split()
    matched = {os.path.relpath(f, workspace) for pat in patterns for f in glob.glob(os.path.join(workspace, pat))}
    if matched != files:
        bad(case, "%s: subject-path %r attests %r, the job downloaded %r" % (name, patterns, sorted(matched), sorted(files)))
    return files


def check_github(case, repo, release, trusted):
    with open(os.path.join(repo, ".github", "workflows", "wheels.yml"), encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    jobs, uploaded = doc["jobs"], artifacts(doc)
    if doc.get("permissions") != {"contents": "read"}:
        bad(case, "workflow permissions %r" % doc.get("permissions"))
    publish = [j for j in jobs if j.startswith("publish-")]
    index = sorted(j for j in jobs if j.startswith("index-") and j != "index-pages")
    if not publish:
        bad(case, "no publish job")
    for name, job in jobs.items():
        perms = job.get("permissions")
        if name in publish:
            if perms != {"contents": "read", "id-token": "write", "attestations": "write"}:
                bad(case, "%s: permissions %r" % (name, perms))
        elif name in index:
            if perms != {"contents": "write", "id-token": "write", "attestations": "write"}:
                bad(case, "%s: permissions %r" % (name, perms))
        elif name == "index-pages":
            if perms != {"contents": "read"}:
                bad(case, "%s: permissions %r" % (name, perms))
        elif name == "deploy-pages":
            if perms != {"pages": "write", "id-token": "write"}:
                bad(case, "%s: permissions %r" % (name, perms))
        elif name == "github-release":
            if perms != {"contents": "write"}:
                bad(case, "%s: permissions %r" % (name, perms))
        elif name in ("wheelmatrix-check", "wheelmatrix-tag"):
            if perms != {"contents": "read"}:
                bad(case, "%s: permissions %r" % (name, perms))
        elif perms is not None:
            bad(case, "%s asks for permissions %r" % (name, perms))
    for name in publish:
        steps = jobs[name]["steps"]
        kinds = [uses(s) for s in steps]
        if kinds.count("actions/attest") != 1 or kinds.count("pypa/gh-action-pypi-publish") != 1:
            bad(case, "%s: steps %r" % (name, kinds))
            continue
        a, p = kinds.index("actions/attest"), kinds.index("pypa/gh-action-pypi-publish")
        if not a < p:
            bad(case, "%s: the attestation is not before the upload: %r" % (name, kinds))
        files = attested(case, name, steps, a, uploaded)
        kinds_seen = {"whl" if f.endswith(".whl") else "tar.gz" if f.endswith(".tar.gz") else f for f in files}
        if kinds_seen != {"whl", "tar.gz"}:
            bad(case, "%s: downloads %r, not wheels and an sdist" % (name, sorted(files)))
        w = steps[p]["with"]
        if trusted and (w.get("attestations") is not True or "password" in w):
            bad(case, "%s: trusted publishing, publish inputs %r" % (name, w))
        if not trusted and (w.get("attestations") is not False or w.get("password") != "${{ secrets.PYPI_API_TOKEN }}"):
            bad(case, "%s: token publishing, publish inputs %r" % (name, w))
    for name in index:
        check_index_job(case, name, jobs[name], uploaded)
    job = jobs.get("github-release")
    if bool(release) != (job is not None):
        bad(case, "github-release %r, release job %r" % (release, job))
    if job is None:
        return doc
    if job.get("if") != "startsWith(github.ref, 'refs/tags/')":
        bad(case, "release job if: %r" % job.get("if"))
    if sorted(job.get("needs") or []) != sorted(publish):
        bad(case, "release job needs %r, not every publish job %r" % (job.get("needs"), publish))
    steps = job["steps"]
    workspace = os.path.join(tmp, "ws-%s-release" % case)
    os.makedirs(workspace)
    files = set()
    for s in steps:
        if uses(s) == "actions/download-artifact":
            files |= download(workspace, s, uploaded)
    every = {os.path.join("dist", f) for fs in uploaded.values() for f in fs}
    if index:
        # strategy index: the default backend's files (publish-<id>); the others have releases of their own
        own = [p[len("publish-"):] for p in publish]
        every = {os.path.join("dist", f) for a, fs in uploaded.items() for f in fs
                 if any(a.startswith("wheels-%s-" % b) or a == "sdist-" + b for b in own)}
    if files != every:
        bad(case, "release job downloads %r, not every artifact's files %r" % (sorted(files), sorted(every)))
    runs = [s for s in steps if "run" in s]
    script = runs[-1]["run"] if runs else ""
    if 'gh release create "$GITHUB_REF_NAME"' not in script or "--verify-tag" not in script or not script.rstrip().endswith("dist/*"):
        bad(case, "release script %r" % script)
    attached = {os.path.relpath(f, workspace) for f in glob.glob(os.path.join(workspace, "dist/*"))}
    if attached != every:
        bad(case, "the release attaches %r, not %r" % (sorted(attached), sorted(every)))
    if (runs[-1].get("env") if runs else None) != {"GH_TOKEN": "${{ github.token }}"} or "secrets." in yaml.safe_dump(job):
        bad(case, "release job credentials: %r" % (runs[-1].get("env") if runs else None))
    return doc


def check_index_job(case, name, job, uploaded):
    """Strategy index: a backend's release job attests exactly the files it downloads (its own
    backend's), before the release step, which runs with the job's token and names them all."""
    backend = name[len("index-"):]
    if job.get("if") != "startsWith(github.ref, 'refs/tags/')":
        bad(case, "%s: if %r" % (name, job.get("if")))
    steps = job["steps"]
    kinds = [uses(s) or ("release" if "gh release create" in s.get("run", "") else "run") for s in steps]
    if kinds.count("actions/attest") != 1 or kinds[-1] != "release":
        bad(case, "%s: steps %r" % (name, kinds))
        return
    files = attested(case, name, steps, kinds.index("actions/attest"), uploaded)
    own = {os.path.join("dist", f) for art, fs in uploaded.items() for f in fs
           if art.startswith("wheels-%s-" % backend) or art == "sdist-" + backend}
    if files != own or not own:
        bad(case, "%s: downloads %r, not its backend's files %r" % (name, sorted(files), sorted(own)))
    script, env = steps[-1]["run"], steps[-1].get("env") or {}
    if (not script.rstrip().endswith("dist/*") or '"$GITHUB_REF_NAME-$WM_BACKEND"' not in script
            or env.get("GH_TOKEN") != "${{ github.token }}" or env.get("WM_BACKEND") != backend
            or "secrets." in yaml.safe_dump(job)):
        bad(case, "%s: release step %r" % (name, steps[-1]))


def check_gitlab(case, repo, trusted, plain):
    with open(os.path.join(repo, ".gitlab-ci.yml"), encoding="utf-8") as f:
        text = f.read()
    if plain is not None and text != plain:
        bad(case, "github-release changed the GitLab file")
    doc = yaml.safe_load(text)
    script = "\n".join(doc[".wheelmatrix-publish"]["script"])
    if "pypi_attestations sign" not in script or "--attestations" not in script:
        bad(case, "the GitLab publish script signs nothing")
    for name, job in doc.items():
        if not name.startswith("publish-"):
            continue
        tokens = job.get("id_tokens")
        want = {"PYPI_ID_TOKEN": {"aud": "pypi"}, "SIGSTORE_ID_TOKEN": {"aud": "sigstore"}} if trusted else None
        if tokens != want:
            bad(case, "%s: id_tokens %r" % (name, tokens))
        # pypi-attestations comes with twine from the publish template's hashed lock (t-publish-lock)
        if "WM_PYPI_ATTESTATIONS" in job["variables"] or "WM_TWINE" in job["variables"]:
            bad(case, "%s: a tool pin besides the hashed lock: %r" % (name, job["variables"]))
    if "--require-hashes --only-binary :all:" not in script:
        bad(case, "the GitLab publish script installs without hashes")
    return text


workflows = []
for example in ("llm-rs", "llm-rs-meta", "llm-rs-index"):
    plain = None
    for release, trusted in ((None, True), (True, True), (True, False), (False, True)):
        case = "%s-%s-%s" % (example, {None: "default", True: "release", False: "norelease"}[release],
                             "trusted" if trusted else "token")
        repo = generate(case, example, release, trusted)
        if repo is None:
            continue
        check_github(case, repo, release, trusted)
        if not example.endswith("-index"):
            text = check_gitlab(case, repo, trusted, plain if trusted else None)
            if release is None:
                plain = text
        workflows.append(os.path.join(repo, ".github", "workflows", "wheels.yml"))
        if "meta" in example:
            jobs = yaml.safe_load(open(workflows[-1], encoding="utf-8"))["jobs"]
            if "publish-meta-package" not in jobs:
                bad(case, "no publish-meta-package job")
for path, found in wmlint.lint_all(workflows, {}):
    for f in found:
        bad(os.path.relpath(path, tmp), f)
for p in problems:
    print("FAIL " + p)
print("%d workflows checked, %d problems" % (len(workflows), len(problems)))
sys.exit(1 if problems else 0)
