#!/bin/bash
# t-check.sh — `wheelmatrix check` on real repositories: each finding's exact text, the three sources
# (working tree, --staged, --rev), bare and linked worktrees, submodules, a project in a subdirectory,
# a read-only repository, and .git left exactly as it was.
. "$ROOT/tests/kit/lib.sh"
chmod 755 "$tmp"

# check DIR EXIT ARGS...: runs `wheelmatrix -C DIR check ARGS`; the exit status must be EXIT.
check() {
	local dir=$1 want=$2
	shift 2
	wm -C "$dir" check "$@"
	expect_status "$want" "check $* in ${dir#"$tmp"/}"
}

# says WHAT: stderr must be exactly the lines on standard input.
says() {
	expect_same - "$tmp/err" "$1: stderr"
}

# first_line A B: the first line below the three header lines where files A and B differ.
first_line() {
	local n
	n=$(cmp <(tail -n +4 "$1") <(tail -n +4 "$2") | sed -n 's/.*, line \([0-9]*\)$/\1/p' || true)
	echo $((n + 3))
}

# A small maturin project: one GPU backend, the CPU default, GitHub only.
new_project() {
	local dir=$1
	maturin_project "$dir" demo 1.2.0
	cat >>"$dir/pyproject.toml" <<'EOF'
requires-python = ">=3.9"

[tool.maturin]
features = ["pyo3/extension-module"]
EOF
	cat >>"$dir/Cargo.toml" <<'EOF'
edition = "2021"

[lib]
name = "demo"
crate-type = ["cdylib"]

[dependencies]
pyo3 = "0.22"

[features]
cublas = []
EOF
	cat >"$dir/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
python:
  versions: ["3.12", "3.13"]
platforms: [linux-x86_64]
backends:
  cuda:
    features: [cublas]
  cpu:
    default: true
actions:
  actions/checkout: v5
ci:
  github: {path: .github/workflows/wheels.yml}
EOF
	"$WM" -q -C "$dir" generate
}

new_repo() {
	new_project "$1"
	scratch_repo "$1"
	commit_all "$1"
}

wf=.github/workflows/wheels.yml

# ---- a clean repository, from each source ---------------------------------------------------------
r=$tmp/clean
new_repo "$r"
snapshot() { (cd "$1" && find .git -printf '%p %s %m %T@\n' | LC_ALL=C sort | sha256sum); }
before=$(snapshot "$r")
for src in "" --staged --worktree "--rev HEAD" "--rev main"; do
	# shellcheck disable=SC2086  # the source is one or two words
	check "$r" 0 $src && says "clean repository, check $src" </dev/null
done
PRE_COMMIT=1 check "$r" 0
[ "$(snapshot "$r")" = "$before" ] || fail "check wrote under .git"

# ---- a stale workflow, fixed in the working tree but not staged: --staged still fails --------------
r=$tmp/staged
new_repo "$r"
git -C "$r" show "HEAD:$wf" >"$tmp/committed.yml"
sed -i 's/"3.13"\]/"3.13", "3.11"]/' "$r/wheelmatrix.yaml"
git -C "$r" add wheelmatrix.yaml
"$WM" -q -C "$r" generate
line=$(first_line "$tmp/committed.yml" "$r/$wf")
check "$r" 0 && says "fixed in the working tree" </dev/null
check "$r" 1 --staged && says "stale in the index" <<EOF
$wf:$line:1: error: out of date in the index, but regenerated in the working tree and not staged: stage it ('git add $wf')
EOF
PRE_COMMIT=1 check "$r" 1 && says "PRE_COMMIT=1 reads the index" <<EOF
$wf:$line:1: error: out of date in the index, but regenerated in the working tree and not staged: stage it ('git add $wf')
EOF
# committed as it is, the commit is stale and its parent is not
git -C "$r" commit -qm "matrix only"
check "$r" 1 --rev HEAD && says "a stale commit" <<EOF
$wf:$line:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'
EOF
check "$r" 0 --rev HEAD~1 && says "the commit before" </dev/null
check "$r" 2 --rev nosuchrev && says "an unknown revision" <<EOF
wheelmatrix: error: unknown revision 'nosuchrev'
EOF

