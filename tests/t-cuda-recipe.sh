#!/bin/bash
# t-cuda-recipe.sh — Linux CUDA builds run in NVIDIA's prebuilt image where one matches, else install only their features' packages, and export the GPU architectures.
#
# A matrix of CUDA 12.9 on linux-x86_64 (manylinux_2_28), linux-aarch64 at level 2_34 and
# windows-x86_64, a CUDA 12.4 backend with cudnn, a 12.8 one with cublas and cudarc and one of 13.0
# with none of CUDA's features, is generated for GitHub and GitLab, and again with linux-x86_64's
# image and container given by the matrix.  Read back with PyYAML:
# - the 12.9 builds run in quay.io/manylinux_cuda/manylinux_2_28_x86_64_cuda12_9 and
#   manylinux_2_34_aarch64_cuda12_9 (the names of cibuildwheel's FAQ) at the catalog's date tag, on
#   GitHub in the container step's WM_IMAGE per entry and on GitLab as the job's image; the 12.4
#   build and the one with its own image keep the platform's image;
# - no recipe installs cuda-toolkit-X-Y; each installs exactly the base packages and those of its
#   features (candle-core/cuda: cuBLAS, cuRAND, NVRTC; cudnn: cuDNN 9; cublas and cudarc: cuBLAS
#   once; none: the catalog's default), the repository chosen from /etc/os-release;
# - the recipe's export lines, run by bash, give CUDA_COMPUTE_CAP, CMAKE_CUDA_ARCHITECTURES,
#   CUDAARCHS and TORCH_CUDA_ARCH_LIST in their formats for the matrix's archs ("7.5", 80, sm_86;
#   "12.0", 75, "9.0" in that order, the oldest for CUDA_COMPUTE_CAP) and for 12.4's and 13.0's
#   defaults, and keep a value the job's environment already has; on Windows, a
#   bash step writes the same to GITHUB_ENV, and GitLab's PowerShell lines set them.
# Both files pass actionlint and zizmor (tests/helpers/wmlint.py) and gitlab-ci-local (tests/helpers/glcheck.py).
# ROCm installs hipcc, hip-devel and rocm-device-libs, not rocm-hip-sdk, from the image's el<N>.
# The CUDA recipe then runs (bash, in a mount namespace whose /etc/os-release is an EL9, EL8 or EL7
# image's; rpm, curl, dnf, yum and uname log what they are asked): it adds NVIDIA's rhel9, rhel8
# (sbsa on aarch64) or rhel7 repository and installs every package with dnf (yum on EL7); in an
# image with some of them it installs the others, in one with all of them it runs neither curl nor
# dnf.
# Then the errors: a bad architecture, one CUDA 13.0 cannot build for, a duplicate, archs on ROCm,
# and CUDA 12.9 at manylinux level 2014, each at its position with status 2.
# heavy: actionlint, zizmor and gitlab-ci-local on the generated files
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
lint=$ROOT/tests/helpers/wmlint.py
why=$("$py" "$lint" --missing) || fatal "$why"

scratch_repo "$tmp/r"
cat >"$tmp/r/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
project: {name: gpupkg, module: gpupkg}
python:
  versions: ["3.12"]
platforms:
  linux-x86_64: {}
  linux-aarch64: {manylinux: "2_34"}
  windows-x86_64: {}
backends:
  cuda:
    features: [candle-core/cuda]
    toolkit: {cuda: {version: "12.9", archs: ["7.5", 80, sm_86]}}
  cudnn:
    features: [cudnn]
    platforms: [linux-x86_64]
    toolkit: {cuda: "12.4"}
  mixed:
    features: [cublas, cudarc]
    platforms: [linux-x86_64]
    toolkit: {cuda: {version: "12.8", archs: ["12.0", 75, "9.0"]}}
  plain:
    platforms: [linux-x86_64]
    toolkit: {cuda: "13.0"}
  amd:
    features: [hip]
    platforms: [linux-x86_64]
    toolkit: {rocm: "6.4"}
  cpu:
    default: true
