#!/bin/bash
# t-pypy-maturin.sh — the pinned maturin names the wheels of a PyPy job as wheelmatrix does, beside
# abi3: the abi3 fixture (pyo3 0.29 with abi3-py310), its matrix given pp3.11, is built by the
# pinned maturin with `-i python3.11 -i pypy3.11` (no PyPy interpreter here: maturin takes PyPy
# 3.11's configuration from its own tables, as when cross-compiling), and the two wheels it writes
# are the cp310-abi3 and pp311-pypy311_pp73 files `plan` lists for linux-x86_64, tags and extension
# suffix (.pypy311-pp73-x86_64-linux-gnu.so) included; maturin says the PyPy build is
# version-specific, since PyPy has no abi3.  The import under PyPy cannot run here (no PyPy 3.11:
# uv's downloads are out of reach); t-pypy-tags checks the names against packaging's PyPy tags.
. "$ROOT/tests/lib.sh"
# shellcheck source=tests/e2e-env.sh
. "$ROOT/tests/e2e-env.sh"

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
m["python"] = {"versions": ["pp3.11"]}
yaml.safe_dump(m, open(path, "w"), sort_keys=False)
PY
wm -C "$repo" plan --offline --first-release --format json
expect_status 0 "plan of the abi3 fixture with pp3.11"
"$py" -c 'import json, sys
for d in json.load(open(sys.argv[1]))["distributions"]:
    for a in d["artifacts"]:
        if a["kind"] == "wheel":
            print(a["file"].replace("-manylinux_2_28_x86_64.whl", ""))' "$tmp/out" | sort >"$tmp/planned"
[ "$(wc -l <"$tmp/planned")" = 2 ] || fatal "plan does not list two wheels: $(cat "$tmp/planned")"

(cd "$repo" && maturin build --release --out "$tmp/dist" -i python3.11 -i pypy3.11 --compatibility linux) \
	>"$tmp/build.log" 2>&1 || { show "$tmp/build.log"; fatal "maturin build -i python3.11 -i pypy3.11 failed"; }
grep -q "abi3 does not yet support PyPy 3.11 so the build artifacts will be version-specific" "$tmp/build.log" ||
	fail "maturin did not say the PyPy build is version-specific: $(grep -i pypy "$tmp/build.log")"
(cd "$tmp/dist" && ls -- *.whl) | sed 's/-linux_x86_64\.whl$//' | sort >"$tmp/built"
expect_same "$tmp/planned" "$tmp/built" "the wheels maturin built (platform tags aside) against plan's"
"$py" -m zipfile -l "$tmp/dist"/*-pp311-pypy311_pp73-*.whl >"$tmp/files"
grep -q 'abi3_rs\.pypy311-pp73-x86_64-linux-gnu\.so' "$tmp/files" ||
	fail "the PyPy wheel holds no .pypy311-pp73 extension: $(cat "$tmp/files")"
exit "$failures"
