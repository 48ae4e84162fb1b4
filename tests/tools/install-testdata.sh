#!/usr/bin/env bash
# install-testdata.sh — installs the pinned test data: the toml-test suite (Go module) and the real-project corpus (sdists from PyPI).
#
# usage: tests/tools/install-testdata.sh          install it unless already there; exit 0 when ready
#        tests/tools/install-testdata.sh --dir    print the directory it lives in (installed or not)
#
# The pins are tests/tools/toml-test/go.mod and go.sum (github.com/toml-lang/toml-test/v2: its
# runner and its test files) and tests/tools/corpus.txt (name, version and sha256 of each sdist, and
# the files of it the tests read).  Everything goes into
# ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/testdata/KEY, KEY being a digest of those files and
# of fetch-corpus.py, so a moved pin installs anew and no test reads stale data:
#   bin/toml-test            the suite's runner
#   toml-test/               the suite's test files (valid/, invalid/, files-toml-1.0.0, ...)
#   corpus/NAME-VERSION/     the files corpus.txt names, as the sdist holds them
#   complete                 written last
# toml-test is fetched and built with Go 1.21 or newer from the Go module proxy, checked against
# go.sum; the sdists come from the package index (tests/tools/fetch-corpus.py), checked against
# their sha256.  A missing prerequisite is an error that says how to install it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
TOML_TEST_MODULE=github.com/toml-lang/toml-test/v2
TOML_TEST_VERSION=v2.2.0
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-testdata testdata "$here/toml-test/go.mod" "$here/toml-test/go.sum" "$here/corpus.txt" \
	"$here/fetch-corpus.py" -- "$@"

command -v python3 >/dev/null 2>&1 || die "python3 is not installed; install it with: sudo apt-get install -y python3"
need_go "toml-test $TOML_TEST_VERSION"
cache_tmp
echo "install-testdata: toml-test $TOML_TEST_VERSION from the Go module proxy into $dir"
cd "$here/toml-test"
export GOTOOLCHAIN=auto GOFLAGS=-mod=readonly
GOBIN="$tmp/bin" go install "$TOML_TEST_MODULE/cmd/toml-test" ||
	die "go could not build toml-test; by hand: cd $here/toml-test && GOBIN=$dir/bin go install $TOML_TEST_MODULE/cmd/toml-test"
# The module as go.sum pins it, in Go's module cache: its tests/ folder is the suite.
mod=$(go mod download -json "$TOML_TEST_MODULE" | python3 -c 'import json, sys
m = json.load(sys.stdin)
sys.exit(m["Error"]) if m.get("Error") else print(m["Version"], m["Dir"])') ||
	die "go could not download $TOML_TEST_MODULE; by hand: cd $here/toml-test && go mod download -json $TOML_TEST_MODULE"
[[ ${mod%% *} == "$TOML_TEST_VERSION" ]] || die "go.mod pins toml-test ${mod%% *}, this script $TOML_TEST_VERSION: make them agree"
cp -R "${mod#* }/tests" "$tmp/toml-test"
chmod -R u+w "$tmp/toml-test"
[[ -f $tmp/toml-test/files-toml-1.0.0 ]] || die "toml-test $TOML_TEST_VERSION has no tests/files-toml-1.0.0"
got=$("$tmp/bin/toml-test" version)
[[ $got == "toml-test $TOML_TEST_VERSION;"* ]] || die "the toml-test built says '$got', not $TOML_TEST_VERSION"
cd - >/dev/null

echo "install-testdata: the corpus of tests/tools/corpus.txt from the package index into $dir/corpus"
python3 "$here/fetch-corpus.py" "$here/corpus.txt" "$tmp/corpus" ||
	die "the corpus could not be fetched; by hand: python3 $here/fetch-corpus.py $here/corpus.txt $dir/corpus"

cache_commit "toml-test $TOML_TEST_VERSION, corpus $(sha256sum <"$here/corpus.txt" | cut -c1-16)"
