#!/usr/bin/env bash
# t-runner-retirement.sh — list, check and generate warn about a runner label retiring within 90 days and refuse one retired, at the label; actionlint agrees on which labels are retired.
#
# A matrix runs linux-x86_64 on `runner: ubuntu-22.04` (retiring 2027-04-17, templates/runners.yaml)
# and an include on windows-x86_64 with `runner: ubuntu-22.04` too.  With WHEELMATRIX_TODAY 120 days
# before (2026-12-18) list and check say nothing; 60 days before (2027-02-16) both warn at each
# `runner:` value's line and column ("in 60 days", and the label to move to), exit 0, `list
# --format json` still prints exactly the jobs (the warning goes to stderr) and `check --format
# json` carries each as a finding of severity "warning" with its file, line and column; on the day
# (2027-04-17) and after, each is an error of an invalid matrix: list, generate and check (with
# --format json too) exit 2 with the errors on stderr, as for any invalid matrix.  The same matrix with GitLab CI only says nothing (GitHub's labels
# are not used).  A WHEELMATRIX_TODAY that is not a date is an error, exit 2.  Without it the
# clock's UTC day is used: the warning appears exactly when Python's date says it should.  A label
# the catalogue lacks that looks like GitHub's (ubuntu-26.10) is a warning at its value naming the
# closest known label; a self-hosted runner's (gpu-box) is not checked.
# Last, the data against a tool nobody here wrote: a workflow running a job on every label of
# templates/runners.yaml passes actionlint (1.7.12 of 2026-03-30, tests/tools/actionlint) except
# exactly at the labels runners.yaml says were retired before that day, which actionlint no longer
# knows, and those it says GitHub first offered after it (`available`), which it does not know yet.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
why=$("$py" "$ROOT/tests/helpers/wmlint.py" --missing) || fatal "$why"

repo=$tmp/repo
scratch_repo "$repo"
cat >"$repo/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: demo}
python: {abi3: "3.9"}
platforms:
  linux-x86_64: {runner: ubuntu-22.04}
  windows-x86_64: {}
include:
  - {backend: cpu, platform: windows-x86_64, python: "3.12", runner: ubuntu-22.04}
YAML
(cd "$repo" && WHEELMATRIX_TODAY=2026-12-01 "$WM" -q generate) || fatal "generate failed before the retirement"
commit_all "$repo"

# the warnings and errors of stderr, as "line:column severity days-or-retired"
said() {
	sed -n "s/^wheelmatrix\.yaml:\([0-9]*:[0-9]*\): \(warning\|error\): runner 'ubuntu-22.04' \(retires on 2027-04-17, in \([0-9]*\) days\|was retired on 2027-04-17\).*set 'runner: ubuntu-24.04'$/\1 \2 \4/p" "$tmp/err"
}
# check --format json's findings about the runner, the same way
findings() {
	"$py" -c '
import json, sys
doc = json.load(open(sys.argv[1]))
for f in doc["findings"]:
    if "ubuntu-22.04" in f["message"]:
        print("%s:%d:%d %s" % (f["file"], f["line"], f["column"], f["severity"]))
' "$tmp/out"
}

# 120 days before: nothing
export WHEELMATRIX_TODAY=2026-12-18
wm -C "$repo" list
expect_status 0 "list, 120 days before"
[[ -z $(said) ]] || fail "list warned 120 days before: $(cat "$tmp/err")"
wm -C "$repo" check --format json
expect_status 0 "check, 120 days before"
[[ -z $(findings) ]] || fail "check reported the runner 120 days before: $(cat "$tmp/out")"

# 60 days before: a warning at each runner: value, the jobs unchanged
export WHEELMATRIX_TODAY=2027-02-16
wm -C "$repo" list
expect_status 0 "list, 60 days before"
expect_same - <(said) "list's warnings 60 days before" <<'WANT'
5:26 warning 60
8:70 warning 60
WANT
wm -C "$repo" list --format json
expect_status 0 "list --format json, 60 days before"
cp "$tmp/out" "$tmp/jobs-warned.json"
"$py" -c 'import json,sys; jobs=json.load(open(sys.argv[1])); assert [j["runner"] for j in jobs if j["platform"]=="linux-x86_64"]==["ubuntu-22.04"], jobs' \
	"$tmp/jobs-warned.json" || fail "list --format json is not the jobs"
WHEELMATRIX_TODAY=2026-12-18 wm -C "$repo" list --format json
expect_same "$tmp/out" "$tmp/jobs-warned.json" "list --format json with and without the warning"
wm -C "$repo" check --format json
expect_status 0 "check, 60 days before (warnings only)"
expect_same - <(findings) "check's findings 60 days before" <<'WANT'
wheelmatrix.yaml:5:26 warning
wheelmatrix.yaml:8:70 warning
WANT
wm -C "$repo" check
grep -qF "wheelmatrix.yaml:5:26: warning: runner 'ubuntu-22.04' retires on 2027-04-17, in 60 days" "$tmp/err" ||
	fail "check (table) did not warn: $(cat "$tmp/err")"

# on the day and after: an error
for day in 2027-04-17 2027-09-01; do
	export WHEELMATRIX_TODAY=$day
	wm -C "$repo" list
	expect_status 2 "list on $day"
	expect_same - <(said) "list's errors on $day" <<'WANT'
