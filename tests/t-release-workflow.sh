#!/bin/bash
# t-release-workflow.sh — wheelmatrix's own release workflow (.github/workflows/release.yml, written by hand) passes actionlint, zizmor, action-validator and shellcheck as a generated one must (tests/helpers/wmlint.py); its actions are pinned to the commits of .github/pins.yaml with their tags after them, which .github/workflows/pins.yml checks with the tool's own pin --check, (templates/actions.yaml's where it has the action, a release for the PyPI publisher), its build tools come by hash from .github/release-requirements.txt, its runner labels are templates/runners.yaml's with no retirement, it builds Linux x86_64 and aarch64 and macOS arm64 and x86_64 wheels and an sdist with the pinned tools, and publishes them on a tag with trusted publishing, build provenance and attestations; .github/wheel-deps.sh passes shellcheck and builds libyaml, Jansson and libgit2 from recorded commits for macOS (Homebrew only for pkgconf).  A copy with an action on another tag, one on a retiring runner, and one splicing the tag into a script (zizmor) each fail.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
lint=$ROOT/tests/helpers/wmlint.py
why=$("$py" "$lint" --missing) || fatal "$why"
need shellcheck "make test-deps (apt-get install shellcheck)"
workflow=$ROOT/.github/workflows/release.yml

# facts WORKFLOW: what the workflow must say, against the catalogs; prints each problem, exit 1 if any
# shellcheck disable=SC2317  # run by `run facts`
facts() {
	"$py" - "$1" "$ROOT/templates/actions.yaml" "$ROOT/templates/runners.yaml" "$ROOT/pyproject.toml" \
		"$ROOT/.github/release-requirements.txt" <<'PY'
import re, sys, tomllib, yaml
wf = yaml.safe_load(open(sys.argv[1]))
text = open(sys.argv[1]).read()
lock = open(sys.argv[5]).read()
actions = yaml.safe_load(open(sys.argv[2]))
runners = yaml.safe_load(open(sys.argv[3]))
with open(sys.argv[4], "rb") as f:
    cibw = tomllib.load(f)["tool"]["cibuildwheel"]
problems = []
jobs = wf["jobs"]
steps = [(name, s) for name, job in jobs.items() for s in job.get("steps", [])]
# every action on a commit, its tag after it: the catalogue's tag where it has the action (a release,
# never the moving release/v1 branch, for the PyPI publisher)
for m in re.finditer(r"^\s*(?:- )?uses: (\S+)@(\S+)(.*)$", text, re.M):
    action, ref, rest = m[1], m[2], m[3]
    tag = re.fullmatch(r"\s+# (\S+)", rest)
    want = actions["actions"].get(action)
    if not re.fullmatch(r"[0-9a-f]{40}", ref) or not tag:
        problems.append(f"{action}@{ref}: not a commit with its tag after it")
    elif action == "pypa/gh-action-pypi-publish":
        if not re.fullmatch(r"v\d+\.\d+\.\d+", tag[1]):
            problems.append(f"{action}: on {tag[1]}, not a release tag")
    elif tag[1] != want:
        problems.append(f"{action}@{ref} # {tag[1]} is not on the tag of templates/actions.yaml ({want})")
labels = set()
for name, job in jobs.items():
    if job["runs-on"] == "${{ matrix.runner }}":
        labels |= {e["runner"] for e in job["strategy"]["matrix"]["include"]}
    else:
        labels.add(job["runs-on"])
for label in sorted(labels):
    if label not in runners or "retires" in (runners[label] or {}):
        problems.append(f"runner {label}: not in templates/runners.yaml, or retiring there")
ids = sorted(e["id"] for e in jobs["wheels"]["strategy"]["matrix"]["include"])
if ids != ["linux-aarch64", "linux-x86_64", "macos-arm64", "macos-x86_64"]:
    problems.append(f"the wheels built are {ids}")
runs = " ".join(s.get("run", "") for _, s in steps)
# the build tools by hash: the lock pins build at templates/actions.yaml's pin, cibuildwheel, with hashes
pins = dict(re.findall(r"^([a-z0-9-]+)==(\S+)", lock, re.M))
if pins.get("build") != actions["tools"]["build"] or "cibuildwheel" not in pins:
    problems.append(f"the release lock pins build {pins.get('build')} and cibuildwheel {pins.get('cibuildwheel')}")
for entry in re.sub(r"\\\n", " ", lock).splitlines():
    if entry and not entry.startswith("#") and "--hash=sha256:" not in entry:
        problems.append(f"the release lock has a requirement without a hash: {entry}")
installs = [line.strip() for _, s in steps for line in s.get("run", "").splitlines() if "pip install" in line]
if len(installs) != 2 or any(i != "python -m pip install --require-hashes --only-binary :all: -r .github/release-requirements.txt"
                             for i in installs) or "pipx" in runs:
    problems.append(f"the build tools are installed otherwise than by hash: {installs}")
if "python -m build --sdist" not in runs or "python -m cibuildwheel " not in runs:
    problems.append("the sdist or the wheels are not built by the locked build and cibuildwheel")
if cibw.get("build") != "cp312-*" or cibw.get("manylinux-x86_64-image") != "manylinux_2_28":
    problems.append("pyproject.toml's [tool.cibuildwheel] builds more than one wheel per platform, or off manylinux_2_28")
publish = jobs["publish"]
uses = [s.get("uses", "") for s in publish["steps"]]
with_ = {s.get("uses", ""): s.get("with", {}) for s in publish["steps"]}
if publish.get("if") != "startsWith(github.ref, 'refs/tags/')" or sorted(publish["needs"]) != ["sdist", "wheels"]:
    problems.append("publish does not run on tags only, after the wheels and the sdist")
if publish["permissions"] != {"contents": "read", "id-token": "write", "attestations": "write"}:
    problems.append(f"publish's permissions are {publish['permissions']}")
if not any(u.startswith("actions/attest@") for u in uses):
    problems.append("publish attests no build provenance")
pp = [u for u in uses if u.startswith("pypa/gh-action-pypi-publish@")]
if not pp or with_[pp[0]].get("attestations") is not True or "password" in with_[pp[0]]:
    problems.append("publish does not upload with trusted publishing and attestations")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
}

