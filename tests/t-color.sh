#!/usr/bin/env bash
# t-color.sh — diagnostics are coloured on a terminal unless NO_COLOR or --color=never says otherwise.
. "$ROOT/tests/kit/lib.sh"
printf 'wheelmatrix: 1\nplatforms: [linux-x86-64]\n' >"$tmp/bad.yaml"
esc=$'\033['

# without a terminal: plain unless asked
wm -f "$tmp/bad.yaml" list
grep -qF "$esc" "$tmp/err" && fail "colour without a terminal"
wm --color=always -f "$tmp/bad.yaml" list
grep -qF "${esc}1;31merror:" "$tmp/err" || fail "no colour with --color=always"
NO_COLOR=1 wm --color=always -f "$tmp/bad.yaml" list
grep -qF "$esc" "$tmp/err" || fail "--color=always must win over NO_COLOR"

need script "make test-deps (apt-get install util-linux), so that a terminal can be tested"
# script(1) gives the command a terminal on stderr
on_tty() { env "$@" script -qec "'$WM' -f '$tmp/bad.yaml' list" /dev/null >"$tmp/out" 2>&1 || true; }
on_tty -u NO_COLOR TERM=xterm
grep -qF "$esc" "$tmp/out" || fail "no colour on a terminal"
on_tty NO_COLOR=1 TERM=xterm
grep -qF "$esc" "$tmp/out" && fail "colour despite NO_COLOR"
on_tty NO_COLOR= TERM=xterm
grep -qF "$esc" "$tmp/out" || fail "an empty NO_COLOR must not disable colour"
env -u NO_COLOR TERM=xterm script -qec "'$WM' --color=never -f '$tmp/bad.yaml' list" /dev/null >"$tmp/out" 2>&1 || true
grep -qF "$esc" "$tmp/out" && fail "colour despite --color=never"
finish
