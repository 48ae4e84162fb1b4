# shellcheck shell=bash
# common.sh — sourced by the benchmarks: RUNS checked, the binary to time (built unless WHEELMATRIX
# is set), and a scratch directory $tmp that `bench_cleanup` removes.
#
# Sets: here, root, runs, wm, tmp.  `name` (the benchmark's file name) prefixes its messages.
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
root=$(dirname "$here")
runs=${RUNS:-5}
name=$(basename "${BASH_SOURCE[1]}")

case $runs in
'' | *[!0-9]* | 0) echo "$name: RUNS must be a positive whole number, not '$runs'" >&2; exit 2 ;;
esac

if [[ -n ${WHEELMATRIX:-} ]]; then
	wm=$WHEELMATRIX
else
	wm=$root/build/wheelmatrix
	make -C "$root" -s >&2
fi
if [[ ! -x $wm ]]; then
	echo "$name: '$wm' is not an executable" >&2
	exit 3
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wheelmatrix-bench.XXXXXX")
bench_cleanup() {
	rm -rf -- "$tmp"
}
trap bench_cleanup EXIT
