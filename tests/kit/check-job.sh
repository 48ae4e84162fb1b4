# check-job.sh — sourced (after tests/kit/lib.sh) by the tests that run the generated drift-check job,
# wheelmatrix-check, for real: its GitHub steps replayed by tests/helpers/replay-github.py, its GitLab job
# under gitlab-ci-local.  It sources what it needs: tests/kit/python-env.sh, tests/kit/plan-servers.sh
# (its servers stop at exit), tests/kit/wheel-env.sh and tests/kit/wheel-build.sh.
# shellcheck shell=bash
#
# check_job_index        builds wheelmatrix's wheel (tests/kit/wheel-build.sh: the run's one build) and
#                        serves it from a PEP 503/691 index of its own on loopback (nginx), which
#                        the jobs' pip installs from (PIP_INDEX_URL); sets index and check_wheel
# github_check REPO REV  replays the job wheelmatrix-check of the workflow committed at REV, in a
#                        clone of REPO at REV of depth 1, as actions/checkout makes it (the
#                        workflow's commit is REV: GITHUB_SHA); exit status in $status, output in
#                        $tmp/out and $tmp/err
# gitlab_check REPO      runs the job wheelmatrix-check of REPO's .gitlab-ci.yml at its HEAD with
#                        gitlab-ci-local's shell executor (in a copy of the checkout,
#                        --shell-isolation; CI_COMMIT_SHA is HEAD), with TMPDIR a new directory,
#                        $gl_tmp; status, $tmp/out, $tmp/err as above
#
# What the jobs run is what the generated files say; what is not theirs: pip's index is the
# loopback one (the wheel on PyPI does not exist before a release), the GitLab image is not pulled
# (the shell executor: this machine's python3 makes the environment), and actions/checkout is a
# clone of depth 1.
: "${ROOT:?}" "${tmp:?source tests/kit/lib.sh first}"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
. "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/wheel-env.sh
. "$ROOT/tests/kit/wheel-env.sh"
# shellcheck source=tests/kit/wheel-build.sh
. "$ROOT/tests/kit/wheel-build.sh"
glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"

check_job_index() {
	local www=$tmp/www
	wheel_build "$tmp/wheel" || { show "$tmp/wheel/build.log"; fatal "wheelmatrix's wheel (above)"; }
	check_wheel=$(ls "$tmp"/wheel/repaired/wheelmatrix-"$version"-py3-none-manylinux_*.whl 2>/dev/null) ||
		fatal "no repaired wheel of wheelmatrix $version: $(ls "$tmp/wheel/repaired")"
	mkdir -p "$www/files" "$www/simple/wheelmatrix"
	cp "$check_wheel" "$www/files/"
	"$py" - "$www" <<'PY'
import hashlib, html, json, os, sys
www = sys.argv[1]
files = sorted(os.listdir(os.path.join(www, "files")))
digest = {f: hashlib.sha256(open(os.path.join(www, "files", f), "rb").read()).hexdigest() for f in files}
page = {"meta": {"api-version": "1.1"}, "name": "wheelmatrix",
        "files": [{"filename": f, "url": "../../files/" + f, "hashes": {"sha256": digest[f]}} for f in files]}
with open(os.path.join(www, "simple", "wheelmatrix", "index.json"), "w") as out:
    json.dump(page, out)
with open(os.path.join(www, "simple", "wheelmatrix", "index.html"), "w") as out:
    out.write("<!DOCTYPE html><html><body>\n")
    for f in files:
        out.write('<a href="../../files/%s#sha256=%s">%s</a><br>\n' % (html.escape(f), digest[f], html.escape(f)))
    out.write("</body></html>\n")
PY
	mkdir -p "$tmp/nginx"
	start_nginx "$tmp/nginx" "$www" || fatal "nginx (above)"
	index=http://127.0.0.1:$HTTP_PORT/simple/
	# pip in the jobs: the loopback index only, nothing of the test's offline set-up or the user's
	unset PIP_NO_INDEX PIP_FIND_LINKS PIP_EXTRA_INDEX_URL PIP_REQUIRE_VIRTUALENV PIP_ONLY_BINARY PIP_NO_BINARY
	export PIP_INDEX_URL=$index PIP_CONFIG_FILE=/dev/null PIP_CACHE_DIR=$tmp/pip-cache PIP_DISABLE_PIP_VERSION_CHECK=1
}

# shellcheck disable=SC2034  # status, gl_tmp: for the sourcing script
github_check() {
	local repo=$1 rev=$2 ws
	ws=$(mktemp -d "$tmp/gh.XXXXXX")
	# a clone of depth 1 at REV: a tag of the test's own names it for the clone
	git -C "$repo" tag -f "replay-$rev" "$rev" >/dev/null
	git clone -q --depth 1 --branch "replay-$rev" "file://$repo" "$ws/checkout" 2>"$ws/clone.log" ||
		{ show "$ws/clone.log"; fatal "git clone --depth 1 of $repo at $rev"; }
	if [ "$(git -C "$ws/checkout" rev-parse HEAD)" != "$rev" ] || [ ! -f "$ws/checkout/.git/shallow" ]; then
		fatal "the clone of $repo is not a shallow one at $rev"
	fi
	status=0
	(cd "$ws/checkout" && GITHUB_SHA=$rev GITHUB_REF=refs/heads/main \
		"$py" "$ROOT/tests/helpers/replay-github.py" .github/workflows/wheels.yml wheelmatrix-check) \
		>"$tmp/out" 2>"$tmp/err" || status=$?
}

# shellcheck disable=SC2034  # status, gl_tmp: for the sourcing script
gitlab_check() {
	local repo=$1
	rm -rf "$repo/.gitlab-ci-local"
	gl_tmp=$(mktemp -d "$tmp/gl-tmp.XXXXXX")
	status=0
	(cd "$repo" && TMPDIR=$gl_tmp "$glci" --force-shell-executor --shell-isolation \
		--variable "PIP_INDEX_URL=$PIP_INDEX_URL" wheelmatrix-check) >"$tmp/out" 2>"$tmp/err" || status=$?
}
