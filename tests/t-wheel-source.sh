#!/bin/bash
# t-wheel-source.sh — from the repository's directory, `pip install .` into a fresh virtual environment, `pipx install .`, `uv tool install .` and `uvx --from . wheelmatrix` each build wheelmatrix (pyproject.toml) and give a `wheelmatrix` that prints WM_VERSION and lists the example as make's does; so does the macOS wheels' layout (the program in platlib, a launcher on PATH), built here with pip.
#
# Offline: pyproject.toml's pinned build requirements come from the wheelhouse (tests/kit/wheel-env.sh);
# the builds link the machine's libraries (the -dev packages are here), which t-wheel.sh's repaired
# wheel does without.
#
# One compile for the four installers that build the same wheel: scikit-build-core keeps its build
# directory where SKBUILD_BUILD_DIR (its build-dir setting) says, so `pip install .` compiles the
# program in $tmp/skbuild and pipx's and uv's builds, from the same files with the same settings, run
# CMakeLists.txt and the Makefile again there, and make finds the objects up to date (uvx reuses uv's
# build itself).  The platlib layout is another CMake configuration of the same directory, built
# last: CMake configures that directory anew, and make finds the objects up to date there too.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/wheel-env.sh
. "$ROOT/tests/kit/wheel-env.sh"
"$WM" -f "$ROOT/matrices/llm-rs.yaml" list >"$tmp/list.want" || fatal "list of matrices/llm-rs.yaml failed"

# works NAME CMD...: CMD (a wheelmatrix, or what runs one) prints the version and lists the example
works() {
	local what=$1
	shift
	run "$@" --version
	if [ "$status" != 0 ] || [ "$(cat "$tmp/out")" != "wheelmatrix $version" ]; then
		fail "$what: wheelmatrix --version: exit $status, '$(cat "$tmp/out" "$tmp/err")'"
		return 0
	fi
	run "$@" -f "$ROOT/matrices/llm-rs.yaml" list
	expect_status 0 "$what: list"
	expect_same "$tmp/list.want" "$tmp/out" "$what: list of matrices/llm-rs.yaml"
}

cd "$ROOT"
export SKBUILD_BUILD_DIR=$tmp/skbuild
/usr/bin/python3 -m venv "$tmp/venv" || fatal "python3 -m venv failed"
expect_run 0 "$tmp/venv/bin/pip" install .
works "pip install ." "$tmp/venv/bin/wheelmatrix"
cmp -s docs/wheelmatrix.1 "$tmp/venv/share/man/man1/wheelmatrix.1" || fail "pip install .: no manual page in the environment's share/man/man1"

expect_run 0 pipx install .
works "pipx install ." "$PIPX_BIN_DIR/wheelmatrix"

export UV_TOOL_DIR=$tmp/uv-tools UV_TOOL_BIN_DIR=$tmp/uv-bin
expect_run 0 uv tool install --no-index .
works "uv tool install ." "$UV_TOOL_BIN_DIR/wheelmatrix"
# uvx runs it from an environment of its own, not from UV_TOOL_BIN_DIR
works "uvx --from . wheelmatrix" uvx --no-index --from . wheelmatrix

# the layout of the macOS wheels (CMakeLists.txt's WHEELMATRIX_PLATLIB_PROGRAM, which delocate
# needs): the program in platlib, and on PATH cmd/launcher.py running it
/usr/bin/python3 -m venv "$tmp/venv-platlib" || fatal "python3 -m venv failed"
expect_run 0 "$tmp/venv-platlib/bin/pip" install --config-settings=cmake.define.WHEELMATRIX_PLATLIB_PROGRAM=ON .
site=$("$tmp/venv-platlib/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
[ -x "$site/wheelmatrix.scripts/wheelmatrix" ] || fail "WHEELMATRIX_PLATLIB_PROGRAM: no program in $site/wheelmatrix.scripts"
[ "$(head -n 1 "$tmp/venv-platlib/bin/wheelmatrix")" = "#!$tmp/venv-platlib/bin/python3" ] ||
	fail "WHEELMATRIX_PLATLIB_PROGRAM: the wheelmatrix on PATH is not the launcher: $(head -c 40 "$tmp/venv-platlib/bin/wheelmatrix" | tr -c '[:print:]' .)"
works "pip install . with the program in platlib" "$tmp/venv-platlib/bin/wheelmatrix"

finish
