#!/bin/bash
# t-check-advice.sh — check's advice about another publisher never destroys.
#
# 1. a workflow that builds what the matrix builds and publishes it, beside a job the generated
#    workflow does not replace (docs to GitHub Pages): the finding is at the upload step, names
#    the publishing job, and proposes removing the jobs the generated one replaces, not the file;
# 2. a workflow that publishes another distribution (the project's pure-Python package, built by
#    `python -m build` in its own directory; the project's CLI, built by maturin from its own
#    Cargo.toml) is no second publisher;
# 3. the wheels init found lost against the index, recorded in the matrix file's header, keep the
#    workflow that builds them: init, against an index whose release has an i686 wheel of
#    manylinux_2_5 (a level the matrix cannot take), writes the record, and check names that
#    wheel; a record of a wheel the matrix makes once edited is read again against the matrix,
#    and stops keeping the workflow;
# 4. a platform left without jobs (every version excluded) is a warning at the platform in
#    generate and check too (list's is golden/platform-no-jobs).
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/plan-servers.sh"
generated=.github/workflows/wheels.yml

# project DIR: a git repository holding the maturin project demo 1.0.0, abi3-free, PyO3 0.22
project() {
	mkdir -p "$1/.github/workflows"
	printf '[build-system]\nrequires = ["maturin>=1.5,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "demo"\nversion = "1.0.0"\n' \
		>"$1/pyproject.toml"
	printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n\n[dependencies]\npyo3 = "0.22"\n' \
		>"$1/Cargo.toml"
	scratch_repo "$1"
}
# position FILE TEXT: the line and column where TEXT first starts in FILE
position() {
	awk -v t="$2" 'i = index($0, t) { print NR, i; exit }' "$1"
}
release_yml() {  # the project's release: wheels for x86_64 and i686 Linux, published on a tag
	cat <<'EOF'
on:
  push:
    tags: ["v*"]
jobs:
  build:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        target: [x86_64, i686]
    steps:
      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with:
          target: ${{ matrix.target }}
          manylinux: auto
          args: --release --out dist -i 3.12
      - uses: actions/upload-artifact@v4
        with: {name: "wheels-${{ matrix.target }}", path: dist}
  publish:
    needs: [build]
    runs-on: ubuntu-latest
    steps:
      - uses: actions/download-artifact@v4
      - uses: pypa/gh-action-pypi-publish@release/v1
EOF
}

# ---- 1. a job of another purpose in the workflow: not removed with it ----------------------
r=$tmp/docs
project "$r"
{ release_yml; cat <<'EOF'
  docs:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pip install mkdocs && mkdocs build
      - uses: peaceiris/actions-gh-pages@v4
        with: {publish_dir: site}
EOF
} >"$r/.github/workflows/release.yml"
wm -C "$r" init --offline
expect_status 0 "init with a release workflow that also deploys docs"
wm -q -C "$r" generate
expect_status 0 "generate"
commit_all "$r"
wm -C "$r" check
expect_status 1 "check with the release workflow beside the generated one"
read -r line column < <(position "$r/.github/workflows/release.yml" 'pypa/gh-action-pypi-publish')
want=".github/workflows/release.yml:$line:$column: error: job 'publish' uploads demo to an index on a tag push (pypa/gh-action-pypi-publish), as $generated does: two publishers of the same files; remove the jobs $generated replaces from this workflow, which has others ('docs'), or stop job 'publish' publishing"
grep -qxF "$want" "$tmp/err" || fail "check's advice with a docs job: $(cat "$tmp/err"), not $want"
grep -q "git rm" "$tmp/err" && fail "check proposes removing a workflow that also deploys docs: $(cat "$tmp/err")"
# without the docs job, every job is one the generated workflow replaces: the file may go
release_yml >"$r/.github/workflows/release.yml"
commit_all "$r"
wm -C "$r" check
expect_status 1 "check with the release workflow alone"
expect_err "error: job 'publish' uploads demo to an index on a tag push (pypa/gh-action-pypi-publish), as $generated does: two publishers of the same files; remove this workflow, whose every job that one replaces ('git rm .github/workflows/release.yml'), or stop job 'publish' publishing" \
	"removing a workflow the generated one replaces"

# ---- 2. another distribution: no second publisher ------------------------------------------
r=$tmp/others
project "$r"
mkdir -p "$r/pure" "$r/cli"
printf '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "demo-tools"\nversion = "1.0.0"\n' \
	>"$r/pure/pyproject.toml"
