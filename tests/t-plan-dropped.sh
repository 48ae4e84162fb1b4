#!/usr/bin/env bash
# t-plan-dropped.sh — plan against the last release on nginx: every wheel of the newest earlier version
# that this release does not build is listed as dropped, fails the plan unless a rule of the matrix's
# `dropped` plans it (whose reason is printed), and is counted; the last release is the newest final
# version before the planned one (yanked files and other local labels aside), an abi3 wheel takes the
# place of the per-version wheels it installs for, and the variant index's null row reports a label no
# backend has any more.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp  # no ~/.netrc

# page DIR NAME [FILE[:yanked]]...: a project page, PEP 691 JSON (with the PEP 700 versions) and PEP 503 HTML
page() {
	python3 - "$@" <<'PY'
import html, json, os, sys
d, name, files = sys.argv[1], sys.argv[2], [f.split(":") for f in sys.argv[3:]]
os.makedirs(d, exist_ok=True)
entries = [{"filename": f[0], "url": f[0], "hashes": {"sha256": "0" * 64}, "size": 1000,
            "yanked": len(f) > 1} for f in files]
versions = sorted({f[0].split("-")[1].removesuffix(".tar.gz") for f in files})
json.dump({"meta": {"api-version": "1.1"}, "name": name, "versions": versions, "files": entries},
          open(os.path.join(d, "index.json"), "w"))
with open(os.path.join(d, "index.html"), "w") as out:
    out.write('<!DOCTYPE html><html><body>\n')
    for f in files:
        yanked = ' data-yanked=""' if len(f) > 1 else ""
        out.write('<a href="%s#sha256=%s"%s>%s</a><br>\n' % (html.escape(f[0]), "0" * 64, yanked, html.escape(f[0])))
    out.write("</body></html>\n")
PY
}

# wheels VERSION PYTHON-ABI... -- PLATFORM...: llm-rs's wheel names, maturin's tag sets
wheels() {
	local v=$1 pys=() plats=() p q
	shift
	while [[ $1 != -- ]]; do pys+=("$1"); shift; done
	shift
	plats=("$@")
	for p in "${pys[@]}"; do
		for q in "${plats[@]}"; do echo "llm_rs-$v-$p-$q.whl"; done
	done
}
linux=manylinux_2_17_x86_64.manylinux2014_x86_64
i686=manylinux_2_17_i686.manylinux2014_i686
musl=musllinux_1_2_x86_64
macx=macosx_10_12_x86_64
maca=macosx_11_0_arm64
win=win_amd64

# The index: llm-rs 0.8.0 (an older release), 0.9.0 (the last final one: CPython 3.10 to 3.13 on six
# platforms, free-threaded 3.13 and PyPy 3.10 on Linux, the sdist), 0.9.1 (yanked in full), 1.0.0rc1
# (a pre-release of two wheels) and 1.1.0 (newer than the plan); llm-rs-cuda 0.9.0 on Linux and Windows.
www=$tmp/www
mapfile -t files < <(
	wheels 0.8.0 cp39-cp39 -- "$linux" "$win"
	wheels 0.9.0 cp310-cp310 cp311-cp311 cp312-cp312 cp313-cp313 -- "$linux" "$i686" "$musl" "$macx" "$maca" "$win"
	wheels 0.9.0 cp313-cp313t pp310-pypy310_pp73 -- "$linux"
	echo llm_rs-0.9.0.tar.gz
	wheels 0.9.1 cp312-cp312 -- "$linux" | sed 's/$/:yanked/'
	echo llm_rs-0.9.1.tar.gz:yanked
	wheels 1.0.0rc1 cp312-cp312 -- "$linux" "$win"
	wheels 1.1.0 cp310-cp310 -- "$linux"
)
page "$www/simple/llm-rs" llm-rs "${files[@]}"
page "$www/simple/llm-rs-cuda" llm-rs-cuda llm_rs_cuda-0.9.0-cp312-cp312-$linux.whl llm_rs_cuda-0.9.0-cp312-cp312-$win.whl \
	llm_rs_cuda-0.9.0.tar.gz
start_nginx "$tmp" "$www" || fatal "nginx (above)"
index=http://127.0.0.1:$HTTP_PORT/simple/

