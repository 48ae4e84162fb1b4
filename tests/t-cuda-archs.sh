#!/bin/bash
# t-cuda-archs.sh — the catalog's CUDA architectures are CMake's, and what the recipes export reads as bindgen_cuda and CMake read it.
#
# 1. For every CUDA version of templates/toolkits.yaml, `archs.<version>.supported` is exactly the
#    list CMake 4.4.5 (PyPI, tests/tools/requirements.txt) computes for that nvcc: `cmake -P` runs
#    CMake's own cmake_cuda_architectures_all (Modules/Internal/CMakeCUDAArchitecturesAll.cmake)
#    with the version as the toolkit's; and the version's `default` is part of it.
# 2. For each version, a backend generated without `archs` exports its default: CUDA_COMPUTE_CAP
#    is read by bindgen_cuda 0.1.6 (crates.io; the probe crate tests/bindgen-cuda-probe makes its
#    Builder as a build script does) against an nvcc whose `--list-gpu-code` lists the version's
#    architectures, and bindgen_cuda takes it (it prints `cargo:rustc-env=CUDA_COMPUTE_CAP=N`);
#    the same value dotted, as TORCH_CUDA_ARCH_LIST spells it, makes the probe panic (the probe
#    can fail).  Each entry of CMAKE_CUDA_ARCHITECTURES and CUDAARCHS is one of CMake's own list
#    for the version, and TORCH_CUDA_ARCH_LIST is the same architectures as PyTorch writes them
#    (X.Y, `;`-separated, as pytorch's .ci/manywheel/build_cuda.sh sets it).
# heavy: cargo builds bindgen_cuda; CMake runs once per CUDA version
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
tools=$("$ROOT/tests/tools/install.sh" --path)
cmake=$tools/bin/cmake
need "$cmake" "make tools"
need cargo "rustup (https://rustup.rs), as make check installs it"

# CMake's list for each version, "75-real;80-real;...;121" as CMake writes it
versions=$("$py" -c 'import sys, yaml; print(" ".join(yaml.safe_load(open(sys.argv[1]))["cuda"]["versions"]))' \
	"$ROOT/templates/toolkits.yaml")
cat >"$tmp/all.cmake" <<'EOF'
include(${CMAKE_ROOT}/Modules/Internal/CMakeCUDAArchitecturesAll.cmake)
set(CMAKE_CUDA_COMPILER_ID NVIDIA)
foreach(version IN LISTS VERSIONS)
  set(CMAKE_CUDA_COMPILER_TOOLKIT_VERSION ${version})
  cmake_cuda_architectures_all(CUDA CMAKE_CUDA_COMPILER_)
  message("${version} ${CMAKE_CUDA_ARCHITECTURES_ALL}")
endforeach()
EOF
expect_run 0 "$cmake" -DVERSIONS="${versions// /;}" -P "$tmp/all.cmake"
cp "$tmp/err" "$tmp/cmake.txt"
[[ $(wc -l <"$tmp/cmake.txt") -ge 10 ]] || fail "CMake listed $(wc -l <"$tmp/cmake.txt") versions: $(cat "$tmp/cmake.txt")"

"$py" - "$ROOT" "$tmp/cmake.txt" <<'PY' || fail "the catalog's architectures against CMake's"
import os, sys, yaml
root, cmake = sys.argv[1:]
cuda = yaml.safe_load(open(os.path.join(root, "templates", "toolkits.yaml")))["cuda"]
bad = []
for line in open(cmake):
    version, archs = line.split()
    theirs = [a.replace("-real", "") for a in archs.split(";")]
    data = cuda["archs"].get(version)
    if data is None:
        bad.append("%s: no archs in the catalog" % version)
        continue
    ours = ["%s" % a for a in data["supported"]]
    flat = [a.replace(".", "") for a in ours]
    if flat != theirs:
        bad.append("%s: the catalog has %s, CMake %s" % (version, flat, theirs))
    extra = [a for a in data["default"] if a not in data["supported"]]
    if extra:
        bad.append("%s: default %s outside the supported list" % (version, extra))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# every version's default, as a generated job exports it
