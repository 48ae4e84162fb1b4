#!/bin/bash
# t-check-version.sh — the publish jobs' tag check (templates/check-version.py, as `generate` embeds it in
# the GitHub workflow and the GitLab pipeline) turns Cargo's version into the PEP 440 version that
# maturin publishes and that `plan` looks for.  The table is what maturin 1.16.0 wrote as `Version:`
# in the PKG-INFO of `maturin sdist` for each Cargo version (versions it refused are marked so).
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
"$py" -c 'import tomllib, yaml' 2>/dev/null || fatal "$py lacks tomllib (3.11) or PyYAML"

r=$tmp/repo
mkdir -p "$r/src"
cat >"$r/pyproject.toml" <<'TOML'
[build-system]
requires = ["maturin>=1.5,<2.0"]
build-backend = "maturin"

[project]
name = "vt"
dynamic = ["version"]
TOML
printf 'wheelmatrix: 1\nplatforms: [linux-x86_64]\n' >"$r/wheelmatrix.yaml"
cargo() {
	printf '[package]\nname = "vt"\nversion = "%s"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n' "$1" >"$r/Cargo.toml"
}
cargo 1.0.0
"$WM" -q -C "$r" generate

# The script each CI runs: the publish step of the workflow, the before_script of the pipeline.
"$py" - "$r" "$tmp" <<'PY'
import os, sys, yaml
sys.path.insert(0, os.path.join(os.environ["ROOT"], "tests", "helpers"))
import ghinline
repo, out = sys.argv[1], sys.argv[2]
gh = ghinline.load(repo + "/.github/workflows/wheels.yml")  # the tag check's script, from its local action
runs = [s["run"] for j in gh["jobs"].values() for s in j.get("steps", []) if "WM_TAG" in s.get("run", "")]
gl = yaml.safe_load(open(repo + "/.gitlab-ci.yml"))
before = [line for j in gl.values() if isinstance(j, dict) for line in j.get("before_script", []) if "WM_TAG" in line]
for name, found in (("github", runs), ("gitlab", before)):
    if not found:
        sys.exit(f"no tag check in the {name} file")
    body = found[0].split("<<'PY'\n", 1)[1].rsplit("PY\n", 1)[0]
    open(f"{out}/check-{name}.py", "w").write(body)
PY
for ci in github gitlab; do
	cmp -s <(tail -n +2 "$ROOT/templates/check-version.py") "$tmp/check-$ci.py" ||
		fail "the $ci file does not carry templates/check-version.py"
done

# tagcheck CI TAG: runs that CI's script in the repository as a process of its own; output in $tmp/out
tagcheck() {
	(cd "$r" && WM_PYPROJECT=pyproject.toml WM_MANIFEST=Cargo.toml WM_TAG=$2 "$py" "$tmp/check-$1.py") >"$tmp/out" 2>&1
}

# Each Cargo version of the table in a repository of its own ($tmp/v/N), planned there; then every
# tag check of every version, both CIs' scripts, in one Python rather than 170 (each run a fresh
# __main__ in that repository with its environment, its output and exit status kept as the
# interpreter would end it); the runs of a script as a process of its own are tagcheck's, below.
mkdir "$tmp/v"
n=0
: >"$tmp/runs"
while read -r cargo_version want; do
	n=$((n + 1))
	d=$tmp/v/$n
	mkdir "$d"
	cp "$r/pyproject.toml" "$r/wheelmatrix.yaml" "$d/"
	printf '[package]\nname = "vt"\nversion = "%s"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n' "$cargo_version" >"$d/Cargo.toml"
	if [ "$want" = refused ]; then
		if "$WM" -C "$d" plan --offline >"$tmp/out" 2>&1; then
			fail "plan: Cargo $cargo_version, which maturin refuses, is planned: $(cat "$tmp/out")"
		fi
		tags=("v$cargo_version")
	else
		"$WM" -C "$d" plan --offline >"$tmp/out" 2>&1 || fail "plan: Cargo $cargo_version: $(cat "$tmp/out")"
		got=$(sed -n '1s/^version //p' "$tmp/out")
		[ "$got" = "$want" ] || fail "plan: Cargo $cargo_version is '$got', maturin publishes '$want'"
		grep -qF "vt-$want.tar.gz" "$tmp/out" || fail "plan: no vt-$want.tar.gz for Cargo $cargo_version"
		tags=("v$want" "$want" "v$cargo_version" "v$want.post9")
	fi
	for ci in github gitlab; do
		for tag in "${tags[@]}"; do
			printf '%s\t%s\t%s\t%s\t%s\n' "$d" "$tmp/check-$ci.py" "$tag" "$cargo_version" "$want" >>"$tmp/runs"
		done
	done
