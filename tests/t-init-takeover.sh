#!/bin/bash
# t-init-takeover.sh — init writes the matrix that builds the wheels the workflows it replaces
# build, and names what it cannot.
#
# 1. `maturin new` and `maturin generate-ci github`, run here with the pinned maturin: the jobs of
#    the matrix init writes (`list --format json`) are exactly the wheels of maturin's CI.yml,
#    computed here from CI.yml (PyYAML) and from maturin itself (`maturin list-python --target`,
#    the interpreters a cross build finds, PyPy among them), and nothing is dropped: the file
#    names no drop and init says the generated workflow replaces CI.yml.
# 2. workflows modelled on real projects' (an explicit -i list, cross targets, musllinux, a
#    self-hosted runner, manylinux 2_28, before-script-linux), each releasing on a tag push: each
#    becomes its override; a target the catalogue lacks (loongarch64) is dropped by name, in the notes
#    and the file; a strategy.matrix's exclude removes its combinations (GitHub's rule, before
#    include).
# 3. hostile workflow files are data: a name with control characters is passed over with a note
#    that does not echo it, a workflow over the size bound is not read, and values with newlines
#    never reach the file's comments.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

# ---- 1. maturin new's CI ---------------------------------------------------------------------
repo=$tmp/demo
maturin_new_ci "$repo"
grep -q "find-interpreter" "$repo/.github/workflows/CI.yml" || fatal "maturin's CI.yml no longer uses --find-interpreter"
wm -C "$repo" init --offline
expect_status 0 "init in maturin new's project"
cp "$tmp/err" "$tmp/init-err"
wm -C "$repo" list --format json
expect_status 0 "list after init in maturin new's project"
cp "$tmp/out" "$tmp/jobs.json"
for t in x86_64-unknown-linux-gnu i686-unknown-linux-gnu aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf \
		s390x-unknown-linux-gnu powerpc64le-unknown-linux-gnu x86_64-unknown-linux-musl i686-unknown-linux-musl \
		aarch64-unknown-linux-musl armv7-unknown-linux-musleabihf; do
	"$maturin" list-python --target "$t" >"$tmp/python-$t" 2>&1 || fatal "maturin list-python --target $t: $(cat "$tmp/python-$t")"
done
"$py" - "$repo" "$tmp" "$tmp/jobs.json" "$tmp/init-err" "$ROOT/templates/pyo3.yaml" "$ROOT/templates/platforms.yaml" <<'PY' || fail "maturin new: the matrix does not build CI.yml's wheels"
import json, re, sys, tomllib, yaml
repo, tmp, jobs, err, pyo3_table, catalog = sys.argv[1:]
ci = yaml.safe_load(open(repo + "/.github/workflows/CI.yml"))
requires = tomllib.load(open(repo + "/pyproject.toml", "rb"))["project"]["requires-python"]
lowest = int(re.fullmatch(r">=\s*3\.(\d+)", requires).group(1))
# the PyO3 the crate builds with: Cargo.lock's, else Cargo.toml's requirement; what it builds, from the table
lock = open(repo + "/Cargo.lock").read() if __import__("os").path.exists(repo + "/Cargo.lock") else ""
m = re.search(r'name = "pyo3"\nversion = "(\d+)\.(\d+)', lock) or \
    re.search(r'pyo3 = \{ version = "(\d+)\.(\d+)|pyo3 = "(\d+)\.(\d+)', open(repo + "/Cargo.toml").read())
series = "%s.%s" % tuple(g for g in m.groups() if g)[:2]
row = yaml.safe_load(open(pyo3_table))["pyo3"][series]
py_max = int(row["python"][1].split(".")[1])
pp_min, pp_max = (int(v.split(".")[1]) for v in row["pypy"])
# each maturin-action build of CI.yml: its job's family and level, the target, the runner's interpreters
arch = {"x86_64": "x86_64", "x64": "x86_64", "x86": "i686", "aarch64": "aarch64", "armv7": "armv7l",
        "s390x": "s390x", "ppc64le": "ppc64le"}
triple = {("manylinux", "x86_64"): "x86_64-unknown-linux-gnu", ("manylinux", "i686"): "i686-unknown-linux-gnu",
          ("manylinux", "aarch64"): "aarch64-unknown-linux-gnu", ("manylinux", "armv7l"): "armv7-unknown-linux-gnueabihf",
          ("manylinux", "s390x"): "s390x-unknown-linux-gnu", ("manylinux", "ppc64le"): "powerpc64le-unknown-linux-gnu",
          ("musllinux", "x86_64"): "x86_64-unknown-linux-musl", ("musllinux", "i686"): "i686-unknown-linux-musl",
          ("musllinux", "aarch64"): "aarch64-unknown-linux-musl", ("musllinux", "armv7l"): "armv7-unknown-linux-musleabihf"}
