#!/usr/bin/env bash
# t-plan-nginx.sh — plan for matrices/llm-rs.yaml against nginx serving a static index: the exact report
# in each format (tests/expected/plan/), PEP 503 HTML as the fallback, TLS with a test CA, credentials.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
expected=$ROOT/tests/expected/plan
matrix=$ROOT/matrices/llm-rs.yaml

python3 "$ROOT/tests/helpers/plan-index.py" "$tmp/www"
start_nginx "$tmp" "$tmp/www"
http=http://127.0.0.1:$HTTP_PORT
https=https://127.0.0.1:$HTTPS_PORT
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp  # no ~/.netrc but the test's

# Runs plan; the port becomes PORT so that the reports can be compared with the expected ones.
plan() {
	local status=0
	"$WM" -f "$matrix" plan 0.3.0-alpha.1 "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	sed -i -e "s/127\.0\.0\.1:$HTTP_PORT/127.0.0.1:PORT/g" -e "s/127\.0\.0\.1:$HTTPS_PORT/127.0.0.1:PORT/g" "$tmp/out" "$tmp/err"
	return $status
}

# 1. the exact report, in every format; exit 1: llm-rs 0.3.0a1 is partly on the index
for format in table json markdown html; do
	status=0
	plan --index "$http/simple/" --format "$format" || status=$?
	[[ $status == 1 ]] || fail "--format $format exits $status, not 1: $(cat "$tmp/err")"
	[[ ! -s $tmp/err ]] || fail "--format $format: stderr $(cat "$tmp/err")"
	expect_same "$expected/llm-rs.$format" "$tmp/out" "--format $format (tests/expected/plan/llm-rs.$format)"
done
# the table is the default
plan --index "$http/simple/" || true
diff -u "$expected/llm-rs.table" "$tmp/out" >/dev/null || fail "the default format is not the table"
# nginx really answered with PEP 691 JSON
grep -q '"api": "json"' "$expected/llm-rs.json" || fail "the expected report is not from the JSON API"

# 2. an index that speaks only PEP 503 HTML: the same states, from HTML (which gives no sizes)
plan --index "$http/html/" --format json || true
cp "$tmp/out" "$tmp/html.json"
python3 - "$expected/llm-rs.json" "$tmp/html.json" <<'PY' || fail "the report from PEP 503 HTML (above)"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
def states(r):
    return [(d["name"], d["state"], [(x["file"], x["state"], x["found"]) for x in d["artifacts"]], d["unexpected"])
            for d in r["distributions"]]
assert states(a) == states(b), (states(a), states(b))
assert {d["api"] for d in b["distributions"] if d["state"] != "new"} == {"html"}, b
assert all(d["near_limit"] == [] for d in b["distributions"]), "HTML pages carry no sizes"
assert b["verdict"] == "partial"
PY

# 3. https with a certificate from a CA nobody trusts: exit 3 and why; with --cacert, the same plan as over http
status=0
plan --index "$https/simple/" || status=$?
[[ $status == 3 ]] || fail "an untrusted certificate exits $status, not 3"
grep -qx "llm-rs: query failed: the server's TLS certificate is not trusted (SSL certificate problem: unable to get local issuer certificate); give the CA that signed it with --cacert FILE or SSL_CERT_FILE" "$tmp/out" ||
	fail "untrusted certificate: $(cat "$tmp/out")"
status=0
plan --index "$https/simple/" --cacert "$tmp/ca.pem" || status=$?
[[ $status == 1 ]] || fail "--cacert: exit $status: $(cat "$tmp/out" "$tmp/err")"
sed 's|against http://|against https://|' "$expected/llm-rs.table" | diff -u - "$tmp/out" || fail "--cacert: another report"
status=0
SSL_CERT_FILE=$tmp/ca.pem plan --index "$https/simple/" || status=$?
[[ $status == 1 ]] || fail "SSL_CERT_FILE: exit $status: $(cat "$tmp/out" "$tmp/err")"
status=0
plan --index "$https/simple/" --cacert "$tmp/missing.pem" || status=$?
[[ $status == 2 && $(cat "$tmp/err") == "wheelmatrix: error: cannot read the CA file '$tmp/missing.pem': No such file or directory" ]] ||
	fail "a missing CA file: exit $status, $(cat "$tmp/err")"

