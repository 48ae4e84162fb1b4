#!/usr/bin/env bash
# t-plan-pypy.sh — plan names a PyPy 3.11 wheel after the PyPy that builds it (pp73 from maturin's
# tables on Linux, pp80 from the PyPy 8.0 setup-python and uv install on macOS and Windows:
# templates/interpreters.yaml), and against nginx takes a pp73 and a pp80 file of one Python for the same
# wheel: a release made before PyPy 8.0 (macOS pp73) and one after (macOS pp80) are both present.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
plan_index '["pp3.11"]' '[linux-x86_64, macos-arm64]' \
	llm_rs-1.0.0-pp311-pypy311_pp73-manylinux_2_28_x86_64.whl llm_rs-1.0.0-pp311-pypy311_pp73-macosx_11_0_arm64.whl \
	llm_rs-1.1.0-pp311-pypy311_pp73-manylinux_2_28_x86_64.whl llm_rs-1.1.0-pp311-pypy311_pp80-macosx_11_0_arm64.whl \
	llm_rs-1.2.0-pp310-pypy310_pp73-macosx_11_0_arm64.whl llm_rs-1.2.0-pp311-pypy311_pp80-manylinux_2_28_x86_64.whl

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
	unexpected=()
	# a pp310 file is another Python's wheel: never this release's
	[ "$version" = 1.2.0 ] && unexpected=(--unexpected "llm_rs-$version-pp310-pypy310_pp73-macosx_11_0_arm64.whl")
	wm -C "$project" plan "$version" --index "$http/simple/" --format json
	python3 "$ROOT/tests/helpers/plan-wheels.py" "$tmp/out" \
		"llm_rs-$version-pp311-pypy311_pp73-manylinux_2_28_x86_64.whl=$linux" \
		"llm_rs-$version-pp311-pypy311_pp80-macosx_11_0_arm64.whl=$macos" "${unexpected[@]}" || fail "plan $version (above)"
done
finish
