#!/bin/bash
# t-wheel.sh — wheelmatrix's own wheel: `uv build` makes the sdist and, from it, a py3-none-linux wheel whose files are what `make LINKED=1 install` installs (the program alike but for its debug information); `auditwheel repair` makes it manylinux with libyaml, Jansson, libgit2 and libcurl inside; installed with pip, `uv tool install` and pipx, it runs with the machine's four libraries hidden, each loaded from the wheel's own directory.
#
# Offline: pyproject.toml's pinned build requirements come from the wheelhouse (tests/kit/wheel-env.sh).
# The machine's libraries are hidden in a mount namespace of the test's own (unshare), where
# /dev/null is mounted over each of their files: the program built by make no longer starts there.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/wheel-env.sh
. "$ROOT/tests/kit/wheel-env.sh"
# shellcheck source=tests/kit/wheel-build.sh
. "$ROOT/tests/kit/wheel-build.sh"
need unshare "apt-get install util-linux"
need objcopy "apt-get install binutils"
arch=$(uname -m)

# the build requirements tests/tools/wheel-requirements.txt holds are pyproject.toml's, pin for pin
/usr/bin/python3 - "$ROOT/pyproject.toml" "$ROOT/tests/tools/wheel-requirements.txt" >"$tmp/pins" 2>&1 <<'PY' ||
import re, sys, tomllib
with open(sys.argv[1], "rb") as f:
    want = sorted(tomllib.load(f)["build-system"]["requires"])
got = sorted(m.group(1) for m in re.finditer(r"^(\S+==\S+) \\$", open(sys.argv[2]).read(), re.M))
if want != got:
    sys.exit(f"pyproject.toml requires {want}, wheel-requirements.txt pins {got}")
PY
	{ fail "the build requirements differ"; show "$tmp/pins"; }

# the sdist, the wheel built from it, and the wheel repaired (built once for the run: tests/kit/wheel-build.sh)
wheel_build "$tmp" || { show "$tmp/build.log"; fatal "uv build or auditwheel repair failed (above)"; }
sdist=$tmp/dist/wheelmatrix-$version.tar.gz
wheel=$tmp/dist/wheelmatrix-$version-py3-none-linux_$arch.whl
if [ ! -f "$sdist" ] || [ ! -f "$wheel" ]; then
	fatal "uv build made $(cd "$tmp/dist" && echo *), not $(basename "$sdist") and $(basename "$wheel")"
fi
unzip -q "$wheel" -d "$tmp/w"
data=$tmp/w/wheelmatrix-$version.data
grep -qx "Tag: py3-none-linux_$arch" "$tmp/w/wheelmatrix-$version.dist-info/WHEEL" ||
	fail "the wheel's WHEEL says $(grep Tag: "$tmp/w/wheelmatrix-$version.dist-info/WHEEL"), not py3-none-linux_$arch"
grep -qx "Version: $version" "$tmp/w/wheelmatrix-$version.dist-info/METADATA" ||
	fail "the wheel's METADATA has no 'Version: $version' (WM_VERSION)"
tar -xzf "$sdist" -C "$tmp"
for f in Makefile CMakeLists.txt pyproject.toml lib/wheelmatrix.h docs/wheelmatrix.1 docs/wheelmatrix.schema.json templates/platforms.yaml; do
	cmp -s "$ROOT/$f" "$tmp/wheelmatrix-$version/$f" || fail "the sdist's $f is not the repository's"
done

# what make installs, built as the wheel is (LINKED=1), beside the wheel's files: the same names
# and, but for the program's debug information (its build directory), the same bytes
expect_run 0 make -s -C "$ROOT" B="$tmp/mk" LINKED=1 DESTDIR="$tmp/ref" install
(cd "$tmp/ref/usr/local" && find . -type f | sort) >"$tmp/ref.list"
(cd "$data" && find . -type f | sed 's|^\./scripts/|./bin/|; s|^\./data/|./|' | sort) >"$tmp/wheel.list"
expect_same "$tmp/ref.list" "$tmp/wheel.list" "the wheel's files (scripts/ as bin/, data/ as the prefix)"
for f in ./share/man/man1/wheelmatrix.1 ./share/wheelmatrix/wheelmatrix.schema.json ./share/bash-completion/completions/wheelmatrix; do
	grep -qx "$f" "$tmp/wheel.list" || fail "the wheel lacks $f"
