#!/usr/bin/env bash
# t-toml-test.sh — the TOML parser against the toml-test suite (TOML 1.0.0 cases), through tests/toml-decode.
#
# The suite is the Go module github.com/toml-lang/toml-test/v2, pinned in tests/tools/toml-test/
# (go.mod, go.sum) and installed by tests/tools/install-testdata.sh (`make testdata`, which
# `make check` runs): its runner, bin/toml-test, and its test files, toml-test/.  Without them the
# test fails and says how to install them.
#
# First the suite's own runner: `toml-test test -toml 1.0 -decoder toml-decode` runs every TOML
# 1.0.0 case, the TOML on the decoder's stdin, and compares the JSON as the suite means it.
# Then every case listed in files-toml-1.0.0 again, with what the runner does not check:
# - valid/X.toml must decode (exit 0) to JSON equal to valid/X.json, compared as toml-test's runner
#   compares: tagged leaves {"type", "value"} with the same type; floats by value (nan equal to nan,
#   whatever its sign); integers by value; date-times by the instant or local time they denote, after
#   the runner's normalisation (' ' and 't' read as 'T', 'z' as 'Z'), fractions to nanoseconds;
#   strings and booleans exactly;
# - invalid/X.toml must be rejected: exit 1 with a positioned "<stdin>:L:C: error: ..." message, and
#   no sanitizer report (AddressSanitizer also exits 1).
# ALLOWED below lists, by name and with the reason, the invalid cases we accept on purpose (none;
# at most 1% of them may ever be).  The decoder is the one built beside $WM
# (build/tests/toml-decode); `make check` builds it.  These cases run in a few batch processes
# (toml-decode FILE...), which keeps the sanitizer build fast, and a sample also through stdin,
# the way toml-test's own runner calls a decoder, which must give the same answers.
. "$ROOT/tests/kit/lib.sh"
testdata toml-test/files-toml-1.0.0 bin/toml-test
suite=$data/toml-test
need "$data/bin/toml-test" "run 'make testdata' (tests/tools/install-testdata.sh)"
decoder=$(dirname "$WM")/tests/toml-decode
[[ -x $decoder ]] || fatal "$decoder is not built: run 'make check'"

# The runner: a generous time per case (the sanitizer build is slow), no colour, every failure listed.
if ! NO_COLOR=1 "$data/bin/toml-test" test -toml 1.0 -timeout 30s -parallel 2 -decoder "$decoder" >"$tmp/runner.out" 2>&1; then
	cat "$tmp/runner.out"
	fatal "toml-test's runner rejects the decoder"
fi
if ! grep -q '^  valid tests: [1-9][0-9]* passed,  0 failed$' "$tmp/runner.out" ||
	! grep -q '^invalid tests: [1-9][0-9]* passed,  0 failed$' "$tmp/runner.out"; then
	cat "$tmp/runner.out"
	fatal "toml-test's runner did not report passing valid and invalid cases"
fi

python3 - "$decoder" "$suite" <<'PY' || fail "the toml-test cases (above)"
import concurrent.futures, json, os, re, subprocess, sys

decoder, suite = sys.argv[1:]

# Invalid cases that may be accepted, with why: none.
ALLOWED = {}

def run_stdin(case):
    """One case the way toml-test runs a decoder: the TOML on stdin."""
    with open(os.path.join(suite, case), "rb") as f:
        data = f.read()
    p = subprocess.run([decoder], input=data, capture_output=True, timeout=60)
    return case, p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

def run_batch(cases):
    """Many cases in one process (toml-decode FILE...: one JSON line each), as fast under the sanitizers.
    Returns the results and, when the process failed (a crash, a sanitizer report), why."""
    p = subprocess.run([decoder] + cases, cwd=suite, capture_output=True, timeout=600)
    results = []
    for case, line in zip(cases, p.stdout.decode("utf-8").splitlines()):
        r = json.loads(line)
        assert r["file"] == case
        out = json.dumps(r["output"]).encode() if r["exit"] == 0 else b""
        results.append((case, r["exit"], out, r.get("stderr", "")))
    problem = None
    if p.returncode != 0 or p.stderr or len(results) != len(cases):
        last = results[-1][0] if results else "the start"
        problem = (f"the decoder failed (exit {p.returncode}) after {len(results)} of {len(cases)} cases "
                   f"(last: {last}): {p.stderr.decode('utf-8', 'replace')[-3000:]}")
    return results, problem

def loads(text):
    try:
        return json.loads(text)
    except ValueError:
        return ValueError  # equal to no JSON document

def is_tagged(v):
    return isinstance(v, dict) and len(v) == 2 and "type" in v and "value" in v

DT = re.compile(r"(?:(\d{4})-(\d{2})-(\d{2}))?T?(?:(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?")

def days_from_civil(y, m, d):
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468

def datetime_key(kind, text):
    text = text.replace(" ", "T").replace("t", "T").replace("z", "Z")
    m = DT.fullmatch(text)
    if not m:
        return None
    y, mo, d, h, mi, s, frac, off = m.groups()
    has_date, has_time = y is not None, h is not None
    want = {"datetime": (True, True, True), "datetime-local": (True, True, False),
            "date-local": (True, False, False), "time-local": (False, True, False)}[kind]
    if (has_date, has_time, off is not None) != want:
        return None
    ns = int((frac or "").ljust(9, "0")[:9]) if has_time else 0
    days = days_from_civil(int(y), int(mo), int(d)) if has_date else 0
    secs = int(h) * 3600 + int(mi) * 60 + int(s) if has_time else 0
    if off and off != "Z":
        sign = -1 if off[0] == "-" else 1
        secs -= sign * (int(off[1:3]) * 3600 + int(off[4:6]) * 60)
    return (days * 86400 + secs, ns)

