#!/usr/bin/env python3
"""action-inputs.py — every `with:` key a generated workflow passes is an input its action declares.

usage: python3 tests/helpers/action-inputs.py WORKFLOW...      (exit 0: no problem; 1: problems, printed)
       python3 tests/helpers/action-inputs.py --coverage WORKFLOW...   (also: every pinned action is used)

The declared inputs are tests/helpers/action-inputs.yaml's, under the reference templates/actions.yaml
pins.  A step that uses an action outside templates/actions.yaml, or at another reference, is a
problem: the generated workflows use the pinned actions only (a matrix file's own setup steps are
not in the workflows this is given), and the local actions generate writes beside them
(`uses: ./DIR`), which declare no input.  What it proves is said at the top of tests/t-action-inputs.sh.
"""

import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ghinline  # noqa: E402

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(root, "templates", "actions.yaml"), encoding="utf-8") as f:
    table = yaml.safe_load(f)
pins, runtimes = table["actions"], table["runtimes"]
with open(os.path.join(root, "tests", "helpers", "action-inputs.yaml"), encoding="utf-8") as f:
    declared = yaml.safe_load(f)

args = sys.argv[1:]
coverage = args[:1] == ["--coverage"]
if coverage:
    args = args[1:]
problems = []
used = set()

def major(use):
    name, _, ref = use.partition("@")
    return "%s@%s" % (name, ref.split(".")[0] if ref.startswith("v") else ref)


for name, ref in pins.items():
    spec = declared.get("%s@%s" % (name, ref))
    if spec is None:
        problems.append("tests/helpers/action-inputs.yaml has no inputs for %s@%s, the pin of templates/actions.yaml" % (name, ref))
        continue
    # the runtime templates/actions.yaml records against the one read from the action.yml
    ours = (runtimes.get(name) or {}).get(ref)
    theirs = [spec.get("using")] + [major(u) for u in spec.get("uses", []) if not u.startswith("./")]
    if isinstance(ours, str):
        ours = [ours]
    if ours is None or [u for u in ours if u != "docker"] != theirs:
        problems.append("templates/actions.yaml's runtime of %s@%s is %r, its action.yml says %r (%s)"
                        % (name, ref, ours, theirs, spec["source"]))

for path in args:
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    for job_id, job in (doc.get("jobs") or {}).items():
        for n, step in enumerate(job.get("steps") or []):
            if "uses" not in step:
                continue
            where = "%s: job %s step %d (%s)" % (path, job_id, n + 1, step["uses"])
            action, _, ref = str(step["uses"]).partition("@")
            if action.startswith("./"):
                # a local action generate writes beside the workflow: it declares no input
                try:
                    with open(ghinline.action_file(ghinline.repo_of(path), action), encoding="utf-8") as f:
                        inputs = set((yaml.safe_load(f) or {}).get("inputs") or {})
                except ghinline.InlineError as e:
                    problems.append("%s: %s" % (where, e))
                    continue
                for key in sorted(set(step.get("with") or {}) - inputs):
                    problems.append("%s: `%s` is not an input of the local action" % (where, key))
                continue
            if pins.get(action) != ref:
                problems.append("%s: not an action at the reference templates/actions.yaml pins" % where)
                continue
            used.add(action)
            spec = declared["%s@%s" % (action, ref)]
            keys = set(step.get("with") or {})
            for key in sorted(keys - set(spec["inputs"])):
                problems.append("%s: `%s` is not an input of %s@%s (%s)" % (where, key, action, ref, spec["source"]))
            for key in sorted(set(spec["required"]) - keys):
                problems.append("%s: the required input `%s` is not passed" % (where, key))

if coverage:
    for action in sorted(set(pins) - used):
        problems.append("no workflow given uses %s: its inputs were not checked" % action)
for p in problems:
    print("FAIL " + p)
sys.exit(1 if problems else 0)
