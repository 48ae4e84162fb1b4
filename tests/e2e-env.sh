# e2e-env.sh — sourced by the tests that build the fixtures with the real tools: finds the pinned
# tools (tests/tools/install.sh), Rust and a C compiler, and says how to install what is missing.
# Sets tools (the tools' virtual environment), py (Debian's python3, with PyYAML) and exports
# PATH, CARGO_TARGET_DIR (a cache kept across runs and `make clean`) and the pip/uv settings that
# keep every install offline and away from the user's configuration; holds the target directory's
# lock (file descriptor 8) until the test exits.
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
CARGO_TARGET_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/cargo-target
export PATH CARGO_TARGET_DIR py tools
# One test at a time builds in the shared target directory: maturin copies a cdylib out of it after
# cargo finishes, and another run's build of the same crate with other features would replace it.
mkdir -p "$CARGO_TARGET_DIR"
exec 8>"$CARGO_TARGET_DIR.lock"
flock 8
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 UV_PYTHON_DOWNLOADS=never UV_NO_CONFIG=1
# what the user's machine says to installers and variant providers stays out of the tests: a test
# that wants a CUDA driver sets NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION itself
unset NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION NV_VARIANT_PROVIDER_FORCE_SM_ARCH
unset PYTHONPATH PYTHONHOME PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_CONFIG_FILE UV_INDEX_URL UV_EXTRA_INDEX_URL UV_FIND_LINKS VIRTUAL_ENV CONDA_PREFIX
