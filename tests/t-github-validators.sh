#!/usr/bin/env bash
# t-github-validators.sh — generated workflows pass actionlint, action-validator and shellcheck with zero findings.
#
# First the wrapper (tests/wmlint.py) is shown able to fail: a hand-written workflow that uses the
# two runner labels actionlint 1.7.7 does not know passes, and workflows with an expression
# injection, an undefined matrix property, a shellcheck finding and a schema error each fail with
# that finding.  Then each example matrix (matrices/*.yaml) and two matrices written here — every
# platform of the catalog with abi3 and free-threaded builds and every toolkit, and a
# per-version matrix publishing with a token — are generated in a scratch repository and checked.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
# shellcheck source=tests/python-env.sh
. "$ROOT/tests/python-env.sh"
lint=$ROOT/tests/wmlint.py
if ! why=$("$py" "$lint" --missing); then
	echo "$why"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

mkdir "$tmp/canary"
cat >"$tmp/canary/good.yml" <<'EOF'
name: canary
on: [push]
permissions: {contents: read}
defaults:
  run:
    shell: bash
jobs:
  build-cpu-macos:
    runs-on: ${{ matrix.runner }}
    strategy:
      fail-fast: false
      matrix:
        include:
          - {id: cpu-macos-x86_64-abi3, runner: macos-15-intel}
          - {id: cpu-macos-arm64-abi3, runner: macos-15}
    steps:
      - run: printf '%s\n' "$TITLE" "python${{ matrix.runner }}"
        env:
          TITLE: ${{ github.event.issue.title }}
      - uses: actions/upload-artifact@v4
        with:
          name: wheels-${{ matrix.id }}
          path: dist
  build-cpu-windows:
    runs-on: windows-11-arm
    steps:
      - run: echo "${{ runner.temp }}"
EOF
cat >"$tmp/canary/injection.yml" <<'EOF'
name: canary
on: [push]
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: echo ${{ github.event.issue.title }}
EOF
cat >"$tmp/canary/property.yml" <<'EOF'
name: canary
on: [push]
jobs:
  a:
    runs-on: ubuntu-24.04
    strategy:
      matrix:
        include:
          - {id: a}
    steps:
      - run: echo "$X"
        env:
          X: ${{ matrix.python }}
EOF
cat >"$tmp/canary/label.yml" <<'EOF'
name: canary
on: [push]
jobs:
  a:
    runs-on: macos-12-intel
    steps:
      - run: echo
EOF
cat >"$tmp/canary/shellcheck.yml" <<'EOF'
name: canary
on: [push]
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: for f in $(ls dist); do echo ok; done
EOF
cat >"$tmp/canary/schema.yml" <<'EOF'
name: canary
on: [push]
jobs:
  a:
    runs-on: ubuntu-24.04
    timeout-minutes: [1]
    steps:
      - run: echo
EOF
"$py" - "$ROOT/tests" "$tmp/canary" <<'PY' || failed=1
import os, sys
sys.path.insert(0, sys.argv[1])
import wmlint
expect = {"good": None, "injection": '"github.event.issue.title" is potentially untrusted',
          "property": 'property "python" is not defined', "label": 'label "macos-12-intel" is unknown',
          "shellcheck": "shellcheck SC2045", "schema": "action-validator"}
paths = [os.path.join(sys.argv[2], name + ".yml") for name in expect]
bad = 0
for (path, found), (name, want) in zip(wmlint.lint_all(paths), expect.items()):
    text = "\n".join(found)
    if want is None and found or want is not None and want not in text:
        print("FAIL canary %s: expected %s, got:\n%s" % (name, "no findings" if want is None else repr(want), text))
        bad = 1
sys.exit(bad)
PY

# The coverage matrices: every platform, abi3 + free-threaded, every toolkit, env values, action
# pins; then a per-version one that publishes with a token.
cat >"$tmp/everything.yaml" <<'EOF'
wheelmatrix: 1
project: {name: allplat, module: allplat}
python:
  abi3: "3.9"
  versions: ["3.13t", "3.14t"]
platforms:
  linux-x86_64: {manylinux: "2_28"}
  linux-aarch64: {}
  linux-armv7: {}
  linux-i686: {}
  linux-ppc64le: {}
  linux-s390x: {}
  musllinux-x86_64: {}
  musllinux-aarch64: {}
  macos-x86_64: {}
  macos-arm64: {}
  macos-universal2: {}
  windows-x86_64: {}
  windows-arm64: {}
  windows-x86: {}
backends:
  cuda:
    features: [cublas]
    platforms: [linux-x86_64, linux-aarch64, windows-x86_64]
    toolkit: {cuda: "12.8"}
    env: {CUDA_COMPUTE_CAP: "80", WM_NOTE: "a: b # c", WM_VERSIONISH: "3.10"}
    dependencies: ["nvidia-cublas-cu12>=12.8"]
  rocm:
    features: [hipblas]
    platforms: ["linux-x86_64", "linux-aarch64"]
    toolkit: {rocm: "6.4"}
  opencl:
    features: [clblast]
    platforms: ["linux-*", "macos-*", "windows-*"]
    toolkit: {clblast: {}}
  vulkan:
    features: [vulkan]
    platforms: [linux-x86_64, linux-aarch64, "macos-*", windows-x86_64, windows-arm64]
    toolkit: {vulkan: "1.4"}
  metal:
    features: [metal]
    platforms: ["macos-*"]
    toolkit: {metal: {}}
  cpu:
    default: true
    env: {WM_KIND: cpu, WM_EMPTY: "", WM_YES: "yes"}
