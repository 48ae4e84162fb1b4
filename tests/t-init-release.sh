#!/bin/bash
# t-init-release.sh — init takes real projects' releases over, judged against the index: every
# wheel of the release is reproduced by the matrix init writes, or named with why.
#
# Six real maturin projects (tests/takeover/README.md: their repository, tag, commit and licence),
# each with hand-written release workflows of another shape: expressions in runs-on and a local
# composite action with inputs (pydantic-core), env in args and features per combination (granian),
# run: builds beside maturin-action and include/exclude of objects (cramjam), abi3 and cross
# targets the matrix cannot express (nh3), a workflow called by another and a composite action
# reading a step's output (prqlc), many Pythons and musllinux (blake3).  Their workflows and
# project files are kept byte for byte with the file list of the release those workflows built,
# which nginx serves here as a simple index (PEP 691 JSON, and PEP 503 HTML for one of them).
#
# For each: init exits 0 and writes a matrix that `list` loads; its JSON summary lists every wheel
# of the release, each reproduced or with a reason; a wheel is reproduced only when a job of the
# matrix has its tags, read with packaging (PyPA's own parser of wheel names), and a wheel without
# such a job is never reproduced, and each reproduced one names that job (list's id); the file's
# header names each lost wheel; the totals are those of
# tests/takeover/expected.txt (published, reproduced, named: reviewed, see its comment); and check,
# once generate wrote the workflow, keeps each release workflow that builds a lost wheel, naming
# its publishing job.  The same over https from a private index (credentials from the environment,
# never shown; refused without them, nothing written).  A project the index does not have is fine:
# init says so and writes its matrix.
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
# shellcheck source=tests/kit/takeover-index.sh
. "$ROOT/tests/kit/takeover-index.sh"
tools=$("$ROOT/tests/tools/install.sh" --path)
[[ -x $tools/bin/python ]] || fatal "the pinned tools are not installed in $tools: run 'make tools' (tests/tools/install.sh)"
"$tools/bin/python" -c 'import packaging.utils' 2>/dev/null ||
	fatal "packaging is not in $tools: run 'make tools' (tests/tools/requirements.txt pins it)"
data=$ROOT/tests/takeover

# the index: each release's page, as PyPI gave it (JSON), and the same files as PEP 503 HTML
www=$tmp/www
takeover_index "$www"
mkdir -p "$tmp/srv"
start_nginx "$tmp/srv" "$www" || fatal "nginx did not start"

