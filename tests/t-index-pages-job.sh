#!/bin/bash
# t-index-pages-job.sh — strategy index: the generated workflow's `index-pages` job, run for real on
# real builds, lays out indexes that pip installs the right backend from.
#
# The llm-rs fixture with strategy index (backends cuda and opencl, cpu the default) and its GitHub
# workflow alone: `wheelmatrix generate` writes the variant patches and the workflow. Each
# non-default backend is built as its build and sdist jobs build it (the variant patch applied with
# `wheelmatrix patch`, maturin, auditwheel repair) into an artifact store named as the jobs'
# artifacts (wheels-<backend>-..., sdist-<backend>), and its files are put where its release's
# assets would be served: nginx (tests/kit/plan-servers.sh) serves
# $GITHUB_SERVER_URL/owner/llm-rs/releases/download/v0.2.15-<backend>/ on loopback.
# tests/helpers/replay-github.py then runs the `index-pages` job of the generated file in an empty workspace,
# step by step, with what GitHub would give it: GITHUB_REPOSITORY, GITHUB_REF_NAME (the tag),
# GITHUB_SERVER_URL (the loopback server, where GitHub's is https://github.com), the artifacts
# its download steps name, and the configure-pages output `base_url` (the Pages site's URL, on the
# same server); its `run:` script is the generated one, unchanged. The site it uploads is served
# at the Pages URL, so the index URL of the matrix (below it) answers:
# - tests/helpers/index-pages-check.py reads each backend's index as pip does (root and project pages, JSON
#   and HTML, every file's sha256 and size through the release URLs);
# - every file URL is the backend's own release (<tag>-<backend>);
# - pip installs `llm-rs==0.2.15+cuda` and `llm-rs==0.2.15+opencl` from the two indexes
#   (`--index-url` one, `--extra-index-url` the other), each imported from an empty directory
#   answering backend() with its backend;
# - with a Pages URL the index URL is not below, the job fails with an ::error:: naming both.
. "$ROOT/tests/kit/lib.sh"
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
. "$ROOT/tests/kit/plan-servers.sh"

export PIP_NO_CACHE_DIR=1
version=0.2.15 tag=v0.2.15
www=$tmp/www art=$tmp/artifacts
mkdir -p "$www/simple" "$art" "$tmp/cwd" "$tmp/n"
start_nginx "$tmp/n" "$www" || fatal "nginx (above)"
u=http://127.0.0.1:$HTTP_PORT

repo=$tmp/llm-rs
cp -RL "$ROOT/tests/fixtures/llm-rs" "$repo"
printf '%s\n' "wheelmatrix: 1" "project: {name: llm-rs, module: llm_rs}" 'python: {abi3: "3.8"}' \
	"platforms: [linux-x86_64]" "backends:" "  cuda: {features: [cublas]}" "  opencl: {features: [clblast]}" \
	"  cpu: {default: true}" "distribution:" "  strategy: index" "  index: {url: \"$u/simple/whl\", local: true}" \
	"ci: {github: {}}" >"$repo/wheelmatrix.yaml"
scratch_repo "$repo" && commit_all "$repo" fixture
"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate"; }
commit_all "$repo" generated
workflow=$repo/.github/workflows/wheels.yml
[ -f "$workflow" ] || fatal "generate wrote no workflow"

