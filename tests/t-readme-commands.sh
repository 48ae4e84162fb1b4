#!/bin/bash
# t-readme-commands.sh — every command README.md shows in a code block either runs in the test environment (here, or in the test named for it below, which runs it) or is marked as needing the first release on PyPI, whose install lines are never the first ones shown.
#
# A code block holds commands when its lines start with a command (wheelmatrix, make, pipx, ...) or,
# in a console block, with "$ "; a line of comment continues the one above it. Each command (its
# comment aside) is one of the table below: `here` runs it in this script (in a copy of the llm-rs
# fixture, its matrix from `wheelmatrix init` or its own), `t-NAME` is a test that runs it (this
# script checks that the test exists and holds the pattern given, its form of the command), and
# `release` is a command that needs wheelmatrix on PyPI, which the README must mark with "once the
# first release is on PyPI" in its comment. A command of the README not in the table, a table entry
# the README no longer shows, or a mark that disagrees, is a failure: a new command comes with the
# test that runs it.
. "$ROOT/tests/kit/lib.sh"

# command<TAB>where<TAB>pattern (for a test: an extended regular expression found in it)
cat >"$tmp/table" <<'EOF'
wheelmatrix init	here
wheelmatrix list	here
wheelmatrix generate	here
wheelmatrix check	here
wheelmatrix build cuda -- --release	t-build	build cuda --
wheelmatrix patch cuda	here
wheelmatrix plan 0.3.0	t-plan-nginx	plan 0\.3\.0
wheelmatrix outdated	t-outdated	"\$WM" .*outdated|run_outdated\(\)
wheelmatrix pin	t-pin	"\$WM" .* pin\b|wm .* pin\b
source <(wheelmatrix completion bash)	here
pipx install .	t-wheel-source	pipx install \.
uv tool install .	t-wheel-source	uv tool install \.
make install	t-wheel	make -s -C "\$ROOT" .*install
pipx install wheelmatrix	release
make demo	here
make check	Makefile	^check: 
wheelmatrix plan 0.3.0-alpha.1 --offline	t-readme	\$ wheelmatrix plan
cp -r tests/fixtures/llm-rs /tmp/llm-rs && cd /tmp/llm-rs	t-e2e-readme	patch cuda 
git init -q && git add -A && git commit -qm llm-rs	t-e2e-readme	patch cuda 
wheelmatrix patch cuda && maturin build --release --out dist && wheelmatrix patch --revert cuda	t-e2e-readme	patch cuda 
wheelmatrix patch opencl && maturin build --release --out dist && wheelmatrix patch --revert opencl	t-e2e-readme	patch cuda 
wheelmatrix patch metal && maturin build --release --out dist && wheelmatrix patch --revert metal	t-e2e-readme	patch cuda 
maturin build --release --out dist	t-e2e-readme	patch cuda 
git status --short --untracked-files=no	t-e2e-readme	patch cuda 
ls dist	t-e2e-readme	patch cuda 
python3 -m venv /tmp/venv && /tmp/venv/bin/pip install -q dist/llm_rs_cuda-0.2.15-*.whl	t-e2e-readme	patch cuda 
cd / && /tmp/venv/bin/python -c 'import llm_rs; print(llm_rs.backend(), "|", llm_rs.generate("hi"))'	t-e2e-readme	patch cuda 
pip uninstall llm-rs-cuda	t-e2e-meta	pip.* uninstall .*llm-rs-cuda
pip install "llm-rs[cuda]"	t-e2e-meta	install .*llm-rs\[cuda\]
EOF

# The README's commands: COMMAND<TAB>COMMENT<TAB>BLOCK, in order
python3 - "$ROOT/README.md" >"$tmp/commands" 2>"$tmp/parse" <<'PY' || { show "$tmp/parse"; fatal "README.md's code blocks (above)"; }
import re, sys
WORDS = ("wheelmatrix", "make", "pipx", "pip", "uv", "uvx", "source", "git", "cp", "cd", "python3", "maturin",
         "sudo", "ls")
text = open(sys.argv[1]).read()
problems = []
for n, (lang, body) in enumerate(re.findall(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)):
    lines = [l for l in body.split("\n") if l.strip()]
    if lang in ("yaml", "toml", "json") or not lines:
        continue
    console = any(l.startswith("$ ") for l in lines)
    if console:
        commands = [l[2:] for l in lines if l.startswith("$ ")]
    else:
        starts = [l.split()[0] in WORDS for l in lines if not l.startswith(" ")]
        if not any(starts):
            continue  # text (the layout), not commands
        if not all(starts):
            problems.append("block %d mixes commands and other lines: %r" % (n, lines[0]))
            continue
        commands = [l for l in lines if not l.lstrip().startswith("#")]
    for c in commands:
        command, _, comment = c.partition("  #")
        print("%s\t%s\t%d" % (command.strip(), comment.strip(), n))
