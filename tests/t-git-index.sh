#!/bin/bash
# t-git-index.sh — check reads the index with repo/gitindex.c, libgit2 only for what that does not
# handle: its reading (tests/index-dump) is what `git ls-files --stage` prints and what libgit2
# reads, on a generated repository whose entries were replaced, deleted and added, in a conflict, at
# index versions 2, 3 and 4, split (`git update-index --split-index`, which libgit2 1.5 refuses)
# and not; and check, --staged and of the working tree (a CRLF checkout and .gitattributes
# included), says on a split index exactly what it says on the same index unsplit, and what it
# says when libgit2 reads the index (under core.ignorecase, which gitindex.c leaves to libgit2).
. "$ROOT/tests/kit/lib.sh"

dump=${WM%/*}/tests/index-dump
need "$dump" "make check (builds build/tests/index-dump)"

# the index of $1 as read here, as git reads it and (unless it is split) as libgit2 reads it: the same
same_as_git() {  # same_as_git DIR WHAT
	run "$dump" "$1/.git"
	expect_status 0 "$2: index-dump"
	cp "$tmp/out" "$tmp/ours"
	git -C "$1" ls-files --stage >"$tmp/git-ls"
	[[ -s $tmp/git-ls ]] || fail "$2: git ls-files --stage printed nothing"
	expect_same "$tmp/git-ls" "$tmp/ours" "$2: the entries read, against git ls-files --stage"
	if "$dump" --split "$1/.git"; then
		return
	fi
	run "$dump" --libgit2 "$1/.git"
	expect_status 0 "$2: index-dump --libgit2"
	expect_same "$tmp/out" "$tmp/ours" "$2: the entries read, against libgit2's"
}

# check on $1 (its index split), on a copy of it unsplit, and on that copy under core.ignorecase,
# where libgit2 reads the index: the same exit status and JSON.  The copy's files are hard links
# (cp -al, not a copy of every byte ten times): git replaces the index and config it changes
# (a lock file renamed over them), and nothing here writes into a file of the copy.
same_check() {  # same_check DIR WANT-STATUS WHAT ARGS...
	local dir=$1 want=$2 what=$3
	shift 3
	expect_run 0 "$dump" --split "$dir/.git"
	rm -rf "$tmp/unsplit"
	cp -al "$dir" "$tmp/unsplit"
	git -C "$tmp/unsplit" update-index --no-split-index
	expect_run 4 "$dump" --split "$tmp/unsplit/.git"
	same_as_git "$tmp/unsplit" "$what, unsplit"
	git -C "$tmp/unsplit" config core.ignorecase true
	wm -C "$tmp/unsplit" check --format json "$@"
	expect_status "$want" "$what, unsplit, read by libgit2"
	cp "$tmp/out" "$tmp/want.json"
	git -C "$tmp/unsplit" config core.ignorecase false
	wm -C "$tmp/unsplit" check --format json "$@"
	expect_status "$want" "$what, unsplit"
	expect_same "$tmp/want.json" "$tmp/out" "$what: the findings, unsplit, and read by libgit2"
	wm -C "$dir" check --format json "$@"
	expect_status "$want" "$what, split"
	expect_same "$tmp/want.json" "$tmp/out" "$what: the findings, split, and unsplit read by libgit2"
}

# the seed example with 300 more files in 30 directories, committed, its index split
r=$tmp/repo
cp -R "$ROOT/tests/fixtures/llm-rs" "$r"
for ((i = 0; i < 300; i++)); do
	mkdir -p "$r/src/d$((i % 30))"
	printf 'pub fn f%d() {}\n' "$i" >"$r/src/d$((i % 30))/f$i.rs"
done
wm -C "$r" -q generate
expect_status 0 "generate"
scratch_repo "$r"
git -C "$r" config splitIndex.maxPercentChange 100  # changes stay in the split index
commit_all "$r"
# its objects in one pack, not hundreds of loose files: same_check copies the repository ten times
git -C "$r" repack -adq
git -C "$r" update-index --split-index
same_as_git "$r" "split after a commit"
run "$dump" "$tmp/nonexistent/.git"
expect_status 1 "index-dump of no repository"
same_check "$r" 0 "check --staged, nothing changed" --staged
same_check "$r" 0 "check, nothing changed"

# replaced (changed), deleted and added entries
for i in 3 77 150 299; do printf '// changed\n' >>"$r/src/d$((i % 30))/f$i.rs"; done
git -C "$r" rm -q src/d1/f1.rs src/d29/f29.rs
printf 'new\n' >"$r/src/d0/f0a.rs"
printf 'new\n' >"$r/src/aaa.rs"
printf 'new\n' >"$r/zzz.txt"
git -C "$r" add -A
git -C "$r" ls-files --error-unmatch src/aaa.rs >/dev/null 2>&1 || fail "the added file is not staged"
same_as_git "$r" "replaced, deleted and added entries"
same_check "$r" 0 "check --staged after changes" --staged

# a generated file changed and staged: check --staged finds it, split or not
printf '# edited\n' >>"$r/.gitlab-ci.yml"
git -C "$r" add .gitlab-ci.yml
same_as_git "$r" "a generated file staged"
same_check "$r" 1 "check --staged, a generated file edited" --staged
git -C "$r" checkout -q HEAD -- .gitlab-ci.yml
same_check "$r" 0 "check --staged, the edit undone" --staged
git -C "$r" commit -qm changes

# a conflict: stages 1, 2 and 3 in the split index
git -C "$r" checkout -qb other
printf 'other\n' >"$r/zzz.txt"
git -C "$r" commit -qam other
git -C "$r" checkout -q main
printf 'main\n' >"$r/zzz.txt"
git -C "$r" commit -qam main
git -C "$r" merge -q other >/dev/null 2>&1 && fail "the merge did not conflict"
[[ $(git -C "$r" ls-files --stage zzz.txt | wc -l) = 3 ]] || fail "zzz.txt is not in conflict"
same_as_git "$r" "a conflict"
same_check "$r" 0 "check --staged in a conflict" --staged
git -C "$r" merge --abort

# index versions 2, 3 (an intent-to-add entry has extended flags) and 4 (compressed paths)
for v in 2 3 4; do
	git -C "$r" update-index --no-split-index
	git -C "$r" update-index --index-version "$v"
	git -C "$r" update-index --split-index
	printf 'v%d\n' "$v" >>"$r/src/d5/f5.rs"
	git -C "$r" add src/d5/f5.rs
	if ((v == 3)); then
		printf 'intent\n' >"$r/src/intent.rs"
		git -C "$r" add -N src/intent.rs
	fi
	same_as_git "$r" "index version $v"
	same_check "$r" 0 "check --staged at index version $v" --staged
done

# version 4 where an entry drops 127, 128, 129, 300 and 4000 bytes of the path before it (each path
# differs from the one before in its first byte): the strip count's varint is of one byte, then of
# two (git's varint.c, one added per more byte); the paths put in the index directly
v4=$tmp/v4
scratch_repo "$v4"
blob=$(git -C "$v4" hash-object -w --stdin <<<long)
letters=(a b c d e f)
lengths=(127 128 129 300 4000 1)
for i in "${!lengths[@]}"; do
	path=${letters[i]}
	((lengths[i] > 1)) && path+=/$(printf "%$((lengths[i] - 2))s" "" | tr ' ' x)
	git -C "$v4" update-index --add --cacheinfo "100644,$blob,$path"
done
git -C "$v4" update-index --index-version 4
[[ $(git -C "$v4" ls-files | awk '{ printf "%d ", length($0) }') == "${lengths[*]} " ]] ||
	fail "the long paths are not in the index: $(git -C "$v4" ls-files | cut -c1-20)"
same_as_git "$v4" "index version 4, strip counts of one and two bytes"

git -C "$r" rm -q --cached src/intent.rs
rm "$r/src/intent.rs"
git -C "$r" commit -qam versions

# a CRLF checkout (core.autocrlf) and .gitattributes read from the index in memory
printf '*.yml text eol=crlf\n' >"$r/.gitattributes"
git -C "$r" add .gitattributes
git -C "$r" commit -qm attributes
rm "$r/.github/workflows/wheels.yml" "$r/pyproject.toml"
git -C "$r" -c core.autocrlf=true checkout -- .github/workflows/wheels.yml pyproject.toml
grep -q $'\r$' "$r/.github/workflows/wheels.yml" || fail "the workflow was not checked out with CRLF"
git -C "$r" config core.autocrlf true
git -C "$r" update-index --split-index
same_as_git "$r" "CRLF checkout"
same_check "$r" 0 "check of a CRLF working tree"
printf 'x: 1\r\n' >>"$r/.github/workflows/wheels.yml"
same_check "$r" 1 "check of a CRLF working tree, the workflow edited"

# a sparse index (the mandatory extension sdir): left to libgit2, which says why it cannot read it
git -C "$r" update-index --no-split-index
cp -al "$r" "$tmp/sparse"
git -C "$tmp/sparse" sparse-checkout init --cone --sparse-index
git -C "$tmp/sparse" sparse-checkout set src/d1 >/dev/null 2>&1
run "$dump" "$tmp/sparse/.git"
expect_status 3 "index-dump of a sparse index"
wm -C "$tmp/sparse" check --staged
expect_status 3 "check --staged on a sparse index"
expect_err "cannot read the index: unsupported mandatory extension: 'sdir'" "check --staged on a sparse index"

# a shared index that is not the one the split index names: an error
git -C "$r" update-index --split-index
for shared in "$r"/.git/sharedindex.*; do
	chmod u+w "$shared"
	size=$(stat -c %s "$shared")
	printf 'x' | dd of="$shared" bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null
done
wm -C "$r" check --staged
expect_status 3 "check --staged on a changed shared index"
expect_err "its checksum is not the id the index links to" "check --staged on a changed shared index"
finish