done
diff -r "$tmp/ref/usr/local/share" "$data/data/share" >"$tmp/diff" || { fail "the wheel's share/ differs from make install's"; show "$tmp/diff"; }
cmp -s "$ROOT/docs/wheelmatrix.1" "$data/data/share/man/man1/wheelmatrix.1" || fail "the wheel's manual page is not docs/wheelmatrix.1"
[ -x "$data/scripts/wheelmatrix" ] || fail "the wheel's program is not executable"
strip_id() { objcopy --strip-all -R .note.gnu.build-id "$1" "$2"; }
strip_id "$tmp/ref/usr/local/bin/wheelmatrix" "$tmp/ref.bin" || fatal "objcopy could not strip make's program"
strip_id "$data/scripts/wheelmatrix" "$tmp/wheel.bin" || fatal "objcopy could not strip the wheel's program"
cmp -s "$tmp/ref.bin" "$tmp/wheel.bin" || fail "the wheel's program, stripped, is not make LINKED=1's"
readelf -d "$data/scripts/wheelmatrix" >"$tmp/needed"
for l in libyaml libjansson libgit2 libcurl; do
	grep -q "(NEEDED).*\[${l}[.-]" "$tmp/needed" || fail "the wheel's program does not name $l as needed: $(grep NEEDED "$tmp/needed")"
done

# the repair: manylinux, the four libraries and what they need inside, the program beside them
repaired=$(ls "$tmp"/repaired/wheelmatrix-"$version"-py3-none-manylinux_*_"$arch".whl 2>/dev/null) ||
	fatal "auditwheel repair made $(cd "$tmp/repaired" && echo *), no py3-none-manylinux_*_$arch wheel"
