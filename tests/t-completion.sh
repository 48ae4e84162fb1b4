#!/bin/bash
# t-completion.sh — `wheelmatrix completion SHELL`: bash's own completion (the script sourced, COMP_WORDS
# set, the function called; and a line typed into an interactive bash, tests/helpers/bash-complete.py, where
# bash itself splits the words, at ':' too) and fish's (`complete -C`) offer the commands, each
# command's options as --help lists them, the choices of an option, the matrix's backends after
# `patch` and what `generate --stdout` prints (github, gitlab, patch:BACKEND for each backend with
# a patch), never file names; so does zsh's (a line typed into an interactive zsh,
# tests/helpers/zsh-complete.zsh); `make install` puts the three where the shells look.
. "$ROOT/tests/kit/lib.sh"
need shellcheck "make test-deps (apt-get install shellcheck)"
need zsh "make test-deps (apt-get install zsh)"
need fish "make test-deps (apt-get install fish)"

for shell in bash zsh fish; do
	wm completion "$shell"
	expect_status 0 "completion $shell"
	cp "$tmp/out" "$tmp/wheelmatrix.$shell"
done
wm completion bsh
expect_status 2 "completion bsh"
expect_err "wheelmatrix: error: unknown shell 'bsh' (did you mean 'bash'?)" "completion bsh"
wm completion
expect_status 2 "completion without a shell"

# a project whose backends are its own, and one more in a subdirectory and beside it under another name
p=$tmp/proj
mkdir -p "$p/src/deep" "$p/other"
# a file where the completions run, which the value of generate --stdout never completes to
touch "$p/src/deep/gitlab-notes.txt"
printf 'wheelmatrix: 1\nproject: {name: demo}\nplatforms: [linux-x86_64]\nbackends:\n  cuda12: {features: [cublas]}\n  rocm: {features: [hip]}\n  cpu: {default: true}\n' >"$p/wheelmatrix.yaml"
printf 'wheelmatrix: 1\nproject: {name: other}\nplatforms: [linux-x86_64]\nbackends:\n  vulkan: {features: [vk]}\n  plain: {default: true}\nci: {gitlab: {}}\n' >"$p/other/wm.yaml"
# its pyproject.toml and Cargo.toml: cuda12 and rocm get a patch, the default cpu none
maturin_project "$p" demo 1.0.0 "maturin>=1.0,<2.0"
printf 'edition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n\n[features]\ncublas = []\nhip = []\n' >>"$p/Cargo.toml"
scratch_repo "$p"
wm -C "$p/src/deep" completion --backends
expect_status 0 "completion --backends"
expect_same - "$tmp/out" "completion --backends from a subdirectory" <<'EOF'
cuda12
rocm
cpu
EOF
wm -C "$p/src/deep" completion --outputs
expect_status 0 "completion --outputs"
expect_same - "$tmp/out" "completion --outputs from a subdirectory" <<'EOF'
github
gitlab
patch:cuda12
patch:rocm
action:wheelmatrix-build-container
action:wheelmatrix-check-version
EOF
for out in github gitlab patch:cuda12 patch:rocm action:wheelmatrix-build-container action:wheelmatrix-check-version; do
	wm -C "$p" -q generate --stdout "$out"
	expect_status 0 "generate --stdout $out, as completion --outputs offers it"
done
wm -C "$p" -q generate --stdout patch:cpu
expect_status 2 "generate --stdout patch:cpu, which completion --outputs does not offer"
wm -C "$p" completion --outputs --backends
expect_status 2 "completion --outputs --backends"

