#!/usr/bin/env bash
# init-builds.sh — times `wheelmatrix init --offline` on a workflow that builds up to the reader's
# bound: STEPS maturin-action steps in a job of 64 combinations (300 x 64: more than the 4,096 builds
# init reads), each with 2 kB of arguments, as t-init-takeover's hostile many.yml.  Every build is
# of one platform and one setting's value, so init weighs values over every build of the platform.
#
# Usage: bench/init-builds.sh         (RUNS=N pairs, default 11; STEPS=N, default 300;
#                                      WHEELMATRIX=PATH times another binary;
#                                      OLD=PATH also times PATH in turn with it, paired)
# Reported, not asserted: it fails only when init fails.
set -euo pipefail

RUNS=${RUNS:-11}
STEPS=${STEPS:-300}
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

repo=$tmp/repo
mkdir -p "$repo/.github/workflows"
printf '[build-system]\nrequires = ["maturin>=1.5,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "demo"\nversion = "1.0.0"\n' >"$repo/pyproject.toml"
printf '[package]\nname = "demo"\nversion = "1.0.0"\n' >"$repo/Cargo.toml"
python3 - "$STEPS" >"$repo/.github/workflows/many.yml" <<'PY'
import sys
step = ("      - uses: PyO3/maturin-action@v1\n        with: {target: \"${{ matrix.t }}\", manylinux: \"2_28\", "
        "args: \"-i 3.12 --features %s\"}\n" % ("x" * 2000))
print("on: push\njobs:\n  p:\n    runs-on: ubuntu-latest\n    steps: [{run: uv publish}]\n  j:\n"
      "    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        t: [%s]\n        u: [a, b, c, d, e, f, g, h]\n"
      "    steps:\n%s" % (", ".join(["x86_64"] * 8), step * int(sys.argv[1])))
PY
git -C "$repo" init -q
"$wm" -q -C "$repo" init --offline --force >/dev/null 2>&1 || { "$wm" -C "$repo" init --offline --force; exit 1; }
echo "init --offline, $STEPS steps x 64 combinations: $RUNS runs each"
if [[ -n ${OLD:-} ]]; then
	read -r a b ratio _ _ < <(cd "$repo" && python3 "$here/pair.py" --runs "$RUNS" --quiet -- "$wm" -q init --offline --force -- "$OLD" -q init --offline --force)
	printf 'median wall: %.3f s (%s) against %.3f s (%s): ratio %s\n' "$a" "$wm" "$b" "$OLD" "$ratio"
else
	read -r a _ _ _ _ < <(cd "$repo" && python3 "$here/pair.py" --runs "$RUNS" --quiet -- "$wm" -q init --offline --force -- "$wm" -q init --offline --force)
	printf 'median wall: %.3f s\n' "$a"
fi
