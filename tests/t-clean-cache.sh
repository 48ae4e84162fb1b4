#!/bin/bash
# t-clean-cache.sh — `make check` says what it keeps in ~/.cache/wheelmatrix and its size before the tests run, and `make clean-cache` removes that directory and nothing else.
. "$ROOT/tests/kit/lib.sh"
# a cache of known sizes, in a home of the test's own
export XDG_CACHE_HOME=$tmp/cache
c=$XDG_CACHE_HOME/wheelmatrix
mkdir -p "$c/tools-0123456789abcdef/bin" "$c/validators" "$c/cargo-target" "$XDG_CACHE_HOME/other"
head -c 3145728 /dev/zero >"$c/cargo-target/big"
head -c 1048576 /dev/zero >"$c/validators/v"
: >"$c/tools.lock"
echo keep >"$XDG_CACHE_HOME/other/file"

expect_run 0 "$ROOT/tests/tools/cache-summary.sh"
grep -q "^make check: [0-9]* MB of test tools and data are cached in $c, kept between runs; 'make clean-cache' removes them" "$tmp/out" ||
	fail "the summary does not say where, how much and how to clear it: $(cat "$tmp/out")"
grep -q "^ *3 MB  cargo-target  *the Rust builds of the end-to-end tests" "$tmp/out" ||
	fail "the summary does not give cargo-target's size and what it is: $(cat "$tmp/out")"
grep -q "^ *1 MB  validators  *actionlint, zizmor and action-validator" "$tmp/out" ||
	fail "the summary does not give the validators' size: $(cat "$tmp/out")"
[ "$(grep -n cargo-target "$tmp/out" | cut -d: -f1)" -lt "$(grep -n validators "$tmp/out" | cut -d: -f1)" ] ||
	fail "the summary is not largest first: $(cat "$tmp/out")"

# make check prints it after installing and building, before the tests
make -s -n --no-print-directory -C "$ROOT" check >"$tmp/plan" 2>&1 || true
summary=$(grep -n "tests/tools/cache-summary.sh" "$tmp/plan" | cut -d: -f1 | head -n 1)
runner=$(grep -n "^tests/run.sh" "$tmp/plan" | cut -d: -f1 | tail -n 1)
if [ -z "$summary" ] || [ -z "$runner" ] || [ "$summary" -ge "$runner" ]; then
	fail "make check does not run cache-summary.sh before tests/run.sh: $(tail -n 5 "$tmp/plan")"
fi

# clean-cache removes the directory, and nothing beside it
expect_run 0 make -s --no-print-directory -C "$ROOT" clean-cache
[ -e "$c" ] && fail "make clean-cache left $c"
[ "$(cat "$XDG_CACHE_HOME/other/file" 2>/dev/null)" = keep ] || fail "make clean-cache removed more than $c"
expect_run 0 "$ROOT/tests/tools/cache-summary.sh"
grep -q "^make check: nothing cached in $c" "$tmp/out" || fail "after clean-cache the summary says: $(cat "$tmp/out")"
finish
