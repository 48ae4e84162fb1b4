#!/usr/bin/env bash
# t-pin.sh — `wheelmatrix pin` against a forge of real bare repositories served by git http-backend
# (tests/servers/forge-server.py), one per action of templates/actions.yaml: each action the workflow uses
# is pinned to the commit git rev-parse gives for its tag, as `owner/name: <sha>  # <tag>`; every
# other byte of the matrix file stays (comments, a quoted value's neighbours, keys after the table,
# CRLF line ends); the edited file lists the same jobs and generates the same workflow but for
# `uses: owner/name@<sha> # <tag>`, which zizmor at its defaults, with no configuration, finds no
# unpinned-uses in and actionlint passes; a table in flow style stays in flow style; --check exits 1
# until pinned, --update and --major move the pins to the newest release of the major, and of all
# (numbers compared as numbers, pre-releases never chosen); a table written with an alias, a merge
# key or a comment pin would lose is refused at its position, an unknown repository fails with exit
# 3, and in each refusal the file is left as it was.
# heavy: zizmor and actionlint on the pinned workflow
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/forge.sh
source "$ROOT/tests/kit/forge.sh"
need git "apt-get install git"
lint=$ROOT/tests/helpers/wmlint.py
why=$("$py" "$lint" --missing) || fatal "$why"

# a repository for every action of the catalogue, with the tag (or branch) its default reference names
forge=$tmp/forge
"$py" -c 'import sys, yaml; [print(a, r) for a, r in yaml.safe_load(open(sys.argv[1]))["actions"].items()]' \
	"$ROOT/templates/actions.yaml" >"$tmp/actions"
while read -r action ref; do
	case $ref in
	release/v*) forge_action "$forge" "$action" "${ref#release/v}.12.4" "${ref#release/v}.13.0" --branch "$ref" ;;
	v*.*) forge_action "$forge" "$action" "${ref#v}" ;;
	v*) forge_action "$forge" "$action" "${ref#v}.0.0" "${ref#v}.1.0" "$((${ref#v} + 1)).0.0" ;;
	*) fatal "templates/actions.yaml: $action's reference '$ref' is neither vN, vN.N... nor release/vN" ;;
	esac
done <"$tmp/actions"
# actions/checkout: majors past 9 (ordered as numbers, not text) and a pre-release, never chosen
forge_action "$forge" actions/checkout 7.0.0 7.1.0 8.0.0 9.0.0 10.0.0
git --git-dir "$forge/actions/checkout.git" tag v11.0.0-rc.1 v10.0.0
git --git-dir "$forge/actions/checkout.git" tag v10.0.0.beta v10.0.0
start_forge "$forge"
commit() {  # commit ACTION TAG: the commit TAG names in ACTION's repository, as git reads it
	git --git-dir "$forge/$1.git" rev-parse "$2^{commit}"
}

repo=$tmp/repo
demo_project "$repo"
scratch_repo "$repo"
cat >"$repo/wheelmatrix.yaml" <<'YAML'
# the demo's matrix: comments, quotes and the keys after the actions table stay as they are
wheelmatrix: 1
python:
  versions: ["3.12"]   # one version
platforms: [linux-x86_64]
backends:
  cuda: {features: [cublas]}
  cpu: {default: true}
actions:
  # the checkout first
  actions/checkout: "v7"   # to be pinned
  PyO3/maturin-action: v1
ci:
  github: {path: .github/workflows/wheels.yml}
YAML
cp "$repo/wheelmatrix.yaml" "$tmp/before.yaml"
wm -C "$repo" list --format json
expect_status 0 "list before pin"
cp "$tmp/out" "$tmp/list-before"
wm -C "$repo" generate --stdout github
expect_status 0 "generate before pin"
cp "$tmp/out" "$tmp/workflow-before"
grep -o 'uses: [^ ]*' "$tmp/workflow-before" | sort -u | sed 's/uses: //' >"$tmp/used"

