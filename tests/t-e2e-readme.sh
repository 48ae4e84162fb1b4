#!/bin/bash
# t-e2e-readme.sh — README.md's local build of the example's four wheels, run as written: each
# "$ " line of the console block that patches cuda runs in one shell started in the repository
# (with `wheelmatrix` the built binary, maturin the pinned one, and the README's /tmp this test's
# scratch directory), and must succeed and print on its standard output what the README shows
# under it. The platform tag manylinux_X_Y follows the machine's glibc and is compared as such.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/steps"
ln -s "$WM" "$tmp/bin/wheelmatrix"
export PATH=$tmp/bin:$PATH
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
"$py" - "$ROOT/README.md" "$tmp/steps" <<'PY'
import os, re, sys
text = open(sys.argv[1]).read()
block = next(body for lang, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S)
             if "\n$ wheelmatrix patch cuda " in "\n" + body)
steps = []
for line in block.splitlines():
    if line.startswith("$ "):
        steps.append([line[2:], []])
    else:
        steps[-1][1].append(line)
for i, (command, output) in enumerate(steps):
    with open(os.path.join(sys.argv[2], "%02d.cmd" % i), "w") as f:
        f.write(command)
    with open(os.path.join(sys.argv[2], "%02d.want" % i), "w") as f:
        f.write("".join(line + "\n" for line in output))
PY
tags() { sed -E 's/manylinux_[0-9]+_[0-9]+_/manylinux_X_Y_/g' "$1"; }
cd "$ROOT"
for c in "$tmp"/steps/*.cmd; do
	command=$(<"$c")
	command=${command//\/tmp\//$tmp/}
	got=${c%.cmd}.got
	if ! eval "$command" >"$got" 2>"$tmp/stderr"; then
		echo "FAIL: the README's command failed: $(<"$c")"
		tail -n 30 "$tmp/stderr"
		exit 1
	fi
	if ! diff -u --label "README.md" --label "$(<"$c")" <(tags "${c%.cmd}.want") <(tags "$got"); then
		echo "FAIL: the README's command printed something else: $(<"$c")"
		exit 1
	fi
done
steps=("$tmp"/steps/*.cmd)
[ "${#steps[@]}" -ge 8 ] || { echo "FAIL: the README's block has too few commands"; exit 1; }