# build BACKEND: the backend's wheel and sdist, as its build and sdist jobs make them, into the
# artifact store and the release's directory
build() {
	local b=$1 d=$tmp/build-$1 rel=$www/owner/llm-rs/releases/download/$tag-$1
	mkdir -p "$d" "$art/wheels-$b-linux-x86_64-abi3" "$art/sdist-$b" "$rel"
	"$WM" -q -C "$repo" patch "$b" >"$d/patch.log" 2>&1 || { fail "$b: wheelmatrix patch"; show "$d/patch.log"; return 1; }
	(cd "$repo" && maturin build --release --locked --out "$d/dist" -i "$tools/bin/python" --auditwheel skip) >"$d/build.log" 2>&1 ||
		{ fail "$b: maturin build failed"; show "$d/build.log"; }
	(cd "$repo" && maturin sdist --out "$art/sdist-$b") >"$d/sdist.log" 2>&1 || { fail "$b: maturin sdist failed"; show "$d/sdist.log"; }
	"$WM" -q -C "$repo" patch --revert "$b" >"$d/patch.log" 2>&1 || { fail "$b: wheelmatrix patch --revert"; show "$d/patch.log"; }
	auditwheel repair --wheel-dir "$art/wheels-$b-linux-x86_64-abi3" "$d"/dist/*.whl >"$d/repair.log" 2>&1 ||
		{ fail "$b: auditwheel repair failed"; show "$d/repair.log"; return 1; }
	cp "$art/wheels-$b-linux-x86_64-abi3"/* "$art/sdist-$b"/* "$rel/"
}
t0=$SECONDS
if ! { build cuda && build opencl; }; then
	fatal "the builds failed (above)"
fi
echo "builds: $((SECONDS - t0)) s"

# replay LOG PAGES-URL PAGES-DIR: the index-pages job in a fresh workspace
n=0
replay() {
	local ws=$tmp/workspace-$((n += 1))
	mkdir -p "$ws" "$3"
	(cd "$ws" && env GITHUB_REPOSITORY=owner/llm-rs GITHUB_REF_NAME="$tag" GITHUB_SERVER_URL="$u" \
		WM_REPLAY_ARTIFACTS="$art" WM_REPLAY_PAGES_URL="$2" WM_REPLAY_PAGES_DIR="$3" \
		"$py" "$ROOT/tests/helpers/replay-github.py" "$workflow" index-pages) >"$1" 2>&1
}
if ! replay "$tmp/pages.log" "$u/simple" "$www/simple"; then
	show "$tmp/pages.log"
	fatal "the index-pages job failed"
fi
for b in cuda opencl; do
	files=()
	for f in "$art/wheels-$b-linux-x86_64-abi3"/* "$art/sdist-$b"/*; do files+=("${f##*/}"); done
	"$py" "$ROOT/tests/helpers/index-pages-check.py" "$u/simple/whl/$b/" llm-rs ">=3.8" "${files[@]}" >"$tmp/check.log" 2>&1 ||
		{ fail "the $b index the job laid out"; show "$tmp/check.log"; }
	"$py" - "$www/simple/whl/$b/llm-rs/index.json" "$u/owner/llm-rs/releases/download/$tag-$b/" "$version+$b" <<'PY' ||
import json, sys
doc = json.load(open(sys.argv[1]))
bad = [f["url"] for f in doc["files"] if not f["url"].startswith(sys.argv[2])]
if bad or doc["versions"] != [sys.argv[3]]:
    sys.exit("file URLs outside %s: %s; versions %s" % (sys.argv[2], bad, doc["versions"]))
PY
		fail "the $b index does not link its own release's files"
done

# installed LABEL VENV BACKEND: llm-rs VERSION+BACKEND from VENV, imported from an empty directory
installed() {
	local out
	out=$(cd "$tmp/cwd" && "$2/bin/python" -I "$ROOT/tests/helpers/llm-rs-installed.py" "$version+$3" "$3" 2>&1) ||
		{ fail "$1: $out"; return; }
	echo "ok   $1"
}
for b in cuda opencl; do
	other=$([ "$b" = cuda ] && echo opencl || echo cuda)
	venv=$tmp/venv-$b
	"$py" -m venv --without-pip "$venv"
	args=(--only-binary :all: --index-url "$u/simple/whl/$other/" --extra-index-url "$u/simple/whl/$b/" "llm-rs==$version+$b")
	if "$tools/bin/python" -m pip --python "$venv/bin/python" install -q "${args[@]}" >"$venv.log" 2>&1; then
		installed "pip install ${args[*]}" "$venv" "$b"
	else
		fail "pip install ${args[*]} failed"
		show "$venv.log"
	fi
done

# a Pages site the index URL is not below: the job stops, and says why
if replay "$tmp/wrong.log" "$u/elsewhere" "$tmp/wrong-site"; then
	fail "the index-pages job succeeded with the index URL outside the Pages site"
	show "$tmp/wrong.log"
elif ! grep -qF "::error::the index URL $u/simple/whl (distribution.index.url) is not below the GitHub Pages site's base URL '$u/elsewhere'" "$tmp/wrong.log"; then
	fail "the index-pages job failed without saying the index URL is not below the Pages site"
	show "$tmp/wrong.log"
fi
finish
