#!/bin/bash
# t-e2e-gitlab-pages.sh — the GitLab `pages` job of strategy index runs for real and serves each backend's index to pip.
#
# The llm-rs fixture with strategy index and `ci: {gitlab: {}}`, two backends and no default (so
# no PyPI publish job): cuda (feature cublas) and cpu, each served from its own index with its
# local label. gitlab-ci-local (tests/external) runs the generated .gitlab-ci.yml's jobs
# build-cpu-linux-x86_64, test-cpu-linux-x86_64, sdist-cuda, sdist-cpu and pages with its shell
# executor (--force-shell-executor: the image is not pulled, the scripts run here, where Rust and
# the pinned maturin are installed), on the tag v0.2.15, with CI_PAGES_URL the nginx site's
# /simple/llm-rs and the index URL its /simple/llm-rs/whl. build-cuda-linux-x86_64 cannot run here
# (its CUDA recipe installs with dnf): its wheel is built beforehand as that job builds it
# (`wheelmatrix patch cuda`, maturin with the job's arguments, the patch reverted) into the
# job's artifact, dist/cuda-linux-x86_64-abi3/, where gitlab-ci-local keeps it. The job's public/ is then served at
# the Pages URL, as GitLab Pages deploys it (with PEP 691 content negotiation, and as index.html
# only, as GitLab Pages serves it); tests/helpers/index-pages-check.py reads the pages of cuda/ and cpu/
# (JSON and HTML, each file's sha256 and size), and pip installs `llm-rs==0.2.15+cuda`,
# `llm-rs==0.2.15+cpu` and `llm-rs` with --extra-index-url <index URL>/<backend>/ (the main index
# empty): backend() answers the backend and the version carries the label the variant patch set.
# A second tag's pages job, on a fresh checkout, keeps the deployed files (--previous). The job
# fails, saying why, with a Pages URL the index URL is not under, and with a tag that is not the
# project's version; with no tag it does not run. What is not the generated file's: the manylinux
# level (WM_COMPATIBILITY) is this machine's glibc, since the wheels are built here.
. "$ROOT/tests/kit/lib.sh"
# each step below is checked where it happens: a failed one does not end the script
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
. "$ROOT/tests/kit/plan-servers.sh"

export PIP_NO_CACHE_DIR=1
# shellcheck source=tests/kit/gitlab-jobs.sh
. "$ROOT/tests/kit/gitlab-jobs.sh"
mkdir -p "$tmp/cwd"
index_url=$pages_url/whl

# The fixture with strategy index, GitLab only
repo=$tmp/llm-rs
cp -RL "$ROOT/tests/fixtures/llm-rs" "$repo"
printf '%s\n' "wheelmatrix: 1" "project: {name: llm-rs, module: llm_rs}" 'python: {abi3: "3.8"}' \
	"platforms: [linux-x86_64]" "backends:" "  cuda: {features: [cublas]}" "  cpu: {}" \
	"distribution:" "  strategy: index" "  index: {url: \"$index_url\"}" "ci: {gitlab: {}}" >"$repo/wheelmatrix.yaml"
scratch_repo "$repo"
"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate"; }
commit_all "$repo" "llm-rs with its generated CI"
gl=$repo/.gitlab-ci.yml
grep -qx "pages:" "$gl" || fatal "no pages job in the generated $gl"
grep -q "^publish-" "$gl" && fail "a backend served from its own index has a PyPI publish job"

# The jobs' interpreter: Python 3.12 with the pinned maturin and auditwheel (the build job's
# WM_PYTHON), first on PATH; the pages job's python3 is the same
jobs_env
jobs=(build-cpu-linux-x86_64 test-cpu-linux-x86_64 sdist-cuda sdist-cpu pages)
prebuild_cuda

