#!/bin/bash
# t-install-prefix.sh — `make install PREFIX=...` installs the build as it is: no PREFIX or DATADIR is built into the program, so the build's flags (build/flags, whose change rebuilds everything) are the same for every prefix.
. "$ROOT/tests/kit/lib.sh"
# FLAGS_TEXT is what build/flags holds: the compiler, every flag and define, the libraries
flags() {
	# shellcheck disable=SC2016 # $(FLAGS_TEXT) is make's
	make -s --no-print-directory -C "$ROOT" --eval 'wm-flags-text: ; @printf "%s\n" "$(FLAGS_TEXT)"' wm-flags-text "$@" \
		>"$tmp/flags" 2>"$tmp/err" || fatal "make cannot print its flags: $(cat "$tmp/err")"
	cat "$tmp/flags"
}
default=$(flags)
[ -n "$default" ] || fatal "make printed no flags"
for args in "PREFIX=$tmp/prefix" "PREFIX=$HOME/.local" "DATADIR=$tmp/share" "PREFIX=/opt/wm DESTDIR=$tmp/stage"; do
	# shellcheck disable=SC2086 # each a list of make's arguments
	got=$(flags $args)
	[ "$got" = "$default" ] || fail "make install $args would rebuild the program: its flags are
$got
not
$default"
	case $got in *"$tmp"* | *"/opt/wm"* | *.local*) fail "make $args builds its prefix into the program: $got" ;; esac
done
# a package that publishes the schema itself still names it, and only then do the flags change
got=$(flags SCHEMA_URL=https://example.org/wheelmatrix.schema.json)
case $got in *"-DWM_SCHEMA_URL="*"https://example.org/wheelmatrix.schema.json"*) ;; *) fail "SCHEMA_URL is not built in: $got" ;; esac
finish
