#!/usr/bin/env bash
# t-github-validators.sh — generated workflows pass actionlint, zizmor, action-validator and shellcheck with zero findings.
#
# zizmor runs at its auditor persona, and the findings docs/generate.md explains pass only where it
# says (tests/helpers/wmlint.py reads the list there).  First the wrapper is shown able to fail: a
# hand-written workflow using the newest runner labels (macos-26-intel, windows-11-arm), with
# those explained findings (a documented publish job's permissions, an expression reading
# runner.* in a script, a secret in a build job's env) passes, and so does one with a custom
# label when the label is declared, as a repository declares its own runners; workflows with an
# expression injection, an undefined matrix property, an undeclared label, a wrong permission
# value, a shellcheck finding, a schema error, a checkout that keeps its credentials, an action on a tag outside
# templates/actions.yaml, a cache on a release build, a dangerous trigger, and the auditor's own
# (a job without a name, a permission the Permissions table does not give, a step output spliced
# into a script, a secret outside a build job) each fail with that finding, and a workflow whose
# actions are all pinned to a commit SHA passes zizmor with no configuration at all.  Then each example matrix (matrices/*.yaml) and three matrices written
# here — every platform of the catalog with abi3 and free-threaded builds and every toolkit, a
# per-version matrix publishing with a token and making a GitHub release, and two matrices pinning every action to a SHA (zizmor's
# default policy, no configuration; the second is llm-rs-index.yaml, which uses the Pages actions) — are generated in a scratch repository and checked, and so
# is each fixture project of tests/fixtures, in a copy of itself, and each golden case of
# tests/golden whose matrix generates a workflow.
# heavy: actionlint, zizmor and action-validator on the workflow of every fixture and golden case
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
lint=$ROOT/tests/helpers/wmlint.py
why=$("$py" "$lint" --missing) || fatal "$why"

mkdir "$tmp/canary"
cat >"$tmp/canary/good.yml" <<'EOF'
name: canary
on: [push]
permissions: {contents: read}
concurrency: {group: canary, cancel-in-progress: true}
defaults:
  run:
    shell: bash
jobs:
  build-cpu-macos:
    name: build ${{ matrix.id }}
    runs-on: ${{ matrix.runner }}
    strategy:
      fail-fast: false
      matrix:
        include:
          - {id: cpu-macos-x86_64-abi3, runner: macos-26-intel}
          - {id: cpu-macos-arm64-abi3, runner: macos-15}
    steps:
      - run: printf '%s\n' "$TITLE" "python${{ runner.arch }}"
        env:
          TITLE: ${{ github.event.issue.title }}
      - uses: actions/upload-artifact@v4
        with:
          name: wheels-${{ matrix.id }}
          path: dist
  publish-cpu:
    name: publish cpu
    runs-on: windows-11-arm
    environment: pypi
    permissions:
      contents: read
      id-token: write
      attestations: write
    steps:
      - run: echo "${{ runner.temp }}"
  build-cpu-linux:
    name: build cpu
    runs-on: ubuntu-24.04
    env:
      TOKEN: ${{ secrets.BUILD_TOKEN }}
    steps:
      - run: echo "$TOKEN"
EOF
# what the auditor persona finds that docs/generate.md does not explain: a job without a name, a
# permission the Permissions table does not give the job, an expression reading a context setup
# steps may not read, a secret outside a build job with no environment
cat >"$tmp/canary/anonymous.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
concurrency: {group: canary, cancel-in-progress: true}
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: echo
EOF
cat >"$tmp/canary/undocumented.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
concurrency: {group: canary, cancel-in-progress: true}
jobs:
  publish-cpu:
    name: publish
    runs-on: ubuntu-24.04
    environment: pypi
    permissions:
      packages: write
    steps:
      - run: echo
EOF
cat >"$tmp/canary/step-output.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
concurrency: {group: canary, cancel-in-progress: true}
jobs:
  build-cpu:
    name: build
    runs-on: ubuntu-24.04
    steps:
      - id: a
        run: echo "b=1" >>"$GITHUB_OUTPUT"
      - run: echo "${{ steps.a.outputs.b }}"
EOF
cat >"$tmp/canary/secret.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
concurrency: {group: canary, cancel-in-progress: true}
jobs:
  release:
    name: release
    runs-on: ubuntu-24.04
    env:
      TOKEN: ${{ secrets.RELEASE_TOKEN }}
    steps:
      - run: echo "$TOKEN"
