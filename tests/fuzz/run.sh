#!/usr/bin/env bash
# run.sh — runs each libFuzzer target of tests/fuzz/ for a while and reports its executions and coverage.
#
# usage: tests/fuzz/run.sh SECONDS TARGET...
#
# `make fuzz` builds build/fuzz/fuzz-TARGET first.  Each target starts from
# its seeds, tests/fuzz/corpus/TARGET/ (and the dictionary TARGET.dict, when
# there is one), which it only reads: the inputs it
# finds go to build/fuzz/corpus-TARGET/ (kept between runs) and a crashing
# input to build/fuzz/crash-TARGET-*.  Per target it prints the executions
# (stat::number_of_executed_units), the final coverage (cov: edges, ft:
# features) and the corpus size; it fails when any target crashed, leaked,
# timed out, broke one of its properties (abort) or did not run.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
fb=$root/build/fuzz

if (($# < 2)); then
	echo "usage: tests/fuzz/run.sh SECONDS TARGET..." >&2
	exit 2
fi
seconds=$1
shift
case $seconds in
'' | *[!0-9]*)
	echo "tests/fuzz/run.sh: SECONDS must be a whole number, not '$seconds'" >&2
	exit 2
	;;
esac

# The largest input each target takes: a matrix file or a page is small, and a
# smaller input space is searched better.
max_len() {
	case $1 in
	matrix) echo 8192 ;;
	index) echo 16384 ;;
	*) echo 4096 ;;
	esac
}

failed=()
for target in "$@"; do
	bin=$fb/fuzz-$target
	seeds=$root/tests/fuzz/corpus/$target
	corpus=$fb/corpus-$target
	log=$fb/$target.log
	if [[ ! -x $bin || ! -d $seeds ]]; then
		echo "fuzz $target: $bin or $seeds is missing" >&2
		failed+=("$target")
		continue
	fi
	mkdir -p "$corpus"
	dict=()
	[[ -f $root/tests/fuzz/$target.dict ]] && dict=(-dict="$root/tests/fuzz/$target.dict")
	# the first directory receives the new inputs; the seeds are only read
	(cd "$fb" && "$bin" -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$fb/crash-$target-" "${dict[@]}" \
		"$corpus" "$seeds") >"$log" 2>&1
	status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
	files=$(find "$corpus" -type f | wc -l)
	printf 'fuzz %-7s %s s: %s executions, cov: %s, ft: %s, corpus %s files (+%s seeds)\n' "$target" \
		"$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$files" "$(find "$seeds" -type f | wc -l)"
	if ((status != 0)) || [[ -z $done_line ]]; then
		echo "fuzz $target: FAILED (exit $status); the end of $log:" >&2
		tail -n 40 "$log" >&2
		failed+=("$target")
	fi
done
if ((${#failed[@]})); then
	echo "fuzz: ${#failed[@]} of $# targets failed: ${failed[*]}" >&2
	exit 1
fi
echo "fuzz: $# targets ran $seconds s each, no crash"
