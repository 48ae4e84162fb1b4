#!/bin/bash
# t-pypy-maturin.sh — where wheelmatrix builds PyPy is where the tools do, and the pinned maturin
# names the wheels of a PyPy job as wheelmatrix does, beside abi3.
#
# 1. Every PyPy the loader takes (the JSON Schema's pp3.N) on every platform of the catalogue: a
#    Linux platform takes it exactly when the pinned maturin's own tables have that PyPy for its
#    target (`maturin list-python --target`, what maturin builds from with no interpreter), a
#    macOS or Windows one exactly when uv's download list has that PyPy for it (what setup-python
#    and uv install there); the loader's refusals are read from `list`'s errors.
# 2. templates/interpreters.yaml's `installed` row is the C API version of the newest PyPy of each Python
#    version in uv's download list for macOS x86_64 and arm64 and Windows x86_64.
# 3. The abi3 fixture (pyo3 0.29 with abi3-py310), its matrix given pp3.11 and pp3.12, is built
#    by the pinned maturin with `-i python3.11 -i pypy3.11 -i pypy3.12` (no PyPy interpreter here:
#    maturin takes PyPy's configuration from its own tables, as in the images without PyPy and
#    when cross-compiling), and the wheels it writes are the cp310-abi3 and pp311/pp312 files
#    `plan` lists for linux-x86_64, tags (pypy312_pp80: PyPy 3.12's C API is 8.0) and extension
#    suffix (.pypy311-pp73-x86_64-linux-gnu.so) included; maturin says the PyPy build is
#    version-specific, since PyPy has no abi3.  The import under PyPy cannot run here (uv's
#    downloads are out of reach); t-pypy-tags checks the names against packaging's PyPy tags.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

# ---- 1. where PyPy is built ------------------------------------------------------------------
"$py" - "$ROOT/docs/wheelmatrix.schema.json" "$ROOT/templates/platforms.yaml" "$tmp/all.yaml" <<'PY' || fatal "cannot write the matrix of every platform"
import json, re, sys, yaml
schema, catalog, out = sys.argv[1:]
pp = sorted(set(re.findall(r'"(pp3\.\d+)"', open(schema).read())), key=lambda v: int(v[4:]))
plats = [k for k in yaml.safe_load(open(catalog))]
yaml.safe_dump({"wheelmatrix": 1, "project": {"name": "demo"}, "python": {"versions": ["3.12"] + pp},
                "platforms": plats}, open(out, "w"), sort_keys=False)
print(" ".join(pp))
PY
mkdir -p "$tmp/all"
cp "$tmp/all.yaml" "$tmp/all/wheelmatrix.yaml"
wm -C "$tmp/all" list
"$py" -c 'import sys, yaml; print(" ".join(yaml.safe_load(open(sys.argv[1]))["python"]["versions"][1:]))' "$tmp/all.yaml" >"$tmp/pp"
grep -q "pp3.11" "$tmp/pp" || fatal "the JSON Schema names no PyPy: $(cat "$tmp/pp")"
cp "$tmp/err" "$tmp/all.err"
uv python list --all-versions --only-downloads --all-platforms --all-arches >"$tmp/uv.list" 2>&1 ||
	fatal "uv python list failed: $(cat "$tmp/uv.list")"
