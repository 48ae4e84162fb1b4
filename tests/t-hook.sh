#!/bin/bash
# t-hook.sh — `wheelmatrix hook install`: a real `git commit` is refused while the workflow is stale
# and goes through after `wheelmatrix generate && git add`, and so is a real `git merge` (the
# pre-merge-commit hook); core.hooksPath, linked worktrees, a project in a subdirectory, and a hook
# someone else wrote (kept unless --force, and then neither hook is written).
. "$ROOT/tests/kit/lib.sh"
# the hook runs `wheelmatrix` from PATH, as an installed binary would be found
mkdir "$tmp/bin"
ln -s "$WM" "$tmp/bin/wheelmatrix"
export PATH="$tmp/bin:$PATH"

project() {
	demo_project "$1"
	wheelmatrix -q -C "$1" generate
}

# commit_in DIR EXIT: `git commit` must exit EXIT
commit_in() {
	run git -C "$1" commit -qm change
	expect_status "$2" "git commit in ${1#"$tmp"/}"
}

r=$tmp/repo
project "$r"
scratch_repo "$r"
commit_all "$r"
expect_run 0 wheelmatrix -C "$r" hook install
expect_same - "$tmp/out" "install" <<EOF
wrote $r/.git/hooks/pre-commit
wrote $r/.git/hooks/pre-merge-commit
EOF
for h in pre-commit pre-merge-commit; do
	[ -x "$r/.git/hooks/$h" ] || fail "the $h hook is not executable"
done
expect_run 0 wheelmatrix -C "$r" hook install
expect_same - "$tmp/out" "a second install" <<EOF
unchanged $r/.git/hooks/pre-commit
unchanged $r/.git/hooks/pre-merge-commit
EOF
expect_same - "$r/.git/hooks/pre-merge-commit" "the pre-merge-commit hook" <<'EOF'
#!/bin/sh
# wheelmatrix pre-merge-commit hook: checks what is being committed (written by 'wheelmatrix hook install').
if ! command -v wheelmatrix >/dev/null 2>&1; then
	echo "pre-merge-commit: wheelmatrix is not on PATH: install it ('make install' in its source puts it in /usr/local/bin), or merge without this check: git merge --no-verify" >&2
	exit 1
fi
WHEELMATRIX_HOOK=1 exec wheelmatrix check --staged
EOF

# the matrix changes, the workflow does not: refused, nothing committed
sed -i 's/"3.12"\]/"3.12", "3.13"]/' "$r/wheelmatrix.yaml"
git -C "$r" add wheelmatrix.yaml
head=$(git -C "$r" rev-parse HEAD)
commit_in "$r" 1
grep -q "^.github/workflows/wheels.yml:[0-9]*:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'$" "$tmp/err" ||
	fail "the refused commit says: $(cat "$tmp/err")"
[ "$(git -C "$r" rev-parse HEAD)" = "$head" ] || fail "a stale commit went through"
# regenerated in the working tree but not added: still refused, the index is what is committed
wheelmatrix -q -C "$r" generate
commit_in "$r" 1
# ... and it says that the regenerated file is not staged, with the line that stages it
grep -q "^.github/workflows/wheels.yml:[0-9]*:1: error: out of date in the index, but regenerated in the working tree and not staged: stage it ('git add .github/workflows/wheels.yml')$" "$tmp/err" ||
	fail "the commit refused after generate says: $(cat "$tmp/err")"
grep -q "run 'wheelmatrix generate'" "$tmp/err" && fail "the commit refused after generate says to run generate again: $(cat "$tmp/err")"
wheelmatrix -q -C "$r" generate && git -C "$r" add -A
commit_in "$r" 0
[ "$(git -C "$r" rev-parse HEAD)" != "$head" ] || fail "the fixed commit did not go through"

