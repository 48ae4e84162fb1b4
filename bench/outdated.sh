#!/usr/bin/env bash
# outdated.sh — times `wheelmatrix outdated` on the seed example (tests/fixtures/llm-rs) against a
# loopback forge and index (tests/servers/forge-server.py: git http-backend for a bare repository per
# catalogue action, PEP 700 pages for the tools) that hold every answer 50 ms: at 1 and at 8
# requests at once, in pairs (one of each, alternating), medians and their ratio.
#
# Usage: bench/outdated.sh       (RUNS=N for N pairs, default 5;
#                                 WHEELMATRIX=PATH to time another binary instead of building)
# Reported, not asserted: the script fails only when a command fails or the report is not the expected one.
set -euo pipefail

delay=0.05
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
server_pids=()
stop() {
	local pid
	for pid in "${server_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	bench_cleanup
}
trap stop EXIT
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_COMMITTER_NAME=bench \
	GIT_COMMITTER_EMAIL=bench@example.invalid GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
ROOT=$root
# shellcheck source=tests/kit/forge.sh
source "$root/tests/kit/forge.sh"

cp -r "$root/tests/fixtures/llm-rs" "$tmp/llm-rs"
python3 - "$root/templates/actions.yaml" "$tmp/actions" "$tmp/index.json" <<'PY'
import json, sys, yaml
data = yaml.safe_load(open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    for action, ref in data["actions"].items():
        f.write("%s %s\n" % (action, ref))
json.dump({name: [version] for name, version in data["tools"].items()}, open(sys.argv[3], "w"))
PY
while read -r action ref; do
	case $ref in
	release/v*) forge_action "$tmp/forge" "$action" "${ref#release/v}.13.0" --branch "$ref" ;;
	v*.*) forge_action "$tmp/forge" "$action" "${ref#v}" ;;
	v*) forge_action "$tmp/forge" "$action" "${ref#v}.0.0" ;;
	esac
done <"$tmp/actions"
start_forge "$tmp/forge" --index "$tmp/index.json" --delay "$delay" --log "$tmp/log"

args=(-C "$tmp/llm-rs" outdated --github "$FORGE" --index "$FORGE/simple/" --format json)
WHEELMATRIX_TODAY=2026-01-01 "$wm" "${args[@]}" >"$tmp/report.json" || true
requests=$(wc -l <"$tmp/log")
python3 - "$tmp/report.json" <<'PY'
import json, sys
items = json.load(open(sys.argv[1]))["items"]
unknown = [i["name"] for i in items if i["state"] == "unknown"]
if unknown or not any(i["kind"] == "action" for i in items) or not any(i["kind"] == "tool" for i in items):
    sys.exit("outdated.sh: the report is not the expected one: unknown %s" % unknown)
PY

echo "wheelmatrix: $("$wm" --version 2>/dev/null || echo "$wm")"
echo "outdated on tests/fixtures/llm-rs: $requests requests, $(awk -v l="$delay" 'BEGIN { printf "%d", l * 1000 }') ms added to each, $runs pairs (median wall time)"
echo
: >"$tmp/times"
for ((i = 0; i < runs; i++)); do
	for jobs in 1 8; do
		start=$(date +%s%N)
		WHEELMATRIX_TODAY=2026-01-01 "$wm" "${args[@]}" --jobs "$jobs" >/dev/null || true
		echo "$jobs $(( ($(date +%s%N) - start) / 1000 ))" >>"$tmp/times"
	done
done
python3 - "$tmp/times" "$requests" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    jobs, us = line.split()
    times.setdefault(int(jobs), []).append(int(us) / 1e6)
n = int(sys.argv[2])
for jobs in (1, 8):
    s = statistics.median(times[jobs])
    print("--jobs %d  %8.3f s  %6.1f ms per request" % (jobs, s, s / n * 1000))
ratios = [a / b for a, b in zip(times[1], times[8])]
print("\nratio (--jobs 1 / --jobs 8), median of the %d pairs: %.2fx" % (len(ratios), statistics.median(ratios)))
PY