EOF
cat >"$tmp/canary/permission.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
jobs:
  a:
    runs-on: ubuntu-24.04
    permissions:
      attestations: writ
    steps:
      - run: echo
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
cat >"$tmp/canary/custom-label.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
concurrency: {group: canary, cancel-in-progress: true}
jobs:
  a:
    name: a
    runs-on: [linux, gpu-box]
    steps:
      - run: echo
EOF
cp "$tmp/canary/custom-label.yml" "$tmp/canary/undeclared-label.yml"
cat >"$tmp/canary/artipacked.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
      - run: echo
EOF
cat >"$tmp/canary/unpinned.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - uses: someone/thing@v1
EOF
cat >"$tmp/canary/cache.yml" <<'EOF'
name: canary
on:
  push:
    tags: ["*"]
permissions: {}
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/setup-python@0123456789abcdef0123456789abcdef01234567
        with:
          python-version: "3.13"
          cache: pip
EOF
cat >"$tmp/canary/trigger.yml" <<'EOF'
name: canary
on: pull_request_target
permissions: {}
jobs:
  a:
    runs-on: ubuntu-24.04
    steps:
      - run: echo
EOF
cat >"$tmp/canary/pinned.yml" <<'EOF'
name: canary
on: [push]
permissions: {}
concurrency: {group: canary, cancel-in-progress: true}
jobs:
  a:
    name: a
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@0123456789abcdef0123456789abcdef01234567
        with:
          persist-credentials: false
      - uses: actions/setup-python@0123456789abcdef0123456789abcdef01234567
        with:
          python-version: "3.13"
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
"$py" - "$ROOT/tests/helpers" "$tmp/canary" <<'PY' || fail "the canaries: the validators do not find what they must (above)"
import os, sys
import yaml
sys.path.insert(0, sys.argv[1])
import wmlint
expect = {"good": None, "injection": '"github.event.issue.title" is potentially untrusted',
          "property": 'property "python" is not defined', "label": 'label "macos-12-intel" is unknown',
          "custom-label": None, "undeclared-label": 'label "gpu-box" is unknown',
          "artipacked": "zizmor [artipacked]", "unpinned": "zizmor [unpinned-uses]",
          "permission": 'actionlint [permissions] "writ" is invalid as permission of scope "attestations"',
          "cache": "zizmor [cache-poisoning]", "trigger": "zizmor [dangerous-triggers]", "pinned": None,
          "anonymous": "zizmor [anonymous-definition]", "undocumented": "zizmor [undocumented-permissions]",
          "step-output": "zizmor [template-injection]", "secret": "zizmor [secrets-outside-env]",
          "shellcheck": ("actionlint [shellcheck] shellcheck reported issue in this script: SC2045", "shellcheck SC2045"), "schema": "action-validator"}
paths = [os.path.join(sys.argv[2], name + ".yml") for name in expect]
labels = {os.path.join(sys.argv[2], "custom-label.yml"): ("gpu-box",)}
bad = 0
with open(os.path.join(sys.argv[2], "pinned.yml"), encoding="utf-8") as f:
    if wmlint.zizmor_mode(yaml.safe_load(f)) is not None:
        print("FAIL canary pinned: a workflow pinned to SHAs everywhere is not audited without configuration")
        bad = 1
for (path, found), (name, want) in zip(wmlint.lint_all(paths, labels), expect.items()):
    text = "\n".join(found)
    wants = () if want is None else (want,) if isinstance(want, str) else want
    if want is None and found or any(w not in text for w in wants):
        print("FAIL canary %s: expected %s, got:\n%s" % (name, "no findings" if want is None else repr(want), text))
        bad = 1
sys.exit(bad)
PY

# The coverage matrices: every platform, abi3 + free-threaded, every toolkit, env values, build
# settings in every place, action pins; then a per-version one that publishes with a token.
cat >"$tmp/everything.yaml" <<'EOF'
wheelmatrix: 1
project: {name: allplat, module: allplat}
python:
  abi3: "3.9"
  versions: ["3.13t", "3.14t"]
platforms:
  linux-x86_64: {manylinux: "2_28", features: [jemalloc], profile: dist}
  linux-aarch64: {features: [jemalloc], env: {JEMALLOC_SYS_WITH_LG_PAGE: "16"}, docker-options: ["--shm-size=1g"]}
  linux-armv7: {}
  linux-i686: {}
  linux-ppc64le: {}
  linux-s390x: {}
  linux-riscv64: {}
  linux-x86_64-2_17: {}
  musllinux-x86_64: {}
  musllinux-x86_64-1_1: {}
  musllinux-riscv64: {}
  musllinux-aarch64: {}
  musllinux-i686: {}
  musllinux-armv7: {}
  macos-x86_64: {deployment-target: "10.15"}
  macos-arm64: {}
  macos-universal2: {}
  windows-x86_64: {}
  windows-arm64: {}
  windows-x86: {}
  pyodide-wasm32: {}