# ---- bash: the real completion function on real words ----
shellcheck -s bash "$tmp/wheelmatrix.bash" || fail "shellcheck has findings in the bash script (above)"
mkdir "$tmp/bin"
ln -s "$WM" "$tmp/bin/wheelmatrix"
cat >"$tmp/complete.bash" <<'EOF'
# complete.bash SCRIPT WORD...: COMPREPLY for the last word, sorted, one a line
. "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
_wheelmatrix wheelmatrix "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}" | sort
EOF
# bash_is WANT WORD...: the completion of WORD... (in $p/src/deep, wheelmatrix on PATH) is WANT
bash_is() {
	local want=$1 got
	shift
	got=$(cd "$p/src/deep" && PATH="$tmp/bin:$PATH" bash --norc --noprofile "$tmp/complete.bash" "$tmp/wheelmatrix.bash" "$@" |
		paste -sd ' ')
	[[ $got == "$want" ]] || fail "bash completes '$*' with '$got', not '$want'"
}
bash_is "check completion" wheelmatrix c
bash_is "patch pin plan" wheelmatrix p
bash_is "cpu cuda12 rocm" wheelmatrix patch ""
bash_is "rocm" wheelmatrix -q patch r
bash_is "cpu cuda12 rocm" wheelmatrix patch --dry-run ""
bash_is "" wheelmatrix patch cpu ""
bash_is "cpu cuda12 rocm" wheelmatrix build ""
bash_is "" wheelmatrix build cpu ""
bash_is "plain vulkan" wheelmatrix -C ../../other -f wm.yaml patch ""
bash_is "plain vulkan" wheelmatrix --file = ../../other/wm.yaml patch ""
bash_is "github json jsonl table" wheelmatrix list --format ""
bash_is "json jsonl" wheelmatrix list --format = js
bash_is "json" wheelmatrix check --format j
bash_is "html" wheelmatrix plan --format h
bash_is "always auto never" wheelmatrix --color ""
bash_is "install" wheelmatrix hook ""
bash_is "bash" wheelmatrix completion b
bash_is "generate" wheelmatrix help g
bash_is "--staged" wheelmatrix check --st
bash_is "" wheelmatrix plan --index https://example.org/simple ""
bash_is "" wheelmatrix plan 1.0 ""
bash_is "action:wheelmatrix-build-container action:wheelmatrix-check-version github gitlab patch:cuda12 patch:rocm" wheelmatrix generate --stdout ""
bash_is "gitlab" wheelmatrix -C ../../other -f wm.yaml generate --stdout ""
# the binary named by path, as from a build tree
bash_is "cpu cuda12 rocm" "$WM" patch ""
# the commands, and each command's options, are those of --help
mapfile -t commands < <("$WM" help | sed -n '/^commands:$/,/^$/s/^  \([a-z]*\) .*/\1/p')
bash_is "$(printf '%s\n' "${commands[@]}" | sort | paste -sd ' ')" wheelmatrix ""
for cmd in "${commands[@]}"; do
	want=$("$WM" "$cmd" --help | grep -oE '^  (-[a-zA-Z], )?--?[a-zA-Z-]+' | grep -oE -- '--?[a-zA-Z-]+' | sort | paste -sd ' ')
	bash_is "$want" wheelmatrix "$cmd" -
done

# bash_lists WANT LINE: typed into an interactive bash (in $p/src/deep) with Tab, LINE lists WANT (sorted);
# bash_line WANT LINE: LINE is completed to WANT
bash_typed() {
	(cd "$p/src/deep" && PATH="$tmp/bin:$PATH" timeout 60 python3 "$ROOT/tests/helpers/bash-complete.py" "$tmp/wheelmatrix.bash" "$1") >"$tmp/bash.out" ||
		fail "tests/helpers/bash-complete.py failed on '$1': $(cat "$tmp/bash.out")"
}
bash_lists() {
	local got
	bash_typed "$2"
	got=$(sed '1d; /^> /,$d' "$tmp/bash.out" | sort | paste -sd ' ')
	[[ $got == "$1" ]] || fail "bash lists '$got' for '$2', not '$1': $(cat "$tmp/bash.out")"
}
bash_line() {
	bash_typed "$2"
	grep -qxF "LINE<$1>" "$tmp/bash.out" || fail "bash does not complete '$2' to '$1': $(cat "$tmp/bash.out")"
}
bash_lists "action:wheelmatrix-build-container action:wheelmatrix-check-version github gitlab patch:cuda12 patch:rocm" "wheelmatrix generate --stdout "
bash_lists "cuda12 rocm" "wheelmatrix generate --stdout patch:"
bash_line "wheelmatrix generate --stdout patch:" "wheelmatrix generate --stdout pa"
bash_line "wheelmatrix generate --stdout patch:rocm " "wheelmatrix generate --stdout patch:r"
bash_line "wheelmatrix -q generate --stdout=patch:cuda12 " "wheelmatrix -q generate --stdout=patch:c"
bash_line "wheelmatrix generate --check " "wheelmatrix generate --che"
bash_lists "cpu cuda12 rocm" "wheelmatrix patch "

# ---- fish: its own completion of a command line ----
fish -n "$tmp/wheelmatrix.fish" || fail "fish -n rejects the fish script"
# fish_is WANT LINE: the candidates fish offers for LINE (in $p/src/deep), sorted, without descriptions
fish_is() {
	local got
	# shellcheck disable=SC2016 # fish's $argv
	got=$(cd "$p/src/deep" && PATH="$tmp/bin:$PATH" fish --no-config -c 'source $argv[1]; complete -C"$argv[2]"' \
		"$tmp/wheelmatrix.fish" "$2" | cut -f1 | sort | paste -sd ' ')
	[[ $got == "$1" ]] || fail "fish completes '$2' with '$got', not '$1'"
}
fish_is "check completion" "wheelmatrix c"
fish_is "cpu cuda12 rocm" "wheelmatrix patch "
fish_is "cpu cuda12 rocm" "wheelmatrix -v patch "
fish_is "" "wheelmatrix patch rocm "
fish_is "plain vulkan" "wheelmatrix -C ../../other -f wm.yaml patch "
fish_is "github json jsonl table" "wheelmatrix list --format "
fish_is "always auto never" "wheelmatrix --color "
fish_is "install" "wheelmatrix hook "
fish_is "--staged" "wheelmatrix check --st"
fish_is "--file --first-release" "wheelmatrix plan --fi"
fish_is "action:wheelmatrix-build-container action:wheelmatrix-check-version github gitlab patch:cuda12 patch:rocm" "wheelmatrix generate --stdout "
fish_is "patch:cuda12 patch:rocm" "wheelmatrix generate --stdout patch:"
fish_is "--stdout=gitlab" "wheelmatrix generate --stdout=gitl"
fish_is "gitlab" "wheelmatrix -C ../../other -f wm.yaml generate --stdout "

