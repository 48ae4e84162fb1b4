#!/usr/bin/env bash
# t-generate-links.sh — every directory generate writes into (.wheelmatrix, .wheelmatrix/patches,
# .github, .github/workflows, the meta package's .wheelmatrix/meta and .wheelmatrix/backends, the
# index files' .wheelmatrix/index) as a symbolic link: one that stays inside the repository is
# followed; one that leads out of it, into .git or to nothing is an error naming the link, exit 2,
# and nothing is written anywhere (not the files decided before it either).
. "$ROOT/tests/kit/lib.sh"

out=$tmp/outside
mkdir -p "$out"

# repo NAME MATRIX: a copy of the llm-rs fixture under matrices/MATRIX, in a git repository
repo() {
	r=$tmp/$1
	cp -r "$ROOT/tests/fixtures/llm-rs" "$r"
	cp "$ROOT/matrices/$2" "$r/wheelmatrix.yaml"
	git -C "$r" init -q
}

# the files below the repository (not .git) and outside it, for "nothing is written"
files() {
	(cd "$r" && find . -path ./.git -prune -o \( -type f -o -type l \) -print | sort)
	find "$out" -mindepth 1
}

# refused WHAT WHICH ARGS...: generate ARGS exits 2 with the message WHICH (about the link) and writes nothing
refused() {
	local what=$1 which=$2 before
	shift 2
	before=$(files)
	wm -C "$r" generate "$@"
	expect_status 2 "$what"
	grep -qxF "$which" "$tmp/err" || fail "$what: stderr is not '$which': $(cat "$tmp/err")"
	[[ $(files) == "$before" ]] || fail "$what: written: $(diff <(echo "$before") <(files))"
}

# link MATRIX LINK TARGET WRITTEN: LINK (a directory generate writes into) as a link to TARGET,
# leading out, into .git, to nothing, then inside; WRITTEN is a file generate writes below LINK
link() {
	local matrix=$1 link=$2 file=$3 parent shown
	parent=$(dirname "$link")
	shown="'$link' is a symbolic link"

	repo r-out "$matrix"
	mkdir -p "$r/$parent"
	ln -s "$out" "$r/$link"
	refused "$link -> outside" "wheelmatrix: error: cannot $4 '$5': $shown that leads outside the repository"
	rm -rf "$tmp/r-out"

	repo r-dotgit "$matrix"
	mkdir -p "$r/$parent" "$r/.git/info"
	ln -s "$(realpath -m --relative-to="$r/$parent" "$r/.git/info")" "$r/$link"
	refused "$link -> .git/info" "wheelmatrix: error: cannot $4 '$5': $shown that leads into '.git'"
	rm -rf "$tmp/r-dotgit"

	repo r-dangling "$matrix"
	mkdir -p "$r/$parent"
	ln -s missing "$r/$link"
	refused "$link -> nothing" "wheelmatrix: error: cannot write '$file': $shown whose target does not exist"
	refused "$link -> nothing, --dry-run" "wheelmatrix: error: cannot write '$file': $shown whose target does not exist" \
		--dry-run
	refused "$link -> nothing, --check" "wheelmatrix: error: cannot write '$file': $shown whose target does not exist" \
		--check
	rm -rf "$tmp/r-dangling"

	# inside the repository: followed, the files land in the link's target
	repo r-inside "$matrix"
	mkdir -p "$r/$parent" "$r/elsewhere/dir"
	ln -s "$(realpath -m --relative-to="$r/$parent" "$r/elsewhere/dir")" "$r/$link"
	wm -C "$r" generate
	expect_status 0 "$link -> elsewhere/dir (inside)"
	[[ -f $r/elsewhere/dir/${file#"$link"/} ]] || fail "$link -> elsewhere/dir: no ${file#"$link"/} there: $(cat "$tmp/out")"
	grep -qxF "wrote $file" "$tmp/out" || fail "$link -> elsewhere/dir: $(cat "$tmp/out")"
	wm -C "$r" generate --check
	expect_status 0 "$link -> elsewhere/dir (inside), --check after generate"
	rm -rf "$tmp/r-inside"
}

# the patches are read (a local build's patch is undone) before anything is written: a link out of
# the repository there is refused when they are read
link llm-rs.yaml .wheelmatrix .wheelmatrix/patches/cuda.patch read .wheelmatrix/patches
link llm-rs.yaml .wheelmatrix/patches .wheelmatrix/patches/cuda.patch read .wheelmatrix/patches
link llm-rs.yaml .github .github/workflows/wheels.yml write .github/workflows/wheels.yml
link llm-rs.yaml .github/workflows .github/workflows/wheels.yml write .github/workflows/wheels.yml
link llm-rs-meta.yaml .wheelmatrix/meta .wheelmatrix/meta/pyproject.toml write .wheelmatrix/meta/pyproject.toml
link llm-rs-meta.yaml .wheelmatrix/backends .wheelmatrix/backends/cuda/_llm_rs_cuda/__init__.py write \
	.wheelmatrix/backends/cuda/_llm_rs_cuda/__init__.py
link llm-rs-index.yaml .wheelmatrix/index .wheelmatrix/index/requirements-cuda.txt write \
	.wheelmatrix/index/requirements-cuda.txt

# a file in the way of a directory: the same, before anything is written
repo r-file llm-rs.yaml
mkdir -p "$r/.github"
: >"$r/.github/workflows"
refused ".github/workflows a file" \
	"wheelmatrix: error: cannot write '.github/workflows/wheels.yml': '.github/workflows' is not a directory"
finish
