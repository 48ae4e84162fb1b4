#!/bin/bash
# t-check-report.sh — `check --staged` before the matrix file is added says to add it (and git's own
# `git add` then makes the check pass); `check -v` says which files it compared, how many, and from where.
. "$ROOT/tests/kit/lib.sh"

r=$tmp/repo
mkdir -p "$r/src"
demo_project "$r"
# the project committed without its matrix file
mv "$r/wheelmatrix.yaml" "$tmp/wheelmatrix.yaml"
scratch_repo "$r"
commit_all "$r"
mv "$tmp/wheelmatrix.yaml" "$r/"
wm -q -C "$r" generate

# a new project: the matrix file is written but not added
wm -C "$r" check --staged
expect_status 2 "check --staged before 'git add wheelmatrix.yaml'"
expect_same - "$tmp/err" "check --staged before 'git add wheelmatrix.yaml'" <<'EOF'
wheelmatrix: error: 'wheelmatrix.yaml' is not in the index: add it first ('git add wheelmatrix.yaml')
EOF
# from a subdirectory the command to run names the file from there
wm -C "$r/src" check --staged
expect_err "('git add ../wheelmatrix.yaml')" "check --staged in a subdirectory"
# the command it gives is the one that makes it pass (with the generated files, which it then wants)
(cd "$r/src" && git add ../wheelmatrix.yaml)
wm -C "$r" check --staged
expect_status 1 "check --staged with only the matrix file added"
grep -qx "wheelmatrix.yaml:9:11: error: '.github/workflows/wheels.yml' is missing from the index: run 'wheelmatrix generate' and 'git add' it" "$tmp/err" ||
	fail "after adding the matrix file: $(cat "$tmp/err")"
git -C "$r" add -A

# -v: what was compared, and from where; quiet without -v
wm -C "$r" check --staged
expect_status 0 "check --staged"
[[ ! -s $tmp/err && ! -s $tmp/out ]] || fail "check without -v said: $(cat "$tmp/out" "$tmp/err")"
wm -C "$r" check --staged -v
expect_status 0 "check --staged -v"
expect_same - "$tmp/err" "check --staged -v" <<'EOF'
wheelmatrix: checked wheelmatrix.yaml and the 4 files it generates in the index (staged): up to date
  .wheelmatrix/patches/cuda.patch
  .github/workflows/wheels.yml
  .github/actions/wheelmatrix-build-container/action.yml
  .github/actions/wheelmatrix-check-version/action.yml
EOF
# the working tree, and the files of a commit
commit_all "$r" "project"
wm -C "$r/src" -v check
expect_status 0 "check -v in the working tree"
head -n 1 "$tmp/err" | grep -qx "wheelmatrix: checked ../wheelmatrix.yaml and the 4 files it generates in the working tree: up to date" ||
	fail "check -v in the working tree says: $(cat "$tmp/err")"
wm -C "$r" check -v --rev HEAD
head -n 1 "$tmp/err" | grep -qx "wheelmatrix: checked wheelmatrix.yaml and the 4 files it generates in commit HEAD: up to date" ||
	fail "check -v --rev says: $(cat "$tmp/err")"
# the count follows the matrix: a GitLab pipeline is one more file
printf '  gitlab: {}\n' >>"$r/wheelmatrix.yaml"
wm -q -C "$r" generate
git -C "$r" add -A
wm -C "$r" check -v
expect_status 0 "check -v with a GitLab pipeline"
grep -q "^wheelmatrix: checked wheelmatrix.yaml and the 5 files it generates in the working tree: up to date$" "$tmp/err" ||
	fail "check -v with five files says: $(cat "$tmp/err")"
grep -qx "  .gitlab-ci.yml" "$tmp/err" || fail "check -v does not list .gitlab-ci.yml: $(cat "$tmp/err")"
# a failing check says what failed, not that all is up to date
printf '# edited\n' >>"$r/.github/workflows/wheels.yml"
wm -C "$r" check -v
expect_status 1 "check -v with an edited file"
if grep -q "up to date" "$tmp/err"; then fail "a failing check -v says 'up to date': $(cat "$tmp/err")"; fi
finish
