#!/usr/bin/env bash
# t-patches.sh — variant patches of pyproject.toml: the golden cases of tests/patches, then the corpus expectations of tests/corpus-patches.
#
# Golden cases (tests/patches/NAME/): patch-apply applies `spec` to `pyproject.toml` in the case
# directory; the output must equal expected.toml byte for byte (or, for a case with expected.err,
# stderr must equal it and the exit status be 1).  Each expected.toml must also parse with Python's
# tomllib and equal the original with the spec's edits made in Python: the name, features appended
# when not there as strings, the pinned settings, dependencies appended, self-references renamed.
# For every case, golden or corpus, patch-apply also has libgit2 read the git-format diff of the edit
# (one file modified, the blob ids of both texts), apply it in memory to give exactly the patched text,
# and apply it turned round to give back exactly the original; if not, it exits 3 and the case fails.
#
# Corpus cases (tests/corpus-patches/NAME/): `spec`, and expect.toml written by hand from the
# corpus files (the sdists of real projects pinned in tests/tools/corpus.txt, read in place where
# tests/tools/install-testdata.sh installed them, never copied): the pyproject and Cargo.toml paths
# (NAME-VERSION/PATH), the expected name, the full features list, module, and any other expected
# value.  Checked:
# - the pyproject is a maturin project with [project]; the spec's features exist in that
#   Cargo.toml's [features];
# - the patched text parses, with [project].name, [tool.maturin].features and the rest as expected;
# - everything else is unchanged: the original's tomllib data with the expected values set equals
#   the patched data;
# - only lines holding edits changed: difflib's changed lines of the original are the name line, the
#   lines of the arrays and settings edited, and new lines only carry new values.
# Without the installed corpus the test fails and says how to install it (`make testdata`).
. "$ROOT/tests/kit/lib.sh"
testdata corpus
driver=$(dirname "$WM")/tests/patch-apply
[[ -x $driver ]] || fatal "$driver is not built: run 'make check'"
export PYTHONDONTWRITEBYTECODE=1

python3 - "$driver" "$ROOT" "$data/corpus" <<'PY' || fail "the patches (above)"
import copy, difflib, os, re, subprocess, sys, tomllib

driver, root, corpus = sys.argv[1:]
failures = []

def fail(case, msg):
    failures.append(f"{case}: {msg}")

def read_spec(path):
    spec = {"feature": [], "dependency": []}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition("=")
            key, value = key.strip(), value.strip()
            if key in ("feature", "dependency"):
                spec[key].append(value)
            else:
                spec[key] = value
    return spec

def apply(spec_path, pyproject, cwd=None):
    return subprocess.run([driver, spec_path, pyproject], cwd=cwd, capture_output=True, timeout=60)

# ---- the semantics, modelled independently in Python ------------------------

NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")

def normal(name):
    return re.sub(r"[-_.]+", "-", name).lower()

def rename_req(req, old, new):
    m = NAME.match(req)
    if not m or normal(m.group(1)) != normal(old):
        return req
    return req[:m.start(1)] + new + req[m.end(1):]

def model(data, spec):
    """The original's data with the spec's edits, as wheelmatrix should make them."""
    data = copy.deepcopy(data)
    project = data["project"]
    old, new = spec.get("old-name", project["name"]), spec.get("name")
    if new:
        project["name"] = new
        if "dependencies" in project:
            project["dependencies"] = [rename_req(r, old, new) if isinstance(r, str) else r
                                       for r in project["dependencies"]]
        for k, v in project.get("optional-dependencies", {}).items():
            project["optional-dependencies"][k] = [rename_req(r, old, new) if isinstance(r, str) else r for r in v]
    for dep in spec["dependency"]:
        deps = project.setdefault("dependencies", [])
        if dep not in deps:
            deps.append(dep)
    pins = {k: spec[k] for k in ("module-name", "python-source", "manifest-path") if k in spec}
    if spec["feature"] or pins:
        maturin = data.setdefault("tool", {}).setdefault("maturin", {})
        for f in spec["feature"]:
            feats = maturin.setdefault("features", [])
            if f not in [x for x in feats if isinstance(x, str)]:
                feats.append(f)
        maturin.update(pins)
    return data

