#!/usr/bin/env bash
# t-net-redirects.sh — a request plan, outdated or pin starts on https stays on https, and no credentials follow a redirect to another host: against nginx (TLS with a test CA), its log saying what reached which port with whose credentials.
#
# nginx redirects /to-http/ to plain http on the same host, /to-localhost/ to another host name over
# https (localhost, which its certificate names too) and /to-private/ to the same origin's pages
# behind a password.  A .netrc holds the password for 127.0.0.1: libcurl, asked for http and https
# on every hop, used to follow https -> http and send it there in clear text.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
matrix=$ROOT/matrices/llm-rs.yaml
unset SSL_CERT_FILE WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp

python3 "$ROOT/tests/helpers/plan-index.py" "$tmp/www"
start_nginx "$tmp" "$tmp/www"
https=https://127.0.0.1:$HTTPS_PORT
log=$tmp/nginx/ports.log
printf 'machine 127.0.0.1 login ci password s3cret-pass\n' >"$tmp/netrc"
export NETRC=$tmp/netrc

# after WHAT: the requests of the last command, from the log, and never one on the http port
after() {
	local n
	n=$(wc -l <"$log")
	sed -n "$((seen + 1)),\$p" "$log" >"$tmp/requests"
	seen=$n
	if grep -q "^$HTTP_PORT " "$tmp/requests"; then
		fail "$1: a request reached plain http: $(grep "^$HTTP_PORT " "$tmp/requests")"
	fi
}
seen=0

# the same origin: the redirect is followed, the .netrc password goes along, the plan is made
run "$WM" -f "$matrix" plan 0.3.0-alpha.1 --cacert "$tmp/ca.pem" --retries 0 --index "$https/to-private/"
expect_status 1 "a redirect within the origin (llm-rs 0.3.0a1 is partly on the index)"
after "a redirect within the origin"
grep -q "^$HTTPS_PORT user=ci \"GET /private/llm-rs/ " "$tmp/requests" ||
	fail "within the origin: the .netrc password did not reach /private/: $(cat "$tmp/requests")"

# https -> http: refused, nothing sent in clear
run "$WM" -f "$matrix" plan 0.3.0-alpha.1 --cacert "$tmp/ca.pem" --retries 0 --index "$https/to-http/"
expect_status 3 "plan: https -> http"
after "plan: https -> http"
grep -qF "llm-rs: query failed: a redirect from https to plain http (http://127.0.0.1:$HTTP_PORT/simple/llm-rs/), refused: a request that starts on https stays on https" "$tmp/out" ||
	fail "plan: https -> http says: $(cat "$tmp/out" "$tmp/err")"
grep -q "^$HTTPS_PORT user=ci \"GET /to-http/llm-rs/ .* 302$" "$tmp/requests" ||
	fail "plan: https -> http: the redirect was not asked for: $(cat "$tmp/requests")"

# another host: neither the URL's credentials nor the .netrc's (of 127.0.0.1) follow; localhost refuses
run "$WM" -f "$matrix" plan 0.3.0-alpha.1 --cacert "$tmp/ca.pem" --retries 0 --index "https://ci:s3cret-pass@127.0.0.1:$HTTPS_PORT/to-localhost/"
expect_status 3 "plan: a redirect to another host"
after "plan: a redirect to another host"
grep -q "^$HTTPS_PORT user=ci \"GET /to-localhost/llm-rs/ .* 302$" "$tmp/requests" ||
	fail "another host: the first request: $(cat "$tmp/requests")"
grep -q "^$HTTPS_PORT user=- \"GET /private/llm-rs/ .* 401$" "$tmp/requests" ||
	fail "another host: credentials followed the redirect: $(cat "$tmp/requests")"

# outdated and pin: the same, through their --index and --github
mkdir -p "$tmp/p"
llm_rs_project "$tmp/p"
printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\nci:\n  github: {}\n' >"$tmp/p/wheelmatrix.yaml"
cp "$tmp/p/wheelmatrix.yaml" "$tmp/matrix.yaml"
run "$WM" -C "$tmp/p" outdated --cacert "$tmp/ca.pem" --retries 0 --index "$https/to-http/" --github "$https/to-http"
expect_status 3 "outdated: https -> http"
after "outdated: https -> http"
grep -q "a redirect from https to plain http (http://127.0.0.1:$HTTP_PORT/simple/" "$tmp/out" "$tmp/err" ||
	fail "outdated: https -> http says: $(cat "$tmp/out" "$tmp/err")"
grep -q "^$HTTPS_PORT user=ci \"GET /to-http/" "$tmp/requests" || fail "outdated asked nothing: $(cat "$tmp/requests")"
run "$WM" -C "$tmp/p" pin --cacert "$tmp/ca.pem" --retries 0 --github "$https/to-http"
expect_status 3 "pin: https -> http"
after "pin: https -> http"
grep -q "a redirect from https to plain http (http://127.0.0.1:$HTTP_PORT/simple/" "$tmp/err" ||
	fail "pin: https -> http says: $(cat "$tmp/err")"
grep -q "^$HTTPS_PORT user=ci \"GET /to-http/" "$tmp/requests" || fail "pin asked nothing: $(cat "$tmp/requests")"
cmp -s "$tmp/matrix.yaml" "$tmp/p/wheelmatrix.yaml" || fail "pin wrote the matrix file"
finish
