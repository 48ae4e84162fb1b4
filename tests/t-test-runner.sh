#!/usr/bin/env bash
# t-test-runner.sh — tests/run.sh prints a numbered line per finished test, a failure's output after its line and "N passed, N failed" last; it runs every test under a TMPDIR of its own, removed at the end and when stopped, with the tests it was running.
#
# tests/run.sh is copied into a tree of its own (tests/, build/) whose tests are made here: unit
# test binaries that pass and fail, golden cases run by a stand-in build/wheelmatrix, and scripts
# that pass, fail, skip, leave temporary files behind and hang.
. "$ROOT/tests/kit/lib.sh"
need python3 "apt-get install python3"

tree=$tmp/tree
mkdir -p "$tree/tests/unit" "$tree/build/tests" "$tree/tests/golden"
cp "$ROOT/tests/run.sh" "$tree/tests/run.sh"

# unit tests: test_a passes its 3 checks, test_b fails 1 of 2 (run.sh runs build/tests/NAME for tests/unit/NAME.c)
touch "$tree/tests/unit/test_a.c" "$tree/tests/unit/test_b.c"
printf '#!/bin/sh\necho "3 passed, 0 failed"\n' >"$tree/build/tests/test_a"
printf '#!/bin/sh\necho "test_b.c:7: CHECK(1 == 2) failed"\necho "1 passed, 1 failed"\nexit 1\n' >"$tree/build/tests/test_b"
# golden cases: the stand-in tool prints its arguments
printf '#!/bin/sh\necho "$@"\n' >"$tree/build/wheelmatrix"
mkdir "$tree/tests/golden/echo-ok" "$tree/tests/golden/echo-bad"
echo hello >"$tree/tests/golden/echo-ok/args"
echo hello >"$tree/tests/golden/echo-ok/stdout"
echo hello >"$tree/tests/golden/echo-bad/args"
echo goodbye >"$tree/tests/golden/echo-bad/stdout"
chmod +x "$tree/build/tests/test_a" "$tree/build/tests/test_b" "$tree/build/wheelmatrix"

