#!/usr/bin/env bash
# t-help.sh — every command of `wheelmatrix help` has a --help that follows the shared format and ends with one example.
. "$ROOT/tests/kit/lib.sh"

mapfile -t commands < <("$WM" help | sed -n '/^commands:$/,/^$/s/^  \([a-z]*\) .*/\1/p')
[[ ${#commands[@]} == 12 ]] || fail "expected 12 commands, got: ${commands[*]}"
for cmd in init list generate check patch build plan hook completion help; do
	[[ " ${commands[*]} " == *" $cmd "* ]] || fail "'$cmd' is missing from 'wheelmatrix help'"
done

for cmd in "${commands[@]}"; do
	help=$("$WM" "$cmd" --help) || fail "'$cmd --help' failed"
	[[ $help == "$("$WM" help "$cmd")" ]] || fail "'help $cmd' differs from '$cmd --help'"
	[[ $help == "$("$WM" "$cmd" -h)" ]] || fail "'$cmd -h' differs from '$cmd --help'"
	[[ $(head -n 1 <<<"$help") == "usage: wheelmatrix $cmd [options]"* ]] || fail "'$cmd --help' has no usage line"
	[[ $(sed -n 2p <<<"$help") =~ ^[A-Z] ]] || fail "'$cmd --help' has no description line"
	grep -qx 'global options:' <<<"$help" || fail "'$cmd --help' lacks the global options"
	# every option line: two spaces, then the spelling
	while IFS= read -r line; do
		[[ $line =~ ^\ \ -[-a-zA-Z] ]] || fail "'$cmd --help': option line '$line'"
	done < <(sed -n '/^options:$/,/^$/{/^options:$/d;/^$/d;p}' <<<"$help")
	# the environment it reads: a name, then what it does (on the next line after a long name)
	env_line='^  ([A-Z][A-Z0-9_]+( +[^ ]|$)| {21}[^ ])'
	while IFS= read -r line; do
		[[ $line =~ $env_line ]] || fail "'$cmd --help': environment line '$line'"
	done < <(sed -n '/^environment:$/,/^$/{/^environment:$/d;/^$/d;p}' <<<"$help")
	# the last line, after a blank one, is the one example: a command line of this command
	example_line="^example: (.*[ (])?wheelmatrix $cmd( |\\)|\$)"
	[[ $(tail -n 1 <<<"$help") =~ $example_line ]] ||
		fail "'$cmd --help' does not end with an example of 'wheelmatrix $cmd': '$(tail -n 1 <<<"$help")'"
	[[ $(tail -n 2 <<<"$help" | head -n 1) == "" ]] || fail "'$cmd --help': no blank line before the example"
	[[ $(grep -c '^example:' <<<"$help") == 1 ]] || fail "'$cmd --help' has not exactly one example line"
	if grep -q "(not built yet)" < <("$WM" help | grep "^  $cmd "); then
		grep -qx 'Not built yet.' <<<"$help" || fail "'$cmd --help' does not say it is not built"
		wm "$cmd"
		[[ $status == 2 && $(cat "$tmp/err") == "wheelmatrix: error: '$cmd' is not built yet" ]] ||
			fail "'$cmd': exit $status, '$(cat "$tmp/err")'"
	fi
done

# so does wheelmatrix's own
[[ $("$WM" --help | tail -n 1) =~ ^example:\ wheelmatrix\  ]] || fail "'wheelmatrix --help' does not end with an example"
[[ $("$WM" --help | grep -c '^example:') == 1 ]] || fail "'wheelmatrix --help' has not exactly one example line"

# build names the maturin it runs
"$WM" build --help | sed -n '/^environment:$/,/^$/p' | grep -qE '^  MATURIN +the maturin to run' ||
	fail "'build --help' does not name MATURIN under environment: $("$WM" build --help)"

# each option spelling of --help is accepted by the parser (a flag alone, or with a value)
for opt in --quiet -q --verbose -v; do
	"$WM" "$opt" help >/dev/null || fail "'$opt' is not accepted"
done
"$WM" --color=never help >/dev/null || fail "--color=never"
"$WM" --color always help >/dev/null || fail "--color always"
"$WM" -f x.yaml -C . --file=x.yaml help >/dev/null || fail "-f, --file, -C"
finish
