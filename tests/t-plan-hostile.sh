#!/usr/bin/env bash
# t-plan-hostile.sh — plan against a hostile index (tests/servers/index-server.py): file names holding C1
# controls (CSI, OSC, also as a raw 8-bit byte) and bidi controls reach no output as they are, in
# any format (shown as <U+009B> or <9B>), while the JSON keeps the exact names; an index URL with a
# query string is queried with the project's path before the query, and the query and credentials
# are shown nowhere.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"

cat >"$tmp/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: hostile}
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends:
  html: {dist: hostile-html}
  cpu: {default: true}
YAML
start_fault "$tmp" --log "$tmp/log"
index="http://127.0.0.1:$FAULT_PORT/simple/"

# 1. no control character from the index in the table, Markdown, HTML or JSON
for format in table markdown html json; do
	status=0
	"$WM" -C "$tmp" plan 1.0.0 --index "$index" --format "$format" >"$tmp/$format" 2>"$tmp/$format.err" || status=$?
	[[ $status == 1 ]] || fail "$format: exit $status, not 1 (a partly published release)"
	[[ ! -s $tmp/$format.err ]] || fail "$format: stderr: $(cat "$tmp/$format.err")"
done
python3 - "$tmp" <<'PY' || fail "the outputs of a hostile index (above)"
import json, sys
tmp = sys.argv[1]
fail = []
# what must not reach a terminal: controls (Cc) but the line break, format characters (Cf: the bidi
# controls among them), U+2028, U+2029, a byte that is not UTF-8
import unicodedata
def controls(text):
    return sorted({"U+%04X" % ord(c) for c in text
                   if (c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp"))
                   or 0xDC80 <= ord(c) <= 0xDCFF})
for fmt in "table", "markdown", "html", "json":
    text = open("%s/%s" % (tmp, fmt), "rb").read().decode("utf-8", "surrogateescape")
    if controls(text):
        fail.append("%s: %s reach the output" % (fmt, ", ".join(controls(text))))
table = open(tmp + "/table", encoding="utf-8", errors="surrogateescape").read()
# each shown as its code point (a byte that is not UTF-8 as the byte), the rest as it is
for line in ("  unexpected  hostile-1.0.0-cp312-cp312-<U+009B>2J<U+009B>31mlinux.whl (of version 1.0.0, not produced "
             "by this release)",
             "  unexpected  hostile-1.0.0-cp312-cp312-<U+009D>0;owned<U+009C>linux.whl (of version 1.0.0, not produced "
             "by this release)",
             "  unexpected  hostile-1.0.0-cp312-cp312-<U+202E>gpj.exe<U+202C><U+2066>x<U+2069><U+200E><U+200F><U+061C>"
             "<U+202A><U+202B><U+202D>.whl (of version 1.0.0, not produced by this release)",
             "  unexpected  hostile_html-1.0.0-cp312-cp312-<9B>2Jlinux.whl (of version 1.0.0, not produced by this release)",
             "  unexpected  hostile_html-1.0.0-cp312-cp312-<U+009D>0;x<U+009C><U+202E>linux.whl (of version 1.0.0, not "
             "produced by this release)"):
    if line not in table.splitlines():
        fail.append("table: no line %r" % line)
md = open(tmp + "/markdown", encoding="utf-8", errors="surrogateescape").read()
if "- `hostile-1.0.0-cp312-cp312-<U+009B>2J<U+009B>31mlinux.whl`" not in md.splitlines():
    fail.append("markdown: the CSI file is not listed as '<U+009B>2J<U+009B>31m'")
html = open(tmp + "/html", encoding="utf-8", errors="surrogateescape").read()
if "hostile-1.0.0-cp312-cp312-&lt;U+009B&gt;2J&lt;U+009B&gt;31mlinux.whl" not in html:
    fail.append("html: the CSI file is not shown as '&lt;U+009B&gt;2J'")
# the JSON keeps the names exactly, every character outside ASCII escaped by Jansson
raw = open(tmp + "/json", "rb").read()
if any(b > 0x7F for b in raw):
    fail.append("json: a byte outside ASCII")
report = json.loads(raw)
got = {d["name"]: d["unexpected"] for d in report["distributions"]}
want = {
    "hostile": ["hostile-1.0.0-cp312-cp312-\u009b2J\u009b31mlinux.whl",
                "hostile-1.0.0-cp312-cp312-\u009d0;owned\u009clinux.whl",
                "hostile-1.0.0-cp312-cp312-\u202egpj.exe\u202c\u2066x\u2069\u200e\u200f\u061c\u202a\u202b\u202d.whl"],
    # the raw byte 0x9b is not UTF-8: U+FFFD, one character like the byte
    "hostile-html": ["hostile_html-1.0.0-cp312-cp312-\ufffd2Jlinux.whl",
                     "hostile_html-1.0.0-cp312-cp312-\u009d0;x\u009c\u202elinux.whl"],
}
if got != want:
    fail.append("json: unexpected files %r" % got)
if fail:
    print("FAIL: " + "\nFAIL: ".join(fail))
    sys.exit(1)
PY

# 2. an index URL with a query string (a token) and credentials
: >"$tmp/log"
secret="http://user:PASSWORD-5e1@127.0.0.1:$FAULT_PORT/simple/?token=SECRET-7d1&x=1"
for format in table markdown html json; do
	status=0
	"$WM" -v -C "$tmp" plan 1.0.0 --index "$secret" --format "$format" >"$tmp/q.$format" 2>"$tmp/q.$format.err" || status=$?
	[[ $status == 1 ]] || fail "query string, $format: exit $status, not 1: $(cat "$tmp/q.$format.err")"
done
# the project's path goes before the query, which is sent as given
grep -q '^[0-9.]* /simple/hostile/?token=SECRET-7d1&x=1 ' "$tmp/log" || fail "the index got: $(cut -d' ' -f2 "$tmp/log")"
grep -q '^[0-9.]* /simple/hostile-html/?token=SECRET-7d1&x=1 ' "$tmp/log" || fail "the index got: $(cut -d' ' -f2 "$tmp/log")"
grep -qx "version 1.0.0 against http://127.0.0.1:$FAULT_PORT/simple/?<redacted>" "$tmp/q.table" ||
	fail "the table names the index as: $(head -n 1 "$tmp/q.table")"
python3 - "$tmp/q.json" "$FAULT_PORT" <<'PY' || fail "the JSON report of an index URL with a query string (above)"
import json, sys
r = json.load(open(sys.argv[1]))
base = "http://127.0.0.1:%s/simple/" % sys.argv[2]
urls = sorted(d["url"] for d in r["distributions"])
if r["index"] != base + "?<redacted>" or urls != [base + "hostile-html/?<redacted>", base + "hostile/?<redacted>"]:
    print("FAIL: json: index %r, urls %r" % (r["index"], urls))
    sys.exit(1)
PY
# an index URL refused before any query says why without its query
status=0
"$WM" -C "$tmp" plan 1.0.0 --index "ftp://user:PASSWORD-5e1@127.0.0.1/simple/?token=SECRET-7d1" \
	>"$tmp/q.ftp" 2>"$tmp/q.ftp.err" || status=$?
[[ $status == 2 ]] || fail "ftp: exit $status, not 2"
grep -qF "invalid index URL 'ftp://127.0.0.1/simple/?<redacted>'" "$tmp/q.ftp.err" || fail "ftp: $(cat "$tmp/q.ftp.err")"
status=0
"$WM" -C "$tmp" plan 1.0.0 --index "http:/user:PASSWORD-5e1@127.0.0.1/simple/" >"$tmp/q.slash" 2>"$tmp/q.slash.err" || status=$?
[[ $status == 2 ]] || fail "http:/: exit $status, not 2"
grep -qF "invalid index URL 'http:/127.0.0.1/simple/'" "$tmp/q.slash.err" || fail "http:/: $(cat "$tmp/q.slash.err")"
if grep -l -e SECRET-7d1 -e PASSWORD-5e1 "$tmp"/q.*; then
	fail "the query string or the password is in the output"
fi
finish