wm -C "$repo" pin --github "$FORGE" --check
expect_status 1 "pin --check of an unpinned matrix"
cmp -s "$tmp/before.yaml" "$repo/wheelmatrix.yaml" || fail "pin --check changed the matrix file"

wm -C "$repo" pin --github "$FORGE"
expect_status 0 "pin"
# what the file must be: each value replaced, its comment the tag; the others added at the table's end
{
	sed -n '1,10p' "$tmp/before.yaml"
	echo "  actions/checkout: $(commit actions/checkout v7)  # v7"
	echo "  PyO3/maturin-action: $(commit PyO3/maturin-action v1)  # v1"
	# in the catalogue's order
	while read -r action ref; do
		case $action in actions/checkout | PyO3/maturin-action) continue ;; esac
		grep -qxF "$action@$ref" "$tmp/used" || continue
		echo "  $action: $(commit "$action" "$ref")  # $ref"
	done <"$tmp/actions"
	sed -n '13,$p' "$tmp/before.yaml"
} >"$tmp/want.yaml"
expect_same "$tmp/want.yaml" "$repo/wheelmatrix.yaml" "the pinned matrix file"
[[ $(wc -l <"$tmp/used") -ge 6 ]] || fail "the workflow uses only $(wc -l <"$tmp/used") actions: $(cat "$tmp/used")"

wm -C "$repo" list --format json
expect_same "$tmp/list-before" "$tmp/out" "list after pin"
wm -C "$repo" generate --stdout github
expect_status 0 "generate after pin"
cp "$tmp/out" "$tmp/workflow-after"
# the same workflow, each `uses:` on the commit with its tag after it (the header's digest of the body aside)
while IFS=@ read -r action ref; do
	printf 's|uses: %s@%s$|uses: %s@%s # %s|\n' "$action" "$ref" "$action" "$(commit "$action" "$ref")" "$ref"
done <"$tmp/used" >"$tmp/subst.sed"
sed -f "$tmp/subst.sed" "$tmp/workflow-before" | grep -v '^# wheelmatrix-digest: ' >"$tmp/workflow-want"
grep -v '^# wheelmatrix-digest: ' "$tmp/workflow-after" >"$tmp/workflow-got"
expect_same "$tmp/workflow-want" "$tmp/workflow-got" "the workflow after pin"

wm -C "$repo" pin --github "$FORGE" --check
expect_status 0 "pin --check right after pin"
wm -C "$repo" generate
expect_status 0 "generate"
"$py" - "$ROOT/tests/helpers" "$repo/.github/workflows/wheels.yml" <<'PY' || fail "zizmor or actionlint on the pinned workflow (above)"
import sys, yaml
sys.path.insert(0, sys.argv[1])
import wmlint
path = sys.argv[2]
bad = 0
# zizmor at its defaults: its regular persona, no configuration at all
found = wmlint.zizmor(path, persona="regular", config=None)
unpinned = [f for f in found if f.get("ident") == "unpinned-uses"]
if unpinned or not wmlint.uses_refs(yaml.safe_load(open(path))):
    print("zizmor unpinned-uses:", [f.get("desc") for f in unpinned]); bad = 1
found = wmlint.actionlint(path)
if found:
    print("actionlint:", found); bad = 1
sys.exit(bad)
PY
"$py" "$lint" "$repo/.github/workflows/wheels.yml" >"$tmp/lint" 2>&1 || { fail "the pinned workflow has findings:"; show "$tmp/lint"; }

# a commit that is not its tag's: --check says so; pin puts it back
sed -i "s/^  actions\/checkout: [0-9a-f]*/  actions\/checkout: $(printf '%040d' 0)/" "$repo/wheelmatrix.yaml"
wm -C "$repo" pin --github "$FORGE" --check
expect_status 1 "pin --check of a commit that is not its tag's"
grep -q "^actions/checkout .*0000000000 # v7 -> $(commit actions/checkout v7) # v7 (would change)$" "$tmp/out" ||
	{ fail "pin --check does not name the wrong pin"; show "$tmp/out"; }