ci: {github: {}, gitlab: {}}
EOF
commit_all "$tmp/r"
expect_run 0 "$WM" -q -C "$tmp/r" generate
expect_run 0 "$WM" -C "$tmp/r" list --format jsonl
cp "$tmp/out" "$tmp/list.jsonl"

# the same project with the platform's image given: the matrix's image is kept
mkdir "$tmp/own"
cp -r "$tmp/r/." "$tmp/own/"
sed -i 's|  linux-x86_64: {}|  linux-x86_64: {image: registry.example.com/cuda:1, container: registry.example.com/cuda:1}|' \
	"$tmp/own/wheelmatrix.yaml"
expect_run 0 "$WM" -q -C "$tmp/own" generate

"$py" - "$ROOT" "$tmp" <<'PY' || fail "the generated CUDA jobs"
import os, subprocess, sys, yaml
root, tmp = sys.argv[1:]
bad = []
def want(ok, what):
    if not ok:
        bad.append(what)
with open(os.path.join(root, "templates", "toolkits.yaml"), encoding="utf-8") as f:
    tag = yaml.safe_load(f)["cuda"]["images"]["tag"]
faq = "quay.io/manylinux_cuda/manylinux_%s_%s_cuda12_9:" + tag
x86, arm = faq % ("2_28", "x86_64"), faq % ("2_34", "aarch64")

def load(repo, path):
    with open(os.path.join(tmp, repo, path), encoding="utf-8") as f:
        return yaml.safe_load(f)

base = ["cuda-nvcc-%s", "cuda-cudart-devel-%s", "cuda-driver-devel-%s", "cuda-cccl-%s"]
want_packages = {
    "cuda": [p % "12-9" for p in base] + ["libcublas-devel-12-9", "libcurand-devel-12-9", "cuda-nvrtc-devel-12-9"],
    "cudnn": [p % "12-4" for p in base] + ["libcudnn9-devel-cuda-12"],
    # cuBLAS once, though both features need it
    "mixed": [p % "12-8" for p in base] + ["libcublas-devel-12-8", "libcurand-devel-12-8", "cuda-nvrtc-devel-12-8"],
    # the toolkit without one of its features: the catalog's default libraries
    "plain": [p % "13-0" for p in base] + ["libcublas-devel-13-0", "libcurand-devel-13-0", "cuda-nvrtc-devel-13-0"],
}
want_env = {
    "cuda": {"CUDA_COMPUTE_CAP": "75", "CMAKE_CUDA_ARCHITECTURES": "75;80;86", "CUDAARCHS": "75;80;86",
             "TORCH_CUDA_ARCH_LIST": "7.5;8.0;8.6"},
    "cudnn": {"CUDA_COMPUTE_CAP": "50", "CMAKE_CUDA_ARCHITECTURES": "50;60;70;75;80;86;90",
              "CUDAARCHS": "50;60;70;75;80;86;90", "TORCH_CUDA_ARCH_LIST": "5.0;6.0;7.0;7.5;8.0;8.6;9.0"},
    # in the matrix's order; CUDA_COMPUTE_CAP the oldest
    "mixed": {"CUDA_COMPUTE_CAP": "75", "CMAKE_CUDA_ARCHITECTURES": "120;75;90", "CUDAARCHS": "120;75;90",
              "TORCH_CUDA_ARCH_LIST": "12.0;7.5;9.0"},
    "plain": {"CUDA_COMPUTE_CAP": "75", "CMAKE_CUDA_ARCHITECTURES": "75;80;86;90;100;120",
              "CUDAARCHS": "75;80;86;90;100;120", "TORCH_CUDA_ARCH_LIST": "7.5;8.0;8.6;9.0;10.0;12.0"},
}

