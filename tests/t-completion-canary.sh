#!/bin/bash
# t-completion-canary.sh — a word typed on the command line is data to the completion scripts: Tab
# after `wheelmatrix -f "$(touch CANARY)" patch ` in an interactive zsh (tests/helpers/zsh-complete.zsh),
# bash (tests/helpers/bash-complete.py) and fish (`complete -C`) runs nothing the line holds. Each line's
# -C, -f and --file values (the words the scripts pass to `wheelmatrix completion --backends` and
# `--outputs`) hold a command substitution that would create a canary file if anything evaluated
# it. The `wheelmatrix` on PATH logs its arguments, so each case also shows that the completion did
# ask it, with the typed value as one argument, as text (zsh and fish remove its quotes, bash keeps
# the word as typed).
. "$ROOT/tests/kit/lib.sh"
need zsh "make test-deps (apt-get install zsh)"
need fish "make test-deps (apt-get install fish)"

mkdir "$tmp/zfunc" "$tmp/bin"
if ! "$WM" completion bash >"$tmp/wheelmatrix.bash" || ! "$WM" completion zsh >"$tmp/zfunc/_wheelmatrix" ||
	! "$WM" completion fish >"$tmp/wheelmatrix.fish"; then
	fatal "wheelmatrix completion failed"
fi
# the wheelmatrix the scripts find on PATH: it logs each call's arguments, one a line, then runs the tool
cat >"$tmp/bin/wheelmatrix" <<EOF
#!/bin/sh
{ printf '%s\n' "\$@"; echo ---; } >>'$tmp/calls'
exec '$WM' "\$@"
EOF
chmod +x "$tmp/bin/wheelmatrix"

p=$tmp/proj
mkdir -p "$p/src/deep" "$p/other"
printf 'wheelmatrix: 1\nproject: {name: demo}\nplatforms: [linux-x86_64]\nbackends:\n  cuda12: {features: [cublas]}\n  cpu: {default: true}\n' >"$p/wheelmatrix.yaml"
printf 'wheelmatrix: 1\nproject: {name: other}\nplatforms: [linux-x86_64]\nbackends:\n  vulkan: {features: [vk]}\n  plain: {default: true}\nci: {gitlab: {}}\n' >"$p/other/wm.yaml"
scratch_repo "$p"

n=0
# canary: a new path for the next case's substitution to create
canary() {
	n=$((n + 1))
	c=$tmp/canary-$n
}
# typed SHELL WANT LINE: after Tab on LINE in SHELL, no canary exists and wheelmatrix was asked
# `completion` with the argument WANT (the typed value as data)
typed() {
	local shell=$1 want=$2 line=$3
	: >"$tmp/calls"
	case $shell in
	zsh)
		(cd "$p/src/deep" && HOME=$p PATH="$tmp/bin:$PATH" timeout 60 zsh -f "$ROOT/tests/helpers/zsh-complete.zsh" "$tmp/zfunc" "$line") \
			>"$tmp/shell.out" 2>&1 || fail "tests/helpers/zsh-complete.zsh failed on '$line': $(cat "$tmp/shell.out")"
		;;
	bash)
		(cd "$p/src/deep" && PATH="$tmp/bin:$PATH" timeout 60 python3 "$ROOT/tests/helpers/bash-complete.py" "$tmp/wheelmatrix.bash" "$line") \
			>"$tmp/shell.out" 2>&1 || fail "tests/helpers/bash-complete.py failed on '$line': $(cat "$tmp/shell.out")"
		;;
	fish)
		# shellcheck disable=SC2016 # fish's $argv
		(cd "$p/src/deep" && PATH="$tmp/bin:$PATH" timeout 60 fish --no-config -c 'source $argv[1]; complete -C"$argv[2]"' \
			"$tmp/wheelmatrix.fish" "$line") >"$tmp/shell.out" 2>&1 || fail "fish failed on '$line': $(cat "$tmp/shell.out")"
		;;
	esac
	[[ -e $c ]] && fail "$shell ran what '$line' holds: $c exists"
	if ! grep -qxF -- "$want" "$tmp/calls" || ! grep -qxF completion "$tmp/calls"; then
		fail "$shell did not pass '$want' to 'wheelmatrix completion' for '$line'; its calls: $(cat "$tmp/calls")"
	fi
}

