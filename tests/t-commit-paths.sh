#!/usr/bin/env bash
# t-commit-paths.sh — every way real git makes a commit that the pre-commit hook never sees is caught by a guard: `git merge` by the pre-merge-commit hook (and, with --no-verify, by the CI job), `git cherry-pick`, `git revert`, `git rebase` and `git am` by the generated drift-check job, run for real on the commit they made.
#
# One repository, the demo project with both CI files generated and committed, and `wheelmatrix hook
# install`'s hooks (with wheelmatrix on PATH, as an installed one is found). A commit drifts when its
# matrix changed and its CI files were not regenerated: such a commit comes from somewhere no hook ran
# (another clone, a web edit: here, `git commit --no-verify` on a branch). Each operation below runs
# with the hooks in place, on a branch of its own from main; a plain `git commit` of the same change is
# refused first, so the hooks are live. The CI job is the GitHub workflow's wheelmatrix-check replayed
# (tests/kit/check-job.sh: wheelmatrix's own wheel from a loopback index, a clone of depth 1 at the commit),
# and for the rebase also the GitLab job under gitlab-ci-local.
# heavy: builds wheelmatrix's own wheel (tests/kit/check-job.sh sources tests/kit/wheel-env.sh)
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/check-job.sh
. "$ROOT/tests/kit/check-job.sh"
check_job_index
mkdir "$tmp/bin"
ln -s "$WM" "$tmp/bin/wheelmatrix"
export PATH="$tmp/bin:$PATH"
# git's editor, for the commits that would open one
export GIT_EDITOR=true

r=$tmp/repo
demo_project "$r"
sed -i '/^ci:$/,$d' "$r/wheelmatrix.yaml"
printf 'ci:\n  github: {}\n  gitlab: {}\n' >>"$r/wheelmatrix.yaml"
wheelmatrix -q -C "$r" generate || fatal "generate"
scratch_repo "$r"
commit_all "$r" "generated"
wheelmatrix -q -C "$r" hook install || fatal "hook install"
finding="^\.github/workflows/wheels\.yml:[0-9]*:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'$"

# on BRANCH: the matrix gains Python VERSION, not regenerated, committed without the hooks
drift_commit() {  # drift_commit BRANCH VERSION [BASE]
	git -C "$r" checkout -q -b "$1" "${3:-main}"
	sed -i "s/\"3.12\"\\]/\"3.12\", \"$2\"]/" "$r/wheelmatrix.yaml"
	git -C "$r" commit -qam "Python $2, not generated" --no-verify
}
# an unrelated commit on BRANCH (a README), so that what comes next is not a fast-forward
unrelated_commit() {  # unrelated_commit BRANCH NAME
	git -C "$r" checkout -q -B "$1" main
	echo "$2" >"$r/$2.txt"
	git -C "$r" add "$2.txt"
	git -C "$r" commit -qm "$2"
}
# caught_by_ci WHAT: the CI job, replayed on HEAD, fails at its check with the finding
caught_by_ci() {
	github_check "$r" "$(git -C "$r" rev-parse HEAD)"
	if [[ $status == 0 ]]; then
		fail "$1: the CI job passed the commit"
	elif ! grep -q "$finding" "$tmp/err" || ! grep -q "^replay-github.py: step 3 (Check the CI files and patches against the matrix) failed$" "$tmp/err"; then
		fail "$1: the CI job failed otherwise than at its check: $(tail -n 5 "$tmp/err")"
	fi
}
# hook_skipped WHAT BEFORE: the operation made a commit on top of BEFORE, and it drifts
hook_skipped() {
	local head
	head=$(git -C "$r" rev-parse HEAD)
	[ "$head" != "$2" ] || fail "$1: no commit was made"
	git -C "$r" diff --quiet HEAD || fail "$1: left changes behind"
	run wheelmatrix -C "$r" check --rev HEAD
	expect_status 1 "$1: check --rev HEAD (the commit drifts)"
}

