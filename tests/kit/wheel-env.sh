# wheel-env.sh — sourced by the tests of wheelmatrix's own wheel (t-wheel*.sh, t-pre-commit-python.sh):
# the pinned tools (tests/tools/install.sh) first on PATH (auditwheel runs their patchelf), and pip,
# uv and pipx offline, with nothing of the user's configuration, finding pyproject.toml's pinned
# build requirements in the wheelhouse (tests/tools/install-wheelhouse.sh), their caches under $tmp.
# Sets tools, wheelhouse and version (WM_VERSION of lib/wheelmatrix.h, the wheel's version).
# shellcheck shell=bash
: "${ROOT:?}" "${tmp:?source tests/kit/lib.sh first}"
tools=$("$ROOT/tests/tools/install.sh" --path)
[ -f "$tools/.complete" ] ||
	fatal "the pinned test tools are not installed in $tools: run 'make tools' (tests/tools/install.sh)"
wheelhouse=$("$ROOT/tests/tools/install-wheelhouse.sh" --dir)
[ -f "$wheelhouse/complete" ] ||
	fatal "the wheel's build requirements are not in $wheelhouse: run 'make tools' (tests/tools/install-wheelhouse.sh)"
/usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null ||
	fatal "Debian's python3 with venv is missing: apt-get install python3-venv"
for c in make pkg-config cc; do
	command -v "$c" >/dev/null || fatal "the wheel is built by make with pkg-config and cc: make deps"
done
version=$(sed -n 's/^#define WM_VERSION "\(.*\)"$/\1/p' "$ROOT/lib/wheelmatrix.h")
[ -n "$version" ] || fatal "no WM_VERSION in lib/wheelmatrix.h"
PATH=$tools/bin:$PATH
export PATH
# the wheel is the release build: what a `make SANITIZE=... check` passes its recipes (its
# command-line variables, in the environment and in MAKEFLAGS) does not reach the make the wheel's
# build runs, nor the `make install` it is compared with
unset SANITIZE MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
unset PYTHONPATH PYTHONHOME PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_CONFIG_FILE UV_INDEX_URL UV_EXTRA_INDEX_URL \
	UV_INDEX UV_DEFAULT_INDEX VIRTUAL_ENV CONDA_PREFIX PREFIX CFLAGS LDFLAGS
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_NO_INDEX=1 \
	PIP_FIND_LINKS=$wheelhouse PIP_CACHE_DIR=$tmp/pip-cache PIP_CONFIG_FILE=/dev/null \
	UV_OFFLINE=1 UV_FIND_LINKS=$wheelhouse UV_NO_CONFIG=1 UV_CACHE_DIR=$tmp/uv-cache \
	UV_PYTHON_DOWNLOADS=never UV_PYTHON=/usr/bin/python3 \
	PIPX_HOME=$tmp/pipx PIPX_BIN_DIR=$tmp/pipx-bin PIPX_MAN_DIR=$tmp/pipx-man PIPX_DEFAULT_PYTHON=/usr/bin/python3