# ---- zsh: the script parses, compinit loads it, and zsh's completion of typed lines uses it ----
zsh -n "$tmp/wheelmatrix.zsh" || fail "zsh -n rejects the zsh script"
mkdir "$tmp/zfunc"
cp "$tmp/wheelmatrix.zsh" "$tmp/zfunc/_wheelmatrix"
got=$(zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -D; print -r -- $_comps[wheelmatrix]' \
	zsh "$tmp/zfunc" 2>&1)
[[ $got == _wheelmatrix ]] || fail "zsh's compinit does not load _wheelmatrix: $got"
# zsh_lists WANT LINE: typed into an interactive zsh (in $p/src/deep) with Tab Tab, LINE lists WANT (the
# first word of each candidate, sorted); zsh_line WANT LINE: LINE is completed to WANT
zsh_complete() {
	(cd "$p/src/deep" && PATH="$tmp/bin:$PATH" timeout 60 zsh -f "$ROOT/tests/helpers/zsh-complete.zsh" "$tmp/zfunc" "$1") >"$tmp/zsh.out" ||
		fail "tests/helpers/zsh-complete.zsh failed on '$1': $(cat "$tmp/zsh.out")"
}
zsh_lists() {
	local got
	zsh_complete "$2"
	got=$(grep -vE '^(> |#|LIST-DONE|$)' "$tmp/zsh.out" | sed 's/ -- .*//' | tr -s ' ' '\n' | grep . | sort | paste -sd ' ' || true)
	[[ $got == "$1" ]] || fail "zsh lists '$got' for '$2', not '$1': $(cat "$tmp/zsh.out")"
}
zsh_line() {
	zsh_complete "$2"
	grep -qF "> $1" "$tmp/zsh.out" || fail "zsh does not complete '$2' to '$1': $(cat "$tmp/zsh.out")"
}
zsh_lists "$(printf '%s\n' "${commands[@]}" | sort | paste -sd ' ')" "wheelmatrix "
zsh_lists "cpu cuda12 rocm" "wheelmatrix patch "
zsh_lists "cpu cuda12 rocm" "wheelmatrix -q patch --dry-run "
zsh_lists "cpu cuda12 rocm" "wheelmatrix build "
zsh_lists "plain vulkan" "wheelmatrix -C ../../other -f wm.yaml patch "
zsh_lists "github json jsonl table" "wheelmatrix list --format "
zsh_line "wheelmatrix hook install " "wheelmatrix hook "
zsh_line "wheelmatrix plan --first-release " "wheelmatrix plan --fir"
zsh_lists "action:wheelmatrix-build-container action:wheelmatrix-check-version github gitlab patch:cuda12 patch:rocm" "wheelmatrix generate --stdout "
zsh_lists "patch:cuda12 patch:rocm" "wheelmatrix generate --stdout patch:"
zsh_line "wheelmatrix generate --stdout patch:rocm " "wheelmatrix generate --stdout patch:r"
zsh_line "wheelmatrix -C ../../other -f wm.yaml generate --stdout gitlab " "wheelmatrix -C ../../other -f wm.yaml generate --stdout "

# ---- make install: the three scripts, as the tool writes them, where each shell looks ----
# -o: the program under test and its flags as they are, never rebuilt here (another PREFIX changes
# the flags, and the sanitizer build's tests would otherwise rebuild build/ without them mid-run)
run make -C "$ROOT" --no-print-directory -o build/wheelmatrix -o build/flags install DESTDIR="$tmp/dest" PREFIX=/usr
expect_status 0 "make install"
expect_same "$tmp/wheelmatrix.bash" "$tmp/dest/usr/share/bash-completion/completions/wheelmatrix" "the installed bash script"
expect_same "$tmp/wheelmatrix.zsh" "$tmp/dest/usr/share/zsh/site-functions/_wheelmatrix" "the installed zsh script"
expect_same "$tmp/wheelmatrix.fish" "$tmp/dest/usr/share/fish/vendor_completions.d/wheelmatrix.fish" "the installed fish script"
finish
