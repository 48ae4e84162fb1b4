#!/usr/bin/env bash
# install-validators.sh — installs the pinned workflow validators the tests run: zizmor (PyPI) and actionlint (Go).
#
# usage: tests/tools/install-validators.sh          install them unless already there; exit 0 when ready
#        tests/tools/install-validators.sh --dir    print the directory they live in (installed or not)
#
# The pins are tests/tools/validators.txt (pip, with hashes) and tests/tools/actionlint/go.mod and
# go.sum (the Go module).  Everything goes into
# ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/validators/KEY, KEY being a digest of those three
# files, so a moved pin installs anew and the tests never run a stale tool: bin/actionlint and
# venv/bin/zizmor, with the file `complete` written last.  zizmor comes from a virtual environment
# of python3 (Debian: python3-venv); actionlint is built with Go 1.21 or newer, which fetches the
# toolchain actionlint's go.mod asks for from the Go module proxy when it is older.  A missing
# prerequisite is an error that says how to install it; as root on Debian, python3-venv is
# installed with apt-get.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ACTIONLINT_VERSION=v1.7.12
ZIZMOR_VERSION=1.33.1
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-validators validators "$here/validators.txt" "$here/actionlint/go.mod" "$here/actionlint/go.sum" \
	-- "$@"

if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		echo "install-validators: installing python3-venv"
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv
	else
		die "python3 cannot make a virtual environment; install it with: sudo apt-get install -y python3-venv"
	fi
fi
need_go "actionlint $ACTIONLINT_VERSION"
cache_tmp
echo "install-validators: zizmor $ZIZMOR_VERSION from PyPI into $dir"
python3 -m venv "$tmp/venv"
pip_install "$tmp/venv/bin/python" --no-deps --only-binary :all: --require-hashes -r "$here/validators.txt" ||
	die "pip could not install $here/validators.txt; by hand: python3 -m venv $dir/venv && $dir/venv/bin/pip install --require-hashes -r $here/validators.txt"
echo "install-validators: actionlint $ACTIONLINT_VERSION from the Go module proxy into $dir"
(cd "$here/actionlint" && GOBIN="$tmp/bin" GOTOOLCHAIN=auto GOFLAGS=-mod=readonly go install github.com/rhysd/actionlint/cmd/actionlint) ||
	die "go could not build actionlint; by hand: cd $here/actionlint && GOBIN=$dir/bin go install github.com/rhysd/actionlint/cmd/actionlint"

got=$("$tmp/bin/actionlint" -version | head -n 1)
[[ $got == "$ACTIONLINT_VERSION" ]] || die "the actionlint built says it is '$got', not $ACTIONLINT_VERSION: go.mod and this script disagree"
got=$("$tmp/venv/bin/zizmor" --version)
[[ $got == "zizmor $ZIZMOR_VERSION" ]] || die "the zizmor installed says '$got', not $ZIZMOR_VERSION: validators.txt and this script disagree"
# zizmor's wheel installs the program itself (no script naming the interpreter's path): the
# directory can move to its place whole.
cache_commit "actionlint $ACTIONLINT_VERSION, zizmor $ZIZMOR_VERSION"
