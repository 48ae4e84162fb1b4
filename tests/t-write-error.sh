#!/usr/bin/env bash
# t-write-error.sh — a failed write to stdout is an environment failure (exit 3), never a silent success.
. "$ROOT/tests/kit/lib.sh"
[[ -w /dev/full ]] || fatal "no writable /dev/full here: the test needs the device that fails every write"
want='wheelmatrix: error: cannot write output: No space left on device'
# full ARGS...: wheelmatrix ARGS writing to /dev/full: exit 3 and the message, nothing else
full() {
	status=0
	LC_ALL=C "$WM" "$@" >/dev/full 2>"$tmp/err" || status=$?
	[[ $status == 3 && $(cat "$tmp/err") == "$want" ]] ||
		fail "wheelmatrix $* >/dev/full: exit $status, stderr: $(cat "$tmp/err")"
}
for args in "list" "list --format json" "list --format jsonl --why" "list --format github" "list --help"; do
	# shellcheck disable=SC2086  # the arguments are meant to split
	full -f "$ROOT/matrices/llm-rs.yaml" $args
done
# a large output fails while it streams, not only at the final flush
python3 "$ROOT/bench/gen.py" 100000 "$tmp/big.yaml" 2>/dev/null || fatal "bench/gen.py is missing or failed"
full -f "$tmp/big.yaml" list --format jsonl
finish