project=$tmp/project
llm_rs_project "$project"
# matrix LINES...: the matrix of 1.0.0: CPython 3.11 to 3.13 and 3.13t on Linux x86_64, macOS and
# Windows (no 3.10, no i686, no musllinux, no PyPy), cuda on Linux, then the lines given
matrix() {
	{
		printf 'wheelmatrix: 1\npython: {versions: ["3.11", "3.12", "3.13", "3.13t"]}\n'
		printf 'platforms: [linux-x86_64, macos-x86_64, macos-arm64, windows-x86_64]\n'
		printf 'backends:\n  cuda: {features: [cublas], platforms: [linux-x86_64]}\n  cpu: {default: true}\n'
		printf 'exclude:\n  - {backend: cuda, python: "3.13t"}\nci: {}\n'
		printf '%s\n' "$@"
	} >"$project/wheelmatrix.yaml"
}
plan() {
	run "$WM" -C "$project" plan 1.0.0 --index "$index" "$@"
	sed -i "s/127\.0\.0\.1:$HTTP_PORT/127.0.0.1:PORT/g" "$tmp/out" "$tmp/err"
}

# 1. no drop planned: each wheel of 0.9.0 that 1.0.0 does not build is listed, and the plan fails
matrix
plan
expect_status 1 "unplanned drops"
[[ ! -s $tmp/err ]] || fail "stderr: $(cat "$tmp/err")"
cp "$tmp/out" "$tmp/unplanned.table"
# 3.10 on six platforms, i686 and musllinux for 3.11 to 3.13, PyPy 3.10; cuda's Windows wheel
want_dropped=$( {
	wheels 0.9.0 cp310-cp310 -- "$linux" "$i686" "$musl" "$macx" "$maca" "$win"
	wheels 0.9.0 cp311-cp311 cp312-cp312 cp313-cp313 -- "$i686" "$musl"
	wheels 0.9.0 pp310-pypy310_pp73 -- "$linux"
} | sort)
got_dropped=$(sed -n 's/^  dropped     \(llm_rs-[^ ]*\) (dropped since 0.9.0, not planned)$/\1/p' "$tmp/out" | sort)
[[ $got_dropped == "$want_dropped" ]] || fail "the dropped llm-rs wheels: $(diff <(echo "$want_dropped") <(echo "$got_dropped"))"
grep -qx "  dropped     llm_rs_cuda-0.9.0-cp312-cp312-$win.whl (dropped since 0.9.0, not planned)" "$tmp/out" ||
	fail "cuda's Windows wheel is not listed as dropped: $(cat "$tmp/out")"
grep -qx "llm-rs: 17 files to upload; 13 wheels of 0.9.0 dropped" "$tmp/out" || fail "llm-rs's summary: $(grep '^llm-rs:' "$tmp/out")"
grep -qx "llm-rs-cuda: 4 files to upload; 1 wheel of 0.9.0 dropped" "$tmp/out" ||
	fail "llm-rs-cuda's summary: $(grep '^llm-rs-cuda:' "$tmp/out")"
grep -qx "21 files: 0 present, 21 missing; 0 unexpected, 14 dropped; the release would drop 14 wheels of the last release that the matrix does not plan to drop: build them again, or plan each drop under 'dropped' in the matrix, with its reason" "$tmp/out" ||
	fail "the closing line: $(tail -n 1 "$tmp/out")"
# nothing of 0.8.0, 0.9.1 (yanked), 1.0.0rc1 (a pre-release) or 1.1.0 is looked at
! grep -E 'llm_rs-(0\.8\.0|0\.9\.1|1\.0\.0rc1|1\.1\.0)-' "$tmp/out" || fail "files of another release are listed"

# the same from PEP 503 HTML (yanked through data-yanked)
run "$WM" -C "$project" plan 1.0.0 --index "http://127.0.0.1:$HTTP_PORT/html/"
sed -i "s/127\.0\.0\.1:$HTTP_PORT/127.0.0.1:PORT/g" "$tmp/out"
expect_status 1 "unplanned drops, from HTML"
sed 's|/simple/|/html/|' "$tmp/unplanned.table" | diff -u - "$tmp/out" || fail "the report from PEP 503 HTML differs"

# the JSON: counts of every category, and each distribution's last release and dropped wheels
plan --format json
expect_status 1 "plan --format json"
python3 - "$tmp/out" <<'PY' || fail "the JSON report (above)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "dropped", r["verdict"]
assert r["counts"] == {"present": 0, "missing": 21, "unknown": 0, "unchecked": 0, "unexpected": 0, "dropped": 14,
                       "dropped_planned": 0}, r["counts"]
d = {x["name"]: x for x in r["distributions"]}
assert d["llm-rs"]["previous"] == "0.9.0" and d["llm-rs-cuda"]["previous"] == "0.9.0", d
assert len(d["llm-rs"]["dropped"]) == 13 and all(not w["planned"] and w["reason"] is None for w in d["llm-rs"]["dropped"])
assert d["llm-rs-cuda"]["dropped"] == [{"file": "llm_rs_cuda-0.9.0-cp312-cp312-win_amd64.whl", "planned": False,
                                        "reason": None}], d["llm-rs-cuda"]["dropped"]