# zsh and bash read the same syntax: $(...), "$(...)" and `...`
for shell in zsh bash; do
	# what the typed word "$(touch X)" is given as: zsh removes the quotes, bash passes the word as typed
	if [[ $shell == zsh ]]; then q=; else q=\"; fi
	canary
	typed "$shell" "$q\$(touch $c)$q" "wheelmatrix -f \"\$(touch $c)\" patch "
	canary
	typed "$shell" "\$(touch $c)" "wheelmatrix -f \$(touch $c) patch "
	canary
	typed "$shell" "\`touch $c\`" "wheelmatrix -C \`touch $c\` -q patch --dry-run "
	# bash splits --file=VALUE at the '=' (COMP_WORDBREAKS) and passes the value as a word of its own
	canary
	if [[ $shell == zsh ]]; then w=--file=; else w=; fi
	typed "$shell" "$w\$(touch $c)" "wheelmatrix --file=\$(touch $c) generate --stdout "
	canary
	typed "$shell" "$q\$(touch $c)$q" "wheelmatrix -C \"\$(touch $c)\" -f wm.yaml generate --stdout patch:"
	canary
	typed "$shell" "$q\`touch $c\`$q" "wheelmatrix -f \"\`touch $c\`\" build "
done
# fish writes a substitution (...) or $(...), also in double quotes
canary
typed fish "\$(touch $c)" "wheelmatrix -f \"\$(touch $c)\" patch "
canary
typed fish "(touch $c)" "wheelmatrix -f (touch $c) patch "
canary
typed fish "\$(touch $c)" "wheelmatrix -C \$(touch $c) -q patch --dry-run "
canary
typed fish "--file=(touch $c)" "wheelmatrix --file=(touch $c) generate --stdout "
canary
typed fish "(touch $c)" "wheelmatrix -C (touch $c) -f wm.yaml generate --stdout patch:"

# a quoted value that names a real matrix is still read: zsh and fish remove the quotes
zsh_listed() { grep -qE "^$1 *\$" "$tmp/shell.out"; }
c=$tmp/no-canary
typed zsh "../../other/wm.yaml" "wheelmatrix -f \"../../other/wm.yaml\" patch "
zsh_listed "plain +vulkan" || fail "zsh does not list the backends of a quoted -f: $(cat "$tmp/shell.out")"
typed zsh "../../other" "wheelmatrix -C '../../other' --file='wm.yaml' generate --stdout "
grep -qF "> wheelmatrix -C '../../other' --file='wm.yaml' generate --stdout gitlab " "$tmp/shell.out" ||
	fail "zsh does not complete the one output of a quoted -C and --file: $(cat "$tmp/shell.out")"
# and a leading ~ is $HOME, as the shell would read it (zsh's script reads it so, by itself)
typed zsh "$p/other" "wheelmatrix -C ~/other -f wm.yaml patch "
zsh_listed "plain +vulkan" || fail "zsh does not list the backends under ~/other: $(cat "$tmp/shell.out")"
canary
typed zsh "$p/\$(touch $c)" "wheelmatrix -C ~/\$(touch $c) patch "
c=$tmp/no-canary
typed fish "../../other/wm.yaml" "wheelmatrix -f '../../other/wm.yaml' patch "
[[ $(cut -f1 "$tmp/shell.out" | sort | paste -sd ' ') == "plain vulkan" ]] ||
	fail "fish does not list the backends of a quoted -f: $(cat "$tmp/shell.out")"
finish
