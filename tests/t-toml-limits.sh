#!/bin/bash
# t-toml-limits.sh — a pyproject.toml or Cargo.toml of more than 65,536 values and comments is refused at
# the first one too many, as Python's tomllib counts the values before it, with file:line:column and
# exit 2, within a small address space: a 16 MiB pyproject.toml of one flat array took 2 GB, one of
# 1.1 million keys 845 MB, and the reader now keeps a few times its input plus at most some tens of
# MiB (bench/toml.sh measures it).
#
# The address-space limit (ulimit -v 256 MiB) is what the refusals are checked within: deterministic
# for a given binary and input, some four times what the reader needs for a 16 MiB file, and an
# eighth of what the previous reader took, which fails there with "out of memory". The
# AddressSanitizer build reserves terabytes of address space for its shadow, so there the limit is
# on the peak resident set instead (768 MiB: each arena allocation is a malloc of its own there).
# heavy: documents of many megabytes read within memory bounds
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/limited.sh"
msg="more than 65536 values and comments in one file, the limit of the TOML reader (a pyproject.toml or Cargo.toml holds some hundreds)"

# gen.py KIND FILE: a file of about 16 MiB, its head a project's; prints LINE:COLUMN of the value (or
# comment) one past the limit: the first item after the 65,536 - N values tomllib counts before it
#   array     the head, then x = [ and 1,1,1,... fifty a line: one flat array
#   keys      the head, then k0 = 1, k1 = 1, ... a line each (the value is what counts)
#   comments  the head, then a comment line after another
#   features  a Cargo.toml: [package], then [features] with f0 = [], f1 = [], ...
cat >"$tmp/gen.py" <<'PY'
import sys, tomllib
kind, path = sys.argv[1:]
LIMIT, SIZE = 65536, 16 << 20
if kind == "features":
    head = '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n\n[features]\n'
else:
    head = ('[build-system]\nrequires = ["maturin>=1.0,<2.0"]\nbuild-backend = "maturin"\n\n'
            '[project]\nname = "demo"\nversion = "1.0.0"\n\n[tool.bench]\n')
opening = "x = [\n" if kind == "array" else ""

def count(v):
    """The values tomllib reads, the root table, every table and array and every item included."""
    if isinstance(v, dict):
        return 1 + sum(count(x) for x in v.values())
    if isinstance(v, list):
        return 1 + sum(count(x) for x in v)
    return 1

before = count(tomllib.loads(head + (opening + "]\n" if opening else "")))
k = LIMIT - before  # the first item past the limit (items counted from 0)
lines, i, n = [head + opening], 0, len(head) + len(opening)
at = None
while n < SIZE - 100:
    if kind == "array":
        line = "1," * 50 + "\n"
        if at is None and i + 50 > k:
            at = (head + opening).count("\n") + 1 + k // 50, 1 + 2 * (k % 50)
        i += 50
    else:
        line = {"keys": "k%d = 1\n", "comments": "# %d\n", "features": "f%d = []\n"}[kind] % i
        if i == k:
            value = 0 if kind == "comments" else line.index("= ") + 2
            at = (head + opening).count("\n") + 1 + i, 1 + value
        i += 1
    lines.append(line)
    n += len(line)
lines.append("]\n" if kind == "array" else "")
open(path, "w").write("".join(lines))
print("%d:%d" % at)
PY

p=$tmp/proj
mkdir "$p"
printf 'wheelmatrix: 1\nproject: {name: demo}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\n' >"$p/wheelmatrix.yaml"
printf '[package]\nname = "demo"\nversion = "1.0.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["cdylib"]\n' >"$tmp/Cargo.toml"
printf '[build-system]\nrequires = ["maturin>=1.0,<2.0"]\nbuild-backend = "maturin"\n\n[project]\nname = "demo"\nversion = "1.0.0"\n' \
	>"$tmp/pyproject.toml"
scratch_repo "$p"

for kind in array keys comments features; do
	cp "$tmp/Cargo.toml" "$tmp/pyproject.toml" "$p/"
	file=pyproject.toml
	[[ $kind == features ]] && file=Cargo.toml
	at=$(python3 "$tmp/gen.py" "$kind" "$p/$file") || fatal "gen.py $kind failed"
	[[ $(stat -c %s "$p/$file") -le $((16 << 20)) ]] || fatal "the $kind file is over 16 MiB"
	limited 256 768 -C "$p" list
	expect_status 2 "a $file of 16 MiB ($kind)"
	[ -s "$tmp/out" ] && fail "a $file of 16 MiB ($kind): something on stdout"
	expect_err "$file:$at: error: $msg" "a $file of 16 MiB ($kind)"
done

# a large project of real shape stays readable: 2,000 features, each pulling in two crates
cp "$tmp/pyproject.toml" "$p/"
python3 - "$p/Cargo.toml" <<'PY'
import sys
lines = ['[package]', 'name = "demo"', 'version = "1.0.0"', 'edition = "2021"', '', '[lib]',
         'crate-type = ["cdylib"]', '', '[features]']
lines += ['f%d = ["dep:a%d", "dep:b%d"]  # feature %d' % (i, i, i, i) for i in range(2000)]
lines += ['', '[dependencies]']
lines += ['a%d = { version = "1", optional = true }\nb%d = { version = "1", optional = true }' % (i, i) for i in range(2000)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
printf 'wheelmatrix: 1\nproject: {name: demo}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\n  f1999: {features: [f1999]}\n' \
	>"$p/wheelmatrix.yaml"
limited 256 768 -C "$p" list --format jsonl
expect_status 0 "a Cargo.toml of 2,000 features"
grep -q '"id":"f1999-linux-x86_64-cp312"' "$tmp/out" || fail "a Cargo.toml of 2,000 features: no job of backend f1999: $(head -c 300 "$tmp/out")"
finish