def listed(t):
    out = open("%s/python-%s" % (tmp, t)).read()
    return ({int(v) for v in re.findall(r"CPython 3\.(\d+)\b", out)}, {int(v) for v in re.findall(r"PyPy 3\.(\d+)", out)})
want = set()
for name, job in ci["jobs"].items():
    step = next((s for s in job.get("steps", []) if "maturin-action" in s.get("uses", "")), None)
    if not step or step["with"].get("command") == "sdist":
        continue
    assert "--find-interpreter" in step["with"]["args"], name
    for p in job["strategy"]["matrix"]["platform"]:
        runner, target = p["runner"], p["target"]
        cpython = set(range(lowest, py_max + 1))
        pypy = set()
        if runner.startswith("ubuntu"):
            level = step["with"]["manylinux"]
            family = "musllinux" if level.startswith("musllinux") else "manylinux"
            # auto: maturin-action runs the manylinux2014 images, and maturin tags the wheel 2_17
            tag = "%s_%s" % (family, "2_17" if level == "auto" else level[len("musllinux_"):])
            plat = "%s_%s" % (tag, arch[target])
            if tag == "manylinux_2_17" and arch[target] in ("x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x"):
                # maturin 1.16 writes 2_17 with the legacy alias PyPI allows, the set sorted
                # (src/target/legacy_py.rs ALLOWED_PLATFORMS, src/target/wheel_tag.rs)
                plat = "manylinux2014_%s.%s" % (arch[target], plat)
            if family == "manylinux" and target in ("x86_64", "x86"):
                # native, in the pypa image: its pypy3.11 on x86_64, none on i686 (pypa/manylinux finalize-one.sh)
                pypy = {11} if target == "x86_64" else set()
            else:
                # cross: maturin's own sysconfig data, as maturin itself lists it
                found_cp, found_pp = listed(triple[(family, arch[target])])
                cpython &= found_cp
                pypy = found_pp
        elif runner.startswith("windows"):
            plat = {"x64": "win_amd64", "x86": "win32", "aarch64": "win_arm64"}[target]
            if target == "aarch64":
                cpython = {v for v in cpython if v >= 11}  # python.org's arm64 Windows installers: 3.11 on
        else:
            plat = {"x86_64": "macosx_10_12_x86_64", "aarch64": "macosx_11_0_arm64"}[target]
        want |= {("cp3%d-cp3%d" % (v, v), plat) for v in cpython}
        # PyPy by its interpreter tag: its ABI tag (pp73, pp80) is t-pypy-maturin's, from maturin's build
        want |= {("pp3%d" % v, plat) for v in pypy if pp_min <= v <= pp_max and v >= lowest}
got = {(j["python_tag"] if j["python_tag"].startswith("pp") else j["python_tag"] + "-" + j["abi_tag"], j["platform_tag"])
       for j in json.load(open(jobs))}
plat_of = {j["platform"]: j["platform_tag"] for j in json.load(open(jobs))}
# what init says it drops: PyPy only, by version and platform
dropped, other = set(), []
for line in open(err):
    d = re.match(r"\.github/workflows/CI\.yml: note: drops (.*)", line)
    if not d:
        continue
    pp = re.match(r"PyPy 3\.(\d+) on ([a-z0-9_, -]+):", d.group(1))
    if not pp:
        other.append(d.group(1))
        continue
    for pid in pp.group(2).split(", "):
        dropped.add(("pp3%s" % pp.group(1), plat_of[pid]))
ok = True
if other or dropped:
    print("init drops wheels of CI.yml:", other, sorted(dropped)); ok = False
if got - want:
    print("jobs CI.yml does not build:", sorted(got - want)); ok = False
if want - got != dropped:
    print("wheels of CI.yml neither built nor named as dropped:", sorted(want - got - dropped))
    print("named as dropped but built, or not built by CI.yml:", sorted(dropped - (want - got))); ok = False
if not any(p.startswith("musllinux_1_2_armv7l") for _, p in got) or not any(t == "pp311" for t, _ in got):
    print("no musllinux armv7 or PyPy job at all"); ok = False
