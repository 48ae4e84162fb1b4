#!/usr/bin/env bash
# install-crates.sh — installs the pinned crates the tests read: PyO3's pyo3-ffi and pyo3-build-config
# (tests/tools/crates.txt), from crates.io.
#
# usage: tests/tools/install-crates.sh          install them unless already there; exit 0 when ready
#        tests/tools/install-crates.sh --dir    print the directory they live in (installed or not)
#
# Each .crate is checked against its sha256 in crates.txt and the files named there are extracted
# (tests/tools/fetch-crates.py) into ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/crates/KEY/NAME-VERSION/,
# KEY being a digest of crates.txt and fetch-crates.py, so a moved pin installs anew; `complete` is
# written last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-crates crates "$here/crates.txt" "$here/fetch-crates.py" -- "$@"

command -v python3 >/dev/null 2>&1 || die "python3 is not installed; install it with: sudo apt-get install -y python3"
cache_tmp
echo "install-crates: the crates of tests/tools/crates.txt from crates.io into $dir"
python3 "$here/fetch-crates.py" "$here/crates.txt" "$tmp" ||
	die "the crates could not be fetched; by hand: python3 $here/fetch-crates.py $here/crates.txt $dir"
cache_commit "crates $(sha256sum <"$here/crates.txt" | cut -c1-16)"
