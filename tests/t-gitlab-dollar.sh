#!/bin/bash
# t-gitlab-dollar.sh — GitLab expands $NAME in `variables:`: a '$' in a matrix env value reaches the
# job as itself ($CI_JOB_TOKEN stays text), proven by gitlab-ci-local running a job with the very
# variables the generated build job has; and an image or runner tag with '$' is refused.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
# shellcheck source=tests/python-env.sh
. "$ROOT/tests/python-env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
[ -x "$glci" ] || { echo "FAIL: gitlab-ci-local is not installed: run 'npm ci --prefix tests/external'"; exit 1; }
command -v rsync >/dev/null 2>&1 || { echo "FAIL: rsync is missing: apt-get install rsync"; exit 1; }
git() { command git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main "$@"; }

r=$tmp/repo
mkdir -p "$r"
cat >"$r/wheelmatrix.yaml" <<'EOF'
wheelmatrix: 1
project: {name: dollar}
platforms: [linux-x86_64]
backends:
  cpu:
    default: true
    env: {TOKEN_COPY: "$CI_JOB_TOKEN", PRICE: "5$", BOTH: "a$$b", BRACED: "${CI_COMMIT_BRANCH}x"}
ci: {gitlab: {}}
EOF
"$WM" -q -C "$r" generate
p=$tmp/probe
mkdir -p "$p"
"$py" - "$r/.gitlab-ci.yml" "$p/.gitlab-ci.yml" <<'PY'
import sys, yaml
ci = yaml.safe_load(open(sys.argv[1]))
variables = ci["build-cpu-linux-x86_64"]["variables"]
names = ["TOKEN_COPY", "PRICE", "BOTH", "BRACED"]
probe = {"probe": {"variables": {n: variables[n] for n in names},
                   "script": ['printf "%s=<%s>\\n" ' + n + ' "$' + n + '"' for n in names]}}
yaml.safe_dump(probe, open(sys.argv[2], "w"))
PY
git -C "$p" init -q
git -C "$p" remote add origin https://gitlab.example/a/probe.git
git -C "$p" add -A
git -C "$p" commit -qm probe
(cd "$p" && "$glci" --force-shell-executor probe) >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: the probe job failed"; exit 1; }
sed -n 's/^probe *> //p' "$tmp/log" >"$tmp/got"
cat >"$tmp/want" <<'EOF'
TOKEN_COPY=<$CI_JOB_TOKEN>
PRICE=<5$>
BOTH=<a$$b>
BRACED=<${CI_COMMIT_BRANCH}x>
EOF
diff -u "$tmp/want" "$tmp/got" || { echo "FAIL: GitLab does not read the env values as written"; exit 1; }
