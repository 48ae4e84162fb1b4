#!/usr/bin/env bash
# t-index-files.sh — strategy index: generate writes each backend's patch with its local label, the
# install files of .wheelmatrix/index/ (read back by Python's tomllib and as pip requirements), and
# check agrees; the GitLab CI file is refused with a located error, the GitHub workflow alone is written.
. "$ROOT/tests/kit/lib.sh"

project=$tmp/project
scratch_repo "$project"
cp -r "$ROOT/tests/fixtures/llm-rs/." "$project/"
rm -f "$project/wheelmatrix.yaml"
cat >"$project/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
project: {name: llm-rs, module: llm_rs}
python: {abi3: "3.8"}
platforms: [linux-x86_64, macos-arm64]
backends:
  cuda: {features: [cublas], platforms: [linux-x86_64]}
  rocm_6: {features: [cublas], platforms: [linux-x86_64]}
  cpu: {default: true}
distribution:
  strategy: index
  index: {url: "https://owner.github.io/llm-rs/whl/"}
ci: {}
EOF
commit_all "$project"

wm -C "$project" generate
expect_status 0 "generate"
for f in patches/cuda.patch patches/rocm_6.patch index/requirements-cuda.txt index/requirements-rocm_6.txt \
	index/requirements-cpu.txt index/pyproject.toml; do
	[[ -f $project/.wheelmatrix/$f ]] || fail "generate did not write .wheelmatrix/$f"
done
[[ ! -e $project/.wheelmatrix/patches/cpu.patch ]] || fail "the default backend got a patch"

# the patches: the version with its label, the name kept
git -C "$project" apply --check .wheelmatrix/patches/cuda.patch || fail "git apply --check cuda.patch"
grep -qx '+version = "0.2.15+cuda"' "$project/.wheelmatrix/patches/cuda.patch" || fail "cuda.patch lacks the version"
grep -qx '+version = "0.2.15+rocm.6"' "$project/.wheelmatrix/patches/rocm_6.patch" || fail "rocm_6.patch lacks the version"
! grep -q '^[-+]name' "$project/.wheelmatrix/patches/cuda.patch" || fail "cuda.patch renames the project"

# the requirements files, as pip reads them: options, then one requirement
strip() { grep -v '^#' "$project/.wheelmatrix/index/requirements-$1.txt"; }
expect_same - <(strip cuda) "requirements-cuda.txt" <<'EOF'
--extra-index-url https://owner.github.io/llm-rs/whl/cuda/
llm-rs==0.2.15+cuda
EOF
expect_same - <(strip rocm_6) "requirements-rocm_6.txt" <<'EOF'
--extra-index-url https://owner.github.io/llm-rs/whl/rocm_6/
llm-rs==0.2.15+rocm.6
EOF
expect_same - <(strip cpu) "requirements-cpu.txt" <<'EOF'
llm-rs==0.2.15
EOF

# the uv project: an extra per backend, each other than the default from its explicit index
python3 - "$project/.wheelmatrix/index/pyproject.toml" <<'PY' || fail "index/pyproject.toml (above)"
import sys, tomllib
doc = tomllib.load(open(sys.argv[1], "rb"))
extras = doc["project"]["optional-dependencies"]
assert extras == {"cuda": ["llm-rs"], "rocm-6": ["llm-rs"], "cpu": ["llm-rs"]}, extras
assert doc["tool"]["uv"]["conflicts"] == [[{"extra": "cuda"}, {"extra": "rocm-6"}, {"extra": "cpu"}]]
assert doc["tool"]["uv"]["sources"]["llm-rs"] == [
    {"index": "llm-rs-cuda", "extra": "cuda"}, {"index": "llm-rs-rocm-6", "extra": "rocm-6"}]
assert doc["tool"]["uv"]["index"] == [
    {"name": "llm-rs-cuda", "url": "https://owner.github.io/llm-rs/whl/cuda/", "explicit": True},
    {"name": "llm-rs-rocm-6", "url": "https://owner.github.io/llm-rs/whl/rocm_6/", "explicit": True}]
