#!/bin/bash
# t-pyodide.sh — Pyodide's wasm32 wheels (the platform pyodide-wasm32) against the tools' own data.
# No Emscripten SDK and no wasm32-unknown-emscripten target can be installed here, so no wheel is
# built; what is proven instead:
# 1. the catalogue's Pyodide release is the one npm's pyodide package of that version describes
#    (tests/external pins it: its pyodide-lock.json `info`: abi_version, python, platform
#    emscripten_<version>, arch), and list's tag is the one the pinned packaging computes for an
#    interpreter whose PYEMSCRIPTEN_PLATFORM_VERSION is that abi_version (packaging.tags,
#    _emscripten_platforms: what pip installs there);
# 2. the names list predicts, for a crate without abi3, an abi3 one and one on pyo3's plain `abi3`
#    (named by the interpreter: cp314-abi3 there, cp310-abi3 on Linux), are the ones the pinned
#    maturin writes (`pep517 write-dist-info --target wasm32-unknown-emscripten`, offline) with the
#    interpreter list names and MATURIN_PYEMSCRIPTEN_PLATFORM_VERSION as the generated job sets it;
# 3. the generated GitHub job is maturin's own recipe (`maturin generate-ci github --platform
#    emscripten`, both read with PyYAML): the same action set up the Emscripten SDK at the same
#    reference, from the same source of its version (`pyodide config get emscripten_version`, which
#    the job checks against the version it passes), the same target, the Rust toolchain pyodide-build
#    names (checked alike), setup-python's Python and the build's -i from `pyodide config get
#    python_version`, pyodide-build installed before the build; GitLab's job the same values;
# 4. another Python version, a free-threaded one, an abi3 minimum above the release's, PyPy and GraalPy
#    are errors at the version;
# 5. pyodide-build at the catalogue's pin (templates/actions.yaml), its wheel from PyPI: every
#    `pyodide config get NAME` both generated jobs check is one of its PYODIDE_CLI_CONFIGS, read from
#    the Makefile.envs variable the catalogue's value came from, and `pyodide xbuildenv install` and
#    `install-emscripten`, which the jobs run, are its commands.
# The Rust toolchain (Makefile.envs of pyodide/pyodide at the tag) is in no package reachable here:
# the generated jobs check it with pyodide-build when they run.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

npm=$ROOT/tests/external/node_modules/pyodide
[ -f "$npm/pyodide-lock.json" ] || fatal "npm's pyodide is not installed in tests/external: run 'npm ci --prefix tests/external'"

# crate NAME PYO3-FEATURES PYTHON [MORE]: a project with a matrix of linux-x86_64 and pyodide-wasm32
crate() {
	local dir=$tmp/$1
	names_crate "$dir" "$2"
	printf 'wheelmatrix: 1\npython: %s\nplatforms: [linux-x86_64, pyodide-wasm32]\n%s\nci:\n  github: {path: .github/workflows/wheels.yml}\n  gitlab: {path: .gitlab-ci.yml}\n' \
		"$3" "${4:-}" >"$dir/wheelmatrix.yaml"
}
crate plain '"extension-module"' '{versions: ["3.13", "3.14"]}' 'exclude: [{platform: pyodide-wasm32, python: "3.13"}]'
crate abi3 '"extension-module", "abi3-py310"' '{abi3: "3.10"}'
# pyo3's plain abi3, no minimum: maturin names the wheel by the interpreter, Pyodide's cp314 there
crate abi3-plain '"extension-module", "abi3"' '{abi3: "3.10"}'
for c in plain abi3 abi3-plain; do
	wm -C "$tmp/$c" list --format json
	expect_status 0 "list ($c)"
	cp "$tmp/out" "$tmp/list-$c.json"
	wm -q -C "$tmp/$c" generate
	expect_status 0 "generate ($c)"
done

# ---- 1. the catalogue against npm's pyodide, list's tag against packaging's ----------------------
"$tools/bin/python" - "$ROOT/templates/platforms.yaml" "$npm" "$tmp/list-plain.json" <<'PY' || fail "the catalogue's Pyodide against npm's pyodide and packaging (above)"
import json, os, sys, sysconfig
import yaml
from packaging import tags

cat, npm, jobs = yaml.safe_load(open(sys.argv[1])), sys.argv[2], json.load(open(sys.argv[3]))
info = json.load(open(os.path.join(npm, "pyodide-lock.json")))["info"]
version = json.load(open(os.path.join(npm, "package.json")))["version"]
p = cat["pyodide-wasm32"]["pyodide"]
print("npm pyodide %s: %s" % (version, info))
print("catalogue:   %s" % p)
want = {
    "release": version,
    "python": info["python"],
    "abi-version": info["abi_version"],
    "emscripten": info["platform"].removeprefix("emscripten_").replace("_", "."),
}
bad = [k for k in want if str(p[k]) != want[k]]
if info["arch"] != "wasm32" or not info["platform"].startswith("emscripten_"):
    bad.append("arch/platform")
