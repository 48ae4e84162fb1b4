#!/bin/bash
# t-maturin-names.sh — every wheel name list and plan predict is the name the pinned maturin writes,
# for each crate shape that turns abi3 on another way and each Python and platform axis this machine
# can build (Linux x86_64; PyO3 from crates.io, tests/names/Cargo-*.lock):
#   own        [features] abi3 = ["pyo3/abi3-py310"], a backend's `features: [abi3]`, beside a
#              backend without it (backends differing in abi3); CPython, 3.14t, PyPy 3.11 (pp73, from
#              maturin's tables) and GraalPy 3.12 (graalpy250, its table), at manylinux 2_28 and, as
#              the platform linux-x86_64-2_17, 2_17 (manylinux2014_x86_64.manylinux_2_17_x86_64)
#   default    [features] default = ["abi3"] through abi3 = ["pyo3/abi3-py39"]
#   nodefault  the same, beside a backend whose no-default-features turns it off (cp312-cp312)
#   workspace  pyo3 = { workspace = true }, abi3-py311 in [workspace.dependencies]
#   maturin    [tool.maturin] features = ["abi3"], abi3 = ["pyo3/abi3-py312"]
#   abi3t      PyO3 0.30's abi3t-py315 (python.abi3t: cp315-abi3.abi3t) beside CPython 3.13
# Each job is built as its generated job builds it: `wheelmatrix build BACKEND` (the backend's patch
# applied: its features, its name) with `-i` the job's interpreter and `--compatibility` its level
# (no interpreter runs here but python3.11: maturin takes the others' configuration from its own
# tables, as in the images without them); the wheel files it writes are exactly plan's for those jobs.
# The platforms built elsewhere are t-maturin-tags' (maturin's and packaging's tag code).
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

names=$ROOT/tests/names

# shape NAME PYO3-SERIES: a scratch project $tmp/NAME (the rest of its Cargo.toml written after it)
shape() {
	local dir=$tmp/$1
	mkdir -p "$dir/src"
	cp "$names/lib.rs" "$dir/src/lib.rs"
	cp "$names/Cargo-$2.lock" "$dir/Cargo.lock"
	maturin_project "$dir" names-rs 1.0.0 "maturin>=1.16,<2"
}

# cargo_toml DIR PYO3-ENTRY FEATURES-TABLE: the rest of the crate's manifest, its own workspace root
cargo_toml() {
	printf 'edition = "2021"\n\n[lib]\nname = "names_rs"\ncrate-type = ["cdylib"]\n\n[dependencies]\npyo3 = %s\n\n[features]\n%s\n\n[workspace]\n' "$2" "$3" >>"$1/Cargo.toml"
}

