# e2e-env.sh — sourced by the tests that build the fixtures with the real tools: finds the pinned
# tools (tests/tools/install.sh), Rust and a C compiler, and says how to install what is missing.
# Sets tools (the tools' virtual environment), py (Debian's python3, with PyYAML) and exports
# PATH, CARGO_TARGET_DIR (a cache kept across runs and `make clean`, one per test running at once)
# and the pip/uv settings that keep every install offline and away from the user's configuration;
# holds the target directory's lock (file descriptor 8) until the test exits.
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
export PATH CARGO_TARGET_DIR py tools
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 UV_PYTHON_DOWNLOADS=never UV_NO_CONFIG=1
# what the user's machine says to installers and variant providers stays out of the tests: a test
# that wants a CUDA driver sets NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION itself
unset NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION NV_VARIANT_PROVIDER_FORCE_SM_ARCH
unset PYTHONPATH PYTHONHOME PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_CONFIG_FILE UV_INDEX_URL UV_EXTRA_INDEX_URL UV_FIND_LINKS VIRTUAL_ENV CONDA_PREFIX