def check_script(backend, script, where):
    want("cuda-toolkit" not in script, "%s: the recipe still installs cuda-toolkit" % where)
    want("/etc/os-release" in script and "rhel8" not in script, "%s: the repository is not the image's" % where)
    lines = [l for l in script.splitlines() if l.startswith("packages=")]
    want(len(lines) == 1 and lines[0] == 'packages="%s"' % " ".join(want_packages[backend]),
         "%s: packages %s, not %s" % (where, lines, want_packages[backend]))
    exports = "\n".join(l for l in script.splitlines() if l.startswith("export "))
    names = sorted(want_env[backend])
    show = "".join('printf "%%s=%%s\\n" %s "$%s"\n' % (n, n) for n in names)
    for preset in (False, True):
        env = {"PATH": os.environ["PATH"]}
        if preset:
            env["CUDA_COMPUTE_CAP"] = "90"
        out = subprocess.run(["bash", "-c", exports + "\n" + show], env=env, capture_output=True, text=True).stdout
        got = dict(l.split("=", 1) for l in out.splitlines())
        expect = dict(want_env[backend], **({"CUDA_COMPUTE_CAP": "90"} if preset else {}))
        want(got == expect, "%s%s: exported %s, not %s" % (where, " (preset)" if preset else "", got, expect))

# GitHub: the container step of each CUDA build job, its image per entry
wf = load("r", ".github/workflows/wheels.yml")
for backend, images in (("cuda", {"linux-x86_64": x86, "linux-aarch64": arm}),
                        ("cudnn", {"linux-x86_64": "quay.io/pypa/manylinux_2_28_x86_64"}),
                        ("mixed", {"linux-x86_64": "quay.io/pypa/manylinux_2_28_x86_64"}),
                        ("plain", {"linux-x86_64": "quay.io/pypa/manylinux_2_28_x86_64"})):
    job = wf["jobs"]["build-%s-linux" % backend]
    step = [s for s in job["steps"] if "WM_IMAGE" in (s.get("env") or {})]
    want(len(step) == 1, "github %s: no container step" % backend)
    if not step:
        continue
    env = step[0]["env"]
    for entry in job["strategy"]["matrix"]["include"]:
        platform = entry["id"][len(backend) + 1:].rsplit("-", 1)[0]
        image = entry.get("image", env["WM_IMAGE"])
        want(image == images[platform], "github %s: %s runs in %s, not %s" % (backend, entry["id"], image, images[platform]))
    check_script(backend, env["WM_BEFORE_SCRIPT"], "github " + backend)

# GitLab: the build jobs' images, the recipe in the backend's template
gl = load("r", ".gitlab-ci.yml")
for name, image in (("build-cuda-linux-x86_64", x86), ("build-cuda-linux-aarch64", arm),
                    ("build-cudnn-linux-x86_64", "quay.io/pypa/manylinux_2_28_x86_64")):
    want(gl.get(name, {}).get("image") == image, "gitlab %s: image %s, not %s" % (name, gl.get(name, {}).get("image"), image))
for backend in ("cuda", "cudnn", "mixed", "plain"):
    lines = gl[".wheelmatrix-build-%s-linux" % backend]["before_script"]
    check_script(backend, "\n".join(lines), "gitlab " + backend)

# ROCm: the HIP compiler, headers and device libraries (feature hip needs no library), not rocm-hip-sdk
rocm = [s for s in wf["jobs"]["build-amd-linux"]["steps"] if "WM_BEFORE_SCRIPT" in (s.get("env") or {})]
for where, script in (("github", rocm[0]["env"]["WM_BEFORE_SCRIPT"] if rocm else ""),
                      ("gitlab", "\n".join(gl[".wheelmatrix-build-amd-linux"]["before_script"]))):
    want('packages="hipcc hip-devel rocm-device-libs"' in script.splitlines(), "%s rocm: packages" % where)
    want("rocm-hip-sdk" not in script and "rocm/el${VERSION_ID%%.*}/6.4/main" in script,
         "%s rocm: the whole SDK, or not the image's EL repository" % where)

# Windows: a step writes them to GITHUB_ENV; GitLab's PowerShell sets those the job has not
step = [s for s in wf["jobs"]["build-cuda-windows"]["steps"] if s.get("name") == "Set the CUDA architectures"]
want(len(step) == 1 and step[0].get("shell") == "bash", "github windows: no bash step setting the architectures")
if step:
    envfile = os.path.join(tmp, "github-env")
    for preset in (False, True):
        open(envfile, "w").close()
        env = {"PATH": os.environ["PATH"], "GITHUB_ENV": envfile}
        if preset:
            env["CUDA_COMPUTE_CAP"] = "90"
        subprocess.run(["bash", "-e", "-c", step[0]["run"]], env=env, check=True)
        got = dict(l.split("=", 1) for l in open(envfile).read().splitlines())
        expect = dict(want_env["cuda"], **({"CUDA_COMPUTE_CAP": "90"} if preset else {}))
        want(got == expect, "github windows%s: GITHUB_ENV has %s, not %s" % (" (preset)" if preset else "", got, expect))
