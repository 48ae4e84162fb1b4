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

# tagcheck CI TAG: runs that CI's script in the repository; output in $tmp/out
tagcheck() {
	(cd "$r" && WM_PYPROJECT=pyproject.toml WM_MANIFEST=Cargo.toml WM_TAG=$2 "$py" "$tmp/check-$1.py") >"$tmp/out" 2>&1
}

while read -r cargo_version want; do
	cargo "$cargo_version"
	if [ "$want" = refused ]; then
		for ci in github gitlab; do
			if tagcheck "$ci" "v$cargo_version"; then
				fail "$ci: Cargo $cargo_version, which maturin refuses, passed the tag check"
			fi
			grep -qF "::error::version $cargo_version is not a PEP 440 version" "$tmp/out" ||
				fail "$ci: Cargo $cargo_version: $(cat "$tmp/out")"
		done
		if "$WM" -C "$r" plan --offline >"$tmp/out" 2>&1; then
			fail "plan: Cargo $cargo_version, which maturin refuses, is planned: $(cat "$tmp/out")"
		fi
		continue
	fi
	"$WM" -C "$r" plan --offline >"$tmp/out" 2>&1 || fail "plan: Cargo $cargo_version: $(cat "$tmp/out")"
	got=$(sed -n '1s/^version //p' "$tmp/out")
	[ "$got" = "$want" ] || fail "plan: Cargo $cargo_version is '$got', maturin publishes '$want'"
	grep -qF "vt-$want.tar.gz" "$tmp/out" || fail "plan: no vt-$want.tar.gz for Cargo $cargo_version"
	for ci in github gitlab; do
		for tag in "v$want" "$want" "v$cargo_version"; do
			tagcheck "$ci" "$tag" || fail "$ci: tag $tag, Cargo $cargo_version: $(cat "$tmp/out")"
			grep -qx "publishing version $want" "$tmp/out" ||
				fail "$ci: tag $tag, Cargo $cargo_version: $(cat "$tmp/out"), not 'publishing version $want'"
		done
		if tagcheck "$ci" "v$want.post9"; then
			fail "$ci: the tag v$want.post9 passed for Cargo $cargo_version"
		fi
		grep -qF "::error::the tag v$want.post9 does not match the project version $want" "$tmp/out" ||
			fail "$ci: a wrong tag for Cargo $cargo_version: $(cat "$tmp/out")"
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

# A static [project].version is normalised too, and wins over the crate's.
cargo 0.1.0
sed -i 's/^dynamic = \["version"\]$/version = "2.0.0-rc.3"/' "$r/pyproject.toml"
tagcheck github v2.0.0rc3 || fail "a static version 2.0.0-rc.3: $(cat "$tmp/out")"
"$WM" -C "$r" plan --offline >"$tmp/out" 2>&1 || fail "plan with a static version: $(cat "$tmp/out")"
grep -qx "version 2.0.0rc3" "$tmp/out" || fail "plan with a static version: $(cat "$tmp/out")"
finish