wm -C "$repo" pin --github "$FORGE"
expect_status 0 "pin of a wrong commit"
expect_same "$tmp/want.yaml" "$repo/wheelmatrix.yaml" "the matrix file pinned again"

# --update: the newest release of each major; --major: the newest release
wm -C "$repo" pin --github "$FORGE" --update
expect_status 0 "pin --update"
grep -q "^  actions/checkout: $(commit actions/checkout v7.1.0)  # v7.1.0$" "$repo/wheelmatrix.yaml" ||
	fail "pin --update did not move actions/checkout to v7.1.0"
grep -q "^  pypa/gh-action-pypi-publish: $(commit pypa/gh-action-pypi-publish v1.13.0)  # v1.13.0$" \
	"$repo/wheelmatrix.yaml" || fail "pin --update did not move the release/v1 branch to v1.13.0"
wm -C "$repo" pin --github "$FORGE" --major
expect_status 0 "pin --major"
grep -q "^  actions/checkout: $(commit actions/checkout v10.0.0)  # v10.0.0$" "$repo/wheelmatrix.yaml" ||
	fail "pin --major did not move actions/checkout to v10.0.0"
wm -C "$repo" pin --github "$FORGE" --update --major
expect_status 2 "pin --update --major"

# refusals: the file as it was, the position named
refuse() {  # refuse NAME WANT-STDERR: pin of $tmp/r/wheelmatrix.yaml exits 2 with WANT-STDERR, the file unchanged
	cp "$tmp/r/wheelmatrix.yaml" "$tmp/r-before"
	wm -C "$tmp/r" pin --github "$FORGE"
	expect_status 2 "$1"
	[[ $(head -1 "$tmp/err") == "$2" ]] || { fail "$1: stderr"; show "$tmp/err"; }
	cmp -s "$tmp/r-before" "$tmp/r/wheelmatrix.yaml" || fail "$1: the file was changed"
}
demo_project "$tmp/r"
cat >>"$tmp/r/wheelmatrix.yaml" <<'YAML'
project: {name: demo, module: demo}
actions: {actions/checkout: v7,
  # a comment of the table's own
  PyO3/maturin-action: v1}
YAML
refuse "a flow table with a comment inside" "wheelmatrix.yaml:11:10: error: the actions table in flow style has a comment pin would lose (one not after an entry): move it out of the table"
demo_project "$tmp/r"
cat >>"$tmp/r/wheelmatrix.yaml" <<'YAML'
project: {name: demo, module: &ref v7}
actions:
  actions/checkout: *ref
YAML
refuse "an alias" "wheelmatrix.yaml:12:3: error: an entry of the actions table comes from an alias or a merge key ('<<'): pin cannot edit it in place; write it out"
demo_project "$tmp/r"
cat >>"$tmp/r/wheelmatrix.yaml" <<'YAML'
project: &p {name: demo}
actions:
  <<: {actions/checkout: v7}
  PyO3/maturin-action: v1
YAML
refuse "a merge key" "wheelmatrix.yaml:12:8: error: an entry of the actions table comes from an alias or a merge key ('<<'): pin cannot edit it in place; write it out"

# a table in flow style stays in flow style, one entry a line with its tag; pinned again, the same
demo_project "$tmp/f"
cat >>"$tmp/f/wheelmatrix.yaml" <<'YAML'
project: {name: demo}
actions: {actions/checkout: "v7", PyO3/maturin-action: v1}  # the table's own comment
# the end
YAML
wm -C "$tmp/f" list --format json
cp "$tmp/out" "$tmp/f-list"
wm -C "$tmp/f" pin --github "$FORGE"
expect_status 0 "pin of a flow table"
"$py" - "$tmp/f/wheelmatrix.yaml" "$tmp/actions" "$tmp/used" "$forge" <<'PY' || fail "the flow table (above)"
import subprocess, sys
text = open(sys.argv[1]).read()
catalogue = [l.split() for l in open(sys.argv[2])]
used = {l.strip() for l in open(sys.argv[3])}
def commit(action, ref):
    return subprocess.run(["git", "--git-dir", "%s/%s.git" % (sys.argv[4], action), "rev-parse", ref + "^{commit}"],
                          capture_output=True, text=True, check=True).stdout.strip()
