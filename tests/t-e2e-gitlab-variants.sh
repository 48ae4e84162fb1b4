#!/bin/bash
# t-e2e-gitlab-variants.sh — the GitLab `pages` job of strategy variants runs for real and serves the variant index to uv and pip.
#
# The llm-rs fixture under matrices/llm-rs-variants.yaml, narrowed to linux-x86_64 (cuda the variant
# cu124 of property nvidia :: cuda_version_lower_bound :: 12.4, cpu the default: the null variant),
# with `ci: {gitlab: {}}` alone and the index URL on nginx here. gitlab-ci-local (tests/external)
# runs the generated .gitlab-ci.yml's jobs build-cpu-linux-x86_64, test-cpu-linux-x86_64, sdist-cpu
# and pages with its shell executor (--force-shell-executor: the image is not pulled, the scripts
# run here, where Rust and the pinned maturin are installed), on the tag v0.2.15, with CI_PAGES_URL
# the nginx site's /simple/llm-rs and the index URL its /simple/llm-rs/variants. The jobs' python3
# is a Python 3.12 environment with tests/tools/requirements.txt's pinned packages, variantlib among
# them, so the job's `pip install "variantlib[cli]==<pin>"` finds it installed. build-cuda-linux-x86_64
# cannot run here (its CUDA recipe installs with dnf): its wheel is built beforehand as that job
# builds it (`wheelmatrix patch cuda`, maturin with the job's arguments, the patch reverted) into
# the job's artifact, dist/cuda-linux-x86_64-abi3/, where gitlab-ci-local keeps it. The pages job
# applies the default's patch (the [variant] table), makes both backends' wheels variant wheels with
# variantlib, writes the variants.json and lays out the index with the plain cpu wheel and the sdist;
# its public/ is served at the Pages URL as GitLab Pages deploys it. tests/helpers/index-pages-check.py reads
# the index; uv --preview-features wheel-variants installs the cuda build where the provider reports
# a CUDA 12.8 driver (NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION) and the null variant (cpu)
# where it reports none, pip the plain cpu wheel; tests/helpers/llm-rs-installed.py checks backend(). The
# job fails, saying why, with a Pages URL the index URL is not under and with a tag that is not the
# project's version, and without a tag it does not run. What is not the generated file's: the
# manylinux level (WM_COMPATIBILITY) is this machine's glibc, since the wheels are built here.
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
index_url=$pages_url/variants

# The fixture under the variants matrix, linux-x86_64 alone, GitLab only, its index here
repo=$tmp/llm-rs
cp -RL "$ROOT/tests/fixtures/llm-rs" "$repo"
"$py" - "$ROOT/matrices/llm-rs-variants.yaml" "$index_url" >"$repo/wheelmatrix.yaml" <<'PY' || fatal "the matrix"
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
assert m["distribution"]["strategy"] == "variants" and m["backends"]["cpu"]["default"], m
m["platforms"] = ["linux-x86_64"]
m["backends"]["cuda"]["platforms"] = ["linux-x86_64"]
m["distribution"]["index"]["url"] = sys.argv[2]
m["ci"] = {"gitlab": {}}
print(yaml.safe_dump(m, sort_keys=False))
PY
scratch_repo "$repo"
"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate"; }
commit_all "$repo" "llm-rs with its generated CI"
gl=$repo/.gitlab-ci.yml
grep -qx "pages:" "$gl" || fatal "no pages job in the generated $gl"
[ "$(grep '^publish-' "$gl")" = "publish-cpu:" ] || fail "the publish jobs are not the default's alone: $(grep '^publish-' "$gl")"
grep -q "^sdist-cuda:" "$gl" && fail "a backend other than the default has an sdist job"

# The jobs' interpreter: Python 3.12 with the pinned maturin, auditwheel and variantlib (the build
# job's WM_PYTHON), first on PATH; the pages job's python3 is the same
jobs_env
[ -x "$env312/bin/variantlib" ] || fatal "tests/tools/requirements.txt gave $env312 no variantlib"
jobs=(build-cpu-linux-x86_64 test-cpu-linux-x86_64 sdist-cpu pages)
prebuild_cuda

t0=$SECONDS
gitlab v0.2.15 "$pages_url" "$tmp/run1.log" "${jobs[@]}" || { fail "gitlab-ci-local ${jobs[*]} failed"; tail -n 40 "$tmp/run1.log" | show /dev/stdin; }
grep -E '^ (PASS|FAIL) ' "$tmp/run1.log"
echo "jobs: $((SECONDS - t0)) s"
grep -q "^pages .*the variant index <$index_url>/<project>/ goes to public/variants/" "$tmp/run1.log" ||
	{ fail "the pages job did not lay the site out under public/variants/"; grep '^pages' "$tmp/run1.log" | tail -n 30 | show /dev/stdin; }
