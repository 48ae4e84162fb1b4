# shellcheck shell=bash
# plan-servers.sh — sourced by the plan tests: loopback servers they start and stop, and a test CA.
#
# start_fault DIR [ARGS...]   tests/servers/index-server.py; sets FAULT_PORT
# make_ca DIR                 a CA and a certificate for 127.0.0.1 signed by it, made now with openssl
# start_nginx DIR ROOT        nginx serving the index tree ROOT over http and https (DIR/ca.pem);
#                             sets HTTP_PORT and HTTPS_PORT; DIR/nginx/ports.log has a line per
#                             request: the port, user=<its credentials' user name>, the request, the status
# stop_servers                stops what was started
# plan_index PYTHONS PLATFORMS FILE...
#                             nginx serving FILE... as llm-rs's files ($http), and $project, a scratch
#                             llm-rs whose matrix builds PYTHONS (a YAML flow list) on PLATFORMS
#
# Source it after tests/kit/lib.sh (its $tmp, `fail`, ...): the servers it starts are stopped at exit.
#
# Both servers bind 127.0.0.1 only.  The proxy variables are cleared and NO_PROXY
# set so that loopback requests go straight to them.

: "${ROOT:?}" "${tmp:?source tests/kit/lib.sh first}"
at_exit stop_servers
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
server_pids=()

project_page() {  # project_page DIR FILE...: the page of project llm-rs, PEP 503 HTML and PEP 691 JSON, listing FILE... (zero hashes)
	local dir=$1 f
	shift
	mkdir -p "$dir"
	{
		echo '<!DOCTYPE html><html><body>'
		for f in "$@"; do echo "<a href=\"$f#sha256=$(printf %064d 0)\">$f</a><br>"; done
		echo '</body></html>'
	} >"$dir/index.html"
	python3 - "$dir/index.json" "$@" <<'PY'
import json, sys
files = [{"filename": f, "url": f, "hashes": {"sha256": "0" * 64}} for f in sys.argv[2:]]
json.dump({"meta": {"api-version": "1.1"}, "name": "llm-rs", "files": files}, open(sys.argv[1], "w"))
PY
}

# llm_rs_project DIR: a project llm-rs 1.0.0 (pyproject.toml, Cargo.toml with the features cublas
# and hipblas) for a matrix to be written beside it; nothing is built from it
llm_rs_project() {
	mkdir -p "$1"
	cat >"$1/pyproject.toml" <<'EOF'
[build-system]
requires = ["maturin>=1.0,<2.0"]
build-backend = "maturin"

[project]
name = "llm-rs"
version = "1.0.0"
EOF
	cat >"$1/Cargo.toml" <<'EOF'
[package]
name = "llm-rs"
version = "1.0.0"
edition = "2021"

[lib]
crate-type = ["cdylib"]

[features]
cublas = []
hipblas = []
EOF
}

# shellcheck disable=SC2034  # http and project are the sourcing test's
plan_index() {
	local pythons=$1 platforms=$2
	shift 2
	unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
	export HOME=$tmp
	project_page "$tmp/www/simple/llm-rs" "$@"
	start_nginx "$tmp" "$tmp/www"
	http=http://127.0.0.1:$HTTP_PORT
	project=$tmp/project
	llm_rs_project "$project"
	printf 'wheelmatrix: 1\npython: {versions: %s}\nplatforms: %s\nci: {}\n' "$pythons" "$platforms" \
		>"$project/wheelmatrix.yaml"
}

stop_servers() {
	local pid
	for pid in "${server_pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	server_pids=()
}

