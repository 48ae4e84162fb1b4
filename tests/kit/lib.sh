# lib.sh — what the test scripts share: a scratch directory, failed checks, git, running the tool.
# shellcheck shell=bash
#
# A script sources it first:
#
#   . "$ROOT/tests/kit/lib.sh"
#
# and then has: strict mode; $WM and $ROOT checked; $tmp, a scratch directory removed at exit (even
# one a test made read-only); `git` with an identity and a default branch, whatever the machine's
# configuration; and these, which record a failed check and go on (they return 0, so a script
# under `set -e` does not stop at the first):
#
#   fail MESSAGE            records a failed check ("FAIL: MESSAGE") and goes on
#   wm ARGS...              runs the tool: exit status in $status, output in $tmp/out and $tmp/err
#   run CMD...              runs any command as `wm` runs the tool
#   expect_run N CMD...     runs CMD as `run` does and fails unless it exited N (showing its output)
#   expect_status N WHAT    fails unless the last `wm` (or `run`) exited with N (showing its output)
#   expect_err TEXT WHAT    fails unless the last `wm` wrote TEXT (fixed, not a pattern) on stderr
#   expect_same WANT GOT WHAT  fails unless the files are the same (showing the diff); WANT may be
#                           `-`, standard input: `expect_same - "$tmp/err" WHAT <<EOF` for an exact stderr
#
# and these:
#
#   fatal MESSAGE           a failed check the rest cannot go on without: "FAIL: MESSAGE", exit 1 now
#   show FILE               prints FILE (a log) indented, under the FAIL line it explains
#   need COMMAND HOW        fatal unless COMMAND (a name on PATH or a path) can run; HOW installs it
#   testdata PATH...        sets $data, where `make testdata` installs the toml-test suite and the
#                           corpus; fatal unless that is complete and holds each PATH (relative to it)
#   scratch_repo DIR        a git repository at DIR (empty, or around the files already there)
#   commit_all DIR [MSG]    stages everything in the repository at DIR and commits it ("base")
#   maturin_project DIR [NAME [VERSION [REQUIRES]]]
#                           writes the start of a maturin project into DIR (made if missing): a
#                           pyproject.toml of maturin's build-system (REQUIRES, default maturin>=1.5,<2)
#                           ending in its [project] table, NAME (default demo) at VERSION (default
#                           1.0.0), and a Cargo.toml ending in its [package] table, the same; the
#                           caller adds what its test needs with >> (keys of those tables first)
#   demo_project DIR        writes a small maturin project into DIR: maturin_project's files of "demo"
#                           1.0.0, the Cargo.toml with a [lib] and a `cublas` feature, and a wheelmatrix.yaml
#                           of Python 3.12 on linux-x86_64, backend cuda and the CPU default, GitHub only
#   at_exit COMMAND         runs COMMAND (a function, no arguments) at exit, before $tmp is removed
#   finish                  ends the script: exit status 1 after any failed check, else 0
set -euo pipefail
: "${WM:?}" "${ROOT:?}"

tmp=$(mktemp -d)
exit_commands=()
lib_exit() {
	local c
	for c in "${exit_commands[@]}"; do
		"$c" || true
	done
	chmod -R u+w "$tmp" 2>/dev/null || true
	rm -rf "$tmp"
}
trap lib_exit EXIT
failures=0

at_exit() {
	exit_commands+=("$1")
}

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
	# also in a file: a check in a pipeline or a ( subshell ) counts too
	echo >>"$tmp/.failed-checks"
}

fatal() {
	echo "FAIL: $*"
	exit 1
}

show() {
	sed 's/^/    /' "$1"
}

need() {
	command -v "$1" >/dev/null 2>&1 || fatal "$1 is not installed: $2"
}

testdata() {
	local p
	data=$("$ROOT/tests/tools/install-testdata.sh" --dir)
	for p in complete "$@"; do
		[ -e "$data/$p" ] ||
			fatal "the test data is not installed in $data (no $p): run 'make testdata' (tests/tools/install-testdata.sh)"
	done
}

git() {
	command git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main \
		-c protocol.file.allow=always "$@"
}

run() {
	status=0
	"$@" >"$tmp/out" 2>"$tmp/err" || status=$?
}

wm() {
	run "$WM" "$@"
}

expect_run() {
	local want=$1
	shift
	run "$@"
	expect_status "$want" "$*"
}