5:26 error 
8:70 error 
WANT
	wm -C "$repo" generate --dry-run
	expect_status 2 "generate on $day"
	wm -C "$repo" check --format json
	expect_status 2 "check on $day (an invalid matrix)"
	expect_same - <(said) "check's errors on $day" <<'WANT'
5:26 error 
8:70 error 
WANT
done

# GitLab only: GitHub's labels are not used
mkdir "$tmp/gitlab"
sed 's/^python:/ci: {gitlab: {}}\npython:/' "$repo/wheelmatrix.yaml" >"$tmp/gitlab/wheelmatrix.yaml"
wm -C "$tmp/gitlab" list
expect_status 0 "list, GitLab only, after the day"
[[ ! -s $tmp/err ]] || fail "list, GitLab only, said: $(cat "$tmp/err")"

# not a date
WHEELMATRIX_TODAY=2027-02-30 wm -C "$repo" list
expect_status 2 "list with WHEELMATRIX_TODAY=2027-02-30"
expect_err "WHEELMATRIX_TODAY is '2027-02-30', not a date YYYY-MM-DD" "WHEELMATRIX_TODAY not a date"

# the clock
unset WHEELMATRIX_TODAY
left=$("$py" -c 'import datetime; print((datetime.date(2027, 4, 17) - datetime.datetime.now(datetime.timezone.utc).date()).days)')
wm -C "$repo" list
if (( left > 90 )); then
	[[ $status == 0 && -z $(said) ]] || fail "list on the clock's day ($left days before) said: $(cat "$tmp/err")"
elif (( left > 0 )); then
	[[ $status == 0 && $(said) == "5:26 warning $left"* ]] || fail "list on the clock's day ($left days before): $(cat "$tmp/err")"
else
	[[ $status == 2 && $(said) == "5:26 error"* ]] || fail "list on the clock's day (retired): $(cat "$tmp/err")"
fi

# a label the catalogue lacks that looks like GitHub's: a warning at it with the closest label; a
# self-hosted runner's label (and one the catalogue knows) says nothing; GitLab only: nothing
mkdir "$tmp/unknown"
cat >"$tmp/unknown/wheelmatrix.yaml" <<'YAML'
wheelmatrix: 1
project: {name: demo}
python: {abi3: "3.9"}
platforms:
  linux-x86_64: {runner: ubuntu-26.10}
  linux-aarch64: {runner: gpu-box}
  windows-x86_64: {runner: windows-2025-vs2026}
YAML
WHEELMATRIX_TODAY=2026-12-01 wm -C "$tmp/unknown" list
expect_status 0 "list with a label the catalogue lacks"
expect_same - <(grep -E '^wheelmatrix.yaml:[0-9]+:[0-9]+: ' "$tmp/err") "the unknown labels' warnings" <<'WANT'
wheelmatrix.yaml:5:26: warning: runner 'ubuntu-26.10' looks like a GitHub-hosted label, but wheelmatrix does not know it (did you mean 'ubuntu-26.04'?): its retirement is not checked, and a label no runner has leaves the jobs queued
WANT
sed -i 's/^python:/ci: {gitlab: {}}\npython:/' "$tmp/unknown/wheelmatrix.yaml"
wm -C "$tmp/unknown" list
expect_status 0 "list, GitLab only, with a label the catalogue lacks"
[[ ! -s $tmp/err ]] || fail "list, GitLab only, warned: $(cat "$tmp/err")"

# actionlint knows every label of runners.yaml but those retired before 2026-12-01
"$py" - "$ROOT" "$tmp/labels.yml" <<'PY' || fail "runners.yaml against actionlint (above)"
import datetime, os, sys
import yaml
root, path = sys.argv[1:]
sys.path.insert(0, os.path.join(root, "tests", "helpers"))
import wmlint
with open(os.path.join(root, "templates", "runners.yaml"), encoding="utf-8") as f:
    runners = yaml.safe_load(f)
# the day the Go module proxy gives for actionlint v1.7.12 (its .info), the day of its label list
released = datetime.date(2026, 3, 30)
retired = {label for label, e in runners.items()
           if e.get("retires") and datetime.date.fromisoformat(e["retires"]) < released}
newer = {label for label, e in runners.items()
         if e.get("available") and datetime.date.fromisoformat(e["available"]) > released}
lines = ["on: push", "permissions: {}", "jobs:"]
where = {}
for i, label in enumerate(runners):
    lines += ["  job%d:" % i, "    name: job %d" % i, "    runs-on: %s" % label, "    steps:", "      - run: 'true'"]
    where[len(lines) - 2] = label
with open(path, "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
found = wmlint.actionlint(path)
unknown = {where.get(f["line"]) for f in found if f["kind"] == "runner-label"}
others = [f for f in found if f["kind"] != "runner-label"]
if others or unknown != retired | newer or len(retired) < 2 or len(newer) < 2:
    print("FAIL actionlint does not know %s; runners.yaml says retired before it: %s, offered after it: %s; "
          "other findings: %r" % (sorted(map(str, unknown)), sorted(retired), sorted(newer), others))
    sys.exit(1)
PY
finish