# ---- hand edits -----------------------------------------------------------------------------------
r=$tmp/edits
new_repo "$r"
sed -i 's/^name: wheels$/name: wheels (mine)/' "$r/$wf"
line=$(grep -n '^name: ' "$r/$wf" | cut -d: -f1)
check "$r" 1 && says "a hand-edited workflow" <<EOF
$wf:$line:1: error: edited by hand since it was generated: move the change into wheelmatrix.yaml and run 'wheelmatrix generate' (--force drops the edit)
EOF
git -C "$r" checkout -q -- "$wf"
# Dependabot's edit: only the references of uses: lines
sed -i 's|actions/checkout@v5|actions/checkout@v6|' "$r/$wf"
n=$(grep -c 'actions/checkout@v6' "$r/$wf")
line=$(grep -n 'actions/checkout@v6' "$r/$wf" | head -1 | cut -d: -f1)
col=$(grep 'actions/checkout@v6' "$r/$wf" | head -1 | awk '{ print index($0, "actions/checkout") }')
places=""
[ "$n" = 1 ] || places=", $n places"
check "$r" 1 && says "uses: references bumped" <<EOF
$wf:$line:$col: error: action reference bumped by hand: 'actions/checkout@v6' (generated: 'actions/checkout@v5'$places); pin it in the 'actions:' table of wheelmatrix.yaml and run 'wheelmatrix generate'
wheelmatrix.yaml:11:3: note: 'actions/checkout' is pinned to 'v5' here
EOF
git -C "$r" checkout -q -- "$wf"
# a file wheelmatrix did not write in place of a patch (git's, with abbreviated ids): not read further
cp "$r/pyproject.toml" "$tmp/py.toml"
sed -i 's/^name = "demo"/name = "demo-gpu"/' "$r/pyproject.toml"
git -C "$r" diff pyproject.toml >"$r/.wheelmatrix/patches/cuda.patch"
git -C "$r" checkout -q -- pyproject.toml
check "$r" 1 && says "a foreign patch" <<EOF
.wheelmatrix/patches/cuda.patch:1:1: error: not written by wheelmatrix (it has no wheelmatrix header): remove it, or run 'wheelmatrix generate --force' to replace it
.wheelmatrix/patches/cuda.patch:2:1: error: not a patch of the shape 'wheelmatrix generate' writes (an index line without both full blob ids): nothing reads it further; run 'wheelmatrix generate'
EOF
git -C "$r" checkout -q -- .wheelmatrix

# ---- pyproject.toml edited so that the patch no longer applies ------------------------------------
r=$tmp/noapply
new_repo "$r"
sed -i 's/^name = "demo"$/name = "demo"  # the base name/' "$r/pyproject.toml"
check "$r" 1 && says "a patch that no longer applies" <<EOF
.wheelmatrix/patches/cuda.patch:1:1: error: does not apply to pyproject.toml exactly where its hunks say: run 'wheelmatrix generate'
.wheelmatrix/patches/cuda.patch:5:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'
EOF
git -C "$r" checkout -q -- pyproject.toml

# ---- a static version: maturin publishes it, whatever the crate's version is ---------------------
sed -i 's/^version = "1.2.0"/version = "1.3.0"/' "$r/Cargo.toml"
check "$r" 0 && says "a static version beside another crate version" </dev/null
git -C "$r" checkout -q -- .

# ---- files git does not see ---------------------------------------------------------------------
r=$tmp/unseen
new_repo "$r"
printf '.wheelmatrix/\n' >"$r/.gitignore"
check "$r" 1 && says "an ignored .wheelmatrix/" <<EOF
.wheelmatrix/patches/cuda.patch: error: ignored by git (.gitignore or .git/info/exclude): CI would not see it; stop ignoring it
EOF
rm "$r/.gitignore"
git -C "$r" rm -q --cached "$wf"
check "$r" 1 && says "an untracked workflow" <<EOF
$wf: error: not tracked by git: 'git add' it
EOF
check "$r" 1 --staged && says "a workflow missing from the index" <<EOF
wheelmatrix.yaml:13:11: error: '$wf' is missing from the index: run 'wheelmatrix generate' and 'git add' it
EOF
git -C "$r" rm -q --cached wheelmatrix.yaml
check "$r" 2 --staged && says "no matrix file in the index" <<EOF
wheelmatrix: error: 'wheelmatrix.yaml' is not in the index: add it first ('git add wheelmatrix.yaml')
EOF

# ---- an invalid matrix file: the loader's diagnostics, exit 2 -----------------------------------------
r=$tmp/invalid
new_repo "$r"
sed -i 's/features: \[cublas\]/features: [cublsa]/' "$r/wheelmatrix.yaml"
check "$r" 2
grep -q "^wheelmatrix.yaml:7:16: error: .*'cublsa'.*did you mean 'cublas'" "$tmp/err" || fail "a misspelt feature says: $(cat "$tmp/err")"

