#!/usr/bin/env bash
# t-git-paths.sh — a name that git refuses under core.protectHFS and core.protectNTFS (what macOS or
# Windows reads as .git, or as .gitmodules) is refused in every path the tool writes or reads below the
# repository: a matrix key's at its position with exit 2, a file of the project when it is read, a
# symbolic link's target; nothing is written.  The names git accepts beside them are written.  Each
# name's verdict is git's own: git update-index with both protections on.
. "$ROOT/tests/kit/lib.sh"

scratch_repo "$tmp/proof"
python3 - "$WM" "$tmp" <<'PY' || fail "the table of names (above)"
import os, subprocess, sys, unicodedata
wm, tmp = sys.argv[1], sys.argv[2]
proof = os.path.join(tmp, "proof")
blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=proof, input=b"", capture_output=True,
                      check=True).stdout.strip()
ZWNJ, ZWJ, LRM, RLM, LRE, RLO, ISS, NODS, BOM = ("\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202e",
                                                "\u206a", "\u206f", "\ufeff")
# (name, what git reads it as): "git" for .git, "gitmodules" for .gitmodules (which git refuses
# for a symbolic link), None for a name git accepts
names = [
    (".git", "git"), (".GIT", "git"), (".Git", "git"),
    (".g" + ZWNJ + "it", "git"), (".g" + ZWJ + "it", "git"), (".gi" + LRM + "t", "git"), (".git" + RLM, "git"),
    (ZWNJ + ".git", "git"), (".g" + LRE + "it", "git"), (".g" + ISS + "it", "git"), (".g" + NODS + "it", "git"),
    (".g" + BOM + "it", "git"), (".G" + ZWNJ + "I" + BOM + "T", "git"),
    (".git.", "git"), (".git ", "git"), (".git. .", "git"), (".GIT..", "git"),
    (".git:", "git"), (".git::$INDEX_ALLOCATION", "git"), (".git:stream", "git"),
    ("git~1", "git"), ("GIT~1", "git"), ("git~1.", "git"), ("git~1 ", "git"), ("git~1::$DATA", "git"),
    (".gitmodules", "gitmodules"), (".GITMODULES", "gitmodules"), (".gitmodules.", "gitmodules"),
    (".gitmodules ", "gitmodules"), (".gitmodules::$DATA", "gitmodules"), (".g" + ZWNJ + "itmodules", "gitmodules"),
    ("gitmod~1", "gitmodules"), ("GITMOD~4", "gitmodules"), ("gi7eba~1", "gitmodules"), ("gi7eb~12", "gitmodules"),
    ("~1234567", "gitmodules"),
    (".github", None), (".gitlab-ci.yml", None), (".gitx", None), (".gitignore", None), (".git.foo", None),
    (".git-hooks", None), ("x.git", None), ("git", None), ("git~2", None), ("git~1x", None), (".gitmodulesx", None),
    ("gitmod~5", None), ("~123456x", None), (".g" + ZWNJ + "it.x", None), (".\u200bgit", None),
    (".g\u00efit", None),
]
why = {
    "git": ["nothing is written into '.git'"],
    "gitmodules": ["git reads a name as '.gitmodules' (also on macOS or Windows): nothing is written over git's "
                   "list of submodules"],
}
why["git"] += ["macOS reads a name as '.git' (HFS+ ignores U+200C to U+200F, U+202A to U+202E, U+206A to U+206F "
               "and U+FEFF): nothing is written into '.git'",
               "Windows reads a name as '.git' (NTFS drops trailing dots and spaces, takes 'git~1' for its short "
               "name and ':' for a stream): nothing is written into '.git'",
               # the reader refuses a bidirectional control in any string before the path is read as one
               "a string cannot contain the bidirectional control U+202A: it makes the text show other than it reads"]
failures = []

def git_takes(path, mode):
    r = subprocess.run([b"git", b"-c", b"core.protectHFS=true", b"-c", b"core.protectNTFS=true", b"update-index",
                        b"--add", b"--cacheinfo", b"%s,%s,%s" % (mode, blob, path)], cwd=proof, capture_output=True)
    subprocess.run([b"git", b"update-index", b"--force-remove", b"--", path], cwd=proof, capture_output=True)
    return r.returncode == 0