PY

# a version already published with files this release does not produce is never "all present"
cat >"$project/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends:
  cuda: {features: [cublas]}
  cpu: {default: true}
ci: {}
EOF
run "$WM" -C "$project" plan 0.9.0 --index "$index"
expect_status 1 "0.9.0, published"
grep -qx "llm-rs: version 0.9.0 already published: its 2 planned files present, and 25 files of that version this release does not produce: nothing to upload; 2 wheels of 0.8.0 dropped" "$tmp/out" ||
	fail "0.9.0: llm-rs's summary: $(grep '^llm-rs:' "$tmp/out")"
grep -qx "llm-rs-cuda: version 0.9.0 already published: its 2 planned files present, and 1 file of that version this release does not produce: nothing to upload" "$tmp/out" ||
	fail "0.9.0: llm-rs-cuda's summary: $(grep '^llm-rs-cuda:' "$tmp/out")"
! grep -q 'all [0-9]* files present' "$tmp/out" || fail "0.9.0: 'all present' with unexpected files"
grep -qx "4 files: 4 present, 0 missing; 26 unexpected, 2 dropped; the release would fail: version 0.9.0 is already published for 2 of 2 distributions; and it would drop 2 wheels of the last release that the matrix does not plan to drop" "$tmp/out" ||
	fail "0.9.0: the closing line: $(tail -n 1 "$tmp/out")"

# 2. some drops planned: each with its reason, the others still fail the plan
matrix 'dropped:' \
	'  - {python: "3.10", reason: "Python 3.10 is past its end of life"}' \
	'  - {platform: linux-i686, reason: "no 32-bit Linux users left"}' \
	'  - {backend: cuda, platform: "windows-*", reason: "CUDA on Windows builds from source"}'
plan
expect_status 1 "partly planned drops"
grep -qx "  dropped     llm_rs-0.9.0-cp310-cp310-$win.whl (dropped since 0.9.0, planned: Python 3.10 is past its end of life)" "$tmp/out" ||
	fail "a planned 3.10 drop: $(grep cp310-cp310-win "$tmp/out")"
grep -qx "  dropped     llm_rs-0.9.0-cp312-cp312-$i686.whl (dropped since 0.9.0, planned: no 32-bit Linux users left)" "$tmp/out" ||
	fail "a planned i686 drop: $(grep cp312-cp312-manylinux_2_17_i686 "$tmp/out")"
grep -qx "  dropped     llm_rs-0.9.0-cp312-cp312-$musl.whl (dropped since 0.9.0, not planned)" "$tmp/out" ||
	fail "an unplanned musllinux drop: $(grep cp312-cp312-musl "$tmp/out")"
grep -qx "llm-rs: 17 files to upload; 13 wheels of 0.9.0 dropped, 9 of them planned" "$tmp/out" ||
	fail "llm-rs's summary: $(grep '^llm-rs:' "$tmp/out")"
grep -qx "llm-rs-cuda: 4 files to upload; 1 wheel of 0.9.0 dropped, as planned" "$tmp/out" ||
	fail "llm-rs-cuda's summary: $(grep '^llm-rs-cuda:' "$tmp/out")"
grep -qx "21 files: 0 present, 21 missing; 0 unexpected, 14 dropped (10 planned); the release would drop 4 wheels of the last release that the matrix does not plan to drop: build them again, or plan each drop under 'dropped' in the matrix, with its reason" "$tmp/out" ||
	fail "the closing line: $(tail -n 1 "$tmp/out")"

# 3. every drop planned (a wheel platform tag as a glob, PyPy as a glob): the release can go ahead
matrix 'dropped:' \
	'  - {python: "3.10", reason: "Python 3.10 is past its end of life"}' \
	'  - {platform: linux-i686, reason: "no 32-bit Linux users left"}' \
	'  - {platform: "musllinux_*", reason: "Alpine users build from the sdist"}' \
	'  - {python: "pp3.*", reason: "no PyPy wheels any more"}' \
	'  - {backend: cuda, platform: "windows-*", reason: "CUDA on Windows builds from source"}'
plan
expect_status 0 "every drop planned"
grep -qx "21 files: 0 present, 21 missing; 0 unexpected, 14 dropped (14 planned); the release can go ahead" "$tmp/out" ||
	fail "the closing line: $(tail -n 1 "$tmp/out")"
