#!/bin/bash
# t-patch-command.sh — `wheelmatrix patch` on the real llm-rs project (its sdist from PyPI): it applies each variant as
# `git apply` does, reverts it to the committed bytes, refuses (exit 1, nothing changed) a pyproject.toml
# that changed since the patches were generated, and works in clones with core.autocrlf=true, on a
# file committed with LF (checked out with CRLF) and on one committed with CRLF.
. "$ROOT/tests/kit/lib.sh"
# llm-rs 0.2.15's sdist, from the corpus of tests/tools/corpus.txt (`make testdata` installs it)
testdata corpus/llm-rs-0.2.15/pyproject.toml
corpus=$data/corpus/llm-rs-0.2.15

# The project with its generated patches, committed: the base every case starts from.
repo=$tmp/repo
mkdir -p "$repo"
cp "$corpus/pyproject.toml" "$corpus/Cargo.toml" "$repo/"
cp "$ROOT/matrices/llm-rs.yaml" "$repo/wheelmatrix.yaml"
"$WM" -q -C "$repo" generate
scratch_repo "$repo"
commit_all "$repo"
cp "$repo/pyproject.toml" "$tmp/base.toml"
chmod 640 "$repo/pyproject.toml"

# wm_in DIR EXPECTED-EXIT ARGS...: the exit status must be EXPECTED-EXIT; output in $tmp/out, $tmp/err
wm_in() {
	local dir=$1 want=$2
	shift 2
	wm -C "$dir" "$@"
	expect_status "$want" "$* in $dir"
}

unchanged() {  # the working tree's pyproject.toml is the committed one, byte for byte
	cmp -s "$1/pyproject.toml" "$2" || fail "$3: pyproject.toml changed"
}

for backend in cuda opencl metal; do
	patch=.wheelmatrix/patches/$backend.patch
	# what git apply makes of the patch, in a clone of its own
	ref=$tmp/ref-$backend
	git clone -q "$repo" "$ref"
	git -C "$ref" apply "$patch"

	wm_in "$repo" 0 patch --dry-run "$backend"
	grep -qx "would apply $patch to pyproject.toml" "$tmp/out" || fail "$backend: --dry-run says: $(cat "$tmp/out")"
	unchanged "$repo" "$tmp/base.toml" "$backend --dry-run"

	wm_in "$repo" 0 patch "$backend"
	grep -qx "applied $patch to pyproject.toml" "$tmp/out" || fail "$backend: patch says: $(cat "$tmp/out")"
	cmp -s "$repo/pyproject.toml" "$ref/pyproject.toml" || fail "$backend: the patched file is not what git apply makes"
	[ "$(stat -c %a "$repo/pyproject.toml")" = 640 ] || fail "$backend: the file's mode changed"
	for f in "$repo"/.*.tmp*; do
		[ ! -e "$f" ] || fail "$backend: a temporary file was left behind: $f"
	done

	wm_in "$repo" 0 patch "$backend"
	grep -qx "pyproject.toml already has $patch applied" "$tmp/out" || fail "$backend: a second patch says: $(cat "$tmp/out")"

	# another backend on top of this one: refused, nothing changed
	other=cuda
	[ "$backend" != cuda ] || other=metal
	cp "$repo/pyproject.toml" "$tmp/applied.toml"
	wm_in "$repo" 1 patch "$other"
	grep -qF "error: pyproject.toml has the patch of backend '$backend' applied: nothing was changed (undo it first with 'wheelmatrix patch --revert $backend')" "$tmp/err" ||
		fail "$other over $backend says: $(cat "$tmp/err")"
	unchanged "$repo" "$tmp/applied.toml" "$other over $backend"
	# the default backend builds the base file, which is not what the working tree holds now
	wm_in "$repo" 1 patch cpu
	unchanged "$repo" "$tmp/applied.toml" "cpu over $backend"

	# generate works from the file without the local patch: nothing to regenerate
	wm_in "$repo" 0 generate --check

	wm_in "$repo" 0 patch --revert "$backend"
	grep -qx "reverted $patch from pyproject.toml" "$tmp/out" || fail "$backend: --revert says: $(cat "$tmp/out")"
	unchanged "$repo" "$tmp/base.toml" "$backend --revert"
	wm_in "$repo" 0 patch --revert "$backend"
	grep -qx "pyproject.toml does not have $patch applied: nothing to revert" "$tmp/out" ||
		fail "$backend: a second --revert says: $(cat "$tmp/out")"
done

wm_in "$repo" 0 patch cpu
grep -qx "backend 'cpu' builds pyproject.toml as it is: it has no patch" "$tmp/out" || fail "cpu says: $(cat "$tmp/out")"
wm_in "$repo" 2 patch cdua
grep -qx "wheelmatrix: error: unknown backend 'cdua' (did you mean 'cuda'?): wheelmatrix.yaml has backends 'cuda', 'opencl', 'metal' and 'cpu'" "$tmp/err" || fail "cdua says: $(cat "$tmp/err")"