backends:
  cuda:
    features: [cublas]
    platforms: [linux-x86_64, linux-aarch64, windows-x86_64]
    toolkit: {cuda: "12.8"}
    env: {CUDA_COMPUTE_CAP: "80", APP_NOTE: "a: b # c", APP_VERSIONISH: "3.10"}
    dependencies: ["nvidia-cublas-cu12>=12.8"]
  rocm:
    features: [hipblas]
    platforms: ["linux-x86_64"]
    toolkit: {rocm: "6.4"}
  opencl:
    features: [clblast]
    platforms: ["linux-[!r]*", "macos-*", "windows-*"]
    toolkit: {clblast: {}}
  vulkan:
    features: [vulkan]
    platforms: [linux-x86_64, linux-aarch64, "macos-*", windows-x86_64, windows-arm64]
    toolkit: {vulkan: "1.4"}
  metal:
    features: [metal]
    platforms: ["macos-*"]
    toolkit: {metal: {}}
  mkl:
    features: [mkl]
    platforms: [linux-x86_64, windows-x86_64]
    toolkit: {mkl: {}}
    per-platform:
      linux-x86_64: {zig: true, env: {MKL_THREADING: sequential}}
  accelerate:
    features: [accelerate]
    platforms: ["macos-*"]
    toolkit: {accelerate: {}}
    no-default-features: true
    rust-toolchain: nightly-2026-01-15
    rustup-components: [rust-src]
    unstable-flags: ["build-std=std,panic_abort"]
  cpu:
    default: true
    env: {APP_KIND: cpu, APP_EMPTY: "", APP_YES: "yes"}
    per-platform:
      "windows-*": {features: [mimalloc], env: {APP_KIND: cpu-windows}}
exclude:
  - {backend: cuda, python: "*t"}
  - {backend: rocm, python: "*t"}
  - {platform: windows-x86, python: "*t"}
  - {platform: pyodide-wasm32, python: "*t"}
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
  github-release: true
EOF

# generate NAME MATRIX: generates MATRIX in the scratch repository $tmp/repo-NAME; adds its
# workflow to `workflows`.
workflows=()
generate() {
	local name=$1 repo=$tmp/repo-$1 wf
	mkdir "$repo"
	cp "$2" "$repo/wheelmatrix.yaml"
	wm -q -C "$repo" generate
	expect_status 0 "$name: generate"
	((status == 0)) || return 0
	wf=$repo/$("$py" -c 'import sys, yaml; print(((yaml.safe_load(open(sys.argv[1])).get("ci") or {}).get("github") or {}).get("path") or ".github/workflows/wheels.yml")' "$repo/wheelmatrix.yaml")
	if [[ ! -f $wf ]]; then
		fail "$name: generate wrote no ${wf#"$repo"/}"
		return 0
	fi
	workflows+=("$wf")
	wm -q -C "$repo" generate --check
	expect_status 0 "$name: generate --check right after generate"
}

# `pinned`: `everything` with every action of templates/actions.yaml pinned to a (made-up) commit
# SHA, as a maintainer following zizmor's default policy writes it.
"$py" - "$tmp/everything.yaml" "$ROOT/templates/actions.yaml" "$tmp/pinned.yaml" <<'PY'
import hashlib, sys, yaml
matrix = yaml.safe_load(open(sys.argv[1]))
actions = yaml.safe_load(open(sys.argv[2]))["actions"]
matrix["actions"] = {a: hashlib.sha1(a.encode()).hexdigest() for a in actions}
matrix["ci"] = {"github": None}
yaml.safe_dump(matrix, open(sys.argv[3], "w"), sort_keys=False)
PY
# `pinned-index`: matrices/llm-rs-index.yaml (strategy index: the Pages actions) pinned the same
# way, with the default backend's GitHub release too
"$py" - "$ROOT/matrices/llm-rs-index.yaml" "$ROOT/templates/actions.yaml" "$tmp/pinned-index.yaml" <<'PY'
import hashlib, sys, yaml
matrix = yaml.safe_load(open(sys.argv[1]))
actions = yaml.safe_load(open(sys.argv[2]))["actions"]
matrix["actions"] = {a: hashlib.sha1(a.encode()).hexdigest() for a in actions}
matrix["publish"]["github-release"] = True
yaml.safe_dump(matrix, open(sys.argv[3], "w"), sort_keys=False)
PY