for k in bad:
    print("FAIL %s: the catalogue says %r, npm's pyodide %r" % (k, p.get(k), want.get(k)))
# packaging's tags on such an interpreter (platform.system() "Emscripten")
sysconfig.get_config_var = lambda name: info["abi_version"] if name == "PYEMSCRIPTEN_PLATFORM_VERSION" else None
accepted = list(tags._emscripten_platforms())
for j in jobs:
    if j["os"] != "emscripten":
        continue
    ok = j["platform_tag"] in accepted and j["python_tag"] == "cp3%s" % info["python"].split(".")[1]
    print("%-4s %s %s-%s-%s (packaging accepts %s)" % ("ok" if ok else "FAIL", j["id"], j["python_tag"], j["abi_tag"],
                                                    j["platform_tag"], accepted[0]))
    bad += [] if ok else [j["id"]]
sys.exit(1 if bad else 0)
PY

# ---- 2. maturin's names ---------------------------------------------------------------------------
for c in plain abi3 abi3-plain; do
	"$py" - "$tmp/list-$c.json" "$tmp/$c" "$tmp/md-$c" <<'PY' || fail "maturin's Pyodide names for $c are not list's (above)"
import itertools, json, os, shutil, subprocess, sys
import yaml
jobs, project, md = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
wf = yaml.safe_load(open(os.path.join(project, ".github/workflows/wheels.yml")))
build = [s for s in wf["jobs"]["build-cpu-emscripten"]["steps"] if "maturin-action" in s.get("uses", "")][0]
bad = n = 0
for j in jobs:
    if j["os"] != "emscripten":
        continue
    n += 1
    shutil.rmtree(md, ignore_errors=True)
    os.makedirs(md)
    env = dict(os.environ)
    env.update(build.get("env") or {})
    r = subprocess.run(["maturin", "pep517", "write-dist-info", "--metadata-directory", md, "--target", j["target"],
                        "-i", j["interpreter"]], cwd=project, env=env, capture_output=True, text=True)
    wheel = [os.path.join(md, d, "WHEEL") for d in os.listdir(md) if d.endswith(".dist-info")]
    if r.returncode or len(wheel) != 1:
        print("FAIL %s: maturin pep517 write-dist-info: %s" % (j["id"], r.stderr[-600:]))
        bad = 1
        continue
    got = sorted(l.split(": ", 1)[1].strip() for l in open(wheel[0]) if l.startswith("Tag: "))
    want = sorted("-".join(t) for t in itertools.product(j["python_tag"].split("."), j["abi_tag"].split("."), j["platform_tag"].split(".")))
    print("%-4s %-32s %s (-i %s, %s)" % ("ok" if got == want else "FAIL", j["id"], " ".join(got), j["interpreter"], build.get("env")))
    if got != want:
        print("     list says %s" % " ".join(want))
        bad = 1
sys.exit(bad or n != 1)
PY
done

# ---- 3. the generated jobs against maturin's recipe ------------------------------------------------
(cd "$tmp/plain" && maturin generate-ci github --platform emscripten >"$tmp/maturin-ci.yml" 2>"$tmp/maturin-ci.err") ||
	{ fail "maturin generate-ci github --platform emscripten failed"; show "$tmp/maturin-ci.err"; }
"$py" - "$tmp/maturin-ci.yml" "$tmp/plain" "$ROOT/templates" <<'PY' || fail "the generated Pyodide jobs are not maturin's recipe (above)"
import os, re, sys
import yaml
theirs = yaml.safe_load(open(sys.argv[1]))["jobs"]["emscripten"]
project, templates = sys.argv[2], sys.argv[3]
ours = yaml.safe_load(open(os.path.join(project, ".github/workflows/wheels.yml")))["jobs"]["build-cpu-emscripten"]
gitlab = yaml.safe_load(open(os.path.join(project, ".gitlab-ci.yml")))
pins = yaml.safe_load(open(os.path.join(templates, "actions.yaml")))
p = yaml.safe_load(open(os.path.join(templates, "platforms.yaml")))["pyodide-wasm32"]["pyodide"]
bad = []