printf '[package]\nname = "demo-cli"\nversion = "1.0.0"\nedition = "2021"\n' >"$r/cli/Cargo.toml"
cat >"$r/.github/workflows/pure.yml" <<'EOF'
on: {push: {tags: ["v*"]}}
jobs:
  pure:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: python -m build --wheel pure --outdir dist
      - run: twine upload dist/*
EOF
cat >"$r/.github/workflows/cli.yml" <<'EOF'
on: {push: {tags: ["v*"]}}
jobs:
  cli:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with: {manylinux: auto, args: "--release -m cli/Cargo.toml --out dist"}
      - uses: PyO3/maturin-action@v1
        with: {command: upload, args: "dist/*"}
EOF
wm -C "$r" init --offline
expect_status 0 "init beside workflows of other distributions"
wm -q -C "$r" generate
commit_all "$r"
wm -C "$r" check
expect_status 0 "check with workflows that publish other distributions"
[[ -s $tmp/err ]] && fail "check reports another distribution's workflow: $(cat "$tmp/err")"
# the same CLI workflow building the project itself is a second publisher
sed -i 's| -m cli/Cargo.toml||' "$r/.github/workflows/cli.yml"
commit_all "$r"
wm -C "$r" check
expect_status 1 "check once cli.yml builds the project"
expect_err ".github/workflows/cli.yml" "the workflow building the project itself"

# ---- 3. the wheels init found lost, recorded in the header ----------------------------------
r=$tmp/record
project "$r"
release_yml >"$r/.github/workflows/release.yml"
commit_all "$r"
# the release: the x86_64 wheel as the matrix builds it, and maturin's i686 wheel of manylinux_2_5
mkdir -p "$tmp/srv" "$tmp/www/simple/demo"
python3 - "$tmp/www/simple/demo/index.json" <<'PY'
import json, sys
files = ["demo-1.0.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
         "demo-1.0.0-cp312-cp312-manylinux_2_5_i686.manylinux1_i686.whl", "demo-1.0.0.tar.gz"]
json.dump({"meta": {"api-version": "1.1"}, "name": "demo",
           "files": [{"filename": f, "url": f, "hashes": {"sha256": "0" * 64}} for f in files]}, open(sys.argv[1], "w"))
PY
start_nginx "$tmp/srv" "$tmp/www" || fatal "nginx did not start"
wm -C "$r" init --index "http://127.0.0.1:$HTTP_PORT/simple/"
expect_status 0 "init against the release"
grep -qF "2 wheels published in 1.0.0, 1 reproduced, 1 not:" "$tmp/out" || fail "the summary: $(cat "$tmp/out")"
grep -q "^#   lost: demo-1.0.0-cp312-cp312-manylinux_2_5_i686.manylinux1_i686.whl (.github/workflows/release.yml): level 2_5" \
	"$r/wheelmatrix.yaml" || fail "the header does not record the lost wheel: $(head -20 "$r/wheelmatrix.yaml")"
grep -q "^.github/workflows/release.yml: note: builds wheels.*keep it until" "$tmp/err" ||
	fail "init does not keep the workflow whose wheel is lost: $(cat "$tmp/err")"
wm -q -C "$r" generate
commit_all "$r"
wm -C "$r" check
expect_status 1 "check with the workflow whose wheel the matrix cannot build"
expect_err "but this workflow builds wheels the matrix does not (1: demo-1.0.0-cp312-cp312-manylinux_2_5_i686.manylinux1_i686.whl)" \
	"check names the wheel init recorded"
grep -q "git rm" "$tmp/err" && fail "check proposes removing the workflow of a lost wheel: $(cat "$tmp/err")"
# without the record, the builds alone make nothing the matrix does not: the workflow is replaced
sed -i '/^#   lost: /d' "$r/wheelmatrix.yaml"
commit_all "$r"
wm -C "$r" check
expect_err "remove this workflow, whose every job that one replaces" "check once the record is gone"
# a record is read against the matrix each time: a wheel it makes once edited keeps nothing
sed -i 's|^\(# yaml-language-server.*\)$|\1\n#   lost: demo-1.0.0-cp313-cp313-manylinux_2_17_x86_64.whl (.github/workflows/release.yml): not built|' \
	"$r/wheelmatrix.yaml"
commit_all "$r"
wm -C "$r" check
expect_err "builds wheels the matrix does not (1: demo-1.0.0-cp313-cp313-manylinux_2_17_x86_64.whl)" "a recorded cp313 wheel"
grep -q '^python:' "$r/wheelmatrix.yaml" || fatal "no python key to extend: $(cat "$r/wheelmatrix.yaml")"
sed -i 's|^  versions: \["3.12"\]$|  versions: ["3.12", "3.13"]|' "$r/wheelmatrix.yaml"
grep -q '"3.13"' "$r/wheelmatrix.yaml" || fatal "3.13 not added: $(cat "$r/wheelmatrix.yaml")"
wm -q -C "$r" generate --force
commit_all "$r"
wm -C "$r" check
expect_err "remove this workflow, whose every job that one replaces" "check once the matrix builds the recorded wheel"
grep -q "cp313" "$tmp/err" && fail "a wheel the matrix builds still keeps the workflow: $(cat "$tmp/err")"

# ---- 4. a platform without jobs, in generate and check ---------------------------------------
r=$tmp/empty
project "$r"
cat >"$r/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
project: {name: demo}
python: {versions: ["3.12"]}
platforms: [linux-x86_64, windows-arm64]
backends:
  cpu: {default: true}
exclude:
  - {platform: windows-arm64, python: "3.12"}
EOF
want="wheelmatrix.yaml:4:27: warning: platform 'windows-arm64' has no jobs"
wm -C "$r" generate
expect_status 0 "generate with a platform without jobs"
expect_err "$want" "generate's warning"
commit_all "$r"
wm -C "$r" check
expect_err "$want" "check's warning"
finish
