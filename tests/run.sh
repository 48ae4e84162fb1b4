#!/usr/bin/env bash
# run.sh — runs the unit tests, the golden cases and the t-*.sh scripts; the last line is "N passed, N failed".
#
# usage: tests/run.sh [PATTERN...]
#
# Each PATTERN (a shell glob, matched anywhere in the name) selects tests by
# name, a test matching any of them runs: unit/test_text, golden/list-table,
# t-shellcheck.  `make check` builds what
# the tests need first; this script only runs them.
#
# Golden case directories (tests/golden/NAME/) hold `args` (one argument per
# line), optional `stdin`, and the expected `stdout`, `stderr` and `exit`
# (a missing output file means empty, a missing `exit` means 0).  The
# binary runs in the case directory with LC_ALL=C and NO_COLOR=1.
# WM_UPDATE=1 rewrites the expected files of the selected cases from the run.
#
# Scripts (tests/t-*.sh) get WM (the binary) and ROOT (the repository) and
# run in a scratch directory; exit status 0 passes, anything else fails: a
# test never skips (77, the automake skip status, fails with the reason
# printed), as what it needs is installed by `make check`.  The test data they read (the
# toml-test suite, the corpus of real projects) is installed by `make
# testdata` (tests/tools/install-testdata.sh); a script without it fails.
# Scripts run WM_TEST_JOBS at a time (default: the number of processors;
# WM_TEST_JOBS=1 runs them one by one).
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
wm=$root/build/wheelmatrix
patterns=("$@")
passed=0 failed=0

scratch=$(mktemp -d "${TMPDIR:-/tmp}/wheelmatrix-tests.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

selected() {
	local p
	((${#patterns[@]} == 0)) && return 0
	for p in "${patterns[@]}"; do
		[[ $1 == *$p* ]] && return 0
	done
	return 1
}

fail() {
	printf 'FAIL %s\n' "$1"
	failed=$((failed + 1))
}

# A unit test binary prints its own "N passed, N failed" line; its counts are added up.
run_unit() {
	local src=$1 name bin out line p f status
	name=$(basename "$src" .c)
	selected "unit/$name" || return 0
	bin=$root/build/tests/$name
	if [[ ! -x $bin ]]; then
		fail "unit/$name (not built: run 'make check')"
		return
	fi
	out=$("$bin" 2>&1)
	status=$?
	line=$(tail -n 1 <<<"$out")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
	else
		p=0 f=0
	fi
	if ((f > 0 || status != 0)); then
		printf '%s\n' "$out" | grep -v '^[0-9]* passed, [0-9]* failed$'
		printf 'FAIL unit/%s (exit %d)\n' "$name" "$status"
		((f == 0)) && f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}

# Compares one expected file with what the run produced.
same() {
	local want=$1 got=$2 label=$3
	if [[ -f $want ]]; then
		cmp -s "$want" "$got" && return 0
		diff -u --label "$label (expected)" --label "$label (actual)" "$want" "$got"
	else
		[[ -s $got ]] || return 0
		diff -u --label "$label (expected: empty)" --label "$label (actual)" /dev/null "$got"
	fi
	return 1
}

run_golden() {
	local dir=${1%/} name args=() input=/dev/null status want ok=1 out
	name=golden/$(basename "$dir")
	selected "$name" || return 0
	if [[ ! -x $wm ]]; then
		fail "$name (build/wheelmatrix is not built: run 'make check')"
		return
	fi
	[[ -f $dir/args ]] && mapfile -t args <"$dir/args"
	[[ -f $dir/stdin ]] && input=$dir/stdin
	out=$scratch/golden
	mkdir -p "$out"
	(cd "$dir" && env -u PRE_COMMIT LC_ALL=C NO_COLOR=1 "$wm" "${args[@]}" <"$input" >"$out/stdout" 2>"$out/stderr")
	status=$?
	# WM_UPDATE=1 writes what the run gave as the expected files: read their diff before committing
	if [[ ${WM_UPDATE:-} == 1 ]]; then
		for f in stdout stderr; do
			[[ -s $out/$f || -f $dir/$f ]] && cp "$out/$f" "$dir/$f"
		done
		[[ $status != 0 || -f $dir/exit ]] && echo "$status" >"$dir/exit"
	fi
	want=0
	[[ -f $dir/exit ]] && want=$(tr -d '[:space:]' <"$dir/exit")
	{
		same "$dir/stdout" "$out/stdout" "$name/stdout" || ok=0
		same "$dir/stderr" "$out/stderr" "$name/stderr" || ok=0
		if [[ $status != "$want" ]]; then
			printf 'exit status: expected %s, got %s\n' "$want" "$status"
			ok=0
		fi
	} >"$out/report"
	if ((ok)); then
		passed=$((passed + 1))
	else
		fail "$name"
		cat "$out/report"
	fi
	rm -rf "$out"
}

# Starts one script in the background in its own scratch directory; its output goes to
# $scratch/NAME.out and its exit status to $scratch/NAME.status.
start_script() {
	local script=$1 name work
	name=$(basename "$script" .sh)
	work=$scratch/$name
	mkdir -p "$work"
	(
		cd "$work" && env WM="$wm" ROOT="$root" "$script" >"$scratch/$name.out" 2>&1
		echo $? >"$scratch/$name.status"
	) &
}

# Counts and prints the result of a finished script, in the order the scripts are listed.
finish_script() {
	local name=$1 status
	status=$(cat "$scratch/$name.status" 2>/dev/null || echo 1)
	case $status in
	0) passed=$((passed + 1)) ;;
	77)
		fail "$name (skipped, which make check does not allow: $(tail -n 1 "$scratch/$name.out"))"
		;;
	*)
		fail "$name (exit $status)"
		cat "$scratch/$name.out"
		;;
	esac
	rm -rf "${scratch:?}/$name" "$scratch/$name.out" "$scratch/$name.status"
}

# Runs the selected scripts, WM_TEST_JOBS (default: the number of processors) at a time.
# Each has its own scratch directory, temporary files and ports, so they do not meet; the
# results are printed in the order of the names, whatever order they finish in.
run_scripts() {
	local jobs=${WM_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)} names=() script name running=0
	for script in "$@"; do
		name=$(basename "$script" .sh)
		selected "$name" || continue
		if [[ ! -x $script ]]; then
			fail "$name (not executable)"
			continue
		fi
		while ((running >= jobs)); do
			wait -n
			running=$((running - 1))
		done
		start_script "$script"
		running=$((running + 1))
		names+=("$name")
	done
	wait
	for name in "${names[@]}"; do
		finish_script "$name"
	done
}

shopt -s nullglob
for src in "$root"/tests/unit/*.c; do
	run_unit "$src"
done
for dir in "$root"/tests/golden/*/; do
	run_golden "$dir"
done
run_scripts "$root"/tests/t-*.sh

printf '%d passed, %d failed\n' "$passed" "$failed"
((failed == 0))