# pyproject.toml edited since generate: refused with the way out, nothing changed
printf '\n# a local note\n' >>"$repo/pyproject.toml"
cp "$repo/pyproject.toml" "$tmp/edited.toml"
wm_in "$repo" 1 patch cuda
grep -q "error: pyproject.toml changed since '.wheelmatrix/patches/cuda.patch' was generated (blob [0-9a-f]\{12\}, the patch expects [0-9a-f]\{12\}): nothing was changed; regenerate the patches with 'wheelmatrix generate'" "$tmp/err" ||
	fail "an edited pyproject.toml says: $(cat "$tmp/err")"
unchanged "$repo" "$tmp/edited.toml" "edited pyproject.toml"
git -C "$repo" checkout -q -- pyproject.toml

# a patch whose hunks were edited by hand (the index line kept): refused, nothing changed
sed -i 's/^+name = "llm-rs-cuda"/+name = "llm-rs-gpu"/' "$repo/.wheelmatrix/patches/cuda.patch"
wm_in "$repo" 1 patch cuda
grep -q "^.wheelmatrix/patches/cuda.patch: error: not the patch the matrix makes for backend 'cuda' (it was edited, or the matrix or pyproject.toml changed since it was generated): nothing was changed" "$tmp/err" ||
	fail "an edited patch says: $(cat "$tmp/err")"
unchanged "$repo" "$tmp/base.toml" "edited patch"
git -C "$repo" checkout -q -- .wheelmatrix

# no patch file for a backend that needs one
rm "$repo/.wheelmatrix/patches/opencl.patch"
wm_in "$repo" 1 patch opencl
grep -qx "wheelmatrix: error: '.wheelmatrix/patches/opencl.patch' does not exist: write it with 'wheelmatrix generate'" "$tmp/err" ||
	fail "a missing patch says: $(cat "$tmp/err")"
git -C "$repo" checkout -q -- .wheelmatrix

# A clone with core.autocrlf=true checks pyproject.toml out with CRLF; the patches were made from the
# LF blob.  patch compares and applies as git stores the file, and writes CRLF back, as git apply does.
crlf=$tmp/crlf
git clone -q -c core.autocrlf=true "$repo" "$crlf"
grep -q $'\r$' "$crlf/pyproject.toml" || fail "the autocrlf clone has no CRLF: the case proves nothing"
cp "$crlf/pyproject.toml" "$tmp/crlf-base.toml"
for backend in cuda metal; do
	ref=$tmp/crlf-ref-$backend
	git clone -q -c core.autocrlf=true "$repo" "$ref"
	git -C "$ref" apply ".wheelmatrix/patches/$backend.patch"
	wm_in "$crlf" 0 patch "$backend"
	cmp -s "$crlf/pyproject.toml" "$ref/pyproject.toml" || fail "autocrlf $backend: not what git apply makes there"
	[ "$(grep -c $'\r$' "$crlf/pyproject.toml")" = "$(wc -l <"$crlf/pyproject.toml")" ] ||
		fail "autocrlf $backend: not every line ends with CRLF"
	wm_in "$crlf" 0 patch --revert "$backend"
	unchanged "$crlf" "$tmp/crlf-base.toml" "autocrlf $backend --revert"
done

# A pyproject.toml committed with CRLF (tests/patches/crlf) stays CRLF in a core.autocrlf=true clone:
# there both git apply and patch make exactly the golden expected.toml of that case.
case=$ROOT/tests/patches/crlf
src=$tmp/crlf-src
mkdir -p "$src"
cp "$case/pyproject.toml" "$src/"
printf '[package]\nname = "llm-rs"\nversion = "0.1.0"\n\n[features]\ncublas = []\n' >"$src/Cargo.toml"
printf 'wheelmatrix: 1\nplatforms: [linux-x86_64]\nbackends:\n  cuda:\n    features: [cublas]\n    dependencies: [nvidia-cublas-cu12]\n  cpu:\n    default: true\n' >"$src/wheelmatrix.yaml"
"$WM" -q -C "$src" generate
scratch_repo "$src"
commit_all "$src"
for how in git-apply patch; do
	clone=$tmp/crlf-$how
	git clone -q -c core.autocrlf=true "$src" "$clone"
	cmp -s "$clone/pyproject.toml" "$case/pyproject.toml" || fail "the CRLF file changed on checkout"
	if [ "$how" = git-apply ]; then
		git -C "$clone" apply .wheelmatrix/patches/cuda.patch || fail "git apply refused the CRLF patch"
	else
		wm_in "$clone" 0 patch cuda
	fi
	cmp -s "$clone/pyproject.toml" "$case/expected.toml" || fail "CRLF in an autocrlf clone, $how: not expected.toml"
done
wm_in "$tmp/crlf-patch" 0 patch --revert cuda
cmp -s "$tmp/crlf-patch/pyproject.toml" "$case/pyproject.toml" || fail "CRLF in an autocrlf clone: --revert"

# Outside any git repository the file's bytes are compared as they are.
plain=$tmp/plain
mkdir "$plain"
cp -r "$repo/pyproject.toml" "$repo/Cargo.toml" "$repo/wheelmatrix.yaml" "$repo/.wheelmatrix" "$plain/"
wm_in "$plain" 0 patch cuda
cmp -s "$plain/pyproject.toml" "$tmp/ref-cuda/pyproject.toml" || fail "outside a repository: not what git apply makes"
wm_in "$plain" 0 patch --revert cuda
unchanged "$plain" "$tmp/base.toml" "outside a repository, --revert"

finish
