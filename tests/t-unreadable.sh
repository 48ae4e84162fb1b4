#!/bin/bash
# t-unreadable.sh — a matrix file that cannot be read is an error naming it, exit 2.
set -euo pipefail
: "${WM:?}"
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
printf 'wheelmatrix: 1\nproject: {name: x}\n' >"$tmp/wheelmatrix.yaml"
chmod 000 "$tmp/wheelmatrix.yaml"
run=()
if [ "$(id -u)" = 0 ]; then
	# root reads everything: drop to nobody for the test
	if ! command -v setpriv >/dev/null; then
		echo "FAIL: running as root without setpriv (util-linux): make test-deps (apt-get install util-linux)"
		exit 1
	fi
	run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	cp "$WM" "$tmp/wheelmatrix"
	chmod 755 "$tmp/wheelmatrix"
	WM=$tmp/wheelmatrix
fi
set +e
(cd "$tmp" && "${run[@]}" "$WM" list) >"$tmp/out" 2>"$tmp/err"
code=$?
set -e
want="wheelmatrix.yaml: error: cannot read the file: permission denied"
if [ "$code" != 2 ] || [ -s "$tmp/out" ] || [ "$(cat "$tmp/err")" != "$want" ]; then
	echo "FAIL: exit $code, stderr:"
	cat "$tmp/err"
	exit 1
fi