def same_leaf(want, have):
    kind = want["type"]
    if kind != have["type"]:
        return False
    w, h = want["value"], have["value"]
    if kind == "float":
        if w.lstrip("+-") == "nan" or h.lstrip("+-") == "nan":
            return w.lstrip("+-") == h.lstrip("+-")
        try:
            return float(w) == float(h)
        except ValueError:
            return False
    if kind == "integer":
        try:
            return int(w) == int(h)
        except ValueError:
            return False
    if kind in ("datetime", "datetime-local", "date-local", "time-local"):
        return datetime_key(kind, w) is not None and datetime_key(kind, w) == datetime_key(kind, h)
    return w == h

def diff(want, have, path="$"):
    """The first difference as a message, or None."""
    if is_tagged(want) or is_tagged(have):
        if not (is_tagged(want) and is_tagged(have)):
            return f"{path}: expected {json.dumps(want)}, got {json.dumps(have)}"
        return None if same_leaf(want, have) else f"{path}: expected {json.dumps(want)}, got {json.dumps(have)}"
    if isinstance(want, dict):
        if not isinstance(have, dict):
            return f"{path}: expected a table, got {json.dumps(have)[:80]}"
        if set(want) != set(have):
            return f"{path}: keys differ: expected {sorted(want)}, got {sorted(have)}"
        for k in want:
            d = diff(want[k], have[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(want, list):
        if not isinstance(have, list) or len(want) != len(have):
            return f"{path}: expected an array of {len(want)}, got {json.dumps(have)[:80]}"
        for i, (w, h) in enumerate(zip(want, have)):
            d = diff(w, h, f"{path}[{i}]")
            if d:
                return d
        return None
    return f"{path}: unexpected {json.dumps(want)}"

assert same_leaf({"type": "datetime", "value": "1987-07-05T17:45:00Z"},
                 {"type": "datetime", "value": "1987-07-05 17:45:00+00:00"})
assert not same_leaf({"type": "datetime", "value": "1987-07-05T17:45:00Z"},
                     {"type": "datetime", "value": "1987-07-05T17:45:00+01:00"})
assert same_leaf({"type": "float", "value": "nan"}, {"type": "float", "value": "-nan"})
assert same_leaf({"type": "float", "value": "1e3"}, {"type": "float", "value": "1000.0"})

with open(os.path.join(suite, "files-toml-1.0.0")) as f:
    listed = [l.strip() for l in f if l.strip()]
valid = [c for c in listed if c.startswith("valid/") and c.endswith(".toml")]
invalid = [c for c in listed if c.startswith("invalid/") and c.endswith(".toml")]
unknown = set(ALLOWED) - set(invalid)
assert not unknown, f"ALLOWED names cases that are not listed: {sorted(unknown)}"
assert len(ALLOWED) * 100 <= len(invalid), "ALLOWED holds more than 1% of the invalid cases"

failures = []
valid_ok = invalid_ok = allowed = 0
POSITIONED = re.compile(r"<stdin>:\d+:\d+: error: \S")
cases = valid + invalid
jobs = max(2, os.cpu_count() or 2)
chunks = [cases[i::jobs] for i in range(jobs)]
with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
    results = []
    for chunk, problem in pool.map(run_batch, chunks):
        results += chunk
        if problem:
            failures.append(problem)
    done = {r[0] for r in results}
    failures += [f"{case}: not run" for case in cases if case not in done]
    # the stdin interface gives the same answers: a sample of each kind through it
    sample = valid[::25] + invalid[::50]
    batch_of = {r[0]: r for r in results}
    for case, code, out, err in pool.map(run_stdin, sample):
        b = batch_of[case]
        if code != b[1] or (code == 0 and loads(out) != loads(b[2])) or (code != 0 and err != b[3]):
            failures.append(f"{case}: through stdin: exit {code}, {err.strip()[:200]}; in the batch: exit {b[1]}")
    for case, code, out, err in results:
        if case.startswith("valid/"):
            if code != 0:
                failures.append(f"{case}: rejected (exit {code}): {err.strip()[:300]}")
                continue
            with open(os.path.join(suite, case[:-5] + ".json"), encoding="utf-8") as f:
                want = json.load(f)
            have = loads(out)
            if have is ValueError:
                failures.append(f"{case}: the decoder's output is not JSON")
                continue
            d = diff(want, have)
            if d:
                failures.append(f"{case}: {d}")
            else:
                valid_ok += 1
        else:
            clean = "Sanitizer" not in err and "runtime error" not in err
            if code == 1 and POSITIONED.match(err) and clean:
                invalid_ok += 1
            elif code == 0 and case in ALLOWED:
                allowed += 1
            elif code == 0:
                failures.append(f"{case}: accepted")
            else:
                failures.append(f"{case}: exit {code}, stderr: {err.strip()[:300]}")

for f in failures:
    print("FAIL", f)
print(f"toml-test 1.0.0: valid {valid_ok}/{len(valid)}, invalid {invalid_ok}/{len(invalid)}"
      + (f" ({allowed} allowed)" if allowed else ""))
sys.exit(1 if failures else 0)
PY
finish