# build NAME: generate, then every job of plan built by `wheelmatrix build`, one maturin run per job
# (one interpreter, as the generated job runs maturin); the wheels' names against plan's.  The
# builds of each shape and interpreter go to a cargo target directory of their own, kept across runs
# in the test's slot (tests/kit/e2e-env.sh): pyo3's build script reruns whenever the interpreter's
# configuration maturin writes changes (another interpreter, another abi3 version), so builds of one
# after another in one directory would compile pyo3 again at each job (13 s).
build() {
	local dir=$tmp/$1 out=$tmp/dist-$1
	wm -C "$dir" generate
	expect_status 0 "generate ($1)"
	scratch_repo "$dir"
	commit_all "$dir"
	wm -C "$dir" plan --offline --first-release --format json
	expect_status 0 "plan ($1)"
	cp "$tmp/out" "$tmp/plan-$1.json"
	wm -C "$dir" list --format json
	expect_status 0 "list ($1)"
	cp "$tmp/out" "$tmp/list-$1.json"
	# one line per job: BACKEND COMPATIBILITY ARGS,... INTERPRETER
	"$py" - "$tmp/list-$1.json" >"$tmp/builds-$1" <<'PY' || { fail "list --format json ($1) is not a list of jobs"; return; }
import json, sys
for j in json.load(open(sys.argv[1])):
    level = j["manylinux"]
    compat = "manylinux" + level if level in ("2014", "2010") else "manylinux_" + level
    # maturin's arguments before --out, as the generated job passes them (the build settings')
    args = ",".join(j["build"]["args"]) if "build" in j else "--release"
    print(j["backend"], compat, args, j["interpreter"])
PY
	mkdir -p "$out"
	while read -r backend compat args interpreter; do
		# shellcheck disable=SC2086  # the build arguments, one word each
		(cd "$dir" && CARGO_TARGET_DIR=$CARGO_TARGET_DIR/t-maturin-names/$1/$interpreter \
			"$WM" build "$backend" -- ${args//,/ } --out "$out" -i "$interpreter" --compatibility "$compat" --auditwheel skip) \
			>"$tmp/build-$1.log" 2>&1 || { show "$tmp/build-$1.log"; fail "wheelmatrix build $backend ($1, $compat, $interpreter) failed"; }
	done <"$tmp/builds-$1"
	"$py" - "$tmp/plan-$1.json" "$out" "$1" <<'PY' || fail "the wheels maturin wrote for $1 are not plan's (above)"
import json, os, sys
plan, out, name = sys.argv[1:]
planned = sorted(a["file"] for d in json.load(open(plan))["distributions"] for a in d["artifacts"] if a["kind"] == "wheel")
built = sorted(f for f in os.listdir(out) if f.endswith(".whl"))
for f in planned:
    print(("ok      " if f in built else "MISSING ") + f)
for f in built:
    if f not in planned:
        print("BUILT   " + f + "  (plan names no such file)")
sys.exit(0 if planned == built and planned else 1)
PY
}

# ---- own: a backend's features turn abi3 on, another's do not; PyPy, GraalPy, 3.14t, two levels ---
shape own 0.29
cargo_toml "$tmp/own" '{ version = "=0.29.3", features = ["extension-module"] }' 'abi3 = ["pyo3/abi3-py310"]
simd = []'
cat >"$tmp/own/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
python:
  versions: ["3.12", "3.14t", "pp3.11", "graalpy3.12"]
platforms: [linux-x86_64, linux-x86_64-2_17]
backends:
  cpu: {default: true, features: [abi3]}
  plain: {features: [simd]}
exclude:
  - {platform: linux-x86_64-2_17, python: "3.14t"}
  - {platform: linux-x86_64-2_17, python: "pp3.11"}
  - {platform: linux-x86_64-2_17, python: "graalpy3.12"}
ci: {github: {}}
EOF
build own

# ---- default: the crate's default features ---------------------------------------------------------
shape default 0.29
cargo_toml "$tmp/default" '{ version = "=0.29.3", features = ["extension-module"] }' 'default = ["abi3"]
abi3 = ["pyo3/abi3-py39"]'
printf 'wheelmatrix: 1\nplatforms: [linux-x86_64]\nci: {github: {}}\n' >"$tmp/default/wheelmatrix.yaml"
build default

# ---- nodefault: a backend's no-default-features turns the crate's default abi3 off ---------------------
shape nodefault 0.29
cargo_toml "$tmp/nodefault" '{ version = "=0.29.3", features = ["extension-module"] }' 'default = ["abi3"]
abi3 = ["pyo3/abi3-py39"]'
printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\n  lean: {no-default-features: true}\nci: {github: {}}\n' >"$tmp/nodefault/wheelmatrix.yaml"
build nodefault

# ---- workspace: pyo3 from [workspace.dependencies], its features merged with the member's -----------
shape workspace 0.29
mkdir -p "$tmp/workspace/crates/py"
mv "$tmp/workspace/src" "$tmp/workspace/crates/py/src"
printf '[workspace]\nmembers = ["crates/py"]\nresolver = "2"\n\n[workspace.dependencies]\npyo3 = { version = "=0.29.3", features = ["abi3-py311"] }\n' >"$tmp/workspace/Cargo.toml"
printf '[package]\nname = "names-rs"\nversion = "1.0.0"\nedition = "2021"\n\n[lib]\nname = "names_rs"\ncrate-type = ["cdylib"]\n\n[dependencies]\npyo3 = { workspace = true, features = ["extension-module"] }\n' >"$tmp/workspace/crates/py/Cargo.toml"
printf '\n[tool.maturin]\nmanifest-path = "crates/py/Cargo.toml"\n' >>"$tmp/workspace/pyproject.toml"
printf 'wheelmatrix: 1\nplatforms: [linux-x86_64]\nci: {github: {}}\n' >"$tmp/workspace/wheelmatrix.yaml"
build workspace

# ---- maturin: [tool.maturin].features names the crate's feature -------------------------------------
shape maturin 0.29
cargo_toml "$tmp/maturin" '{ version = "=0.29.3", features = ["extension-module"] }' 'abi3 = ["pyo3/abi3-py312"]'
printf '\n[tool.maturin]\nfeatures = ["abi3"]\n' >>"$tmp/maturin/pyproject.toml"
printf 'wheelmatrix: 1\nplatforms: [linux-x86_64]\nci: {github: {}}\n' >"$tmp/maturin/wheelmatrix.yaml"
build maturin

# ---- abi3t: PyO3 0.30's free-threaded stable ABI beside a CPython version -----------------------------
shape abi3t 0.30
cargo_toml "$tmp/abi3t" '{ version = "=0.30.1", features = ["extension-module", "abi3t-py315"] }' ''
printf 'wheelmatrix: 1\npython:\n  abi3t: "3.15"\n  versions: ["3.13"]\nplatforms: [linux-x86_64]\nci: {github: {}}\n' >"$tmp/abi3t/wheelmatrix.yaml"
build abi3t

finish
