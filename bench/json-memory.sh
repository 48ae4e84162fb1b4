#!/usr/bin/env bash
# json-memory.sh — the peak memory of `plan` and `outdated` reading a 30 MiB PEP 691 page: one of empty
# objects (the amplification formats/json.c's budget refuses) and one of 48,000 real-shaped files, for
# a baseline binary and this one, RUNS runs of each.
#
# Usage: BASELINE=/path/to/old/wheelmatrix bench/json-memory.sh   (RUNS=N runs of each, default 5;
#                                 WHEELMATRIX=PATH for the binary measured against the baseline)
# Reported, not asserted: it fails only when a command does not end as it should.
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
: "${BASELINE:?give the binary to compare with: BASELINE=/path/to/wheelmatrix}"
server=
trap '[[ -n $server ]] && kill "$server" 2>/dev/null; bench_cleanup' EXIT
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

# the pages: empty/<project>/ (ten million empty objects) and real/<project>/ (48,000 files), for
# bench-a (plan) and maturin (outdated's tool)
python3 - "$tmp/www" <<'PY'
import hashlib, json, os, sys
root = sys.argv[1]
def write(kind, name, text):
    os.makedirs(os.path.join(root, kind, name), exist_ok=True)
    with open(os.path.join(root, kind, name, "index.json"), "w") as f:
        f.write(text)
files = []
for i in range(48_000):
    v = "0.%d.%d" % (i // 100, i % 100)
    h = lambda s: hashlib.sha256((s + v).encode()).hexdigest()
    fn = "bench_a-%s-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl" % v
    files.append({"filename": fn, "url": "https://files.example.org/packages/%s/%s" % (h("u"), fn),
                  "hashes": {"sha256": h("f")}, "requires-python": ">=3.8", "core-metadata": {"sha256": h("m")},
                  "size": 1000 + i, "yanked": False, "upload-time": "2024-01-01T00:00:00.000000Z"})
versions = sorted({f["filename"].split("-")[1] for f in files})
for name in ("bench-a", "maturin"):
    write("empty", name, '{"meta": {"api-version": "1.1"}, "name": "%s", "versions": ["1.0"], "padding": [%s], "files": []}'
          % (name, ",".join(["{}"] * 10_000_000)))
    write("real", name, json.dumps({"meta": {"api-version": "1.1"}, "name": name, "versions": versions, "files": files}))
PY
python3 - "$tmp/www" "$tmp/port" <<'PY' &
import http.server, os, sys
root, port_file = sys.argv[1:]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = os.path.join(root, self.path.strip("/"), "index.json")
        if not os.path.isfile(path):
            self.send_response(404); self.end_headers(); return
        body = open(path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(port_file + ".tmp", "w").write(str(s.server_address[1]))
os.rename(port_file + ".tmp", port_file)
s.serve_forever()
PY
server=$!
for ((i = 0; i < 100; i++)); do
	[[ -s $tmp/port ]] && break
	sleep 0.05
done
base=http://127.0.0.1:$(cat "$tmp/port")
mkdir -p "$tmp/p"
printf '[project]\nname = "bench-a"\nversion = "1.0.0"\n[build-system]\nrequires = ["maturin>=1,<2"]\nbuild-backend = "maturin"\n' >"$tmp/p/pyproject.toml"
printf '[package]\nname = "bench-a"\nversion = "1.0.0"\n[lib]\ncrate-type = ["cdylib"]\n' >"$tmp/p/Cargo.toml"
printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\nci:\n  github: {}\n' >"$tmp/p/wheelmatrix.yaml"

echo "baseline: $BASELINE"
echo "measured: $wm"
echo "$runs runs each; peak RSS of the largest run, MiB"
printf '\n%-34s %10s %10s\n' "" baseline measured
for kind in empty real; do
	for cmd in plan outdated; do
		case $cmd in
		plan) args=(-C "$tmp/p" plan 1.0.0 --retries 0 --index "$base/$kind/") ;;
		outdated) args=(-C "$tmp/p" outdated --retries 0 --index "$base/$kind/" --github "$base/none") ;;
		esac
		# one after the other, RUNS times each: each ends as it ends (the baseline reads what this one refuses)
		peaks=()
		for bin in "$BASELINE" "$wm"; do
			status=0
			"$bin" "${args[@]}" >/dev/null 2>&1 || status=$?
			result=$(python3 "$here/measure.py" --quiet --status "$status" --runs "$runs" -- "$bin" "${args[@]}")
			peaks+=("${result#* }")
		done
		peak_a=${peaks[0]} peak_b=${peaks[1]}
		awk -v w="$cmd, a 30 MiB page of $kind" -v a="$peak_a" -v b="$peak_b" 'BEGIN { printf "%-34s %10.0f %10.0f\n", w, a / 1024, b / 1024 }'
	done
done
