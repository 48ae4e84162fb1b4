#!/usr/bin/env bash
# t-outdated-kinds.sh — `outdated` sees every kind of ageing fact, each against a local stand-in of its source.
#
# The stand-ins (tests/servers/forge-server.py): the forge, bare repositories made here whose commits carry
# an action.yml, served as git's smart HTTP and as GitHub's /OWNER/NAME/raw/REF/PATH; the index,
# PyPI's own PEP 691 pages of cuda-toolkit and hip-python (tests/upstream/, as PyPI served them)
# beside each tool at its pin; crates.io's sparse index, the real lines of pyo3, pyo3-ffi and
# pyo3-build-config (tests/upstream/crates/); CPython's release cycle, a release-cycle.json of
# peps.python.org's documented shape written here (3.10's life ending in 2026-10, 3.15 released
# on 2026-10-01, 3.16 to come).  The day is 2026-12-01.
#
# A matrix (a crate on pyo3 "0.28"; CPython 3.10, 3.14, 3.14t and PyPy pp3.11; CUDA 12.4 and
# ROCm 7.0; linux-x86_64 on ubuntu-22.04, linux-aarch64 on a hosted-looking label the catalogue
# lacks, a self-hosted label; actions/checkout pinned to a tag its repository lacks; maturin-action
# a composite whose step runs actions/cache@v4, which is on node20) gives, in --format json:
# - action: the missing tag `missing`, not current; the others current;
# - runtime: each action's runs.using read from its action.yml; maturin-action `retired`, its note
#   naming the step and node20; the catalogue's runtime beside it;
# - toolkit: CUDA 12.4 against NVIDIA's releases (12.9.2 newest of 12, 13.5.0 newest), ROCm 7.0
#   against HIP Python's (7.0.2, 7.2.2), each with the catalogue's newest and the source's URL;
# - pyo3: the crate's "0.28" a newer major (0.30.1); the PyO3 table's pyo3-ffi and pyo3-build-config
#   current (the table's 0.30.1 is crates.io's newest), and a newer major once the index gains a
#   0.31.0 (a yanked 0.32.0 and a 0.33.0-rc.1 never taken);
# - python: 3.10 retired (end of life 2026-10), 3.14 and 3.14t newer minor (3.15 and 3.15t), pp3.11
#   newer minor (maturin and uv know pp3.12); Pyodide 314.0.5 (pyodide-wasm32's release) newer
#   minor against pyodide-py's 314.0.99 (a pre-release not taken), current with --catalog when the
#   index has its release alone;
# - runner: ubuntu-22.04 retiring, the unknown hosted-looking label unknown with the reason, the
#   self-hosted one `self-hosted`;
# and the table's last line counts what could not be checked.  With the forge unreachable every
# action and runtime is unknown, the one line says how many and why, the exit is 3, and 1 with
# --strict.  --catalog checks the catalogue's own facts without a matrix: every action and tool,
# each toolkit's newest, the PyO3 table, the default Python versions, the platforms' runners, all
# current against these sources.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/forge.sh
source "$ROOT/tests/kit/forge.sh"
need git "apt-get install git"
export WHEELMATRIX_TODAY=2026-12-01

# ---- the stand-ins ---------------------------------------------------------------------------
forge=$tmp/forge
forge_catalog_actions "$forge"
# actions/cache: a v4 on node20 beside the v5 the catalogue pins; maturin-action a composite that runs it
FORGE_ACTION_YML='runs: {using: node20}' forge_action "$forge" actions/cache 4.2.0
git init -q "$tmp/cache-v5"
git -C "$tmp/cache-v5" commit -q --allow-empty -m v5
printf 'runs: {using: node24}\n' >"$tmp/cache-v5/action.yml"
git -C "$tmp/cache-v5" add action.yml
git -C "$tmp/cache-v5" commit -q -m "v5.0.0"
git -C "$tmp/cache-v5" tag v5
git -C "$tmp/cache-v5" tag -a v5.0.0 -m v5.0.0
git -C "$tmp/cache-v5" push -q "$forge/actions/cache.git" 'refs/tags/*:refs/tags/*'
FORGE_ACTION_YML=$'runs:\n  using: composite\n  steps:\n    - run: echo one\n      shell: bash\n    - uses: actions/cache@v4\n      with: {path: x, key: y}\n    - uses: ./local\n    - uses: docker://alpine:3' \
	forge_action "$forge" PyO3/maturin-action 1.51.0 1.52.0