t0=$SECONDS
gitlab v0.2.15 "$pages_url" "$tmp/run1.log" "${jobs[@]}" || { fail "gitlab-ci-local ${jobs[*]} failed"; tail -n 40 "$tmp/run1.log" | show /dev/stdin; }
grep -E '^ (PASS|FAIL) ' "$tmp/run1.log"
echo "jobs: $((SECONDS - t0)) s"
grep -q "^pages .*the indexes <$index_url>/<backend>/ go to public/whl/" "$tmp/run1.log" ||
	{ fail "the pages job did not lay the site out under public/whl/"; grep '^pages' "$tmp/run1.log" | show /dev/stdin; }
grep -q "^pages .*publishing version 0.2.15" "$tmp/run1.log" || fail "the pages job did not check the tag against the version"
# files BACKEND: the files of the index BACKEND in public/, one a line
files() {
	find "$repo/public/whl/$1/llm-rs" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | LC_ALL=C sort
}
for b in cuda cpu; do
	got=$(files $b | sed "s/-manylinux_${glibc}_x86_64\.whl$/-manylinux.whl/" | tr '\n' ' ')
	[ "$got" = "index.html index.json llm_rs-0.2.15+$b-cp38-abi3-manylinux.whl llm_rs-0.2.15+$b.tar.gz " ] ||
		fail "public/whl/$b/llm-rs/ holds $got"
done
[ "$(find "$repo/public" -mindepth 1 -maxdepth 1)" = "$repo/public/whl" ] || fail "public/ holds more than whl/: $(ls "$repo/public")"
# GitLab Pages deploys public/ at the Pages URL
cp -R "$repo/public/." "$site/"
# check_pages: tests/helpers/index-pages-check.py reads each backend's index, with the files public/ has
check_pages() {
	local b names
	for b in cuda cpu; do
		mapfile -t names < <(files $b | grep -v '^index\.')
		"$py" "$ROOT/tests/helpers/index-pages-check.py" "$index_url/$b/" llm-rs ">=3.8" "${names[@]}" >"$tmp/check.log" 2>&1 ||
			{ fail "the pages at $index_url/$b/"; show "$tmp/check.log"; }
	done
}
check_pages

