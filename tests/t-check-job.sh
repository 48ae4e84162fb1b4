#!/usr/bin/env bash
# t-check-job.sh — the generated drift-check job, run for real with wheelmatrix's own wheel from an index: its GitHub steps (tests/helpers/replay-github.py, in a clone of depth 1) and its GitLab job (gitlab-ci-local) pass on a commit whose files match its matrix and fail, with check's finding, on one where they drift; pip installs exactly the pinned release, and only as a wheel; `check: false` leaves the job out.
#
# The project is the demo one (tests/kit/lib.sh) with both CI files, generated and committed. The wheel is
# the run's one build of the repository (tests/kit/wheel-build.sh, shared with t-wheel), served by nginx as a
# PEP 691/503 index (tests/kit/check-job.sh says what else is not the generated files' own). The job's
# shape, permissions and the publish jobs' needs are tests/helpers/wfcheck.py's (t-github-properties); the
# validators' verdicts, t-github-validators'.
# heavy: builds wheelmatrix's own wheel (tests/kit/check-job.sh sources tests/kit/wheel-env.sh)
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/check-job.sh
. "$ROOT/tests/kit/check-job.sh"
check_job_index

repo=$tmp/repo
demo_project "$repo"
sed -i '/^ci:$/,$d' "$repo/wheelmatrix.yaml"
printf 'ci:\n  github: {}\n  gitlab: {}\n' >>"$repo/wheelmatrix.yaml"
"$WM" -q -C "$repo" generate || fatal "generate"
scratch_repo "$repo"
commit_all "$repo" "generated"
good=$(git -C "$repo" rev-parse HEAD)
grep -q "^  wheelmatrix-check:$" "$repo/.github/workflows/wheels.yml" || fatal "no job wheelmatrix-check in the workflow"
grep -q "^wheelmatrix-check:$" "$repo/.gitlab-ci.yml" || fatal "no job wheelmatrix-check in .gitlab-ci.yml"

# 1. the commit as generated: both jobs pass, having installed the release from the index
: >"$tmp/nginx/nginx/access.log"
github_check "$repo" "$good"
expect_status 0 "the GitHub job on a commit without drift"
grep -q "^replay: step 3: Check the CI files and patches against the matrix$" "$tmp/err" || fail "the check step did not run: $(cat "$tmp/err")"
grep -q "Successfully installed wheelmatrix-$version$" "$tmp/out" || fail "pip did not install wheelmatrix $version: $(cat "$tmp/out")"
if ! grep -q '"GET /simple/wheelmatrix/ HTTP' "$tmp/nginx/nginx/access.log" ||
	! grep -q "\"GET /files/$(basename "$check_wheel") HTTP" "$tmp/nginx/nginx/access.log"; then
	fail "the wheel did not come from the index: $(cat "$tmp/nginx/nginx/access.log")"
fi
gitlab_check "$repo"
expect_status 0 "the GitLab job on a commit without drift"
grep -q "^wheelmatrix-check .*Successfully installed wheelmatrix-$version" "$tmp/out" ||
	fail "the GitLab job did not install wheelmatrix $version: $(grep '^wheelmatrix-check' "$tmp/out")"
grep -q "^wheelmatrix-check .*check --rev \"\$CI_COMMIT_SHA\"" "$tmp/out" || fail "the GitLab job ran no check: $(cat "$tmp/out")"
# the environment was made outside the checkout, in TMPDIR, and is gone when the job ends
[ -z "$(find "$gl_tmp" "$repo/.gitlab-ci-local/builds" -name pyvenv.cfg)" ] ||
	fail "the GitLab job left its environment behind: $(find "$gl_tmp" "$repo/.gitlab-ci-local/builds" -name pyvenv.cfg)"