lines = ["actions: {actions/checkout: %s,  # v7" % commit("actions/checkout", "v7"),
         "  PyO3/maturin-action: %s,  # v1" % commit("PyO3/maturin-action", "v1")]
lines += ["  %s: %s,  # %s" % (a, commit(a, r), r) for a, r in catalogue
          if "%s@%s" % (a, r) in used and a not in ("actions/checkout", "PyO3/maturin-action")]
lines += ["  }  # the table's own comment", "# the end"]
head = text.split("actions: {", 1)[0]
want = head + "\n".join(lines) + "\n"
if text != want:
    print("got:\n" + text + "\nwant:\n" + want)
    sys.exit(1)
PY
wm -C "$tmp/f" list --format json
expect_same "$tmp/f-list" "$tmp/out" "list after pinning a flow table"
cp "$tmp/f/wheelmatrix.yaml" "$tmp/f-pinned"
wm -C "$tmp/f" pin --github "$FORGE" --check
expect_status 0 "pin --check of a pinned flow table"
wm -C "$tmp/f" pin --github "$FORGE" --update
expect_status 0 "pin --update of a pinned flow table"
grep -q "^actions: {actions/checkout: $(commit actions/checkout v7.1.0),  # v7.1.0$" "$tmp/f/wheelmatrix.yaml" ||
	{ fail "pin --update of the flow table"; show "$tmp/f/wheelmatrix.yaml"; }
[[ $(grep -c ',  # v' "$tmp/f/wheelmatrix.yaml") == $(grep -c ',  # ' "$tmp/f-pinned") ]] ||
	fail "pin --update changed the flow table's number of entries"

# no actions table: one is added at the end, and CRLF line ends stay CRLF
demo_project "$tmp/c"
printf 'project: {name: demo}   # no newline at the end' >>"$tmp/c/wheelmatrix.yaml"
sed -i 's/$/\r/' "$tmp/c/wheelmatrix.yaml"
truncate -s -1 "$tmp/c/wheelmatrix.yaml"
cp "$tmp/c/wheelmatrix.yaml" "$tmp/c-before"
wm -C "$tmp/c" pin --github "$FORGE"
expect_status 0 "pin of a CRLF file without a table"
"$py" - "$tmp/c-before" "$tmp/c/wheelmatrix.yaml" <<'PY' || fail "the CRLF file (above)"
import sys
before, after = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
bad = 0
if not after.startswith(before + b"\r\nactions:\r\n"):
    print("the file does not go on with its text, then a table:", after[len(before) - 20:len(before) + 30]); bad = 1
if after.replace(b"\r\n", b"").count(b"\n") or not after.endswith(b"\r\n"):
    print("a line not ended by CRLF"); bad = 1
lines = after[len(before) + 2:].split(b"\r\n")
if not all(l.startswith(b"  ") and b"  # " in l for l in lines[1:-1]) or len(lines) < 5:
    print("the table's lines:", lines); bad = 1
sys.exit(bad)
PY
wm -C "$tmp/c" list
expect_status 0 "list of the pinned CRLF file"

# a repository the forge does not have: exit 3, nothing written
rm -rf "$forge/actions/attest.git"
cp "$repo/wheelmatrix.yaml" "$tmp/r-before"
wm -C "$repo" pin --github "$FORGE" --update
expect_status 3 "pin with a repository missing"
expect_err "error: actions/attest: $FORGE/actions/attest.git/info/refs: HTTP 404: no such repository on the forge" "the missing repository"
cmp -s "$tmp/r-before" "$repo/wheelmatrix.yaml" || fail "a failed pin changed the file"
finish
