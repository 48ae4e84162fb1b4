#!/bin/bash
# t-check-gitdir.sh — check finds the repository as git finds it: $GIT_DIR (a directory or a
# gitfile) with the current directory as the working tree, $GIT_WORK_TREE, core.worktree, a
# separate git directory, $GIT_CEILING_DIRECTORIES, a bare repository; what git refuses is an
# error that names it (exit 3), and what git accepts passes.
. "$ROOT/tests/kit/lib.sh"

# project DIR: a maturin project and its generated files
project() {
	demo_project "$1"
	"$WM" -q -C "$1" generate
}

# agree WHAT STATUS DIR [ENV=VALUE...] [-f MATRIX]: `git status` and `wheelmatrix check --staged`, run
# in DIR with the environment given: check exits STATUS, and git finds a repository when check
# does (STATUS 0 to 2), and none when check finds none (3)
agree() {
	local what=$1 want=$2 dir=$3 git_ok=0
	local -a envs=() args=()
	shift 3
	while (($#)); do
		if [[ $1 == -f ]]; then
			args=(-f "$2")
			shift 2
		else
			envs+=("$1")
			shift
		fi
	done
	env -C "$dir" "${envs[@]}" git status --porcelain >/dev/null 2>&1 || git_ok=$?
	run env -C "$dir" "${envs[@]}" "$WM" "${args[@]}" check --staged
	expect_status "$want" "$what"
	if [[ $want != 3 && $git_ok != 0 ]] || [[ $want == 3 && $git_ok == 0 ]]; then
		fail "$what: git status exits $git_ok, check $status"
	fi
}

r=$tmp/repo
project "$r"
scratch_repo "$r"
commit_all "$r"
mkdir -p "$tmp/elsewhere" "$r/sub"

agree "found from the top" 0 "$r"
agree "GIT_DIR, the current directory the top" 0 "$r" GIT_DIR="$r/.git"
agree "GIT_DIR relative" 0 "$r" GIT_DIR=.git
agree "GIT_DIR and GIT_WORK_TREE from elsewhere" 0 "$tmp/elsewhere" GIT_DIR="$r/.git" GIT_WORK_TREE="$r" \
	-f "$r/wheelmatrix.yaml"
# GIT_DIR and GIT_WORK_TREE, started in a subdirectory of the working tree holding a new project
project "$r/sub"
agree "GIT_DIR and GIT_WORK_TREE from a subdirectory" 2 "$r/sub" GIT_DIR="$r/.git" GIT_WORK_TREE="$r"
expect_err "'wheelmatrix.yaml' is not in the index: add it first ('git add wheelmatrix.yaml')" \
	"GIT_DIR and GIT_WORK_TREE from a subdirectory"
git -C "$r" add sub
agree "GIT_DIR and GIT_WORK_TREE from a subdirectory, added" 0 "$r/sub" GIT_DIR="$r/.git" GIT_WORK_TREE="$r"
git -C "$r" rm -rq --cached sub
rm -rf "$r/sub"
agree "GIT_DIR naming no repository" 3 "$r" GIT_DIR="$tmp/elsewhere"
expect_err "not a git repository: '$tmp/elsewhere' (GIT_DIR)" "GIT_DIR naming no repository"
printf 'gitdir: %s\n' "$r/.git" >"$tmp/gitfile"
agree "GIT_DIR naming a gitfile" 0 "$r" GIT_DIR="$tmp/gitfile"

# a linked worktree named by GIT_DIR and GIT_COMMON_DIR, from elsewhere
git -C "$r" worktree add -q "$tmp/linked" -b linked
agree "a linked worktree by GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE" 0 "$tmp/elsewhere" \
	GIT_DIR="$r/.git/worktrees/linked" GIT_COMMON_DIR="$r/.git" GIT_WORK_TREE="$tmp/linked" -f "$tmp/linked/wheelmatrix.yaml"
agree "a linked worktree by GIT_DIR, its top the current directory" 0 "$tmp/linked" GIT_DIR="$r/.git/worktrees/linked"

# a separate git directory (git init --separate-git-dir): .git is a gitfile
s=$tmp/separate
project "$s"
git -C "$s" init -q --separate-git-dir "$tmp/separate.git"
commit_all "$s"
agree "a separate git directory" 0 "$s"
printf 'gitdir: %s\n' "$tmp/nowhere" >"$tmp/broken-gitfile"
cp "$tmp/broken-gitfile" "$s/.git"
agree "a gitfile naming no repository" 3 "$s"
expect_err "not a git repository" "a gitfile naming no repository"
printf 'gitdir: %s\n' "$tmp/separate.git" >"$s/.git"

# core.worktree: the git directory elsewhere, its working tree named in its configuration
w=$tmp/worktree-cfg
project "$w"
git init -q --bare "$tmp/cfg.git"
git -C "$tmp/cfg.git" config core.bare false
git -C "$tmp/cfg.git" config core.worktree "$w"
GIT_DIR=$tmp/cfg.git git -C "$w" add -A
GIT_DIR=$tmp/cfg.git git -C "$w" commit -qm base
agree "core.worktree" 0 "$tmp/elsewhere" GIT_DIR="$tmp/cfg.git" -f "$w/wheelmatrix.yaml"

# GIT_CEILING_DIRECTORIES: the search does not go up into the repository
mkdir -p "$r/deep/er"
cp "$r/wheelmatrix.yaml" "$r/pyproject.toml" "$r/Cargo.toml" "$r/deep/er/"
agree "a ceiling above the repository" 2 "$r/deep/er" GIT_CEILING_DIRECTORIES="$tmp"
expect_err "'wheelmatrix.yaml' is not in the index" "a ceiling above the repository"
agree "a ceiling at the repository's top" 3 "$r/deep/er" GIT_CEILING_DIRECTORIES="$r"
expect_err "not a git repository (or any parent)" "a ceiling at the repository's top"
rm -rf "$r/deep"

# a bare repository: only a commit is read
b=$tmp/bare.git
git clone -q --bare "$r" "$b"
run "$WM" -C "$b" check --rev HEAD
expect_status 0 "check --rev HEAD in a bare repository"
run "$WM" -C "$b" check --staged
expect_status 2 "check --staged in a bare repository"
expect_err "a bare repository has no index: check a commit with --rev" "check --staged in a bare repository"

# a configuration this reader does not follow (includeIf): libgit2 reads it, with the same result
git -C "$r" config includeIf.gitdir:/nowhere/.path "$tmp/nothing.gitconfig"
agree "an includeIf in the repository's configuration" 0 "$r"
finish
