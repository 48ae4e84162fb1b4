#!/bin/bash
# t-generate.sh — generate: the reviewed workflows, determinism, --check, hand edits, --force, safe writes.
. "$ROOT/tests/kit/lib.sh"
wf=.github/workflows/wheels.yml

# 1. each example matches its reviewed workflow, and a second run writes the same bytes
for example in "$ROOT"/matrices/*.yaml; do
	name=$(basename "$example" .yaml)
	repo=$tmp/$name
	mkdir -p "$repo"
	cp "$example" "$repo/wheelmatrix.yaml"
	expect_run 0 "$WM" -q -C "$repo" generate
	# WM_UPDATE=1 rewrites the reviewed file: read its diff before committing it
	[ "${WM_UPDATE:-}" = 1 ] && cp "$repo/$wf" "$ROOT/tests/expected/github/$name.yml"
	expect_same "$ROOT/tests/expected/github/$name.yml" "$repo/$wf" "$name: the workflow (tests/expected/github/$name.yml)"
	# the local actions it uses, the same files for every matrix (tests/expected/github/actions/)
	for action in "$repo"/.github/actions/*/action.yml; do
		[ -e "$action" ] || continue
		dir=$(basename "$(dirname "$action")")
		[ "${WM_UPDATE:-}" = 1 ] && mkdir -p "$ROOT/tests/expected/github/actions" && cp "$action" "$ROOT/tests/expected/github/actions/$dir.yml"
		expect_same "$ROOT/tests/expected/github/actions/$dir.yml" "$action" "$name: the local action $dir"
	done
	cp "$repo/$wf" "$tmp/$name.yml"
	expect_run 0 "$WM" -q -C "$repo" generate
	cmp -s "$tmp/$name.yml" "$repo/$wf" || fail "$name: a second run wrote different bytes"
	expect_run 0 "$WM" -q -C "$repo" generate --check
	[ -s "$tmp/out" ] && fail "$name: --check printed $(cat "$tmp/out") for an up-to-date file"
done

for action in wheelmatrix-build-container wheelmatrix-check-version; do
	[ -e "$tmp/llm-rs/.github/actions/$action/action.yml" ] || fail "the demo's workflow runs without its local action $action"
done
grep -q 'uses: ./.github/actions/wheelmatrix-build-container$' "$tmp/llm-rs/$wf" ||
	fail "the demo's workflow does not use its container build action"
repo=$tmp/llm-rs
cp "$tmp/llm-rs.yml" "$tmp/first.yml"
# 2. a CRLF checkout is not a hand edit
sed 's/$/\r/' "$repo/$wf" >"$tmp/crlf.yml"
cp "$tmp/crlf.yml" "$repo/$wf"
expect_run 0 "$WM" -q -C "$repo" generate --check
expect_run 0 "$WM" -C "$repo" generate
cmp -s "$tmp/crlf.yml" "$repo/$wf" || fail "an up-to-date CRLF file was rewritten"

# 3. stale: --check reports it and writes nothing; generate rewrites it
cp "$tmp/first.yml" "$repo/$wf"
sed -i 's/cuda: "12.4"/cuda: "12.6"/' "$repo/wheelmatrix.yaml"
expect_run 1 "$WM" -q -C "$repo" generate --check
grep -qx "$wf: out of date" "$tmp/out" || fail "--check said '$(cat "$tmp/out")'"
cmp -s "$tmp/first.yml" "$repo/$wf" || fail "--check wrote the file"
expect_run 0 "$WM" -q -C "$repo" generate
cmp -s "$tmp/first.yml" "$repo/$wf" && fail "a stale file was not rewritten"
grep -q 'cuda-nvcc-12-6' "$repo/$wf" || fail "the rewritten file does not install CUDA 12.6's compiler"

# 4. a hand edit is refused (exit 1, file untouched) unless --force
cp "$repo/$wf" "$tmp/second.yml"
sed -i 's/fail-fast: false/fail-fast: true/' "$repo/$wf"
cp "$repo/$wf" "$tmp/edited.yml"
expect_run 1 "$WM" -q -C "$repo" generate
[ "$(cat "$tmp/err")" = "wheelmatrix: error: '$wf' was edited by hand since it was generated: not overwriting it (move the change into the matrix file, or use --force)" ] ||
	fail "hand edit message: $(cat "$tmp/err")"
cmp -s "$tmp/edited.yml" "$repo/$wf" || fail "the hand-edited file was changed"
expect_run 1 "$WM" -q -C "$repo" generate --check
[ "$(cat "$tmp/out")" = "$wf: edited by hand" ] || fail "--check said '$(cat "$tmp/out")' for a hand edit"
expect_run 0 "$WM" -q -C "$repo" generate --force
cmp -s "$tmp/second.yml" "$repo/$wf" || fail "--force did not restore the generated file"

# 5. a file wheelmatrix did not write is not replaced
printf 'name: mine\n' >"$repo/$wf"
expect_run 1 "$WM" -q -C "$repo" generate
[ "$(cat "$repo/$wf")" = "name: mine" ] || fail "a foreign workflow was overwritten"
grep -q "was not written by wheelmatrix" "$tmp/err" || fail "foreign file message: $(cat "$tmp/err")"
expect_run 0 "$WM" -q -C "$repo" generate --force

# 6. no writes outside the repository: a symlinked directory leading out is refused
out=$tmp/outside
mkdir -p "$out" "$tmp/sym"
cp "$ROOT/matrices/llm-rs.yaml" "$tmp/sym/wheelmatrix.yaml"
ln -s "$out" "$tmp/sym/.github"
expect_run 2 "$WM" -q -C "$tmp/sym" generate
[ -z "$(ls -A "$out")" ] || fail "generate wrote through a symlink out of the repository"
grep -q "symbolic link" "$tmp/err" || fail "symlink message: $(cat "$tmp/err")"

# 7. an invalid matrix writes nothing
mkdir -p "$tmp/bad"
printf 'wheelmatrix: 1\nproject: {name: x}\nplatforms: [linux-x86-64]\n' >"$tmp/bad/wheelmatrix.yaml"
expect_run 2 "$WM" -C "$tmp/bad" generate
[ -e "$tmp/bad/.github" ] && fail "an invalid matrix created files"
[ -s "$tmp/out" ] && fail "an invalid matrix printed to stdout"

# 8. a write that fails (a directory we may not write) is an environment error, exit 3, old file kept
sed -i 's/cuda: "12.6"/cuda: "12.8"/' "$repo/wheelmatrix.yaml"
cp "$repo/$wf" "$tmp/before.yml"
if [ "$(id -u)" = 0 ]; then
	# root writes anywhere: run as nobody, in a tree nobody may read but not write
	need setpriv "make test-deps (apt-get install util-linux), to run as nobody (this runs as root)"
	cp "$WM" "$tmp/wheelmatrix"
	chmod 755 "$tmp" "$tmp/wheelmatrix"
	chmod -R a+rX "$repo"
	expect_run 3 setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/wheelmatrix" -q -C "$repo" generate
else
	chmod a-w "$repo/.github/workflows"
	expect_run 3 "$WM" -q -C "$repo" generate
	chmod u+w "$repo/.github/workflows"
fi
[ "$(cat "$tmp/err")" = "wheelmatrix: error: cannot write '$wf': Permission denied" ] ||
	fail "failed write message: $(cat "$tmp/err")"
cmp -s "$tmp/before.yml" "$repo/$wf" || fail "a failed write changed the file"
[ -z "$(find "$repo/.github/workflows" -name '.*tmp*')" ] || fail "a temporary file was left behind"
finish