# 4. a private index: credentials from the environment, from netrc, or in the URL; never printed
secret=s3cret-pass
status=0
plan --index "$http/private/" || status=$?
[[ $status == 3 ]] || fail "no credentials: exit $status"
grep -qx 'llm-rs: query failed: HTTP 401: the index wants credentials (netrc, or WHEELMATRIX_INDEX_USERNAME and WHEELMATRIX_INDEX_PASSWORD)' "$tmp/out" ||
	fail "no credentials: $(cat "$tmp/out")"
# check_private WHAT [VAR=VALUE...] -- PLAN ARGS
check_private() {
	local what=$1 status=0 vars=()
	shift
	while [[ $1 != -- ]]; do
		vars+=("$1")
		shift
	done
	shift
	(
		for v in "${vars[@]}"; do export "${v?}"; done
		plan "$@"
	) || status=$?
	[[ $status == 1 ]] || fail "$what: exit $status: $(cat "$tmp/out" "$tmp/err")"
	sed 's|/simple/|/private/|' "$expected/llm-rs.table" | diff -u - "$tmp/out" || fail "$what: another report"
	! grep -q "$secret" "$tmp/out" "$tmp/err" || fail "$what: the password is printed"
}
check_private environment WHEELMATRIX_INDEX_USERNAME=ci WHEELMATRIX_INDEX_PASSWORD=$secret -- --index "$http/private/"
printf 'machine 127.0.0.1 login ci password %s\n' "$secret" >"$tmp/.netrc"
chmod 600 "$tmp/.netrc"
check_private "\$HOME/.netrc" -- --index "$http/private/"
mv "$tmp/.netrc" "$tmp/netrc"
check_private NETRC NETRC="$tmp/netrc" -- --index "$http/private/"
check_private "the URL" -- --index "http://ci:$secret@127.0.0.1:$HTTP_PORT/private/"
for format in json markdown html; do
	plan --index "http://ci:$secret@127.0.0.1:$HTTP_PORT/private/" --format "$format" || true
	! grep -q "$secret" "$tmp/out" "$tmp/err" || fail "the password is in the $format report"
done

# 5. on a terminal, a progress line on stderr while the requests run, erased at the end; none otherwise
script -qec "'$WM' -f '$matrix' plan 0.3.0a1 --index '$http/simple/' 2>'$tmp/notty'" /dev/null >/dev/null || true
[[ ! -s $tmp/notty ]] || fail "progress while stderr is no terminal: $(cat "$tmp/notty")"
script -qec "'$WM' -f '$matrix' plan 0.3.0a1 --index '$http/simple/' >'$tmp/report'" /dev/null >"$tmp/tty" 2>&1 || true
grep -q $'\rwheelmatrix: querying the index: 4 of 4\r\033\[K' "$tmp/tty" ||
	fail "no progress line on a terminal: $(od -c "$tmp/tty" | head -5)"
grep -q $'querying the index: 1 of 4' "$tmp/tty" || fail "the progress line does not count"
diff -u "$expected/llm-rs.table" <(sed "s/127\.0\.0\.1:$HTTP_PORT/127.0.0.1:PORT/" "$tmp/report") || fail "the report on a terminal"
script -qec "'$WM' -q -f '$matrix' plan 0.3.0a1 --index '$http/simple/'" /dev/null >"$tmp/tty" 2>&1 || true
! grep -q 'querying the index' "$tmp/tty" || fail "a progress line with -q"

