#!/usr/bin/env bash
# install-powershell-parser.sh — installs the pinned PowerShell parser of powershell-requirements.txt (tree-sitter).
#
# usage: tests/tools/install-powershell-parser.sh          install it unless already there; exit 0 when ready
#        tests/tools/install-powershell-parser.sh --dir    print the directory it lives in (installed or not)
#
# Into a virtual environment of python3 (wheels only, no dependencies, every wheel checked against
# the hashes) at ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/powershell-parser/KEY/venv, KEY a
# digest of powershell-requirements.txt, with the file `complete` written last.  The tests that
# check the generated PowerShell scripts parse them with it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-powershell-parser powershell-parser "$here/powershell-requirements.txt" -- "$@"

python3 -c 'import ensurepip, venv' 2>/dev/null ||
	die "python3 cannot make a virtual environment; install it with: apt-get install -y python3-venv"
cache_tmp
echo "install-powershell-parser: tree-sitter and its PowerShell grammar from the package index into $dir"
python3 -m venv "$tmp/venv"
pip_install "$tmp/venv/bin/python" --no-deps --only-binary :all: --require-hashes -r "$here/powershell-requirements.txt" ||
	die "pip could not install $here/powershell-requirements.txt"
"$tmp/venv/bin/python" -c 'import tree_sitter, tree_sitter_powershell as p; tree_sitter.Parser(tree_sitter.Language(p.language()))' ||
	die "the PowerShell grammar does not load into tree-sitter"
cache_commit "tree-sitter-powershell $(sed -n 's/^tree-sitter-powershell==\([^ ]*\).*/\1/p' "$here/powershell-requirements.txt")"
