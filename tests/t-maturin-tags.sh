#!/bin/bash
# t-maturin-tags.sh — the names list predicts for the platforms this machine cannot build for are the
# ones maturin's own tag code and the packaging library compute for them:
# 1. macOS (x86_64, arm64, universal2; rustc's default deployment targets and the matrix's
#    10.15, 15.2 and 10.13) and Windows (x86_64, x86, arm64): the pinned maturin's
#    `pep517 write-dist-info --target TRIPLE` (its get_platform_tag, with MACOSX_DEPLOYMENT_TARGET
#    set as the generated job sets it, and its ABI tags for the job's interpreter) writes the WHEEL
#    file's tags without compiling; they are exactly list's tags, expanded (a compressed set is one
#    tag per combination), for an abi3 crate (abi3, 3.14t) and one without (3.13, 3.14t); and
#    GraalPy 3.11 to 3.13 on macOS x86_64 and arm64 (maturin's macOS table, the ABI of the GraalPy
#    setup-python and uv install there), refused where the tools have none: Windows (maturin
#    fails with no table), 3.13 on macOS x86_64 (uv's download list has none).
# 2. every Linux platform of the catalogue and the levels a platform id may add (linux-x86_64-2_17,
#    linux-aarch64-2014, musllinux-x86_64-1_1, ...): each tag of list's platform tag is one the
#    pinned packaging (tests/tools/requirements.txt; pip's own) accepts on a machine of that
#    architecture with exactly that glibc or musl, and the PEP 600/656 one is not accepted one
#    level lower (packaging._manylinux / _musllinux.platform_tags, the running machine's libc
#    replaced by that level).  The build of linux-x86_64 itself is t-maturin-names'.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

# crate NAME PYO3-FEATURES: a project whose matrix is written after it
crate() {
	names_crate "$tmp/$1" "$2"
}

# tags NAME: maturin's WHEEL tags for each job of list, against list's
tags() {
	local dir=$tmp/$1
	wm -C "$dir" list --format json
	expect_status 0 "list ($1)"
	cp "$tmp/out" "$tmp/list-$1.json"
	"$py" - "$tmp/list-$1.json" "$dir" "$tmp/md-$1" <<'PY' || fail "maturin's tags for $1 are not list's (above)"
import itertools, json, os, shutil, subprocess, sys
jobs, project, md = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
matrix = {}
bad = 0
for j in jobs:
    shutil.rmtree(md, ignore_errors=True)
    os.makedirs(md)
    env = dict(os.environ)
    env.pop("MACOSX_DEPLOYMENT_TARGET", None)
    if j.get("deployment_target"):
        env["MACOSX_DEPLOYMENT_TARGET"] = j["deployment_target"]
    r = subprocess.run(["maturin", "pep517", "write-dist-info", "--metadata-directory", md, "--target", j["target"],
                        "-i", j["interpreter"]], cwd=project, env=env, capture_output=True, text=True)
    wheel = [os.path.join(md, d, "WHEEL") for d in os.listdir(md) if d.endswith(".dist-info")]
    if r.returncode or len(wheel) != 1:
        print("FAIL %s: maturin pep517 write-dist-info --target %s -i %s: %s" % (j["id"], j["target"], j["interpreter"], r.stderr[-600:]))
        bad = 1
        continue
    got = sorted(l.split(": ", 1)[1].strip() for l in open(wheel[0]) if l.startswith("Tag: "))
    want = sorted("-".join(t) for t in itertools.product(j["python_tag"].split("."), j["abi_tag"].split("."), j["platform_tag"].split(".")))
    print("%-4s %-32s %s" % ("ok" if got == want else "FAIL", j["id"], " ".join(got)))
    if got != want:
        print("     list says %s" % " ".join(want))
        bad = 1
sys.exit(bad)
PY
}

