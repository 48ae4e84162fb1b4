#!/bin/bash
# install.sh — installs the pinned tools of requirements.txt into a virtual environment outside build/.
#
# usage: tests/tools/install.sh [--path]
#
# The environment is ${XDG_CACHE_HOME:-~/.cache}/wheelmatrix/tools-HASH, HASH naming the
# requirements and the Python that runs them, so that `make clean` keeps it and a changed pin
# makes a new one.  It is made once (pip checks every file against its hash) and marked complete
# only when everything is in; later runs only check the mark.  --path prints the directory and
# installs nothing (the tests ask it where the tools are).  Debian's python3 and python3-venv
# are needed (.ci/run installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
req=$here/requirements.txt
py=/usr/bin/python3
cache=${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix
version=$("$py" -c 'import sys; print(sys.version)' 2>/dev/null) || {
	echo "install.sh: $py is missing: apt-get install python3 python3-venv" >&2
	exit 1
}
hash=$({ printf '%s\n' "$version"; cat "$req"; } | sha256sum | cut -c1-16)
dir=$cache/tools-$hash
if [[ ${1:-} == --path ]]; then
	printf '%s\n' "$dir"
	exit 0
fi
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_name=install.sh
# "install.sh: maturin 1.16.0, auditwheel 6.8.2, uv 0.13.9 and the rest of requirements.txt: $1 in $dir"
ready() {
	local pins
	pins=$(sed -n 's/^\(maturin\|auditwheel\|uv\)==\([^ ]*\).*/\1 \2/p' "$req" | paste -sd ,)
	printf 'install.sh: %s and the rest of tests/tools/requirements.txt: %s in %s\n' "${pins//,/, }" "$1" "$dir"
}
if [[ -f $dir/.complete ]]; then
	ready "installed already"
	exit 0
fi
"$py" -c 'import ensurepip, venv' 2>/dev/null || {
	echo "install.sh: $py has no venv module: apt-get install python3-venv" >&2
	exit 1
}
mkdir -p "$cache"
exec 9>"$cache/tools.lock"
flock 9
if [[ -f $dir/.complete ]]; then
	ready "installed already"
	exit 0
fi
echo "install.sh: installing the pinned test tools of tests/tools/requirements.txt into $dir"
rm -rf "$dir"
"$py" -m venv "$dir"
pip_install "$dir/bin/python" --require-hashes --only-binary :all: --no-deps -r "$req"
"$dir/bin/python" -m pip check >/dev/null
touch "$dir/.complete"
ready "ready"
