#!/bin/bash
# t-pre-commit-python.sh — the pre-commit framework (pinned) builds and installs wheelmatrix itself for the `language: python` hook of .pre-commit-hooks.yaml (wheelmatrix-check-python), with no wheelmatrix on PATH: with the configuration docs/hook.md shows, git's hook refuses a stale commit and passes the fixed one.
#
# The hook repository is the sdist of the working tree (uv build --sdist: the files a user's clone
# has for building), committed in a scratch repository.  pre-commit builds it once, with pip, offline:
# pyproject.toml's pinned build requirements come from the wheelhouse (tests/kit/wheel-env.sh), and
# anything else it tried to fetch over HTTP would go to a closed port.  `pre-commit try-repo` is
# t-pre-commit's, with the other hook: here it would build the same environment a second time, in
# a store of its own (a compile of the program, half a minute of CPU), and prove nothing more.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/wheel-env.sh
. "$ROOT/tests/kit/wheel-env.sh"
pc=$tools/bin/pre-commit
need "$pc" "make tools (tests/tools/install.sh; tests/tools/requirements.txt pins pre-commit)"

# the hook repository: the sdist's files, at a commit
expect_run 0 uv build --sdist --no-index -o "$tmp/dist" "$ROOT"
tar -xzf "$tmp/dist/wheelmatrix-$version.tar.gz" -C "$tmp" || fatal "the sdist does not unpack"
hooks=$tmp/wheelmatrix-$version
cmp -s "$ROOT/.pre-commit-hooks.yaml" "$hooks/.pre-commit-hooks.yaml" || fatal "the sdist lacks .pre-commit-hooks.yaml"
scratch_repo "$hooks"
commit_all "$hooks" "wheelmatrix $version"
rev=$(git -C "$hooks" rev-parse HEAD)

# the project: generated and committed, the configuration docs/hook.md shows for this hook
base=$tmp/base
demo_project "$base"
"$WM" -q -C "$base" generate || fatal "generate failed in the project"
awk '/^```yaml$/ { block = ""; inside = 1; next }
	inside && /^```$/ { inside = 0; if (block ~ /id: wheelmatrix-check-python\n/) { printf "%s", block; exit } next }
	inside { block = block $0 "\n" }' "$ROOT/docs/hook.md" |
	sed "s|^  - repo: URL |  - repo: $hooks |; s|^    rev: REV |    rev: $rev |" >"$base/.pre-commit-config.yaml"
[ "$(grep -c -e "^  - repo: $hooks " -e "^    rev: $rev " -e "^      - id: wheelmatrix-check-python$" "$base/.pre-commit-config.yaml")" = 3 ] ||
	fatal "docs/hook.md shows no .pre-commit-config.yaml of wheelmatrix-check-python: $(cat "$base/.pre-commit-config.yaml")"
scratch_repo "$base"
commit_all "$base"

# no wheelmatrix on the PATH the framework runs with: only the pinned tools and the system's
mkdir "$tmp/home"
export PATH=$tools/bin:/usr/bin:/bin
if command -v wheelmatrix >/dev/null; then
	fatal "a wheelmatrix is on PATH ($(command -v wheelmatrix)): the hook would not be shown to bring its own"
fi
export PRE_COMMIT_HOME=$tmp/pre-commit-home HOME=$tmp/home PRE_COMMIT_COLOR=never GIT_CONFIG_NOSYSTEM=1 \
	http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 \
	HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9
unset XDG_CONFIG_HOME XDG_CACHE_HOME GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE PRE_COMMIT SKIP no_proxy NO_PROXY

finding="^\.github/workflows/wheels\.yml:[0-9]*:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'\$"
# said PATTERN WHAT: the last command's output has a line matching PATTERN
said() {
	cat "$tmp/out" "$tmp/err" | grep -q -- "$1" && return 0
	fail "$2: no line matching '$1' in the output"
	show "$tmp/out"
	show "$tmp/err"
}

# the configuration of docs/hook.md, as git's hook: a stale commit refused, the fix committed
p=$tmp/commit
git clone -q "$base" "$p"
run env -C "$p" "$pc" install
expect_status 0 "pre-commit install"
sed -i 's/"3.12"\]/"3.12", "3.13"]/' "$p/wheelmatrix.yaml"
head=$(git -C "$p" rev-parse HEAD)
run git -C "$p" commit -qam stale
expect_status 1 "git commit -a with a stale workflow"
said "$finding" "git commit -a with a stale workflow"
[ "$(git -C "$p" rev-parse HEAD)" = "$head" ] || fail "the stale commit went through"
"$WM" -q -C "$p" generate
run git -C "$p" commit -qam fixed
expect_status 0 "git commit -a with the fix"
said '^wheelmatrix check\.*Passed$' "git commit -a with the fix"
[ "$(git -C "$p" rev-parse HEAD)" != "$head" ] || fail "the fixed commit did not go through"
# what ran is the wheelmatrix pre-commit built, in an environment of its own in its store
built=$(find "$PRE_COMMIT_HOME" -path '*/py_env-*/bin/wheelmatrix' | head -n 1)
[ -n "$built" ] || fail "pre-commit installed no wheelmatrix in an environment of its own under PRE_COMMIT_HOME"

finish
