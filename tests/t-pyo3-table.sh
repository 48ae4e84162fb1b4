#!/bin/bash
# t-pyo3-table.sh — templates/pyo3.yaml is what PyO3's own crates say: for each series, the CPython
# versions pyo3-ffi's build.rs builds for (CPython, and PyPy: SUPPORTED_VERSIONS_PYPY), the oldest free-threaded one (its build.rs, or
# pyo3-build-config's src/impl_.rs), and the lowest abi3-py3N feature of its Cargo.toml, read from
# the crates pinned in tests/tools/crates.txt (tests/tools/install-crates.sh, `make testdata`) by
# tests/helpers/pyo3-table.py; and the reader itself finds a row changed by hand.
. "$ROOT/tests/kit/lib.sh"

crates=$("$ROOT/tests/tools/install-crates.sh" --dir)
[ -e "$crates/complete" ] ||
	fatal "the crates are not installed in $crates: run 'make testdata' (tests/tools/install-crates.sh)"

run python3 "$ROOT/tests/helpers/pyo3-table.py" "$crates" "$ROOT/templates/pyo3.yaml"
expect_status 0 "templates/pyo3.yaml against PyO3's crates"
grep -q "^PyO3 0.20, 0.21, .*, 0.30: the table agrees" "$tmp/out" ||
	fail "the PyO3 table was not compared for 0.20 to 0.30: $(cat "$tmp/out")"

# a row as the crates do not say it is found, and a series they lack
sed -e 's/"0.29": {crate: 0.29.3, python: \["3.8", "3.15"\], free-threaded: "3.14"/"0.29": {crate: 0.29.3, python: ["3.8", "3.15"], free-threaded: "3.13"/' \
	-e 's/"0.27": \(.*\)pypy: \["3.11", "3.14"\]/"0.27": \1pypy: ["3.9", "3.14"]/' \
	-e '/^  "0.20":/d' "$ROOT/templates/pyo3.yaml" >"$tmp/pyo3.yaml"
cmp -s "$tmp/pyo3.yaml" "$ROOT/templates/pyo3.yaml" && fatal "the altered table is the table"
run python3 "$ROOT/tests/helpers/pyo3-table.py" "$crates" "$tmp/pyo3.yaml"
expect_status 1 "an altered table"
grep -q "PyO3 0.29: .*'free-threaded': '3.13'" "$tmp/out" || fail "the altered 0.29 row is not found: $(cat "$tmp/out")"
grep -q "PyO3 0.20 (0.20.3) is missing" "$tmp/out" || fail "the missing 0.20 row is not found: $(cat "$tmp/out")"
grep -q "PyO3 0.27: .*'pypy': \['3.9', '3.14'\]" "$tmp/out" || fail "the altered 0.27 PyPy range is not found: $(cat "$tmp/out")"

# the table compiled in is the one checked: PyO3 0.29 refuses 3.13t, 0.28 builds it
mkdir -p "$tmp/p"
printf 'wheelmatrix: 1\npython: {versions: ["3.13t"]}\nplatforms: [linux-x86_64]\n' >"$tmp/p/wheelmatrix.yaml"
for v in 0.28 0.29; do
	maturin_project "$tmp/p"
	printf '\n[dependencies]\npyo3 = "%s"\n' "$v" >>"$tmp/p/Cargo.toml"
	wm -C "$tmp/p" list
	expect_status "$([[ $v == 0.28 ]] && echo 0 || echo 2)" "3.13t with PyO3 $v"
done

finish
