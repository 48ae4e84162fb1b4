#!/usr/bin/env bash
# t-plan-credentials.sh — no user name or password reaches plan's output, on stdout or stderr, in any
# format: an index URL with or without a scheme, with ':', '@' and percent-escapes in its user name and
# password, refused, unreachable or answering (nginx and tests/servers/index-server.py); redirects and file URLs
# with credentials; proxies from the environment; a .netrc.  Each message still names the host.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp  # no ~/.netrc but the test's

# Every secret of this test holds SECRET; the index server's pages too (tests/servers/index-server.py).
# leaks FILE...: the lines of FILE... that show one, or of a secret's percent-encoded or decoded part
leaks() {
	grep -H -i -e SECRET -e 'we@ird' -e 'we%40ird' -e 'p:ss' -e 'p%3Ass' -e 'p@ss' -e 'p%40ss' -e 'w@rd' -e 'w%40rd' \
		-e 'w%2Fd' -e 'user%40x' "$@"
}
# plan_all WHAT STATUS ARGS...: plan in every format, each exiting STATUS, with no secret in any output
plan_all() {
	local what=$1 want=$2 format status
	shift 2
	for format in table json markdown html; do
		status=0
		"$WM" -C "$tmp/p" plan 1.0.0 --retries 0 --timeout 5 --format "$format" "$@" \
			>"$tmp/out.$format" 2>"$tmp/err.$format" || status=$?
		[[ $status == "$want" ]] || fail "$what, $format: exit $status, not $want: $(cat "$tmp/err.$format")"
		if leaks "$tmp/out.$format" "$tmp/err.$format"; then
			fail "$what, $format: a user name or password is in the output (above)"
		fi
	done
}

mkdir -p "$tmp/p"
cat >"$tmp/p/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: creds-json}
python: {versions: ["3.12"]}
platforms: [windows-x86_64]
backends:
  cpu: {default: true}
  html: {dist: creds-html}
  redirect: {dist: creds-redirect}
  ftp: {dist: creds-redirect-ftp}
  bad: {dist: creds-redirect-bad}
  auth: {dist: creds-auth}
YAML
start_fault "$tmp"
here=127.0.0.1:$FAULT_PORT

# 1. index URLs refused before any query: the message names what is left of the URL, nothing before its '@'
refused() {  # refused URL SHOWN WHY
	plan_all "refused '$1'" 2 --index "$1"
	[[ $(cat "$tmp/err.table") == "wheelmatrix: error: invalid index URL '$2': $3" ]] ||
		fail "refused '$1': $(cat "$tmp/err.table")"
}
scheme="a simple index is an http:// or https:// URL"
encode="write '@', '/', '?' and '#' in a user name or password as %40, %2F, %3F and %23, and an '@' in the path or query as %40"
refused "SECRET-u:SECRET-p@127.0.0.1:1/simple/" "127.0.0.1:1/simple/" "$scheme"
refused "SECRET-u@127.0.0.1:1/simple/" "127.0.0.1:1/simple/" "$scheme"
refused "SECRET-u%40x:SECRET-p%3A%2F@host.invalid/simple/?token=SECRET-q" "host.invalid/simple/?<redacted>" "$scheme"
refused "SECRET-u:/SECRET-p@host.invalid/simple/" "host.invalid/simple/" "$scheme"
refused "http:SECRET-u:SECRET-p@host.invalid/simple/" "host.invalid/simple/" "$scheme"
refused "http:/SECRET-u:SECRET-p@host.invalid/simple/" "http:/host.invalid/simple/" "$scheme"
refused "ftp://SECRET-u:SECRET-p@host.invalid/simple/" "ftp://host.invalid/simple/" "$scheme"
refused "http://SECRET-u:SECRET-p/w@127.0.0.1:1/simple/" "http://127.0.0.1:1/simple/" "$encode"
refused "http://SECRET-u:SECRET-p?w@127.0.0.1:1/simple/" "http://<redacted>" "$encode"
refused "http://SECRET-u:SECRET-p#w@127.0.0.1:1/simple/" "http://<redacted>" "$encode"
refused "http://SECRET-u@x:SECRET-p@127.0.0.1:1/simple/" "http://127.0.0.1:1/simple/" "$encode"
refused "http://127.0.0.1:1/simple/?token=SECRET@q" "http://<redacted>" "$encode"
refused "http://SECRET-u:SECRET p@127.0.0.1:1/simple/" "http://127.0.0.1:1/simple/" \
	"spaces, quotes and angle brackets must be percent-encoded"

