"""variant-check.py — checks wheel variants (PEP 825) and their index metadata as variantlib wrote them.

usage: PYTHON variant-check.py EXPECTED.json LABEL=PLAIN.whl... -- FILE...

PYTHON has variantlib.  EXPECTED.json gives what the files must say:
  {"default-priorities": {...}, "providers": {...}, "variants": {LABEL: PROPERTIES, ...}}
LABEL=PLAIN.whl names the wheel the variant LABEL was made from (a build before make-variant);
FILE... are variant wheels (NAME-VERSION-...-LABEL.whl) and NAME-VERSION-variants.json files.
Checked, for a wheel: its name against PEP 825's grammar
  {distribution}-{version}(-{build tag})?-{python tag}-{abi tag}-{platform tag}(-{variant label})?.whl
(the label of 0-9, a-z, '_' and '.', the Python tag not starting with a digit), with a label that
EXPECTED lists; its one *.dist-info/variant.json read by variantlib's own validator
(VariantDistInfo), with the schema URL variantlib 0.2.2 writes, EXPECTED's priorities and providers,
and its label alone with EXPECTED's properties; RECORD's line for variant.json (sha256 and
size); every other member the same bytes as in the wheel it was made from, whose name is its
own without the label.  For a variants.json: variantlib's validator (VariantsJson) and
exactly EXPECTED's content.  Prints the problems and exits 1 when there is any.
"""
import base64, hashlib, json, os, re, sys, zipfile

from variantlib.constants import VARIANT_INFO_SCHEMA_URL
from variantlib.variant_dist_info import VariantDistInfo
from variantlib.variants_json import VariantsJson

SCHEMA = "https://variants-schema.wheelnext.dev/v0.2.0.json"
WHEEL = re.compile(r"(?P<name>[^\s-]+?)-(?P<version>[^\s-]+?)(?:-(?P<build>\d[^\s-]*?))?"
                   r"-(?P<python>[^\s\d-][^\s-]*?)-(?P<abi>[^\s-]+?)-(?P<platform>[^\s-]+?)"
                   r"(?:-(?P<label>[0-9a-z_.]+))?\.whl")
problems = []


def members(path):
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def check_wheel(path, expected, plain):
    name = os.path.basename(path)
    m = WHEEL.fullmatch(name)
    if not m or not m.group("label"):
        problems.append("%s: not a variant wheel's name (PEP 825)" % name)
        return
    label = m.group("label")
    if label not in expected["variants"]:
        problems.append("%s: label %r, not one of %s" % (name, label, sorted(expected["variants"])))
        return
    files = members(path)
    found = [f for f in files if re.fullmatch(r"[^/]+\.dist-info/variant\.json", f)]
    if len(found) != 1:
        problems.append("%s: %d .dist-info/variant.json files, not one" % (name, len(found)))
        return
    data = files[found[0]]
    try:
        VariantDistInfo(data, label)
    except Exception as e:  # variantlib's validator says why
        problems.append("%s: variantlib refuses its variant.json: %s" % (name, e))
    doc = json.loads(data)
    want = {"$schema": SCHEMA, "default-priorities": expected["default-priorities"],
            "providers": expected["providers"], "variants": {label: expected["variants"][label]}}
    if doc != want:
        problems.append("%s: variant.json is\n    %s\nnot\n    %s" % (name, json.dumps(doc, sort_keys=True), json.dumps(want, sort_keys=True)))
    record = [f for f in files if f.endswith(".dist-info/RECORD")]
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    line = "%s,sha256=%s,%d" % (found[0], digest, len(data))
    if len(record) != 1 or line not in files[record[0]].decode().splitlines():
        problems.append("%s: RECORD has no line %s" % (name, line))
    base = plain.get(label)
    if base is None or os.path.basename(base) != name[:-len(label) - 5] + ".whl":
        problems.append("%s: it was not made from %s" % (name, base))
        return
    rest = {f: d for f, d in files.items() if f not in found and f not in record}
    base = {f: d for f, d in members(base).items() if not f.endswith(".dist-info/RECORD")}
    if rest != base:
        problems.append("%s: its files other than variant.json and RECORD are not those of the wheel it was made from" % name)


def check_variants_json(path, expected):
    name = os.path.basename(path)
    doc = json.loads(open(path, "rb").read())
    try:
        VariantsJson(doc)
    except Exception as e:
        problems.append("%s: variantlib refuses it: %s" % (name, e))
    want = dict(expected, **{"$schema": SCHEMA})
    if doc != want:
        problems.append("%s: is\n    %s\nnot\n    %s" % (name, json.dumps(doc, sort_keys=True), json.dumps(want, sort_keys=True)))


def main(expected_path, plain, files):
    if VARIANT_INFO_SCHEMA_URL != SCHEMA:
        problems.append("variantlib writes the schema %s, not %s" % (VARIANT_INFO_SCHEMA_URL, SCHEMA))
    expected = json.load(open(expected_path))
    for path in files:
        if path.endswith("-variants.json"):
            check_variants_json(path, expected)
        else:
            check_wheel(path, expected, plain)


args = sys.argv[2:]
end = args.index("--")
main(sys.argv[1], dict(a.split("=", 1) for a in args[:end]), args[end + 1:])
print("\n".join(problems))
sys.exit(bool(problems))
