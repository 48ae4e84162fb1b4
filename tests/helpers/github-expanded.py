#!/usr/bin/env python3
"""github-expanded.py OLD NEW — the workflow NEW, its aliases expanded (PyYAML reads them) and each
step that uses a local action of its repository read with the action's script in place (ghinline.py,
as the runner runs it: NEW is REPO/.github/workflows/NAME), is the
workflow OLD with only the change of shape made on purpose when the repeated steps came to be
written once: the tag check of each job that publishes (the step whose script reads WM_TAG, and
the checkout before it, which the job `variants` keeps: it reads pyproject.toml) moves to one job, wheelmatrix-tag
(on tags, contents: read, the checkout and that step), placed after wheelmatrix-check or first,
and each of those jobs needs it right after wheelmatrix-check.  Anything else that differs,
in any job, key order included, is printed and the exit status is 1."""
import json
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ghinline  # noqa: E402


def shaped(old):
    jobs, tag_step, checkout = old["jobs"], None, None
    for job_id, job in jobs.items():
        steps = job.get("steps") or []
        at = [i for i, s in enumerate(steps) if "WM_TAG" in str(s.get("run", ""))]
        if not at:
            continue
        i = at[0]
        if tag_step is not None and steps[i] != tag_step:
            sys.exit("the jobs' tag checks differ in OLD")
        tag_step = steps[i]
        drop = {i}
        if i > 0 and str(steps[i - 1].get("uses", "")).startswith("actions/checkout@") and job_id != "variants":
            checkout = steps[i - 1]
            drop.add(i - 1)
        elif i > 0:
            checkout = steps[i - 1]
        job["steps"] = [s for k, s in enumerate(steps) if k not in drop]
        needs = job["needs"]
        needs.insert(1 if needs and needs[0] == "wheelmatrix-check" else 0, "wheelmatrix-tag")
    if tag_step is None:
        return old
    tag_job = {"name": "check the tag", "if": "startsWith(github.ref, 'refs/tags/')", "runs-on": "ubuntu-24.04",
               "permissions": {"contents": "read"}, "steps": [checkout, tag_step]}
    items = list(jobs.items())
    at = 1 if items and items[0][0] == "wheelmatrix-check" else 0
    old["jobs"] = dict(items[:at] + [("wheelmatrix-tag", tag_job)] + items[at:])
    return old


def main(argv):
    old = shaped(yaml.safe_load(open(argv[1], encoding="utf-8")))
    new = ghinline.load(argv[2])
    bad = 0
    if list(old) != list(new):
        print("the top-level keys differ: %s, %s" % (list(old), list(new)))
        bad = 1
    for key in old:
        if key != "jobs" and old[key] != new.get(key):
            print("%s differs" % key)
            bad = 1
    if list(old["jobs"]) != list(new["jobs"]):
        print("the jobs differ: %s\n  became %s" % (list(old["jobs"]), list(new["jobs"])))
        bad = 1
    for job in old["jobs"]:
        a, b = old["jobs"][job], new["jobs"].get(job)
        # key order matters as much as values: compare the JSON texts
        if json.dumps(a) != json.dumps(b):
            print("job %s differs:\n  was    %s\n  is now %s" % (job, json.dumps(a)[:2000], json.dumps(b)[:2000]))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