# ---- no repository ---------------------------------------------------------------------------------
mkdir "$tmp/plain"
new_project "$tmp/plain/p"
check "$tmp/plain/p" 3 && says "no repository" <<EOF
wheelmatrix: error: not a git repository (or any parent): .
EOF

# ---- a bare repository: commits only ------------------------------------------------------------------
git clone -q --bare "$tmp/clean" "$tmp/bare.git"
check "$tmp/bare.git" 2 && says "a bare repository's working tree" <<EOF
wheelmatrix: error: a bare repository has no working tree: check a commit with --rev
EOF
check "$tmp/bare.git" 0 --rev HEAD && says "a bare repository's HEAD" </dev/null

# ---- a project in a subdirectory, a linked worktree, a submodule ----------------------------------------
r=$tmp/mono
mkdir -p "$r"
new_project "$r/python/demo"
printf 'unrelated\n' >"$r/README"
scratch_repo "$r"
commit_all "$r"
check "$r/python/demo" 0 --staged && says "-C sub, index" </dev/null
check "$r/python/demo" 0 --rev HEAD && says "-C sub, commit" </dev/null
sed -i 's/^name: wheels$/name: wheels (mine)/' "$r/python/demo/$wf"
check "$r/python/demo" 1 && says "-C sub, hand edit" <<EOF
$wf:4:1: error: edited by hand since it was generated: move the change into wheelmatrix.yaml and run 'wheelmatrix generate' (--force drops the edit)
EOF
git -C "$r" checkout -q -- .

git -C "$tmp/clean" worktree add -q "$tmp/linked" -b linked
check "$tmp/linked" 0 --staged && says "a linked worktree" </dev/null
sed -i 's/"3.13"\]/"3.13", "3.11"]/' "$tmp/linked/wheelmatrix.yaml"
git -C "$tmp/linked" add wheelmatrix.yaml
check "$tmp/linked" 1 --staged
grep -q "^$wf:[0-9]*:1: error: out of date" "$tmp/err" || fail "a linked worktree's own index is not read: $(cat "$tmp/err")"
check "$tmp/clean" 0 --staged && says "the main worktree, untouched by the linked one" </dev/null

r=$tmp/super
new_repo "$r"
git -C "$r" submodule add -q "$tmp/clean" vendor/demo 2>/dev/null
git -C "$r" commit -qm submodule
check "$r" 0 --staged && says "a repository with a submodule" </dev/null
check "$r" 0 --rev HEAD && says "a commit with a submodule" </dev/null

# ---- JSON -------------------------------------------------------------------------------------------
r=$tmp/edits
sed -i 's/^name: wheels$/name: wheels (mine)/' "$r/$wf"
check "$r" 1 --format json --diff
python3 - "$tmp/out" "$wf" <<'PY' || fail "check --format json"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["ok"] is False and doc["errors"] == 1 and doc["warnings"] == 0, doc
(f,) = doc["findings"]
assert f["file"] == sys.argv[2] and f["line"] == 4 and f["column"] == 1 and f["severity"] == "error", f
assert f["message"].startswith("edited by hand"), f
assert "-name: wheels (mine)\n+name: wheels\n" in doc["diff"], doc["diff"]
PY
[ ! -s "$tmp/err" ] || fail "check --format json wrote to stderr: $(cat "$tmp/err")"
check "$r" 1 --diff
grep -qx -- "-name: wheels (mine)" "$tmp/out" || fail "--diff does not show the edit as what generate takes out"
git -C "$r" checkout -q -- .

# ---- a read-only repository, checked by a user who cannot write to it ------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	r=$tmp/readonly
	new_repo "$r"
	cp "$WM" "$tmp/wheelmatrix"
	chmod 755 "$tmp/wheelmatrix"
	chown -R 65534:65534 "$r"
	chmod -R a-w "$r"
	before=$(snapshot "$r")
	cd "$r"
	for src in --staged "--rev HEAD" --worktree; do
		# shellcheck disable=SC2086
		HOME=$tmp/nobody run setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/wheelmatrix" check $src
		expect_status 0 "read-only repository, $src"
		[ -s "$tmp/err" ] && fail "read-only repository, $src: stderr: $(cat "$tmp/err")"
	done
	cd - >/dev/null
	[ "$(snapshot "$r")" = "$before" ] || fail "check changed a read-only repository"
else
	echo "note: the read-only repository case needs root and setpriv; not run"
fi

finish
