#!/bin/bash
# t-nested-git.sh — generate writes nothing into a nested repository's .git through a symbolic link:
# neither `.github -> vendor/lib/.git` nor `hooks -> vendor/lib/.git/hooks` with the workflow at
# hooks/post-checkout (which would install a git hook); both are refused with exit 2.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
git() { command git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main "$@"; }

repo() {  # repo DIR WORKFLOW-PATH
	mkdir -p "$1/vendor/lib"
	git -C "$1" init -q
	git -C "$1/vendor/lib" init -q
	printf 'wheelmatrix: 1\nproject: {name: nested}\nplatforms: [linux-x86_64]\nci: {github: {path: %s}}\n' "$2" >"$1/wheelmatrix.yaml"
	find "$1/vendor/lib/.git" -type f | sort | xargs sha256sum >"$1.before"
}
after() {  # after DIR WHAT: exit 2 with the message, and the nested .git unchanged
	[ "$status" = 2 ] || no "$2: exit $status, not 2"
	grep -q "is a symbolic link that leads into '.git'" "$tmp/err" || no "$2: $(cat "$tmp/err")"
	find "$1/vendor/lib/.git" -type f | sort | xargs sha256sum | diff -u "$1.before" - >/dev/null ||
		no "$2: the nested repository's .git changed"
}

r=$tmp/a
repo "$r" .github/workflows/wheels.yml
ln -s vendor/lib/.git "$r/.github"
status=0
"$WM" -C "$r" generate >"$tmp/out" 2>"$tmp/err" || status=$?
after "$r" ".github -> vendor/lib/.git"
[ -e "$r/vendor/lib/.git/workflows" ] && no ".github -> vendor/lib/.git: generate wrote into it"

r=$tmp/b
repo "$r" hooks/post-checkout
ln -s vendor/lib/.git/hooks "$r/hooks"
status=0
"$WM" -C "$r" generate >"$tmp/out" 2>"$tmp/err" || status=$?
after "$r" "hooks -> vendor/lib/.git/hooks"
[ -e "$r/vendor/lib/.git/hooks/post-checkout" ] && no "hooks -> vendor/lib/.git/hooks: generate installed a hook"

exit "$fail"
