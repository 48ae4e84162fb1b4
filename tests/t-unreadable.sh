#!/bin/bash
# t-unreadable.sh — a matrix file that cannot be read is an error naming it, exit 2.
. "$ROOT/tests/kit/lib.sh"
chmod 755 "$tmp"
printf 'wheelmatrix: 1\nproject: {name: x}\n' >"$tmp/wheelmatrix.yaml"
chmod 000 "$tmp/wheelmatrix.yaml"
as=()
if [ "$(id -u)" = 0 ]; then
	# root reads everything: drop to nobody for the test
	need setpriv "make test-deps (apt-get install util-linux), to run as nobody (this runs as root)"
	as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	cp "$WM" "$tmp/wheelmatrix"
	chmod 755 "$tmp/wheelmatrix"
	WM=$tmp/wheelmatrix
fi
cd "$tmp"
run "${as[@]}" "$WM" list
expect_status 2 "an unreadable matrix file"
[ -s "$tmp/out" ] && fail "an unreadable matrix file: something on stdout: $(cat "$tmp/out")"
expect_same - "$tmp/err" "an unreadable matrix file's message" <<'EOF'
wheelmatrix.yaml: error: cannot read the file: permission denied
EOF
finish
