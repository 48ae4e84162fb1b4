#!/usr/bin/env bash
# t-plan-graalpy.sh — plan names the GraalPy wheels of macOS x86_64 and arm64 as maturin tags them
# (graalpy312-graalpy250_312_native-macosx_..., pydantic-core's names), and against nginx finds them
# present or missing with the Linux one; a GraalPy file of a platform the matrix does not build it on
# (Windows) is unexpected, not this release's wheel.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp

www=$tmp/www
project_page "$www/simple/llm-rs" \
	llm_rs-1.0.0-graalpy312-graalpy250_312_native-manylinux_2_28_x86_64.whl \
	llm_rs-1.0.0-graalpy312-graalpy250_312_native-macosx_10_12_x86_64.whl \
	llm_rs-1.0.0-graalpy312-graalpy250_312_native-macosx_11_0_arm64.whl \
	llm_rs-1.1.0-graalpy312-graalpy250_312_native-manylinux_2_28_x86_64.whl \
	llm_rs-1.1.0-graalpy312-graalpy250_312_native-macosx_11_0_arm64.whl \
	llm_rs-1.1.0-graalpy312-graalpy250_312_native-win_amd64.whl
start_nginx "$tmp" "$www"
http=http://127.0.0.1:$HTTP_PORT

project=$tmp/project
llm_rs_project "$project"
cat >"$project/wheelmatrix.yaml" <<'EOF2'
wheelmatrix: 1
python: {versions: ["graalpy3.12"]}
platforms: [linux-x86_64, macos-x86_64, macos-arm64]
ci: {}
EOF2

for case in "1.0.0 present present present" "1.1.0 present missing present"; do
	read -r version linux intel arm <<<"$case"
	wm -C "$project" plan "$version" --index "$http/simple/" --format json
	expect_status 1 "plan $version (published, or partly: the index has its files)"
	python3 - "$tmp/out" "$version" "$linux" "$intel" "$arm" <<'PY' || fail "plan $version (above)"
import json, sys
report, version, linux, intel, arm = json.load(open(sys.argv[1])), *sys.argv[2:]
d = report["distributions"][0]
got = {a["file"]: a["state"] for a in d["artifacts"] if a["kind"] == "wheel"}
stem = f"llm_rs-{version}-graalpy312-graalpy250_312_native-"
want = {stem + "manylinux_2_28_x86_64.whl": linux, stem + "macosx_10_12_x86_64.whl": intel,
        stem + "macosx_11_0_arm64.whl": arm}
assert got == want, (got, want)
unexpected = d.get("unexpected", [])
assert unexpected == ([stem + "win_amd64.whl"] if version == "1.1.0" else []), unexpected
PY
done
finish
