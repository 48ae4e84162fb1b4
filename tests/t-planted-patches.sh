#!/bin/bash
# t-planted-patches.sh — a patch file a pull request plants under .wheelmatrix/patches/ is never read by libgit2, never makes the commands read a pyproject.toml its author wrote, and is an error naming it.
#
# Every command reads pyproject.toml as it is without a local build's patch (`wheelmatrix patch`):
# when its blob is what one of the patches makes, that patch is undone in memory.  A planted one
# used to be read by libgit2 (a binary section with a truncated zlib stream hung every command; a
# NUL byte made its parser read past its buffer) and undone whatever its backend (the default
# backend's, or any name): every command then read the file its author wrote, and `check`'s
# advice, `wheelmatrix patch cpu --revert`, wrote it.  Now only the matrix's own backends' patches
# are read, each checked for the shape generate writes before anything else reads it, applied by
# formats/diff.c alone, and used only when it is the patch the matrix makes of the file it undoes
# to.  The patches here are written by Python's difflib (or by hand), as an author would.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

r=$tmp/repo
demo_project "$r"
"$WM" -q -C "$r" generate
scratch_repo "$r"
commit_all "$r"
cp "$r/pyproject.toml" "$tmp/base.toml"
cp "$r/.github/workflows/wheels.yml" "$tmp/wheels.yml"

# plant BACKEND [EXTRA]: .wheelmatrix/patches/BACKEND.patch, of the shape generate writes, made by
# difflib from a pyproject.toml of the author's (renamed "evil", with a dependency) into the
# committed one, so that its index line names the committed blob as the file it makes; EXTRA is
# `nul`, `esc`, `second`, `large` or `functx` to spoil it one way
plant() {
	"$py" - "$r" "$1" "${2:-}" <<'PY'
import difflib, subprocess, sys
r, backend, extra = sys.argv[1:]
new = open(r + "/pyproject.toml", encoding="utf-8").read()
old = new.replace('name = "demo"', 'name = "evil"').replace('version = "1.0.0"', 'version = "1.0.0"\ndependencies = ["evil-dep"]')
if extra == "nul":
    old = old.replace("evil-dep", "evil\0dep")
elif extra == "esc":
    old = old.replace("evil-dep", "evil\x1b[2Jdep")
def blob(text):
    return subprocess.run(["git", "hash-object", "--stdin"], input=text.encode(), capture_output=True, check=True).stdout.decode().strip()
lines = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/pyproject.toml", "b/pyproject.toml"))
if extra == "functx":
    lines = lines.replace(" @@\n", " @@ [project]\n", 1)
text = "diff --git a/pyproject.toml b/pyproject.toml\nindex %s..%s 100644\n%s" % (blob(old), blob(new), lines)
if extra == "second":
    text += text.replace("pyproject.toml", "setup.py")
if extra == "large":
    text = "#" * (1 << 20) + "\n" + text
with open(r + "/.wheelmatrix/patches/%s.patch" % backend, "w", encoding="utf-8", newline="") as f:
    f.write(text)
PY
}

# refused WHAT STATUS MESSAGE: list, generate, plan --offline, check and `patch --revert cpu` all
# refuse (each within 20 seconds), nothing in the repository changes
refused() {
	local what=$1 want=$2 message=$3 cmd
	for cmd in list generate "check" "patch --revert cpu" "patch cuda"; do
		# shellcheck disable=SC2086
		run timeout 20 "$WM" -C "$r" $cmd
		[[ $status != 124 ]] || { fail "$what: '$cmd' did not finish in 20 seconds"; continue; }
		expect_status "$want" "$what: $cmd"
		expect_err "$message" "$what: $cmd"
		! grep -q -- "--revert" "$tmp/err" || fail "$what: '$cmd' advises a revert: $(cat "$tmp/err")"
	done
	cmp -s "$r/pyproject.toml" "$tmp/base.toml" || fail "$what: pyproject.toml changed: $(diff "$tmp/base.toml" "$r/pyproject.toml")"
	cmp -s "$r/.github/workflows/wheels.yml" "$tmp/wheels.yml" || fail "$what: the workflow changed"
}

clean() {
	git -C "$r" checkout -q -- .
	git -C "$r" clean -qfdx
}

# 1. the default backend's patch, which the matrix does not make: the author's file is not read
plant cpu
refused "a planted patch of the default backend" 2 \
	".wheelmatrix/patches/cpu.patch: error: pyproject.toml is what this patch makes, but no backend of the matrix has it: backend 'cpu' builds pyproject.toml as it is"
clean

# 2. a backend's patch replaced by another: not the patch the matrix makes
plant cuda
refused "a planted patch of backend cuda" 1 \
	".wheelmatrix/patches/cuda.patch: error: pyproject.toml is what this patch makes, but it is not the patch the matrix makes for backend 'cuda'"
clean

