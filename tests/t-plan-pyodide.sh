#!/usr/bin/env bash
# t-plan-pyodide.sh — plan names a Pyodide wheel with PEP 783's tag of the catalogue's release
# (cp314-cp314-pyemscripten_2026_0_wasm32) and, against nginx, finds it present like any other
# wheel: under that name, or under the name the same platform had before PEP 783
# (pyodide_2026_0_wasm32, which maturin 1.16.0 names the same platform version); a wheel of
# another Pyodide release (pyemscripten_2025_0_wasm32, another platform) is not it.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
unset SSL_CERT_FILE NETRC WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
export HOME=$tmp

www=$tmp/www
project_page "$www/simple/llm-rs" \
	llm_rs-1.0.0-cp314-cp314-manylinux_2_28_x86_64.whl llm_rs-1.0.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl \
	llm_rs-1.1.0-cp314-cp314-manylinux_2_28_x86_64.whl llm_rs-1.1.0-cp314-cp314-pyodide_2026_0_wasm32.whl \
	llm_rs-1.2.0-cp314-cp314-manylinux_2_28_x86_64.whl llm_rs-1.2.0-cp313-cp313-pyemscripten_2025_0_wasm32.whl
start_nginx "$tmp" "$www"
http=http://127.0.0.1:$HTTP_PORT

project=$tmp/project
llm_rs_project "$project"
cat >"$project/wheelmatrix.yaml" <<'EOF2'
wheelmatrix: 1
python: {versions: ["3.14"]}
platforms: [linux-x86_64, pyodide-wasm32]
ci: {}
EOF2

for case in "1.0.0 present" "1.1.0 present" "1.2.0 missing"; do
	read -r version pyodide <<<"$case"
	wm -C "$project" plan "$version" --index "$http/simple/" --format json
	python3 - "$tmp/out" "$version" "$pyodide" <<'PY' || fail "plan $version (above)"
import json, sys
report, version, pyodide = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
d = report["distributions"][0]
got = {a["file"]: a["state"] for a in d["artifacts"] if a["kind"] == "wheel"}
want = {f"llm_rs-{version}-cp314-cp314-manylinux_2_28_x86_64.whl": "present",
        f"llm_rs-{version}-cp314-cp314-pyemscripten_2026_0_wasm32.whl": pyodide}
assert got == want, (got, want)
# another release's wheel is no wheel of this plan
unexpected = d.get("unexpected", [])
assert unexpected == ([f"llm_rs-{version}-cp313-cp313-pyemscripten_2025_0_wasm32.whl"] if version == "1.2.0" else []), unexpected
print("ok  ", version, got)
PY
done
finish
