#!/bin/bash
# t-github-shared.sh — the GitHub workflow writes what its jobs repeat once (anchors and aliases), and
# changes nothing else: for each example matrix (matrices/*.yaml), the workflow generated now, with
# its aliases expanded by PyYAML and each step of a local action read with the action's script in
# place (tests/helpers/ghinline.py; docs/generate.md, "Two local actions"), is the one the tree wrote before the repeated steps were shared
# (tests/expected/github/NAME.yml at commit 52b01f6, read from this repository's history) with only
# the change of shape made on purpose: the tag check moved from each publishing job into one job,
# wheelmatrix-tag, which those jobs need (tests/helpers/github-expanded.py says exactly what is allowed).
# The text itself: every anchor is used, every alias follows its anchor, no name is the anchor of
# two trees, and no step is written out in full twice unless its name is the anchor of another step.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
"$py" -c 'import yaml' 2>/dev/null || fatal "$py lacks PyYAML"
before=52b01f6
git -C "$ROOT" cat-file -e "$before^{commit}" 2>/dev/null ||
	fatal "commit $before, the tree before the workflow's steps were shared, is not in $ROOT's history (a shallow clone?): fetch it"
wf=.github/workflows/wheels.yml
n=0
for example in "$ROOT"/matrices/*.yaml; do
	name=$(basename "$example" .yaml)
	git -C "$ROOT" show "$before:tests/expected/github/$name.yml" >"$tmp/$name.before.yml" 2>/dev/null || continue
	repo=$tmp/$name
	mkdir -p "$repo"
	cp "$example" "$repo/wheelmatrix.yaml"
	expect_run 0 "$WM" -q -C "$repo" generate
	run "$py" "$ROOT/tests/helpers/github-expanded.py" "$tmp/$name.before.yml" "$repo/$wf"
	expect_status 0 "$name: the expanded workflow against $before's"
	run "$py" - "$repo/$wf" <<'PY'
import re, sys, yaml
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
problems = []
anchors, aliases = {}, []
for m in re.finditer(r"(?m)(?:^|[ :\-])([&*])([a-z0-9-]+)(?= |$)", text):
    line = text.count("\n", 0, m.start()) + 1
    if m.group(1) == "&":
        if m.group(2) in anchors:
            problems.append("line %d: the anchor %s is defined twice" % (line, m.group(2)))
        anchors[m.group(2)] = line
    else:
        aliases.append((m.group(2), line))
        if m.group(2) not in anchors:
            problems.append("line %d: *%s before its anchor" % (line, m.group(2)))
used = {a for a, _ in aliases}
problems += ["the anchor %s (line %d) is never used" % (a, l) for a, l in anchors.items() if a not in used]
if not aliases:
    problems.append("no alias at all: nothing is shared")
# the steps written out in full (not aliases): equal ones only under a name another step anchors
root = yaml.compose(text)
def plain(n):
    if isinstance(n, yaml.ScalarNode):
        return n.value
    if isinstance(n, yaml.SequenceNode):
        return [plain(x) for x in n.value]
    return [[plain(k), plain(v)] for k, v in n.value]
jobs = dict((k.value, v) for k, v in root.value)["jobs"]
seen, written = {}, set()
for jk, job in jobs.value:
    steps = dict((k.value, v) for k, v in job.value).get("steps")
    for node in (steps.value if steps is not None else []):
        if id(node) in written:
            continue  # an alias: PyYAML gives the anchored node itself
        written.add(id(node))
        key = repr(plain(node))
        fields = dict((k.value, v) for k, v in node.value)
        label = fields["name"].value if "name" in fields else fields["uses"].value.split("/")[-1].split("@")[0]
        slug = "-".join(re.findall(r"[a-z0-9]+", label.lower()))
        if key in seen and slug not in anchors:
            problems.append("job %s: the step %r is written out again (first in job %s)" % (jk.value, label, seen[key]))
        seen.setdefault(key, jk.value)
for p in problems:
    print("%s: %s" % (path, p))
sys.exit(1 if problems else 0)
PY
	expect_status 0 "$name: the anchors and aliases of the workflow"
	n=$((n + 1))
done
[ "$n" -ge 7 ] || fail "only $n example matrices had a workflow at $before"

# the comparison can fail: the workflow as it was, unshaped, against itself reshaped
run "$py" "$ROOT/tests/helpers/github-expanded.py" "$tmp/llm-rs.before.yml" "$tmp/llm-rs.before.yml"
expect_status 1 "the workflow before, compared with itself as if it had been reshaped"
grep -q "the jobs differ" "$tmp/out" || fail "no difference named: $(cat "$tmp/out")"
finish
