#!/bin/bash
# t-e2e-init-find.sh — the project init finds is the one maturin builds: a uv workspace's root
# (no [build-system]) over a virtual Cargo workspace, the bindings in crates/ws-python (the
# workspace fixture's project, tests/fixtures/workspace, moved there), whose workflow says
# working-directory: crates/ws-python.  The real maturin (tests/tools) refuses to build at the
# root, where init used to point the generated CI; it builds in the directory the generated
# workflow runs maturin-action in, and the wheel imports from outside the checkout.
. "$ROOT/tests/kit/lib.sh"
# each build below is checked where it happens
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

fx=$ROOT/tests/fixtures/workspace
r=$tmp/repo
mkdir -p "$r/crates" "$r/.github/workflows"
cp -r "$fx/python" "$r/crates/ws-python"
cp "$fx/Cargo.lock" "$r/"
sed 's|members = \["python"\]|members = ["crates/ws-python"]|' "$fx/Cargo.toml" >"$r/Cargo.toml"
grep -q 'crates/ws-python' "$r/Cargo.toml" || fail "the fixture's workspace manifest changed: $(cat "$fx/Cargo.toml")"
printf '[project]\nname = "ws-workspace"\nversion = "0"\nrequires-python = ">=3.9"\n\n[tool.uv.workspace]\nmembers = ["crates/ws-python"]\n' >"$r/pyproject.toml"
printf 'on: push\njobs:\n  linux:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: PyO3/maturin-action@v1\n        with:\n          working-directory: crates/ws-python\n          args: --release --out dist\n' \
	>"$r/.github/workflows/CI.yml"
scratch_repo "$r"
commit_all "$r"

expect_run 0 "$WM" -C "$r" init --offline
expect_run 0 "$WM" -C "$r" generate
# where the generated workflow runs maturin for the Linux x86_64 CPU wheels
dir=$("$py" -c 'import sys, yaml
gh = yaml.safe_load(open(sys.argv[1]))
dirs = {s["with"].get("working-directory", ".") for name, job in gh["jobs"].items() if name.startswith("build-")
        for s in job["steps"] if s.get("uses", "").startswith("PyO3/maturin-action@")}
print(*sorted(dirs))' "$r/.github/workflows/wheels.yml")
[[ $dir == crates/ws-python ]] || fail "the generated workflow runs maturin in '$dir'"

# at the root, maturin refuses (the uv workspace's pyproject.toml has no [build-system])
(cd "$r" && maturin build --release --locked --out "$tmp/root-dist" -i "$tools/bin/python" --auditwheel skip) >"$tmp/root.log" 2>&1 &&
	fail "maturin built at the root of a uv workspace: $(tail -5 "$tmp/root.log")"
grep -q "build-system" "$tmp/root.log" || { fail "maturin failed at the root for another reason"; show "$tmp/root.log"; }
# where the generated workflow runs it, maturin builds the project's wheel, which imports
(cd "$r/$dir" && maturin build --release --locked --out "$tmp/dist" -i "$tools/bin/python" --auditwheel skip) >"$tmp/build.log" 2>&1 ||
	{ fail "maturin build in $dir failed"; show "$tmp/build.log"; }
wheel=$(ls "$tmp/dist"/ws_rs-1.2.0-*.whl 2>/dev/null)
[[ -n $wheel ]] || fail "no ws_rs-1.2.0 wheel: $(ls "$tmp/dist" 2>&1)"
{ "$tools/bin/python" -m venv "$tmp/venv" && "$tmp/venv/bin/python" -m pip install -q --no-index "$wheel"; } >"$tmp/pip.log" 2>&1 ||
	{ fail "the wheel does not install"; show "$tmp/pip.log"; }
(cd "$tmp" && "$tmp/venv/bin/python" -I -c 'import ws_rs') || fail "ws_rs does not import from the wheel"
finish
