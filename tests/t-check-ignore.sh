#!/bin/bash
# t-check-ignore.sh — check reports a generated file as ignored exactly when git's ignore rules
# ignore it (`git check-ignore --no-index`): .gitignore files at every level, negations, anchors,
# '**', brackets, escapes, .git/info/exclude, core.excludesFile and the user's ignore file; and a
# project's usual .gitignore, which matches none of them, does not make check start libgit2.
. "$ROOT/tests/kit/lib.sh"
mkdir -p "$tmp/home"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config GIT_CONFIG_NOSYSTEM=1
unset GIT_CONFIG_GLOBAL

r=$tmp/repo
demo_project "$r"
"$WM" -q -C "$r" generate
scratch_repo "$r"
commit_all "$r"
generated=(.github/workflows/wheels.yml .github/actions/wheelmatrix-build-container/action.yml
	.github/actions/wheelmatrix-check-version/action.yml .wheelmatrix/patches/cuda.patch)

# case NAME: with the ignore files as they are now, check (each source that reads the working tree's
# rules) reports as ignored exactly the generated files git ignores
case_() {
	local name=$1 want got f mode
	want=$(for f in "${generated[@]}"; do git -C "$r" check-ignore -q --no-index "$f" && echo "$f"; done || true)
	for mode in --staged --worktree; do
		wm -C "$r" check "$mode"
		got=$(sed -n 's/^\([^:]*\): error: ignored by git .*/\1/p' "$tmp/err" | sort)
		[[ $got == "$(sort <<<"$want" | sed '/^$/d')" ]] ||
			fail "$name, check $mode: reports ignored '${got//$'\n'/ }', git ignores '${want//$'\n'/ }'"
	done
}

# gitignore NAME LINES: one .gitignore at the top
gitignore() {
	printf '%s\n' "$2" >"$r/.gitignore"
	case_ "$1"
	rm "$r/.gitignore"
}

gitignore "a directory" ".github/"
gitignore "an extension" "*.yml"
gitignore "anchored" "/.wheelmatrix"
gitignore "anchored, elsewhere" "/workflows"
gitignore "a path with a glob" ".wheelmatrix/patches/*.patch"
gitignore "a leading **" "**/*.patch"
gitignore "a middle **" ".github/**/wheels.yml"
gitignore "a trailing **" ".github/**"
gitignore "a name" "wheels.yml"
gitignore "a directory's name" "workflows"
gitignore "a negation after" $'*.patch\n!cuda.patch'
gitignore "a negation of a directory's content" $'.github/\n!.github/workflows/wheels.yml'
gitignore "a bracket expression" "[.]github"
gitignore "a negated bracket" ".[!g]ithub"
gitignore "another case" "WHEELS.yml"
gitignore "an escape" "\\.github"
gitignore "a comment" "# .github"
gitignore "an escaped comment" "\\#"
gitignore "everything" "*"
gitignore "everything but directories and yml" $'*\n!*/\n!*.yml'
gitignore "trailing spaces" ".github/   "
gitignore "a question mark" "wheels.ym?"
gitignore "a usual project's" $'/target\n*.so\n__pycache__/\n.venv/\ndist/\n*.egg-info/\n.pytest_cache/'

# a .gitignore below the top, relative to its directory
mkdir -p "$r/.github"
printf 'workflows/\n' >"$r/.github/.gitignore"
case_ ".github/.gitignore"
printf '/wheels.yml\n' >"$r/.github/.gitignore"
case_ ".github/.gitignore anchored to .github, not to workflows"
rm "$r/.github/.gitignore"
printf '*.yml\n' >"$r/.github/workflows/.gitignore"
case_ ".github/workflows/.gitignore"
rm "$r/.github/workflows/.gitignore"

# .git/info/exclude, core.excludesFile (relative to the top), the user's ignore file
printf '*.patch\n' >"$r/.git/info/exclude"
case_ ".git/info/exclude"
: >"$r/.git/info/exclude"
printf 'wheels.yml\n' >"$r/excludes"
git -C "$r" config core.excludesFile excludes
case_ "core.excludesFile"
git -C "$r" config --unset core.excludesFile
mkdir -p "$XDG_CONFIG_HOME/git"
printf '.wheelmatrix/\n' >"$XDG_CONFIG_HOME/git/ignore"
case_ "the user's ignore file"
rm "$XDG_CONFIG_HOME/git/ignore"
printf '[core]\n\texcludesFile = ~/my-ignores\n' >"$HOME/.gitconfig"
printf '.github\n' >"$HOME/my-ignores"
case_ "core.excludesFile of the user's configuration"
printf '[include]\n\tpath = more.gitconfig\n' >"$HOME/.gitconfig"
printf '[core]\n\texcludesFile = ~/my-ignores\n' >"$HOME/more.gitconfig"
case_ "core.excludesFile of an included configuration"
rm "$HOME/.gitconfig" "$HOME/more.gitconfig" "$HOME/my-ignores"

# a usual project's .gitignore: nothing may match, and libgit2 is not started to be sure
printf '/target\n*.so\n__pycache__/\n.venv/\ndist/\n' >"$r/.gitignore"
git -C "$r" add .gitignore
git -C "$r" commit -qm gitignore
rm -f "$tmp"/ld.*
(cd "$r" && LD_DEBUG=bindings LD_DEBUG_OUTPUT=$tmp/ld "$WM" check --staged >/dev/null 2>&1) || fail "check --staged with a usual .gitignore"
grep -q "symbol \`git_libgit2_init'" "$tmp"/ld.* && fail "check --staged started libgit2 for a .gitignore that matches no generated file"
finish
