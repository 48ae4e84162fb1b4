#!/usr/bin/env bash
# t-plan-pypy.sh — plan names a PyPy 3.11 wheel after the PyPy that builds it (pp73 from maturin's
# tables on Linux, pp80 from the PyPy 8.0 setup-python and uv install on macOS and Windows:
# templates/interpreters.yaml), and against nginx takes a pp73 and a pp80 file of one Python for the same
# wheel: a release made before PyPy 8.0 (macOS pp73) and one after (macOS pp80) are both present.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp

www=$tmp/www
project_page "$www/simple/llm-rs" \
	llm_rs-1.0.0-pp311-pypy311_pp73-manylinux_2_28_x86_64.whl llm_rs-1.0.0-pp311-pypy311_pp73-macosx_11_0_arm64.whl \
	llm_rs-1.1.0-pp311-pypy311_pp73-manylinux_2_28_x86_64.whl llm_rs-1.1.0-pp311-pypy311_pp80-macosx_11_0_arm64.whl \
	llm_rs-1.2.0-pp310-pypy310_pp73-macosx_11_0_arm64.whl llm_rs-1.2.0-pp311-pypy311_pp80-manylinux_2_28_x86_64.whl
start_nginx "$tmp" "$www"
http=http://127.0.0.1:$HTTP_PORT

project=$tmp/project
llm_rs_project "$project"
cat >"$project/wheelmatrix.yaml" <<'EOF2'
wheelmatrix: 1
python: {versions: ["pp3.11"]}
platforms: [linux-x86_64, macos-arm64]
ci: {}
EOF2

wm -C "$project" list --format json
expect_status 0 "list"
python3 - "$tmp/out" <<'PY' || fail "list's PyPy tags (above)"
import json, sys
tags = {j["platform"]: (j["python_tag"], j["abi_tag"]) for j in json.load(open(sys.argv[1]))}
assert tags == {"linux-x86_64": ("pp311", "pypy311_pp73"), "macos-arm64": ("pp311", "pypy311_pp80")}, tags
PY

# version: the state of each planned wheel, and the files of the version the plan does not make
for case in "1.0.0 present present" "1.1.0 present present" "1.2.0 present missing"; do
	read -r version linux macos <<<"$case"
	set -- "$version" "$linux" "$macos"
	wm -C "$project" plan "$1" --index "$http/simple/" --format json
	python3 - "$tmp/out" "$2" "$3" "$1" <<'PY' || fail "plan $1 (above)"
import json, sys
report, linux, macos, version = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
d = report["distributions"][0]
got = {a["file"]: a["state"] for a in d["artifacts"] if a["kind"] == "wheel"}
want = {f"llm_rs-{version}-pp311-pypy311_pp73-manylinux_2_28_x86_64.whl": linux,
        f"llm_rs-{version}-pp311-pypy311_pp80-macosx_11_0_arm64.whl": macos}
assert got == want, (got, want)
# a pp310 file is another Python's wheel: never this release's
unexpected = d.get("unexpected", [])
assert unexpected == ([f"llm_rs-{version}-pp310-pypy310_pp73-macosx_11_0_arm64.whl"] if version == "1.2.0" else []), unexpected
PY
done
finish
