#!/usr/bin/env bash
# run.sh — runs the unit tests, the golden cases and the t-*.sh scripts; the last line is "N passed, N failed".
#
# usage: tests/run.sh [--fast] [PATTERN...]
#
# Each PATTERN (a shell glob, matched anywhere in the name) selects tests by
# name, a test matching any of them runs: unit/test_text, golden/list-table,
# t-shellcheck.  --fast leaves out the heavy scripts (below): what `make check-fast`
# runs.  `make check` builds what the tests need first; this script only runs them.
#
# Golden case directories (tests/golden/NAME/) hold `args` (one argument per
# line), optional `stdin`, and the expected `stdout`, `stderr` and `exit`
# (a missing output file means empty, a missing `exit` means 0).  The
# binary runs in the case directory with LC_ALL=C and NO_COLOR=1 (and, as every test,
# WHEELMATRIX_TODAY=2026-12-01).
# WM_UPDATE=1 rewrites the expected files of the selected cases from the run.
#
# Scripts (tests/t-*.sh) get WM (the binary) and ROOT (the repository) and
# run in a scratch directory; exit status 0 passes, anything else fails: a
# test never skips (77, the automake skip status, fails with the reason
# printed), as what it needs is installed by `make check`.  The test data they read (the
# toml-test suite, the corpus of real projects) is installed by `make
# testdata` (tests/tools/install-testdata.sh); a script without it fails.
# Scripts run WM_TEST_JOBS at a time (default: the number of processors, twice that with --fast;
# WM_TEST_JOBS=1 runs them one by one), those that build wheels with the real tools first, and
# within each kind the slowest of the last run first (build/test-times); all but one job's worth
# start before the unit tests and golden cases run.
#
# Output: a line per finished test, "[INDEX/TOTAL] NAME ok|FAIL SECONDS s (NOTE)", each unit
# test binary, the golden cases together and each script counting as one (scripts are reported as
# they end); a failure's output follows its line.  Then the names that failed, if any, and last
# "N passed, N failed", counting the unit tests' checks, the golden cases and the scripts.
#
# Every test runs with TMPDIR set to a directory of the run, made under the caller's TMPDIR (or
# /tmp) and removed with everything in it when the run ends, also on SIGINT, SIGTERM or SIGHUP,
# which stop the running scripts first.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
wm=$root/build/wheelmatrix
fast=0
if [[ ${1:-} == --fast ]]; then
	fast=1
	shift
fi
patterns=("$@")
passed=0 failed=0 finished=0 total=0
failed_names=()
declare -A running=() # the scripts running: process id (and process group) -> name

# The run's scratch directory, made under the caller's TMPDIR: each script's work directory and
# output, and tmp/, the TMPDIR of every test (mktemp, Python's tempfile, pip, uv, cargo, Node.js,
# Chromium), so that whatever a test or a tool it runs leaves there goes when the run ends.  Like
# /tmp, tmp/ can be reached and written by every user, for the tests that run the tool as another
# (t-check, t-generate); the rest of the scratch directory cannot be listed.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/wheelmatrix-tests.XXXXXX") || exit 1
mkdir "$scratch/tmp" && chmod 711 "$scratch" && chmod 1777 "$scratch/tmp" || exit 1
export TMPDIR=$scratch/tmp

# The day runner labels' retirements are checked against (docs/wheelmatrix.md, Environment): a
# fixed one, so that no test's output changes as a label's retirement comes near.
# tests/t-runner-retirement.sh sets its own days, and runs the tool once on the clock's.
export WHEELMATRIX_TODAY=2026-12-01