# a branch whose commit changed the matrix alone (made without the hook): merging it is refused by
# the pre-merge-commit hook, with check's finding, and nothing is merged
mr=$tmp/merge
project "$mr"
scratch_repo "$mr"
commit_all "$mr"
expect_run 0 wheelmatrix -C "$mr" hook install
git -C "$mr" checkout -qb stale
sed -i 's/"3.12"\]/"3.12", "3.10"]/' "$mr/wheelmatrix.yaml"
git -C "$mr" commit -qam "3.10, not generated" --no-verify
git -C "$mr" checkout -q main
git -C "$mr" commit -q --allow-empty -m "main moves on" # so that the merge is a merge commit, not a fast-forward
head=$(git -C "$mr" rev-parse HEAD)
run git -C "$mr" merge --no-edit stale
expect_status 1 "git merge of a stale branch"
grep -q "^.github/workflows/wheels.yml:[0-9]*:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'$" "$tmp/err" ||
	fail "the refused merge says: $(cat "$tmp/err")"
[ "$(git -C "$mr" rev-parse HEAD)" = "$head" ] || fail "a stale merge went through"
git -C "$mr" merge --abort 2>/dev/null || true  # nothing to abort when the merge went through
# the same branch regenerated: the merge goes through
git -C "$mr" checkout -q stale
wheelmatrix -q -C "$mr" generate && git -C "$mr" add -A && git -C "$mr" commit -qm regenerated
git -C "$mr" checkout -q main
run git -C "$mr" merge --no-edit stale
expect_status 0 "git merge of the regenerated branch"
[ "$(git -C "$mr" rev-parse HEAD^2)" = "$(git -C "$mr" rev-parse stale)" ] || fail "the merge commit was not made"

# someone else's hook: kept unless --force
printf '#!/bin/sh\necho mine\n' >"$r/.git/hooks/pre-commit"
expect_run 1 wheelmatrix -C "$r" hook install
grep -qx "wheelmatrix: error: '$r/.git/hooks/pre-commit' is a hook wheelmatrix did not write: not replacing it (use --force, or have it run 'wheelmatrix check --staged')" "$tmp/err" ||
	fail "a foreign hook says: $(cat "$tmp/err")"
grep -qx "echo mine" "$r/.git/hooks/pre-commit" || fail "the foreign hook was changed"
expect_run 0 wheelmatrix -C "$r" hook install --force
grep -q "wheelmatrix check --staged" "$r/.git/hooks/pre-commit" || fail "--force did not replace the hook"
# someone else's pre-merge-commit hook: kept, and the other hook is not written either
rm "$r/.git/hooks/pre-commit"
printf '#!/bin/sh\necho mine\n' >"$r/.git/hooks/pre-merge-commit"
expect_run 1 wheelmatrix -C "$r" hook install
grep -qx "wheelmatrix: error: '$r/.git/hooks/pre-merge-commit' is a hook wheelmatrix did not write: not replacing it (use --force, or have it run 'wheelmatrix check --staged')" "$tmp/err" ||
	fail "a foreign pre-merge-commit hook says: $(cat "$tmp/err")"
[ ! -e "$r/.git/hooks/pre-commit" ] || fail "the pre-commit hook was written beside a foreign pre-merge-commit hook"
grep -qx "echo mine" "$r/.git/hooks/pre-merge-commit" || fail "the foreign pre-merge-commit hook was changed"
expect_run 0 wheelmatrix -C "$r" hook install --force
grep -q "wheelmatrix check --staged" "$r/.git/hooks/pre-merge-commit" || fail "--force did not replace the pre-merge-commit hook"

# core.hooksPath, relative to the top of the working tree
git -C "$r" config core.hooksPath ci/hooks
expect_run 0 wheelmatrix -C "$r" hook install
for h in pre-commit pre-merge-commit; do
	grep -qx "wrote $r/ci/hooks/$h" "$tmp/out" || fail "core.hooksPath, $h: $(cat "$tmp/out")"
done
sed -i 's/"3.13"\]/"3.13", "3.11"]/' "$r/wheelmatrix.yaml"
git -C "$r" add wheelmatrix.yaml
commit_in "$r" 1
git -C "$r" checkout -q HEAD -- wheelmatrix.yaml
git -C "$r" config --unset core.hooksPath

