# gitlab-jobs.sh — sourced (after e2e-env.sh and plan-servers.sh) by the tests that run a generated
# .gitlab-ci.yml's jobs for real with gitlab-ci-local's shell executor and serve what the pages job
# lays out with nginx, as GitLab Pages would.
#
# Sets glci (gitlab-ci-local), glibc (this machine's, as 2_36: the wheels are built here), www and
# site ($www/simple/llm-rs, served by nginx at http://127.0.0.1:$HTTP_PORT/simple/llm-rs, and its
# /html/ as GitLab Pages serves it, index.html alone) and pages_url (that URL); gives jobs_env,
# prebuild_cuda and gitlab (each described where it is defined).
# shellcheck shell=bash
# shellcheck disable=SC2154  # tmp (tests/kit/lib.sh) and repo (the sourcing script's checkout)
glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"
glibc=$(ldd --version 2>/dev/null | sed -n '1s/.* \([0-9]*\)\.\([0-9]*\)$/\1_\2/p')
[ -n "$glibc" ] || fatal "cannot tell this machine's glibc version from 'ldd --version'"

www=$tmp/www
site=$www/simple/llm-rs
mkdir -p "$site" "$tmp/nginx"
start_nginx "$tmp/nginx" "$www" || fatal "nginx (above)"
# shellcheck disable=SC2034  # for the script that sources this file
pages_url=http://127.0.0.1:$HTTP_PORT/simple/llm-rs

# jobs_env: env312, the jobs' interpreter: a Python 3.12 environment with tests/tools/requirements.txt's
# pinned packages (maturin, auditwheel, variantlib: the build job's WM_PYTHON), first on the jobs' PATH
jobs_env() {
	local p python=
	env312=$tmp/py312
	for p in "$(command -v python3.12 2>/dev/null)" /usr/bin/python3.12 "$HOME"/.pyenv/versions/3.12.*/bin/python3.12; do
		[ -x "$p" ] && "$p" -c 'import venv' 2>/dev/null && { python=$p; break; }
	done
	[ -n "$python" ] || fatal "no CPython 3.12 to run the jobs with: install it (apt-get install python3.12, or pyenv install 3.12)"
	if ! { uv venv -q --seed --python "$python" "$env312" &&
		uv pip install -q --python "$env312/bin/python" --require-hashes --no-deps -r "$ROOT/tests/tools/requirements.txt"; }; then
		fatal "the jobs' environment"
	fi
}

# prebuild_cuda: build-cuda-linux-x86_64's wheel, which cannot be built here as that job builds it
# (its CUDA recipe installs with dnf): `wheelmatrix patch cuda`, maturin with the job's arguments,
# the patch reverted, into that job's artifact where gitlab-ci-local keeps it
# (.gitlab-ci-local/artifacts/<job>/<path>) for the jobs that need it; the checkout is left as committed
prebuild_cuda() {
	local out=$repo/.gitlab-ci-local/artifacts/build-cuda-linux-x86_64/dist/cuda-linux-x86_64-abi3
	if ! { "$WM" -q -C "$repo" patch cuda &&
		(cd "$repo" && PATH=$(e2e_python "$env312")/bin:$PATH python3.12 -m maturin build --release --out "$out" -i python3.12 \
			--target x86_64-unknown-linux-gnu --compatibility "manylinux_$glibc") &&
		"$WM" -q -C "$repo" patch --revert cuda; } >"$tmp/prebuild.log" 2>&1; then
		show "$tmp/prebuild.log"
		fatal "the cuda wheel"
	fi
	[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] || fatal "the checkout is not as committed after the cuda build"
}

# gitlab TAG PAGES-URL LOG JOB...: gitlab-ci-local runs JOB... in the checkout $repo, on the tag TAG
# with CI_PAGES_URL PAGES-URL; the manylinux level (WM_COMPATIBILITY) is this machine's glibc
gitlab() {
	local tag=$1 url=$2 log=$3
	shift 3
	(cd "$repo" && PATH=$(e2e_python "$env312")/bin:$PATH "$glci" --force-shell-executor --shell-isolation \
		--variable "WM_COMPATIBILITY=manylinux_$glibc" --variable "CI_COMMIT_TAG=$tag" \
		--variable "CI_PAGES_URL=$url" "$@") >"$log" 2>&1
}