run facts "$workflow"
expect_status 0 "release.yml's actions, runners, builds and publishing"
run "$py" "$lint" "$workflow"
expect_status 0 "actionlint, zizmor, action-validator and shellcheck on release.yml"
run shellcheck --severity=style "$ROOT/.github/wheel-deps.sh"
expect_status 0 "shellcheck of .github/wheel-deps.sh"
# every action of release.yml and pins.yml is on the commit .github/pins.yaml pins it to, with its tag;
# pins.yml runs the tool's own pin --check on that table, which loads as a matrix
pins=$ROOT/.github/workflows/pins.yml
run "$py" "$lint" "$pins"
expect_status 0 "actionlint, zizmor, action-validator and shellcheck on pins.yml"
wm list -f "$ROOT/.github/pins.yaml" --format json
expect_status 0 "list of .github/pins.yaml"
"$py" - "$workflow" "$pins" "$ROOT/.github/pins.yaml" <<'PY' || fail "the pins of the workflows (above)"
import re, sys, yaml
table = {}
for line in open(sys.argv[3]):
    m = re.match(r"^  (\S+): ([0-9a-f]{40})  # (\S+)$", line)
    if m:
        table[m[1]] = (m[2], m[3])
bad = []
for wf in sys.argv[1:3]:
    for m in re.finditer(r"uses: (\S+)@(\S+)\s+# (\S+)", open(wf).read()):
        if table.get(m[1]) != (m[2], m[3]):
            bad.append("%s: %s@%s # %s is not .github/pins.yaml's %s" % (wf.split("/")[-1], m[1], m[2], m[3], table.get(m[1])))