scratch_repo "$tmp/r"
{
	printf 'wheelmatrix: 1\nproject: {name: gpupkg}\npython:\n  versions: ["3.12"]\nplatforms: [linux-x86_64]\nbackends:\n'
	for v in $versions; do printf '  cuda%s:\n    toolkit: {cuda: "%s"}\n' "${v//./_}" "$v"; done
	printf '  cpu:\n    default: true\n'
} >"$tmp/r/wheelmatrix.yaml"
commit_all "$tmp/r"
expect_run 0 "$WM" -q -C "$tmp/r" generate
"$py" - "$tmp/r/.github/workflows/wheels.yml" "$tmp/cmake.txt" "$tmp/exports" <<'PY' || fail "the exported architectures"
import subprocess, sys, yaml
wf, cmake, out = sys.argv[1:]
lists = dict((l.split()[0], [a.replace("-real", "") for a in l.split()[1].split(";")]) for l in open(cmake))
jobs = yaml.safe_load(open(wf))["jobs"]
bad, rows = [], []
for version, theirs in lists.items():
    job = jobs["build-cuda%s-linux" % version.replace(".", "_")]
    script = [s for s in job["steps"] if "WM_BEFORE_SCRIPT" in (s.get("env") or {})][0]["env"]["WM_BEFORE_SCRIPT"]
    exports = "\n".join(l for l in script.splitlines() if l.startswith("export "))
    names = ["CUDA_COMPUTE_CAP", "CMAKE_CUDA_ARCHITECTURES", "CUDAARCHS", "TORCH_CUDA_ARCH_LIST"]
    got = subprocess.run(["bash", "-c", exports + "\n" + "".join('printf "%%s\\n" "$%s"\n' % n for n in names)],
                         env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True).stdout.split("\n")
    cap, cmake_archs, cudaarchs, torch = got[:4]
    for name, value in (("CMAKE_CUDA_ARCHITECTURES", cmake_archs), ("CUDAARCHS", cudaarchs)):
        if not value or any(a not in theirs for a in value.split(";")):
            bad.append("%s %s=%r: not entries of CMake's %s" % (version, name, value, theirs))
    if [a.replace(".", "") for a in torch.split(";")] != cmake_archs.split(";") or \
            any(len(a.split(".")) != 2 or not all(p.isdigit() for p in a.split(".")) for a in torch.split(";")):
        bad.append("%s TORCH_CUDA_ARCH_LIST=%r is not %r as X.Y" % (version, torch, cmake_archs))
    # what nvcc of that version would list: its architectures as sm_N lines
    rows.append("%s %s %s %s" % (version, cap, torch.split(";")[0], ",".join(theirs)))
open(out, "w").write("\n".join(rows) + "\n")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# bindgen_cuda reads CUDA_COMPUTE_CAP as the recipes export it, and refuses the dotted form
cp -r "$ROOT/tests/bindgen-cuda-probe" "$tmp/probe"
mkdir "$tmp/bin" "$tmp/out-dir"
export CARGO_TARGET_DIR=$tmp/target
expect_run 0 cargo build -q --locked --manifest-path "$tmp/probe/Cargo.toml"
probe=$tmp/target/debug/bindgen-cuda-probe
while read -r version cap dotted list; do
	# shellcheck disable=SC2016 # the fake nvcc's own line
	printf '#!/bin/sh\n[ "$1" = --list-gpu-code ] || exit 2\n' >"$tmp/bin/nvcc"
	for a in ${list//,/ }; do printf 'echo sm_%s\n' "$a" >>"$tmp/bin/nvcc"; done
	chmod +x "$tmp/bin/nvcc"
	(cd "$tmp/probe" && PATH=$tmp/bin:$PATH OUT_DIR=$tmp/out-dir CUDA_COMPUTE_CAP=$cap "$probe") >"$tmp/probe.out" 2>&1 ||
		{ fail "CUDA $version: bindgen_cuda refused CUDA_COMPUTE_CAP=$cap"; show "$tmp/probe.out"; }
	grep -qx "cargo:rustc-env=CUDA_COMPUTE_CAP=$cap" "$tmp/probe.out" ||
		fail "CUDA $version: bindgen_cuda did not take CUDA_COMPUTE_CAP=$cap"
	if (cd "$tmp/probe" && PATH=$tmp/bin:$PATH OUT_DIR=$tmp/out-dir CUDA_COMPUTE_CAP=$dotted "$probe") >"$tmp/probe.out" 2>&1; then
		fail "CUDA $version: bindgen_cuda took the dotted CUDA_COMPUTE_CAP=$dotted: the probe cannot fail"
	fi
done <"$tmp/exports"
[[ $(wc -l <"$tmp/exports") -ge 10 ]] || fail "only $(wc -l <"$tmp/exports") versions probed"
finish