# scripts; each notes where its temporary files went in $notes (outside every TMPDIR)
notes=$tmp/notes
mkdir "$notes"
export WM_TEST_NOTES=$notes
script() { # script NAME [BODY]: tests/NAME.sh, executable, running BODY (or standard input)
	{
		echo '#!/usr/bin/env bash'
		if (($# > 1)); then echo "$2"; else cat; fi
	} >"$tree/tests/$1.sh"
	chmod +x "$tree/tests/$1.sh"
}
script t-ok 'exit 0'
script t-bad 'echo "FAIL: the output of t-bad"; exit 1'
script t-skip 'echo "no such tool"; exit 77'
script t-noexec 'exit 0'
chmod -x "$tree/tests/t-noexec.sh"
# what a test and the tools it runs leave behind: mktemp's files, Python's tempfile's directories
script t-leave <<'EOF'
mktemp >>"$WM_TEST_NOTES/paths"
mktemp -d >>"$WM_TEST_NOTES/paths"
python3 -c 'import tempfile; print(tempfile.mkdtemp(prefix="leftover."))' >>"$WM_TEST_NOTES/paths"
printf '%s\n' "$TMPDIR" >>"$WM_TEST_NOTES/tmpdirs"
EOF
# a script that runs until it is stopped, with a process of its own: it notes both process ids
script t-hang <<'EOF'
sleep 600 &
echo $! >"$WM_TEST_NOTES/pids"
echo $$ >>"$WM_TEST_NOTES/pids"
mktemp >>"$WM_TEST_NOTES/paths"
touch "$WM_TEST_NOTES/ready"
wait
EOF

# A process that still runs (a zombie has ended).
alive() {
	[[ -r /proc/$1/stat ]] && [[ $(sed 's/^.*) //' "/proc/$1/stat" | cut -d ' ' -f 1) != Z ]]
}

# ---- the output: a line per test as it ends, "[INDEX/TOTAL] NAME ok|FAIL SECONDS s (NOTE)" ----
mkdir "$tmp/fresh"
for jobs in 1 3; do
	rm -f "$notes/paths" "$notes/tmpdirs"
	TMPDIR=$tmp/fresh WM_TEST_JOBS=$jobs expect_run 1 "$tree/tests/run.sh" t-ok t-bad t-skip t-noexec t-leave unit/ golden/
	out=$tmp/run-$jobs.out
	cp "$tmp/out" "$out"
	[[ -s $tmp/err ]] && fail "WM_TEST_JOBS=$jobs: run.sh wrote on stderr: $(cat "$tmp/err")"
	# 2 unit tests, the golden cases as one, 5 scripts; each counted once, numbered in order
	mapfile -t lines < <(grep '^\[' "$out")
	[[ ${#lines[@]} == 8 ]] || fail "WM_TEST_JOBS=$jobs: ${#lines[@]} progress lines, not 8: $(cat "$out")"
	i=0
	for line in "${lines[@]}"; do
		i=$((i + 1))
		[[ $line =~ ^\[$i/8\]\ ([^ ]+)\ (ok|FAIL)(\ [0-9]+\.[0-9]\ s)?(\ \((.*)\))?$ ]] ||
			fail "WM_TEST_JOBS=$jobs: line $i is not '[$i/8] NAME ok|FAIL SECONDS s (NOTE)': '$line'"
	done
	want() { # want NAME RESULT [NOTE]: the line of NAME says RESULT, with NOTE if given
		local got
		got=$(grep -E "^\[[0-9]+/8\] $1 " "$out" || true)
		[[ $(grep -cE "^\[[0-9]+/8\] $1 " "$out") == 1 ]] || fail "WM_TEST_JOBS=$jobs: not one line for $1: $got"
		if ! [[ $got =~ \]\ $1\ $2( [0-9]+\.[0-9] s)?( \((.*)\))?$ ]]; then
			fail "WM_TEST_JOBS=$jobs: $1 is not '$2': '$got'"
		elif [[ -n ${3:-} && ${BASH_REMATCH[3]} != "$3" ]]; then
			fail "WM_TEST_JOBS=$jobs: $1's note is not '$3': '$got'"
		fi
	}
	want unit/test_a ok "3 checks"
	want unit/test_b FAIL "exit 1, 1 of 2 checks failed"
	want golden FAIL "1 of 2 cases failed"
	want t-ok ok
	want t-bad FAIL "exit 1"
	want t-skip FAIL "skipped, which make check does not allow: no such tool"
	want t-noexec FAIL "not executable"
	want t-leave ok
	grep -qE '^\[[0-9]+/8\] t-ok ok [0-9]+\.[0-9] s$' "$out" || fail "WM_TEST_JOBS=$jobs: t-ok's line has no time"
	# a failure's output right after its line
	grep -A1 -E '^\[[0-9]+/8\] t-bad FAIL' "$out" | tail -n 1 | grep -qx 'FAIL: the output of t-bad' ||
		fail "WM_TEST_JOBS=$jobs: t-bad's output does not follow its line"
	grep -A1 -E '^\[[0-9]+/8\] unit/test_b FAIL' "$out" | tail -n 1 | grep -qx 'test_b.c:7: CHECK(1 == 2) failed' ||
		fail "WM_TEST_JOBS=$jobs: test_b's output does not follow its line"
	grep -A4 -E '^\[[0-9]+/8\] golden FAIL' "$out" | grep -qx 'FAIL golden/echo-bad' ||
		fail "WM_TEST_JOBS=$jobs: the failed golden case is not named after the golden line"
	grep -q 'golden/echo-ok' "$out" && fail "WM_TEST_JOBS=$jobs: the golden case that passed is named"
	grep -qx -- '+hello' "$out" || fail "WM_TEST_JOBS=$jobs: the golden case's difference is not shown"
	# then the names that failed, and last the counts: 3 + 1 checks, 1 golden case and 2 scripts
	# passed; 1 check, 1 golden case and 3 scripts failed
	[[ $(tail -n 2 "$out" | head -n 1) == "failed: "* ]] || fail "WM_TEST_JOBS=$jobs: no line naming the failures"
	for name in unit/test_b golden t-bad t-skip t-noexec; do
		[[ " $(tail -n 2 "$out" | head -n 1) " == *" $name "* ]] || fail "WM_TEST_JOBS=$jobs: the failures' line lacks $name"
	done
	[[ $(tail -n 1 "$out") == "7 passed, 5 failed" ]] || fail "WM_TEST_JOBS=$jobs: last line '$(tail -n 1 "$out")', not '7 passed, 5 failed'"

	# ---- TMPDIR: the run's own, under the caller's, and nothing left of it ----
	[[ -z $(ls -A "$tmp/fresh") ]] || fail "WM_TEST_JOBS=$jobs: the run left in its TMPDIR: $(ls -A "$tmp/fresh")"
	tmpdir=$(cat "$notes/tmpdirs" 2>/dev/null || true)
	[[ $tmpdir == "$tmp/fresh/"?* ]] || fail "WM_TEST_JOBS=$jobs: the scripts' TMPDIR is '$tmpdir', not one inside the caller's $tmp/fresh"
	touch "$notes/paths"
	[[ $(wc -l <"$notes/paths") == 3 ]] || fail "WM_TEST_JOBS=$jobs: t-leave did not make its 3 temporary files: $(cat "$notes/paths")"
	while read -r path; do
		[[ $path == "$tmpdir/"* ]] || fail "WM_TEST_JOBS=$jobs: a temporary file outside the run's TMPDIR $tmpdir: $path"
	done <"$notes/paths"
	rm -rf "${tmp:?}/fresh" && mkdir "$tmp/fresh"
done

# Passing tests: exit 0, and the last line still the counts.
TMPDIR=$tmp/fresh expect_run 0 "$tree/tests/run.sh" t-ok unit/test_a
[[ $(tail -n 1 "$tmp/out") == "4 passed, 0 failed" ]] || fail "the passing run's last line is '$(tail -n 1 "$tmp/out")'"
grep -q '^failed:' "$tmp/out" && fail "a passing run names failures: $(cat "$tmp/out")"

# ---- stopped (SIGTERM, SIGINT, SIGHUP) while a script runs: the script and what it started are
# stopped, the run's TMPDIR removed, and run.sh dies of the signal ----
for sig in TERM INT HUP; do
	rm -rf "$tmp/stop" "${notes:?}"/*
	mkdir "$tmp/stop"
	# run.sh started with SIGINT and SIGHUP handled by default: a command a script starts with &
	# ignores SIGINT, as everything under nohup ignores SIGHUP, and bash cannot trap what it
	# started ignoring
	TMPDIR=$tmp/stop python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
    signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$tree/tests/run.sh" t-ok t-hang >"$tmp/stop.out" 2>&1 &
	run_pid=$!
	for ((i = 0; i < 600; i++)); do
		[[ -f $notes/ready ]] && break
		alive "$run_pid" || break
		sleep 0.1
	done
	if [[ ! -f $notes/ready ]]; then
		fail "SIG$sig: t-hang did not start"
		show "$tmp/stop.out"
		kill -TERM "$run_pid" 2>/dev/null
		wait "$run_pid"
		continue
	fi
	kill -"$sig" "$run_pid"
	status=0
	# (bash's note of a job killed by a signal, on stderr, is not wanted)
	{ wait "$run_pid" || status=$?; } 2>/dev/null
	want=$((128 + $(kill -l "$sig")))
	[[ $status == "$want" ]] || fail "SIG$sig: run.sh exited $status, not $want (killed by the signal)"
	grep -qx "tests/run.sh: stopped by SIG$sig after [0-9] of 2" "$tmp/stop.out" ||
		fail "SIG$sig: run.sh did not say it was stopped: $(cat "$tmp/stop.out")"
	[[ -z $(ls -A "$tmp/stop") ]] || fail "SIG$sig: the stopped run left in its TMPDIR: $(ls -A "$tmp/stop")"
	while read -r pid; do
		if alive "$pid"; then
			fail "SIG$sig: a process of the stopped script still runs: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done <"$notes/pids"
done

# WM_UPDATE=1 writes a golden case's expected files from its run, and no file for what a missing one
# means: no stdout or stderr for an empty output, no exit for status 0; those of an earlier run go.
up=$tmp/update
mkdir -p "$up/tests/golden/quiet" "$up/tests/golden/loud" "$up/build"
cp "$ROOT/tests/run.sh" "$up/tests/run.sh"
# the stand-in tool: "out" prints on stdout, "err" on stderr, "fail" exits 3
cat >"$up/build/wheelmatrix" <<'EOF'
#!/bin/sh
for a; do case $a in out) echo out ;; err) echo err >&2 ;; fail) exit 3 ;; esac; done
EOF
chmod +x "$up/build/wheelmatrix"
printf 'quiet\n' >"$up/tests/golden/quiet/args"
printf 'was\n' >"$up/tests/golden/quiet/stdout"
: >"$up/tests/golden/quiet/stderr"
echo 3 >"$up/tests/golden/quiet/exit"
printf 'out\nerr\nfail\n' >"$up/tests/golden/loud/args"
WM_UPDATE=1 "$up/tests/run.sh" golden >"$tmp/update.out" 2>&1 || { fail "WM_UPDATE=1 run.sh golden failed"; show "$tmp/update.out"; }
for f in stdout stderr exit; do
	[[ ! -e $up/tests/golden/quiet/$f ]] || fail "WM_UPDATE=1 left quiet/$f for an empty output or status 0: '$(cat "$up/tests/golden/quiet/$f")'"
done
for f in stdout:out stderr:err exit:3; do
	[[ $(cat "$up/tests/golden/loud/${f%%:*}" 2>/dev/null) == "${f#*:}" ]] || fail "WM_UPDATE=1 did not write loud/${f%%:*} as '${f#*:}'"
done

finish
