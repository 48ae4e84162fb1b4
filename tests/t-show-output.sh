#!/usr/bin/env bash
# t-show-output.sh — what the commands print for a person shows each control and format character of the
# input escaped: list's table (a runner label), --why and -v (a matrix file's name), check's findings (a
# committed file's text), generate's and init's messages, a diagnostic's message and quoted source line.
. "$ROOT/tests/kit/lib.sh"
need python3 "apt-get install python3"

# no_controls FILE WHAT: FILE holds nothing a terminal acts on but line feeds and tabs (tests/helpers/no-controls.py)
no_controls() {
	python3 "$ROOT/tests/helpers/no-controls.py" "$1" >"$tmp/controls" 2>&1 || fail "$2: $(cat "$tmp/controls")"
}

# contains FILE TEXT WHAT: FILE holds TEXT (fixed)
contains() {
	grep -qF -- "$2" "$1" || fail "$3: no '$2' in: $(cat "$1")"
}

esc=$'\x1b' bel=$'\a' rlo=$'\u202e' zwsp=$'\u200b' bom=$'\ufeff' wj=$'\u2060' shy=$'\u00ad'

# ---- list: the table of a runner label with CSI, OSC, NEL, U+2028, RLM and ALM -------------------------
printf '%s\n' 'wheelmatrix: 1' 'project: {name: x}' 'python: {versions: ["3.12"]}' \
	'platforms: {linux-x86_64: {runner: "ubuntu\u009b31m\u009d0;t\u0085\u2028\u200f\u061c-x"}}' \
	'backends: {cpu: {default: true}}' >"$tmp/runner.yaml"
wm -f "$tmp/runner.yaml" list
expect_status 0 "list of a runner label with controls"
no_controls "$tmp/out" "list's table"
expect_same - "$tmp/out" "list's table, aligned on what it shows" <<'EOF'
ID                      DISTRIBUTION  FEATURES  RUNNER                                                          WHEEL
cpu-linux-x86_64-cp312  x             -         ubuntu<U+009B>31m<U+009D>0;t<U+0085><U+2028><U+200F><U+061C>-x  cp312-cp312-manylinux_2_28_x86_64
1 job
EOF

# ---- list: a matrix file whose name holds an OSC sequence and a bidi override ------------------------
repo=$tmp/repo
cp -r "$ROOT/tests/fixtures/pure" "$repo"
name="m${esc}]0;owned${bel}${rlo}.yaml"
mv "$repo/wheelmatrix.yaml" "$repo/$name"
printf 'exclude:\n  - {backend: cuda, platform: windows-x86_64}\n' >>"$repo/$name"
wm -C "$repo" -f "$name" -v list --why
expect_status 0 "list --why of a matrix with a hostile name"
no_controls "$tmp/out" "list --why's table"
no_controls "$tmp/err" "list -v's count"
contains "$tmp/out" "removed by exclude {backend: cuda, platform: windows-x86_64}  (m<U+001B>]0;owned<U+0007><U+202E>.yaml:26:5)" \
	"list --why names the rule's file escaped"
expect_err "wheelmatrix: m<U+001B>]0;owned<U+0007><U+202E>.yaml: 6 jobs in 3 build jobs" "list -v"
mv "$repo/$name" "$repo/wheelmatrix.yaml"

# ---- check: a finding that quotes a committed file's text ---------------------------------------------
scratch_repo "$repo"
"$WM" -q -C "$repo" generate || fatal "generate failed"
commit_all "$repo"
wf=$repo/.github/workflows/wheels.yml
sed -i "0,/actions\/checkout@v[0-9]*/s//actions\/checkout@v4${zwsp}${esc}[2J${bom}/" "$wf"
grep -q "checkout@v4${zwsp}" "$wf" || fatal "the workflow edit did not take"
commit_all "$repo" "a hand-bumped action"
wm -C "$repo" check
expect_status 1 "check of a hand-bumped action"
no_controls "$tmp/err" "check's finding"
contains "$tmp/err" "action reference bumped by hand: 'actions/checkout@v4<U+200B><U+001B>[2J<U+FEFF>'" \
	"check quotes the committed reference escaped"

# ---- generate: a message quoting the command line ----------------------------------------------------
wm -C "$repo" generate --stdout "patch:x${wj}${shy}"
expect_status 2 "generate --stdout of an unknown backend"
no_controls "$tmp/err" "generate's message"
expect_err "unknown backend 'x<U+2060><U+00AD>'" "generate quotes the backend escaped"

# ---- init: the file it will not write ----------------------------------------------------------------
proj=$tmp/proj
cp -r "$ROOT/tests/fixtures/pure" "$proj"
rm "$proj/wheelmatrix.yaml"
mkdir -p "$proj/.github"
wm -C "$proj" -f "m${zwsp}${esc}[1m.yaml" init --offline
expect_status 2 "init of a matrix file named with a zero-width space and an escape sequence"
no_controls "$tmp/err" "init's message"
expect_err "cannot write 'm<U+200B><U+001B>[1m.yaml'" "init names the file escaped"

# ---- a diagnostic: the message and the quoted source line ---------------------------------------------
printf 'wheelmatrix: 1\nproject: {name: "x%s%sy"}\n' "$zwsp" "$bom" >"$tmp/bad.yaml"
wm -f "$tmp/bad.yaml" list
expect_status 2 "a name with format characters"
no_controls "$tmp/err" "the diagnostic"
contains "$tmp/err" "invalid distribution name 'x<U+200B><U+FEFF>y'" "the message shows them escaped"
contains "$tmp/err" '    2 | project: {name: "x<U+200B><U+FEFF>y"}' "the source line shows them escaped"
# the caret and its underline span the name as shown: 3 + 8 + 8 columns
contains "$tmp/err" '      |                 ^~~~~~~~~~~~~~~~~~~~' "the underline covers the escapes"

finish
