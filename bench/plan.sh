#!/usr/bin/env bash
# plan.sh — times `wheelmatrix plan` for 50 distributions against a loopback index with 50 ms of added
# latency per request, at 1 and at 8 requests at once: medians and their ratio (target: at least 6x).
#
# Usage: bench/plan.sh           (RUNS=N for N runs per concurrency, default 5;
#                                 WHEELMATRIX=PATH to time another binary instead of building)
# Reported, not asserted: the script fails only when a command fails or the plan is not the expected one.
# The last line, starting with "goal:", says whether the target is met (bench/goals.sh).
set -euo pipefail

dists=50
latency=0.05
target=6
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; bench_cleanup' EXIT
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

# 50 backends, one job each: 50 distributions, one request each
{
	printf 'wheelmatrix: 1\nproject: {name: bench}\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nbackends:\n'
	for ((i = 0; i < dists; i++)); do
		printf '  b%02d: {}\n' "$i"
	done
} >"$tmp/wheelmatrix.yaml"

python3 "$root/tests/servers/index-server.py" "$tmp/port" --latency "$latency" &
server=$!
for ((i = 0; i < 100; i++)); do
	[[ -s $tmp/port ]] && break
	sleep 0.05
done
index=http://127.0.0.1:$(cat "$tmp/port")/simple/

got=$("$wm" -f "$tmp/wheelmatrix.yaml" plan 1.0.0 --index "$index" --format json |
	python3 -c 'import json, sys; r = json.load(sys.stdin); print(sum(d["state"] == "ready" for d in r["distributions"]))')
if ((got != dists)); then
	echo "plan.sh: $got of $dists distributions were planned as ready" >&2
	exit 1
fi

echo "wheelmatrix: $("$wm" --version 2>/dev/null || echo "$wm")"
echo "$dists distributions, $(awk -v l="$latency" 'BEGIN { printf "%d", l * 1000 }') ms added per request, $runs runs each (median wall time)"
echo
declare -A seconds
for jobs in 1 8; do
	result=$(python3 "$here/measure.py" --runs "$runs" -- "$wm" -f "$tmp/wheelmatrix.yaml" plan 1.0.0 \
		--index "$index" --jobs "$jobs" --format json)
	seconds[$jobs]=${result% *}
	awk -v j="$jobs" -v s="${seconds[$jobs]}" -v n="$dists" 'BEGIN { printf "--jobs %d  %8.3f s  %6.1f ms per distribution\n", j, s, s / n * 1000 }'
done
awk -v a="${seconds[1]}" -v b="${seconds[8]}" -v t="$target" 'BEGIN {
	r = a / b
	printf "\nratio (--jobs 1 / --jobs 8): %.2fx (%s the %dx target)\n", r, (r >= t ? "meets" : "DOES NOT meet"), t
	printf "goal: %s  plan --jobs 8: %.2fx faster than --jobs 1 (target at least %dx)\n", (r >= t ? "met" : "NOT met"), r, t
}'