for i, (name, reads_as) in enumerate(names):
    # a name git reads as .git is a directory on the way to the file; one it reads as .gitmodules, the file
    path = (name if reads_as == "gitmodules" else name + "/w.yml").encode()
    shown = ascii(name)
    # git's verdict: .gitmodules-like names are refused for a link (mode 120000), .git-like ones always
    refused_by_git = not git_takes(path, b"120000" if reads_as == "gitmodules" else b"100644")
    if refused_by_git != (reads_as is not None) or (reads_as is None and not git_takes(path, b"120000")):
        failures.append("%s: git %s it" % (shown, "refuses" if refused_by_git else "takes"))
    repo = os.path.join(tmp, "r%d" % i)
    os.makedirs(repo)
    subprocess.run(["git", "init", "-q", repo], check=True)
    with open(os.path.join(repo, "wheelmatrix.yaml"), "wb") as f:
        f.write(b'wheelmatrix: 1\nproject: {name: x}\nbackends:\n  cpu: {default: true}\nci:\n  github:\n'
                b'    path: "%s"\n' % path)
    r = subprocess.run([wm, "-C", repo, "generate"], capture_output=True)
    top = os.fsencode(repo)
    written = sorted(os.path.relpath(os.path.join(d, f), top) for d, dirs, files in os.walk(top)
                     if b".git" not in os.path.relpath(d, top).split(b"/") for f in files)
    err = r.stderr.decode("utf-8", "replace").splitlines()
    # a name git takes that holds a hidden character or '$' is refused by the path grammar all the same
    hidden = "$" in name or any(unicodedata.category(c) in ("Cc", "Cf") or c in "\u2028\u2029" for c in name)
    if reads_as is None and hidden:
        if r.returncode != 2 or written != [b"wheelmatrix.yaml"] or "control or format character" not in r.stderr.decode():
            failures.append("%s: exit %d, wrote %r: %s" % (shown, r.returncode, written, r.stderr))
        continue
    if reads_as is None:
        if r.returncode != 0 or path not in written:
            failures.append("%s: exit %d, wrote %r: %s" % (shown, r.returncode, written, r.stderr))
        continue
    first = err[0] if err else ""
    head = "wheelmatrix.yaml:7:11: error: "
    ok = r.returncode == 2 and first.startswith(head) and (
        any(first.endswith("': " + w) and first.startswith(head + "invalid path '") for w in why[reads_as]) or
        first[len(head):] in why[reads_as])
    if not ok:
        failures.append("%s: exit %d: %s" % (shown, r.returncode, "\n".join(err)))
    if written != [b"wheelmatrix.yaml"]:
        failures.append("%s: written: %r" % (shown, written))
if failures:
    print("FAIL: " + "\nFAIL: ".join(failures))
    sys.exit(1)
PY

# 2. the other keys of paths: ci.gitlab.path is written, project.pyproject read; the same message at each
mkdir -p "$tmp/keys"
printf 'wheelmatrix: 1\nproject:\n  name: x\n  pyproject: "sub/git~1/pyproject.toml"\nbackends:\n  cpu: {default: true}\nci:\n  gitlab: {path: "vendor/.GIT/x.yml"}\n' \
	>"$tmp/keys/wheelmatrix.yaml"
wm -C "$tmp/keys" list
expect_status 2 "project.pyproject and ci.gitlab.path"
grep -qxF "wheelmatrix.yaml:4:14: error: invalid path 'sub/git~1/pyproject.toml': Windows reads a name as '.git' (NTFS drops trailing dots and spaces, takes 'git~1' for its short name and ':' for a stream): nothing is written into '.git'" "$tmp/err" ||
	fail "project.pyproject: $(cat "$tmp/err")"
grep -qxF "wheelmatrix.yaml:8:18: error: invalid path 'vendor/.GIT/x.yml': nothing is written into '.git'" "$tmp/err" ||
	fail "ci.gitlab.path: $(cat "$tmp/err")"

# 3. names that come from the project's files, not the matrix: a file of the package that strategy
# meta carries, read below a directory that macOS reads as .git, or that git's HFS+ rule ends at a
# byte that is not UTF-8 (.git, then 0xff); nothing is written
for dir in $'.g\u200cit' $'.git\xff'; do
	r=$tmp/meta
	rm -rf "$r"
	mkdir -p "$r/leaky/$dir/hooks"
	printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nbackends:\n  cuda: {features: [cublas]}\n  cpu: {default: true}\ndistribution: {strategy: meta}\nci: {}\n' >"$r/wheelmatrix.yaml"
	printf '[package]\nname = "leaky"\nversion = "1.0.0"\nedition = "2021"\n[lib]\nname = "leaky"\ncrate-type = ["cdylib"]\n[features]\ncublas = []\n' >"$r/Cargo.toml"
	printf '[project]\nname = "leaky"\nversion = "1.0.0"\n' >"$r/pyproject.toml"
	: >"$r/leaky/__init__.py"
	printf 'print("pwned")\n' >"$r/leaky/$dir/hooks/pre-commit.py"
	git -C "$r" init -q
	wm -C "$r" generate
	expect_status 2 "a package file below '$dir'"
	grep -q "^wheelmatrix: error: cannot read 'leaky/.*/hooks/pre-commit.py': .* nothing is written into '.git'$" "$tmp/err" ||
		fail "a package file below '$dir': $(cat "$tmp/err")"
	[[ ! -e $r/.wheelmatrix ]] || fail "a package file below '$dir': generate wrote $(find "$r/.wheelmatrix" -type f)"
done

# 4. a symbolic link inside the repository to a directory that macOS or Windows reads as .git
for target in $'.g\u200cit' 'git~1' '.GIT'; do
	r=$tmp/link
	rm -rf "$r"
	mkdir -p "$r/$target"
	git -C "$r" init -q
	ln -s "$target" "$r/ci"
	printf 'wheelmatrix: 1\nproject: {name: x}\nbackends:\n  cpu: {default: true}\nci:\n  github: {path: ci/w.yml}\n' \
		>"$r/wheelmatrix.yaml"
	wm -C "$r" generate
	expect_status 2 "a link to '$target'"
	expect_err "wheelmatrix: error: cannot write 'ci/w.yml': 'ci' is a symbolic link that leads into '.git'" \
		"a link to '$target'"
	[[ -z $(find "$r/$target" -type f) ]] || fail "a link to '$target': written: $(find "$r/$target" -type f)"
done
finish
