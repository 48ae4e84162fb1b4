#!/bin/bash
# t-nested-git.sh — generate writes nothing into a nested repository's .git through a symbolic link:
# neither `.github -> vendor/lib/.git` nor `hooks -> vendor/lib/.git/hooks` with the workflow at
# hooks/post-checkout (which would install a git hook); both are refused with exit 2.
. "$ROOT/tests/kit/lib.sh"

repo() {  # repo DIR WORKFLOW-PATH
	scratch_repo "$1"
	scratch_repo "$1/vendor/lib"
	printf 'wheelmatrix: 1\nproject: {name: nested}\nplatforms: [linux-x86_64]\nci: {github: {path: %s}}\n' "$2" >"$1/wheelmatrix.yaml"
	find "$1/vendor/lib/.git" -type f | sort | xargs sha256sum >"$1.before"
}
after() {  # after DIR WHAT: exit 2 with the message, and the nested .git unchanged
	expect_status 2 "$2"
	expect_err "is a symbolic link that leads into '.git'" "$2"
	find "$1/vendor/lib/.git" -type f | sort | xargs sha256sum | diff -u "$1.before" - >/dev/null ||
		fail "$2: the nested repository's .git changed"
}

r=$tmp/a
repo "$r" .github/workflows/wheels.yml
ln -s vendor/lib/.git "$r/.github"
wm -C "$r" generate
after "$r" ".github -> vendor/lib/.git"
[ -e "$r/vendor/lib/.git/workflows" ] && fail ".github -> vendor/lib/.git: generate wrote into it"

r=$tmp/b
repo "$r" hooks/post-checkout
ln -s vendor/lib/.git/hooks "$r/hooks"
wm -C "$r" generate
after "$r" "hooks -> vendor/lib/.git/hooks"
[ -e "$r/vendor/lib/.git/hooks/post-checkout" ] && fail "hooks -> vendor/lib/.git/hooks: generate installed a hook"

finish