assert "build-system" not in doc, "a virtual project: uv installs its dependencies only"
PY

# check agrees once they are committed, and notices a stale one
commit_all "$project"
wm -C "$project" check
expect_status 0 "check after generate"
sed -i 's|0.2.15+cuda|0.2.14+cuda|' "$project/.wheelmatrix/index/requirements-cuda.txt"
wm -C "$project" check
expect_status 1 "check with an edited requirements file"
expect_err "requirements-cuda.txt" "check names the edited file"

# local: false: the backend's index alone, no label
sed -i 's|index: {url: "https://owner.github.io/llm-rs/whl/"}|index: {url: "https://owner.github.io/llm-rs/whl/", local: false}|' \
	"$project/wheelmatrix.yaml"
wm -C "$project" generate --force
expect_status 0 "generate, local: false"
expect_same - <(strip cuda) "requirements-cuda.txt, local: false" <<'EOF'
--index-url https://owner.github.io/llm-rs/whl/cuda/
llm-rs==0.2.15
EOF
! grep -q '^+version' "$project/.wheelmatrix/patches/cuda.patch" || fail "local: false still sets a version"

# with no `ci:`, both CI files are written: the GitHub workflow with its release and Pages jobs,
# the GitLab file with its pages job
sed -i '/^ci: {}$/d' "$project/wheelmatrix.yaml"
wm -q -C "$project" generate
expect_status 0 "generate with both CI files"
[[ -f $project/.github/workflows/wheels.yml && -f $project/.gitlab-ci.yml ]] || fail "both CI files were not written"
grep -qx "  index-pages:" "$project/.github/workflows/wheels.yml" || fail "the workflow has no index-pages job"
grep -qx "pages:" "$project/.gitlab-ci.yml" || fail "the GitLab file has no pages job"
# the GitLab file alone
rm -r "$project/.github" "$project/.gitlab-ci.yml"
printf 'ci: {gitlab: {}}\n' >>"$project/wheelmatrix.yaml"
wm -q -C "$project" generate
expect_status 0 "generate with the GitLab CI file alone"
[[ -f $project/.gitlab-ci.yml && ! -e $project/.github ]] || fail "ci: {gitlab: {}} did not write the GitLab file alone"
# the GitHub workflow alone
rm "$project/.gitlab-ci.yml"
sed -i 's/^ci: {gitlab: {}}$/ci: {github: {}}/' "$project/wheelmatrix.yaml"
wm -q -C "$project" generate
expect_status 0 "generate with the GitHub workflow alone"
[[ -f $project/.github/workflows/wheels.yml && ! -e $project/.gitlab-ci.yml ]] ||
	fail "ci: {github: {}} did not write the GitHub workflow alone"
# without a default backend every backend gets a release and an index, nothing goes to PyPI, and
# publish.github-release has no files of its own to attach: tests/helpers/wfcheck.py's properties hold
sed -i -e 's/^  cpu: {default: true}$/  cpu: {}/' "$project/wheelmatrix.yaml"
printf 'publish: {github-release: true}\n' >>"$project/wheelmatrix.yaml"
wm -q -C "$project" generate
expect_status 0 "generate without a default backend"
wm -q -C "$project" list --format jsonl
cp "$tmp/out" "$tmp/list.jsonl"
python3 "$ROOT/tests/helpers/wfcheck.py" "$project/.github/workflows/wheels.yml" "$tmp/list.jsonl" --index "" ||
	fail "the workflow without a default backend (above)"
python3 - "$project/.github/workflows/wheels.yml" <<'PY' || fail "the workflow without a default backend (above)"
import sys, yaml
jobs = yaml.safe_load(open(sys.argv[1]))["jobs"]
odd = sorted(j for j in jobs if j.startswith("publish-") or j == "github-release")
want = ["index-cpu", "index-cuda", "index-rocm_6"]
if odd or sorted(jobs["index-pages"]["needs"]) != want:
    sys.exit("publish or release jobs %s; index-pages needs %s, not %s" % (odd, jobs["index-pages"]["needs"], want))
PY
finish
