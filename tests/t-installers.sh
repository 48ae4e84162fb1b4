#!/usr/bin/env bash
# t-installers.sh — no generated job pipes a downloaded installer into a shell, and each one it runs is checked first: a pinned sha256 (rustup-init, uv's wheel) or, for NVIDIA's CUDA installer, which has none published, its Authenticode signature.
#
# For the example matrices and a Windows CUDA one, on GitHub and GitLab (PyYAML reads them):
# - no script line pipes curl, wget, Invoke-WebRequest or Invoke-RestMethod into sh, bash,
#   Invoke-Expression or iex;
# - every file a script downloads (curl -o, Invoke-WebRequest -OutFile) is checked in the same
#   script before use (sha256sum -c, shasum -a 256 -c, Get-FileHash, Get-AuthenticodeSignature),
#   dnf's .repo files aside (dnf checks each package's signature with the repository's key);
# - the rustup-init sums of the GitHub container step and GitLab's rust-sh are one table, and the
#   uv wheels GitLab's jobs take are templates/actions.yaml's uv.
# And the Linux Rust install of both (GitHub's container step, GitLab's rust-sh) runs here where no
# cargo is, with a curl that hands out a script in place of rustup-init: it stops at the sha256
# check and runs nothing of it (the script piped into sh used to run).  (LunarG's Vulkan SDK installer,
# "latest" with no sum published, is held to its Authenticode signature as NVIDIA's is.)
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

mkdir -p "$tmp/cuda"
demo_project "$tmp/cuda"
printf 'vulkan = []\n' >>"$tmp/cuda/Cargo.toml"
printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64, windows-x86_64, macos-arm64]\nbackends:\n  cuda: {features: [cublas], toolkit: {cuda: {}}, platforms: [linux-x86_64, windows-x86_64]}\n  vk: {features: [vulkan], toolkit: {vulkan: {}}, platforms: [windows-x86_64]}\n  cpu: {default: true}\nci: {github: {}, gitlab: {}}\n' >"$tmp/cuda/wheelmatrix.yaml"
"$WM" -q -C "$tmp/cuda" generate || fatal "generate the CUDA matrix"
for m in llm-rs llm-rs-meta; do
	mkdir -p "$tmp/$m"
	cp "$ROOT/matrices/$m.yaml" "$tmp/$m/wheelmatrix.yaml"
	cp -r "$ROOT/tests/fixtures/llm-rs/." "$tmp/$m/"
	"$WM" -q -C "$tmp/$m" generate || fatal "generate $m"
done

"$py" - "$tmp" "$ROOT" <<'PY' || fail "the generated installers (above)"
import glob, os, re, sys, yaml
tmp, root = sys.argv[1:]
bad = []
files = glob.glob(os.path.join(tmp, "*", ".github", "workflows", "*.yml")) + glob.glob(os.path.join(tmp, "*", ".gitlab-ci.yml"))
if len(files) < 5:
    bad.append("only %d generated files" % len(files))
def scripts(doc):
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k in ("run", "script", "before_script") and isinstance(v, str):
                yield v
            elif k in ("script", "before_script") and isinstance(v, list):
                yield "\n".join(x for x in v if isinstance(x, str))
            else:
                yield from scripts(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from scripts(v)
pipe = re.compile(r"(curl|wget|Invoke-WebRequest|Invoke-RestMethod|irm|iwr)\b[^\n|]*\|\s*(sh|bash|Invoke-Expression|iex)\b")
download = re.compile(r"(?:curl\b[^\n]*?\s-o\s+|-OutFile\s+)(\"[^\"]+\"|\S+)")
checks = ("sha256sum -c", "shasum -a 256 -c", "Get-FileHash", "Get-AuthenticodeSignature")
seen = 0
for path in files:
    doc = yaml.safe_load(open(path))
    name = os.path.relpath(path, tmp)
    for text in scripts(doc):
        for m in pipe.finditer(text):
            bad.append("%s: a download piped into a shell: %r" % (name, m[0]))
        for m in download.finditer(text):
            target = m[1].strip('"')
            if target.endswith(".repo"):
                continue
            seen += 1
            after = text[m.end():]
            if not any(c in line and target.split("/")[-1].split("\\")[-1] in line
                       for line in after.splitlines() for c in checks):
                bad.append("%s: %s is downloaded and never checked" % (name, target))
if seen < 4:
    bad.append("only %d downloads seen: the check proves nothing" % seen)
sums = lambda path: sorted(re.findall(r"(\S+-gnu\S*|\S+-musl)\) wm_host=(\S+) wm_sum=([0-9a-f]{64})", open(path).read()))
github, gitlab = sums(os.path.join(root, "templates", "github.yaml")), sums(os.path.join(root, "templates", "gitlab.yaml"))
if not github or github != gitlab:
    bad.append("the rustup-init tables differ: %r %r" % (github, gitlab))
uv = yaml.safe_load(open(os.path.join(root, "templates", "actions.yaml")))["tools"]["uv"]
wheels = set(re.findall(r"uv-([0-9.]+)-py3-none", open(os.path.join(root, "templates", "gitlab.yaml")).read()))
if wheels != {uv}:
    bad.append("the uv wheels are of %r, templates/actions.yaml pins %s" % (wheels, uv))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY

# the Linux Rust install where no cargo is, with a curl that hands out a script
mkdir -p "$tmp/bin" "$tmp/home"
cat >"$tmp/bin/curl" <<'SH'
#!/bin/sh
payload='#!/bin/sh
echo ran >"$HOME/pwned"'
while [ $# -gt 0 ]; do
	if [ "$1" = -o ]; then printf '%s\n' "$payload" >"$2"; exit 0; fi
	shift
done
printf '%s\n' "$payload"
SH
chmod +x "$tmp/bin/curl"
for b in sh bash uname grep ldd sha256sum chmod mktemp rm cat true echo; do
	ln -s "$(command -v "$b")" "$tmp/bin/$b" 2>/dev/null || true
done
"$py" - "$tmp/cuda/.gitlab-ci.yml" "$tmp/cuda/.github/workflows/wheels.yml" "$tmp" <<'PY' || fatal "the Rust install scripts"
import os, re, sys, yaml
sys.path.insert(0, os.path.join(os.environ["ROOT"], "tests", "helpers"))
import ghinline
gl, gh, tmp = sys.argv[1:]
doc = yaml.safe_load(open(gl))
before = doc[".wheelmatrix-build-linux"]["before_script"]
rust = next(s for s in before if "command -v cargo" in s)
open(tmp + "/gitlab-rust.sh", "w").write(rust)
run = next(s["run"] for j in ghinline.load(gh)["jobs"].values() for s in j.get("steps", [])
           if "command -v cargo" in s.get("run", ""))
block = re.search(r"^if ! command -v cargo.*?^fi$", run, re.S | re.M)
open(tmp + "/github-rust.sh", "w").write(block[0])
PY
for which in gitlab github; do
	rm -f "$tmp/home/pwned"
	run env -i PATH="$tmp/bin" HOME="$tmp/home" WM_TARGET=x86_64-unknown-linux-gnu "$tmp/bin/bash" -e "$tmp/$which-rust.sh"
	[[ $status != 0 ]] || fail "$which: the Rust install passed with a file that is not rustup-init"
	[[ ! -e $tmp/home/pwned ]] || fail "$which: the Rust install ran the downloaded script"
	grep -q "FAILED" "$tmp/err" "$tmp/out" || fail "$which: no failed sha256 check: $(cat "$tmp/out" "$tmp/err")"
done
finish