runs = [s.get("run", "") for j in yaml.safe_load(open(sys.argv[2]))["jobs"].values() for s in j["steps"]]
if not any(r.strip() == "build/wheelmatrix pin --check -f .github/pins.yaml" for r in runs):
    bad.append("pins.yml does not run the tool's pin --check on .github/pins.yaml")
if len(table) < 7:
    bad.append("pins.yaml pins %d actions" % len(table))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
# the libraries the wheels bundle come from their repositories at recorded commits, on macOS too:
# Homebrew gives a build tool alone
deps=$ROOT/.github/wheel-deps.sh
if [[ $(grep -c '^\s*brew install' "$deps") != 1 ]] || ! grep -q '^\s*brew install pkgconf$' "$deps"; then
	fail "wheel-deps.sh installs more than pkgconf with Homebrew: $(grep 'brew install' "$deps")"
fi
for lib in libyaml jansson libgit2; do
	if ! grep -q "^\s*clone $lib https://github.com/[^ ]* \"\$${lib}_tag\" \"\$${lib}_commit\"$" "$deps" ||
		! grep -q "${lib}_tag=[^ ]* ${lib}_commit=[0-9a-f]\{40\}" "$deps"; then
		fail "wheel-deps.sh does not build $lib from a recorded commit"
	fi
done

# the checks can fail: an action on another tag (zizmor's ref-pin policy too), a retiring runner
mkdir -p "$tmp/old/.github/workflows" "$tmp/retiring/.github/workflows"
sed 's|actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1  # v7|actions/checkout@v7|' "$workflow" >"$tmp/old/.github/workflows/release.yml"
run facts "$tmp/old/.github/workflows/release.yml"
expect_status 1 "release.yml with actions/checkout@v7"
grep -q "actions/checkout@v7: not a commit with its tag after it" "$tmp/out" || fail "no finding for actions/checkout@v7: $(cat "$tmp/out")"
sed 's|pypa/gh-action-pypi-publish@ed0c53931b1dc9bd32cbe73a98c7f6766f8a527e  # v1.13.0|pypa/gh-action-pypi-publish@ed0c53931b1dc9bd32cbe73a98c7f6766f8a527e  # release/v1|' "$workflow" >"$tmp/old/.github/workflows/release.yml"
run facts "$tmp/old/.github/workflows/release.yml"
expect_status 1 "release.yml's publisher on release/v1"
grep -q "pypa/gh-action-pypi-publish: on release/v1, not a release tag" "$tmp/out" || fail "no finding for release/v1: $(cat "$tmp/out")"
# and the validators see this file: the tag spliced into the check's script is an injection
mkdir -p "$tmp/injected/.github/workflows"
sed 's|if \[ ! -f "dist/wheelmatrix-${WM_TAG#v}.tar.gz" \]; then|if [ ! -f "dist/wheelmatrix-${{ github.ref_name }}.tar.gz" ]; then|' "$workflow" >"$tmp/injected/.github/workflows/release.yml"
cmp -s "$workflow" "$tmp/injected/.github/workflows/release.yml" && fatal "the tag check of release.yml is not where this test looks"
run "$py" "$lint" "$tmp/injected/.github/workflows/release.yml"
expect_status 1 "the validators on release.yml with github.ref_name in a script"
grep -q "template-injection" "$tmp/out" "$tmp/err" || fail "zizmor reports no template-injection: $(cat "$tmp/out" "$tmp/err")"
sed 's|runner: macos-26-intel$|runner: macos-15-intel|' "$workflow" >"$tmp/retiring/.github/workflows/release.yml"
run facts "$tmp/retiring/.github/workflows/release.yml"
expect_status 1 "release.yml on macos-15-intel"
grep -q "runner macos-15-intel: not in templates/runners.yaml, or retiring there" "$tmp/out" || fail "no finding for macos-15-intel: $(cat "$tmp/out")"

finish
