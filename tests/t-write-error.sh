#!/usr/bin/env bash
# t-write-error.sh — a failed write to stdout is an environment failure (exit 3), never a silent success.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
if [[ ! -w /dev/full ]]; then
	echo "FAIL: no writable /dev/full here: the test needs the device that fails every write"
	exit 1
fi
want='wheelmatrix: error: cannot write output: No space left on device'
status=0
for args in "list" "list --format json" "list --format jsonl --why" "list --format github" "list --help"; do
	# shellcheck disable=SC2086  # the arguments are meant to split
	LC_ALL=C "$WM" -f "$ROOT/matrices/llm-rs.yaml" $args >/dev/full 2>err || status=$?
	if [[ $status != 3 || $(cat err) != "$want" ]]; then
		echo "FAIL: wheelmatrix $args >/dev/full: exit $status, stderr:"
		cat err
		exit 1
	fi
	status=0
done
# a large output fails while it streams, not only at the final flush
python3 "$ROOT/bench/gen.py" 100000 big.yaml 2>/dev/null || { echo "FAIL: bench/gen.py is missing or failed"; exit 1; }
LC_ALL=C "$WM" -f big.yaml list --format jsonl >/dev/full 2>err || status=$?
[[ $status == 3 && $(cat err) == "$want" ]] || { echo "FAIL: large output: exit $status"; cat err; exit 1; }
