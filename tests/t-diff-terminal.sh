#!/usr/bin/env bash
# t-diff-terminal.sh — a diff of a committed file that holds escape sequences (ESC, OSC, CSI, U+202E, a lone
# 0x9b byte, a CR): on a real pseudo-terminal, check --diff, generate --check --diff, generate --dry-run --diff
# and generate --stdout show each of them escaped; into a pipe they are byte for byte what the file holds, and
# git apply takes the diff and makes the generated files.
. "$ROOT/tests/kit/lib.sh"
need python3 "apt-get install python3"

# no_controls FILE WHAT: FILE holds nothing a terminal acts on but line feeds and tabs (tests/helpers/no-controls.py)
no_controls() {
	python3 "$ROOT/tests/helpers/no-controls.py" "$1" >"$tmp/controls" 2>&1 || fail "$2: $(cat "$tmp/controls")"
}

# contains FILE TEXT WHAT: FILE holds the bytes TEXT
contains() {
	grep -qaF -- "$2" "$1" || fail "$3: no '$2' in: $(head -c 2000 "$1")"
}

# on_tty OUT COMMAND...: runs COMMAND with stdout on a pseudo-terminal, what it got in OUT; status in $status
on_tty() {
	local out=$1
	shift
	status=0
	python3 "$ROOT/tests/helpers/pty-run.py" "$out" "$tmp/tty-err" "$@" || status=$?
}

# The pure fixture, generated and committed; then a hand edit of the workflow with what a terminal runs, committed.
repo=$tmp/repo
cp -r "$ROOT/tests/fixtures/pure" "$repo"
# a comment of pyproject.toml that the cuda patch holds as context: a right-to-left override
sed -i 's|^requires-python = ">=3.8"$|requires-python = ">=3.8"  # \xe2\x80\xae gnirts|' "$repo/pyproject.toml"
grep -q $'\u202e gnirts' "$repo/pyproject.toml" || fatal "the pyproject.toml edit did not take"
scratch_repo "$repo"
"$WM" -q -C "$repo" generate || fatal "generate failed"
commit_all "$repo"
hostile=$'  # \e]0;owned\a \e[2J \xc2\x9b31m \x9b \u202e \r evil'
python3 - "$repo/.github/workflows/wheels.yml" "$hostile" <<'PY'
import sys
path, line = sys.argv[1], sys.argv[2].encode("utf-8", "surrogateescape")
data = open(path, "rb").read()
at = data.index(b"\njobs:\n") + 1
open(path, "wb").write(data[:at] + line + b"\n" + data[at:])
PY
grep -qa $'\e]0;owned' "$repo/.github/workflows/wheels.yml" || fatal "the workflow edit did not take"
commit_all "$repo" "a hand edit with escape sequences"
cp -r "$repo" "$tmp/want"
"$WM" -q -C "$tmp/want" generate --force || fatal "generate --force failed"
# what a terminal must never get, and what it gets instead
raw=($'\e]0;owned\a' $'\e[2J' $'\xc2\x9b31m' $'\u202e')
shown=('<U+001B>]0;owned<U+0007>' '<U+001B>[2J' '<U+009B>31m' '<9B>' '<U+202E>' '<U+000D>')

# pipe_applies NAME COMMAND...: into a pipe the diff holds the file's bytes, and git apply on a copy of the
# repository makes the files generate --force writes
pipe_applies() {
	local name=$1 copy=$tmp/apply-$1
	shift
	"$@" >"$tmp/$name.diff" 2>"$tmp/$name.err" || true
	for r in "${raw[@]}"; do
		contains "$tmp/$name.diff" "$r" "$name into a pipe keeps the committed bytes"
	done
	grep -qa $'\x9b \xe2\x80\xae \r evil' "$tmp/$name.diff" || fail "$name into a pipe lost the lone 0x9b byte or the CR"
	rm -rf "$copy"
	cp -r "$repo" "$copy"
	git -C "$copy" apply --whitespace=nowarn "$tmp/$name.diff" || { fail "git apply refused the diff of $name"; return; }
	diff -r -x .git "$tmp/want" "$copy" >"$tmp/$name.differ" || fail "$name's diff applied is not what generate writes: $(cat "$tmp/$name.differ")"
}

# tty_shown NAME COMMAND...: on a terminal the diff shows every one of them escaped, and nothing raw
tty_shown() {
	local name=$1 want=$2
	shift 2
	on_tty "$tmp/$name.tty" "$@"
	[[ $status == "$want" ]] || fail "$name on a terminal exited with $status, not $want: $(cat "$tmp/tty-err")"
	no_controls "$tmp/$name.tty" "$name on a terminal"
	for s in "${shown[@]}"; do
		contains "$tmp/$name.tty" "$s" "$name on a terminal"
	done
	contains "$tmp/$name.tty" "diff --git a/.github/workflows/wheels.yml b/.github/workflows/wheels.yml" "$name on a terminal"
	contains "$tmp/$name.tty" "-  # <U+001B>]0;owned<U+0007> <U+001B>[2J <U+009B>31m <9B> <U+202E> <U+000D> evil" \
		"$name on a terminal shows the committed line escaped"
}

pipe_applies check "$WM" -C "$repo" check --diff
tty_shown check 1 "$WM" -C "$repo" check --diff
pipe_applies generate-check "$WM" -C "$repo" generate --check --diff
tty_shown generate-check 1 "$WM" -C "$repo" generate --check --diff
pipe_applies dry-run "$WM" -C "$repo" generate --dry-run --diff --force
tty_shown dry-run 0 "$WM" -C "$repo" generate --dry-run --diff --force
# the findings on stderr, on the terminal too, name the file as it is
contains "$tmp/tty-err" "would overwrite .github/workflows/wheels.yml (edited by hand)" "--dry-run's lines"

# --stdout: the cuda patch holds the RLO of pyproject.toml's comment as context
"$WM" -C "$repo" generate --stdout patch:cuda >"$tmp/patch.out" || fail "generate --stdout failed"
cmp -s "$tmp/patch.out" "$repo/.wheelmatrix/patches/cuda.patch" || fail "generate --stdout into a pipe is not the file"
contains "$tmp/patch.out" $'\u202e gnirts' "--stdout into a pipe keeps the RLO"
on_tty "$tmp/patch.tty" "$WM" -C "$repo" generate --stdout patch:cuda
[[ $status == 0 ]] || fail "generate --stdout on a terminal exited with $status"
no_controls "$tmp/patch.tty" "generate --stdout on a terminal"
contains "$tmp/patch.tty" ' requires-python = ">=3.8"  # <U+202E> gnirts' "--stdout on a terminal shows the RLO escaped"

finish