grep -q "^pages .*publishing version 0.2.15" "$tmp/run1.log" || fail "the pages job did not check the tag against the version"
grep -q "^pages .*Checking patch pyproject.toml" "$tmp/run1.log" || fail "the pages job did not apply the default backend's patch"
plain=llm_rs-0.2.15-cp38-abi3-manylinux_${glibc}_x86_64
got=$(find "$repo/public/variants/llm-rs" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | LC_ALL=C sort | tr '\n' ' ')
want="index.html index.json $plain-cu124.whl $plain-null.whl $plain.whl llm_rs-0.2.15-variants.json llm_rs-0.2.15.tar.gz "
[ "$got" = "$want" ] || fail "public/variants/llm-rs/ holds $got, not $want"
[ "$(find "$repo/public" -mindepth 1 -maxdepth 1)" = "$repo/public/variants" ] || fail "public/ holds more than variants/: $(ls "$repo/public")"
# the variants.json gives each label the matrix's properties
"$py" - "$repo/public/variants/llm-rs/llm_rs-0.2.15-variants.json" <<'PY' || fail "the variants.json"
import json, sys
doc = json.load(open(sys.argv[1]))
want = {"null": {}, "cu124": {"nvidia": {"cuda_version_lower_bound": ["12.4"]}}}
if doc.get("variants") != want:
    sys.exit("variants %r, not %r" % (doc.get("variants"), want))
PY
# GitLab Pages deploys public/ at the Pages URL
cp -R "$repo/public/." "$site/"
"$py" "$ROOT/tests/helpers/index-pages-check.py" "$index_url/" llm-rs ">=3.8" "$plain-cu124.whl" "$plain-null.whl" "$plain.whl" \
	llm_rs-0.2.15-variants.json llm_rs-0.2.15.tar.gz >"$tmp/check.log" 2>&1 || { fail "the pages at $index_url/"; show "$tmp/check.log"; }

# installed WHAT VENV BACKEND LABEL: llm-rs 0.2.15 answers backend() BACKEND, and its dist-info
# holds the variant.json of LABEL (none for "-", the plain wheel)
installed() {
	local out got
	out=$(cd "$tmp/cwd" && "$2/bin/python" -I "$ROOT/tests/helpers/llm-rs-installed.py" 0.2.15 "$3" 2>&1) || { fail "$1: $out"; return; }
	got=$("$2/bin/python" -I -c '
import importlib.metadata as md, json
t = md.distribution("llm-rs").read_text("variant.json")
print(" ".join(json.loads(t)["variants"]) if t else "-")' 2>&1)
	[ "$got" = "$4" ] || { fail "$1: the installed variant is '$got', not '$4'"; return; }
	echo "ok   $1"
}
n=0
uv_install() {  # uv_install DRIVER BACKEND LABEL INDEX ARGS...: a fresh environment, uv pip install llm-rs, the check
	local driver=$1 backend=$2 want=$3 index=$4 venv=$tmp/venv-$((n += 1))
	shift 4
	uv venv -q --python "$py" "$venv"
	if NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=$driver UV_CACHE_DIR=$venv.cache uv pip install -v --python "$venv/bin/python" \
		"$@" --index-url "$index" llm-rs >"$venv.log" 2>&1; then
		installed "uv pip install $* --index-url $index llm-rs (driver '$driver')" "$venv" "$backend" "$want"
	else
		fail "uv pip install $* --index-url $index llm-rs (driver '$driver') failed"
		show "$venv.log"
	fi
}
uv_install 12.8 cuda cu124 "$index_url/" --preview-features wheel-variants
grep -qF "$index_url/llm-rs/llm_rs-0.2.15-variants.json" "$tmp/venv-$n.log" || { fail "uv did not read the variants.json from the index"; show "$tmp/venv-$n.log"; }
uv_install "" cpu null "$index_url/" --preview-features wheel-variants
uv_install 12.8 cuda cu124 "http://127.0.0.1:$HTTP_PORT/html/llm-rs/variants/" --preview-features wheel-variants
uv_install 12.8 cpu - "$index_url/"
venv=$tmp/venv-pip
"$py" -m venv --without-pip "$venv"
if NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 "$tools/bin/python" -m pip --python "$venv/bin/python" install -q \
	--only-binary :all: --index-url "$index_url/" llm-rs >"$venv.log" 2>&1; then
	installed "pip install --index-url $index_url/ llm-rs" "$venv" cpu -
else
	fail "pip install --index-url $index_url/ llm-rs failed"
	show "$venv.log"
fi

# The pages job alone (the artifacts of the run above) refuses what GitLab Pages cannot serve, and a wrong tag
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
refused "an index URL not under the Pages URL" v0.2.15 "http://127.0.0.1:$HTTP_PORT/other" \
	"the index URL $index_url (distribution.index.url) is not under this project's Pages URL 'http://127.0.0.1:$HTTP_PORT/other'"
refused "a tag that is not the version" v9.9.9 "$pages_url" "the tag v9.9.9 does not match the project version 0.2.15"
# without a tag gitlab-ci-local does not run it
(cd "$repo" && "$glci" --list-json) >"$tmp/list.json" 2>"$tmp/list.err" || { fail "gitlab-ci-local --list-json"; show "$tmp/list.err"; }
"$py" - "$tmp/list.json" <<'PY' || fail "the pages job runs without a tag"
import json, sys
jobs = {j["name"]: j for j in json.load(open(sys.argv[1]))}
sys.exit(0 if jobs["pages"]["when"] == "never" else 1)
PY

echo "$((SECONDS - t0)) s"
finish
