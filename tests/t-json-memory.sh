#!/usr/bin/env bash
# t-json-memory.sh — a PEP 691 page costs plan and outdated a small multiple of its size to read, and an out-of-memory is told as one: nginx serves a 30 MiB page of empty objects (Jansson's tree of it would be 70 times that) and a real-shaped page as large, and the tool runs within an address-space limit (tests/kit/limited.sh).
#
# Before, the page of empty objects cost outdated 2.6 GiB and plan about 1 GiB, and under a limit
# the failed allocation was reported as "malformed JSON at line -1".  Now a parse may take 12 times
# the text and 1 MiB, reckoned from the text before Jansson reads it (formats/json.c): past that the
# page is refused, saying so, and a refusal of the system's is "out of memory".  The real-shaped page (48,000 files with their
# hashes, sizes and metadata, as PyPI writes them) is read within the same limit, so the bound
# does not refuse what an index serves.
# heavy: documents of many megabytes read within memory bounds
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/limited.sh
source "$ROOT/tests/kit/limited.sh"
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp
matrix=$ROOT/matrices/llm-rs.yaml

python3 "$ROOT/tests/helpers/plan-index.py" "$tmp/www"
# page KIND DIR: a PEP 691 page of ~30 MiB in DIR/index.json; `empty`: its files array holds ten
# million empty objects besides one real file; `real`: 48,000 real-shaped files
python3 - "$tmp/www/simple" <<'PY'
import hashlib, json, os, sys
root = sys.argv[1]
def write(name, text):
    os.makedirs(os.path.join(root, name), exist_ok=True)
    with open(os.path.join(root, name, "index.json"), "w") as f:
        f.write(text)
meta = '{"meta": {"api-version": "1.1"}, "name": "%s", "versions": ["0.2.0"], '
one = '{"filename": "llm_rs-0.2.0.tar.gz", "hashes": {}}'
write("llm-rs", meta % "llm-rs" + '"padding": [' + ",".join(["{}"] * 10_000_000) + '], "files": [' + one + "]}")
write("maturin", meta % "maturin" + '"padding": [' + ",".join(["[]"] * 10_000_000) + '], "files": []}')
files = []
for i in range(48_000):
    v = "0.%d.%d" % (i // 100, i % 100)
    h = lambda s: hashlib.sha256((s + v).encode()).hexdigest()
    fn = "llm_rs_cuda-%s-cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl" % v
    files.append({"filename": fn, "url": "https://files.example.org/packages/%s/%s" % (h("u"), fn),
                  "hashes": {"sha256": h("f")}, "requires-python": ">=3.8", "core-metadata": {"sha256": h("m")},
                  "data-dist-info-metadata": {"sha256": h("m")}, "size": 1000 + i, "yanked": False,
                  "upload-time": "2024-01-01T00:00:00.000000Z"})
write("llm-rs-cuda", json.dumps({"meta": {"api-version": "1.1"}, "name": "llm-rs-cuda",
                                  "versions": sorted({f["filename"].split("-")[1] for f in files}), "files": files}))
PY
for p in llm-rs maturin llm-rs-cuda; do
	size=$(stat -c %s "$tmp/www/simple/$p/index.json")
	((size > 28 << 20 && size < 32 << 20)) || fatal "the $p page is $size bytes, not about 30 MiB"
done
start_nginx "$tmp" "$tmp/www"
index=http://127.0.0.1:$HTTP_PORT/simple/

# 1. within 900 MiB of address space: the empty objects refused as such, the real page read
limited 900 1000 -f "$matrix" plan 0.3.0-alpha.1 --retries 0 --index "$index"
expect_status 3 "plan: a page of empty objects"
grep -q "^llm-rs: query failed: the JSON page ([0-9]\+ KiB) was not read: reading it would take more than [0-9]\+ MiB (12 times its size and 1 MiB), which no index page needs" "$tmp/out" ||
	fail "plan: the page of empty objects: $(cat "$tmp/out" "$tmp/err")"
grep -q "^llm-rs-cuda: " "$tmp/out" && grep -q "^llm-rs-cuda: query failed" "$tmp/out" &&
	fail "plan: the real page of 48,000 files was not read: $(grep -A2 '^llm-rs-cuda' "$tmp/out")"
grep -q "malformed JSON\|out of memory" "$tmp/out" "$tmp/err" && fail "plan: $(cat "$tmp/out" "$tmp/err")"
mkdir -p "$tmp/p"
llm_rs_project "$tmp/p"
printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\nci:\n  github: {}\n' >"$tmp/p/wheelmatrix.yaml"
limited 900 1000 -C "$tmp/p" outdated --retries 0 --index "$index" --github "http://127.0.0.1:$HTTP_PORT/none"
grep -q "^tool .*maturin .*unknown: the JSON page ([0-9]\+ KiB) was not read: reading it would take more than" "$tmp/out" ||
	fail "outdated: the page of empty arrays: $(cat "$tmp/out" "$tmp/err")"

# 2. the real page within less memory than reading it takes: the system's refusal is "out of memory", not
# malformed JSON.  Under AddressSanitizer, whose address space has no such limit, its allocator refuses
# any block over 16 MiB instead: the response's buffer on its way to 30 MiB, so there the refusal
# checked is the response reader's, not the parse's
if ((limited_asan)); then
	run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=16:allocator_may_return_null=1" \
		"$WM" -f "$matrix" plan 0.3.0-alpha.1 --retries 0 --jobs 1 --index "$index"
else
	limited 200 200 -f "$matrix" plan 0.3.0-alpha.1 --retries 0 --jobs 1 --index "$index"
fi
expect_status 3 "plan: out of memory"
grep -q "out of memory" "$tmp/out" "$tmp/err" || fail "plan short of memory does not say 'out of memory': $(cat "$tmp/out" "$tmp/err")"
grep -q "malformed JSON" "$tmp/out" "$tmp/err" && fail "plan short of memory: $(cat "$tmp/out" "$tmp/err")"
finish
