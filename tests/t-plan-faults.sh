#!/usr/bin/env bash
# t-plan-faults.sh — plan against a misbehaving index (tests/servers/index-server.py): each fault gets its
# documented state and message, the other distributions are still reported, and proxies are honoured.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"

cat >"$tmp/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: good}
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends:
  flaky: {dist: flaky}
  throttled: {dist: throttled}
  throttled_date: {dist: throttled-date}
  patient: {dist: patient}
  unavailable: {dist: unavailable}
  stalled: {dist: stalled}
  truncated: {dist: truncated}
  huge: {dist: huge}
  huge_chunked: {dist: huge-chunked}
  malformed: {dist: malformed}
  nolinks: {dist: nolinks}
  loop: {dist: loop}
  plain: {dist: plain}
  escapes: {dist: escapes}
  cpu: {default: true}
YAML
start_fault "$tmp" --log "$tmp/log"

status=0
"$WM" -C "$tmp" plan 1.0.0 --index "http://127.0.0.1:$FAULT_PORT/simple/" --timeout 1 --retries 1 \
	--format json >"$tmp/report.json" 2>"$tmp/stderr" || status=$?
[[ $status == 3 ]] || fail "a plan with failed queries exits $status, not 3"
[[ ! -s $tmp/stderr ]] || fail "unexpected stderr: $(cat "$tmp/stderr")"

python3 - "$tmp/report.json" "$tmp/log" <<'PY' || fail "the JSON report of the faults (above)"
import json, sys
report = json.load(open(sys.argv[1]))
dists = {d["name"]: d for d in report["distributions"]}
want = {
    # name: (state, error, attempts)
    "flaky": ("ready", None, 2),
    "throttled": ("ready", None, 2),
    "throttled-date": ("ready", None, 2),
    "escapes": ("partial", None, 1),
    "patient": ("failed", "HTTP 429: the server asks to wait more than 60 s before a retry", 1),
    "unavailable": ("failed", "HTTP 503 (2 attempts)", 2),
    "stalled": ("failed", "timed out: the limits are 1 s to connect and 1 s in all (2 attempts)", 2),
    "truncated": ("failed", "the connection closed before the whole response arrived (2 attempts)", 2),
    "huge": ("failed", "the response is larger than the limit of 32 MiB", 1),
    "huge-chunked": ("failed", "the response is larger than the limit of 32 MiB", 1),
    "malformed": ("failed", "malformed JSON at line 1, column 70: '}' expected near end of file", 1),
    "nolinks": ("failed", "the HTML page has no links and no pypi:repository-version meta tag: "
                "not a PEP 503 project page", 1),
    "loop": ("failed", "more than 5 redirects (a redirect loop?)", 1),
    "plain": ("failed", "unexpected Content-Type 'text/plain': a simple index answers with PEP 691 JSON "
              "or PEP 503 HTML", 1),
    "good": ("partial", None, 1),
}
bad = []
if sorted(dists) != sorted(want):
    bad.append("distributions: %s" % sorted(dists))
for name, (state, error, attempts) in want.items():
    d = dists.get(name, {})
    got = (d.get("state"), d.get("error"), d.get("attempts"))
    if got != (state, error, attempts):
        bad.append("%s: got %r, want %r" % (name, got, (state, error, attempts)))
    if state == "failed":
        if any(a["state"] != "unknown" for a in d.get("artifacts", [])):
            bad.append("%s: artifacts of a failed query are not 'unknown'" % name)
        if d.get("summary") != "query failed: " + (error or ""):
            bad.append("%s: summary %r" % (name, d.get("summary")))
# the other distributions' results are still there, file by file
good = {a["file"]: a["state"] for a in dists["good"]["artifacts"]}
if good != {"good-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl": "missing", "good-1.0.0.tar.gz": "present"}:
    bad.append("good: %r" % good)
if report["verdict"] != "incomplete" or report["counts"] != {"present": 1, "missing": 9, "unknown": 20, "unchecked": 0,
                                                      "unexpected": 1, "dropped": 0, "dropped_planned": 0}:
    bad.append("verdict %r, counts %r" % (report["verdict"], report["counts"]))
# Retry-After: 1 is honoured: the second request waits a second (the backoff alone would be 0.5 s);
# the log's times are rounded to the millisecond, so a wait of exactly 1 s may show as 0.999
for name in "throttled", "throttled-date":
    times = [float(line.split()[0]) for line in open(sys.argv[2]) if line.split()[1] == "/simple/%s/" % name]
    if len(times) != 2 or times[1] - times[0] < 0.998:
        bad.append("%s requested at %r" % (name, times))
# PEP 691 first, HTML as the fallback
accept = {line.split(" ", 2)[2].strip() for line in open(sys.argv[2])}
if accept != {"application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"}:
    bad.append("Accept: %r" % accept)
loops = sum(1 for line in open(sys.argv[2]) if line.split()[1] == "/simple/loop/")
if loops != 6:
    bad.append("the redirect loop was followed %d times, not 1 + 5" % loops)
if bad:
    print("\n".join(bad))
    sys.exit(1)
PY

# the same faults in the table a terminal user sees
"$WM" -C "$tmp" plan 1.0.0 --index "http://127.0.0.1:$FAULT_PORT/simple/" --timeout 1 --retries 0 \
	>"$tmp/table" 2>&1 && fail "the table run exited 0"
grep -qx 'loop: query failed: more than 5 redirects (a redirect loop?)' "$tmp/table" || fail "table: $(cat "$tmp/table")"
grep -qx '30 files: 1 present, 9 missing, 20 unknown; 1 unexpected, 0 dropped; incomplete: the query failed for 10 of 15 distributions' \
	"$tmp/table" || fail "table: $(tail -n 1 "$tmp/table")"
# a file name from the index cannot send escape sequences to the terminal
grep -qxF '  unexpected  escapes-1.0.0-cp312-cp312-<U+001B>[2Jlinux.whl (of version 1.0.0, not produced by this release)' \
	"$tmp/table" || fail "table: $(grep escapes "$tmp/table")"
! grep -q $'\033' "$tmp/table" || fail "an escape character reached the table"

# http_proxy is honoured: a host that does not exist is reached through the proxy...
cat >"$tmp/one.yaml" <<'YAML'
wheelmatrix: 1
project: {name: good}
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends: {cpu: {default: true}}
YAML
: >"$tmp/log"
out=$(env -u NO_PROXY -u no_proxy http_proxy="http://127.0.0.1:$FAULT_PORT" \
	"$WM" -f "$tmp/one.yaml" plan 1.0.0 --index http://index.invalid/simple/ --format json) && fail "proxy: exit 0"
grep -q '^[0-9.]* http://index.invalid/simple/good/ ' "$tmp/log" || fail "the proxy got no request: $(cat "$tmp/log")"
python3 -c 'import json, sys; d = json.loads(sys.argv[1])["distributions"][0]; sys.exit(d["state"] != "partial")' "$out" ||
	fail "through the proxy: $out"
# ...and no_proxy sends it direct, where the name does not resolve
out=$(env no_proxy=index.invalid http_proxy="http://127.0.0.1:$FAULT_PORT" \
	"$WM" -f "$tmp/one.yaml" plan 1.0.0 --index http://index.invalid/simple/ --retries 0 2>&1) && fail "no_proxy: exit 0"
grep -qx "good: query failed: cannot resolve the server's host name" <<<"$out" || fail "no_proxy: $out"
finish
