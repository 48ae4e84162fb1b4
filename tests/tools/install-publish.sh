#!/usr/bin/env bash
# install-publish.sh — downloads the pinned wheels of publish-requirements.txt (build, twine) into a wheelhouse.
#
# usage: tests/tools/install-publish.sh          download them unless already there; exit 0 when ready
#        tests/tools/install-publish.sh --dir    print the directory they live in (downloaded or not)
#
# pip checks every wheel against the hashes of publish-requirements.txt, with the pinned test tools'
# pip (tests/tools/install.sh), into ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/publish/KEY (KEY a
# digest of publish-requirements.txt): the wheels themselves, and `complete` written last.
# tests/t-publish-tools.sh makes it pip's only source.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-publish publish "$here/publish-requirements.txt" -- "$@"

tools=$("$here/install.sh" --path)
[[ -f $tools/.complete ]] || die "the pinned test tools are not installed in $tools: run tests/tools/install.sh first"
cache_tmp
echo "install-publish: the wheels of tests/tools/publish-requirements.txt from the package index into $dir"
"$tools/bin/python" -m pip download --isolated --disable-pip-version-check --progress-bar off -q \
	--require-hashes --no-deps --only-binary :all: -r "$here/publish-requirements.txt" -d "$tmp" ||
	die "pip could not download the wheels of $here/publish-requirements.txt"
cache_commit "build $(sed -n 's/^build==\([^ ]*\).*/\1/p' "$here/publish-requirements.txt"), twine $(sed -n 's/^twine==\([^ ]*\).*/\1/p' "$here/publish-requirements.txt")"