# A python3 that is a version manager's shim, not the interpreter (pyenv's starts bash and a dozen
# of pyenv's own scripts on each call: a quarter of a second, a minute of the quick run): the
# interpreter's directory goes first in PATH for the whole run, as the shim puts it for the one
# command it runs, so that each test starts the very interpreter (and pip) the shim would.
if py_exe=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [[ -x $py_exe ]] &&
	[[ $(realpath "$(command -v python3)") != "$(realpath "$py_exe")" ]]; then
	export PATH=${py_exe%/*}:$PATH
fi

cleanup() {
	[[ -d $scratch ]] || return 0
	chmod -R u+w "$scratch" 2>/dev/null
	rm -rf "$scratch"
}
trap cleanup EXIT

# On SIGINT, SIGTERM or SIGHUP: the running scripts are stopped (each runs in its own process
# group, with what it started), given 5 seconds, then killed; the scratch directory is removed,
# and the run dies of the same signal.
stop() {
	local sig=$1 pid i
	trap '' INT TERM HUP
	for pid in "${!running[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null
	done
	for ((i = 0; i < 50; i++)); do
		for pid in "${!running[@]}"; do
			kill -0 -- "-$pid" 2>/dev/null && break
			unset "running[$pid]"
		done
		((${#running[@]} == 0)) && break
		sleep 0.1
	done
	for pid in "${!running[@]}"; do
		kill -KILL -- "-$pid" 2>/dev/null
	done
	wait
	cleanup
	printf 'tests/run.sh: stopped by SIG%s after %d of %d\n' "$sig" "$finished" "$total" >&2
	trap - "$sig" EXIT
	kill -"$sig" $$
}
trap 'stop INT' INT
trap 'stop TERM' TERM
trap 'stop HUP' HUP

selected() {
	local p
	((${#patterns[@]} == 0)) && return 0
	for p in "${patterns[@]}"; do
		[[ $1 == *$p* ]] && return 0
	done
	return 1
}

now() {
	local t=$EPOCHREALTIME
	echo "${t//[!0-9]/}"
}

# The progress line of one finished test: "[INDEX/TOTAL] NAME ok|FAIL SECONDS s (NOTE)"; with no
# time (MICROSECONDS empty) the test did not run.
progress() {
	local name=$1 result=$2 us=$3 note=${4:-}
	finished=$((finished + 1))
	printf '[%*d/%d] %s %s' "${#total}" "$finished" "$total" "$name" "$result"
	[[ -n $us ]] && printf ' %d.%d s' $(((us + 50000) / 1000000)) $(((us + 50000) / 100000 % 10))
	[[ -n $note ]] && printf ' (%s)' "$note"
	printf '\n'
	[[ $result == ok ]] || failed_names+=("$name")
}

# A unit test binary prints its own "N passed, N failed" line; its counts are added up.
run_unit() {
	local name=$1 bin out line p f status t0
	bin=$root/build/tests/${name#unit/}
	if [[ ! -x $bin ]]; then
		failed=$((failed + 1))
		progress "$name" FAIL "" "not built: run 'make check'"
		return
	fi
	t0=$(now)
	out=$("$bin" 2>&1)
	status=$?
	t0=$(($(now) - t0))
	line=$(tail -n 1 <<<"$out")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
	else
		p=0 f=0
	fi
	if ((f > 0 || status != 0)); then
		progress "$name" FAIL "$t0" "exit $status, $f of $((p + f)) checks failed"
		printf '%s\n' "$out" | grep -v '^[0-9]* passed, [0-9]* failed$'
		((f == 0)) && f=1
	else
		progress "$name" ok "$t0" "$p checks"
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

# Runs one golden case; a failed one appends its FAIL line and what differs to $scratch/golden.fail.
run_golden() {
	local dir=$1 name args=() input=/dev/null status want ok=1 out
	name=golden/$(basename "$dir")
	[[ -f $dir/args ]] && mapfile -t args <"$dir/args"
	[[ -f $dir/stdin ]] && input=$dir/stdin
	out=$scratch/golden
	mkdir -p "$out"
	(cd "$dir" && env -u PRE_COMMIT LC_ALL=C NO_COLOR=1 "$wm" "${args[@]}" <"$input" >"$out/stdout" 2>"$out/stderr")
	status=$?
	# WM_UPDATE=1 writes what the run gave as the expected files: read their diff before committing.
	# An empty output and exit status 0 are written as no file at all (a missing file means that).
	if [[ ${WM_UPDATE:-} == 1 ]]; then
		for f in stdout stderr; do
			if [[ -s $out/$f ]]; then
				cp "$out/$f" "$dir/$f"
			else
				rm -f "$dir/$f"
			fi
		done
		if [[ $status != 0 ]]; then
			echo "$status" >"$dir/exit"
		else
			rm -f "$dir/exit"
		fi
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
		failed=$((failed + 1))
		{
			printf 'FAIL %s\n' "$name"
			cat "$out/report"
		} >>"$scratch/golden.fail"
	fi
	rm -rf "$out"
}

# The selected golden cases, one progress line for them all; the failed ones follow it.
run_goldens() {
	local n=$# dir t0 before=$failed
	if [[ ! -x $wm ]]; then
		failed=$((failed + n))
		progress golden FAIL "" "$n cases: build/wheelmatrix is not built: run 'make check'"
		return
	fi
	t0=$(now)
	for dir in "$@"; do
		run_golden "$dir"
	done
	t0=$(($(now) - t0))
	if ((failed == before)); then
		progress golden ok "$t0" "$n cases"
	else
		progress golden FAIL "$t0" "$((failed - before)) of $n cases failed"
		cat "$scratch/golden.fail"
		rm -f "$scratch/golden.fail"
	fi
}

# Starts one script in the background in its own scratch directory and process group; its output
# goes to $scratch/NAME.out, its exit status and run time (microseconds) to $scratch/NAME.status.
start_script() {
	local script=$1 name work
	name=$(basename "$script" .sh)
	work=$scratch/$name
	mkdir -p "$work"
	set -m
	(
		t0=$(now)
		cd "$work" && env WM="$wm" ROOT="$root" "$script" >"$scratch/$name.out" 2>&1
		status=$?
		echo "$status $(($(now) - t0))" >"$scratch/$name.status"
	) </dev/null &
	set +m
	running[$!]=$name
}

# Counts and prints the result of a finished script: its progress line, and its output when it failed.
finish_script() {
	local name=$1 status=1 us=
	[[ -f $scratch/$name.status ]] && read -r status us <"$scratch/$name.status"
	case $status in
	0)
		passed=$((passed + 1))
		progress "$name" ok "$us"
		;;
	77)
		failed=$((failed + 1))
		progress "$name" FAIL "$us" "skipped, which make check does not allow: $(tail -n 1 "$scratch/$name.out")"
		;;
	*)
		failed=$((failed + 1))
		progress "$name" FAIL "$us" "exit $status"
		cat "$scratch/$name.out"
		;;
	esac
	[[ -n $us ]] && took[$name]=$us
	rm -rf "${scratch:?}/$name" "$scratch/$name.out" "$scratch/$name.status"
}

# Waits for one of the running scripts to end and reports it.
reap_script() {
	local pid
	wait -n -p pid
	[[ -n ${pid:-} && -n ${running[$pid]:-} ]] || return 0
	finish_script "${running[$pid]}"
	unset "running[$pid]"
}

# Starts the next of the scripts (from $next on) until LIMIT of them run; one that is not executable
# is a failure at once.  Each has its own scratch directory, temporary files and ports, so they do
# not meet.
start_scripts() {
	local limit=$1 script
	while ((next < ${#scripts[@]} && ${#running[@]} < limit)); do
		script=${scripts[next]}
		next=$((next + 1))
		if [[ ! -x $script ]]; then
			failed=$((failed + 1))
			progress "$(basename "$script" .sh)" FAIL "" "not executable"
			continue
		fi
		start_script "$script"
	done
}

# Runs the rest of the scripts, $jobs at a time, and reports each as it ends.
run_scripts() {
	start_scripts "$jobs"
	while ((${#running[@]} > 0)); do
		reap_script
		start_scripts "$jobs"
	done
}

# The scripts' times in the last run (NAME MICROSECONDS a line, build/test-times), the slowest
# started first within their kind, so that no long one starts last while the other jobs idle;
# the scripts not timed yet first of all.  Each run writes its times back.
times=$root/build/test-times
declare -A took=()
if [[ -f $times ]]; then
	while read -r name us; do
		[[ $us =~ ^[0-9]+$ ]] && took[$name]=$us
	done <"$times"
fi
by_time() {
	local script name
	for script in "$@"; do
		name=$(basename "$script" .sh)
		printf '%s %s\n' "${took[$name]:-999999999999}" "$script"
	done | sort -k1,1nr -k2 | cut -d ' ' -f 2-
}
save_times() {
	local name
	[[ -d ${times%/*} ]] || return 0
	for name in "${!took[@]}"; do
		printf '%s %s\n' "$name" "${took[$name]}"
	done | sort >"$times.$$" && mv -f "$times.$$" "$times"
}

shopt -s nullglob
units=() goldens=() scripts=()
for src in "$root"/tests/unit/*.c; do
	name=unit/$(basename "$src" .c)
	selected "$name" && units+=("$name")
done
for dir in "$root"/tests/golden/*/; do
	dir=${dir%/}
	selected "golden/$(basename "$dir")" && goldens+=("$dir")
done
# The heavy scripts take many seconds each: those that build wheels with the real tools (they
# source tests/kit/e2e-env.sh or tests/kit/wheel-env.sh) and those that say so themselves with a
# line "# heavy: WHY" (a real build by cargo or pip, a slow validator).  They start first, and the
# quick ones fill the end; --fast leaves them out.
heavy=() light=()
for script in "$root"/tests/t-*.sh; do
	selected "$(basename "$script" .sh)" || continue
	if grep -Eq '^[^#]*(e2e|wheel)-env\.sh|^# heavy: ' "$script"; then
		((fast)) || heavy+=("$script")
	else
		light+=("$script")
	fi
done
mapfile -t scripts < <(by_time "${heavy[@]}"; by_time "${light[@]}")
total=$((${#units[@]} + (${#goldens[@]} > 0) + ${#scripts[@]}))

# WM_TEST_JOBS (default: the number of processors, twice that with --fast) scripts at a time: all
# but one start before the unit tests and the golden cases, which this shell runs meanwhile, then
# the rest as jobs end.  The quick scripts spend a third of their time waiting (on the servers they
# start, on timeouts they test, on a program's start), which the scripts beside them fill.
procs=$(nproc 2>/dev/null || echo 2)
jobs=${WM_TEST_JOBS:-$((fast ? 2 * procs : procs))}
next=0
start_scripts $((jobs - 1))
for name in "${units[@]}"; do
	run_unit "$name"
done
((${#goldens[@]} > 0)) && run_goldens "${goldens[@]}"
run_scripts
save_times

((failed == 0)) || printf 'failed: %s\n' "${failed_names[*]}"
printf '%d passed, %d failed\n' "$passed" "$failed"
((failed == 0))
