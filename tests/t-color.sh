#!/usr/bin/env bash
# t-color.sh — diagnostics are coloured on a terminal unless NO_COLOR or --color=never says otherwise.
set -euo pipefail
: "${WM:?}"
printf 'wheelmatrix: 1\nplatforms: [linux-x86-64]\n' >bad.yaml
esc=$'\033['
fail() { echo "FAIL: $*"; exit 1; }

# without a terminal: plain unless asked
"$WM" -f bad.yaml list 2>err >/dev/null || true
grep -qF "$esc" err && fail "colour without a terminal"
"$WM" --color=always -f bad.yaml list 2>err >/dev/null || true
grep -qF "${esc}1;31merror:" err || fail "no colour with --color=always"
NO_COLOR=1 "$WM" --color=always -f bad.yaml list 2>err >/dev/null || true
grep -qF "$esc" err || fail "--color=always must win over NO_COLOR"

if ! command -v script >/dev/null 2>&1; then
	echo "FAIL: script (util-linux) is not installed, so no terminal can be tested: make test-deps (apt-get install util-linux)"
	exit 1
fi
# script(1) gives the command a terminal on stderr
on_tty() { env "$@" script -qec "'$WM' -f bad.yaml list" /dev/null >out 2>&1 || true; }
on_tty -u NO_COLOR TERM=xterm
grep -qF "$esc" out || fail "no colour on a terminal"
on_tty NO_COLOR=1 TERM=xterm
grep -qF "$esc" out && fail "colour despite NO_COLOR"
on_tty NO_COLOR= TERM=xterm
grep -qF "$esc" out || fail "an empty NO_COLOR must not disable colour"
env -u NO_COLOR TERM=xterm script -qec "'$WM' --color=never -f bad.yaml list" /dev/null >out 2>&1 || true
grep -qF "$esc" out && fail "colour despite --color=never"
exit 0