: >"$tmp/totals"
for dir in "$data"/*/; do
	name=$(basename "$dir")
	repo=$tmp/$name
	cp -r "$dir/repo" "$repo"
	scratch_repo "$repo"
	commit_all "$repo"
	index=http://127.0.0.1:$HTTP_PORT/simple/
	# one project read from the PEP 503 HTML pages: the same release
	[[ $name == blake3 ]] && index=http://127.0.0.1:$HTTP_PORT/html/
	wm -C "$repo" init --index "$index" --format json
	expect_status 0 "$name: init against the index"
	cp "$tmp/out" "$tmp/$name.json"
	cp "$tmp/err" "$tmp/$name.err"
	wm -C "$repo" list --format json
	expect_status 0 "$name: list loads the matrix init wrote"
	cp "$tmp/out" "$tmp/$name.jobs"
	"$tools/bin/python" - "$dir/release.json" "$tmp/$name.json" "$tmp/$name.jobs" "$repo/wheelmatrix.yaml" "$name" \
		>>"$tmp/totals" 2>"$tmp/$name.check" <<'PY' || fail "$name: $(cat "$tmp/$name.check")"
import json, re, sys
from packaging.utils import parse_wheel_filename
release, summary, jobs, matrix, name = sys.argv[1:]
published = sorted(f["filename"] for f in json.load(open(release))["files"]
                   if f["filename"].endswith(".whl") and not f.get("yanked"))
s = json.load(open(summary))
wheels = {w["file"]: w for w in s["wheels"]}
problems = []
if sorted(wheels) != published:
    problems.append("the summary does not list the release's wheels: %s" % sorted(set(published) ^ set(wheels)))
if s["published"] != len(published) or s["reproduced"] + s["not_reproduced"] != len(published):
    problems.append("the counts %s do not add up to %d" % ((s["published"], s["reproduced"], s["not_reproduced"]), len(published)))
if s["reproduced"] != sum(w["reproduced"] for w in s["wheels"]):
    problems.append("reproduced is %d, but %d wheels say so" % (s["reproduced"], sum(w["reproduced"] for w in s["wheels"])))

def canonical(tag):
    # PEP 600: manylinux2014 is manylinux_2_17, 2010 is 2_12, manylinux1 is 2_5
    for legacy, level in (("manylinux2014_", "2_17"), ("manylinux2010_", "2_12"), ("manylinux1_", "2_5")):
        if tag.startswith(legacy):
            return "manylinux_%s_%s" % (level, tag[len(legacy):])
    return tag

made, by_id = set(), {}
for j in json.load(open(jobs)):
    # a job's tags are sets (manylinux_2_17_x86_64.manylinux2014_x86_64): each tag of them, as packaging reads a name
    job = {(p, a, canonical(t)) for p in j["python_tag"].split(".") for a in j["abi_tag"].split(".")
           for t in j["platform_tag"].split(".")}
    made |= job
    by_id[j["id"]] = job
for f in published:
    tags = {(t.interpreter, t.abi, canonical(t.platform)) for t in parse_wheel_filename(f)[3]}
    has_job = any(t in made for t in tags)
    w = wheels.get(f)
    if not w:
        continue
    if w["reproduced"] and not has_job:
        problems.append("%s is said reproduced, but no job of the matrix has its tags" % f)
    if not has_job and w["reproduced"]:
        problems.append("%s: no job, yet reproduced" % f)
    if not w["reproduced"] and not (w["why"] or "").strip():
        problems.append("%s is not reproduced, and no reason is given" % f)
    if w["reproduced"] and w["why"]:
        problems.append("%s is reproduced, with a reason: %s" % (f, w["why"]))
    # the job it names is one of list's, and makes a wheel of its tags
    if w["reproduced"] and not (by_id.get(w["job"], set()) & tags):
        problems.append("%s is reproduced by job %s, which makes %s" % (f, w["job"], by_id.get(w["job"])))
    if not w["reproduced"] and w["job"] is not None:
        problems.append("%s is not reproduced, yet names job %s" % (f, w["job"]))
# the header names each lost wheel, plain file names as they are
header = [l for l in open(matrix) if l.startswith("#")]
lost = {m.group(1) for l in header for m in [re.match(r"#   lost: (\S+) \(", l)] if m}
want = {f for f, w in wheels.items() if not w["reproduced"]}
if lost != want:
    problems.append("the header's lost wheels differ from the summary's: %s" % sorted(lost ^ want))
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
print(name, s["published"], s["reproduced"], s["not_reproduced"])
PY
	# the text summary says the same, the release's version and counts first
	wm -C "$repo" init --index "$index" --force
	expect_status 0 "$name: init again, the summary as text"
	read -r _ published reproduced named < <(grep "^$name " "$tmp/totals")
	version=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$tmp/$name.json")
	grep -qxF "$published wheels published in $version, $reproduced reproduced, $named not:" "$tmp/out" ||
		grep -qxF "$published wheels published in $version, $reproduced reproduced, $named not" "$tmp/out" ||
		fail "$name: the summary's first line: $(sed -n 2p "$tmp/out")"
	# check: generate's workflow beside the project's; each release workflow that builds a lost wheel is kept
	wm -q -C "$repo" generate
	expect_status 0 "$name: generate"
	commit_all "$repo"
	# the uploads init named keep their deployment environment (PyPI's trusted publisher may name
	# it): the publishing jobs of the project's workflows, read with PyYAML, and generate's
	"$py" - "$repo" "$tmp/$name.err" <<'PY' || fail "$name: the publish environment: $(cat "$tmp/$name.err")"
import os, re, sys, yaml
repo, err = sys.argv[1], open(sys.argv[2]).read()
def env_of(job):
    e = job.get("environment")
    e = e.get("name") if isinstance(e, dict) else e
    return e or None
theirs = set()
for path, job in re.findall(r"^([^:\n]+):\d+:\d+: note: job '([^']+)' uploads '[^']+' to an index", err, re.M):
    doc = yaml.safe_load(open(os.path.join(repo, path)))
    theirs.add(env_of(doc["jobs"][job]))
assert theirs, "init names no job that uploads to an index"
ours = {env_of(job) for name, job in yaml.safe_load(open(os.path.join(repo, ".github/workflows/wheels.yml")))["jobs"].items()
        if name.startswith("publish-")}
# one environment of theirs is carried (none: the default, 'pypi'); two cannot be, and are said
if len(theirs) == 1:
    want = theirs.pop() or "pypi"
    assert ours == {want}, "the project uploads from the environment %r, the generated jobs from %r" % (want, ours)
else:
    assert "the matrix publishes every distribution from one environment" in err, "two environments, not said"
PY
	wm -C "$repo" check
	cp "$tmp/err" "$tmp/$name.check-err"
	"$py" - "$tmp/$name.json" "$tmp/$name.check-err" <<'PY' || fail "$name: check's advice: $(cat "$tmp/$name.check-err")"
import json, re, sys
s = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
kept = {w["workflow"] for w in s["wheels"] if not w["reproduced"] and w["workflow"]}
for path in kept:
    for line in err.splitlines():
        if line.startswith(path + ":") and "two publishers" in line:
            if "git rm" in line or "but this workflow builds wheels the matrix does not" not in line:
                sys.exit("%s builds lost wheels, yet check says: %s" % (path, line))
            if not re.search(r": error: job '[^']+' uploads", line):
                sys.exit("%s: the finding does not name the publishing job: %s" % (path, line))
PY
done
# the index reader's own ways: https with the CA given, a private index with credentials from the
# environment (never shown); the same verdict as over plain http
repo=$tmp/nh3
(
	export WHEELMATRIX_INDEX_USERNAME=ci WHEELMATRIX_INDEX_PASSWORD=s3cret-pass
	wm -C "$repo" init --force --index "https://127.0.0.1:$HTTPS_PORT/private/" --cacert "$tmp/srv/ca.pem" --format json
	expect_status 0 "nh3: init against a private index over https"
	"$py" - "$tmp/nh3.json" "$tmp/out" <<'PY' || fail "nh3: another verdict from the private index: $(head -c 2000 "$tmp/out")"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["wheels"] == b["wheels"] and a["version"] == b["version"]
assert b["index"].startswith("https://127.0.0.1:") and "s3cret" not in json.dumps(b)
PY
	grep -q "s3cret" "$tmp/err" "$repo/wheelmatrix.yaml" && fail "nh3: the password is shown"
	# without them, the index refuses: init says so and writes nothing
	unset WHEELMATRIX_INDEX_USERNAME WHEELMATRIX_INDEX_PASSWORD
	cp "$repo/wheelmatrix.yaml" "$tmp/nh3.yaml"
	wm -C "$repo" init --force --index "https://127.0.0.1:$HTTPS_PORT/private/" --cacert "$tmp/srv/ca.pem"
	[[ $status != 0 ]] || fail "nh3: init without the index's password exits 0: $(cat "$tmp/out" "$tmp/err")"
	cmp -s "$tmp/nh3.yaml" "$repo/wheelmatrix.yaml" || fail "nh3: a refused init changed the matrix file"
	exit "$failures"
) || failures=$((failures + 1))

# a project not on the index yet: nothing to compare, said, and the matrix written
repo=$tmp/new-project
maturin_project "$repo" not-released 0.1.0
printf 'edition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n' >>"$repo/Cargo.toml"
scratch_repo "$repo"
wm -C "$repo" init --index "http://127.0.0.1:$HTTP_PORT/simple/"
expect_status 0 "init of a project the index does not have"
grep -qxF "not-released has no release on http://127.0.0.1:$HTTP_PORT/simple/not-released/: nothing to compare" "$tmp/out" ||
	fail "init does not say the project has no release: $(cat "$tmp/out")"
wm -C "$repo" list
expect_status 0 "list of the matrix init wrote for a project not released"

# the totals, as reviewed
sort "$tmp/totals" >"$tmp/totals.sorted"
grep -v '^#' "$data/expected.txt" | sort | expect_same - "$tmp/totals.sorted" "the totals (project published reproduced named)"
show "$tmp/totals.sorted"
finish
