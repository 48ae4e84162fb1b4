#!/bin/bash
# t-build.sh — `wheelmatrix build`: real maturin builds the pure fixture's variant with its patch applied (the
# wheel's name and metadata are the variant's) and pyproject.toml is the committed file byte for byte
# afterwards; after a failed build (a bad maturin option, a missing Cargo feature) too, with maturin's status;
# an interrupted one (SIGINT, SIGTERM) passes the signal on to maturin, reverts and exits 128+signal; an edit
# made during the build is kept (no revert, exit 1); a missing maturin changes nothing (exit 3).
. "$ROOT/tests/kit/lib.sh"
# each build is checked where it happens: a failed one does not end the script
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

repo=$tmp/pure
cp -r "$ROOT/tests/fixtures/pure" "$repo"
"$WM" -q -C "$repo" generate || fatal "generate failed in the pure fixture"
scratch_repo "$repo"
commit_all "$repo"
cp "$repo/pyproject.toml" "$tmp/base.toml"
# the patched file as git apply makes it, in a clone of its own
git clone -q "$repo" "$tmp/ref"
git -C "$tmp/ref" apply .wheelmatrix/patches/cuda.patch || fatal "git apply cuda.patch failed"

reverted() {  # reverted WHAT: pyproject.toml is the committed file byte for byte, and nothing else changed
	cmp -s "$repo/pyproject.toml" "$tmp/base.toml" || fail "$1: pyproject.toml was left changed: $(diff "$tmp/base.toml" "$repo/pyproject.toml")"
	[ -z "$(git -C "$repo" status --porcelain)" ] || fail "$1: the working tree changed: $(git -C "$repo" status --porcelain)"
}

# metadata WHEEL: the wheel's METADATA
metadata() {
	"$py" - "$1" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as whl:
    (name,) = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
    sys.stdout.write(whl.read(name).decode())
PY
}

# ---- a build: the variant's wheel, the file reverted -------------------------------------------------
wm -C "$repo" build cuda -- --out "$tmp/dist" -i "$py"
expect_status 0 "build cuda"
expect_err "applied .wheelmatrix/patches/cuda.patch to pyproject.toml for the build" "build cuda"
expect_err "reverted .wheelmatrix/patches/cuda.patch from pyproject.toml" "build cuda"
wheels=("$tmp"/dist/*.whl)
if [ "${#wheels[@]}" != 1 ] || [[ ${wheels[0]##*/} != pure_rs_cuda-0.3.0-cp*.whl ]]; then
	fail "build cuda made ${wheels[*]##*/}, not one pure_rs_cuda-0.3.0 wheel"
else
	metadata "${wheels[0]}" >"$tmp/meta"
	grep -qx 'Name: pure-rs-cuda' "$tmp/meta" || fail "the cuda wheel's metadata: $(head -3 "$tmp/meta")"
fi
reverted "build cuda"

# the default backend has no patch: maturin builds the file as it is
wm -C "$repo" build cpu -- --out "$tmp/dist-cpu" -i "$py"
expect_status 0 "build cpu"
expect_err "backend 'cpu' builds pyproject.toml as it is: it has no patch" "build cpu"
wheels=("$tmp"/dist-cpu/*.whl)
[[ ${#wheels[@]} == 1 && ${wheels[0]##*/} == pure_rs-0.3.0-cp*.whl ]] || fail "build cpu made ${wheels[*]##*/}"
reverted "build cpu"

# ---- failed builds: maturin's status, the file reverted ---------------------------------------------
wm -C "$repo" build cuda -- --no-such-option
expect_status 2 "build cuda with an option maturin does not know"
grep -q -- "--no-such-option" "$tmp/err" || fail "maturin's complaint about --no-such-option is not shown: $(cat "$tmp/err")"
expect_err "reverted .wheelmatrix/patches/cuda.patch" "a bad maturin option"
reverted "a bad maturin option"

wm -C "$repo" build cuda -- --features no-such-feature -i "$py" --out "$tmp/dist-bad"
[ "$status" != 0 ] || fail "a build with a missing Cargo feature exited 0"
grep -q "no-such-feature" "$tmp/err" || fail "cargo's complaint about the feature is not shown: $(tail -5 "$tmp/err")"
reverted "a missing Cargo feature"
[ -z "$(ls "$tmp/dist-bad" 2>/dev/null)" ] || fail "a failed build left a wheel"

# ---- a stand-in maturin: arguments, directory, signals --------------------------------------------------
# It records its arguments, its directory and the pyproject.toml it sees, then runs MODE:
# `ok` exits 0, `edit` appends a line to pyproject.toml, `wait` waits for a signal and records it.
fake=$tmp/fake-maturin
cat >"$fake" <<EOF
#!/bin/bash
printf '%s\n' "\$@" >"$tmp/args"
pwd >"$tmp/pwd"
cp pyproject.toml "$tmp/seen.toml"
case \$FAKE_MODE in
ok) exit 0 ;;
edit) echo '# mine' >>pyproject.toml; exit 0 ;;
wait)
	trap 'echo INT >"$tmp/got"; kill \$sleeper; exit 130' INT
	trap 'echo TERM >"$tmp/got"; kill \$sleeper; exit 143' TERM
	sleep 600 & sleeper=\$!
	echo \$sleeper >"$tmp/sleeper"
	wait \$sleeper ;;
