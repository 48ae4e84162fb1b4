#!/usr/bin/env bash
# t-plan-graalpy.sh — plan names the GraalPy wheels of macOS x86_64 and arm64 as maturin tags them
# (graalpy312-graalpy250_312_native-macosx_..., pydantic-core's names), and against nginx finds them
# present or missing with the Linux one; a GraalPy file of a platform the matrix does not build it on
# (Windows) is unexpected, not this release's wheel.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
plan_index '["graalpy3.12"]' '[linux-x86_64, macos-x86_64, macos-arm64]' \
	llm_rs-1.0.0-graalpy312-graalpy250_312_native-manylinux_2_28_x86_64.whl \
	llm_rs-1.0.0-graalpy312-graalpy250_312_native-macosx_10_12_x86_64.whl \
	llm_rs-1.0.0-graalpy312-graalpy250_312_native-macosx_11_0_arm64.whl \
	llm_rs-1.1.0-graalpy312-graalpy250_312_native-manylinux_2_28_x86_64.whl \
	llm_rs-1.1.0-graalpy312-graalpy250_312_native-macosx_11_0_arm64.whl \
	llm_rs-1.1.0-graalpy312-graalpy250_312_native-win_amd64.whl

for case in "1.0.0 present present present" "1.1.0 present missing present"; do
	read -r version linux intel arm <<<"$case"
	wm -C "$project" plan "$version" --index "$http/simple/" --format json
	expect_status 1 "plan $version (published, or partly: the index has its files)"
	stem=llm_rs-$version-graalpy312-graalpy250_312_native-
	unexpected=()
	[ "$version" = 1.1.0 ] && unexpected=(--unexpected "${stem}win_amd64.whl")
	python3 "$ROOT/tests/helpers/plan-wheels.py" "$tmp/out" "${stem}manylinux_2_28_x86_64.whl=$linux" \
		"${stem}macosx_10_12_x86_64.whl=$intel" "${stem}macosx_11_0_arm64.whl=$arm" "${unexpected[@]}" ||
		fail "plan $version (above)"
done
finish
