#!/usr/bin/env bash
# t-plan-chromium.sh — the HTML report in headless Chromium: the states read back from the rendered DOM
# are the JSON report's (the dropped wheels' rows too), the page breaks no rule of its Content-Security-Policy, and it loads nothing.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
need chromium ".ci/run installs it (apt-get install chromium)"
browser=$(command -v chromium)

python3 "$ROOT/tests/helpers/plan-index.py" "$tmp/www"
start_nginx "$tmp" "$tmp/www"
# every request Chromium makes to the network goes to this proxy, which logs it
start_fault "$tmp" --log "$tmp/requests"

for format in html json; do
	"$WM" -f "$ROOT/matrices/llm-rs.yaml" plan 0.3.0a1 --index "http://127.0.0.1:$HTTP_PORT/simple/" \
		--format "$format" >"$tmp/report.$format" || [[ $? == 1 ]] || fail "plan --format $format failed"
done

# Renders a page; its DOM goes to $1.dom and Chromium's console messages to $1.log.
render() {
	: >"$tmp/requests"
	HOME=$tmp timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --no-pings \
		--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate \
		--user-data-dir="$tmp/profile" --proxy-server="http://127.0.0.1:$FAULT_PORT" \
		--enable-logging=stderr --v=0 --virtual-time-budget=2000 \
		--dump-dom "file://$1" >"$1.dom" 2>"$1.log" || fail "chromium failed on $1: $(tail -n 5 "$1.log")"
}
violations() { grep -c 'Content Security Policy' "$1.log" || true; }
requests() { wc -l <"$tmp/requests"; }

render "$tmp/report.html"
[[ $(violations "$tmp/report.html") == 0 ]] || fail "CSP violations: $(grep 'Content Security Policy' "$tmp/report.html.log")"
[[ $(requests) == 0 ]] || fail "the report loaded: $(cat "$tmp/requests")"
python3 - "$tmp/report.html.dom" "$tmp/report.json" <<'PY' || fail "the rendered report's states are not the JSON report's (above)"
import collections, html.parser, json, sys

class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.states = collections.Counter()
        self.legend = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and "data-status" in a:
            self.states[a["data-status"]] += 1
        if tag == "ul" and a.get("class") == "legend":
            self.legend += 1

dom = open(sys.argv[1]).read()
report = json.load(open(sys.argv[2]))
cells = Cells()
cells.feed(dom)
from_json = collections.Counter(a["state"] for d in report["distributions"] for a in d["artifacts"])
assert sum(from_json.values()) == 16, from_json
# a row per wheel of the last release the plan drops
from_json["dropped"] = sum(len(d["dropped"]) for d in report["distributions"])
assert from_json["dropped"] == report["counts"]["dropped"] == 2, report["counts"]
assert cells.states == from_json, (cells.states, from_json)
assert cells.legend == 1, "no legend"
PY

# The checks can fail: the same page with an image from the network and an edited style sheet (which no
# longer matches its hash) breaks the policy twice...
sed -e 's|<h1>|<img src="http://example.invalid/logo.png"><h1>|' -e 's|body{font|body{color:red;font|' \
	"$tmp/report.html" >"$tmp/broken.html"
render "$tmp/broken.html"
grep -q "Loading the image 'http://example.invalid/logo.png' violates" "$tmp/broken.html.log" ||
	fail "an external image went unnoticed by the CSP check"
grep -q "Applying inline style violates" "$tmp/broken.html.log" || fail "a style sheet with another hash went unnoticed"
[[ $(violations "$tmp/broken.html") == 2 ]] || fail "violations: $(grep 'Content Security Policy' "$tmp/broken.html.log")"
[[ $(requests) == 0 ]] || fail "the policy did not stop the image"
# ...and without the policy the image is fetched, through the proxy that logs requests
sed -e '/Content-Security-Policy/d' "$tmp/broken.html" >"$tmp/open.html"
render "$tmp/open.html"
grep -q 'http://example.invalid/logo.png' "$tmp/requests" || fail "the proxy saw no request: $(cat "$tmp/requests")"
finish