# maturin's own PyPy tables for cross and musllinux targets: built there too
if not {("pp311", "musllinux_1_2_armv7l"), ("pp312", "manylinux2014_s390x.manylinux_2_17_s390x")} <= got:
    print("no PyPy from maturin's tables (musllinux armv7, s390x)"); ok = False
print("%d wheels of CI.yml; %d built, %d named as dropped" % (len(want), len(got), len(dropped)))
sys.exit(0 if ok else 1)
PY
grep -q "replaces it" "$tmp/init-err" || fail "maturin new: init does not say the generated workflow replaces CI.yml: $(cat "$tmp/init-err")"
grep -q "^# drops" "$repo/wheelmatrix.yaml" && fail "maturin new: the file names drops: $(grep "^# drops" "$repo/wheelmatrix.yaml")"

# ---- 2. real projects' shapes ----------------------------------------------------------------
repo=$tmp/real
demo_project "$repo"
rm -f "$repo/wheelmatrix.yaml"
mkdir -p "$repo/.github/workflows"
cat >"$repo/.github/workflows/release.yml" <<'EOF'
on: {push: {tags: ["v*"]}}
jobs:
  linux:
    runs-on: ${{ matrix.runner }}
    strategy:
      matrix:
        include:
          - {runner: ubuntu-latest, target: x86_64}
          - {runner: [self-hosted, linux, arm64], target: aarch64}
          - {runner: ubuntu-latest, target: ppc64le}
    steps:
      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with:
          target: ${{ matrix.target }}
          manylinux: 2_28
          args: --release --out dist -i python3.9 python3.10 python3.11 python3.12 python3.13 python3.14t
          before-script-linux: yum install -y openssl-devel
  musl:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        target: [x86_64-unknown-linux-musl, aarch64, loongarch64]
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          target: ${{ matrix.target }}
          manylinux: musllinux_1_1
          args: --release --out dist -i 3.9 3.10 3.11 3.12 3.13 3.14t
          before-script-linux: yum install -y openssl-devel
  mac:
    runs-on: my-mac-mini
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          target: universal2-apple-darwin
          args: --release --out dist --interpreter 3.9 3.10 3.11 3.12 3.13 3.14t
  publish:
    needs: [linux, musl, mac]
    runs-on: ubuntu-latest
    steps:
      - uses: pypa/gh-action-pypi-publish@release/v1
EOF
# no target, no -i: the runner's own architecture, and the interpreter setup-python puts on the PATH
cat >"$repo/.github/workflows/mac.yml" <<'EOF'
on: {release: {types: [published]}}
jobs:
  publish:
    runs-on: ubuntu-latest
    steps:
      - uses: pypa/gh-action-pypi-publish@release/v1
  mac:
    runs-on: macos-14
    steps:
      - uses: actions/setup-python@v5
        with: {python-version: "3.12"}
      - uses: PyO3/maturin-action@v1
        with: {args: --release --out dist}
EOF
printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n[lib]\ncrate-type = ["cdylib"]\n[dependencies]\npyo3 = "0.29"\n' >"$repo/Cargo.toml"
wm -C "$repo" init --offline
expect_status 0 "init with workflows modelled on real projects'"
cp "$tmp/err" "$tmp/init-err"
"$py" - "$repo/wheelmatrix.yaml" <<'PY' || fail "real projects: the matrix is not what the workflow builds: $(cat "$repo/wheelmatrix.yaml")"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
want_platforms = {
    "linux-x86_64": {},                                 # 2_28: the catalogue's level, ubuntu-latest: hosted
    "linux-aarch64": {},                                # its self-hosted runner dropped, by name
    "linux-ppc64le": {},
    "musllinux-x86_64": {"manylinux": "1_1"},
    "musllinux-aarch64": {"manylinux": "1_1"},
    "macos-universal2": {"runner": "my-mac-mini"},      # a label no hosted image has
    "macos-arm64": {},                                  # macos-14: Apple silicon
}
ok = True
if d["platforms"] != want_platforms:
    print("platforms:", d["platforms"]); ok = False