# Waits until something accepts connections on 127.0.0.1:$1, while process $2 lives.
wait_port() {
	local i
	for ((i = 0; i < 100; i++)); do
		kill -0 "$2" 2>/dev/null || return 1
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

start_fault() {
	local dir=$1 i
	shift
	rm -f "$dir/fault.port"
	python3 "$ROOT/tests/servers/index-server.py" "$dir/fault.port" "$@" 8>&- &
	server_pids+=($!)
	for ((i = 0; i < 100; i++)); do
		[[ -s $dir/fault.port ]] && break
		sleep 0.05
	done
	# shellcheck disable=SC2034  # for the script that sources this file
	FAULT_PORT=$(cat "$dir/fault.port" 2>/dev/null) || { echo "the fault server did not start"; return 1; }
}

make_ca() {
	local dir=$1
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=wheelmatrix test CA" \
		-keyout "$dir/ca.key" -out "$dir/ca.pem" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$dir/server.key" \
		-out "$dir/server.csr" 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
		>"$dir/server.ext"
	openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
		-days 2 -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
}

# A free port: the kernel picks one for a socket that is then closed; nginx may still lose it to
# another process before binding, so start_nginx retries.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_nginx() {
	local dir=$1 www=$2 attempt pid user=
	command -v nginx >/dev/null || PATH=$PATH:/usr/sbin
	if ! command -v nginx >/dev/null; then
		echo "nginx is not installed (.ci/run installs it: apt-get install nginx)"
		return 1
	fi
	[[ -f $dir/ca.pem ]] || make_ca "$dir"
	# the passwords for /private/: user 'ci', and a user whose name and password hold what a URL
	# must percent-encode (t-plan-credentials; nginx reads a second ':' as the start of a comment)
	printf 'ci:{PLAIN}s3cret-pass\nSECRET-we@ird:{PLAIN}SECRET-p@ss/w@rd%% ?#\n' >"$dir/htpasswd"
	[[ $(id -u) == 0 ]] && user="user root;"
	mkdir -p "$dir/nginx"
	for ((attempt = 0; attempt < 5; attempt++)); do
		HTTP_PORT=$(free_port)
		HTTPS_PORT=$(free_port)
		cat >"$dir/nginx/nginx.conf" <<CONF
$user
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 64; }
http {
	access_log $dir/nginx/access.log;
	# which port each request came to, with the user name of its credentials (t-net-redirects)
	log_format ports '\$server_port user=\$remote_user "\$request" \$status';
	access_log $dir/nginx/ports.log ports;
	client_body_temp_path $dir/nginx/body;
	proxy_temp_path $dir/nginx/proxy;
	fastcgi_temp_path $dir/nginx/fastcgi;
	uwsgi_temp_path $dir/nginx/uwsgi;
	scgi_temp_path $dir/nginx/scgi;
	types { text/html html; application/vnd.pypi.simple.v1+json json; }
	default_type application/octet-stream;
	# PEP 691 content negotiation: JSON when the client asks for it
	map \$http_accept \$simple_index {
		"~application/vnd\.pypi\.simple\.v1\+json" index.json;
		default index.html;
	}
	server {
		listen 127.0.0.1:$HTTP_PORT;
		listen 127.0.0.1:$HTTPS_PORT ssl;
		ssl_certificate $dir/server.pem;
		ssl_certificate_key $dir/server.key;
		root $www;
		location /simple/ { index \$simple_index; }
		# an index that only speaks PEP 503 HTML
		location /html/ { alias $www/simple/; index index.html; }
		location /private/ {
			alias $www/simple/;
			index \$simple_index;
			auth_basic "index";
			auth_basic_user_file $dir/htpasswd;
		}
		# redirects (t-net-redirects): from here to plain http on the same host, to another host name
		# (localhost, which the certificate names too) and to the same origin's private pages
		rewrite ^/to-http/(.*)\$ http://127.0.0.1:$HTTP_PORT/simple/\$1 redirect;
		rewrite ^/to-localhost/(.*)\$ https://localhost:$HTTPS_PORT/private/\$1 redirect;
		rewrite ^/to-private/(.*)\$ https://127.0.0.1:$HTTPS_PORT/private/\$1 redirect;
		# the backends' own indexes of strategy index, behind the same password
		location /private-whl/ {
			alias $www/whl/;
			auth_basic "index";
			auth_basic_user_file $dir/htpasswd;
		}
	}
}
CONF
		nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/nginx/error.log" -g 'daemon off;' 8>&- &
		pid=$!
		if wait_port "$HTTP_PORT" "$pid" && wait_port "$HTTPS_PORT" "$pid"; then
			server_pids+=("$pid")
			return 0
		fi
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	echo "nginx did not start:"
	cat "$dir/nginx/error.log"
	return 1
}
