#!/bin/bash
# t-workflow-hostile.sh — hostile workflows cost init and check bounded memory, say what is not
# read, and never crash (tests/helpers/hostile-workflows.py writes each case):
#
#   calls     called workflows 40 deep          actions   composite actions 40 deep
#   cycle     two workflows calling each other  includes  an include list as long as 1 MiB holds
#   jobs      4,096 include entries, each a job product   2^20 combinations (twenty lists of two)
#   json      2^20 combinations from fromJSON, JSON 100,000 deep in runs-on
#   keys      expressions as keys (GitHub reads them as text)
#   exprs     20,000 parentheses, 50,000 operands of ||, 5,000 nested calls, format() of 20,000 holes
#   aliases   a billion laughs                  nesting   collections 10,000 deep
#   nodes     250,000 nodes without an alias    budget    six workflows of 0.9 MiB (4 MiB are read)
#   many      300 workflows                     uses      a job using 400 local actions
#   steps     four workflows of 20,000 build steps each
#
# Each runs within 512 MiB of address space (the AddressSanitizer build: 1 GiB resident, see
# tests/kit/limited.sh); init exits 0 with the note that names the bound, at its place, and writes a
# matrix that loads, with no expression of the workflows in it; check, once generate wrote its
# workflow, exits 0 or 1.  A workflow init did not read whole is not one the generated workflow
# replaces: init says to keep it, and so does check.
# heavy: hostile workflows of many megabytes read within memory bounds
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/python-env.sh"
. "$ROOT/tests/kit/limited.sh"

# hostile CASE: a maturin project with the case's workflows; init, list, generate and check in it
hostile() {
	local case=$1 r=$tmp/$1
	mkdir -p "$r"
	printf '[build-system]\nrequires = ["maturin>=1.5,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "demo"\nversion = "1.0.0"\n' \
		>"$r/pyproject.toml"
	printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n' >"$r/Cargo.toml"
	"$py" "$ROOT/tests/helpers/hostile-workflows.py" "$r" "$case" || fatal "$case: the workflows were not written"
	scratch_repo "$r"
	commit_all "$r"
	limited 512 1024 -C "$r" init --offline
	expect_status 0 "$case: init"
	cp "$tmp/err" "$tmp/$case.init"
	[[ -f $r/wheelmatrix.yaml ]] || fail "$case: init wrote no matrix"
	# shellcheck disable=SC2016  # the characters of an expression, not an expansion
	grep -q '\${{' "$r/wheelmatrix.yaml" && fail "$case: an expression of the workflows reached the matrix: $(grep '\${{' "$r/wheelmatrix.yaml")"
	wm -C "$r" list
	expect_status 0 "$case: list loads the matrix init wrote"
	wm -q -C "$r" generate
	expect_status 0 "$case: generate"
	commit_all "$r" generated
	limited 512 1024 -C "$r" check
	[[ $status == 0 || $status == 1 ]] || fail "$case: check exits $status: $(head -c 2000 "$tmp/err")"
	cp "$tmp/err" "$tmp/$case.check"
}
# said CASE FILE TEXT: init's notes of the case have TEXT (a whole line)
said() {
	grep -qxF -- "$3" "$tmp/$1.$2" || fail "$1: $2 does not say '$3': $(head -c 3000 "$tmp/$1.$2")"
}
wf=.github/workflows

hostile calls
said calls init "$wf/c9.yml:4:11: note: $wf/c10.yml is more than 10 calls and actions deep: not read"

hostile cycle
said cycle init "$wf/b.yml:4:11: note: $wf/a.yml uses itself (through $wf/b.yml): not read again"
said cycle init "$wf/a.yml:4:11: note: $wf/b.yml uses itself (through $wf/a.yml): not read again"
keep="builds wheels and uploads them to an index on a tag push (pypa/gh-action-pypi-publish): init did not read all it runs (the notes above say what), so keep it until you know the matrix builds what it builds ('wheelmatrix check' reports the two publishers until then)"
said cycle init "$wf/a.yml: note: $keep"
grep -q "^$wf/a.yml:.*but part of this workflow is not read" "$tmp/cycle.check" ||
	fail "cycle: check does not keep a.yml: $(cat "$tmp/cycle.check")"
grep -q "git rm" "$tmp/cycle.check" && fail "cycle: check proposes removing a workflow init did not read whole"

hostile actions
said actions init "act/8/action.yml:6:13: note: act/9/action.yml is more than 10 calls and actions deep: not read"
said actions init "$wf/r.yml: note: $keep"

hostile includes
said includes init "$wf/r.yml:9:11: note: job b's strategy.matrix: more include entries than init reads: the first 4096 are read"

hostile jobs
said jobs init "$wf/r.yml:264:13: note: job b's strategy.matrix: more than 256 combinations (GitHub refuses such a matrix): the first 256 are read"

hostile product
said product init "$wf/r.yml:7:9: note: job b's strategy.matrix: more combinations than init reads (its lists alone make over 4096)"

hostile json
said json init "$wf/r.yml:6:15: note: job b's strategy.matrix: more combinations than init reads (its lists alone make over 4096)"

hostile keys
# the key `${{ matrix.k }}` is a variable of that name: env[matrix.k] (matrix has no k) is not it
said keys init "$wf/r.yml: note: drops the wheels of job b ($wf/r.yml:17): its target, which depends on env"

hostile exprs
said exprs init "$wf/r.yml: note: drops the wheels of job b ($wf/r.yml:7): its args, which depends on an expression nested deeper than init reads (32 levels)"

hostile aliases
said aliases init "$wf/r.yml:11:21: note: not read: aliases expand this document past 200000 nodes (an alias bomb?)"

hostile nesting
said nesting init "$wf/r.yml:5:74: note: not read: nesting deeper than 64 levels"

hostile nodes
grep -q "^$wf/r.yml:6:[0-9]*: note: not read: the document has more than 200000 nodes$" "$tmp/nodes.init" ||
	fail "nodes: init does not say why r.yml is not read: $(cat "$tmp/nodes.init")"

hostile budget
said budget init "$wf/w4.yml: note: not read: the workflows and actions read before it make 4 MiB, as much as init reads in all"
said budget init "$wf/w5.yml: note: not read: the workflows and actions read before it make 4 MiB, as much as init reads in all"

hostile many
said many init "wheelmatrix: note: more than 256 workflows: those after $wf/w255.yml are not read"

hostile uses
said uses init "wheelmatrix: note: the workflows and the local actions and workflows they use are more than 320 files: the rest are not read"
said uses init "$wf/r.yml: note: $keep"
grep -q "^$wf/r.yml:.*but part of this workflow is not read" "$tmp/uses.check" ||
	fail "uses: check does not keep r.yml: $(cat "$tmp/uses.check")"

hostile steps
said steps init "wheelmatrix: note: the workflows have more than 65536 steps in all: the rest are not read"
said steps init "wheelmatrix: note: the workflows build more than 4096 times in all (steps times combinations): the builds past those are not read"
finish