grep -qx "  dropped     llm_rs-0.9.0-pp310-pypy310_pp73-$linux.whl (dropped since 0.9.0, planned: no PyPy wheels any more)" "$tmp/out" ||
	fail "the PyPy drop: $(grep pp310 "$tmp/out")"
# Markdown and HTML: a row per dropped wheel
plan --format markdown
expect_status 0 "markdown"
grep -qxF "| \`llm_rs-0.9.0-cp313-cp313-$musl.whl\` | dropped | dropped since 0.9.0, planned: Alpine users build from the sdist |" "$tmp/out" ||
	fail "the Markdown row of a dropped wheel: $(grep musllinux "$tmp/out")"
[[ $(grep -c '| dropped | dropped since 0\.9\.0, planned: ' "$tmp/out") == 14 ]] || fail "not 14 Markdown rows of dropped wheels"
plan --format html
expect_status 0 "html"
[[ $(grep -o 'data-status="dropped"' "$tmp/out" | wc -l) == 14 ]] || fail "not 14 HTML rows of dropped wheels"
grep -qF "<tr><th>llm-rs-cuda</th><td class=\"planned\" data-status=\"dropped\"><code>llm_rs_cuda-0.9.0-cp312-cp312-$win.whl</code></td><td>0.9.0</td><td>CUDA on Windows builds from source</td></tr>" "$tmp/out" ||
	fail "the HTML row of cuda's dropped wheel"

# 4. an abi3 wheel takes the place of the CPython wheels of its minimum and later (not free-threaded)
cat >"$project/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
python: {abi3: "3.11", versions: ["3.13t"]}
platforms: [linux-x86_64, linux-i686, musllinux-x86_64, macos-x86_64, macos-arm64, windows-x86_64]
backends:
  cuda: {features: [cublas], platforms: ["linux-x86_64", "windows-x86_64"]}
  cpu: {default: true}
exclude:
  - {backend: cuda, python: "3.13t"}
  - {platform: "linux-i686", python: "3.13t"}
  - {platform: "musllinux-x86_64", python: "3.13t"}
  - {platform: "macos-*", python: "3.13t"}
  - {platform: "windows-*", python: "3.13t"}
ci: {}
dropped:
  - {python: "pp3.10", reason: "no PyPy wheels any more"}
EOF
plan --format json
expect_status 1 "abi3 from 3.11"
python3 - "$tmp/out" <<'PY' || fail "abi3: the JSON report (above)"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x["name"]: x for x in r["distributions"]}
got = sorted((w["file"], w["planned"]) for w in d["llm-rs"]["dropped"])
want = sorted([("llm_rs-0.9.0-cp310-cp310-%s.whl" % p, False) for p in
               ["manylinux_2_17_x86_64.manylinux2014_x86_64", "manylinux_2_17_i686.manylinux2014_i686",
                "musllinux_1_2_x86_64", "macosx_10_12_x86_64", "macosx_11_0_arm64", "win_amd64"]] +
              [("llm_rs-0.9.0-pp310-pypy310_pp73-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", True)])
assert got == want, got
assert d["llm-rs-cuda"]["dropped"] == [], d["llm-rs-cuda"]["dropped"]
assert r["verdict"] == "dropped" and r["counts"]["dropped"] == 7 and r["counts"]["dropped_planned"] == 1, r
PY

# 5. strategy index: the cuda index's last release is 0.9.0+cuda, not a file without its label
page "$www/whl/cuda/llm-rs" llm-rs llm_rs-0.9.0+cuda-cp312-cp312-$linux.whl llm_rs-0.9.0+cuda-cp312-cp312-$win.whl \
	llm_rs-0.9.5-cp312-cp312-$linux.whl llm_rs-0.9.5-cp312-cp312-$musl.whl
page "$www/simple/llm-rs-index" llm-rs
cat >"$project/wheelmatrix.yaml" <<EOF
wheelmatrix: 1
python: {versions: ["3.12"]}
platforms: [linux-x86_64, windows-x86_64]
backends:
  cuda: {features: [cublas], platforms: [linux-x86_64]}
  cpu: {default: true}
distribution:
  strategy: index
  index: {url: "http://127.0.0.1:$HTTP_PORT/whl/"}
ci: {}
EOF
plan --format json
expect_status 1 "strategy index"
python3 - "$tmp/out" <<'PY' || fail "strategy index: the JSON report (above)"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x["backend"]: x for x in r["distributions"]}
assert d["cuda"]["previous"] == "0.9.0+cuda", d["cuda"]
assert d["cuda"]["dropped"] == [{"file": "llm_rs-0.9.0+cuda-cp312-cp312-win_amd64.whl", "planned": False,
                                 "reason": None}], d["cuda"]["dropped"]
