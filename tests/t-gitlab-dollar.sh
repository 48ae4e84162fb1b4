#!/bin/bash
# t-gitlab-dollar.sh — GitLab expands $NAME in `variables:`: a '$' in a matrix env value reaches the
# job as itself ($CI_JOB_TOKEN stays text), proven by gitlab-ci-local running a job with the very
# variables the generated build job has; and an image or runner tag with '$' is refused.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync"

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
scratch_repo "$p"
git -C "$p" remote add origin https://gitlab.example/a/probe.git
commit_all "$p" probe
(cd "$p" && "$glci" --force-shell-executor probe) >"$tmp/log" 2>&1 || { cat "$tmp/log"; fatal "the probe job failed"; }
sed -n 's/^probe *> //p' "$tmp/log" >"$tmp/got"
cat >"$tmp/want" <<'EOF'
TOKEN_COPY=<$CI_JOB_TOKEN>
PRICE=<5$>
BOTH=<a$$b>
BRACED=<${CI_COMMIT_BRANCH}x>
EOF
expect_same "$tmp/want" "$tmp/got" "GitLab's reading of the env values as written"
finish
