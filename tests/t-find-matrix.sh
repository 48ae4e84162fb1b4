#!/bin/bash
# t-find-matrix.sh — run from a subdirectory, the commands find wheelmatrix.yaml in a parent as git finds
# its repository: outputs go where the matrix is, paths in them are the same as from there; the search
# stops at the repository's top; with no matrix anywhere, the error says to run 'wheelmatrix init'.
. "$ROOT/tests/kit/lib.sh"

r=$tmp/repo
mkdir -p "$r/src/deep/er" "$r/python"
demo_project "$r"
scratch_repo "$r"
sub=$r/src/deep/er

# list: the same jobs from the top and from three levels down
wm -C "$r" list --format json
cp "$tmp/out" "$tmp/list-top"
wm -C "$sub" list --format json
expect_status 0 "list in a subdirectory"
expect_same "$tmp/list-top" "$tmp/out" "list in a subdirectory"
grep -q '"id":"cuda-linux-x86_64-cp312"' "$tmp/out" || fail "list found no jobs: $(cat "$tmp/out")"

# generate writes beside the matrix, not in the subdirectory, and says the paths from the project's top
wm -C "$sub" generate
expect_status 0 "generate in a subdirectory"
grep -qx "wrote .github/workflows/wheels.yml" "$tmp/out" || fail "generate says: $(cat "$tmp/out")"
[[ -f $r/.github/workflows/wheels.yml && -f $r/.wheelmatrix/patches/cuda.patch ]] ||
	fail "generate did not write beside the matrix file"
[[ ! -e $sub/.github && ! -e $sub/.wheelmatrix ]] || fail "generate wrote into the subdirectory"
# what it wrote is what generate at the top writes: the paths in it are the project's
cp -r "$r/.github" "$tmp/from-sub"
wm -C "$r" generate --check
expect_status 0 "generate --check at the top after generate in a subdirectory"
wm -C "$r" generate --force
cmp -s "$tmp/from-sub/workflows/wheels.yml" "$r/.github/workflows/wheels.yml" ||
	fail "the workflow generated from a subdirectory differs from the one generated at the top"

# check from a subdirectory: the working tree, then the index
commit_all "$r"
wm -C "$sub" check
expect_status 0 "check in a subdirectory"
wm -C "$r/python" check --staged
expect_status 0 "check --staged in a subdirectory"
# a diagnostic names the matrix file as seen from here
sed -i 's/cpu: {default: true}/cpu: {default: true, bogus: 1}/' "$r/wheelmatrix.yaml"
wm -C "$sub" list
expect_status 2 "a bad matrix found from a subdirectory"
grep -q "^\.\./\.\./\.\./wheelmatrix\.yaml:7:[0-9]*: error: unknown key 'bogus'" "$tmp/err" ||
	fail "the error does not name ../../../wheelmatrix.yaml: $(cat "$tmp/err")"
git -C "$r" checkout -q -- wheelmatrix.yaml

# patch (the matrix's backends) and hook install work from below too
wm -C "$sub" patch --dry-run cuda
expect_status 0 "patch in a subdirectory"
grep -qx "would apply .wheelmatrix/patches/cuda.patch to pyproject.toml" "$tmp/out" || fail "patch says: $(cat "$tmp/out")"

# a nearer matrix file wins, as a nested project's would
mkdir -p "$r/src/inner"
printf 'wheelmatrix: 1\nproject: {name: inner}\npython:\n  versions: ["3.13"]\nplatforms: [linux-aarch64]\nbackends:\n  cpu: {default: true}\n' >"$r/src/inner/wheelmatrix.yaml"
wm -C "$r/src/inner" list
grep -q "^cpu-linux-aarch64-cp313 " "$tmp/out" || fail "the nearer matrix was not used: $(cat "$tmp/out")"

# -f names the file: no search
wm -C "$sub" -f wheelmatrix.yaml list
expect_status 2 "-f wheelmatrix.yaml in a subdirectory without one"
expect_err "wheelmatrix.yaml: error: no such file" "-f is not searched for"

# the search stops at the top of the repository: a matrix above it is another project's
outer=$tmp/outer
mkdir -p "$outer/nested/below"
cp "$r/wheelmatrix.yaml" "$outer/wheelmatrix.yaml"
scratch_repo "$outer/nested"
wm -C "$outer/nested/below" list
expect_status 2 "no matrix inside the repository"
expect_same - "$tmp/err" "no matrix inside the repository" <<'EOF'
wheelmatrix: error: no wheelmatrix.yaml in this directory or any parent up to the repository's top: 'wheelmatrix init' writes one
EOF
# a linked worktree's top is a .git file: the search stops there too, not at the matrix above it
cp "$r/wheelmatrix.yaml" "$r/pyproject.toml" "$r/Cargo.toml" "$outer/nested/below/"
git -C "$r" worktree add -q "$outer/nested/below/linked" -b linked
git -C "$outer/nested/below/linked" rm -q wheelmatrix.yaml
mkdir "$outer/nested/below/linked/sub"
wm -C "$outer/nested/below/linked/sub" generate
expect_status 2 "no matrix in the linked worktree"
[[ ! -e $outer/nested/below/.github ]] || fail "generate wrote beside the matrix above the linked worktree"
# outside any repository it goes up to the filesystem's root, and says the same
mkdir -p "$tmp/plain/a/b"
wm -C "$tmp/plain/a/b" generate
expect_status 2 "no matrix anywhere"
expect_err "'wheelmatrix init' writes one" "no matrix anywhere"
# and finds one above, as in a project not yet under git
cp "$r/wheelmatrix.yaml" "$r/pyproject.toml" "$r/Cargo.toml" "$tmp/plain/"
wm -C "$tmp/plain/a/b" list
expect_status 0 "a matrix two levels up outside any repository"

# check reads the matrix from its source: the index has it though the working tree does not
git -C "$r" rm -q --cached src/inner/wheelmatrix.yaml 2>/dev/null || true
rm "$r/wheelmatrix.yaml"
wm -C "$r" check --staged
expect_status 0 "check --staged with the matrix file only in the index"
wm -C "$r" check
expect_status 2 "check with the matrix file only in the index"
expect_err "wheelmatrix: error: 'wheelmatrix.yaml' is not in the working tree: 'wheelmatrix init' writes one" \
	"check with the matrix file only in the index"
git -C "$r" checkout -q -- wheelmatrix.yaml

# init does not search: it writes a new matrix file here
cp "$r/pyproject.toml" "$r/Cargo.toml" "$r/python/"
wm -C "$r/python" init --offline
expect_status 0 "init in a subdirectory"
[[ -f $r/python/wheelmatrix.yaml ]] || fail "init did not write in the current directory"
finish
