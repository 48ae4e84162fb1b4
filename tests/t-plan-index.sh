#!/usr/bin/env bash
# t-plan-index.sh — plan under strategy index against nginx: the default backend checked on the index,
# every other backend on its own index (<url>/<backend>/) with its local label, and the index's
# credentials never sent to the backends' indexes.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp  # no ~/.netrc

# The index (a stand-in for PyPI) has the CPU wheel; cuda's index has the cuda wheel of this
# version and of an earlier one; rocm_6's index does not exist yet.
www=$tmp/www
project_page "$www/simple/llm-rs" llm_rs-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl
project_page "$www/whl/cuda/llm-rs" llm_rs-0.9.0+cuda-cp312-cp312-manylinux_2_28_x86_64.whl \
	llm_rs-1.0.0+cuda-cp312-cp312-manylinux_2_28_x86_64.whl llm_rs-1.0.0+cuda.tar.gz
start_nginx "$tmp" "$www"
http=http://127.0.0.1:$HTTP_PORT

project=$tmp/project
llm_rs_project "$project"
matrix() {  # matrix URL
	cat >"$project/wheelmatrix.yaml" <<EOF
wheelmatrix: 1
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends:
  cuda: {features: [cublas]}
  rocm_6: {features: [hipblas]}
  cpu: {default: true}
distribution:
  strategy: index
  index: {url: "$1"}
ci: {}
EOF
}

# 1. each backend where it lives, with its version
matrix "$http/whl/"
wm -C "$project" plan --index "$http/simple/" --format json
expect_status 1 "plan --format json"
python3 - "$tmp/out" "$http" <<'PY' || fail "the JSON report (above)"
import json, sys
report, http = json.load(open(sys.argv[1])), sys.argv[2]
dists = {(d["backend"]): d for d in report["distributions"]}
assert list(dists) == ["cuda", "rocm_6", "cpu"], list(dists)
want = {
    "cuda": (f"{http}/whl/cuda/llm-rs/", "1.0.0+cuda", "partial",
             {"llm_rs-1.0.0+cuda-cp312-cp312-manylinux_2_28_x86_64.whl": "present",
              "llm_rs-1.0.0+cuda.tar.gz": "present"}),
    "rocm_6": (f"{http}/whl/rocm_6/llm-rs/", "1.0.0+rocm.6", "new",
               {"llm_rs-1.0.0+rocm.6-cp312-cp312-manylinux_2_28_x86_64.whl": "missing",
                "llm_rs-1.0.0+rocm.6.tar.gz": "missing"}),
    "cpu": (f"{http}/simple/llm-rs/", "1.0.0", "partial",
            {"llm_rs-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl": "present", "llm_rs-1.0.0.tar.gz": "missing"}),
}
for backend, (url, version, state, files) in want.items():
    d = dists[backend]
    got = {a["file"]: a["state"] for a in d["artifacts"]}
    assert d["name"] == "llm-rs" and d["url"] == url and d["version"] == version, d
    assert got == files, (backend, got)
    # the earlier version on cuda's index is neither expected nor unexpected
    assert d["unexpected"] == [], d
# cuda: both files of 1.0.0+cuda are there, so that version is published in full
assert dists["cuda"]["state"] == "published", dists["cuda"]["state"]
assert dists["rocm_6"]["state"] == "new" and dists["cpu"]["state"] == "partial", report
assert report["verdict"] == "fail", report["verdict"]
PY

# the table names each backend, since they share the name
wm -C "$project" plan --index "$http/simple/"
expect_status 1 "plan"
for heading in "llm-rs (cuda): version 1.0.0+cuda already published" "llm-rs (rocm_6): new project" \
	"llm-rs (cpu): version 1.0.0 partly published"; do
	grep -q "^$heading" "$tmp/out" || fail "the table lacks '$heading': $(cat "$tmp/out")"
done

# 2. the index's credentials go to the index only: behind the same password, the backends'
#    indexes answer 401 while the index answers
matrix "$http/private-whl"
WHEELMATRIX_INDEX_USERNAME=ci WHEELMATRIX_INDEX_PASSWORD=s3cret-pass wm -C "$project" plan --index "$http/private/" \
	--format json
expect_status 3 "credentials"
python3 - "$tmp/out" <<'PY' || fail "credentials (above)"
import json, sys
dists = {d["backend"]: d for d in json.load(open(sys.argv[1]))["distributions"]}
assert dists["cpu"]["state"] == "partial", dists["cpu"]
for backend in ("cuda", "rocm_6"):
    assert dists[backend]["state"] == "failed" and "HTTP 401" in dists[backend]["error"], dists[backend]
PY
! grep -q s3cret-pass "$tmp/out" "$tmp/err" || fail "the password is printed"
grep -q ' 401 ' "$tmp/nginx/access.log" || fail "nginx saw no refused request"

# 3. without local labels every backend has the project's version
sed -i 's|index: {url: "\(.*\)"}|index: {url: "\1", local: false}|' "$project/wheelmatrix.yaml"
wm -C "$project" plan --offline --format json
expect_status 0 "local: false"
python3 - "$tmp/out" <<'PY' || fail "local: false (above)"
import json, sys
for d in json.load(open(sys.argv[1]))["distributions"]:
    assert d["version"] == "1.0.0", d
    assert all("+" not in a["file"] for a in d["artifacts"]), d
PY
finish