# a linked worktree shares the repository's hooks
git -C "$r" worktree add -q "$tmp/linked" -b linked
rm "$r/.git/hooks/pre-commit"
expect_run 0 wheelmatrix -C "$tmp/linked" hook install
grep -qx "wrote $r/.git/hooks/pre-commit" "$tmp/out" || fail "a linked worktree's hook: $(cat "$tmp/out")"
sed -i 's/"3.13"\]/"3.13", "3.11"]/' "$tmp/linked/wheelmatrix.yaml"
git -C "$tmp/linked" add wheelmatrix.yaml
commit_in "$tmp/linked" 1

# a project in a subdirectory: the hook names its matrix from the top, where git runs it
m=$tmp/mono
project "$m/py/demo"
scratch_repo "$m"
commit_all "$m"
expect_run 0 wheelmatrix -C "$m/py/demo" hook install
for h in pre-commit pre-merge-commit; do
	grep -qx "WHEELMATRIX_HOOK=1 exec wheelmatrix -f 'py/demo/wheelmatrix.yaml' check --staged" "$m/.git/hooks/$h" ||
		fail "the $h hook does not name py/demo/wheelmatrix.yaml: $(cat "$m/.git/hooks/$h")"
done
sed -i 's/"3.12"\]/"3.12", "3.13"]/' "$m/py/demo/wheelmatrix.yaml"
git -C "$m" add -A
commit_in "$m" 1
wheelmatrix -q -C "$m/py/demo" generate && git -C "$m" add -A
commit_in "$m" 0

# the hook outlives the binary: without wheelmatrix on PATH it says how to install it, and refuses
hook=$m/.git/hooks/pre-commit
PATH=/usr/bin:/bin command -v wheelmatrix >/dev/null && fatal "a wheelmatrix in /usr/bin or /bin hides the one tested"
sed -i 's/"3.13"\]/"3.13", "3.11"]/' "$m/py/demo/wheelmatrix.yaml"
git -C "$m" add -A
run env -C "$m" PATH=/usr/bin:/bin "$hook"
expect_status 1 "the hook without wheelmatrix on PATH"
expect_same - "$tmp/err" "the hook without wheelmatrix on PATH" <<'EOF'
pre-commit: wheelmatrix is not on PATH: install it ('make install' in its source puts it in /usr/local/bin), or commit without this check: git commit --no-verify
EOF
head=$(git -C "$m" rev-parse HEAD)
PATH=/usr/bin:/bin run git -C "$m" commit -qm change
expect_status 1 "git commit without wheelmatrix on PATH"
grep -q "^pre-commit: wheelmatrix is not on PATH" "$tmp/err" || fail "git commit without wheelmatrix says: $(cat "$tmp/err")"
[ "$(git -C "$m" rev-parse HEAD)" = "$head" ] || fail "a commit went through unchecked"

# no repository
mkdir "$tmp/plain"
cp "$r/wheelmatrix.yaml" "$tmp/plain/"
expect_run 3 wheelmatrix -C "$tmp/plain" hook install
grep -qx "wheelmatrix: error: not a git repository (or any parent): ." "$tmp/err" || fail "no repository: $(cat "$tmp/err")"
expect_run 2 wheelmatrix -C "$r" hook remove

# the pre-commit framework's hook definition, and the README's local copy of it, say the same
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
"$py" - "$ROOT/.pre-commit-hooks.yaml" "$ROOT/README.md" <<'PY' || fail ".pre-commit-hooks.yaml"
import re, sys, yaml
hooks = {h["id"]: h for h in yaml.safe_load(open(sys.argv[1]))}
assert sorted(hooks) == ["wheelmatrix-check", "wheelmatrix-check-python"], sorted(hooks)
want = {"id": "wheelmatrix-check", "language": "system", "pass_filenames": False, "always_run": True,
        "entry": "wheelmatrix check --staged"}
hook = hooks["wheelmatrix-check"]
assert all(hook[k] == v for k, v in want.items()), hook
# the one pre-commit builds itself runs the same check
python = hooks["wheelmatrix-check-python"]
assert all(python[k] == (v if k not in ("id", "language") else python[k]) for k, v in want.items()), python
assert python["language"] == "python", python
blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", open(sys.argv[2]).read(), re.S)]
local = [h for b in blocks if isinstance(b, dict) and "repos" in b for r in b["repos"] for h in r["hooks"]]
assert local and all(local[0][k] == hook[k] for k in want), local
PY

finish