if problems:
    sys.exit("\n".join(problems))
PY
[ -s "$tmp/commands" ] || fatal "no commands found in README.md"

# every command is in the table, and every table entry in the README
cut -f1 "$tmp/commands" | sort -u >"$tmp/shown"
cut -f1 "$tmp/table" | sort -u >"$tmp/known"
while IFS= read -r c; do
	fail "README.md shows '$c', which no test runs: run it in a test and name that test in tests/t-readme-commands.sh, or mark it as needing the first release"
done < <(comm -23 "$tmp/shown" "$tmp/known")
while IFS= read -r c; do
	fail "the table names '$c', which README.md no longer shows"
done < <(comm -13 "$tmp/shown" "$tmp/known")

# the marks: a command that needs the release says so, and no other does; the install section leads
# with what works from a clone
while IFS=$'\t' read -r command comment block; do
	where=$(awk -F'\t' -v c="$command" '$1 == c { print $2; exit }' "$tmp/table")
	if [ "$where" = release ]; then
		[[ $comment == *"once the first release is on PyPI"* ]] ||
			fail "'$command' needs the first release, and README.md does not say so: '# $comment'"
	elif [[ $comment == *"first release"* ]]; then
		fail "'$command' is marked as needing the release, and the table says it runs here ($where)"
	fi
	: "$block"
done <"$tmp/commands"
awk '/^## Installing$/ { on = 1; next } on && /^## / { exit } on' "$ROOT/README.md" >"$tmp/installing"
first=$(awk '/^```$/ { getline; print; exit }' "$tmp/installing")
[[ $first == "pipx install ."* ]] || fail "the install section does not lead with what works from a clone: '$first'"
grep -q "no release on PyPI yet" "$tmp/installing" || fail "the install section does not say there is no release on PyPI yet"

# the tests named run the commands: each exists and holds its pattern
while IFS=$'\t' read -r command where pattern; do
	case $where in
	here | release) continue ;;
	Makefile) file=$ROOT/Makefile ;;
	*) file=$ROOT/tests/$where.sh ;;
	esac
	[ -f "$file" ] || { fail "'$command' runs in $where, which does not exist"; continue; }
	grep -Eq -- "$pattern" "$file" || fail "'$command': $where does not run it (no /$pattern/ in ${file#"$ROOT"/})"
done <"$tmp/table"

# the commands that run here, as written, in the llm-rs fixture: init where it has no matrix, the
# others with its own; check after generate and a commit, patch in that repository
mkdir "$tmp/bin"
ln -s "$WM" "$tmp/bin/wheelmatrix"
export PATH="$tmp/bin:$PATH"
cp -R "$ROOT/tests/fixtures/llm-rs" "$tmp/init"
rm "$tmp/init/wheelmatrix.yaml"
run env -C "$tmp/init" wheelmatrix init
expect_status 0 "wheelmatrix init"
[ -f "$tmp/init/wheelmatrix.yaml" ] || fail "wheelmatrix init wrote no wheelmatrix.yaml"
p=$tmp/llm-rs
cp -R "$ROOT/tests/fixtures/llm-rs" "$p"
scratch_repo "$p"
commit_all "$p" llm-rs
for c in list generate; do
	run env -C "$p" wheelmatrix "$c"
	expect_status 0 "wheelmatrix $c"
done
commit_all "$p" generated
run env -C "$p" wheelmatrix check
expect_status 0 "wheelmatrix check"
run env -C "$p" wheelmatrix patch cuda
expect_status 0 "wheelmatrix patch cuda"
grep -q '^name = "llm-rs-cuda"$' "$p/pyproject.toml" || fail "wheelmatrix patch cuda did not patch pyproject.toml"
# shellcheck disable=SC2016  # bash runs it
run bash -c 'source <(wheelmatrix completion bash) && complete -p wheelmatrix'
expect_status 0 "source <(wheelmatrix completion bash)"
grep -q "wheelmatrix$" "$tmp/out" || fail "no completion of wheelmatrix was defined: $(cat "$tmp/out")"
# make demo, into a build directory of its own made from the repository's (make builds what is not
# up to date there): the jobs of the example, and its two CI files
[ -x "$ROOT/build/wheelmatrix" ] || fatal "no build/wheelmatrix to start make demo from: run make"
cp -a "$ROOT/build" "$tmp/b"
rm -rf "$tmp/b/demo"
run make -C "$ROOT" --no-print-directory B="$tmp/b" demo
expect_status 0 "make demo"
grep -q "^12 jobs$" "$tmp/out" || fail "make demo did not list the example's 12 jobs: $(tail -n 3 "$tmp/out")"
for f in .github/workflows/wheels.yml .gitlab-ci.yml; do
	[ -f "$tmp/b/demo/$f" ] || fail "make demo did not write the example's $f: $(ls -A "$tmp/b/demo" 2>&1)"
done
finish
