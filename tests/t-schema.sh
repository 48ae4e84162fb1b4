#!/bin/bash
# t-schema.sh — docs/wheelmatrix.schema.json is what the loader's tables and the catalogs make, and check-jsonschema agrees with the loader on the files under tests/.
#
# The schema is written by build/tests/schema-write (lib/model/jsonschema.c, from the loader's
# tables of keys and the catalogs): the checked-in file must be exactly that (`make schema`
# rewrites it).  check-jsonschema (tests/tools/requirements.txt) then validates: every example
# matrix and every golden matrix the tool accepts must pass, every golden case below, whose error
# is one a schema states (a type, an unknown key, a value outside an enumeration or a grammar),
# must fail validation; the matrix `init` writes passes, and its first line names this version's
# schema as docs/schemastore-catalog.json (the JSON Schema Store's entry) lists it.
# heavy: check-jsonschema on every example and golden matrix
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/python-env.sh"
writer=${WM%/*}/tests/schema-write
need "$writer" "make check (builds build/tests/schema-write)"
cj=$("$ROOT/tests/tools/install.sh" --path)/bin/check-jsonschema
need "$cj" "make tools"
schema=$ROOT/docs/wheelmatrix.schema.json

# the checked-in schema is the generated one
expect_run 0 "$writer"
cp "$tmp/out" "$tmp/generated.json"
expect_same "$schema" "$tmp/generated.json" "docs/wheelmatrix.schema.json against schema-write (make schema rewrites it)"
expect_run 0 "$cj" --check-metaschema "$schema"

# the golden cases whose error is one of the schema's, by its check: each must fail validation
schema_level=(
	actions-hostile-refs dropped-errors empty-file exclude-bad-fields include-problems index-keys invalid-ids invalid-python key-lost-indent
	list-caret-columns missing-version platform-glob-nothing publish-github-release-bad
	publish-github-release-misspelt settings-errors top-level-list top-level-scalar unknown-key-backend unknown-key-platform
	unknown-key-project unknown-key-python unknown-key-rules unknown-key-sections unknown-key-setup
	toolkit-archs-errors unknown-key-toolkit unknown-key-top unknown-platform unsupported-version variants-errors version-not-number
	wrong-types wrong-types-nested yaml11-bools
)
valid=("$ROOT"/matrices/*.yaml)
for dir in "$ROOT"/tests/golden/*/; do
	[ -f "$dir/wheelmatrix.yaml" ] || continue
	if [ "$(cat "$dir/exit" 2>/dev/null || echo 0)" = 0 ]; then
		valid+=("$dir/wheelmatrix.yaml")
	fi
done
((${#valid[@]} > 10)) || fail "only ${#valid[@]} valid matrices found"
# one run of check-jsonschema over many files (it validates each on its own and names each file
# with its errors): its start-up and the schema's loading are most of a file's time
run "$cj" --schemafile "$schema" "${valid[@]}"
expect_status 0 "the matrices the tool accepts (check-jsonschema names those it does not, above)"
refused=()
for name in "${schema_level[@]}"; do
	f=$ROOT/tests/golden/$name/wheelmatrix.yaml
	[ "$(cat "${f%/*}/exit" 2>/dev/null)" = 2 ] || fail "golden case $name does not exit 2"
	refused+=("$f")
done
run "$cj" --schemafile "$schema" --output-format json "${refused[@]}"
expect_status 1 "the golden cases the schema refuses"
# each file has an error of the schema's, and none is a file check-jsonschema could not parse
"$py" - "$tmp/out" "${refused[@]}" <<'PY' || fail "check-jsonschema's verdicts on the golden cases the tool refuses by the schema (above)"
import json, os, sys
report = json.load(open(sys.argv[1]))
bad = 0
for f in sys.argv[2:]:
    name = os.path.basename(os.path.dirname(f))
    if any(e["filename"] == f for e in report["parse_errors"]):
        print("golden case %s: check-jsonschema fails, but not on the schema: %r" % (name, report["parse_errors"]))
        bad = 1
    elif not any(e["filename"] == f for e in report["errors"]):
        print("golden case %s validates, but the tool refuses it with an error the schema states" % name)
        bad = 1
sys.exit(bad)
PY

# init's first line names this version's schema in the JSON Schema Store, as the catalog entry
# prepared in docs/ lists it (never a path of the machine init ran on), and what init writes validates
mkdir -p "$tmp/p/src"
printf '[build-system]\nrequires = ["maturin>=1,<2"]\nbuild-backend = "maturin"\n\n[project]\nname = "demo"\n' \
	>"$tmp/p/pyproject.toml"
printf '[package]\nname = "demo"\nversion = "0.1.0"\n\n[lib]\ncrate-type = ["cdylib"]\n\n[features]\ncuda = []\nmetal = []\n' \
	>"$tmp/p/Cargo.toml"
wm -C "$tmp/p" init --offline
expect_status 0 "init"
first=$(head -n 1 "$tmp/p/wheelmatrix.yaml")
url=${first#"# yaml-language-server: \$schema="}
[ "$url" != "$first" ] || fail "init's first line is '$first', not the yaml-language-server schema line"
version=$("$WM" --version)
version=${version#wheelmatrix }
"$py" - "$ROOT/docs/schemastore-catalog.json" "$version" "$url" <<'PY' || fail "docs/schemastore-catalog.json and init's schema line disagree"
import json, sys
entry, version, url = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
problems = []
if entry.get("name") != "wheelmatrix" or not entry.get("description"):
    problems.append("the entry has no name 'wheelmatrix' and description")
if "wheelmatrix.yaml" not in entry.get("fileMatch", []):
    problems.append("fileMatch %r does not name wheelmatrix.yaml" % entry.get("fileMatch"))
if entry.get("versions", {}).get(version) != url:
    problems.append("versions[%r] is %r, init names %r" % (version, entry.get("versions", {}).get(version), url))
if entry.get("url") != url or not url.startswith("https://json.schemastore.org/wheelmatrix-%s.json" % version):
    problems.append("url %r: init names %r, this version's file in the store" % (entry.get("url"), url))
for p in problems:
    print("docs/schemastore-catalog.json: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY
run "$cj" --schemafile "$schema" "$tmp/p/wheelmatrix.yaml"
expect_status 0 "the matrix init writes"
finish