if d["python"] != {"versions": ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14t"]}:
    print("python:", d["python"]); ok = False
cpu = d["backends"]["cpu"]
if cpu.get("before-script-linux") != "yum install -y openssl-devel" or cpu.get("default") is not True:
    print("cpu backend:", cpu); ok = False
sys.exit(0 if ok else 1)
PY
for what in "target loongarch64 on musllinux (job musl): no platform of the catalogue builds it" \
		"job linux's runner: a list of labels (a self-hosted runner); set platforms.linux-aarch64.runner to one label"; do
	grep -qF ".github/workflows/release.yml: note: drops $what" "$tmp/init-err" || fail "init does not name the drop '$what': $(cat "$tmp/init-err")"
	grep -qF "# drops $what (.github/workflows/release.yml)" "$repo/wheelmatrix.yaml" || fail "the file does not name the drop '$what'"
done
grep -q "^.github/workflows/release.yml: note: .*replaces it" "$tmp/init-err" && fail "real projects: release.yml 'replaces it', though init drops its builds"
grep -q "^.github/workflows/mac.yml: note: builds wheels.*replaces it" "$tmp/init-err" || fail "real projects: mac.yml, whose every build the matrix makes, is not replaced: $(cat "$tmp/init-err")"
wm -C "$repo" list --format json
expect_status 0 "list after init with workflows modelled on real projects'"
# each platform builds the versions its own job names: macos-arm64 3.12 alone, the others the -i list
"$py" -c 'import json, sys
by = {}
for j in json.load(open(sys.argv[1])):
    by.setdefault(j["platform"], set()).add(j["python"])
want = {"3.9", "3.10", "3.11", "3.12", "3.13", "3.14t"}
bad = {p: sorted(v) for p, v in by.items() if v != ({"3.12"} if p == "macos-arm64" else want)}
print(bad) if bad else None
sys.exit(1 if bad or len(by) != 7 else 0)' "$tmp/out" || fail "real projects: the versions per platform are not the workflows': $(cat "$tmp/out")"

# the same workflow without what the matrix cannot build: nothing dropped, and it is replaced
sed -i -e 's/, loongarch64]/]/' -e '/self-hosted/d' "$repo/.github/workflows/release.yml"
wm -C "$repo" init --offline --force
expect_status 0 "init once nothing is dropped"
grep -q "drops" "$tmp/err" "$repo/wheelmatrix.yaml" && fail "drops left: $(cat "$tmp/err")"
grep -q "^.github/workflows/release.yml: note: builds wheels.*replaces it; remove it once that runs" "$tmp/err" ||
	fail "nothing dropped, but init does not say the generated workflow replaces release.yml: $(cat "$tmp/err")"

# a workflow's own strategy.matrix exclude: the combinations it removes are not built
repo=$tmp/excl
demo_project "$repo"
rm -f "$repo/wheelmatrix.yaml"
mkdir -p "$repo/.github/workflows"
cat >"$repo/.github/workflows/release.yml" <<'EOF'
on: {push: {tags: ["v*"]}}
jobs:
  build:
    runs-on: ${{ matrix.runner }}
    strategy:
      matrix:
        runner: [ubuntu-latest, macos-14]
        target: [x86_64, aarch64]
        exclude:
          - {runner: macos-14, target: x86_64}
        include:
          - {runner: ubuntu-latest, target: armv7}
    steps:
      - uses: actions/checkout@v4
      - uses: PyO3/maturin-action@v1
        with:
          target: ${{ matrix.target }}
          manylinux: 2_28
          args: --release --out dist -i 3.12
      - uses: pypa/gh-action-pypi-publish@release/v1
EOF
wm -C "$repo" init --offline
expect_status 0 "init with a workflow whose strategy.matrix excludes a combination"
"$py" -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
want = {"linux-x86_64", "linux-aarch64", "linux-armv7", "macos-arm64"}
got = set(d["platforms"])
sys.exit(0 if got == want else "platforms %s, want %s" % (sorted(got), sorted(want)))' "$repo/wheelmatrix.yaml" ||
	fail "the matrix's platforms are not the workflow's combinations less its exclude: $(cat "$repo/wheelmatrix.yaml")"
grep -q "drops" "$tmp/err" && fail "init drops with an exclude: $(cat "$tmp/err")"

# ---- 2b. the build settings, each at its layer ------------------------------------------------
# what every build shares (toolchain, profile, --no-default-features) on the default backend; what
# a platform's builds share on its entry (features per target, docker options, zig, env known by
# value, MACOSX_DEPLOYMENT_TARGET as its deployment-target); nothing dropped, the workflow replaced
repo=$tmp/settings
demo_project "$repo"
rm -f "$repo/wheelmatrix.yaml"
printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n[lib]\ncrate-type = ["cdylib"]\n[dependencies]\npyo3 = "0.29"\n[features]\ndefault = ["mimalloc"]\njemalloc = []\nmimalloc = []\n[profile.dist]\ninherits = "release"\nlto = "fat"\n' >"$repo/Cargo.toml"
mkdir -p "$repo/.github/workflows"
cat >"$repo/.github/workflows/release.yml" <<'EOF'
on: {push: {tags: ["v*"]}}
jobs:
  linux:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        include:
          - {target: x86_64, page: "12"}
          - {target: aarch64, page: "16"}
    env:
      JEMALLOC_SYS_WITH_LG_PAGE: ${{ matrix.page }}
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          target: ${{ matrix.target }}
          manylinux: 2_28
          rust-toolchain: nightly-2026-01-15
          docker-options: --shm-size=2g
          args: --release --out dist -i 3.12 --features jemalloc --profile dist --no-default-features
  musl:
    runs-on: ubuntu-latest
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          target: x86_64-unknown-linux-musl
          manylinux: musllinux_1_2
          rust-toolchain: nightly-2026-01-15
          args: --release --out dist -i 3.12 --zig --features jemalloc --profile dist --no-default-features
  mac:
    runs-on: macos-14
    env:
      MACOSX_DEPLOYMENT_TARGET: "13.0"
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          rust-toolchain: nightly-2026-01-15
          args: --release --out dist -i 3.12 --features mimalloc --profile dist --no-default-features
  windows:
    runs-on: windows-latest
    steps:
      - id: tc
        run: echo "name=nightly-2026-01-15" >> "$GITHUB_OUTPUT"
      - uses: PyO3/maturin-action@v1
        with:
          rust-toolchain: nightly-2026-01-15
          args: --release --out dist -i 3.12 --features mimalloc --profile dist --no-default-features
      - uses: pypa/gh-action-pypi-publish@release/v1
EOF
wm -C "$repo" init --offline
expect_status 0 "init of a workflow with build settings"
cp "$tmp/err" "$tmp/settings-err"
"$py" - "$repo/wheelmatrix.yaml" <<'PY' || fail "build settings: the matrix does not carry the workflow's: $(cat "$repo/wheelmatrix.yaml")"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
want_platforms = {
    "linux-x86_64": {"features": ["jemalloc"], "docker-options": ["--shm-size=2g"], "env": {"JEMALLOC_SYS_WITH_LG_PAGE": "12"}},
    "linux-aarch64": {"features": ["jemalloc"], "docker-options": ["--shm-size=2g"], "env": {"JEMALLOC_SYS_WITH_LG_PAGE": "16"}},
    "musllinux-x86_64": {"features": ["jemalloc"], "zig": True},
    "macos-arm64": {"features": ["mimalloc"], "deployment-target": "13.0"},
    "windows-x86_64": {"features": ["mimalloc"]},
}
want_cpu = {"no-default-features": True, "profile": "dist", "rust-toolchain": "nightly-2026-01-15", "default": True}
ok = True
if d["platforms"] != want_platforms:
    print("platforms:", d["platforms"]); ok = False
if d["backends"] != {"cpu": want_cpu}:
    print("backends:", d["backends"]); ok = False
sys.exit(0 if ok else 1)
PY
grep -q "drops" "$tmp/settings-err" "$repo/wheelmatrix.yaml" && fail "build settings: drops: $(cat "$tmp/settings-err")"
grep -q "^.github/workflows/release.yml: note: builds wheels.*replaces it" "$tmp/settings-err" ||
	fail "build settings: every one carried, but release.yml is not replaced: $(cat "$tmp/settings-err")"
wm -C "$repo" list --format json
expect_status 0 "list of the matrix with the workflow's build settings"
# each job builds as the workflow's build does (list's merge of its layers)
"$py" - "$tmp/out" <<'PY' || fail "build settings: list's jobs do not build as the workflow does: $(cat "$tmp/out")"
import json, sys
jobs = {j["platform"]: j for j in json.load(open(sys.argv[1]))}
assert set(jobs) == {"linux-x86_64", "linux-aarch64", "musllinux-x86_64", "macos-arm64", "windows-x86_64"}, sorted(jobs)
assert jobs["macos-arm64"]["platform_tag"] == "macosx_13_0_arm64", jobs["macos-arm64"]["platform_tag"]
for p, j in jobs.items():
    text = json.dumps(j)
    for want in ("--profile", "dist", "--no-default-features", "nightly-2026-01-15",
                 "mimalloc" if p in ("macos-arm64", "windows-x86_64") else "jemalloc"):
        assert want in text, (p, want, text)
PY

# what is known only when the job runs stays named, with why, and only there: windows's toolchain
# from a step's output; the others keep theirs on their entries, and the workflow is kept
"$py" - "$repo/.github/workflows/release.yml" <<'PY'
import sys
p = sys.argv[1]
head, tail = open(p).read().split("  windows:")
tail = tail.replace("rust-toolchain: nightly-2026-01-15", "rust-toolchain: ${{ steps.tc.outputs.name }}")
open(p, "w").write(head + "  windows:" + tail)
PY
wm -C "$repo" init --offline --force
expect_status 0 "init with a toolchain a step outputs"
cp "$tmp/err" "$tmp/settings-err"
"$py" - "$repo/wheelmatrix.yaml" <<'PY' || fail "a toolchain a step outputs: $(cat "$repo/wheelmatrix.yaml")"
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert "rust-toolchain" not in d["backends"]["cpu"], d["backends"]
assert "rust-toolchain" not in d["platforms"]["windows-x86_64"], d["platforms"]
for p in ("linux-x86_64", "linux-aarch64", "musllinux-x86_64", "macos-arm64"):
    assert d["platforms"][p]["rust-toolchain"] == "nightly-2026-01-15", (p, d["platforms"][p])
PY
grep -qF "release.yml: note: drops the wheels of job windows built with rust-toolchain (not known before the job runs): a step outputs it, and it is not known before the job runs" "$tmp/settings-err" ||
	fail "a toolchain a step outputs is not named with why: $(cat "$tmp/settings-err")"
grep -q "^.github/workflows/release.yml: note: builds wheels.*replaces it" "$tmp/settings-err" &&
	fail "a toolchain a step outputs: release.yml is said replaced"
wm -C "$repo" list
expect_status 0 "list of the matrix with a toolchain a step outputs"

# the matrix init writes always loads: a value the loader would refuse at its layer stays named
# (--no-default-features that turns the crate's abi3 off, zig for s390x, a feature of a toolkit
# the CI installs per backend), while the build that may take it (zig on x86_64) keeps it
repo=$tmp/refused
demo_project "$repo"
rm -f "$repo/wheelmatrix.yaml"
printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n[lib]\ncrate-type = ["cdylib"]\n[dependencies]\npyo3 = "0.29"\n[features]\ndefault = ["abi3"]\nabi3 = ["pyo3/abi3-py39"]\ncuda = []\n' >"$repo/Cargo.toml"
mkdir -p "$repo/.github/workflows"
cat >"$repo/.github/workflows/release.yml" <<'EOF'
on: {push: {tags: ["v*"]}}
jobs:
  linux:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        target: [x86_64, s390x]
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          target: ${{ matrix.target }}
          manylinux: 2_28
          args: --release --out dist -i 3.12 --no-default-features --zig --features cuda
      - uses: pypa/gh-action-pypi-publish@release/v1
EOF
wm -C "$repo" init --offline
expect_status 0 "init with settings the loader would refuse"
for what in "built with --no-default-features: they turn pyo3's abi3 on, off or to another minimum" \
		"built with --zig: zig cannot build s390x" "built with --features cuda: feature cuda needs CUDA, which the CI installs per backend"; do
	grep -qF "release.yml: note: drops the wheels of job linux $what" "$tmp/err" || fail "not named: '$what': $(cat "$tmp/err")"
done
"$py" -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["platforms"] == {"linux-x86_64": {"zig": True}, "linux-s390x": {}}, d["platforms"]
assert d["python"] == {"abi3": "3.9"}, d["python"]
assert "no-default-features" not in d["backends"]["cpu"] and "features" not in d["backends"]["cpu"], d["backends"]' "$repo/wheelmatrix.yaml" ||
	fail "settings the loader would refuse: $(cat "$repo/wheelmatrix.yaml")"
wm -C "$repo" list
expect_status 0 "list of the matrix without the settings the loader would refuse"

# each grammar the loader holds a carried value to refuses it its own way, and says why: a feature
# the crate lacks, a profile no Cargo.toml defines, a toolchain rustup would not name, a docker
# option and an environment value the matrix cannot take as they are, a macOS version that is none
repo=$tmp/refused-grammars
demo_project "$repo"
rm -f "$repo/wheelmatrix.yaml"
printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n[lib]\ncrate-type = ["cdylib"]\n[dependencies]\npyo3 = "0.29"\n[features]\ncuda = []\n' >"$repo/Cargo.toml"
mkdir -p "$repo/.github/workflows"
cat >"$repo/.github/workflows/release.yml" <<'EOF'
on: {push: {tags: ["v*"]}}
jobs:
  linux:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        target: [x86_64, aarch64, i686, armv7, ppc64le]
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          target: ${{ matrix.target }}
          manylinux: 2_28
          args: >-
            --release --out dist -i 3.12
            ${{ matrix.target == 'x86_64' && '--profile fast' || '' }}
            ${{ matrix.target == 'aarch64' && '--features nope' || '' }}
          docker-options: ${{ matrix.target == 'i686' && '--volume=$HOME:/x' || '' }}
          rust-toolchain: ${{ matrix.target == 'armv7' && 'stable!' || 'stable' }}
        env:
          CFLAGS: ${{ matrix.target == 'ppc64le' && '-O2 $EXTRA' || '-O2' }}
      - uses: pypa/gh-action-pypi-publish@release/v1
  macos:
    runs-on: macos-14
    env:
      MACOSX_DEPLOYMENT_TARGET: "eleven"
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          target: aarch64
          args: --release --out dist -i 3.12
EOF
wm -C "$repo" init --offline
expect_status 0 "init with values each grammar refuses"
for what in "linux built with --features nope: nope is not a feature of the crate's Cargo.toml" \
		"linux built with --profile fast: no [profile] of that name in the Cargo.toml init reads profiles from" \
		"linux built with rust-toolchain stable!: not a toolchain rustup names" \
		"linux built with docker-options --volume=\$HOME:/x: (a value not shown) is not a word the matrix's docker-options take" \
		"linux built with the environment CFLAGS=-O2 \$EXTRA: CFLAGS: a value the matrix's env does not take as it is (a \$, a quote, a backslash or a brace)" \
		"macos built with MACOSX_DEPLOYMENT_TARGET eleven: not a macOS version"; do
	grep -qxF ".github/workflows/release.yml: note: drops the wheels of job $what" "$tmp/err" ||
		fail "not named: '$what': $(cat "$tmp/err")"
done
wm -C "$repo" list
expect_status 0 "list of the matrix without the values each grammar refuses"

# the publishing job's deployment environment (PyPI's trusted publisher may name it): carried when
# every upload names one, `{name: ...}` or a plain name; otherwise the matrix keeps 'pypi' and init
# says why, at the upload: two environments, one known only when the job runs, a name the matrix
# cannot hold
repo=$tmp/environment
demo_project "$repo"
rm -f "$repo/wheelmatrix.yaml"
mkdir -p "$repo/.github/workflows"
release_yml() {
	cat <<EOF
on: {push: {tags: ["v*"]}}
jobs:
  linux:
    runs-on: ubuntu-latest
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          args: --release --out dist -i 3.12
  upload:
    runs-on: ubuntu-latest
    environment: $1
    steps:
      - uses: pypa/gh-action-pypi-publish@release/v1
EOF
	[[ -n ${2:-} ]] && printf '  again:\n    runs-on: ubuntu-latest\n    environment: %s\n    steps:\n      - run: twine upload dist/*\n' "$2"
	return 0
}
environment_of() {
	"$py" -c 'import sys, yaml
print(((yaml.safe_load(open(sys.argv[1])).get("publish") or {}).get("pypi") or {}).get("environment", "none"))' "$repo/wheelmatrix.yaml"
}
release_yml "{name: release, url: https://pypi.org/p/demo}" >"$repo/.github/workflows/release.yml"
wm -C "$repo" init --offline --force
expect_status 0 "init of a workflow that uploads from an environment"
[[ $(environment_of) == release ]] || fail "the environment 'release' is not carried: $(cat "$repo/wheelmatrix.yaml")"
wm -C "$repo" list
expect_status 0 "list of the matrix with the upload's environment"
release_yml release release >"$repo/.github/workflows/release.yml"
wm -C "$repo" init --offline --force
[[ $(environment_of) == release ]] || fail "two uploads from one environment: not carried: $(cat "$repo/wheelmatrix.yaml")"
release_yml release staging >"$repo/.github/workflows/release.yml"
wm -C "$repo" init --offline --force
expect_status 0 "init of uploads from two environments"
[[ $(environment_of) == none ]] || fail "two environments: one was written: $(cat "$repo/wheelmatrix.yaml")"
grep -qF ".github/workflows/release.yml:16:18: note: uploads from the environment 'staging', and .github/workflows/release.yml:11:18 from the environment 'release': the matrix publishes every distribution from one environment, 'pypi'; write the one PyPI's trusted publisher names as publish.pypi.environment" "$tmp/err" ||
	fail "two environments are not said: $(cat "$tmp/err")"
release_yml "\${{ secrets.WHERE }}" >"$repo/.github/workflows/release.yml"
wm -C "$repo" init --offline --force
[[ $(environment_of) == none ]] || fail "an environment not known: one was written: $(cat "$repo/wheelmatrix.yaml")"
grep -qF ".github/workflows/release.yml:11:18: note: uploads from its job's environment, which depends on secrets.WHERE:" "$tmp/err" ||
	fail "an environment not known is not said: $(cat "$tmp/err")"
release_yml "'release: final'" >"$repo/.github/workflows/release.yml"
wm -C "$repo" init --offline --force
expect_status 0 "init of an upload from an environment the matrix cannot name"
[[ $(environment_of) == none ]] || fail "an environment the matrix cannot name was written: $(cat "$repo/wheelmatrix.yaml")"
grep -qF "note: uploads from the environment 'release: final', a name publish.pypi.environment cannot hold" "$tmp/err" ||
	fail "an environment the matrix cannot name is not said: $(cat "$tmp/err")"

# ---- 3. hostile workflow files ---------------------------------------------------------------
repo=$tmp/hostile
demo_project "$repo"
rm -f "$repo/wheelmatrix.yaml"
mkdir -p "$repo/.github/workflows"
cp "$tmp/real/.github/workflows/release.yml" "$repo/.github/workflows/$(printf 'evil\033[2J.yml')"
# a target and a runner holding a newline: data, never a line of the file
cat >"$repo/.github/workflows/ci.yml" <<'EOF'
on: push
jobs:
  publish:
    runs-on: ubuntu-latest
    steps:
      - run: uv publish
  build:
    runs-on: "ubuntu-latest"
    steps:
      - uses: PyO3/maturin-action@v1
        with:
          target: "sparc\nplatforms: [hacked]"
          manylinux: "2_28"
          args: "-i 3.12"
      - uses: PyO3/maturin-action@v1
        with:
          target: x86_64
          manylinux: "2_28"
          args: "-i 3.12"
EOF
# over the 1 MiB bound of a workflow: not parsed, so no build of it is read
{ printf 'jobs:\n  big:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: PyO3/maturin-action@v1\n        with: {target: s390x, args: -i 3.12}\n'
  head -c 1100000 /dev/zero | tr '\0' '#'; echo; } >"$repo/.github/workflows/big.yml"
# 300 steps x 64 combinations, each with 2 kB of arguments: read up to a bound, not 19,200 copies
# shellcheck disable=SC2016 # ${{ matrix.t }} is the workflow's, not the shell's
"$py" -c 'import sys
step = "      - uses: PyO3/maturin-action@v1\n        with: {target: \"${{ matrix.t }}\", manylinux: \"2_28\", args: \"-i 3.12 --features %s\"}\n" % ("x" * 2000)
print("on: push\njobs:\n  p:\n    runs-on: ubuntu-latest\n    steps: [{run: uv publish}]\n  j:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        t: [%s]\n        u: [a, b, c, d, e, f, g, h]\n    steps:\n%s" % (", ".join(["x86_64"] * 8), step * 300))' \
	>"$repo/.github/workflows/many.yml"
wm -C "$repo" init --offline
expect_status 0 "init with hostile workflow files"
grep -q $'\033' "$tmp/err" "$repo/wheelmatrix.yaml" && fail "a control character reached the notes or the file"
grep -q "1 file of the CI not read: a name with characters other than letters, digits and ._-/" "$tmp/err" ||
	fail "the file with control characters in its name is passed over without a note: $(cat "$tmp/err")"
grep -q "^# drops target (a value not shown) on manylinux (job build)" "$repo/wheelmatrix.yaml" ||
	fail "the target with a newline is not dropped as a value not shown: $(cat "$repo/wheelmatrix.yaml")"
grep -q "^wheelmatrix: note: the workflows build more than 4096 times in all (steps times combinations): the builds past those are not read" "$tmp/err" ||
	fail "the builds past the bound are not named: $(cat "$tmp/err")"
"$py" -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); sys.exit(d.get("platforms") != ["linux-x86_64"] or "hacked" in str(d))' \
	"$repo/wheelmatrix.yaml" || fail "hostile: the platforms are not the one readable build's: $(cat "$repo/wheelmatrix.yaml")"
finish
