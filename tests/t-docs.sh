#!/usr/bin/env bash
# t-docs.sh — the options that --help shows (from the option tables) and the docs describe are the same;
# so are the environment variables and the example each --help ends with.
. "$ROOT/tests/kit/lib.sh"
docs=$ROOT/docs
[[ -f $docs/wheelmatrix.md ]] || fatal "docs/wheelmatrix.md is missing"

# The long options of one --help section ("options" or "global options").
options_of() {
	sed -n "/^$2:\$/,/^\$/p" <<<"$1" | grep -oE '^  (-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+' || true
}

mapfile -t commands < <("$WM" help | sed -n '/^commands:$/,/^$/s/^  \([a-z]*\) .*/\1/p')
environment=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$docs/wheelmatrix.1")
help=$("$WM" help)
for opt in $(options_of "$help" "global options"); do
	grep -qF -- "\`$opt" "$docs/wheelmatrix.md" || fail "global option $opt is not in docs/wheelmatrix.md"
	[[ ! -f $docs/wheelmatrix.1 ]] || grep -qF -- "${opt//-/\\-}" "$docs/wheelmatrix.1" ||
		fail "global option $opt is not in docs/wheelmatrix.1"
done
for cmd in "${commands[@]}"; do
	[[ $cmd == help ]] && continue
	page=$docs/$cmd.md
	if [[ ! -f $page ]]; then
		fail "docs/$cmd.md is missing"
		continue
	fi
	help=$("$WM" "$cmd" --help)
	for opt in $(options_of "$help" options); do
		grep -qF -- "\`$opt" "$page" || fail "'$cmd $opt' is not in docs/$cmd.md"
		grep -qF -- "${opt//-/\\-}" "$docs/wheelmatrix.1" || fail "'$cmd $opt' is not in docs/wheelmatrix.1"
	done
	# the environment it reads (each variable its cmd/cmd_*.c reads is named), on its page and in
	# the manual page's ENVIRONMENT
	mapfile -t read_vars < <(grep -ohE '(getenv|env)\("[A-Z_]+"\)' "$ROOT/cmd/cmd_$cmd.c" | grep -oE '[A-Z_]{2,}' | sort -u)
	for var in "${read_vars[@]}"; do
		sed -n '/^environment:$/,/^$/p' <<<"$help" | grep -qE "^  $var( |\$)" ||
			fail "cmd/cmd_$cmd.c reads $var, which '$cmd --help' does not name under environment:"
	done
	for var in $(sed -n '/^environment:$/,/^$/p' <<<"$help" | grep -oE '^  [A-Z][A-Z_]+' || true); do
		grep -qw -- "$var" "$page" || fail "'$cmd --help' names $var, which docs/$cmd.md does not"
		grep -qw -- "$var" <<<"$environment" || fail "'$cmd --help' names $var, which docs/wheelmatrix.1's ENVIRONMENT does not"
	done
	# and no option in the synopsis or the option list that the parser does not know
	# (elsewhere the pages quote other tools' options, such as maturin's --release)
	documented=$({ grep -E "^wheelmatrix \[GLOBAL OPTIONS\] $cmd( |\$)" "$page" | grep -oE -- '--[a-z-]+' || true
		grep -oE -- '^- `--[a-z-]+' "$page" | grep -oE -- '--[a-z-]+' || true; } | sort -u)
	for opt in $documented; do
		grep -qE -- "^  (-[a-zA-Z], )?$opt( |\$)" <<<"$help" ||
			fail "docs/$cmd.md documents '$opt', which 'wheelmatrix $cmd --help' does not list"
	done
done
# every command's example (the last line of its --help) is on its page (help's on wheelmatrix.md) and
# among the manual page's EXAMPLES
examples=$(sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$docs/wheelmatrix.1" | sed 's/\\-/-/g')
example=$("$WM" --help | sed -n '$s/^example: //p')
grep -qF -- "${example:-no example}" "$docs/wheelmatrix.md" || fail "the example of 'wheelmatrix --help' is not in docs/wheelmatrix.md: $example"
grep -qxF -- "${example:-no example}" <<<"$examples" || fail "the example of 'wheelmatrix --help' is not in docs/wheelmatrix.1's EXAMPLES: $example"
for cmd in "${commands[@]}"; do
	page=$docs/$cmd.md
	[[ $cmd == help ]] && page=$docs/wheelmatrix.md
	example=$("$WM" "$cmd" --help | sed -n '$s/^example: //p')
	if [[ -z $example ]]; then
		fail "'$cmd --help' ends with no example"
		continue
	fi
	grep -qF -- "$example" "$page" || fail "the example of '$cmd --help' is not in ${page#"$ROOT/"}: $example"
	grep -qxF -- "$example" <<<"$examples" || fail "the example of '$cmd --help' is not in docs/wheelmatrix.1's EXAMPLES: $example"
done
# every environment variable the commands read is in the manual page's ENVIRONMENT section
mapfile -t vars < <(grep -ohE '(getenv|env)\("[A-Z_]+"\)' "$ROOT"/cmd/*.c | grep -oE '[A-Z_]{2,}' | sort -u)
((${#vars[@]} >= 5)) || fail "found only ${#vars[@]} environment variables in cmd/*.c (the pattern lost them)"
for var in "${vars[@]}"; do
	grep -qw -- "$var" <<<"$environment" || fail "environment variable $var is not in docs/wheelmatrix.1's ENVIRONMENT"
done
# and the page renders without a warning
if ! out=$(LC_ALL=C.UTF-8 groff -ww -z -t -man "$docs/wheelmatrix.1" 2>&1) || [[ -n $out ]]; then
	fail "groff warns about docs/wheelmatrix.1: $out"
fi
finish