# 2. unreachable indexes: the report names the index without its user name, password and query
unreachable() {  # unreachable URL SHOWN WHY
	plan_all "unreachable '$1'" 3 --index "$1"
	[[ $(head -n 1 "$tmp/out.table") == "version 1.0.0 against $2" ]] ||
		fail "unreachable '$1': $(head -n 1 "$tmp/out.table")"
	grep -qx "creds-json: query failed: $3" "$tmp/out.table" || fail "unreachable '$1': $(cat "$tmp/out.table")"
}
unreachable "http://SECRET-u:SECRET-p@127.0.0.1:1/simple/" "http://127.0.0.1:1/simple/" "cannot connect to the server"
unreachable "HTTPS://SECRET-u%40x:SECRET-p%3A%40%2F@host.invalid/simple/?token=SECRET-q" \
	"HTTPS://host.invalid/simple/?<redacted>" "cannot resolve the server's host name"
unreachable "http://:SECRET-p@127.0.0.1:1/simple/" "http://127.0.0.1:1/simple/" "cannot connect to the server"

# 3. an index that answers, through a URL whose user name and password hold ':', '@', '/', '%', ' ',
# '?' and '#' (creds-auth answers only when they arrive as they are); redirects to URLs with
# credentials, pages whose file URLs hold them
plan_all "the index server" 3 \
	--index "http://SECRET-we%40ird:SECRET-p%3Ass%2Fw%40rd%25%20%3F%23@$here/simple/?token=SECRET-q"
table=$tmp/out.table
[[ $(head -n 1 "$table") == "version 1.0.0 against http://$here/simple/?<redacted>" ]] ||
	fail "the index server: $(head -n 1 "$table")"
for line in "  present     creds_json-1.0.0-cp312-cp312-win_amd64.whl" "  present     creds_json-1.0.0.tar.gz" \
	"  present     creds_html-1.0.0-cp312-cp312-win_amd64.whl" "  present     creds_html-1.0.0.tar.gz" \
	"  present     creds_auth-1.0.0.tar.gz" \
	"creds-redirect-ftp: query failed: a redirect to a URL that is neither http nor https"; do
	grep -qxF "$line" "$table" || fail "the index server: no line '$line' in $(cat "$table")"
done
grep -q '^creds-redirect-bad: query failed: ' "$table" || fail "the index server: $(cat "$table")"
python3 - "$tmp/out.json" "$here" <<'PY' || fail "the index server: the JSON report (above)"
import json, sys
r = json.load(open(sys.argv[1]))
base = "http://%s/simple/" % sys.argv[2]
assert r["index"] == base + "?<redacted>", r["index"]
for d in r["distributions"]:
    assert d["url"] == base + d["normalized"] + "/?<redacted>", d["url"]
PY

# 4. a private index (nginx) that wants a user name and a password holding '@', '/', '%', ' ', '?' and
# '#', percent-encoded in the URL: the plan succeeds, and shows neither
python3 "$ROOT/tests/helpers/plan-index.py" "$tmp/www"
start_nginx "$tmp" "$tmp/www"
status=0
"$WM" -f "$ROOT/matrices/llm-rs.yaml" plan 0.3.0-alpha.1 --index \
	"http://SECRET-we%40ird:SECRET-p%40ss%2Fw%40rd%25%20%3F%23@127.0.0.1:$HTTP_PORT/private/" \
	>"$tmp/private" 2>"$tmp/private.err" || status=$?
