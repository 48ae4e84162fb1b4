#!/bin/bash
# t-meta-symlink.sh — strategy meta copies nothing from outside the repository: a package directory, a
# stub or maturin's python-source that is a symbolic link leading out of it (or into .git) is refused
# with exit 2, a message naming the path, and no file written; a link inside the package is left out;
# a link that stays inside the repository is followed.
. "$ROOT/tests/kit/lib.sh"

out=$tmp/outside
mkdir -p "$out/pkgdir"
printf 'TOKEN = "SECRET-9f2c"\n' >"$out/secrets.pyi"
printf 'TOKEN = "SECRET-9f2c"\n' >"$out/pkgdir/__init__.py"

project() {  # project DIR: a meta matrix over the crate `leaky` (the layout is up to the caller)
	mkdir -p "$1"
	cat >"$1/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
python: {versions: ["3.12"]}
platforms: [linux-x86_64]
backends:
  cuda: {features: [cublas]}
  cpu: {default: true}
distribution: {strategy: meta}
ci: {}
YAML
	printf '[package]\nname = "leaky"\nversion = "1.0.0"\nedition = "2021"\n[lib]\nname = "leaky"\ncrate-type = ["cdylib"]\n[features]\ncublas = []\n' >"$1/Cargo.toml"
	printf '[project]\nname = "leaky"\nversion = "1.0.0"\n' >"$1/pyproject.toml"
	git -C "$1" init -q
}

refused() {  # refused DIR WHAT MESSAGE
	wm -C "$1" generate
	expect_status 2 "$2"
	grep -qxF "$3" "$tmp/err" || fail "$2: stderr is not '$3': $(cat "$tmp/err")"
	[ -e "$1/.wheelmatrix" ] && fail "$2: generate wrote $(find "$1/.wheelmatrix" -type f | head -3)"
	# grep -r follows no symbolic link below the repository: what it finds was written there
	grep -rl --exclude-dir=.git 'SECRET-9f2c' "$1" "$tmp/out" "$tmp/err" && fail "$2: the secret is in the repository or the output"
	return 0
}

# 1. mixed layout: the package directory is a link to a directory outside
r=$tmp/dir
project "$r"
ln -s "$out/pkgdir" "$r/leaky"
refused "$r" "package directory -> outside" \
	"wheelmatrix: error: cannot read 'leaky': 'leaky' is a symbolic link that leads outside the repository"

# 2. pure layout: the stub leaky.pyi is a link to a file outside
r=$tmp/stub
project "$r"
ln -s "$out/secrets.pyi" "$r/leaky.pyi"
refused "$r" "stub -> outside" \
	"wheelmatrix: error: cannot read 'leaky.pyi': 'leaky.pyi' is a symbolic link that leads outside the repository"

# 3. a relative link climbing out of the repository is the same
r=$tmp/relative
project "$r"
ln -s ../outside/secrets.pyi "$r/leaky.pyi"
refused "$r" "stub -> ../outside" \
	"wheelmatrix: error: cannot read 'leaky.pyi': 'leaky.pyi' is a symbolic link that leads outside the repository"

# 4. maturin's python-source is a link out: the package below it is refused at the link
r=$tmp/pysrc
project "$r"
printf '[tool.maturin]\npython-source = "python"\n' >>"$r/pyproject.toml"
mkdir -p "$out/python"
ln -s "$out/pkgdir" "$out/python/leaky"
ln -s "$out/python" "$r/python"
refused "$r" "python-source -> outside" \
	"wheelmatrix: error: cannot read 'python/leaky': 'python' is a symbolic link that leads outside the repository"

# 5. a stub that leads into .git is refused as generate refuses to write there
r=$tmp/git
project "$r"
printf 'SECRET-9f2c = 1\n' >>"$r/.git/config"
ln -s .git/config "$r/leaky.pyi"
refused "$r" "stub -> .git/config" \
	"wheelmatrix: error: cannot read 'leaky.pyi': 'leaky.pyi' is a symbolic link that leads into '.git'"

# 6. inside a real package, a link (out or in) is left out: the meta package carries regular files
r=$tmp/inner
project "$r"
mkdir -p "$r/leaky"
printf 'from .leaky import *\n' >"$r/leaky/__init__.py"
ln -s "$out/secrets.pyi" "$r/leaky/secrets.pyi"
ln -s __init__.py "$r/leaky/alias.py"
wm -C "$r" generate
expect_status 0 "links inside the package"
[ -f "$r/.wheelmatrix/meta/leaky/__init__.py" ] || fail "links inside the package: __init__.py was not carried"
[ -e "$r/.wheelmatrix/meta/leaky/secrets.pyi" ] && fail "links inside the package: the link out was carried"
[ -e "$r/.wheelmatrix/meta/leaky/alias.py" ] && fail "links inside the package: the link in was carried"
grep -rl --exclude-dir=.git 'SECRET-9f2c' "$r" "$tmp/out" "$tmp/err" && fail "links inside the package: the secret is in the repository"

# 7. a link that stays inside the repository is followed: stubs/leaky.pyi becomes the package's stub
r=$tmp/within
project "$r"
mkdir -p "$r/stubs"
printf 'def add(a: int, b: int) -> int: ...\n' >"$r/stubs/leaky.pyi"
ln -s stubs/leaky.pyi "$r/leaky.pyi"
wm -C "$r" generate
expect_status 0 "link inside the repository"
tail -n +4 "$r/.wheelmatrix/meta/leaky/__init__.pyi" 2>/dev/null | cmp -s - "$r/stubs/leaky.pyi" ||
	fail "link inside the repository: the stub was not carried"
finish