# 2. a commit of the matrix alone (a web edit, a commit no hook saw): both jobs fail with the finding
sed -i 's/"3.12"\]/"3.12", "3.13"]/' "$repo/wheelmatrix.yaml"
git -C "$repo" commit -qam "3.13, not generated"
drift=$(git -C "$repo" rev-parse HEAD)
finding="^\.github/workflows/wheels\.yml:[0-9]*:1: error: out of date (the matrix or the project changed): run 'wheelmatrix generate'$"
github_check "$repo" "$drift"
[[ $status != 0 ]] || fail "the GitHub job passed a commit whose workflow drifted"
grep -q "^replay-github.py: step 3 (Check the CI files and patches against the matrix) failed$" "$tmp/err" ||
	fail "the GitHub job did not fail at its check: $(tail -n 5 "$tmp/err")"
grep -q "$finding" "$tmp/err" || fail "the GitHub job's finding: $(cat "$tmp/err")"
grep -q "^\.gitlab-ci\.yml:[0-9]*:1: error: out of date" "$tmp/err" || fail "the GitHub job's finding on .gitlab-ci.yml: $(cat "$tmp/err")"
gitlab_check "$repo"
[[ $status != 0 ]] || fail "the GitLab job passed a commit whose files drifted"
grep -q "^wheelmatrix-check .*\.github/workflows/wheels\.yml:[0-9]*:1: error: out of date (the matrix or the project changed)" "$tmp/out" "$tmp/err" ||
	fail "the GitLab job's finding: $(grep '^wheelmatrix-check' "$tmp/out" "$tmp/err")"
# regenerated: passes again
"$WM" -q -C "$repo" generate && commit_all "$repo" "regenerated"
github_check "$repo" "$(git -C "$repo" rev-parse HEAD)"
expect_status 0 "the GitHub job on the regenerated commit"
gitlab_check "$repo"
expect_status 0 "the GitLab job on the regenerated commit"

# 3. only a wheel of the pinned release: with the index serving the sdist alone, pip builds nothing
cp "$tmp/wheel/dist/wheelmatrix-$version.tar.gz" "$tmp/www/files/"
sha=$(sha256sum <"$tmp/www/files/wheelmatrix-$version.tar.gz" | cut -c1-64)
mkdir -p "$tmp/www/sdist-only/wheelmatrix"
printf '<!DOCTYPE html><html><body><a href="../../files/wheelmatrix-%s.tar.gz#sha256=%s">wheelmatrix-%s.tar.gz</a></body></html>\n' \
	"$version" "$sha" "$version" >"$tmp/www/sdist-only/wheelmatrix/index.html"
PIP_INDEX_URL=http://127.0.0.1:$HTTP_PORT/sdist-only/ github_check "$repo" "$good"
[[ $status != 0 ]] || fail "the job installed wheelmatrix from its sdist"
grep -q "No matching distribution found for wheelmatrix==$version" "$tmp/out" "$tmp/err" ||
	fail "pip did not refuse the sdist: $(cat "$tmp/out" "$tmp/err")"

# 4. ci.github.check and ci.gitlab.check false: no job, and no publish job needs one
off=$tmp/off
demo_project "$off"
sed -i '/^ci:$/,$d' "$off/wheelmatrix.yaml"
printf 'ci:\n  github: {check: false}\n  gitlab: {check: false}\n' >>"$off/wheelmatrix.yaml"
"$WM" -q -C "$off" generate || fatal "generate with check: false"
! grep -qw -e "wheelmatrix-check$" -e "wheelmatrix-check:" -e "job: wheelmatrix-check" "$off/.github/workflows/wheels.yml" "$off/.gitlab-ci.yml" ||
	fail "check: false, and the CI files still name wheelmatrix-check"
"$WM" -C "$off" list --format jsonl >"$tmp/off.jsonl" || fatal "list"
"$py" "$ROOT/tests/helpers/wfcheck.py" "$off/.github/workflows/wheels.yml" "$tmp/off.jsonl" --no-check >"$tmp/wf" 2>&1 ||
	{ fail "wfcheck --no-check (above)"; show "$tmp/wf"; }
"$py" "$ROOT/tests/helpers/wfcheck.py" "$repo/.github/workflows/wheels.yml" <("$WM" -C "$repo" list --format jsonl) >"$tmp/wf" 2>&1 ||
	{ fail "wfcheck of the workflow with the job (above)"; show "$tmp/wf"; }
finish