for m in "$ROOT"/matrices/*.yaml; do
	generate "$(basename "$m" .yaml)" "$m"
done
generate everything "$tmp/everything.yaml"
generate token "$tmp/token.yaml"
generate pinned "$tmp/pinned.yaml"
generate pinned-index "$tmp/pinned-index.yaml"
# the fixture projects of tests/fixtures, each generated in a copy of itself (the layouts matter)
for f in "$ROOT"/tests/fixtures/*/; do
	name=fixture-$(basename "$f")
	cp -r "$f" "$tmp/repo-$name"
	wm -q -C "$tmp/repo-$name" generate
	expect_status 0 "$name: generate"
	if [[ -f $tmp/repo-$name/.github/workflows/wheels.yml ]]; then
		workflows+=("$tmp/repo-$name/.github/workflows/wheels.yml")
	else
		fail "$name: generate wrote no workflow"
	fi
done
# every golden case of tests/golden whose matrix generates a GitHub workflow (edge cases the loader
# accepts), each in a scratch repository with the case's other files
golden=0
for g in "$ROOT"/tests/golden/*/; do
	name=golden-$(basename "$g")
	mkdir "$tmp/repo-$name"
	cp -r "$g". "$tmp/repo-$name/"
	rm -f "$tmp/repo-$name"/{args,stdout,stderr,exit}
	scratch_repo "$tmp/repo-$name"
	if "$WM" -q -C "$tmp/repo-$name" generate >/dev/null 2>&1 && [[ -f $tmp/repo-$name/.github/workflows/wheels.yml ]]; then
		workflows+=("$tmp/repo-$name/.github/workflows/wheels.yml")
		golden=$((golden + 1))
	fi
done
((golden >= 10)) || fail "only $golden golden cases generate a workflow (the loop lost them)"
if ((${#workflows[@]})) && ! "$py" "$lint" "${workflows[@]}" >"$tmp/lint" 2>&1; then
	fail "generated workflows have findings:"
	sed "s|$tmp/repo-||" "$tmp/lint"
fi
# Every action of `pinned` and `pinned-index` is on a SHA, so zizmor audited them with its own
# defaults, no configuration; and together they use every action of templates/actions.yaml.
# shellcheck disable=SC2015  # no workflow is a failure too
[[ -f $tmp/repo-pinned/.github/workflows/wheels.yml && -f $tmp/repo-pinned-index/.github/workflows/wheels.yml ]] &&
	"$py" - "$ROOT/tests/helpers" "$ROOT/templates/actions.yaml" "$tmp/repo-pinned/.github/workflows/wheels.yml" \
		"$tmp/repo-pinned-index/.github/workflows/wheels.yml" <<'PY' || fail "pinned (above, or it wrote no workflow)"
import sys, yaml
sys.path.insert(0, sys.argv[1])
import wmlint
actions = yaml.safe_load(open(sys.argv[2]))["actions"]
bad, used = 0, set()
for path in sys.argv[3:]:
    doc = yaml.safe_load(open(path))
    if wmlint.zizmor_mode(doc) is not None:
        print("FAIL %s: some action is not on a SHA: %s" % (path, sorted(set(wmlint.uses_refs(doc)))))
        bad = 1
    used |= {a for a, _ in wmlint.uses_refs(doc)}
unused = sorted(set(actions) - used)
if unused:
    print("FAIL pinned: the workflows do not use %s" % unused)
    bad = 1
sys.exit(bad)
PY

# `everything` covers the whole catalog (so a platform or toolkit added later is checked too), and
# its action pins replace the default references everywhere they are used.
# shellcheck disable=SC2015  # no workflow is a failure too
[[ -f $tmp/repo-everything/.github/workflows/all-platforms.yml ]] &&
	"$py" - "$tmp/repo-everything/.github/workflows/all-platforms.yml" "$tmp/everything.yaml" "$ROOT" <<'PY' || fail "everything (above, or it wrote no workflow)"
import os, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
matrix = yaml.safe_load(open(sys.argv[2]))
pins = matrix["actions"]
seen, bad = set(), 0
catalog = yaml.safe_load(open(os.path.join(sys.argv[3], "templates", "platforms.yaml")))
toolkits = yaml.safe_load(open(os.path.join(sys.argv[3], "templates", "toolkits.yaml")))
used = {t for b in matrix["backends"].values() for t in b.get("toolkit", {})}
if not set(catalog) <= set(matrix["platforms"]) or used != set(toolkits):
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
finish
