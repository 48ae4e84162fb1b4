#!/usr/bin/env python3
"""workflow_lines.py — how long a generated GitHub workflow is, and how much of it repeats.

    bench/workflow_lines.py [WORKFLOW.yml ...]    (default: tests/expected/github/*.yml)
    bench/workflow_lines.py --compare REV         (each tests/expected/github/*.yml against REV's)

For each workflow: its lines; the lines it would have with every alias written out (PyYAML reads
it, and the expanded tree is counted as `yaml.dump` writes it, block style, so only the
difference between the two counts matters); the lines of each job as written; and the repeated
lines, those inside a run of 3 or more lines that occurs again, word for word, elsewhere in the
file (what a reviewer reads twice); then the lines of each local action it uses (written
beside it: tests/expected/github/actions/ for the reviewed workflows).  tests/expected/github/llm-rs.yml is the demo's workflow
(matrices/llm-rs.yaml, as t-generate writes it).  With --compare, a table of each example
matrix's workflow: lines and repeated lines at git revision REV (52b01f6 is the tree before the
jobs' repeated steps were written once) and now.
"""
import glob
import os
import re
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WINDOW = 3


def repeated(lines):
    """The indices of lines inside a window of WINDOW lines found twice or more in the file."""
    seen = {}
    for i in range(len(lines) - WINDOW + 1):
        seen.setdefault(tuple(lines[i:i + WINDOW]), []).append(i)
    marked = set()
    for starts in seen.values():
        if len(starts) > 1:
            for s in starts:
                marked.update(range(s, s + WINDOW))
    return marked


def jobs_of(lines):
    """(job id, first line, last line) of each job, from the text: keys indented 2 under `jobs:`."""
    out, inside = [], False
    for i, line in enumerate(lines):
        if line == "jobs:":
            inside = True
            continue
        if inside and re.match(r"[^ #]", line):
            inside = False
        m = re.match(r"  ([A-Za-z0-9_-]+):$", line) if inside else None
        if m:
            out.append([m.group(1), i, len(lines) - 1])
            if len(out) > 1:
                out[-2][2] = i - 1
    return out


def expanded_lines(text):
    class Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data):
            return True

    def literal(dumper, s):
        return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None)
    Dumper.add_representer(str, literal)
    return yaml.dump(yaml.safe_load(text), Dumper=Dumper, sort_keys=False, width=1 << 20).count("\n")


def counts(text):
    lines = text.split("\n")[:-1]
    return len(lines), len(repeated(lines))


def compare(rev):
    print("| matrix | lines at %s | repeated | lines now | repeated |" % rev)
    print("|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "expected", "github", "*.yml"))):
        rel = os.path.relpath(path, ROOT)
        before = subprocess.run(["git", "-C", ROOT, "show", "%s:%s" % (rev, rel)], capture_output=True, text=True)
        if before.returncode:
            continue
        b, rb = counts(before.stdout)
        a, ra = counts(open(path, encoding="utf-8").read())
        print("| %s | %d | %d (%.0f%%) | %d | %d (%.0f%%) |" % (os.path.basename(path)[:-4], b, rb, 100.0 * rb / b,
                                                              a, ra, 100.0 * ra / a))


def report(path):
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")[:-1]
    rep = repeated(lines)
    print("%s: %d lines, %d repeated (%.0f%%), %d aliases; %d lines with the aliases written out (as yaml.dump writes the tree)"
          % (os.path.relpath(path, ROOT), len(lines), len(rep), 100.0 * len(rep) / max(len(lines), 1),
             len(re.findall(r"(?:^|[ \-:]) ?\*[a-z0-9-]+\s*$", text, re.M)), expanded_lines(text)))
    for job, first, last in jobs_of(lines):
        n = last - first + 1
        r = sum(1 for i in range(first, last + 1) if i in rep)
        print("  %-32s %5d lines %5d repeated" % (job, n, r))
    for name in sorted(set(re.findall(r"uses: \./\.github/actions/([a-z0-9-]+)$", text, re.M))):
        print("  local action %-19s %5d lines (%s)" % (name, action_lines(path, name), "its own file, beside the workflow"))


def action_lines(path, name):
    """The lines of local action NAME of the workflow at PATH: in its repository, or, for the reviewed
    workflows of tests/expected/github, in tests/expected/github/actions/NAME.yml."""
    for candidate in (os.path.join(os.path.dirname(path), "..", "actions", name, "action.yml"),
                      os.path.join(os.path.dirname(path), "actions", name + ".yml")):
        if os.path.isfile(candidate):
            return open(candidate, encoding="utf-8").read().count("\n")
    return -1


def main(argv):
    if argv[1:2] == ["--compare"] and len(argv) == 3:
        compare(argv[2])
        return 0
    paths = argv[1:] or sorted(glob.glob(os.path.join(ROOT, "tests", "expected", "github", "*.yml")))
    for p in paths:
        report(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
