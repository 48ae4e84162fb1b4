#!/usr/bin/env python3
"""ghinline.py — a GitHub workflow as the runner runs its steps: each step that uses a local
composite action (`uses: ./DIR`, the actions `wheelmatrix generate` writes beside the workflow)
gets the action's script in place of that `uses:`, as `run:` (its last key, where the generator
writes a `run:`), keeping its name, `if` and `env:`.

    import ghinline
    doc = ghinline.load(".github/workflows/wheels.yml")         # the repository: three levels up
    doc = ghinline.load(path, root=REPO)                          # or named
    doc = ghinline.inline(yaml.safe_load(text), root=REPO)

The action must be what the generator writes: `runs.using: composite`, one step, `shell: bash`
(the workflow's own `defaults.run.shell`) and a `run:` script; anything else is an error, as is
an action file that is missing, so that a test never reads a step it did not expect.  The
environment the runner hands the action's step is the calling step's (actions/runner,
docs/adrs/0549-composite-run-steps.md), so the inlined step is the step the runner runs.
`actions(doc, root)` lists the action files a workflow uses, for the validators.
"""
import os
import sys

import yaml


class InlineError(Exception):
    pass


def repo_of(path):
    """The repository of a workflow at REPO/.github/workflows/NAME."""
    d = os.path.dirname(os.path.abspath(path))
    if os.path.basename(d) != "workflows" or os.path.basename(os.path.dirname(d)) != ".github":
        raise InlineError("%s is not in a repository's .github/workflows: name its root" % path)
    return os.path.dirname(os.path.dirname(d))


def action_file(root, uses):
    """The action.yml of a local `uses: ./DIR` under ROOT."""
    rel = os.path.normpath(uses[2:])
    if rel.startswith("..") or os.path.isabs(rel):
        raise InlineError("uses: %s leaves the repository" % uses)
    for name in ("action.yml", "action.yaml"):
        p = os.path.join(root, rel, name)
        if os.path.isfile(p):
            return p
    raise InlineError("uses: %s: no action.yml in %s" % (uses, os.path.join(root, rel)))


def script(root, uses):
    """The one bash script of the local composite action `uses`."""
    path = action_file(root, uses)
    with open(path, encoding="utf-8") as f:
        action = yaml.safe_load(f)
    runs = action.get("runs") or {}
    steps = runs.get("steps") or []
    if runs.get("using") != "composite" or len(steps) != 1 or set(steps[0]) != {"shell", "run"} or steps[0]["shell"] != "bash":
        raise InlineError("%s: not a composite action of one bash run step: %r" % (path, runs))
    return steps[0]["run"]


def inline(doc, root):
    for job in (doc.get("jobs") or {}).values():
        steps = job.get("steps") or []
        for i, step in enumerate(steps):
            uses = str(step.get("uses", ""))
            if not uses.startswith("./"):
                continue
            if step.get("with"):
                raise InlineError("uses: %s with inputs %r: the generated actions take none" % (uses, step["with"]))
            # the script as the step's last key, where a `run:` step of the generator has it
            steps[i] = dict({k: v for k, v in step.items() if k != "uses"}, run=script(root, uses))
    return doc


def local_uses(doc):
    """Whether a step of the workflow DOC uses a local action."""
    return any(str(s.get("uses", "")).startswith("./") for j in (doc.get("jobs") or {}).values() for s in j.get("steps") or [])


def load(path, root=None):
    """The workflow at PATH inlined; its repository is needed only when a step uses a local action."""
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    return inline(doc, root or repo_of(path)) if local_uses(doc) else doc


def actions(doc, root):
    """The action files of the local actions the workflow DOC uses, each once, in order."""
    out = []
    for job in (doc.get("jobs") or {}).values():
        for step in job.get("steps") or []:
            uses = str(step.get("uses", ""))
            if uses.startswith("./"):
                p = action_file(root, uses)
                if p not in out:
                    out.append(p)
    return out


if __name__ == "__main__":
    # ghinline.py WORKFLOW [ROOT]: the inlined workflow, as YAML, on stdout
    yaml.safe_dump(load(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None), sys.stdout, sort_keys=False, width=10**6)
