#!/usr/bin/env bash
# install-cuda.sh — installs the pinned CUDA runtime of cuda-requirements.txt, laid out as a toolkit.
#
# usage: tests/tools/install-cuda.sh          install it unless already there; exit 0 when ready
#        tests/tools/install-cuda.sh --dir    print the directory it lives in (installed or not)
#
# pip downloads the wheel of nvidia-cuda-runtime-cu12 for this machine, checked against the
# hashes of cuda-requirements.txt, with the pinned test tools' pip (tests/tools/install.sh); its
# libcudart.so.12 goes into ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/cuda/KEY (KEY a digest of
# cuda-requirements.txt):
#   cuda/lib64/libcudart.so.12   the runtime, as the wheel has it
#   cuda/lib64/libcudart.so      -> libcudart.so.12, the link name a toolkit's lib64 has
#   complete                     written last
# The driver stub is not there: no package on PyPI has it (cuda-requirements.txt).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/tools/cache.sh
. "$here/cache.sh"
cache_begin install-cuda cuda "$here/cuda-requirements.txt" -- "$@"

tools=$("$here/install.sh" --path)
[[ -f $tools/.complete ]] || die "the pinned test tools are not installed in $tools: run tests/tools/install.sh first"
cache_tmp
echo "install-cuda: the CUDA runtime of tests/tools/cuda-requirements.txt from the package index into $dir"
"$tools/bin/python" -m pip download --isolated --disable-pip-version-check --progress-bar off -q \
	--require-hashes --no-deps --only-binary :all: -r "$here/cuda-requirements.txt" -d "$tmp/wheels" ||
	die "pip could not download the wheels of $here/cuda-requirements.txt"
mkdir -p "$tmp/cuda/lib64"
"$tools/bin/python" - "$tmp"/wheels/*.whl "$tmp/cuda/lib64" <<'PY' || die "the wheel has no nvidia/cuda_runtime/lib/libcudart.so.12"
import os, sys, zipfile
*wheels, out = sys.argv[1:]
with zipfile.ZipFile(wheels[0]) as z:
    data = z.read("nvidia/cuda_runtime/lib/libcudart.so.12")
with open(os.path.join(out, "libcudart.so.12"), "wb") as f:
    f.write(data)
PY
ln -s libcudart.so.12 "$tmp/cuda/lib64/libcudart.so"
rm -rf "$tmp/wheels"
cache_commit "nvidia-cuda-runtime-cu12 $(sed -n 's/^nvidia-cuda-runtime-cu12==\([^ ]*\).*/\1/p' "$here/cuda-requirements.txt")"
