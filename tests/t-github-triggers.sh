#!/bin/bash
# t-github-triggers.sh — ci.github.triggers says which branch pushes, tag pushes and pull requests run the generated workflow: its `on:` section as given (PyYAML reads it back; actionlint, zizmor and action-validator pass it), the skeleton's where a key is not given, and a filter that is not one of GitHub's, or no tag at all, refused at its position.
# heavy: actionlint, zizmor and action-validator on the generated workflows
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/python-env.sh"
lint=$ROOT/tests/helpers/wmlint.py
why=$("$py" "$lint" --missing) || fatal "$why"
r=$tmp/r
demo_project "$r"

# matrix CI: the demo matrix with `ci:` set to CI
matrix() {
	printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\nci:\n  github: %s\n' "$1" >"$r/wheelmatrix.yaml"
}
# on WANT WHAT: the workflow's `on:` read by PyYAML is the JSON WANT
on() {
	"$py" - "$r/.github/workflows/wheels.yml" "$1" <<'PY' || fail "$2: the workflow's on: differs"
import json, sys, yaml
got = yaml.safe_load(open(sys.argv[1]))["on"]
want = json.loads(sys.argv[2])
if got != want:
    print("on: %s, want %s" % (json.dumps(got), json.dumps(want)), file=sys.stderr)
    sys.exit(1)
PY
}

# no triggers: the skeleton's
matrix '{}'
wm -q -C "$r" generate
expect_status 0 "generate without triggers"
on '{"push": {"branches": ["main", "master"], "tags": ["*"]}, "pull_request": null, "workflow_dispatch": null}' "no triggers"

# (a branch filter naming release branches, "release/*", makes zizmor take the workflow for a
# release workflow and report its build caches: docs/matrix.md says so)
matrix '{triggers: {branches: [main, "stable/*"], tags: ["v*"], pull-requests: [main]}}'
wm -q -C "$r" generate
expect_status 0 "generate with triggers"
on '{"push": {"branches": ["main", "stable/*"], "tags": ["v*"]}, "pull_request": {"branches": ["main"]}, "workflow_dispatch": null}' "every trigger given"
run "$py" "$lint" "$r/.github/workflows/wheels.yml"
expect_status 0 "the validators on the workflow with triggers"

# tags alone: no branch push, no pull request
matrix '{triggers: {branches: [], pull-requests: false}}'
wm -q -C "$r" generate
expect_status 0 "generate with tags alone"
on '{"push": {"tags": ["*"]}, "workflow_dispatch": null}' "tags alone"
run "$py" "$lint" "$r/.github/workflows/wheels.yml"
expect_status 0 "the validators on the workflow run by tags alone"

# refused: an expression, a blank, no tag
# shellcheck disable=SC2016 # the expression is the matrix's text
matrix '{triggers: {branches: ["${{ github.token }}"]}}'
wm -C "$r" generate
expect_status 2 "an expression as a branch"
expect_err "wheelmatrix.yaml:7:34: error: '\${{ github.token }}' is not a branch or tag filter of 'ci.github.triggers.branches'" "an expression as a branch"
matrix '{triggers: {tags: []}}'
wm -C "$r" generate
expect_status 2 "no tag"
expect_err "wheelmatrix.yaml:7:29: error: 'ci.github.triggers.tags' needs at least one pattern: the publish jobs run on a tag push" "no tag"
matrix '{triggers: {pull-requests: "yes"}}'
wm -C "$r" generate
expect_status 2 "pull-requests: yes"
finish
