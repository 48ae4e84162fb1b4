# lib.sh — what the test scripts share: a scratch directory, failed checks, git, running the tool.
# shellcheck shell=bash
#
# A script sources it first:
#
#   . "$ROOT/tests/lib.sh"
#
# and then has: strict mode; $WM and $ROOT checked; $tmp, a scratch directory removed at exit (even
# one a test made read-only); `git` with an identity and a default branch, whatever the machine's
# configuration; and these, which record a failed check and go on (they return 0, so a script
# under `set -e` does not stop at the first):
#
#   fail MESSAGE            records a failed check ("FAIL: MESSAGE") and goes on
#   wm ARGS...              runs the tool: exit status in $status, output in $tmp/out and $tmp/err
#   expect_status N WHAT    fails unless the last `wm` exited with N (showing its output)
#   expect_err TEXT WHAT    fails unless the last `wm` wrote TEXT (fixed, not a pattern) on stderr
#   expect_same WANT GOT WHAT  fails unless the files are the same (showing the diff)
#   scratch_repo DIR        an empty git repository at DIR
#   finish                  ends the script: exit status 1 after any failed check, else 0
set -euo pipefail
: "${WM:?}" "${ROOT:?}"

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

git() {
	command git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main \
		-c protocol.file.allow=always "$@"
}

wm() {
	status=0
	"$WM" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
}

expect_status() {
	[[ $status == "$1" ]] && return 0
	fail "$2: exit $status, not $1"
	sed 's/^/    /' "$tmp/out" "$tmp/err"
}

expect_err() {
	grep -qF -- "$1" "$tmp/err" && return 0
	fail "$2: stderr lacks '$1'"
	sed 's/^/    /' "$tmp/err"
}

expect_same() {
	diff -u --label "$3 (expected)" --label "$3 (actual)" "$1" "$2" >"$tmp/diff" && return 0
	fail "$3 differs"
	sed 's/^/    /' "$tmp/diff"
}

scratch_repo() {
	mkdir -p "$1"
	git -C "$1" init -q
}

finish() {
	((failures == 0)) || echo "$failures failed checks"
	exit $((failures > 0))
}