# 3. a patch of a name the matrix has no backend of: never read, the committed file is the project
plant evil
wm -C "$r" list --format json
expect_status 0 "a patch of no backend: list"
grep -q '"evil"' "$tmp/out" && fail "a patch of no backend: list read the author's file: $(cat "$tmp/out")"
grep -q '"demo"' "$tmp/out" || fail "a patch of no backend: list does not show the project 'demo': $(cat "$tmp/out")"
git -C "$r" add -A
wm -C "$r" check --staged
expect_status 1 "a patch of no backend: check"
expect_err ".wheelmatrix/patches/evil.patch: error: no backend of the matrix has this patch: there is no backend 'evil'; remove it" \
	"a patch of no backend: check"
clean

# 4. what no reader of ours takes, refused at its line before anything parses it
shape() {  # shape WHAT BACKEND EXTRA LINE WHY
	local message
	message=".wheelmatrix/patches/$2.patch:$4:1: error: not a patch of the shape 'wheelmatrix generate' writes ($5)"
	[[ $4 != 0 ]] || message=".wheelmatrix/patches/$2.patch: error: not a patch of the shape 'wheelmatrix generate' writes ($5)"
	plant "$2" "$3"
	refused "$1" 2 "$message"
	clean
}
shape "a NUL byte in a hunk" cuda nul 12 "a NUL byte"
shape "an escape in a hunk" cpu esc 12 "a control character (U+001B)"
shape "a second file" cuda second 13 "a second file"
shape "more than 1 MiB" cuda large 0 "larger than 1024 KiB"
shape "a hunk header with git's function context" cuda functx 5 "a hunk of another shape, or of more or fewer lines than its header says"

# 5. git's binary patch with a truncated zlib stream, which libgit2's inflate loops on for ever
"$py" - "$r" <<'PY'
import subprocess, sys, zlib
r = sys.argv[1]
A = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
def base85(data):  # git's base85 lines: a length character, then 5 characters per 4 bytes
    out = []
    for i in range(0, len(data), 52):
        chunk = data[i:i + 52]
        line = chr(ord("A") + len(chunk) - 1) if len(chunk) <= 26 else chr(ord("a") + len(chunk) - 27)
        chunk += b"\0" * (-len(chunk) % 4)
        for j in range(0, len(chunk), 4):
            v, s = int.from_bytes(chunk[j:j + 4], "big"), ""
            for _ in range(5):
                s, v = A[v % 85] + s, v // 85
            line += s
        out.append(line)
    return "\n".join(out)
new = open(r + "/pyproject.toml", "rb").read()
old = b'[project]\nname = "evil"\n' * 40
blob = lambda b: subprocess.run(["git", "hash-object", "--stdin"], input=b, capture_output=True, check=True).stdout.decode().strip()
with open(r + "/.wheelmatrix/patches/cpu.patch", "w") as f:
    f.write("diff --git a/pyproject.toml b/pyproject.toml\nindex %s..%s 100644\nGIT binary patch\nliteral %d\n%s\n\nliteral %d\n%s\n\n"
            % (blob(old), blob(new), len(old), base85(zlib.compress(old)[:-12]), len(new), base85(zlib.compress(new))))
PY
refused "a binary patch with a truncated zlib stream" 2 \
	".wheelmatrix/patches/cpu.patch:3:1: error: not a patch of the shape 'wheelmatrix generate' writes (a binary section)"
clean

# 6. the patches wheelmatrix makes still work: applied, read as the project without them, reverted
wm -C "$r" patch cuda
expect_status 0 "patch cuda"
grep -q '^name = "demo-cuda"' "$r/pyproject.toml" || fail "patch cuda did not rename the project"
wm -C "$r" list --format json
expect_status 0 "list with cuda's patch applied"
grep -qF '"distribution":"demo"' "$tmp/out" || fail "list with cuda's patch applied does not read the project 'demo': $(cat "$tmp/out")"
wm -C "$r" patch --revert cuda
expect_status 0 "patch --revert cuda"
cmp -s "$r/pyproject.toml" "$tmp/base.toml" || fail "patch --revert cuda did not give back the committed file"
# and the matrix changed while it is applied: its patch is not the one the matrix makes any more
wm -C "$r" patch cuda
cp "$r/pyproject.toml" "$tmp/patched.toml"
sed -i 's/cuda: {features: \[cublas\]}/cuda: {features: [cublas], dist: demo-gpu}/' "$r/wheelmatrix.yaml"
for cmd in list "patch --revert cuda"; do
	# shellcheck disable=SC2086
	wm -C "$r" $cmd
	expect_status 1 "a patch applied before the matrix changed: $cmd"
	expect_err "it is not the patch the matrix makes for backend 'cuda' (it, the matrix or pyproject.toml changed since it was applied): the file it would undo to is not read; restore pyproject.toml without it by hand" \
		"a patch applied before the matrix changed: $cmd"
done
cmp -s "$r/pyproject.toml" "$tmp/patched.toml" || fail "a patch applied before the matrix changed: pyproject.toml changed"
finish