tag=${repaired##*-py3-none-}
tag=${tag%.whl}
expect_run 0 auditwheel show "$repaired"
tr -s ' \n' ' ' <"$tmp/out" | grep -qF "is consistent with the following platform tag: \"$tag\"" ||
	{ fail "auditwheel show does not find the wheel consistent with $tag"; show "$tmp/out"; }
unzip -Z1 "$repaired" >"$tmp/repaired.list"
for l in libyaml-0 libjansson libgit2 libcurl; do
	grep -q "^wheelmatrix\.libs/$l-[0-9a-f]*\.so" "$tmp/repaired.list" || fail "the repaired wheel has no wheelmatrix.libs/$l-*.so"
done
grep -qx "wheelmatrix\.scripts/wheelmatrix" "$tmp/repaired.list" || fail "the repaired wheel has no wheelmatrix.scripts/wheelmatrix"

# the machine's four libraries, each file of theirs hidden under /dev/null in a mount namespace
hide=()
for p in yaml-0.1 jansson libgit2 libcurl; do
	f=$(pkg-config --variable=libdir "$p")/$(pkg-config --libs-only-l "$p" | sed 's/^-l\([^ ]*\).*/lib\1.so/')
	f=$(readlink -f "$f")
	[ -f "$f" ] || fatal "no library file for $p ($f)"
	hide+=("$f")
done
# hidden CMD...: runs CMD there (the files are in HIDE, for the inner shell); a user namespace
# too when the test does not run as root, which may mount in it
userns=()
[ "$(id -u)" = 0 ] || userns=(-r)
# shellcheck disable=SC2016,SC2317
hidden() {
	unshare "${userns[@]}" -m --propagation private sh -c 'for f in $HIDE; do mount --bind /dev/null "$f" || exit 99; done; exec "$@"' hidden "$@"
}
export HIDE="${hide[*]}"
run hidden true
[ "$status" = 0 ] || fatal "no mount namespace to hide the libraries in (unshare ${userns[*]} -m: $(cat "$tmp/err"))"
run hidden "$WM" --version
if [ "$status" != 127 ] || ! grep -q "error while loading shared libraries" "$tmp/err"; then
	fail "make's wheelmatrix still starts with the machine's libraries hidden (exit $status)"
	show "$tmp/err"
fi

# a project for check: generated and committed
demo_project "$tmp/project"
"$WM" -q -C "$tmp/project" generate || fatal "generate failed in the project"
scratch_repo "$tmp/project"
commit_all "$tmp/project"
"$WM" -f "$ROOT/matrices/llm-rs.yaml" list >"$tmp/list.want" || fatal "list of matrices/llm-rs.yaml failed"

# works NAME BIN: BIN (a wheelmatrix installed from the wheel) prints the version and lists the
# example as make's does, with the machine's libraries hidden too
works() {
	run "$2" --version
	if [ "$status" != 0 ] || [ "$(cat "$tmp/out")" != "wheelmatrix $version" ]; then
		fail "$1: wheelmatrix --version: exit $status, '$(cat "$tmp/out" "$tmp/err")'"
		return 0
	fi
	run "$2" -f "$ROOT/matrices/llm-rs.yaml" list
	expect_status 0 "$1: list"
	expect_same "$tmp/list.want" "$tmp/out" "$1: list of matrices/llm-rs.yaml"
	run hidden "$2" -f "$ROOT/matrices/llm-rs.yaml" list
	expect_status 0 "$1: list with the machine's libraries hidden"
}

# pip, into a fresh virtual environment
/usr/bin/python3 -m venv "$tmp/venv" || fatal "python3 -m venv failed"
expect_run 0 "$tmp/venv/bin/pip" install "$repaired"
works "pip install" "$tmp/venv/bin/wheelmatrix"
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
prog=$site/wheelmatrix.scripts/wheelmatrix
libs=$site/wheelmatrix.libs
[ -x "$prog" ] || fatal "pip installed no $prog"
for f in share/man/man1/wheelmatrix.1 share/wheelmatrix/wheelmatrix.schema.json share/bash-completion/completions/wheelmatrix \
	share/zsh/site-functions/_wheelmatrix share/fish/vendor_completions.d/wheelmatrix.fish; do
	cmp -s "$tmp/ref/usr/local/$f" "$tmp/venv/$f" || fail "pip install: the environment's $f is not make install's"
done

# the paths the loader prints, the RPATH's `wheelmatrix.scripts/..` made plain
plain() {
	sed -i "s|/wheelmatrix\.scripts/\.\./|/|g" "$tmp/out" "$tmp/err"
}

# ldd: the four libraries resolve into the wheel's directory of libraries, with or without the machine's
for h in "" hidden; do
	run $h ldd "$prog"
	plain
	expect_status 0 "ldd of the installed program ${h:+(libraries hidden)}"
	for l in libyaml-0 libjansson libgit2 libcurl; do
		grep -q "^[[:space:]]$l-[0-9a-f]*\.so[^ ]* => $libs/$l-[0-9a-f]*\.so" "$tmp/out" ||
			{ fail "ldd ${h:+(libraries hidden)}: $l does not resolve into $libs"; show "$tmp/out"; }
	done
done

# LD_DEBUG=libs, the machine's libraries hidden: check (libgit2) and plan against a closed port
# (libcurl's refused connection), each of the four initialised from the wheel's directory and no other
# copy of them from anywhere
ldcheck() {
	local l
	plain
	for l in libyaml-0 libjansson libgit2 libcurl; do
		grep -q "calling init: $libs/$l-[0-9a-f]*\.so" "$tmp/err" || fail "$1: LD_DEBUG shows no $l initialised from $libs"
	done
	! grep "calling init: " "$tmp/err" | grep -v "calling init: $libs/" | grep -E 'lib(yaml|jansson|git2|curl)' ||
		fail "$1: a library of the four initialised from outside $libs"
}
run hidden env LD_DEBUG=libs "$tmp/venv/bin/wheelmatrix" -C "$tmp/project" check
expect_status 0 "check of the committed project, libraries hidden"
ldcheck check
run hidden env LD_DEBUG=libs "$tmp/venv/bin/wheelmatrix" -C "$tmp/project" plan --index http://127.0.0.1:9/simple/
expect_status 3 "plan against a closed port, libraries hidden"
grep -q "^demo: query failed: cannot connect to the server" "$tmp/out" ||
	{ fail "plan against a closed port: libcurl did not report the refused connection"; show "$tmp/out"; }
ldcheck plan

# uv tool install, and pipx install, each into directories of the test's own
export UV_TOOL_DIR=$tmp/uv-tools UV_TOOL_BIN_DIR=$tmp/uv-bin
expect_run 0 uv tool install --no-index "$repaired"
works "uv tool install" "$tmp/uv-bin/wheelmatrix"
expect_run 0 pipx install "$repaired"
works "pipx install" "$PIPX_BIN_DIR/wheelmatrix"
cmp -s "$ROOT/docs/wheelmatrix.1" "$PIPX_MAN_DIR/man1/wheelmatrix.1" || fail "pipx install: no manual page in PIPX_MAN_DIR/man1"

finish
