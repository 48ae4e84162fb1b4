#!/usr/bin/env bash
# install-wheelhouse.sh — downloads the pinned build requirements of wheelmatrix's own wheel
# (wheel-requirements.txt) into a directory that pip and uv install them from with no index.
#
# usage: tests/tools/install-wheelhouse.sh          download them unless already there; exit 0 when ready
#        tests/tools/install-wheelhouse.sh --dir    print the directory (downloaded or not)
#
# The directory is ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/wheelhouse/KEY (KEY a digest of
# wheel-requirements.txt): the wheels for this machine, each checked against its hash by the
# pinned test tools' pip (tests/tools/install.sh), and `complete`, written last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-wheelhouse wheelhouse "$here/wheel-requirements.txt" -- "$@"

tools=$("$here/install.sh" --path)
[[ -f $tools/.complete ]] || die "the pinned test tools are not installed in $tools: run tests/tools/install.sh first"
cache_tmp
echo "install-wheelhouse: the build requirements of tests/tools/wheel-requirements.txt from the package index into $dir"
"$tools/bin/python" -m pip download --isolated --disable-pip-version-check --progress-bar off -q \
	--require-hashes --no-deps --only-binary :all: -r "$here/wheel-requirements.txt" -d "$tmp" ||
	die "pip could not download the wheels of $here/wheel-requirements.txt"
cache_commit "$(sed -n 's/^\([A-Za-z0-9_.-]*\)==\([^ ]*\).*/\1 \2/p' "$here/wheel-requirements.txt" | paste -sd , | sed 's/,/, /g')"
