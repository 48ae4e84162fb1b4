#!/usr/bin/env bash
# install-takeover-build.sh — installs what t-takeover-build.sh builds with: the sdists of
# takeover-build.txt and Zig (zig-requirements.txt).
#
# usage: tests/tools/install-takeover-build.sh          install them unless already there; exit 0 when ready
#        tests/tools/install-takeover-build.sh --dir    print the directory they live in (installed or not)
#
# The sdists come from the package index, checked against their sha256 (fetch-corpus.py); Zig is
# the ziglang wheel, checked by pip against the hash of zig-requirements.txt, with the pinned test
# tools' pip (tests/tools/install.sh).  Into ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/
# takeover-build/KEY (KEY a digest of those files):
#   sdists/NAME-VERSION.tar.gz   each sdist, whole
#   zig/ziglang/zig              the zig binary
#   complete                     written last
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-takeover-build takeover-build "$here/takeover-build.txt" "$here/zig-requirements.txt" \
	"$here/fetch-corpus.py" -- "$@"

tools=$("$here/install.sh" --path)
[[ -f $tools/.complete ]] || die "the pinned test tools are not installed in $tools: run tests/tools/install.sh first"
cache_tmp
echo "install-takeover-build: the sdists of tests/tools/takeover-build.txt from the package index into $dir/sdists"
python3 "$here/fetch-corpus.py" "$here/takeover-build.txt" "$tmp/sdists" ||
	die "the sdists could not be fetched; by hand: python3 $here/fetch-corpus.py $here/takeover-build.txt $dir/sdists"
echo "install-takeover-build: Zig (tests/tools/zig-requirements.txt) from the package index into $dir/zig"
"$tools/bin/python" -m pip install --isolated --disable-pip-version-check --progress-bar off -q --require-hashes \
	--no-deps --only-binary :all: --target "$tmp/zig" -r "$here/zig-requirements.txt" ||
	die "pip could not install the wheel of $here/zig-requirements.txt"
[[ -x $tmp/zig/ziglang/zig ]] || die "the ziglang wheel has no ziglang/zig"
cache_commit "sdists $(grep -c '^[a-z]' "$here/takeover-build.txt"), zig $("$tmp/zig/ziglang/zig" version)"
