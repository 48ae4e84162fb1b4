#!/usr/bin/env bash
# wide-env.sh — times `wheelmatrix generate` on t-alias-text's wide matrix (tests/helpers/wide-env-matrix.py):
# one 256 KiB env value, through aliases, in 60 variables of a backend, which an include sets
# otherwise, so that every entry of the Linux build job (36 and the include's) carries each of them
# into the job's matrix; the workflow passes 64 MiB and generate refuses it (exit 2) after writing
# it in memory.  The
# build job decides once for each variable whether its entries set it alike, reading each entry's
# long value; it used to decide again for every entry.
#
# Usage: bench/wide-env.sh            (RUNS=N pairs, default 11; WHEELMATRIX=PATH times another
#                                      binary; OLD=PATH also times PATH in turn with it, paired)
# Reported, not asserted: it fails only when generate does not refuse the matrix.
set -euo pipefail

RUNS=${RUNS:-11}
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

repo=$tmp/repo
mkdir -p "$repo"
python3 "$here/../tests/helpers/wide-env-matrix.py" "$repo/wheelmatrix.yaml"
git -C "$repo" init -q
status=0
"$wm" -q -C "$repo" generate >/dev/null 2>&1 || status=$?
[[ $status == 2 ]] || { echo "wide-env.sh: generate exited $status, not 2 (the refusal)" >&2; exit 1; }
echo "generate of the 64 MiB workflow (refused): $RUNS runs each"
if [[ -n ${OLD:-} ]]; then
	read -r a b ratio _ _ < <(python3 "$here/pair.py" --runs "$RUNS" --status 2 --quiet -- "$wm" -q -C "$repo" generate -- "$OLD" -q -C "$repo" generate)
	printf 'median wall: %.3f s (%s) against %.3f s (%s): ratio %s\n' "$a" "$wm" "$b" "$OLD" "$ratio"
else
	read -r a _ _ _ _ < <(python3 "$here/pair.py" --runs "$RUNS" --status 2 --quiet -- "$wm" -q -C "$repo" generate -- "$wm" -q -C "$repo" generate)
	printf 'median wall: %.3f s\n' "$a"
fi