"$py" - "$ROOT/templates/actions.yaml" "$tmp/index.json" "$ROOT/tests/upstream" <<'PY'
import json, os, sys, yaml
tools = yaml.safe_load(open(sys.argv[1]))["tools"]
index = {name: [version] for name, version in tools.items()}
index["cuda-toolkit"] = os.path.join(sys.argv[3], "pypi-cuda-toolkit.json")
index["hip-python"] = os.path.join(sys.argv[3], "pypi-hip-python.json")
# Pyodide's pyodide-py: the catalogue's release, a newer one of its CPython, and a pre-release never taken
pyodide = str(yaml.safe_load(open(os.path.join(sys.argv[3], "..", "..", "templates", "platforms.yaml")))["pyodide-wasm32"]["pyodide"]["release"])
index["pyodide-py"] = [pyodide, pyodide.rsplit(".", 1)[0] + ".99", "999.0.0a1"]
json.dump(index, open(sys.argv[2], "w"))
PY
mkdir -p "$tmp/files"
cp -r "$ROOT/tests/upstream/crates" "$tmp/files/crates"
cat >"$tmp/files/release-cycle.json" <<'JSON'
{
  "3.16": {"branch": "main", "pep": 826, "status": "feature", "first_release": "2027-10-06", "end_of_life": "2032-10", "release_manager": "x"},
  "3.15": {"branch": "3.15", "pep": 790, "status": "prerelease", "first_release": "2026-10-01", "end_of_life": "2031-10", "release_manager": "x"},
  "3.14": {"branch": "3.14", "pep": 745, "status": "bugfix", "first_release": "2025-10-07", "end_of_life": "2030-10", "release_manager": "x"},
  "3.13": {"branch": "3.13", "pep": 719, "status": "bugfix", "first_release": "2024-10-07", "end_of_life": "2029-10", "release_manager": "x"},
  "3.12": {"branch": "3.12", "pep": 693, "status": "security", "first_release": "2023-10-02", "end_of_life": "2028-10", "release_manager": "x"},
  "3.11": {"branch": "3.11", "pep": 664, "status": "security", "first_release": "2022-10-24", "end_of_life": "2027-10", "release_manager": "x"},
  "3.10": {"branch": "3.10", "pep": 619, "status": "security", "first_release": "2021-10-04", "end_of_life": "2026-10", "release_manager": "x"},
  "3.9": {"branch": "3.9", "pep": 596, "status": "end-of-life", "first_release": "2020-10-05", "end_of_life": "2025-10-31", "release_manager": "x"}
}
JSON
start_forge "$forge" --index "$tmp/index.json" --files "$tmp/files"

repo=$tmp/repo
demo_project "$repo"
printf '\n[dependencies]\npyo3 = "0.28"\n' >>"$repo/Cargo.toml"
cat >"$repo/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
python:
  versions: ["3.10", "3.14", "3.14t", "pp3.11"]
platforms:
  linux-x86_64: {runner: ubuntu-22.04}
  linux-aarch64: {runner: ubuntu-26.10-arm}
  windows-x86_64: {runner: my-build-box}
  pyodide-wasm32: {}
backends:
  cuda: {features: [cublas], toolkit: {cuda: "12.4"}, platforms: [linux-x86_64]}
  rocm: {toolkit: {rocm: "7.0"}, platforms: [linux-x86_64]}
  cpu: {default: true}
exclude:
  - {platform: pyodide-wasm32, python: "3.10"}
  - {platform: pyodide-wasm32, python: "3.14t"}
  - {platform: pyodide-wasm32, python: "pp3.11"}
actions:
  actions/checkout: v9
YAML
scratch_repo "$repo"
run_outdated() {  # run_outdated ARGS...: outdated against the stand-ins
	wm -C "$repo" outdated --github "$FORGE" --index "$FORGE/simple/" --crates "$FORGE/files/crates/" \
		--python-releases "$FORGE/files/release-cycle.json" --retries 0 "$@"
}

# ---- every kind, in JSON -----------------------------------------------------------------------
run_outdated --format json
expect_status 1 "outdated with every kind behind"
cp "$tmp/out" "$tmp/kinds.json"
"$py" - "$tmp/kinds.json" "$FORGE" <<'PY' || fail "the kinds of outdated --format json (above)"
import json, sys
report, forge = json.load(open(sys.argv[1])), sys.argv[2]
items = {(i["kind"], i["name"], i["pin"]): i for i in report["items"]}
bad = []
def want(key, **fields):
    i = items.get(key)
    if i is None:
        bad.append("no item %r" % (key,))
        return
    for k, v in fields.items():
        if i.get(k) != v:
            bad.append("%r: %s is %r, want %r" % (key, k, i.get(k), v))
kinds = {i["kind"] for i in report["items"]}
if kinds != {"action", "runtime", "tool", "runner", "toolkit", "pyo3", "python"}:
    bad.append("kinds %s" % sorted(kinds))
