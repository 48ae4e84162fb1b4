#!/bin/bash
# t-generate-diff.sh — what generate would do, without doing it: --dry-run, --check --diff and check --diff,
# whose diffs run from the file as it is to what generate writes (git apply and GNU patch, applied to the
# current files, give the generated ones: new, stale and hand-edited files alike), and --stdout, one
# generated file on stdout.
. "$ROOT/tests/kit/lib.sh"
need patch "apt-get install patch"

# The pure fixture in a git repository, generated and committed.
repo=$tmp/repo
cp -r "$ROOT/tests/fixtures/pure" "$repo"
scratch_repo "$repo"
wf=.github/workflows/wheels.yml gl=.gitlab-ci.yml cuda=.wheelmatrix/patches/cuda.patch
# the workflow's local actions (docs/generate.md, "Two local actions")
actions=(.github/actions/wheelmatrix-build-container/action.yml .github/actions/wheelmatrix-check-version/action.yml)

# snapshot DIR: every file below DIR (.git left out) with its digest, to prove nothing was written
snapshot() {
	(cd "$1" && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
}

# ---- --dry-run --------------------------------------------------------------------------------------
snapshot "$repo" >"$tmp/before"
wm -C "$repo" generate --dry-run
expect_status 0 "generate --dry-run in a new repository"
printf 'would write %s\n' "$cuda" "$wf" "${actions[@]}" "$gl" | expect_same - "$tmp/out" "--dry-run in a new repository"
snapshot "$repo" | expect_same "$tmp/before" - "--dry-run wrote files"

"$WM" -q -C "$repo" generate
commit_all "$repo"
wm -C "$repo" generate -n
expect_status 0 "generate -n when everything is current"
[ ! -s "$tmp/out" ] || fail "-n printed '$(cat "$tmp/out")' for up-to-date files"
wm -C "$repo" -v generate -n
printf 'unchanged %s\n' "$cuda" "$wf" "${actions[@]}" "$gl" | expect_same - "$tmp/out" "-v generate -n"

# make every kind of change: the matrix (both CI files stale), a hand edit (the workflow), a missing patch
sed -i 's/versions: \["3.11", "3.12"\]/versions: ["3.11", "3.12", "3.13"]/' "$repo/wheelmatrix.yaml"
grep -q '"3.13"' "$repo/wheelmatrix.yaml" || fatal "the matrix edit did not take"
"$WM" -q -C "$repo" generate
commit_all "$repo" "3.13"
git -C "$repo" show HEAD~1:"$gl" >"$repo/$gl"
sed -i 's/^name: wheels$/name: wheels (mine)/' "$repo/$wf"
grep -q 'wheels (mine)' "$repo/$wf" || fatal "the workflow edit did not take"
rm "$repo/$cuda"
snapshot "$repo" >"$tmp/before"

wm -C "$repo" generate --dry-run
expect_status 1 "--dry-run with a hand edit"
expect_err "'$wf' was edited by hand since it was generated: not overwriting it" "--dry-run with a hand edit"
[ ! -s "$tmp/out" ] || fail "--dry-run listed files generate would not write: $(cat "$tmp/out")"
wm -C "$repo" generate --dry-run --force
expect_status 0 "--dry-run --force"
printf '%s\n' "would write $cuda" "would overwrite $wf (edited by hand)" "would update $gl" |
	expect_same - "$tmp/out" "--dry-run --force"
snapshot "$repo" | expect_same "$tmp/before" - "--dry-run --force wrote files"

# what generate --force writes, in a copy: the files every diff must turn the current ones into
cp -r "$repo" "$tmp/want"
"$WM" -q -C "$tmp/want" generate --force || fail "generate --force failed"

# applies DIFF WHAT: DIFF applied to copies of the repository by git apply and GNU patch gives the generated files
applies() {
	local tool dir
	for tool in git patch; do
		dir=$tmp/apply-$tool
		rm -rf "$dir"
		cp -r "$repo" "$dir"
		if [ $tool = git ]; then
			git -C "$dir" apply --whitespace=nowarn "$1" 2>"$tmp/apply.err" || { fail "$2: git apply failed: $(cat "$tmp/apply.err")"; continue; }
		else
			patch -d "$dir" -p1 -s -f --no-backup-if-mismatch <"$1" >"$tmp/apply.err" 2>&1 ||
				{ fail "$2: patch failed: $(cat "$tmp/apply.err")"; continue; }
		fi
		for f in "$cuda" "$wf" "$gl"; do
			cmp -s "$tmp/want/$f" "$dir/$f" || fail "$2: $tool makes $f other than generate does: $(diff "$tmp/want/$f" "$dir/$f" | head)"
		done
	done
}

wm -C "$repo" generate --check --diff
expect_status 1 "--check --diff"
printf '%s\n' "$cuda: missing" "$wf: edited by hand" "$gl: out of date" | expect_same - "$tmp/err" "--check --diff: stderr"
cp "$tmp/out" "$tmp/check.diff"
# the direction: `---` is the file as it is, `+++` what generate writes
grep -qx -- '-name: wheels (mine)' "$tmp/check.diff" || fail "--check --diff does not take the hand edit out"
grep -qx -- '+      WM_PYTHON: "3.13"' "$tmp/check.diff" || fail "--check --diff does not add Python 3.13 to the stale file"
grep -q -- '^--- /dev/null$' "$tmp/check.diff" || fail "--check --diff does not create the missing patch"
applies "$tmp/check.diff" "--check --diff"
snapshot "$repo" | expect_same "$tmp/before" - "--check --diff wrote files"

wm -C "$repo" generate --dry-run --diff --force
expect_status 0 "--dry-run --diff --force"
expect_same "$tmp/check.diff" "$tmp/out" "--dry-run --diff: the diff"

# check --diff: the same diffs, the same direction
wm -C "$repo" check --diff
expect_status 1 "check --diff"
expect_same "$tmp/check.diff" "$tmp/out" "check --diff: the diff"
applies "$tmp/out" "check --diff"

# a current file in CRLF is left alone: no diff
cp -r "$tmp/want" "$tmp/crlf"
sed -i 's/$/\r/' "$tmp/crlf/$wf"
wm -C "$tmp/crlf" generate --check --diff
expect_status 0 "--check --diff with a CRLF checkout"
[ ! -s "$tmp/out" ] || fail "--check --diff printed a diff for a current CRLF file"

# ---- --stdout -----------------------------------------------------------------------------------------
for what in github:$wf gitlab:$gl patch:cuda:$cuda "action:wheelmatrix-build-container:${actions[0]}" \
	"action:wheelmatrix-check-version:${actions[1]}"; do
	name=${what%:*} path=${what##*:}
	wm -C "$repo" generate --stdout "$name"
	expect_status 0 "--stdout $name"
	expect_same "$tmp/want/$path" "$tmp/out" "--stdout $name"
done
snapshot "$repo" | expect_same "$tmp/before" - "--stdout wrote files"
wm -C "$repo" generate --stdout patch:cpu
expect_status 2 "--stdout patch:cpu"
expect_err "backend 'cpu' builds pyproject.toml as it is: it has no patch" "--stdout patch:cpu"
wm -C "$repo" generate --stdout patch:cdua
expect_status 2 "--stdout patch:cdua"
expect_err "unknown backend 'cdua' (did you mean 'patch:cuda'?)" "--stdout patch:cdua"
wm -C "$repo" generate --stdout pypi
expect_status 2 "--stdout pypi"
expect_err "invalid value 'pypi' for '--stdout': expected github, gitlab, patch:BACKEND or action:NAME" "--stdout pypi"
wm -C "$repo" generate --stdout action:wheelmatrix-build
expect_status 2 "--stdout action:wheelmatrix-build"
expect_err "the workflow uses no local action 'wheelmatrix-build' ('wheelmatrix completion --outputs' lists those it uses)" \
	"--stdout action:wheelmatrix-build"
sed -i '/gitlab:/d' "$repo/wheelmatrix.yaml"
wm -C "$repo" generate --stdout gitlab
expect_status 2 "--stdout gitlab without ci.gitlab"
expect_err "the matrix writes no GitLab CI file: wheelmatrix.yaml has no ci.gitlab" "--stdout gitlab"

# ---- options that do not go together --------------------------------------------------------------------
for args in "--diff" "--stdout github --check" "--stdout github --force" "--check --dry-run"; do
	# shellcheck disable=SC2086
	wm -C "$repo" generate $args
	expect_status 2 "generate $args"
	[ ! -s "$tmp/out" ] || fail "generate $args printed $(cat "$tmp/out")"
done
finish