exclude:
  - {backend: cuda, python: "*t"}
  - {backend: rocm, python: "*t"}
  - {platform: windows-x86, python: "*t"}
include:
  - {backend: cuda, platform: linux-x86_64, python: "3.14t"}
distribution: {strategy: rename}
ci:
  github: {path: .github/workflows/all-platforms.yml}
actions:
  actions/checkout: 0123456789abcdef0123456789abcdef01234567
  actions/upload-artifact: 89abcdef0123456789abcdef0123456789abcdef
  PyO3/maturin-action: fedcba9876543210fedcba9876543210fedcba98
  Jimver/cuda-toolkit: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
publish:
  pypi: {trusted: true, environment: pypi}
EOF
cat >"$tmp/token.yaml" <<'EOF'
wheelmatrix: 1
project: {name: tokenpkg}
python:
  versions: ["3.9", "3.10", "3.11", "3.12", "3.13", "3.13t", "3.14"]
platforms:
  linux-x86_64: {runner: ubuntu-22.04}
  linux-aarch64: {cross: true}
  musllinux-x86_64: {}
  macos-arm64: {}
  windows-x86_64: {}
  windows-arm64: {}
backends:
  cuda:
    features: [cuda]
    platforms: [linux-x86_64, windows-x86_64]
    toolkit: {cuda: "12.4"}
  vulkan:
    features: [vulkan]
    platforms: ["windows-*", linux-aarch64]
    toolkit: {vulkan: {}}
    env: {VK_LOADER_DEBUG: "all"}
  cpu:
    default: true
exclude:
  - {backend: cuda, python: "3.13t"}
  - {platform: windows-arm64, python: "3.9"}
  - {platform: windows-arm64, python: "3.10"}
ci: {github: {}}
publish:
  pypi: {trusted: false}
EOF

# generate NAME MATRIX: generates MATRIX in the scratch repository $tmp/repo-NAME; adds its
# workflow to `workflows`.
workflows=()
generate() {
	local name=$1 repo=$tmp/repo-$1 wf status=0
	mkdir "$repo"
	cp "$2" "$repo/wheelmatrix.yaml"
	"$WM" -q -C "$repo" generate >"$tmp/out" 2>&1 || status=$?
	if ((status != 0)); then
		printf 'FAIL %s: generate exited %d:\n' "$name" "$status"
		cat "$tmp/out"
		failed=1
		return
	fi
	wf=$repo/$("$py" -c 'import sys, yaml; print(((yaml.safe_load(open(sys.argv[1])).get("ci") or {}).get("github") or {}).get("path") or ".github/workflows/wheels.yml")' "$repo/wheelmatrix.yaml")
	if [[ ! -f $wf ]]; then
		printf 'FAIL %s: generate wrote no %s\n' "$name" "${wf#"$repo"/}"
		failed=1
		return
	fi
	workflows+=("$wf")
	status=0
	"$WM" -q -C "$repo" generate --check >"$tmp/out" 2>&1 || status=$?
	if ((status != 0)); then
		printf 'FAIL %s: generate --check right after generate exited %d:\n' "$name" "$status"
		cat "$tmp/out"
		failed=1
	fi
}

for m in "$ROOT"/matrices/*.yaml; do
	generate "$(basename "$m" .yaml)" "$m"
done
generate everything "$tmp/everything.yaml"
generate token "$tmp/token.yaml"
if ((${#workflows[@]})) && ! "$py" "$lint" "${workflows[@]}" >"$tmp/out" 2>&1; then
	echo "FAIL: generated workflows have findings:"
	sed "s|$tmp/repo-||" "$tmp/out"
	failed=1
fi

# `everything` covers the whole catalog (so a platform or toolkit added later is checked too), and
# its action pins replace the default references everywhere they are used.
[[ -f $tmp/repo-everything/.github/workflows/all-platforms.yml ]] &&
	"$py" - "$tmp/repo-everything/.github/workflows/all-platforms.yml" "$tmp/everything.yaml" "$ROOT" <<'PY' || failed=1
import os, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
matrix = yaml.safe_load(open(sys.argv[2]))
pins = matrix["actions"]
seen, bad = set(), 0
catalog = yaml.safe_load(open(os.path.join(sys.argv[3], "templates", "platforms.yaml")))
toolkits = yaml.safe_load(open(os.path.join(sys.argv[3], "templates", "toolkits.yaml")))
used = {t for b in matrix["backends"].values() for t in b.get("toolkit", {})}
if sorted(matrix["platforms"]) != sorted(catalog) or used != set(toolkits):
    print("FAIL everything: it no longer covers the catalog: platforms %s, toolkits %s not used"
          % (sorted(set(catalog) - set(matrix["platforms"])), sorted(set(toolkits) - used)))
    bad = 1
for job_id, job in doc["jobs"].items():
    for n, step in enumerate(job.get("steps") or [], 1):
        action, _, ref = str(step.get("uses", "")).partition("@")
        if action in pins:
            seen.add(action)
            if ref != pins[action]:
                print(f"FAIL everything: job {job_id} step {n} uses {action}@{ref}, not the pinned {pins[action]}")
                bad = 1
for action in sorted(set(pins) - seen):
    print(f"FAIL everything: the pinned action {action} is used nowhere")
    bad = 1
sys.exit(bad)
PY
exit "$failed"
