#!/usr/bin/env bash
# t-plan-variants.sh — plan under strategy variants against nginx: PyPI's row (the default backend's
# plain wheels and sdist) on the index, one row per variant on the variant index (<url>/<project>/),
# each looking at its own label's wheels; the null row has the release's variants.json and reports
# a label no backend has; the variant index's plain files are nobody's concern there.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp  # no ~/.netrc

www=$tmp/www
w=cp312-cp312-manylinux_2_28_x86_64
# PyPI: the plain cpu wheel, no sdist yet
project_page "$www/simple/llm-rs" "llm_rs-1.0.0-$w.whl"
# the variant index: cu124 of this version and of an earlier one, the null variant, the
# variants.json, the plain wheel and sdist for installers without variant support, and a label
# (cu118) no backend has; rocm's variant is not there yet (its row is ready: the page exists)
project_page "$www/variants/llm-rs" "llm_rs-0.9.0-$w-cu124.whl" "llm_rs-1.0.0-$w-cu124.whl" "llm_rs-1.0.0-$w-null.whl" \
	llm_rs-1.0.0-variants.json "llm_rs-1.0.0-$w.whl" llm_rs-1.0.0.tar.gz "llm_rs-1.0.0-$w-cu118.whl"
start_nginx "$tmp" "$www"
http=http://127.0.0.1:$HTTP_PORT

project=$tmp/project
llm_rs_project "$project"
cat >"$project/wheelmatrix.yaml" <<EOF
wheelmatrix: 1
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends:
  cuda: {features: [cublas], variant: {properties: ["nvidia :: cuda_version_lower_bound :: 12.4"], label: cu124}}
  rocm: {features: [hipblas], variant: {properties: ["amd :: gfx_arch :: gfx90a"]}}
  cpu: {default: true}
distribution:
  strategy: variants
  index: {url: "$http/variants/"}
  providers:
    nvidia: {requires: ["nvidia-variant-provider>=0.0.1,<1"]}
    amd: {requires: ["amd-variant-provider"]}
ci: {}
EOF

wm -C "$project" plan --index "$http/simple/" --format json
expect_status 1 "plan --format json"
python3 - "$tmp/out" "$http" "$w" <<'PY' || fail "the JSON report (above)"
import json, sys
report, http, w = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
rows = [(d["backend"], d.get("variant")) for d in report["distributions"]]
assert rows == [("cpu", None), ("cuda", "cu124"), ("rocm", "rocm"), ("cpu", "null")], rows
want = {
    (None): (f"{http}/simple/llm-rs/", "partial", {f"llm_rs-1.0.0-{w}.whl": "present", "llm_rs-1.0.0.tar.gz": "missing"}, []),
    "cu124": (f"{http}/variants/llm-rs/", "published", {f"llm_rs-1.0.0-{w}-cu124.whl": "present"}, []),
    "rocm": (f"{http}/variants/llm-rs/", "ready", {f"llm_rs-1.0.0-{w}-rocm.whl": "missing"}, []),
    "null": (f"{http}/variants/llm-rs/", "published",
             {f"llm_rs-1.0.0-{w}-null.whl": "present", "llm_rs-1.0.0-variants.json": "present"},
             [f"llm_rs-1.0.0-{w}-cu118.whl"]),
}
for d in report["distributions"]:
    url, state, files, unexpected = want[d.get("variant")]
    got = {a["file"]: a["state"] for a in d["artifacts"]}
    assert d["name"] == "llm-rs" and d["url"] == url and d["version"] == "1.0.0", d
    assert got == files, (d.get("variant"), got)
    assert d["state"] == state, (d.get("variant"), d["state"])
    assert d["unexpected"] == unexpected, (d.get("variant"), d["unexpected"])
kinds = {a["file"]: a["kind"] for d in report["distributions"] for a in d["artifacts"]}
assert kinds["llm_rs-1.0.0-variants.json"] == "variants.json" and kinds["llm_rs-1.0.0.tar.gz"] == "sdist", kinds
PY

# the table names each variant, since they share the name
wm -C "$project" plan --index "$http/simple/"
expect_status 1 "plan"
for heading in "llm-rs: version 1.0.0 partly published" "llm-rs (variant cu124): version 1.0.0 already published" \
	"llm-rs (variant rocm): 1 file to upload" "llm-rs (variant null): version 1.0.0 already published"; do
	grep -q "^$heading" "$tmp/out" || fail "the table lacks '$heading': $(cat "$tmp/out")"
done
# the HTML grid has the variants.json column
wm -C "$project" plan --index "$http/simple/" --format html
grep -q '<th rowspan="2">variants.json</th>' "$tmp/out" || fail "the HTML grid has no variants.json column"
finish
