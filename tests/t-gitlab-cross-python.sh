#!/usr/bin/env bash
# t-gitlab-cross-python.sh — a GitLab cross job for a CPython its image has no host interpreter of builds from maturin's own tables.
#
# GitLab's Linux cross jobs run in ghcr.io/rust-cross/manylinux_2_28-cross images, whose host
# CPythons end at 3.14 (lib/emit/gitlab.c, CROSS_HOST_PYTHON_MAX).  For every catalogue platform
# cross-built on GitLab and every CPython the loader knows past that (3.15), the generated job
# runs maturin with the tool CPython (WM_PYTHON 3.12) and names the target interpreter
# (WM_TARGET_PYTHON python3.15), and the pinned maturin (tests/tools/requirements.txt) lists that
# CPython for the platform's target without any interpreter (`maturin list-python --target`), so it
# builds it from its own tables; a 3.14 job and a native job keep their own interpreter.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

"$py" - "$ROOT/templates/platforms.yaml" "$tmp/r" <<'PY' || fatal "cannot write the matrix of the cross platforms"
import os, sys, yaml
catalog, repo = sys.argv[1:]
cross = [k for k, v in yaml.safe_load(open(catalog)).items()
         if v["os"] == "linux" and (v.get("gitlab") or {}).get("cross", v.get("cross")) and (v.get("gitlab") or {}).get("hosted", True)]
os.makedirs(repo)
yaml.safe_dump({"wheelmatrix": 1, "project": {"name": "demo"}, "python": {"versions": ["3.14", "3.15"]},
                "platforms": cross + ["linux-x86_64"], "ci": {"gitlab": {}}}, open(os.path.join(repo, "wheelmatrix.yaml"), "w"),
               sort_keys=False)
PY
scratch_repo "$tmp/r"
expect_run 0 "$WM" -q -C "$tmp/r" generate
"$py" - "$ROOT/templates/platforms.yaml" "$tmp/r/.gitlab-ci.yml" "$tmp/targets" <<'PY' || fail "the cross jobs' interpreters (above)"
import sys, yaml
catalog, path, out = sys.argv[1:]
plats = yaml.safe_load(open(catalog))
doc = yaml.safe_load(open(path))
bad, targets = [], set()
for name, job in doc.items():
    if not name.startswith("build-") or not isinstance(job, dict):
        continue
    entries = [(job.get("variables") or {})] + ((job.get("parallel") or {}).get("matrix") or [])
    for e in entries:
        jid = e.get("WM_JOB_ID") or (job.get("variables") or {}).get("WM_JOB_ID")
        if not jid or not jid.startswith("cpu-"):
            continue
        plat = jid[len("cpu-"):].rsplit("-", 1)[0]
        cross = (plats[plat].get("gitlab") or {}).get("cross", plats[plat].get("cross"))
        got = (str(e.get("WM_PYTHON")), e.get("WM_TARGET_PYTHON"))
        if jid.endswith("-cp315") and cross:
            want = ("3.12", "python3.15")
            targets.add(plats[plat]["target"])
        elif jid.endswith("-cp315"):
            want = ("3.15", None)
        else:
            want = ("3.14", None)
        if got != want:
            bad.append("%s: WM_PYTHON, WM_TARGET_PYTHON %r, want %r" % (jid, got, want))
if len(targets) < 3:
    bad.append("only %d cross targets built 3.15: %s" % (len(targets), sorted(targets)))
open(out, "w").write("\n".join(sorted(targets)) + "\n")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
while read -r t; do
	maturin list-python --target "$t" >"$tmp/maturin-$t" 2>&1 || fatal "maturin list-python --target $t: $(cat "$tmp/maturin-$t")"
	grep -qx ' - CPython 3.15' "$tmp/maturin-$t" || fail "maturin has no CPython 3.15 for $t: $(cat "$tmp/maturin-$t")"
done <"$tmp/targets"
finish
