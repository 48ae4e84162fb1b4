#!/usr/bin/env bash
# t-plan-pyodide.sh — plan names a Pyodide wheel with PEP 783's tag of the catalogue's release
# (cp314-cp314-pyemscripten_2026_0_wasm32) and, against nginx, finds it present like any other
# wheel: under that name, or under the name the same platform had before PEP 783
# (pyodide_2026_0_wasm32, which maturin 1.16.0 names the same platform version); a wheel of
# another Pyodide release (pyemscripten_2025_0_wasm32, another platform) is not it.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
plan_index '["3.14"]' '[linux-x86_64, pyodide-wasm32]' \
	llm_rs-1.0.0-cp314-cp314-manylinux_2_28_x86_64.whl llm_rs-1.0.0-cp314-cp314-pyemscripten_2026_0_wasm32.whl \
	llm_rs-1.1.0-cp314-cp314-manylinux_2_28_x86_64.whl llm_rs-1.1.0-cp314-cp314-pyodide_2026_0_wasm32.whl \
	llm_rs-1.2.0-cp314-cp314-manylinux_2_28_x86_64.whl llm_rs-1.2.0-cp313-cp313-pyemscripten_2025_0_wasm32.whl

for case in "1.0.0 present" "1.1.0 present" "1.2.0 missing"; do
	read -r version pyodide <<<"$case"
	wm -C "$project" plan "$version" --index "$http/simple/" --format json
	unexpected=()
	# another release's wheel is no wheel of this plan
	[ "$version" = 1.2.0 ] && unexpected=(--unexpected "llm_rs-$version-cp313-cp313-pyemscripten_2025_0_wasm32.whl")
	python3 "$ROOT/tests/helpers/plan-wheels.py" "$tmp/out" \
		"llm_rs-$version-cp314-cp314-manylinux_2_28_x86_64.whl=present" \
		"llm_rs-$version-cp314-cp314-pyemscripten_2026_0_wasm32.whl=$pyodide" "${unexpected[@]}" ||
		fail "plan $version (above)"
done
finish