# 6. every project answers 404: no go-ahead, exit 3. From a URL shaped as a simple index's (as PyPI's
# https://pypi.org/simple/, the default) that is a first release, which --first-release checks, and
# no other URL is suggested; from an index URL without /simple/, that first, then that the URL may
# be wrong, with PyPI's as the example
status=0
plan --index "$http/none/simple/" || status=$?
[[ $status == 3 ]] || fail "a simple index without the projects exits $status, not 3: $(cat "$tmp/out")"
[[ $(tail -n 1 "$tmp/out") == "16 files: 0 present, 16 missing; 0 unexpected, 0 dropped; not checked: this looks like a first release, as the index has none of the 4 projects yet; --first-release checks one" ]] ||
	fail "a simple index without the projects: $(cat "$tmp/out")"
status=0
plan --index "$http/" || status=$?
[[ $status == 3 ]] || fail "an index URL without /simple/ exits $status, not 3: $(cat "$tmp/out")"
[[ $(tail -n 1 "$tmp/out") == "16 files: 0 present, 16 missing; 0 unexpected, 0 dropped; not checked: this looks like a first release, as the index has none of the 4 projects yet; --first-release checks one; if they are published, the index URL http://127.0.0.1:PORT/ is wrong: a simple index's path ends in /simple/, as https://pypi.org/simple/" ]] ||
	fail "an index URL without /simple/: $(cat "$tmp/out")"
plan --index "$http/" --format json || true
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["verdict"] == "not-found", r["verdict"]; assert {d["state"] for d in r["distributions"]} == {"new"}' "$tmp/out" ||
	fail "an index URL without /simple/, JSON: $(cat "$tmp/out")"
# the first release of every distribution
status=0
plan --index "$http/" --first-release || status=$?
[[ $status == 0 ]] || fail "--first-release exits $status, not 0: $(cat "$tmp/out")"
[[ $(tail -n 1 "$tmp/out") == "16 files: 0 present, 16 missing; 0 unexpected, 0 dropped; the release can go ahead" ]] || fail "--first-release: $(cat "$tmp/out")"
[[ $(grep -c ': new project: ' "$tmp/out") == 4 ]] || fail "--first-release: $(cat "$tmp/out")"

# 7. a version with every planned file on the index is published: nothing to upload, exit 1
status=0
"$WM" -f "$matrix" plan 0.1.0 --index "$http/simple/" >"$tmp/out" 2>"$tmp/err" || status=$?
[[ $status == 1 ]] || fail "0.1.0 exits $status, not 1: $(cat "$tmp/out" "$tmp/err")"
grep -qx 'llm-rs-cuda: version 0.1.0 already published (all 3 files present): nothing to upload' "$tmp/out" ||
	fail "0.1.0: $(cat "$tmp/out")"
[[ $(tail -n 1 "$tmp/out") == "16 files: 3 present, 13 missing; 0 unexpected, 0 dropped; the release would fail: version 0.1.0 is already published for 1 of 4 distributions" ]] ||
	fail "0.1.0: $(cat "$tmp/out")"
# a version with some of its files is partly published: the missing ones listed, exit 1
status=0
"$WM" -f "$matrix" plan 0.2.0 --index "$http/simple/" >"$tmp/out" 2>"$tmp/err" || status=$?
[[ $status == 1 ]] || fail "0.2.0 exits $status, not 1: $(cat "$tmp/out" "$tmp/err")"
diff -u - <(sed -n '/^llm-rs-cuda:/,/^$/p' "$tmp/out") <<'EOF' || fail "0.2.0: llm-rs-cuda"
llm-rs-cuda: version 0.2.0 partly published (2 of 3 files present): 1 file still to upload, and only that one: the index refuses a file it has
  present     llm_rs_cuda-0.2.0-cp38-abi3-manylinux_2_28_x86_64.whl
  present     llm_rs_cuda-0.2.0-cp38-abi3-win_amd64.whl
  missing     llm_rs_cuda-0.2.0.tar.gz

EOF
[[ $(tail -n 1 "$tmp/out") == "16 files: 4 present, 12 missing; 3 unexpected, 0 dropped; the release would fail as a whole: version 0.2.0 is partly published for 2 of 4 distributions; upload only their missing files" ]] ||
	fail "0.2.0: $(cat "$tmp/out")"
finish