done <<'TABLE'
1.0.0 1.0.0
0.8.0-dev.0 0.8.0.dev0
0.8.0-dev 0.8.0.dev0
1.0.0-alpha.1 1.0.0a1
1.0.0-alpha 1.0.0a0
1.0.0-beta.2 1.0.0b2
1.0.0-rc.1 1.0.0rc1
1.0.0-rc1 1.0.0rc1
1.0.0-pre.1 1.0.0rc1
1.0.0-preview.1 1.0.0rc1
1.0.0-a.1 1.0.0a1
1.0.0-b3 1.0.0b3
1.0.0-c.1 1.0.0rc1
1.0.0-ALPHA.1 1.0.0a1
1.0.0-alpha.1+build.5 1.0.0a1+build.5
1.0.0+build.7 1.0.0+build.7
1.0.0-post.1 1.0.0.post1
1.0.0-1 1.0.0.post1
1.0.0-alpha.1.dev.2 1.0.0a1.dev2
1.0.0-rc.1-dev 1.0.0rc1.dev0
1.0.0-dev.0+abc 1.0.0.dev0+abc
1.0.0-x.7.z refused
1.0.0-alpha.beta refused
TABLE

# RUNS lines: DIR SCRIPT TAG CARGO-VERSION WANT; the results: DIR SCRIPT TAG STATUS OUTPUT (escaped)
"$py" - "$tmp/runs" <<'PY' >"$tmp/results" || fail "the tag checks did not run: $(cat "$tmp/results")"
import contextlib, io, os, runpy, sys, traceback
for line in open(sys.argv[1]):
    repo, script, tag, cargo, want = line.rstrip("\n").split("\t")
    os.chdir(repo)
    os.environ.update(WM_PYPROJECT="pyproject.toml", WM_MANIFEST="Cargo.toml", WM_TAG=tag)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            runpy.run_path(script, run_name="__main__")
            status = 0
        except SystemExit as e:  # as the interpreter ends a script: None 0, a number, else printed and 1
            status = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
            if not isinstance(e.code, (int, type(None))):
                print(e.code, file=sys.stderr)
        except Exception:
            traceback.print_exc()
            status = 1
    print("\t".join((script.rsplit("-", 1)[1][:-3], tag, cargo, want, str(status), out.getvalue().replace("\n", "\\n"))))
PY
while IFS=$'\t' read -r ci tag cargo_version want status out; do
	out=${out//\\n/$'\n'}
	if [ "$want" = refused ]; then
		[ "$status" = 0 ] && fail "$ci: Cargo $cargo_version, which maturin refuses, passed the tag check"
		grep -qF "::error::version $cargo_version is not a PEP 440 version" <<<"$out" ||
			fail "$ci: Cargo $cargo_version: $out"
	elif [ "$tag" = "v$want.post9" ]; then
		[ "$status" = 0 ] && fail "$ci: the tag v$want.post9 passed for Cargo $cargo_version"
		grep -qF "::error::the tag v$want.post9 does not match the project version $want" <<<"$out" ||
			fail "$ci: a wrong tag for Cargo $cargo_version: $out"
	else
		[ "$status" = 0 ] || fail "$ci: tag $tag, Cargo $cargo_version: $out"
		grep -qx "publishing version $want" <<<"$out" ||
			fail "$ci: tag $tag, Cargo $cargo_version: $out, not 'publishing version $want'"
	fi
done <"$tmp/results"
[ "$(wc -l <"$tmp/results")" = "$(wc -l <"$tmp/runs")" ] || fail "not every tag check reported: $(cat "$tmp/results")"

# A static [project].version is normalised too, and wins over the crate's.
cargo 0.1.0
sed -i 's/^dynamic = \["version"\]$/version = "2.0.0-rc.3"/' "$r/pyproject.toml"
for ci in github gitlab; do
	tagcheck "$ci" v2.0.0rc3 || fail "$ci: a static version 2.0.0-rc.3: $(cat "$tmp/out")"
	grep -qx "publishing version 2.0.0rc3" "$tmp/out" || fail "$ci: a static version 2.0.0-rc.3: $(cat "$tmp/out")"
	st=0
	tagcheck "$ci" v0.1.0 || st=$?
	[ "$st" = 1 ] || fail "$ci: the crate's version 0.1.0 as the tag, beside a static 2.0.0-rc.3: exit $st, not 1"
	grep -qx "::error::the tag v0.1.0 does not match the project version 2.0.0rc3" "$tmp/out" ||
		fail "$ci: the crate's version as the tag: $(cat "$tmp/out")"
done
"$WM" -C "$r" plan --offline >"$tmp/out" 2>&1 || fail "plan with a static version: $(cat "$tmp/out")"
grep -qx "version 2.0.0rc3" "$tmp/out" || fail "plan with a static version: $(cat "$tmp/out")"
finish
