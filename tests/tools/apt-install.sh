#!/usr/bin/env bash
# apt-install.sh — installs Debian packages with apt-get, a line per package set up.
#
# usage: tests/tools/apt-install.sh NAME PACKAGE...
#
# As root: updates the package lists and installs PACKAGE... without their recommended packages,
# printing "NAME:   PACKAGE VERSION" for each package (asked for or needed by one) as dpkg sets it
# up, and all of apt-get's output when it fails.  The Makefile's deps, test-deps and fuzz-deps run
# it with the packages that are missing.
set -euo pipefail
name=${1:?usage: apt-install.sh NAME PACKAGE...}
shift
(($# > 0)) || exit 0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "$name: apt-get update"
apt-get -q update >"$log" 2>&1 || {
	cat "$log" >&2
	echo "$name: apt-get update failed" >&2
	exit 1
}
echo "$name: apt-get install $*"
if DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" 2>&1 | tee "$log" |
	while IFS= read -r line; do
		# "Setting up nginx (1.22.1-9) ..."
		if [[ $line =~ ^Setting\ up\ ([^ ]+)\ \(([^\)]+)\) ]]; then
			printf '%s:   %s %s\n' "$name" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
		fi
	done; then
	echo "$name: installed $*"
	exit 0
fi
cat "$log" >&2
echo "$name: apt-get install failed" >&2
exit 1
