#!/usr/bin/env bash
# t-diag-long-line.sh — errors on a line of 16 MiB: each diagnostic quotes at most 160 columns around its
# caret, the caret under the character the message names, a message of at most 1,024 bytes, and goes to
# stderr in one write (counted by strace); a one-line flow list of unknown platforms stops at 100 errors.
. "$ROOT/tests/kit/lib.sh"
need python3 "apt-get install python3"
need strace "apt-get install strace"

# Matrices of just under 16 MiB (the loader's limit) on one line: (1) a name longer than a message may
# quote, and unknown keys around a value of 16 MiB; (2) a flow list of 2.7 million unknown platforms, each
# named once.
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
room = 16 * 1024 * 1024 - 200
name = "k" * 3000 + "!"
value = "é" * ((room - len(name)) // 2 - 100)
open(f"{d}/long.yaml", "w").write(
    'wheelmatrix: 1\nproject: {name: "' + name + '", pyhton: 1, notes: "' + value + '", modul: y}\n'
    'backends: {cpu: {default: true}}\n')
items, size, i = [], 0, 0
while size < room - 100:
    items.append(f"bad{i}")
    size += len(items[-1]) + 2
    i += 1
open(f"{d}/flow.yaml", "w").write("wheelmatrix: 1\nproject: {name: x}\nplatforms: [" + ", ".join(items) + "]\n")
PY
[[ $(stat -c %s "$tmp/long.yaml") -le $((16 << 20)) && $(stat -c %s "$tmp/flow.yaml") -le $((16 << 20)) ]] ||
	fatal "the matrices are over the loader's limit"

# check_quotes NAME: every diagnostic of $tmp/NAME.err is a message line of at most 1,024 bytes of message,
# a quoted line of at most 160 columns and a caret line whose caret is under the name the message quotes
check_quotes() {
	python3 - "$tmp/$1.err" >"$tmp/report" 2>&1 <<'PY' || fail "$1: $(cat "$tmp/report")"
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
diags = 0
i = 0
while i < len(lines) and lines[i]:
    head = lines[i]
    m = re.match(r"[^:]+:\d+:(\d+): error: (.*)$", head)
    if not m:
        if head.startswith("wheelmatrix: note: too many errors"):
            i += 1
            continue
        raise SystemExit(f"not a diagnostic: {head[:200]!r}")
    message = m.group(2)
    if len(message.encode()) > 1024:
        raise SystemExit(f"a message of {len(message.encode())} bytes")
    quote, caret = lines[i + 1], lines[i + 2]
    q = re.match(r" +\d+ \| (.*)$", quote)
    c = re.match(r" +\| ( *)(\^~*)$", caret)
    if not q or not c:
        raise SystemExit(f"no quote and caret after {head[:100]!r}: {quote[:100]!r} {caret[:100]!r}")
    text, col, span = q.group(1), len(c.group(1)), len(c.group(2))
    if len(text) > 160:
        raise SystemExit(f"a quote of {len(text)} columns")
    name = re.search(r"'([^']*)'", message).group(1)
    if name.endswith("...") or "..." in name:
        name = name.split("...")[0]  # a long key, cut in the message
    under = text[col + 1:] if text[col:].startswith('"') else text[col:]
    if text.endswith("..."):
        under = under[:-3]  # the window's end
    n = min(len(name), len(under))
    if n < 1 or under[:n] != name[:n]:
        raise SystemExit(f"the caret of {message[:80]!r} is under {text[col:col + 20]!r}")
    diags += 1
    i += 3
print(diags)
PY
}

# writes NAME: the number of write calls to stderr in $tmp/NAME.trace (strace -f: each line starts with the pid)
writes() {
	grep -c '^[0-9]* *write(2,' "$tmp/$1.trace" || true
}

# LeakSanitizer cannot run under ptrace (the sanitizer build): the traced runs check no leaks
asan_options=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

ASAN_OPTIONS=$asan_options run strace -f --seccomp-bpf -o "$tmp/long.trace" -e trace=write -e signal=none -s 0 "$WM" -f "$tmp/long.yaml" list
expect_status 2 "errors on a line of 16 MiB"
cp "$tmp/err" "$tmp/long.err"
check_quotes long
n=$(grep -c ': error: ' "$tmp/long.err" || true)
[[ $n == 4 ]] || fail "4 errors expected on the long line, got $n: $(head -c 3000 "$tmp/long.err")"
[[ $(stat -c %s "$tmp/long.err") -lt 8000 ]] || fail "$(stat -c %s "$tmp/long.err") bytes of stderr for 4 errors"
grep -q ": error: invalid distribution name 'kkkk*\.\.\.kkkk*!': PEP 508 names are " "$tmp/long.err" ||
	fail "the message quoting a name of 3,001 characters is not cut in the middle: $(grep -o "name 'k.\{0,40\}" "$tmp/long.err")"
[[ $(writes long) == "$n" ]] || fail "$n diagnostics in $(writes long) writes to stderr, not one write each"

ASAN_OPTIONS=$asan_options run strace -f --seccomp-bpf -o "$tmp/flow.trace" -e trace=write -e signal=none -s 0 "$WM" -f "$tmp/flow.yaml" list
expect_status 2 "a flow list of 16 MiB of unknown platforms"
cp "$tmp/err" "$tmp/flow.err"
check_quotes flow
n=$(grep -c ': error: ' "$tmp/flow.err" || true)
[[ $n == 100 ]] || fail "100 errors expected of the flow list, got $n"
grep -qx "wheelmatrix: note: too many errors; only the first 100 are shown" "$tmp/flow.err" ||
	fail "no note that errors were left out: $(tail -n 2 "$tmp/flow.err")"
grep -q ":3:[0-9]*: error: unknown platform 'bad99': " "$tmp/flow.err" || fail "the 100th error is not of bad99"
[[ $(stat -c %s "$tmp/flow.err") -lt 60000 ]] || fail "$(stat -c %s "$tmp/flow.err") bytes of stderr for 100 errors"
[[ $(writes flow) == $((n + 1)) ]] || fail "$n diagnostics and a note in $(writes flow) writes to stderr"

finish