lines = gl[".wheelmatrix-build-cuda-windows"]["before_script"]
for name, value in want_env["cuda"].items():
    line = 'if (-not $env:%s) { $env:%s = "%s" }' % (name, name, value)
    want(line in lines, "gitlab windows: no line %s" % line)

# the matrix's own image stays, on both
own = load("own", ".github/workflows/wheels.yml")["jobs"]["build-cuda-linux"]
images = [e.get("image") for e in own["strategy"]["matrix"]["include"]] + \
    [s["env"]["WM_IMAGE"] for s in own["steps"] if "WM_IMAGE" in (s.get("env") or {})]
want("registry.example.com/cuda:1" in images and x86 not in images, "github: the matrix's container replaced: %s" % images)
want(load("own", ".gitlab-ci.yml")["build-cuda-linux-x86_64"]["image"] == "registry.example.com/cuda:1",
     "gitlab: the matrix's image replaced")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# The Linux recipe run by bash as the container runs it, in a mount namespace where the image's
# /etc/os-release is bound over the host's, with rpm (answering from a list of installed packages),
# curl, dnf, yum and uname replaced by programs that log their arguments.
"$py" -c 'import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["jobs"]["build-cuda-linux"]
print([s for s in job["steps"] if "WM_BEFORE_SCRIPT" in (s.get("env") or {})][0]["env"]["WM_BEFORE_SCRIPT"])' \
	"$tmp/r/.github/workflows/wheels.yml" >"$tmp/recipe.sh" || fatal "no CUDA recipe to run"
need unshare "apt-get install util-linux"
unshare=$(command -v unshare) mount=$(command -v mount)
mkdir "$tmp/fake"
fake() {
	printf '#!/bin/sh\n%s\n' "$2" >"$tmp/fake/$1"
	chmod +x "$tmp/fake/$1"
}
# shellcheck disable=SC2016 # the fakes' own lines, expanded when they run
{
	fake rpm 'while read -r p; do [ "$p" = "$2" ] && exit 0; done <"$FAKE/installed"; exit 1'
	fake curl 'echo "curl $*" >>"$FAKE/log"'
	fake uname 'echo "$FAKE_ARCH"'
}
# run_recipe OS-RELEASE ARCH dnf|yum INSTALLED...: the log in $tmp/fake-log
run_recipe() {
	local release=$1 arch=$2 pm=$3
	shift 3
	rm -f "$tmp/fake/dnf" "$tmp/fake/yum"
	fake "$pm" "echo \"$pm \$*\" >>\"\$FAKE/log\""
	printf '%s\n' "$release" >"$tmp/os-release"
	printf '%s\n' "$@" >"$tmp/installed"
	: >"$tmp/log"
	# shellcheck disable=SC2016 # expanded by the bash in the namespace
	if ! FAKE=$tmp FAKE_ARCH=$arch MOUNT=$mount PATH=$tmp/fake "$unshare" -rm /bin/bash -c \
			'"$MOUNT" --bind "$FAKE/os-release" /etc/os-release && set -eu && . "$FAKE/recipe.sh"' >"$tmp/run" 2>&1; then
		fail "the recipe failed under $release on $arch"
		show "$tmp/run"
	fi
	cp "$tmp/log" "$tmp/fake-log"
}
all="cuda-nvcc-12-9 cuda-cudart-devel-12-9 cuda-driver-devel-12-9 cuda-cccl-12-9 libcublas-devel-12-9 libcurand-devel-12-9 cuda-nvrtc-devel-12-9"
repo=https://developer.download.nvidia.com/compute/cuda/repos
# shellcheck disable=SC2086 # the package lists are words
{
	run_recipe 'ID="almalinux"
VERSION_ID="9.6"' x86_64 dnf
	expect_same - "$tmp/fake-log" "an EL9 image, nothing installed" <<-EOF
	curl -fsSL -o /etc/yum.repos.d/cuda-rhel9.repo $repo/rhel9/x86_64/cuda-rhel9.repo
	dnf install -y $all
	EOF
	run_recipe 'ID="almalinux"
VERSION_ID="8.10"' aarch64 dnf
	expect_same - "$tmp/fake-log" "an EL8 image on aarch64" <<-EOF
	curl -fsSL -o /etc/yum.repos.d/cuda-rhel8.repo $repo/rhel8/sbsa/cuda-rhel8.repo
	dnf install -y $all
	EOF
	run_recipe 'ID="centos"
VERSION_ID="7"' x86_64 yum
	expect_same - "$tmp/fake-log" "an EL7 image, with yum" <<-EOF
	curl -fsSL -o /etc/yum.repos.d/cuda-rhel7.repo $repo/rhel7/x86_64/cuda-rhel7.repo
	yum install -y $all
	EOF
	# NVIDIA's image with the compiler, runtime and cuBLAS: only the rest
	run_recipe 'VERSION_ID="8.10"' x86_64 dnf cuda-nvcc-12-9 cuda-cudart-devel-12-9 cuda-driver-devel-12-9 cuda-cccl-12-9 libcublas-devel-12-9
	expect_same - "$tmp/fake-log" "an image with part of the packages" <<-EOF
	curl -fsSL -o /etc/yum.repos.d/cuda-rhel8.repo $repo/rhel8/x86_64/cuda-rhel8.repo
	dnf install -y libcurand-devel-12-9 cuda-nvrtc-devel-12-9
	EOF
	# an image with them all: nothing downloaded, nothing installed
	run_recipe 'VERSION_ID="9.6"' x86_64 dnf $all
	expect_same /dev/null "$tmp/fake-log" "an image with every package"
}

