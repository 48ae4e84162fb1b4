#!/usr/bin/env bash
# install-publish-job.sh — downloads the wheels of templates/publish-lock.txt (the GitLab publish job's hashed lock) for CPython 3.12 on Linux x86_64 into a wheelhouse.
#
# usage: tests/tools/install-publish-job.sh          download them unless already there; exit 0 when ready
#        tests/tools/install-publish-job.sh --dir    print the directory they live in (downloaded or not)
#
# pip, the pinned test tools' (tests/tools/install.sh), checks every wheel it downloads from the
# package index against the lock's hashes (--require-hashes): a lock whose hashes are not of the
# files the index serves fails here.  Into ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/publish-job/KEY
# (KEY a digest of the lock); tests/t-publish-lock.sh makes it pip's only source when it runs the
# generated publish job.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lock=$(dirname "$(dirname "$here")")/templates/publish-lock.txt
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-publish-job publish-job "$lock" -- "$@"

tools=$("$here/install.sh" --path)
[[ -f $tools/.complete ]] || die "the pinned test tools are not installed in $tools: run tests/tools/install.sh first"
cache_tmp
echo "install-publish-job: the wheels of templates/publish-lock.txt from the package index into $dir"
platforms=()
for ((m = 36; m >= 17; m--)); do
	platforms+=(--platform "manylinux_2_${m}_x86_64")
done
"$tools/bin/python" -m pip download --isolated --disable-pip-version-check --progress-bar off -q \
	--require-hashes --no-deps --only-binary :all: --python-version 3.12 --implementation cp --abi cp312 \
	--abi abi3 --abi none "${platforms[@]}" --platform manylinux2014_x86_64 -r "$lock" -d "$tmp" ||
	die "pip could not download the wheels of templates/publish-lock.txt with their hashes"
cache_commit "twine $(sed -n 's/^twine==\([^ ]*\).*/\1/p' "$lock"), pypi-attestations $(sed -n 's/^pypi-attestations==\([^ ]*\).*/\1/p' "$lock") and $(($(grep -c '==' "$lock") - 2)) more"