want(("action", "actions/checkout", "v9"), state="missing", note="the repository has no tag or branch 'v9'")
want(("runtime", "actions/checkout", "v9"), state="missing", note="the repository has no tag or branch 'v9'")
want(("action", "actions/setup-python", "v7"), state="current")
want(("runtime", "actions/setup-python", "v7"), state="current", newest="node24", catalog="node24",
     source=forge + "/actions/setup-python/raw/v7/action.yml")
want(("runtime", "PyO3/maturin-action", "v1"), state="retired", newest="composite", catalog="node24",
     note="a step runs actions/cache@v4, on node20, which GitHub's runners no longer have")
want(("toolkit", "cuda", "12.4"), state="newer major", newest_in_major="12.9.2", newest="13.5.0", catalog="13.5.0",
     source=forge + "/simple/cuda-toolkit/")
want(("toolkit", "rocm", "7.0"), state="newer minor", newest_in_major="7.2.2", newest="7.2.2", catalog="7.2.2",
     source=forge + "/simple/hip-python/")
want(("pyo3", "pyo3", "0.28"), state="newer major", newest="0.30.1", newest_in_major="0.28.3",
     source=forge + "/files/crates/py/o3/pyo3")
want(("pyo3", "pyo3-ffi", "0.30.1"), state="current", newest="0.30.1", catalog="0.30.1")
want(("pyo3", "pyo3-build-config", "0.30.1"), state="current", newest="0.30.1", catalog="0.30.1")
want(("python", "CPython", "3.10"), state="retired", retires="2026-10", newest="3.15",
     note="past its end of life: no more security fixes", source=forge + "/files/release-cycle.json")
want(("python", "CPython", "3.14"), state="newer minor", newest="3.15", retires=None)
want(("python", "CPython", "3.14t"), state="newer minor", newest="3.15t")
want(("python", "PyPy", "pp3.11"), state="newer minor", newest="pp3.12")
want(("python", "Pyodide", "314.0.5"), state="newer minor", newest="314.0.99", newest_in_major="314.0.99", catalog="314.0.5",
     source=forge + "/simple/pyodide-py/")
want(("tool", "pyodide-build", "0.39.2"), state="current")
want(("runner", "ubuntu-22.04", None), state="retiring", retires="2027-04-17", instead="ubuntu-24.04")
want(("runner", "ubuntu-26.10-arm", None), state="unknown",
     reason="not a label wheelmatrix knows (templates/runners.yaml): misspelt, or newer than wheelmatrix")
want(("runner", "my-build-box", None), state="self-hosted")
want(("tool", "maturin", "1.16.0"), state="current")
if report.get("unchecked") != 1 or not (report.get("unchecked_summary") or "").startswith("1 runner unchecked: not a label"):
    bad.append("unchecked %r, %r" % (report.get("unchecked"), report.get("unchecked_summary")))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
run_outdated
expect_status 1 "outdated (table) with every kind behind"
python3 "$ROOT/tests/helpers/no-controls.py" "$tmp/out" || fail "a control character reached the table"
[[ $(tail -n 1 "$tmp/out") == "1 runner unchecked: not a label wheelmatrix knows (templates/runners.yaml): misspelt, or newer than wheelmatrix" ]] ||
	{ fail "the table's last line does not count what went unchecked"; show "$tmp/out"; }
grep -q '^toolkit  cuda  *12.4  *12.9.2  *13.5.0  *newer major$' "$tmp/out" || { fail "the CUDA line"; show "$tmp/out"; }
grep -q '^python   CPython  *3.10  .*retired on 2026-10: past its end of life' "$tmp/out" || { fail "the 3.10 line"; show "$tmp/out"; }

# ---- the PyO3 table behind crates.io: a new series (a yanked one and a pre-release never taken) ----
for c in pyo3-ffi pyo3-build-config; do
	printf '{"name":"%s","vers":"0.31.0","deps":[],"features":{},"yanked":false}\n{"name":"%s","vers":"0.32.0","deps":[],"features":{},"yanked":true}\n{"name":"%s","vers":"0.33.0-rc.1","deps":[],"features":{},"yanked":false}\n' \
		"$c" "$c" "$c" >>"$tmp/files/crates/py/o3/$c"
done
run_outdated --format json
"$py" -c '
import json, sys
items = {(i["kind"], i["name"]): i for i in json.load(open(sys.argv[1]))["items"]}
for c in ("pyo3-ffi", "pyo3-build-config"):
    i = items[("pyo3", c)]
    assert (i["state"], i["newest"], i["catalog"]) == ("newer major", "0.31.0", "0.30.1"), i