def check(what, ok):
    print("%-4s %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        bad.append(what)

def action(steps, name):
    """(index, step) of the step using action `name`."""
    for i, s in enumerate(steps):
        if s.get("uses", "").split("@")[0] == name:
            return i, s
    return None, {}

def runs(steps, pattern):
    """the index of the first `run:` step matching `pattern`."""
    for i, s in enumerate(steps):
        if re.search(pattern, s.get("run", "")):
            return i
    return None

ts, os_ = theirs["steps"], ours["steps"]
# maturin's recipe reads each value with `pyodide config get KEY` into $GITHUB_ENV's NAME
config = dict(re.findall(r"echo (\w+)=\$\(pyodide config get (\w+)", "\n".join(s.get("run", "") for s in ts)))
check("maturin's recipe reads EMSCRIPTEN_VERSION, PYTHON_VERSION, RUST_TOOLCHAIN from pyodide config: %s" % config,
      config.get("EMSCRIPTEN_VERSION") == "emscripten_version" and config.get("PYTHON_VERSION") == "python_version" and
      config.get("RUST_TOOLCHAIN") == "rust_toolchain")
env_name = lambda v: (re.fullmatch(r"\$\{\{ env\.(\w+) \}\}", str(v)) or [None, None])[1]
# the target
matrix_target = theirs["strategy"]["matrix"]["platform"][0]["target"]
ti, tbuild = action(ts, "PyO3/maturin-action")
oi, obuild = action(os_, "PyO3/maturin-action")
check("the target: maturin %s, ours %s" % (matrix_target, obuild.get("with", {}).get("target")),
      matrix_target == "wasm32-unknown-emscripten" == obuild.get("with", {}).get("target"))
check("maturin-action at the same reference: %s, %s" % (tbuild.get("uses"), obuild.get("uses")),
      tbuild.get("uses") == obuild.get("uses") == "PyO3/maturin-action@" + pins["actions"]["PyO3/maturin-action"])
# the Emscripten SDK: the same action and reference, its version from emscripten_version
te, temsdk = action(ts, "emscripten-core/setup-emsdk")
oe, oemsdk = action(os_, "emscripten-core/setup-emsdk")
check("setup-emsdk at the same reference: %s, %s" % (temsdk.get("uses"), oemsdk.get("uses")),
      temsdk.get("uses") == oemsdk.get("uses") == "emscripten-core/setup-emsdk@" + pins["actions"]["emscripten-core/setup-emsdk"])
check("the SDK's version: maturin's from emscripten_version, ours %s, checked against emscripten_version" % oemsdk.get("with", {}).get("version"),
      config.get(env_name(temsdk.get("with", {}).get("version"))) == "emscripten_version" and
      oemsdk.get("with", {}).get("version") == p["emscripten"])
# pyodide-build installed, and our check of each value against pyodide config
pi = runs(os_, r'pip install "pyodide-build==\$WM_PYODIDE_BUILD"')
check("pyodide-build installed (maturin: %s) at its pin before the SDK and the build" % runs(ts, r"pip install pyodide-build"),
      runs(ts, r"pip install pyodide-build") is not None and pi is not None and pi < oe < oi and
      os_[pi]["env"]["WM_PYODIDE_BUILD"] == pins["tools"]["pyodide-build"])
checked = dict(re.findall(r'check (\w+) "\$(\w+)"', os_[pi]["run"])) if pi is not None else {}
penv = os_[pi]["env"] if pi is not None else {}
check("the job checks pyodide config's emscripten_version, rust_toolchain, python_version against the values it passes: %s" % checked,
      penv.get(checked.get("emscripten_version")) == oemsdk.get("with", {}).get("version") and
      penv.get(checked.get("rust_toolchain")) == obuild["with"].get("rust-toolchain") and
      penv.get(checked.get("python_version")) == p["python"] and
      penv.get(checked.get("pyemscripten_platform_version")) == obuild.get("env", {}).get("MATURIN_PYEMSCRIPTEN_PLATFORM_VERSION"))
# the Rust toolchain: maturin's from rust_toolchain
check("the toolchain: maturin's from rust_toolchain, ours %s" % obuild["with"].get("rust-toolchain"),
      config.get(env_name(tbuild["with"].get("rust-toolchain"))) == "rust_toolchain" and
      obuild["with"].get("rust-toolchain") == p["rust-toolchain"])
# the Python: setup-python's and -i's from python_version (major.minor), before the build
minor = ".".join(p["python"].split(".")[:2])
tp, tpy = action(ts, "actions/setup-python")
op, opy = action(os_, "actions/setup-python")
check("setup-python: maturin's from python_version, ours %s, before pyodide-build" % opy.get("with", {}).get("python-version"),
      config.get(env_name(tpy.get("with", {}).get("python-version"))) == "python_version" and
      opy.get("with", {}).get("python-version") == minor and op < pi)
check("-i: maturin's %r, ours %r" % (tbuild["with"]["args"], obuild["with"]["args"]),
      "-i ${{ env.PYTHON_VERSION }}" in tbuild["with"]["args"] and obuild["with"]["args"].endswith("-i python" + minor) and
      "--release" in obuild["with"]["args"])
# GitLab: the same values, pyodide-build's own SDK installer
g = gitlab["build-cpu-pyodide-wasm32"]["variables"]
template = gitlab[".wheelmatrix-build-emscripten"]
script = "\n".join(template["script"])
check("GitLab: %s" % g,
      g["WM_TARGET"] == matrix_target and g["WM_RUST_TOOLCHAIN"] == p["rust-toolchain"] == g["WM_PYODIDE_RUST"] and
      g["WM_EMSCRIPTEN"] == p["emscripten"] and g["WM_PYTHON"] == minor and
      g["MATURIN_PYEMSCRIPTEN_PLATFORM_VERSION"] == p["abi-version"] and
      'pyodide xbuildenv install-emscripten --version "$WM_EMSCRIPTEN"' in script and
      'check emscripten_version "$WM_EMSCRIPTEN"' in script and 'check rust_toolchain "$WM_PYODIDE_RUST"' in script and
      gitlab["build-cpu-pyodide-wasm32"]["image"] == "python:%s-bookworm" % minor)
sys.exit(1 if bad else 0)
PY

# ---- 4. the Python axis --------------------------------------------------------------------------
# shellcheck disable=SC2016
for v in '"3.13"' '"3.14t"' '"pp3.11"' '"graalpy3.12"'; do
	printf 'wheelmatrix: 1\npython: {versions: ["3.14", %s]}\nplatforms: [pyodide-wasm32]\n' "$v" >"$tmp/plain/wheelmatrix.yaml"
	wm -C "$tmp/plain" list
	expect_status 2 "list with $v on pyodide-wasm32"
	grep -q "^wheelmatrix.yaml:2:.*cannot be built for pyodide-wasm32.*{platform: pyodide-wasm32, python: $v}" "$tmp/err" ||
		{ fail "$v on pyodide-wasm32: no error at the version naming the exclude"; show "$tmp/err"; }
done
printf 'wheelmatrix: 1\npython: {abi3: "3.15"}\nplatforms: [pyodide-wasm32]\n' >"$tmp/plain/wheelmatrix.yaml"
wm -C "$tmp/plain" list
expect_status 2 "list with abi3 3.15 on pyodide-wasm32"
grep -q "Python abi3 cannot be built for pyodide-wasm32: Pyodide 314.0.5 is CPython 3.14.2 alone" "$tmp/err" ||
	{ fail "abi3 3.15 on pyodide-wasm32: no error"; show "$tmp/err"; }

# ---- 5. pyodide-build at its pin ----------------------------------------------------------------
pin=$(sed -n 's/^  pyodide-build: "\(.*\)"$/\1/p' "$ROOT/templates/actions.yaml")
[ -n "$pin" ] || fatal "no pyodide-build pin in templates/actions.yaml"
python3 -m pip download -q --no-deps --only-binary :all: --python-version 3.12 -d "$tmp/pyodide-build" \
	"pyodide-build==$pin" >"$tmp/pip.log" 2>&1 || fatal "pyodide-build $pin from PyPI: $(cat "$tmp/pip.log")"
"$py" - "$tmp/pyodide-build" "$tmp/plain/.github/workflows/wheels.yml" "$tmp/plain/.gitlab-ci.yml" <<'PY' ||
import ast, glob, re, sys, zipfile
wheel = zipfile.ZipFile(glob.glob(sys.argv[1] + "/pyodide_build-*.whl")[0])
configs = next(ast.literal_eval(n.value) for n in ast.parse(wheel.read("pyodide_build/config.py")).body
               if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "PYODIDE_CLI_CONFIGS")
commands = set(re.findall(r'@app\.command\("([^"]+)"', wheel.read("pyodide_build/cli/xbuildenv.py").decode()))
# the Makefile.envs variable each checked value of the catalogue was read from (templates/platforms.yaml)
source = {"python_version": "PYVERSION", "emscripten_version": "PYODIDE_EMSCRIPTEN_VERSION",
          "rust_toolchain": "RUST_TOOLCHAIN", "pyemscripten_platform_version": "PYODIDE_ABI_VERSION"}
bad = 0
for ci in sys.argv[2:]:
    text = open(ci).read()
    asked = set(re.findall(r"check ([a-z_]+) \"\$WM_", text))
    if asked != set(source):
        print("%s checks %s, not %s" % (ci, sorted(asked), sorted(source))); bad = 1
    for name in asked:
        if configs.get(name) != source.get(name):
            print("%s: pyodide config get %s reads %s, the catalogue's value is Makefile.envs %s" %
                  (ci, name, configs.get(name), source.get(name))); bad = 1
    for cmd in re.findall(r"pyodide xbuildenv ([a-z-]+)", text):
        if cmd not in commands:
            print("%s runs pyodide xbuildenv %s, which pyodide-build has not (%s)" % (ci, cmd, sorted(commands))); bad = 1
sys.exit(bad)
PY
	fail "the generated jobs ask pyodide-build $pin what it does not answer (above)"
finish