# ---- 1. macOS and Windows: maturin's tag code -------------------------------------------------------
crate plain '"extension-module"'
crate abi3 '"extension-module", "abi3-py310"'
for c in plain abi3; do
	if [ "$c" = plain ]; then versions='["3.13", "3.14t"]'; else versions='["3.14t"]'; fi
	cp -r "$tmp/$c" "$tmp/$c-targets"
	printf 'wheelmatrix: 1\npython: {versions: %s}\nplatforms: [macos-x86_64, macos-arm64, macos-universal2, windows-x86_64, windows-x86, windows-arm64]\n' \
		"$versions" >"$tmp/$c/wheelmatrix.yaml"
	printf 'wheelmatrix: 1\npython: {versions: %s}\nplatforms:\n  macos-x86_64: {deployment-target: "10.15"}\n  macos-arm64: {deployment-target: "15.2"}\n  macos-universal2: {deployment-target: "10.13"}\n' \
		"$versions" >"$tmp/$c-targets/wheelmatrix.yaml"
	tags "$c"
	tags "$c-targets"
done
# GraalPy on macOS: maturin's macOS table (no GraalPy here), the ABI of the GraalPy setup-python and
# uv install there (templates/interpreters.yaml); 3.13 has no macOS x86_64 build
for c in plain abi3; do
	cp -r "$tmp/$c" "$tmp/$c-graalpy"
	printf 'wheelmatrix: 1
python: {versions: ["graalpy3.11", "graalpy3.12", "graalpy3.13"]}
platforms: [macos-x86_64, macos-arm64]
exclude:
- {platform: macos-x86_64, python: "graalpy3.13"}
' \
		>"$tmp/$c-graalpy/wheelmatrix.yaml"
	tags "$c-graalpy"
done
"$py" -c 'import json, sys
ids = sorted(j["id"] for j in json.load(open(sys.argv[1])) if "graalpy" in j["id"])
assert ids == ["cpu-macos-arm64-graalpy311", "cpu-macos-arm64-graalpy312", "cpu-macos-arm64-graalpy313",
               "cpu-macos-x86_64-graalpy311", "cpu-macos-x86_64-graalpy312"], ids' "$tmp/list-plain-graalpy.json" ||
	fail "list does not give the GraalPy jobs of macOS x86_64 and arm64"
# where GraalPy is refused, the tools have none: maturin has no Windows GraalPy, uv no macOS x86_64 3.13
printf 'wheelmatrix: 1
python: {versions: ["graalpy3.12", "graalpy3.13"]}
platforms: [macos-x86_64, windows-x86_64, windows-arm64]
' \
	>"$tmp/plain-graalpy/wheelmatrix.yaml"
wm -C "$tmp/plain-graalpy" list
expect_status 2 "GraalPy on Windows and 3.13 on macOS x86_64"
for want in "GraalPy 3.12 cannot be built for windows-x86_64: maturin has no GraalPy configuration for Windows" \
		"GraalPy 3.13 cannot be built for macos-x86_64: GraalPy for macOS x86_64 ends with GraalPy 25.0" \
		"GraalPy 3.12 cannot be built for windows-arm64"; do
	grep -qF "$want" "$tmp/err" || fail "list does not refuse: $want"
done
grep -q "cannot be built for macos-x86_64: .*graalpy3.12" "$tmp/err" && fail "GraalPy 3.12 refused on macOS x86_64: $(cat "$tmp/err")"
for t in x86_64-pc-windows-msvc aarch64-pc-windows-msvc; do
	if (cd "$tmp/plain" && maturin pep517 write-dist-info --metadata-directory "$tmp/md-win" --target "$t" -i graalpy3.12) >"$tmp/win.out" 2>&1; then
		fail "maturin writes a GraalPy wheel for $t: $(cat "$tmp/win.out")"
	else
		grep -q "GraalVM 3.12 interpreter in known sysconfig" "$tmp/win.out" || fail "maturin's GraalPy refusal for $t is not the missing table: $(tail -5 "$tmp/win.out")"
	fi
done
uv python list --all-versions --only-downloads --all-platforms --all-arches >"$tmp/uv.list" 2>&1 ||
	fatal "uv python list failed: $(cat "$tmp/uv.list")"
