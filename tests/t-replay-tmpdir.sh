#!/usr/bin/env bash
# t-replay-tmpdir.sh — tests/helpers/replay-github.py leaves nothing in TMPDIR: its RUNNER_TEMP and its docker and gh shims go when the job passes, fails or is stopped.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

cat >"$tmp/wf.yml" <<'EOF'
defaults:
  run:
    shell: bash
jobs:
  pass:
    runs-on: ubuntu-latest
    steps:
      - run: |
          test -d "$RUNNER_TEMP"
          echo log >"$RUNNER_TEMP/git-apply.log"
          command -v docker gh >"$WM_TEST_SHIMS"
  fail:
    runs-on: ubuntu-latest
    steps:
      - run: echo log >"$RUNNER_TEMP/git-apply.log"
      - run: exit 3
  hang:
    runs-on: ubuntu-latest
    steps:
      - run: |
          echo log >"$RUNNER_TEMP/git-apply.log"
          touch "$WM_TEST_READY"
          exec sleep 600
EOF
mkdir "$tmp/work"
export WM_TEST_SHIMS=$tmp/shims WM_TEST_READY=$tmp/ready

# replay JOB STATUS: replays JOB under an empty TMPDIR, expects STATUS and nothing left in TMPDIR
replay() {
	rm -rf "$tmp/t"
	mkdir "$tmp/t"
	(cd "$tmp/work" && TMPDIR=$tmp/t expect_run "$2" "$py" "$ROOT/tests/helpers/replay-github.py" "$tmp/wf.yml" "$1")
	[[ -z $(ls -A "$tmp/t") ]] || fail "job $1: replay-github.py left in TMPDIR: $(ls -A "$tmp/t")"
}
replay pass 0
# the shims were where the step found them, in TMPDIR (and are gone)
[[ $(cat "$WM_TEST_SHIMS") == "$tmp/t/"*/docker$'\n'"$tmp/t/"*/gh ]] ||
	fail "the shims were not in TMPDIR: $(cat "$WM_TEST_SHIMS")"
replay fail 1
grep -qF 'replay-github.py: step 2 (run) failed' "$tmp/err" || fail "job fail: not the failed step: $(cat "$tmp/err")"

# stopped by SIGTERM while a step runs
for sig in TERM HUP INT; do
	rm -rf "$tmp/t" "$WM_TEST_READY"
	mkdir "$tmp/t"
	# the replay started with the signal handled by default (a command a script starts with &
	# ignores SIGINT)
	(cd "$tmp/work" && exec env TMPDIR="$tmp/t" "$py" -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$py" "$ROOT/tests/helpers/replay-github.py" "$tmp/wf.yml" hang >"$tmp/hang.out" 2>&1) &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		[[ -f $WM_TEST_READY ]] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [[ ! -f $WM_TEST_READY ]]; then
		fail "SIG$sig: the job's step did not start"
		show "$tmp/hang.out"
	fi
	kill -"$sig" "$pid" 2>/dev/null || true
	status=0
	{ wait "$pid" || status=$?; } 2>/dev/null
	((status != 0)) || fail "SIG$sig: the stopped replay exited 0"
	[[ -z $(ls -A "$tmp/t") ]] || fail "SIG$sig: the stopped replay left in TMPDIR: $(ls -A "$tmp/t")"
done

finish
