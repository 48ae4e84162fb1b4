# zsh-complete.zsh — types a command line into an interactive zsh, presses Tab twice, then ^G: zsh's own
# completion system (compinit), with _wheelmatrix loaded from a directory, completes the line and
# lists the candidates.
#
# usage: zsh -f tests/helpers/zsh-complete.zsh FPATH_DIR 'wheelmatrix patch '
#
# compinit keeps its dump in FPATH_DIR.zcompdump (beside the directory).
#
# Prints what the terminal showed meanwhile, without escape sequences: the line as completed
# (after "> "), then the list of candidates.  The shell runs in the current directory with the
# current PATH.  zle reads the keys in order, so the marker printed after ^G comes after the list.
setopt extendedglob
zmodload zsh/zpty zsh/zselect || exit 3
dir=$1 line=$2
zpty shell 'TERM=dumb zsh -f -i'
fd=$REPLY  # the terminal's side zpty reads, for zselect
# read_until TEXT [PATTERN]: reads the terminal into $out until TEXT appears on a line start, and
# then what PATTERN matches (at most about 30 s); between reads it waits for more on the terminal
# (zselect, at most 50 ms), not a fixed time
read_until() {
	local chunk n=0
	while (( n++ < 600 )); do
		if zpty -r -t shell chunk; then
			out+=$chunk
			[[ ${out//$'\r'/} == *$'\n'$1${~2:-*} ]] && return 0
		else
			zselect -t 5 -r $fd
		fi
	done
	print -u2 "zsh-complete: no '$1' from the shell"
	exit 3
}
# compinit's dump beside the directory, as a user's ~/.zcompdump: the first run writes it, the next
# load it (compinit writes it anew when the directory's files change) instead of scanning fpath
dump=${dir:A}.zcompdump
zpty -w shell "PS1='> '; fpath=(${(q)dir} \$fpath); autoload -U compinit; compinit -u -d ${(q)dump}; setopt nobeep; print SETUP''-DONE"
# the prompt after it: keys typed before zle reads the terminal would be echoed as typed too
out=
read_until SETUP-DONE $'\n*> *'
out=${out##*$'\n'}  # the prompt, which the typed line follows
zpty -w -n shell "$line"$'\t\t\x07'
zpty -w shell "print LIST''-DONE"
read_until LIST-DONE
zpty -d shell
out=${out//$'\r'/}
print -r -- "${out//$'\e'\[[0-9?;]#[a-zA-Z]/}"