"$py" - "$ROOT/templates/interpreters.yaml" "$tmp/uv.list" <<'PY' || fail "templates/interpreters.yaml's GraalPy of macOS is not uv's"
import re, sys, yaml
data = yaml.safe_load(open(sys.argv[1]))
uv = set(re.findall(r"^graalpy-(3\.\d+)\.\d+-macos-(\w+)-", open(sys.argv[2]).read(), re.M))
ok = True
for v in data["graalpy"]:
    for arch, listed in (("x86_64", v in data["graalpy-macos-x86_64"]), ("aarch64", True)):
        if ((v, arch) in uv) != listed:
            print("GraalPy %s for macOS %s: uv %s it, the catalogue %s" % (v, arch, "has" if (v, arch) in uv else "lacks",
                  "builds it" if listed else "refuses it"))
            ok = False
sys.exit(0 if ok else 1)
PY

# list's JSON names the deployment target the job sets
"$py" -c 'import json, sys
ids = {j["id"]: j.get("deployment_target") for j in json.load(open(sys.argv[1]))}
assert ids["cpu-macos-x86_64-cp313"] == "10.15" and ids["cpu-macos-arm64-cp313"] == "15.2", ids' "$tmp/list-plain-targets.json" ||
	fail "list --format json does not give the deployment targets the matrix sets"

# ---- 2. Linux: packaging's tags for a machine of that architecture and libc --------------------------
"$py" - "$ROOT/templates/platforms.yaml" >"$tmp/linux.yaml" <<'PY'
import sys, yaml
cat = yaml.safe_load(open(sys.argv[1]))
ids = []
for pid, p in cat.items():
    if p["os"] != "linux":
        continue
    ids.append(pid)
    # another level of each: the oldest, and the newest level pypa or the musl images publish
    if p["family"] == "manylinux":
        ids += [pid + "-2_17", pid + "-2_34"] if p["manylinux"] not in ("2_17", "2014") else [pid + "-2_28"]
    else:
        ids.append(pid + "-1_1")
yaml.safe_dump({"wheelmatrix": 1, "project": {"name": "tags"}, "python": {"versions": ["3.13"]}, "platforms": ids}, sys.stdout)
PY
mkdir -p "$tmp/linux"
cp "$tmp/linux.yaml" "$tmp/linux/wheelmatrix.yaml"
wm -C "$tmp/linux" list --format json
expect_status 0 "list of every Linux platform at two levels"
cp "$tmp/out" "$tmp/linux.json"
"$tools/bin/python" - "$tmp/linux.json" <<'PY' || fail "list's Linux platform tags against packaging's (above)"
import json, sys
from packaging import _manylinux, _musllinux

def accepted(family, arch, major, minor):
    """packaging's platform tags for a machine of `arch` with glibc or musl major.minor."""
    if family == "manylinux":
        _manylinux._get_glibc_version = lambda: (major, minor)
        _manylinux._have_compatible_abi = lambda executable, archs: True
        return set(_manylinux.platform_tags([arch]))
    _musllinux._get_musl_version = lambda executable: _musllinux._MuslVersion(major, minor)
    return set(_musllinux.platform_tags([arch]))

bad = 0
for j in json.load(open(sys.argv[1])):
    family = "musllinux" if j["platform_tag"].startswith("musllinux") else "manylinux"
    level = {"2014": "2_17"}.get(j["manylinux"], j["manylinux"])
    major, minor = (int(x) for x in level.split("_"))
    arch = j["platform_tag"].rsplit("_", 1)[-1] if j["platform_tag"].endswith(("x86_64", "aarch64", "ppc64le", "armv7l", "riscv64", "s390x", "i686")) else None
    arch = {"x86_64": "x86_64"}.get(arch, arch)
    for a in ("x86_64", "aarch64", "ppc64le", "armv7l", "riscv64", "s390x", "i686"):
        if j["platform_tag"].endswith("_" + a):
            arch = a
    tags = j["platform_tag"].split(".")
    here, below = accepted(family, arch, major, minor), accepted(family, arch, major, minor - 1)
    principal = "%s_%d_%d_%s" % (family, major, minor, arch)
    ok = all(t in here for t in tags) and principal in tags and principal not in below
    print("%-4s %-36s %s" % ("ok" if ok else "FAIL", j["platform"], j["platform_tag"]))
    bad |= not ok
sys.exit(bad)
PY
finish