assert d["cpu"]["previous"] == "0.9.0" and len(d["cpu"]["dropped"]) == 24, d["cpu"]
PY

# 6. strategy variants: a label no backend has any more is dropped in the null row
page "$www/variants/llm-rs" llm-rs llm_rs-0.9.0-cp312-cp312-$linux-null.whl llm_rs-0.9.0-cp312-cp312-$linux-cu124.whl \
	llm_rs-0.9.0-cp312-cp312-$linux-cu118.whl llm_rs-0.9.0-variants.json
cat >"$project/wheelmatrix.yaml" <<EOF
wheelmatrix: 1
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends:
  cuda:
    features: [cublas]
    variant: {label: cu124, properties: ["nvidia :: cuda_version_lower_bound :: 12.4"]}
  cpu: {default: true}
distribution:
  strategy: variants
  index: {url: "http://127.0.0.1:$HTTP_PORT/variants"}
  providers:
    nvidia: {requires: ["nvidia-variant-provider>=0.0.1,<1.0.0"]}
ci: {}
dropped:
  - {backend: cpu, python: "3.*", reason: "CUDA 11.8 is gone"}
EOF
# PyPI's row: the default backend's plain wheel and sdist, as the matrix builds them
page "$www/pypi/llm-rs" llm-rs llm_rs-0.9.0-cp312-cp312-$linux.whl llm_rs-0.9.0.tar.gz
index=http://127.0.0.1:$HTTP_PORT/pypi/
plan --format json
cp "$tmp/out" "$tmp/variants.json"
expect_status 0 "strategy variants"
python3 - "$tmp/out" <<'PY' || fail "strategy variants: the JSON report (above)"
import json, sys
r = json.load(open(sys.argv[1]))
d = {(x["name"], x.get("variant")): x for x in r["distributions"]}
null, cu124 = d[("llm-rs", "null")], d[("llm-rs", "cu124")]
assert null["dropped"] == [{"file": "llm_rs-0.9.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64-cu118.whl",
                            "planned": True, "reason": "CUDA 11.8 is gone"}], null["dropped"]
assert cu124["dropped"] == [] and cu124["previous"] == "0.9.0", cu124
assert d[("llm-rs", None)]["dropped"] == [] and d[("llm-rs", None)]["previous"] == "0.9.0", d[("llm-rs", None)]
PY

# 7. the rules are checked where they are written
check_error() {  # check_error WANT LINES...
	local want=$1
	shift
	{
		printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nci: {}\n'
		printf '%s\n' "$@"
	} >"$project/wheelmatrix.yaml"
	run "$WM" -C "$project" plan 1.0.0 --offline
	expect_status 2 "$want"
	expect_err "$want" "$want"
}
check_error "wheelmatrix.yaml:6:5: error: a planned drop needs a 'reason', which 'wheelmatrix plan' prints beside each wheel it drops" \
	'dropped:' '  - {python: "3.10"}'
check_error "wheelmatrix.yaml:6:5: error: a planned drop names the wheels it drops: give 'python', 'platform' or 'backend'" \
	'dropped:' '  - {reason: "old"}'
check_error "wheelmatrix.yaml:6:30: error: the 'reason' of a planned drop cannot be blank" \
	'dropped:' '  - {python: "3.10", reason: " "}'
check_error "wheelmatrix.yaml:6:16: error: unknown platform 'linux-i868' (did you mean 'linux-i686'?)" \
	'dropped:' '  - {platform: linux-i868, reason: old}'
check_error "wheelmatrix.yaml:6:14: error: invalid Python '3.1O' in a planned drop: a version such as \"3.8\" or \"3.13t\", PyPy's \"pp3.10\", \"abi3\" or \"py3\", or a glob of them" \
	'dropped:' '  - {python: "3.1O", reason: old}'
check_error "wheelmatrix.yaml:6:15: error: unknown backend 'cuda': it is not under 'backends'" \
	'dropped:' '  - {backend: cuda, reason: old}'
check_error "wheelmatrix.yaml:5:10: error: 'dropped' must be a list of planned drops such as {python: \"3.8\", reason: \"end of life\"}, not a mapping" \
	'dropped: {python: "3.8", reason: old}'
check_error "wheelmatrix.yaml:6:35: error: unknown key 'since' in a planned drop" \
	'dropped:' '  - {python: "3.10", reason: old, since: 0.9.0}'
finish
