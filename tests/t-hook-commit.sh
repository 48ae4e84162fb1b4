#!/bin/bash
# t-hook-commit.sh — the hook checks the index git is committing, in every form of `git commit`: -a,
# PATH, -i PATH, --only PATH, --amend, --amend -a, in a linked worktree, with a split index, from a
# rebase's exec step, for a project in a subdirectory; each refused with drift and passed when
# clean, with repo/gitindex.c reading the index and with libgit2 reading it (core.ignorecase).
# An index that cannot be read is an error naming it (exit 3), never a pass.
. "$ROOT/tests/kit/lib.sh"
mkdir "$tmp/bin"
ln -s "$WM" "$tmp/bin/wheelmatrix"
export PATH="$tmp/bin:$PATH"
dump=${WM%/*}/tests/index-dump
need "$dump" "make check (builds build/tests/index-dump)"

# project DIR: a maturin project with a GPU backend (a variant patch) and its generated files
project() {
	demo_project "$1"
	wheelmatrix -q -C "$1" generate
}

# repo DIR MODE [SUB]: a committed repository with the hook installed, the project at DIR/SUB;
# MODE libgit2 makes libgit2 read the index (core.ignorecase), direct leaves it to gitindex.c
repo() {
	local dir=$1 mode=$2 sub=${3:-}
	project "$dir${sub:+/$sub}"
	scratch_repo "$dir"
	[[ $mode == libgit2 ]] && git -C "$dir" config core.ignorecase true
	commit_all "$dir"
	wheelmatrix -q -C "$dir${sub:+/$sub}" hook install || fatal "hook install in $dir"
}

# drift DIR: the matrix asks for other Python versions (each time others); the workflow is not regenerated
drifts=0
drift() {
	local versions=('"3.13"' '"3.11", "3.12"' '"3.10"' '"3.12", "3.13"' '"3.11"')
	sed -i "s/^  versions: .*/  versions: [${versions[drifts++ % ${#versions[@]}]}]/" "$1/wheelmatrix.yaml"
}

# regenerate DIR: the matrix's files written anew (in the working tree only)
regenerate() {
	wheelmatrix -q -C "$1" generate || fail "generate in $1"
}

# refused WHAT DIR GIT-ARGS...: the commit must fail with the stale workflow, committing nothing
refused() {
	local what=$1 dir=$2 head
	shift 2
	head=$(git -C "$dir" rev-parse HEAD)
	run git -C "$dir" "$@"
	expect_status 1 "$what: git $* with drift"
	grep -q "wheels.yml:[0-9]*:1: error: out of date" "$tmp/err" || fail "$what: the refusal says: $(cat "$tmp/err")"
	[[ $(git -C "$dir" rev-parse HEAD) == "$head" ]] || fail "$what: a commit with drift went through"
}

# passed WHAT DIR GIT-ARGS...: the commit must go through
passed() {
	local what=$1 dir=$2 head
	shift 2
	head=$(git -C "$dir" rev-parse HEAD)
	run git -C "$dir" "$@"
	expect_status 0 "$what: git $* when clean"
	[[ $(git -C "$dir" rev-parse HEAD) != "$head" ]] || fail "$what: the clean commit did not go through"
	git -C "$dir" diff --quiet HEAD -- || fail "$what: the clean commit left changes behind: $(git -C "$dir" status --short)"
}

for mode in direct libgit2; do
	# commit -a: the working tree's changes, staged into .git/index.lock
	r=$tmp/$mode-a
	repo "$r" $mode
	drift "$r"
	refused "$mode, -a" "$r" commit -qam change
	regenerate "$r"
	passed "$mode, -a" "$r" commit -qam change

	# commit PATH and --only PATH: only those paths, over HEAD, in .git/next-index-*.lock
	r=$tmp/$mode-path
	repo "$r" $mode
	drift "$r"
	refused "$mode, PATH" "$r" commit -qm change wheelmatrix.yaml
	refused "$mode, --only PATH" "$r" commit -qm change --only wheelmatrix.yaml
	# the regenerated workflow staged, but left out of the commit by --only
	regenerate "$r"
	git -C "$r" add -A
	refused "$mode, --only PATH, the fix staged but not committed" "$r" commit -qm change --only wheelmatrix.yaml
	passed "$mode, PATH" "$r" commit -qm change wheelmatrix.yaml .github/workflows/wheels.yml
	drift "$r"
	regenerate "$r"
	passed "$mode, --only PATH" "$r" commit -qm change --only wheelmatrix.yaml .github/workflows/wheels.yml

	# commit -i PATH: the staged changes and those paths
	r=$tmp/$mode-i
	repo "$r" $mode
	drift "$r"
	refused "$mode, -i PATH" "$r" commit -qm change -i wheelmatrix.yaml
	regenerate "$r"
	git -C "$r" add .github
	passed "$mode, -i PATH" "$r" commit -qm change -i wheelmatrix.yaml

	# --amend with what is staged (.git/index, named relative to the top), and --amend -a
	r=$tmp/$mode-amend
	repo "$r" $mode
	drift "$r"
	git -C "$r" add wheelmatrix.yaml
	refused "$mode, --amend" "$r" commit -q --amend -m amended
	regenerate "$r"
	git -C "$r" add -A
	passed "$mode, --amend" "$r" commit -q --amend -m amended
	drift "$r"
	refused "$mode, --amend -a" "$r" commit -q --amend -a -m amended
	regenerate "$r"
	passed "$mode, --amend -a" "$r" commit -q --amend -a -m amended

	# a linked worktree: $GIT_DIR names its own git directory, the hook runs at its top
	r=$tmp/$mode-linked
	repo "$r" $mode
	git -C "$r" worktree add -q "$tmp/$mode-wt" -b linked
	drift "$tmp/$mode-wt"
	refused "$mode, linked worktree -a" "$tmp/$mode-wt" commit -qam change
	regenerate "$tmp/$mode-wt"
	passed "$mode, linked worktree -a" "$tmp/$mode-wt" commit -qam change

	# a project in a subdirectory of a linked worktree, committed from a directory below it
	r=$tmp/$mode-mono
	repo "$r" $mode py/demo
	grep -qx "WHEELMATRIX_HOOK=1 exec wheelmatrix -f 'py/demo/wheelmatrix.yaml' check --staged" "$r/.git/hooks/pre-commit" ||
		fail "$mode: the hook of a project in py/demo: $(cat "$r/.git/hooks/pre-commit")"
	git -C "$r" worktree add -q "$tmp/$mode-monowt" -b linked
	drift "$tmp/$mode-monowt/py/demo"
	refused "$mode, subdirectory of a linked worktree -a" "$tmp/$mode-monowt/py" commit -qam change
	regenerate "$tmp/$mode-monowt/py/demo"
	passed "$mode, subdirectory of a linked worktree -a" "$tmp/$mode-monowt/py" commit -qam change

	# a rebase's exec step commits through the hook
	r=$tmp/$mode-rebase
	repo "$r" $mode
	echo "notes" >"$r/NOTES"
	commit_all "$r" second
	cat >"$tmp/exec.sh" <<'EOF'
#!/bin/sh
sed -i 's/"3.12"\]/"3.12", "3.13"]/' wheelmatrix.yaml
[ -z "$CLEAN" ] || wheelmatrix -q generate
exec git -c user.name=t -c user.email=t@example.com commit -qam exec
EOF
	chmod +x "$tmp/exec.sh"
	head=$(git -C "$r" rev-parse HEAD)
	run git -C "$r" rebase -q --exec "$tmp/exec.sh" HEAD~1
	[[ $status != 0 ]] || fail "$mode: a rebase whose exec step commits drift went on"
	grep -q "wheels.yml:[0-9]*:1: error: out of date" "$tmp/err" || fail "$mode, rebase --exec: the refusal says: $(cat "$tmp/err")"
	git -C "$r" rebase --abort
	[[ $(git -C "$r" rev-parse HEAD) == "$head" ]] || fail "$mode: the refused rebase moved HEAD"
	CLEAN=1 run git -C "$r" rebase -q --exec "$tmp/exec.sh" HEAD~1
	expect_status 0 "$mode: a rebase whose exec step commits a clean change"
	[[ $(git -C "$r" log -1 --format=%s) == exec ]] || fail "$mode: the clean exec step did not commit"
done

# a variant's pyproject.toml (wheelmatrix patch before a local build), and a renamed project, by -a
for mode in direct libgit2; do
	r=$tmp/$mode-patched
	repo "$r" $mode
	wheelmatrix -q -C "$r" patch cuda || fail "$mode: patch cuda"
	head=$(git -C "$r" rev-parse HEAD)
	run git -C "$r" commit -qam variant
	expect_status 1 "$mode: git commit -a of the cuda variant's pyproject.toml"
	expect_err "pyproject.toml: error: is staged with the patch of backend 'cuda' applied (wheelmatrix patch): the commit would make the variant the project; run 'wheelmatrix patch cuda --revert' and 'git add pyproject.toml'" \
		"$mode: git commit -a of the cuda variant's pyproject.toml"
	[[ $(git -C "$r" rev-parse HEAD) == "$head" ]] || fail "$mode: the cuda variant's pyproject.toml was committed"
	wm -C "$r" check
	expect_status 1 "$mode: check of the working tree with the cuda patch applied"
	expect_err "run 'wheelmatrix patch cuda --revert'" "$mode: check of the working tree with the cuda patch applied"
	run wheelmatrix -q -C "$r" patch cuda --revert
	expect_status 0 "$mode: patch cuda --revert"
	sed -i 's/^name = "demo"$/name = "demo-renamed"/' "$r/pyproject.toml"
	run git -C "$r" commit -qam renamed
	[[ $status != 0 ]] || fail "$mode: git commit -a of a renamed project went through"
	[[ $(git -C "$r" rev-parse HEAD) == "$head" ]] || fail "$mode: the renamed project was committed"
done

# a split index (core.splitIndex): the lock git commits from links to a shared index
r=$tmp/split
repo "$r" direct
git -C "$r" config core.splitIndex true
git -C "$r" update-index --split-index
run "$dump" --split "$r/.git"
expect_status 0 "the index is split"
drift "$r"
refused "split index, -a" "$r" commit -qam change
refused "split index, PATH" "$r" commit -qm change wheelmatrix.yaml
regenerate "$r"
passed "split index, -a" "$r" commit -qam change
run "$dump" --split "$r/.git"
expect_status 0 "the index is still split"

# libgit2 is not started when the index and the working tree answer (lazy binding: the first call binds)
r=$tmp/direct-a
if readelf -d "$WM" | grep -Eq 'BIND_NOW|FLAGS.*NOW'; then
	fail "$WM binds every symbol at start-up: whether libgit2 was started cannot be told"
else
	started() {
		rm -f "$tmp"/ld.*
		(cd "$r" && LD_DEBUG=bindings LD_DEBUG_OUTPUT=$tmp/ld "$WM" "$@" >/dev/null 2>&1) || true
		grep -q "symbol \`git_libgit2_init'" "$tmp"/ld.*
	}
	started check --staged && fail "check --staged of a clean repository started libgit2"
	started check --worktree && fail "check --worktree of a clean repository started libgit2"
	# a staged workflow that differs from the working tree's copy: the object store is read
	wf=$r/.github/workflows/wheels.yml
	echo "# edited" >>"$wf"
	git -C "$r" add -A
	git -C "$r" show HEAD:.github/workflows/wheels.yml >"$wf"
	started check --staged || fail "check --staged did not read the object store for a blob the working tree lacks"
	wm -C "$r" check --staged
	expect_status 1 "check --staged of a staged edit the working tree lacks"
	expect_err "wheels.yml" "check --staged of a staged edit the working tree lacks"
	git -C "$r" reset -q --hard
fi

# an index that cannot be read: named, exit 3, never a pass
r=$tmp/direct-path
GIT_INDEX_FILE=$tmp/nothing-here run wheelmatrix -C "$r" check --staged
expect_status 3 "a missing GIT_INDEX_FILE"
expect_err "$tmp/nothing-here: error: cannot read the index git is committing (GIT_INDEX_FILE): No such file or directory" "a missing GIT_INDEX_FILE"
head -c 100 "$r/.git/index" >"$tmp/cut-index"
GIT_INDEX_FILE=$tmp/cut-index run wheelmatrix -C "$r" check --staged
expect_status 3 "a corrupt GIT_INDEX_FILE"
expect_err "$tmp/cut-index: error: cannot read the index" "a corrupt GIT_INDEX_FILE"
# a relative GIT_INDEX_FILE is taken from the top of the working tree, as git takes it
cp "$r/.git/index" "$r/.git/other-index"
run env -C "$r/.github" GIT_INDEX_FILE=.git/other-index wheelmatrix -f ../wheelmatrix.yaml check --staged
expect_status 0 "a relative GIT_INDEX_FILE from a subdirectory"

finish