[[ $status == 1 ]] || fail "the private index: exit $status, not 1 (partly published): $(cat "$tmp/private" "$tmp/private.err")"
sed "s|/simple/|/private/|; s/127\.0\.0\.1:PORT/127.0.0.1:$HTTP_PORT/" "$ROOT/tests/expected/plan/llm-rs.table" |
	diff -u - "$tmp/private" || fail "the private index: another report than tests/expected/plan/llm-rs.table"
if leaks "$tmp/private" "$tmp/private.err"; then
	fail "the private index: a user name or password is in the output (above)"
fi

# 5. proxies from the environment, with a user name and password: one that serves the index (the
# index server answers a proxy's requests), and ones that cannot be used
proxied() {  # proxied WHAT STATUS PROXY
	local what=$1 want=$2 proxy=$3
	(
		export http_proxy=$proxy HTTPS_PROXY=$proxy all_proxy=$proxy
		plan_all "$what" "$want" --index "http://index.invalid/simple/"
	)
}
proxied "a proxy" 3 "http://SECRET-pu:SECRET-pp@$here"
grep -qxF "  present     creds_json-1.0.0.tar.gz" "$tmp/out.table" || fail "a proxy: $(cat "$tmp/out.table")"
grep -qx "version 1.0.0 against http://index.invalid/simple/" "$tmp/out.table" || fail "a proxy: $(cat "$tmp/out.table")"
for proxy in "ftp://SECRET-pu:SECRET-pp@127.0.0.1:1" "http://SECRET-pu:SECRET-pp@127.0.0.1:99999" \
	"SECRET-pu:SECRET pp@127.0.0.1:1" "http://SECRET-pu:SECRET-pp@[zz" "http://SECRET-pu:SECRET-pp@proxy.invalid:1" \
	"socks5h://SECRET-pu:SECRET-pp@127.0.0.1:1"; do
	proxied "the proxy '$proxy'" 3 "$proxy"
	grep -q '^creds-json: query failed: ' "$tmp/out.table" || fail "the proxy '$proxy': $(cat "$tmp/out.table")"
done

# 6. a .netrc: a password that the server refuses, and a file that cannot be read as one
printf 'machine 127.0.0.1 login SECRET-n password SECRET-np\n' >"$tmp/netrc"
NETRC=$tmp/netrc plan_all "a netrc with a wrong password" 3 --index "http://127.0.0.1:$HTTP_PORT/private/"
grep -qx 'creds-json: query failed: HTTP 401: the index wants credentials (netrc, or WHEELMATRIX_INDEX_USERNAME and WHEELMATRIX_INDEX_PASSWORD)' \
	"$tmp/out.table" || fail "a netrc with a wrong password: $(cat "$tmp/out.table")"
printf 'machine 127.0.0.1 login SECRET-n password "SECRET-np\n' >"$tmp/netrc"
NETRC=$tmp/netrc plan_all "a netrc that cannot be read" 3 --index "http://127.0.0.1:$HTTP_PORT/private/"

# 7. the matrix's own index URL (strategy index) with a password: an error at its position that
# quotes neither the URL's user name and password nor the line
mkdir -p "$tmp/m"
cat >"$tmp/m/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: creds-json}
distribution:
  strategy: index
  index: {url: "https://SECRET-u:SECRET-p@example.org/whl"}
backends:
  cpu: {default: true}
  cuda: {}
YAML
status=0
"$WM" -C "$tmp/m" list >"$tmp/m.out" 2>"$tmp/m.err" || status=$?
[[ $status == 2 ]] || fail "the matrix's index URL: exit $status, not 2"
expect_same - "$tmp/m.err" "the matrix's index URL" <<'EOF'
wheelmatrix.yaml:5:16: error: invalid index URL 'https://example.org/whl': the URL must not hold a user or password
EOF
finish