expect_status() {
	[[ $status == "$1" ]] && return 0
	fail "$2: exit $status, not $1"
	sed 's/^/    /' "$tmp/out" "$tmp/err"
}

expect_err() {
	grep -qF -- "$1" "$tmp/err" && return 0
	fail "$2: stderr lacks '$1'"
	sed 's/^/    /' "$tmp/err"
}

expect_same() {
	diff -u --label "$3 (expected)" --label "$3 (actual)" "$1" "$2" >"$tmp/diff" && return 0
	fail "$3 differs"
	sed 's/^/    /' "$tmp/diff"
}

scratch_repo() {
	mkdir -p "$1"
	git -C "$1" init -q
}

commit_all() {
	git -C "$1" add -A
	git -C "$1" commit -qm "${2:-base}"
}

maturin_project() {
	local name=${2:-demo} version=${3:-1.0.0}
	mkdir -p "$1"
	printf '[build-system]\nrequires = ["%s"]\nbuild-backend = "maturin"\n\n[project]\nname = "%s"\nversion = "%s"\n' \
		"${4:-maturin>=1.5,<2}" "$name" "$version" >"$1/pyproject.toml"
	printf '[package]\nname = "%s"\nversion = "%s"\n' "$name" "$version" >"$1/Cargo.toml"
}

# names_crate DIR PYO3-FEATURES: names-rs 1.0.0 (tests/names: its lib.rs and the Cargo.lock of PyO3
# 0.29.3) with pyo3's features PYO3-FEATURES (a TOML list's items: '"abi3-py310"'), for a matrix
# to be written beside it
names_crate() {
	mkdir -p "$1/src"
	cp "$ROOT/tests/names/lib.rs" "$1/src/lib.rs"
	cp "$ROOT/tests/names/Cargo-0.29.lock" "$1/Cargo.lock"
	maturin_project "$1" names-rs 1.0.0 "maturin>=1.16,<2"
	printf 'edition = "2021"\n\n[lib]\nname = "names_rs"\ncrate-type = ["cdylib"]\n\n[dependencies]\npyo3 = { version = "=0.29.3", features = [%s] }\n\n[workspace]\n' "$2" >>"$1/Cargo.toml"
}

# maturin_new_ci DIR [PLATFORM...]: a project as the pinned maturin ($maturin, which it sets) writes
# it with `maturin new --bindings pyo3` (offline: no Cargo.lock resolved from crates.io today), in
# DIR, and its CI as `maturin generate-ci github` writes it (for PLATFORM..., else maturin's
# default), in DIR/.github/workflows/CI.yml
maturin_new_ci() {
	local dir=$1 platforms=()
	shift
	maturin=$("$ROOT/tests/tools/install.sh" --path)/bin/maturin
	[ -x "$maturin" ] || fatal "the pinned maturin is not installed: run 'make tools' (tests/tools/install.sh)"
	(cd "$(dirname "$dir")" && CARGO_NET_OFFLINE=true "$maturin" new --bindings pyo3 "$(basename "$dir")") \
		>"$tmp/new.log" 2>&1 || fatal "maturin new failed: $(cat "$tmp/new.log")"
	mkdir -p "$dir/.github/workflows"
	for p in "$@"; do platforms+=(--platform "$p"); done
	(cd "$dir" && "$maturin" generate-ci github "${platforms[@]}") >"$dir/.github/workflows/CI.yml" 2>"$tmp/gen.log" ||
		fatal "maturin generate-ci failed: $(cat "$tmp/gen.log")"
}

demo_project() {
	maturin_project "$1"
	printf '\n[lib]\nname = "demo"\n\n[features]\ncublas = []\n' >>"$1/Cargo.toml"
	printf 'wheelmatrix: 1\npython:\n  versions: ["3.12"]\nplatforms: [linux-x86_64]\nbackends:\n  cuda: {features: [cublas]}\n  cpu: {default: true}\nci:\n  github: {path: .github/workflows/wheels.yml}\n' >"$1/wheelmatrix.yaml"
}

finish() {
	local counted=0
	[[ -f $tmp/.failed-checks ]] && counted=$(wc -l <"$tmp/.failed-checks")
	((counted <= failures)) || failures=$counted
	((failures == 0)) || echo "$failures failed checks"
	exit $((failures > 0))
}
