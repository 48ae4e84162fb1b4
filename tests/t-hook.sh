#!/bin/bash
# t-hook.sh — `wheelmatrix hook install`: a real `git commit` is refused while the workflow is stale
# and goes through after `wheelmatrix generate && git add`; core.hooksPath, linked worktrees, a project
# in a subdirectory, and a hook someone else wrote (kept unless --force).
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
# the hook runs `wheelmatrix` from PATH, as an installed binary would be found
mkdir "$tmp/bin"
ln -s "$WM" "$tmp/bin/wheelmatrix"
export PATH="$tmp/bin:$PATH"

# run EXIT ARGS...: wheelmatrix ARGS must exit EXIT; output in $tmp/out, $tmp/err
run() {
	local want=$1 got=0
	shift
	wheelmatrix "$@" >"$tmp/out" 2>"$tmp/err" || got=$?
	[ "$got" = "$want" ] || { no "wheelmatrix $*: exit $got, not $want: $(cat "$tmp/out" "$tmp/err")"; return 1; }
}

project() {
	mkdir -p "$1"
	printf '[build-system]\nrequires = ["maturin>=1.5,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "demo"\nversion = "1.0.0"\n' >"$1/pyproject.toml"
	printf '[package]\nname = "demo"\nversion = "1.0.0"\n\n[lib]\nname = "demo"\n\n[features]\ncublas = []\n' >"$1/Cargo.toml"
	printf 'wheelmatrix: 1\npython:\n  versions: ["3.12"]\nplatforms: [linux-x86_64]\nbackends:\n  cuda: {features: [cublas]}\n  cpu: {default: true}\nci:\n  github: {path: .github/workflows/wheels.yml}\n' >"$1/wheelmatrix.yaml"
	wheelmatrix -q -C "$1" generate
}

# commit_in DIR EXIT: `git commit` must exit EXIT
commit_in() {
	local got=0
	git -C "$1" commit -qm change >"$tmp/out" 2>"$tmp/err" || got=$?
	[ "$got" = "$2" ] || no "git commit in ${1#"$tmp"/}: exit $got, not $2: $(cat "$tmp/err")"
}

r=$tmp/repo
project "$r"
git -C "$r" init -q
git -C "$r" add -A
git -C "$r" commit -qm base
run 0 -C "$r" hook install
grep -qx "wrote $r/.git/hooks/pre-commit" "$tmp/out" || no "install says: $(cat "$tmp/out")"
[ -x "$r/.git/hooks/pre-commit" ] || no "the hook is not executable"
run 0 -C "$r" hook install
grep -qx "unchanged $r/.git/hooks/pre-commit" "$tmp/out" || no "a second install says: $(cat "$tmp/out")"

# the matrix changes, the workflow does not: refused, nothing committed
sed -i 's/"3.12"\]/"3.12", "3.13"]/' "$r/wheelmatrix.yaml"
git -C "$r" add wheelmatrix.yaml
head=$(git -C "$r" rev-parse HEAD)
commit_in "$r" 1
grep -q "^.github/workflows/wheels.yml:[0-9]*:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'$" "$tmp/err" ||
	no "the refused commit says: $(cat "$tmp/err")"
[ "$(git -C "$r" rev-parse HEAD)" = "$head" ] || no "a stale commit went through"
# regenerated in the working tree but not added: still refused, the index is what is committed
wheelmatrix -q -C "$r" generate
commit_in "$r" 1
wheelmatrix -q -C "$r" generate && git -C "$r" add -A
commit_in "$r" 0
[ "$(git -C "$r" rev-parse HEAD)" != "$head" ] || no "the fixed commit did not go through"

# someone else's hook: kept unless --force
printf '#!/bin/sh\necho mine\n' >"$r/.git/hooks/pre-commit"
run 1 -C "$r" hook install
grep -qx "wheelmatrix: error: '$r/.git/hooks/pre-commit' is a hook wheelmatrix did not write: not replacing it (use --force, or have it run 'wheelmatrix check --staged')" "$tmp/err" ||
	no "a foreign hook says: $(cat "$tmp/err")"
grep -qx "echo mine" "$r/.git/hooks/pre-commit" || no "the foreign hook was changed"
run 0 -C "$r" hook install --force
grep -q "wheelmatrix check --staged" "$r/.git/hooks/pre-commit" || no "--force did not replace the hook"

# core.hooksPath, relative to the top of the working tree
git -C "$r" config core.hooksPath ci/hooks
run 0 -C "$r" hook install
grep -qx "wrote $r/ci/hooks/pre-commit" "$tmp/out" || no "core.hooksPath: $(cat "$tmp/out")"
sed -i 's/"3.13"\]/"3.13", "3.11"]/' "$r/wheelmatrix.yaml"
git -C "$r" add wheelmatrix.yaml
commit_in "$r" 1
git -C "$r" checkout -q HEAD -- wheelmatrix.yaml
git -C "$r" config --unset core.hooksPath

# a linked worktree shares the repository's hooks
git -C "$r" worktree add -q "$tmp/linked" -b linked
rm "$r/.git/hooks/pre-commit"
run 0 -C "$tmp/linked" hook install
grep -qx "wrote $r/.git/hooks/pre-commit" "$tmp/out" || no "a linked worktree's hook: $(cat "$tmp/out")"
sed -i 's/"3.13"\]/"3.13", "3.11"]/' "$tmp/linked/wheelmatrix.yaml"
git -C "$tmp/linked" add wheelmatrix.yaml
commit_in "$tmp/linked" 1

# a project in a subdirectory: the hook changes into it
m=$tmp/mono
project "$m/py/demo"
git -C "$m" init -q
git -C "$m" add -A
git -C "$m" commit -qm base
run 0 -C "$m/py/demo" hook install
grep -qx "cd -- 'py/demo/' || exit 1" "$m/.git/hooks/pre-commit" || no "the hook does not change into py/demo"
sed -i 's/"3.12"\]/"3.12", "3.13"]/' "$m/py/demo/wheelmatrix.yaml"
git -C "$m" add -A
commit_in "$m" 1
wheelmatrix -q -C "$m/py/demo" generate && git -C "$m" add -A
commit_in "$m" 0

# no repository
mkdir "$tmp/plain"
run 3 -C "$tmp/plain" hook install
grep -qx "wheelmatrix: error: not a git repository (or any parent): ." "$tmp/err" || no "no repository: $(cat "$tmp/err")"
run 2 -C "$r" hook remove

# the pre-commit framework's hook definition, and the README's local copy of it, say the same
# shellcheck source=tests/python-env.sh
. "$ROOT/tests/python-env.sh"
"$py" - "$ROOT/.pre-commit-hooks.yaml" "$ROOT/README.md" <<'PY' || no ".pre-commit-hooks.yaml"
import re, sys, yaml
(hook,) = yaml.safe_load(open(sys.argv[1]))
want = {"id": "wheelmatrix-check", "language": "system", "pass_filenames": False, "always_run": True,
        "entry": "wheelmatrix check --staged"}
assert all(hook[k] == v for k, v in want.items()), hook
blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", open(sys.argv[2]).read(), re.S)]
local = [h for b in blocks if isinstance(b, dict) and "repos" in b for r in b["repos"] for h in r["hooks"]]
assert local and all(local[0][k] == hook[k] for k in want), local
PY

exit "$fail"