for t in $("$py" -c 'import sys, yaml
for k, v in yaml.safe_load(open(sys.argv[1])).items():
    if v["os"] == "linux": print(v["target"])' "$ROOT/templates/platforms.yaml"); do
	maturin list-python --target "$t" >"$tmp/maturin-$t" 2>&1 || fatal "maturin list-python --target $t: $(cat "$tmp/maturin-$t")"
done
"$py" - "$ROOT/templates/platforms.yaml" "$tmp" <<'PY' || fail "where the loader takes PyPy is not where maturin and uv have it"
import re, sys, yaml
catalog, tmp = sys.argv[1:]
pp = open(tmp + "/pp").read().split()
refused = set(re.findall(r"error: PyPy (3\.\d+) cannot be built for ([a-z0-9_-]+):", open(tmp + "/all.err").read()))
uv = set()
for line in open(tmp + "/uv.list"):
    m = re.match(r"pypy-(3\.\d+)\.\d+-(\w+)-(\w+)-", line)
    if m:
        uv.add((m.group(1), m.group(2), m.group(3)))
uv_arch = {"x86_64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64", "i686": "x86", "universal2": "universal2"}
ok = True
for pid, p in yaml.safe_load(open(catalog)).items():
    for v in (x[2:] for x in pp):
        if p["os"] == "linux":
            has = re.search(r"\bPyPy %s\b" % re.escape(v), open("%s/maturin-%s" % (tmp, p["target"])).read()) is not None
            why = "maturin list-python --target " + p["target"]
        else:
            has = (v, p["os"], uv_arch.get(p["arch"], p["arch"])) in uv
            why = "uv's downloads for %s %s" % (p["os"], p["arch"])
        taken = (v, pid) not in refused
        if has != taken:
            print("PyPy %s on %s: the loader %s it, %s %s it" % (v, pid, "takes" if taken else "refuses", why, "has" if has else "lacks"))
            ok = False
print("PyPy %s on %d platforms, %d refusals" % (" ".join(pp), len(yaml.safe_load(open(catalog))), len(refused)))
sys.exit(0 if ok else 1)
PY

# ---- 2. the PyPy uv and setup-python install ---------------------------------------------------
uv python list --all-versions --only-downloads --all-platforms --all-arches --output-format json >"$tmp/uv.json" 2>&1 ||
	fatal "uv python list --output-format json failed: $(cat "$tmp/uv.json")"
"$py" - "$ROOT/templates/interpreters.yaml" "$tmp/uv.json" <<'PY' || fail "templates/interpreters.yaml's installed row is not uv's"
import json, re, sys, yaml
table = yaml.safe_load(open(sys.argv[1]))["pypy"]["installed"]
newest = {}
for e in json.load(open(sys.argv[2])):
    arch = e["arch"]["family"] if isinstance(e["arch"], dict) else e["arch"]
    if e["implementation"] != "pypy" or (e["os"], arch) not in (("macos", "x86_64"), ("macos", "aarch64"), ("windows", "x86_64")):
        continue
    minor = ".".join(e["version"].split(".")[:2])
    release = tuple(int(x) for x in re.search(r"-v(\d+)\.(\d+)\.(\d+)-", e["url"]).groups())
    key = (minor, e["os"], arch)
    newest[key] = max(newest.get(key, release), release)
ok = True
for (minor, os_, arch), release in sorted(newest.items()):
    want = "%d%d" % release[:2]
    if minor in table and table[minor] != want:
        print("PyPy %s on %s %s: uv installs PyPy %s (pp%s), the table says pp%s" % (minor, os_, arch, ".".join(map(str, release)), want, table[minor]))
        ok = False
missing = set(table) - {k[0] for k in newest}
if missing:
    print("uv has no PyPy", sorted(missing)); ok = False
print("installed:", {k: "pp" + v for k, v in table.items()})
sys.exit(0 if ok else 1)
PY

# ---- 3. maturin's names ----------------------------------------------------------------------
repo=$tmp/abi3
cp -r "$ROOT/tests/fixtures/abi3" "$repo"
rm -rf "$repo/.github" "$repo/.gitlab-ci.yml"
# its own workspace root: cargo looks no further up the scratch directory for a manifest
printf '\n[workspace]\n' >>"$repo/Cargo.toml"
# the cpu backend alone, with PyPy beside the crate's abi3 wheel
"$py" - "$repo/wheelmatrix.yaml" <<'PY'
import sys, yaml
path = sys.argv[1]
m = yaml.safe_load(open(path))
m["platforms"] = ["linux-x86_64"]
m["backends"] = {"cpu": {"default": True}}
m["python"] = {"versions": ["pp3.11", "pp3.12"]}
yaml.safe_dump(m, open(path, "w"), sort_keys=False)
PY
wm -C "$repo" plan --offline --first-release --format json
expect_status 0 "plan of the abi3 fixture with pp3.11"
"$py" -c 'import json, sys
for d in json.load(open(sys.argv[1]))["distributions"]:
    for a in d["artifacts"]:
        if a["kind"] == "wheel":
            print(a["file"].replace("-manylinux_2_28_x86_64.whl", ""))' "$tmp/out" | sort >"$tmp/planned"
[ "$(wc -l <"$tmp/planned")" = 3 ] || fatal "plan does not list three wheels: $(cat "$tmp/planned")"

(cd "$repo" && maturin build --release --out "$tmp/dist" -i python3.11 -i pypy3.11 -i pypy3.12 --compatibility linux) \
	>"$tmp/build.log" 2>&1 || { show "$tmp/build.log"; fatal "maturin build -i python3.11 -i pypy3.11 -i pypy3.12 failed"; }
# (maturin names the two in either order)
grep "abi3 does not yet support .* so the build artifacts will be version-specific" "$tmp/build.log" |
	grep "PyPy 3.11" | grep -q "PyPy 3.12" ||
	fail "maturin did not say the PyPy build is version-specific: $(grep -i pypy "$tmp/build.log")"
(cd "$tmp/dist" && ls -- *.whl) | sed 's/-linux_x86_64\.whl$//' | sort >"$tmp/built"
expect_same "$tmp/planned" "$tmp/built" "the wheels maturin built (platform tags aside) against plan's"
"$py" -m zipfile -l "$tmp/dist"/*-pp311-pypy311_pp73-*.whl >"$tmp/files"
grep -q 'abi3_rs\.pypy311-pp73-x86_64-linux-gnu\.so' "$tmp/files" ||
	fail "the PyPy wheel holds no .pypy311-pp73 extension: $(cat "$tmp/files")"
exit "$failures"