# installed LABEL VENV VERSION BACKEND: llm-rs VERSION from VENV, imported from an empty directory,
# answers backend() BACKEND
installed() {
	local got want="llm-rs $3, backend $4, from $2"
	got=$(cd "$tmp/cwd" && "$2/bin/python" -I -c 'import importlib.metadata as md, os, sys, llm_rs
inside = os.path.realpath(llm_rs.__file__).startswith(os.path.realpath(sys.prefix) + os.sep)
print("llm-rs %s, backend %s, from %s" % (md.version("llm-rs"), llm_rs.backend(), sys.argv[1] if inside else llm_rs.__file__))' "$2" 2>&1)
	[ "$got" = "$want" ] || { fail "$1: $got, not $want"; return; }
	echo "ok   $1: $got"
}
n=0
# from_index BACKEND VERSION REQUIREMENT [INDEX]: pip installs REQUIREMENT into a fresh environment
# with BACKEND's index (default: under the index URL) as an extra index, the main index (PyPI for
# users) an empty directory here: only the backend's index has llm-rs; that build of VERSION answers
from_index() {
	local b=$1 venv=$tmp/venv-$((n += 1)) index=${4:-$index_url/$1/}
	shift
	"$py" -m venv --without-pip "$venv"
	"$tools/bin/python" -m pip --python "$venv/bin/python" install -q --only-binary :all: \
		--index-url "http://127.0.0.1:$HTTP_PORT/main/" --extra-index-url "$index" "$2" >"$venv.log" 2>&1 ||
		{ fail "pip install $2 --extra-index-url $index failed"; show "$venv.log"; return; }
	installed "pip install $2 --extra-index-url $index" "$venv" "$1" "$b"
}
mkdir -p "$www/main"
from_index cuda 0.2.15+cuda "llm-rs==0.2.15+cuda"
from_index cpu 0.2.15+cpu "llm-rs==0.2.15+cpu"
from_index cuda 0.2.15+cuda llm-rs "http://127.0.0.1:$HTTP_PORT/html/llm-rs/whl/cuda/"
from_index cpu 0.2.15+cpu llm-rs "http://127.0.0.1:$HTTP_PORT/html/llm-rs/whl/cpu/"

# A second tag on a fresh checkout, the first deploy live: --previous keeps its files
"$py" - "$repo" <<'PY' || fatal "setting the version 0.2.16"
import sys
repo = sys.argv[1]
for name, before in (("Cargo.toml", 'version = "%s"'), ("Cargo.lock", 'name = "llm-rs"\nversion = "%s"')):
    path = repo + "/" + name
    text = open(path).read()
    assert text.count(before % "0.2.15") == 1, name
    open(path, "w").write(text.replace(before % "0.2.15", before % "0.2.16"))
PY
rm -rf "$repo/public" "$repo/dist" "$repo/.gitlab-ci-local"
"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fail "wheelmatrix generate (0.2.16)"; }
commit_all "$repo" "version 0.2.16"
prebuild_cuda
gitlab v0.2.16 "$pages_url/" "$tmp/run2.log" "${jobs[@]}" || { fail "gitlab-ci-local ${jobs[*]} (v0.2.16) failed"; tail -n 40 "$tmp/run2.log" | show /dev/stdin; }
[ "$(grep -c "^pages .*index.json: 2 files kept" "$tmp/run2.log")" = 2 ] || { fail "the second pages job did not keep the deployed files"; grep '^pages' "$tmp/run2.log" | show /dev/stdin; }
rm -rf "$www/llm-rs" && mkdir -p "$www/llm-rs" && cp -R "$repo/public/." "$site/"
for b in cuda cpu; do
	[ "$(files $b | grep -c '^llm_rs-0\.2\.1[56]+'"$b"'[-.]')" = 4 ] || fail "public/whl/$b/llm-rs/ after 0.2.16: $(files $b | tr '\n' ' ')"
done
check_pages
from_index cuda 0.2.15+cuda "llm-rs==0.2.15+cuda" "http://127.0.0.1:$HTTP_PORT/html/llm-rs/whl/cuda/"
from_index cuda 0.2.16+cuda llm-rs
from_index cpu 0.2.16+cpu llm-rs

# The pages job alone (the artifacts of the run above) refuses what GitLab Pages cannot serve
refused() {  # refused WHAT TAG PAGES-URL TEXT
	rm -rf "$repo/public"
	if gitlab "$2" "$3" "$tmp/refused.log" pages; then
		fail "$1: the pages job passed"
	elif ! grep -qF -- "$4" "$tmp/refused.log"; then
		fail "$1: the pages job failed, but without '$4'"
		grep '^pages' "$tmp/refused.log" | tail -n 20 | show /dev/stdin
	fi
	[ ! -e "$repo/public" ] || fail "$1: the failed pages job left public/"
}
refused "an index URL not under the Pages URL" v0.2.16 "http://127.0.0.1:$HTTP_PORT/other" \
	"the index URL $index_url (distribution.index.url) is not under this project's Pages URL 'http://127.0.0.1:$HTTP_PORT/other'"
refused "a Pages URL that is a prefix of a path part" v0.2.16 "http://127.0.0.1:$HTTP_PORT/llm" \
	"is not under this project's Pages URL"
refused "no Pages URL" v0.2.16 "" "is not under this project's Pages URL ''"
refused "a tag that is not the version" v9.9.9 "$pages_url" "the tag v9.9.9 does not match the project version 0.2.16"
# without a tag gitlab-ci-local does not run it
(cd "$repo" && "$glci" --list-json) >"$tmp/list.json" 2>"$tmp/list.err" || { fail "gitlab-ci-local --list-json"; show "$tmp/list.err"; }
"$py" - "$tmp/list.json" <<'PY' || fail "the pages job runs without a tag"
import json, sys
jobs = {j["name"]: j for j in json.load(open(sys.argv[1]))}
sys.exit(0 if jobs["pages"]["when"] == "never" else 1)
PY

echo "$((SECONDS - t0)) s"
finish