' "$tmp/out" || fail "the PyO3 table against a newer series: $(cat "$tmp/out")"

# ---- what cannot be reached: one line, exit 3, and 1 with --strict ------------------------------
rm -rf "$tmp/files/crates"
cp -r "$ROOT/tests/upstream/crates" "$tmp/files/crates"
demo_project "$repo"
cat >"$repo/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
python:
  versions: ["3.15"]
platforms: [linux-x86_64]
backends:
  cpu: {default: true}
YAML
wm -C "$repo" outdated --github http://127.0.0.1:1 --index "$FORGE/simple/" --crates "$FORGE/files/crates/" \
	--python-releases "$FORGE/files/release-cycle.json" --retries 0 --timeout 5
expect_status 3 "outdated with the forge unreachable"
n=$(grep -c '^action ' "$tmp/out")
want="$n actions unchecked: cannot connect to the server (http://127.0.0.1:1); $n runtimes unchecked: cannot connect to the server (http://127.0.0.1:1)"
[[ $(tail -n 1 "$tmp/out") == "$want" && $n -ge 5 ]] ||
	{ fail "the last line with the forge unreachable is not '$want'"; show "$tmp/out"; }
[[ $(grep -c '^\(action\|runtime\) .*unknown: http://127\.0\.0\.1:1/.*: cannot connect to the server$' "$tmp/out") == $((2 * n)) ]] ||
	{ fail "not every action and runtime is unknown with its URL"; show "$tmp/out"; }
wm -C "$repo" outdated --github http://127.0.0.1:1 --index "$FORGE/simple/" --crates "$FORGE/files/crates/" \
	--python-releases "$FORGE/files/release-cycle.json" --retries 0 --timeout 5 --strict
expect_status 1 "outdated --strict with the forge unreachable"

# ---- the catalogue's own facts ------------------------------------------------------------------
# pyodide-py at the catalogue's release alone
"$py" - "$tmp/index.json" <<'PY'
import json, sys
index = json.load(open(sys.argv[1]))
index["pyodide-py"] = index["pyodide-py"][:1]
json.dump(index, open(sys.argv[1], "w"))
PY
stop_servers
start_forge "$forge" --index "$tmp/index.json" --files "$tmp/files"
forge_action "$forge" actions/checkout 7.0.1
forge_action "$forge" PyO3/maturin-action 1.51.0
forge_action "$forge" actions/cache 5.0.5
mkdir "$tmp/nomatrix"
wm -C "$tmp/nomatrix" outdated --catalog --github "$FORGE" --index "$FORGE/simple/" --crates "$FORGE/files/crates/" \
	--python-releases "$FORGE/files/release-cycle.json" --retries 0 --format json
expect_status 0 "outdated --catalog against current sources"
"$py" - "$tmp/out" "$ROOT/templates/actions.yaml" <<'PY' || fail "outdated --catalog (above)"
import json, sys, yaml
report = json.load(open(sys.argv[1]))
table = yaml.safe_load(open(sys.argv[2]))
items = report["items"]
bad = []
got = lambda kind: {i["name"] for i in items if i["kind"] == kind}
if got("action") != set(table["actions"]) or got("runtime") != set(table["actions"]):
    bad.append("actions %s, runtimes %s" % (sorted(got("action")), sorted(got("runtime"))))
if got("tool") != set(table["tools"]):
    bad.append("tools %s" % sorted(got("tool")))
tk = {i["name"]: i for i in items if i["kind"] == "toolkit"}
if set(tk) != {"cuda", "rocm", "vulkan"} or (tk["cuda"]["pin"], tk["rocm"]["pin"]) != ("13.5.0", "7.2.2"):
    bad.append("toolkits %r" % tk)
pyodide = [(i["pin"], i["state"]) for i in items if i["kind"] == "python" and i["name"] == "Pyodide"]
if pyodide != [("314.0.5", "current")]:
    bad.append("Pyodide %r" % pyodide)
if sorted(i["pin"] for i in items if i["kind"] == "python" and i["name"] != "Pyodide") != ["3.11", "3.12", "3.13", "3.14", "3.15"]:
    bad.append("pythons %r" % [i["pin"] for i in items if i["kind"] == "python"])
if got("pyo3") != {"pyo3-ffi", "pyo3-build-config"}:
    bad.append("pyo3 %s" % sorted(got("pyo3")))
if not got("runner"):
    bad.append("no runner")
for i in items:
    if i["state"] != "current":
        bad.append("%s %s %s: %s %s" % (i["kind"], i["name"], i["pin"], i["state"], i["reason"] or i["note"]))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
finish