# ---- golden cases -----------------------------------------------------------

golden = os.path.join(root, "tests", "patches")
ngolden = 0
for case in sorted(os.listdir(golden)):
    d = os.path.join(golden, case)
    if not os.path.isdir(d):
        continue
    ngolden += 1
    label = f"patches/{case}"
    p = apply("spec", "pyproject.toml", cwd=d)
    err_file = os.path.join(d, "expected.err")
    if os.path.exists(err_file):
        with open(err_file, "rb") as f:
            want = f.read()
        if p.returncode != 1 or p.stderr != want:
            fail(label, f"expected exit 1 and stderr {want!r}, got exit {p.returncode}, stderr {p.stderr!r}")
        continue
    with open(os.path.join(d, "expected.toml"), "rb") as f:
        want = f.read()
    if p.returncode != 0:
        fail(label, f"exit {p.returncode}: {p.stderr.decode(errors='replace').strip()}")
        continue
    if p.stdout != want:
        diff = difflib.unified_diff(want.decode().splitlines(True), p.stdout.decode().splitlines(True),
                                    "expected.toml", "patched")
        fail(label, "output differs from expected.toml:\n" + "".join(diff))
    with open(os.path.join(d, "pyproject.toml"), "rb") as f:
        before = tomllib.loads(f.read().decode("utf-8-sig"))
    spec = read_spec(os.path.join(d, "spec"))
    try:
        after = tomllib.loads(want.decode("utf-8-sig"))
    except tomllib.TOMLDecodeError as e:
        fail(label, f"expected.toml does not parse: {e}")
        continue
    if after["project"]["name"] != spec.get("name", before["project"]["name"]):
        fail(label, f"expected.toml: [project].name is {after['project']['name']!r}")
    feats = after.get("tool", {}).get("maturin", {}).get("features", [])
    for f in spec["feature"]:
        if f not in feats:
            fail(label, f"expected.toml: feature {f!r} missing from {feats!r}")
    if after != model(before, spec):
        fail(label, f"expected.toml: {after!r}\n  is not the original with the edits: {model(before, spec)!r}")

# ---- corpus cases -----------------------------------------------------------

def edited_lines(text, edits):
    """Indices of the lines of `text` that hold the values of `edits` ((section, key) pairs)."""
    lines = text.splitlines(True)
    out, section, depth, i = set(), "", 0, 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$", line)
        if m:
            section = re.sub(r"\s*\.\s*", ".", m.group(1)).replace('"', "")
            i += 1
            continue
        m = re.match(r"\s*([A-Za-z0-9_-]+)\s*=", line)
        if m and ((section, m.group(1)) in edits or (section, "*") in edits):
            # the value's lines: until brackets and braces balance, outside strings and comments
            start, depth = i, 0
            while True:
                s, q = lines[i], None
                j = line.index("=") + 1 if i == start else 0
                while j < len(s):
                    c = s[j]
                    if q:
                        if c == "\\" and q == '"':
                            j += 1
                        elif c == q:
                            q = None
                    elif c in "\"'":
                        q = c
                    elif c == "#":
                        break
                    elif c in "[{":
                        depth += 1
                    elif c in "]}":
                        depth -= 1
                    j += 1
                out.add(i)
                if depth <= 0 or i + 1 >= len(lines):
                    break
                i += 1
        i += 1
    return out

