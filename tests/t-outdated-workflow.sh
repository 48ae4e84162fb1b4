#!/bin/bash
# t-outdated-workflow.sh — wheelmatrix's weekly check of its own catalogue (.github/workflows/outdated.yml, written by hand) passes actionlint, zizmor, action-validator and shellcheck (tests/helpers/wmlint.py); it runs weekly and on demand with read-only permissions, on the catalogue's action tags and a runner label with no retirement, builds wheelmatrix and runs `outdated --catalog --strict`; the command it runs exists: --catalog and --strict are options of this wheelmatrix, and against an unreachable forge it exits 1.  A copy that checks a matrix instead of the catalogue, or leaves out --strict, fails.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
lint=$ROOT/tests/helpers/wmlint.py
why=$("$py" "$lint" --missing) || fatal "$why"
workflow=$ROOT/.github/workflows/outdated.yml

# facts WORKFLOW: what the workflow must say; prints each problem, exit 1 if any
# shellcheck disable=SC2317  # run by `run facts`
facts() {
	"$py" - "$1" "$ROOT/templates/actions.yaml" "$ROOT/templates/runners.yaml" <<'PY'
import re, shlex, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
actions = yaml.safe_load(open(sys.argv[2]))
runners = yaml.safe_load(open(sys.argv[3]))
problems = []
on = wf.get("on") or {}
crons = [c.get("cron", "") for c in on.get("schedule") or []]
# weekly: one schedule, a fixed minute, hour and day of the week, any day of the month and month
if len(crons) != 1 or not re.fullmatch(r"\d+ \d+ \* \* [0-6]", crons[0]):
    problems.append("the schedule is %r, not one weekly cron" % crons)
if "workflow_dispatch" not in on or set(on) != {"schedule", "workflow_dispatch"}:
    problems.append("it runs on %s, not on the schedule and on demand alone" % sorted(on))
if wf.get("permissions") != {"contents": "read"}:
    problems.append("permissions %r" % wf.get("permissions"))
jobs = wf["jobs"]
runs = []
for name, job in jobs.items():
    if "permissions" in job:
        problems.append("%s asks for permissions" % name)
    label = job["runs-on"]
    if label not in runners or "retires" in (runners[label] or {}):
        problems.append("runner %s: not in templates/runners.yaml, or retiring there" % label)
    for s in job["steps"]:
        if "uses" in s:
            action, _, ref = s["uses"].partition("@")
            if actions["actions"].get(action) != ref:
                problems.append("%s is not on the tag of templates/actions.yaml" % s["uses"])
            if action == "actions/checkout" and (s.get("with") or {}).get("persist-credentials") is not False:
                problems.append("the checkout keeps its credentials")
        runs += [l.strip() for l in s.get("run", "").splitlines() if l.strip()]
checks = [shlex.split(l) for l in runs if "outdated" in l]
if len(checks) != 1 or checks[0][:2] != ["build/wheelmatrix", "outdated"] or \
        sorted(checks[0][2:]) != ["--catalog", "--strict"]:
    problems.append("the check is %r, not build/wheelmatrix outdated --catalog --strict" % runs)
if not any(re.fullmatch(r'make -j"\$\(nproc\)" build/wheelmatrix', l) for l in runs):
    problems.append("wheelmatrix is not built before the check")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
}

run facts "$workflow"
expect_status 0 "outdated.yml's schedule, permissions, actions, runner and check"
run "$py" "$lint" "$workflow"
expect_status 0 "actionlint, zizmor, action-validator and shellcheck on outdated.yml"

# the checks can fail: a matrix's pins instead of the catalogue, no --strict
mkdir -p "$tmp/matrix/.github/workflows" "$tmp/lax/.github/workflows"
sed 's|outdated --catalog --strict|outdated --strict|' "$workflow" >"$tmp/matrix/.github/workflows/outdated.yml"
run facts "$tmp/matrix/.github/workflows/outdated.yml"
expect_status 1 "outdated.yml checking a matrix"
sed 's|outdated --catalog --strict|outdated --catalog|' "$workflow" >"$tmp/lax/.github/workflows/outdated.yml"
run facts "$tmp/lax/.github/workflows/outdated.yml"
expect_status 1 "outdated.yml without --strict"

# the command it runs, with this wheelmatrix: no matrix needed, and what cannot be reached fails
mkdir "$tmp/empty"
wm -C "$tmp/empty" outdated --catalog --strict --github http://127.0.0.1:1 --index http://127.0.0.1:1/simple/ \
	--crates http://127.0.0.1:1/ --python-releases http://127.0.0.1:1/release-cycle.json --retries 0 --timeout 5
expect_status 1 "outdated --catalog --strict with nothing reachable"
[[ $(tail -n 1 "$tmp/out") == *" unchecked: cannot connect to the server (http://127.0.0.1:1)"* ]] ||
	{ fail "no last line saying what went unchecked"; show "$tmp/out"; }
finish