esac
EOF
chmod +x "$fake"

FAKE_MODE=ok MATURIN=$fake wm -C "$repo" build cuda -- --release -o 'dist dir'
expect_status 0 "build with MATURIN"
printf 'build\n--release\n-o\ndist dir\n' | expect_same - "$tmp/args" "the arguments maturin is given"
[ "$(cat "$tmp/pwd")" = "$(cd "$repo" && pwd -P)" ] || fail "maturin ran in $(cat "$tmp/pwd"), not the repository"
expect_same "$tmp/ref/pyproject.toml" "$tmp/seen.toml" "the pyproject.toml maturin sees"
reverted "build with MATURIN"

# an edit made during the build is kept: no revert, exit 1, the file as the user left it
FAKE_MODE=edit MATURIN=$fake wm -C "$repo" build cuda
expect_status 1 "an edit during the build"
expect_err "pyproject.toml changed during the build: the patch of backend 'cuda' was not reverted, so that the change is kept" "an edit during the build"
{ cat "$tmp/ref/pyproject.toml"; echo '# mine'; } | expect_same - "$repo/pyproject.toml" "the file edited during the build"
git -C "$repo" checkout -q -- pyproject.toml

# a patch applied before the build stays applied after it
wm -C "$repo" patch cuda
FAKE_MODE=ok MATURIN=$fake wm -C "$repo" build cuda
expect_status 0 "build over an applied patch"
expect_same "$tmp/ref/pyproject.toml" "$repo/pyproject.toml" "a patch applied before the build"
git -C "$repo" checkout -q -- pyproject.toml

# interrupted: the signal reaches maturin, the patch is reverted, exit 128+signal
for sig in INT TERM; do
	rm -f "$tmp/sleeper" "$tmp/got"
	# the signals' default actions: a background job of a script starts with SIGINT ignored, and
	# so does everything under a caller started that way (wheelmatrix then leaves it ignored)
	FAKE_MODE=wait MATURIN=$fake env --default-signal=INT,TERM "$WM" -C "$repo" build cuda >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 600); do
		[ -s "$tmp/sleeper" ] && break
		sleep 0.1
	done
	[ -s "$tmp/sleeper" ] || fail "SIG$sig: maturin did not start"
	expect_same "$tmp/ref/pyproject.toml" "$repo/pyproject.toml" "SIG$sig: the file while maturin runs"
	kill -s "$sig" "$pid"
	for _ in $(seq 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	# a signal not passed on leaves maturin waiting: end it here rather than wait 10 minutes
	if kill -0 "$pid" 2>/dev/null; then
		fail "SIG$sig: wheelmatrix still waits for maturin"
		kill "$(cat "$tmp/sleeper")"
	fi
	wait "$pid"
	status=$?
	want=$((128 + $(kill -l "$sig")))
	expect_status "$want" "build interrupted by SIG$sig"
	[ "$(cat "$tmp/got" 2>/dev/null)" = "$sig" ] || fail "SIG$sig was not passed on to maturin"
	expect_err "interrupted by SIG$sig" "SIG$sig"
	reverted "build interrupted by SIG$sig"
done

# a pyproject.toml below the root: maturin runs beside it, as in CI
ws=$tmp/workspace
cp -r "$ROOT/tests/fixtures/workspace" "$ws"
"$WM" -q -C "$ws" generate || fatal "generate failed in the workspace fixture"
scratch_repo "$ws"
commit_all "$ws"
FAKE_MODE=ok MATURIN=$fake wm -C "$ws" build cuda
expect_status 0 "build in the workspace fixture"
[ "$(cat "$tmp/pwd")" = "$(cd "$ws/python" && pwd -P)" ] || fail "maturin ran in $(cat "$tmp/pwd"), not beside python/pyproject.toml"
grep -qx 'name = "ws-rs-cuda"' "$tmp/seen.toml" || fail "maturin saw python/pyproject.toml unpatched: $(cat "$tmp/seen.toml")"
[ -z "$(git -C "$ws" status --porcelain)" ] || fail "the workspace fixture changed: $(git -C "$ws" status --porcelain)"

# ---- nothing is patched when maturin cannot run, or the backend is unknown -------------------------------
mkdir -p "$tmp/nobin"
PATH=$tmp/nobin MATURIN='' wm -C "$repo" build cuda
expect_status 3 "no maturin on PATH"
expect_err "maturin is not on PATH: install it ('pip install maturin') or set MATURIN to its path" "no maturin"
MATURIN=$tmp/nowhere wm -C "$repo" build cuda
expect_status 3 "MATURIN naming no file"
expect_err "MATURIN is '$tmp/nowhere', which is not an executable file" "MATURIN naming no file"
rm -f "$tmp/args"
FAKE_MODE=ok MATURIN=$fake wm -C "$repo" build cdua
expect_status 2 "an unknown backend"
expect_err "unknown backend 'cdua' (did you mean 'cuda'?)" "an unknown backend"
[ ! -e "$tmp/args" ] || fail "maturin ran for an unknown backend"
reverted "builds that did not start"
finish