ncorpus = 0
if corpus and os.path.isdir(corpus):
    cases = os.path.join(root, "tests", "corpus-patches")
    for case in sorted(os.listdir(cases)):
        d = os.path.join(cases, case)
        if not os.path.isdir(d):
            continue
        ncorpus += 1
        label = f"corpus-patches/{case}"
        with open(os.path.join(d, "expect.toml"), "rb") as f:
            expect = tomllib.load(f)
        spec = read_spec(os.path.join(d, "spec"))
        pyproject = os.path.join(corpus, expect["pyproject"])
        with open(os.path.join(corpus, expect["cargo"]), "rb") as f:
            cargo_features = tomllib.load(f).get("features", {})
        for feat in spec["feature"]:
            if feat not in cargo_features:
                fail(label, f"the spec's feature {feat!r} is not in {expect['cargo']} [features]")
        p = apply(os.path.join(d, "spec"), pyproject)
        if p.returncode != 0:
            fail(label, f"exit {p.returncode}: {p.stderr.decode(errors='replace').strip()}")
            continue
        with open(pyproject, "rb") as f:
            old_bytes = f.read()
        old_text, new_text = old_bytes.decode("utf-8"), p.stdout.decode("utf-8")
        old, new = tomllib.loads(old_text), tomllib.loads(new_text)
        if old.get("build-system", {}).get("build-backend") != "maturin" or "project" not in old:
            fail(label, f"{expect['pyproject']} is not a maturin project with a [project] table")
        maturin = new.get("tool", {}).get("maturin", {})

        # the hand-written expectations
        if new["project"]["name"] != expect["name"]:
            fail(label, f"[project].name is {new['project']['name']!r}, expected {expect['name']!r}")
        if "features" in expect and maturin.get("features") != expect["features"]:
            fail(label, f"[tool.maturin].features is {maturin.get('features')!r}, expected {expect['features']!r}")
        for key, mkey in (("module", "module-name"), ("python-source", "python-source"),
                          ("manifest-path", "manifest-path")):
            if key in expect and maturin.get(mkey) != expect[key]:
                fail(label, f"[tool.maturin].{mkey} is {maturin.get(mkey)!r}, expected {expect[key]!r}")
        if "dependencies" in expect and new["project"].get("dependencies") != expect["dependencies"]:
            fail(label, f"[project].dependencies is {new['project'].get('dependencies')!r}")

        # nothing else changed: the original with the expected values set is the patched data
        want = copy.deepcopy(old)
        want["project"]["name"] = expect["name"]
        wm = want.setdefault("tool", {}).setdefault("maturin", {}) if any(
            k in expect for k in ("features", "module", "python-source", "manifest-path")) else None
        for key, mkey in (("features", "features"), ("module", "module-name"),
                          ("python-source", "python-source"), ("manifest-path", "manifest-path")):
            if key in expect:
                wm[mkey] = expect[key]
        if "dependencies" in expect:
            want["project"]["dependencies"] = expect["dependencies"]
        for k, v in expect.get("optional-dependencies", {}).items():
            want["project"]["optional-dependencies"][k] = v
        if new != want:
            fail(label, f"the patched data differs from the original with the expected values:\n"
                        f"  got  {new!r}\n  want {want!r}")

        # only the lines holding edits changed
        allowed = edited_lines(old_text, {
            ("project", "name"), ("project", "dependencies"), ("project.optional-dependencies", "*"),
            ("tool.maturin", "features"), ("tool.maturin", "module-name"),
            ("tool.maturin", "python-source"), ("tool.maturin", "manifest-path")})
        a, b = old_text.splitlines(True), new_text.splitlines(True)
        tokens = [expect["name"], "[tool.maturin]", "features =", "module-name =", "python-source =",
                  "manifest-path =", "dependencies ="]
        tokens += [f'"{x}"' for x in spec["feature"] + spec["dependency"]]
        tokens += [f"'{x}'" for x in spec["feature"] + spec["dependency"]]
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if op == "equal":
                continue
            for i in range(i1, i2):
                last_gaining_newline = i == len(a) - 1 and not a[i].endswith("\n") and a[i] + "\n" in b[j1:j2]
                if i not in allowed and not last_gaining_newline:
                    fail(label, f"line {i + 1} changed, and it holds no edit: {a[i]!r}")
            for j in range(j1, j2):
                if b[j].strip() and b[j] not in a[i1:i2] and not any(t in b[j] for t in tokens):
                    fail(label, f"new line {j + 1} carries no new value: {b[j]!r}")

for f in failures:
    print("FAIL", f)
print(f"patches: {ngolden} golden cases, {ncorpus} corpus cases, {len(failures)} failures")
if failures or not ncorpus:
    sys.exit(1)
PY
finish
