"""e2e.py — what the end-to-end tests read from generated files, wheels and sdists.

usage: e2e.py jobs LIST.jsonl BACKEND      the tags `wheelmatrix list` gives BACKEND's linux-x86_64
                                           jobs (all its jobs if none is), one PYTHON-ABI a line
       e2e.py exclude WORKFLOW BACKEND     the libraries the GitHub workflow's Linux build job of
                                           BACKEND keeps out of auditwheel repair
       e2e.py wheel WHEEL DIST VERSION TAG checks a wheel's file name, WHEEL and METADATA: the
                                           distribution, version and PYTHON-ABI tag; prints the
                                           platform tag
       e2e.py sdist SDIST DIST VERSION     checks an sdist's file name and PKG-INFO
A failed check prints what was found and exits 1.
"""
import json
import re
import sys
import tarfile
import zipfile
from email.parser import Parser


def norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def fail(message):
    print(message)
    sys.exit(1)


def jobs(path, backend):
    with open(path) as f:
        mine = [j for j in map(json.loads, f) if j["backend"] == backend]
    # a backend not built for linux-x86_64 (metal): the tags of its other jobs
    here = [j for j in mine if j["platform"] == "linux-x86_64"] or mine
    for job in here:
        print(job["python_tag"] + "-" + job["abi_tag"])


def exclude(path, backend):
    import yaml
    with open(path) as f:
        workflow = yaml.safe_load(f)
    job = workflow.get("jobs", {}).get("build-%s-linux" % backend)
    if not job:
        return
    for step in job.get("steps", []):
        libs = (step.get("env") or {}).get("WM_REPAIR_EXCLUDE")
        if libs:
            print(libs)


def wheel(path, dist, version, tag):
    name = path.rsplit("/", 1)[-1]
    m = re.fullmatch(r"([^-]+)-([^-]+)-([^-]+)-([^-]+)-([^-]+)\.whl", name)
    if not m:
        fail("%s: not a wheel file name" % name)
    got_dist, got_version, py, abi, plat = m.groups()
    problems = []
    if got_dist != norm(dist):
        problems.append("distribution %s, not %s" % (got_dist, norm(dist)))
    if got_version != version:
        problems.append("version %s, not %s" % (got_version, version))
    if py + "-" + abi != tag:
        problems.append("tag %s-%s, not %s" % (py, abi, tag))
    with zipfile.ZipFile(path) as z:
        info = "%s-%s.dist-info/" % (got_dist, got_version)
        meta = Parser().parsestr(z.read(info + "METADATA").decode())
        wheel_tags = [t for k, t in Parser().parsestr(z.read(info + "WHEEL").decode()).items() if k == "Tag"]
    if norm(meta["Name"]) != norm(dist) or meta["Version"] != version:
        problems.append("METADATA says %s %s" % (meta["Name"], meta["Version"]))
    want_tags = ["%s-%s-%s" % (py, abi, p) for p in plat.split(".")]
    if sorted(wheel_tags) != sorted(want_tags):
        problems.append("WHEEL's tags %s, not %s" % (wheel_tags, want_tags))
    if problems:
        fail("%s: %s" % (name, "; ".join(problems)))
    print(plat)


def sdist(path, dist, version):
    name = path.rsplit("/", 1)[-1]
    want = "%s-%s.tar.gz" % (norm(dist), version)
    if name != want:
        fail("sdist %s, not %s" % (name, want))
    with tarfile.open(path) as t:
        info = t.extractfile("%s-%s/PKG-INFO" % (norm(dist), version)).read().decode()
    meta = Parser().parsestr(info)
    if norm(meta["Name"]) != norm(dist) or meta["Version"] != version:
        fail("%s: PKG-INFO says %s %s" % (name, meta["Name"], meta["Version"]))


if __name__ == "__main__":
    commands = {"jobs": jobs, "exclude": exclude, "wheel": wheel, "sdist": sdist}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](*sys.argv[2:])