# the validators accept both
if ! "$py" "$lint" "$tmp/r/.github/workflows/wheels.yml" >"$tmp/lint" 2>&1; then
	fail "actionlint or zizmor found something in the CUDA workflow"
	show "$tmp/lint"
fi
expect_run 0 "$py" "$ROOT/tests/helpers/glcheck.py" "$tmp/r" "$tmp/list.jsonl"

# errors, each at its position
scratch_repo "$tmp/e"
cat >"$tmp/e/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
project: {name: gpupkg}
platforms:
  linux-x86_64: {manylinux: "2014"}
backends:
  a:
    toolkit: {cuda: {version: "13.0", archs: [sm_70, "9.0", 90, gpu]}}
  b:
    toolkit: {rocm: {archs: ["9.0"]}}
  c:
    toolkit: {cuda: "12.9"}
EOF
wm -C "$tmp/e" list
expect_status 2 "bad archs"
expect_err "wheelmatrix.yaml:7:47: error: CUDA 13.0 cannot build for architecture 7.0 (its nvcc builds for 7.5, 8.0, 8.6, 8.7, 8.8, 8.9, 9.0, 10.0, 10.3, 11.0, 12.0, 12.1)" "an architecture 13.0 dropped"
expect_err "wheelmatrix.yaml:7:61: error: architecture 9.0 is listed twice" "90 after 9.0"
expect_err "wheelmatrix.yaml:7:65: error: invalid GPU architecture 'gpu'" "a word"
expect_err "wheelmatrix.yaml:9:29: error: ROCm has no GPU architectures to choose" "archs on ROCm"
expect_err "wheelmatrix.yaml:11:15: error: backend 'c' uses CUDA 12.9 on linux-x86_64 at manylinux level 2014, whose images are EL7" "12.9 on EL7"
grep -q "backend 'a' uses CUDA 13.0 on linux-x86_64 at manylinux level 2014" "$tmp/err" ||
	fail "13.0 at level 2014 is not refused: $(cat "$tmp/err")"
grep -q "backend 'b' uses ROCm" "$tmp/err" && fail "ROCm at level 2014 is refused as if it were CUDA"
finish
