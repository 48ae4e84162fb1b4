# e2e-env.sh — sourced by the tests that build the fixtures with the real tools: finds the pinned
# tools (tests/tools/install.sh), Rust and a C compiler, and says how to install what is missing.
# Sets tools (the tools' virtual environment), py (Debian's python3, with PyYAML) and exports
# PATH, CARGO_TARGET_DIR (a cache kept across runs and `make clean`, one per test running at
# once), UV_CACHE_DIR (one for the run) and the pip/uv settings that keep every install offline
# and away from the user's configuration; holds the target directory's lock (file descriptor 8)
# until the test exits; e2e_python (below) gives the path the jobs run an environment's
# interpreter by.
# shellcheck shell=bash
e2e_missing() {
	echo "FAIL: $*" >&2
	exit 1
}
py=/usr/bin/python3
[ -x "$py" ] || e2e_missing "$py is missing: apt-get install python3 python3-venv python3-yaml"
"$py" -c 'import yaml, venv, ensurepip' 2>/dev/null ||
	e2e_missing "$py lacks PyYAML or venv: apt-get install python3-yaml python3-venv"
tools=$("$ROOT/tests/tools/install.sh" --path)
[ -f "$tools/.complete" ] ||
	e2e_missing "the pinned test tools are not installed in $tools: run tests/tools/install.sh (make check does)"
case ":$PATH:" in *":$HOME/.cargo/bin:"*) ;; *) [ -d "$HOME/.cargo/bin" ] && PATH=$PATH:$HOME/.cargo/bin ;; esac
command -v cargo >/dev/null 2>&1 ||
	e2e_missing "cargo is missing: install Rust 1.83 or later with rustup (https://rustup.rs: curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh)"
e2e_rust=$(rustc --version 2>/dev/null | sed -n 's/^rustc 1\.\([0-9]*\)\..*/\1/p')
[ "${e2e_rust:-0}" -ge 83 ] ||
	e2e_missing "PyO3 0.29 needs Rust 1.83 or later, found '$(rustc --version 2>&1)': rustup update stable"
command -v cc >/dev/null 2>&1 || e2e_missing "cc is missing: apt-get install build-essential"
PATH=$tools/bin:$PATH
# The Rust builds are kept across runs and `make clean`, in one target directory per test running
# at once (cargo-target/slot-N, N below WM_TEST_JOBS): a test holds its slot's lock until it exits,
# as maturin copies a cdylib out of the target directory after cargo finishes, and another build of
# the same crate with other features there would replace it.  A test takes the first free slot, and
# waits on one only when every slot is taken (more tests than WM_TEST_JOBS at once).
e2e_targets=${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/cargo-target
e2e_slots=${WM_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$e2e_targets"
for ((e2e_slot = 0; ; e2e_slot++)); do
	if ((e2e_slot == e2e_slots)); then
		e2e_slot=$(($$ % e2e_slots))
		exec 8>"$e2e_targets/slot-$e2e_slot.lock"
		flock 8
		break
	fi
	exec 8>"$e2e_targets/slot-$e2e_slot.lock"
	flock -n 8 && break
done
CARGO_TARGET_DIR=$e2e_targets/slot-$e2e_slot
mkdir -p "$CARGO_TARGET_DIR"

# e2e_python VENV: prints a path to the environment VENV (absolute) that is the same for its
# interpreter in every test that holds this slot, in every run: slot-N.python/IMPLEMENTATION-X.Y
# (with the ABI flags: cpython-3.14t), a symlink this points at VENV.  The jobs run the interpreter
# by it (PATH=$(e2e_python "$venv")/bin:$PATH).  maturin hands cargo the interpreter's path as
# PYO3_PYTHON, which pyo3-ffi's build script watches: each fresh environment under $tmp, by its
# new path, would have cargo rebuild pyo3-ffi and pyo3, nearly all of a fixture's build, at every
# job.  By this path they are rebuilt when the interpreter changes, as cargo decides.  The
# environment stays the fresh one of the job: only its name is shared, and it is repointed at each
# call, so call it right where the job starts.
e2e_python() {
	local name
	name=$("$1/bin/python" -c 'import sys; print("%s-%d.%d%s" % (sys.implementation.name, sys.version_info[0], sys.version_info[1], getattr(sys, "abiflags", "")))') ||
		return 1
	mkdir -p "$e2e_targets/slot-$e2e_slot.python" &&
		ln -sfn "$1" "$e2e_targets/slot-$e2e_slot.python/$name" &&
		printf '%s\n' "$e2e_targets/slot-$e2e_slot.python/$name"
}
export PATH CARGO_TARGET_DIR py tools
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 UV_PYTHON_DOWNLOADS=never UV_NO_CONFIG=1
# sccache, which the generated Linux build jobs compile through and stop at their end, serves on
# a TCP port of the machine, 4226 unless SCCACHE_SERVER_PORT says: jobs of tests running at once,
# in this run or another, would share one server, its statistics, and one job's stop would fail the
# other's.  Each test's jobs get a port of their own, one the kernel picks.
SCCACHE_SERVER_PORT=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	e2e_missing "no free port for sccache"
export SCCACHE_SERVER_PORT
# One uv cache for the tests of a run, in its TMPDIR (tests/run.sh's, removed when the run ends):
# the pinned tools each job's environment gets (tests/tools/requirements.txt, from PyPI) are
# fetched once a run, not once a test.  uv locks its cache for tests running at once.
export UV_CACHE_DIR=${TMPDIR:-/tmp}/wheelmatrix-uv-cache
# what the user's machine says to installers and variant providers stays out of the tests: a test
# that wants a CUDA driver sets NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION itself
unset NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION NV_VARIANT_PROVIDER_FORCE_SM_ARCH
unset PYTHONPATH PYTHONHOME PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_CONFIG_FILE UV_INDEX_URL UV_EXTRA_INDEX_URL UV_FIND_LINKS VIRTUAL_ENV CONDA_PREFIX
