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
[[ -f $dir/.complete ]] && exit 0
"$py" -c 'import ensurepip, venv' 2>/dev/null || {
	echo "install.sh: $py has no venv module: apt-get install python3-venv" >&2
	exit 1
}
mkdir -p "$cache"
exec 9>"$cache/tools.lock"
flock 9
[[ -f $dir/.complete ]] && exit 0
echo "install.sh: installing the pinned test tools into $dir"
rm -rf "$dir"
"$py" -m venv "$dir"
# --isolated: no PIP_* variables or user configuration (a find-links or an index of its own)
"$dir/bin/python" -m pip install --isolated --quiet --disable-pip-version-check --require-hashes \
	--only-binary :all: --no-deps -r "$req"
"$dir/bin/python" -m pip check >/dev/null
touch "$dir/.complete"