# the hooks are live: the drift committed with `git commit` is refused
git -C "$r" checkout -q -b live main
sed -i 's/"3.12"\]/"3.12", "3.9"]/' "$r/wheelmatrix.yaml"
run git -C "$r" commit -qam "Python 3.9"
expect_status 1 "git commit of a drift, hooks installed"
grep -q "$finding" "$tmp/err" || fail "git commit: the hook's finding: $(cat "$tmp/err")"
git -C "$r" checkout -q -f main

# git merge: refused by the pre-merge-commit hook; --no-verify makes it, and the CI job catches it
drift_commit merged 3.13
unrelated_commit merge-target merge
before=$(git -C "$r" rev-parse HEAD)
run git -C "$r" merge --no-edit merged
expect_status 1 "git merge of a drifting branch"
grep -q "$finding" "$tmp/err" || fail "git merge: the pre-merge-commit hook's finding: $(cat "$tmp/err")"
[ "$(git -C "$r" rev-parse HEAD)" = "$before" ] || fail "git merge: the merge commit was made"
git -C "$r" merge --abort 2>/dev/null || true  # nothing to abort when the merge went through
run git -C "$r" merge --no-edit --no-verify merged
expect_status 0 "git merge --no-verify"
[ "$(git -C "$r" rev-parse HEAD^2)" = "$(git -C "$r" rev-parse merged)" ] || fail "git merge --no-verify made no merge commit"
hook_skipped "git merge --no-verify" "$before"
caught_by_ci "git merge --no-verify"
# a fast-forward makes no commit and runs no hook: the CI job sees the branch's commit
git -C "$r" checkout -q -B fast-forward main
run git -C "$r" merge --ff-only merged
expect_status 0 "git merge --ff-only"
[ "$(git -C "$r" rev-parse HEAD)" = "$(git -C "$r" rev-parse merged)" ] || fail "git merge --ff-only did not fast-forward"
caught_by_ci "git merge --ff-only"

# git cherry-pick
drift_commit picked 3.11
unrelated_commit pick-target pick
before=$(git -C "$r" rev-parse HEAD)
run git -C "$r" cherry-pick picked
expect_status 0 "git cherry-pick"
hook_skipped "git cherry-pick" "$before"
caught_by_ci "git cherry-pick"

# git revert: the commit that regenerated the CI files after a drift, reverted
git -C "$r" checkout -q -B reverted main
sed -i 's/"3.12"\]/"3.12", "3.10"]/' "$r/wheelmatrix.yaml"
git -C "$r" commit -qam "Python 3.10, not generated" --no-verify
wheelmatrix -q -C "$r" generate && git -C "$r" add -A
run git -C "$r" commit -qm "regenerated"
expect_status 0 "the regenerating commit (hooks on)"
before=$(git -C "$r" rev-parse HEAD)
run git -C "$r" revert --no-edit HEAD
expect_status 0 "git revert"
hook_skipped "git revert" "$before"
caught_by_ci "git revert"

# git rebase: a drifting branch replayed onto main, which moved on
drift_commit rebased 3.14
unrelated_commit rebase-base rebase
git -C "$r" checkout -q rebased
before=$(git -C "$r" rev-parse rebase-base)
run git -C "$r" rebase rebase-base
expect_status 0 "git rebase"
[ "$(git -C "$r" rev-parse HEAD^)" = "$before" ] || fail "git rebase did not put the commit on rebase-base"
hook_skipped "git rebase" "$before"
caught_by_ci "git rebase"
gitlab_check "$r"
if [[ $status == 0 ]]; then
	fail "git rebase: the GitLab job passed the commit"
else
	grep -q "^wheelmatrix-check .*\.github/workflows/wheels\.yml:[0-9]*:1: error: out of date" "$tmp/out" "$tmp/err" ||
		fail "git rebase: the GitLab job's finding: $(grep '^wheelmatrix-check' "$tmp/out" "$tmp/err" | tail -n 5)"
fi

# git am: a drifting commit sent as a patch
drift_commit mailed 3.8
git -C "$r" format-patch -q -1 -o "$tmp/patches" mailed
unrelated_commit am-target am
before=$(git -C "$r" rev-parse HEAD)
run git -C "$r" am "$tmp"/patches/*.patch
expect_status 0 "git am"
hook_skipped "git am" "$before"
caught_by_ci "git am"
finish
