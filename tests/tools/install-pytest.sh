#!/usr/bin/env bash
# install-pytest.sh — downloads the pinned wheels of pytest-requirements.txt into a wheelhouse.
#
# usage: tests/tools/install-pytest.sh          download them unless already there; exit 0 when ready
#        tests/tools/install-pytest.sh --dir    print the directory they live in (downloaded or not)
#
# pip checks every wheel against the hashes of pytest-requirements.txt, with the pinned test tools'
# pip (tests/tools/install.sh), into ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/pytest/KEY (KEY a
# digest of pytest-requirements.txt): the wheels themselves, and `complete` written last.  The
# tests that replay the generated test steps make it pip's only source.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-pytest pytest "$here/pytest-requirements.txt" -- "$@"

tools=$("$here/install.sh" --path)
[[ -f $tools/.complete ]] || die "the pinned test tools are not installed in $tools: run tests/tools/install.sh first"
cache_tmp
echo "install-pytest: the wheels of tests/tools/pytest-requirements.txt from the package index into $dir"
"$tools/bin/python" -m pip download --isolated --disable-pip-version-check --progress-bar off -q \
	--require-hashes --no-deps --only-binary :all: -r "$here/pytest-requirements.txt" -d "$tmp" ||
	die "pip could not download the wheels of $here/pytest-requirements.txt"
cache_commit "pytest $(sed -n 's/^pytest==\([^ ]*\).*/\1/p' "$here/pytest-requirements.txt")"
