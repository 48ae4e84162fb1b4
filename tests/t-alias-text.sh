#!/bin/bash
# t-alias-text.sh — aliases cannot amplify a matrix into gigabytes: a document is refused past 32 MiB
# of text with its aliases expanded (every key and value, an alias counting what its anchor stands
# for), at the alias that crosses the bound, as PyYAML's own reading of the file places it; each
# generated file is refused past 64 MiB, by name, and nothing is written; a large matrix that uses
# anchors as people do is generated as before.
#
# The refusals run within an address-space limit (ulimit -v) that writing the files would pass many
# times over: a 264 KB matrix made a 262 MB workflow and a 1 GB peak. The AddressSanitizer build
# reserves terabytes for its shadow memory, so there the limit is on the peak resident set instead.
# heavy: documents of many megabytes read within memory bounds
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/python-env.sh"
. "$ROOT/tests/kit/limited.sh"

# text.py FILE: where PyYAML's events place the first alias or value past 32 MiB of text, counted
# as the bound counts it (the UTF-8 bytes of every scalar, keys included; an alias the text of its
# anchor's node), as LINE:COLUMN, or "none" and the total
cat >"$tmp/text.py" <<'PY'
import sys, yaml
LIMIT = 32 << 20
total, stack, anchors = 0, [], {}
with open(sys.argv[1], encoding="utf-8") as f:
    for ev in yaml.parse(f, Loader=yaml.SafeLoader):
        if isinstance(ev, yaml.ScalarEvent):
            n = len(ev.value.encode("utf-8"))
            if ev.anchor:
                anchors[ev.anchor] = n
        elif isinstance(ev, yaml.AliasEvent):
            n = anchors[ev.anchor]
        elif isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            stack.append((ev.anchor, total))
            continue
        elif isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            anchor, start = stack.pop()
            if anchor:
                anchors[anchor] = total - start
            continue
        else:
            continue
        total += n
        if total > LIMIT:
            print("%d:%d" % (ev.start_mark.line + 1, ev.start_mark.column + 1))
            sys.exit(0)
print("none", total)
PY

# the matrix of the report: one 256 KiB value used by 1,000 env values through aliases (264 KB)
mkdir "$tmp/amp"
"$py" - "$tmp/amp/wheelmatrix.yaml" <<'PY'
import sys
lines = ["wheelmatrix: 1", "project: {name: demo}", "platforms: [linux-x86_64]", "backends:", "  cpu:",
         "    default: true", "    env:", "      V0: &s " + "x" * (256 << 10)]
lines += ["      V%d: *s" % i for i in range(1, 1000)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
scratch_repo "$tmp/amp"
at=$("$py" "$tmp/text.py" "$tmp/amp/wheelmatrix.yaml")
[[ $at == 135:13 ]] || fail "PyYAML places the 127th alias at $at, not at 135:13"
for cmd in generate list; do
	limited 256 256 -C "$tmp/amp" "$cmd"
	expect_status 2 "$cmd of the amplifying matrix"
	[ -s "$tmp/out" ] && fail "$cmd of the amplifying matrix: something on stdout: $(head -c 300 "$tmp/out")"
	expect_err "wheelmatrix.yaml:$at: error: aliases expand this document past 32 MiB of text (an alias bomb?)" \
		"$cmd of the amplifying matrix"
done
[[ -e $tmp/amp/.github || -e $tmp/amp/.gitlab-ci.yml ]] && fail "generate of the amplifying matrix wrote files"

# at the bound exactly: accepted; one byte more: refused at the last alias, where PyYAML places it
# (text.py's count is the reader's: the pad is what the 127 aliases of a 256 KiB - 64 value leave)
"$py" - "$tmp/text.py" "$tmp/at.yaml" "$tmp/over.yaml" <<'PY'
import subprocess, sys
text, at, over = sys.argv[1:]
def write(path, pad):
    lines = ["wheelmatrix: 1", "project: {name: demo}", "platforms: [linux-x86_64]", "backends:", "  cpu:",
             "    default: true", "    env:", "      V0: &s " + "x" * ((256 << 10) - 64), "      PAD: " + "y" * pad]
    lines += ["      V%d: *s" % i for i in range(1, 128)]
    open(path, "w").write("\n".join(lines) + "\n")
write(at, 1)
total = int(subprocess.run([sys.executable, text, at], capture_output=True, text=True).stdout.split()[1])
write(at, 1 + (32 << 20) - total)
write(over, 2 + (32 << 20) - total)
PY
[[ $("$py" "$tmp/text.py" "$tmp/at.yaml") == "none $((32 << 20))" ]] || fail "at.yaml does not hold 32 MiB of text exactly"
at=$("$py" "$tmp/text.py" "$tmp/over.yaml")
[[ $at == 136:13 ]] || fail "PyYAML places the last alias of over.yaml at $at, not at 136:13"
wm -f "$tmp/at.yaml" list --format jsonl
expect_status 0 "a matrix of 32 MiB of text"
[[ $(wc -l <"$tmp/out") == 5 ]] || fail "a matrix of 32 MiB of text: $(wc -l <"$tmp/out") jobs, not 5"
wm -f "$tmp/over.yaml" list
expect_status 2 "a matrix of 32 MiB of text and one byte"
expect_err "over.yaml:$at: error: aliases expand this document past 32 MiB of text (an alias bomb?)" \
	"a matrix of 32 MiB of text and one byte"

# within the text bound (15 MiB), a workflow past 64 MiB: a 256 KiB value in 60 env variables,
# which an include sets otherwise, so every entry of the build job carries each of them
mkdir "$tmp/wide"
"$py" "$ROOT/tests/helpers/wide-env-matrix.py" "$tmp/wide/wheelmatrix.yaml"
scratch_repo "$tmp/wide"
limited 512 512 -C "$tmp/wide" generate
expect_status 2 "generate of a workflow past 64 MiB"
expect_same - "$tmp/err" "generate of a workflow past 64 MiB" <<'EOF'
wheelmatrix: error: the generated file '.github/workflows/wheels.yml' would be larger than the limit of 64 MiB: the matrix repeats long values (such as env values) in too many jobs
EOF
[[ -e $tmp/wide/.github || -e $tmp/wide/.gitlab-ci.yml ]] && fail "generate of a workflow past 64 MiB wrote files"

# a large matrix written with anchors as people write them: 40 backends sharing the first one's ten
# env variables (some merging their own), 10 platforms, 8 Python versions, includes overriding one
mkdir "$tmp/large"
"$py" - "$tmp/large/wheelmatrix.yaml" <<'PY'
import sys
plats = ["linux-x86_64", "linux-aarch64", "linux-ppc64le", "linux-i686", "musllinux-x86_64", "musllinux-aarch64",
         "macos-arm64", "macos-x86_64", "windows-x86_64", "linux-armv7"]
lines = ["wheelmatrix: 1", "project: {name: demo}", "platforms: [%s]" % ", ".join(plats),
         'python: {versions: ["3.11", "3.12", "3.13", "3.13t", "3.14", "3.14t", "3.15", "3.15t"]}',
         "backends:", "  b00:", "    features: [f00]", "    env: &env"]
lines += ["      SETTING_%d: value-%d-%s" % (i, i, "v" * 300) for i in range(10)]
for b in range(1, 40):
    lines += ["  b%02d:" % b, "    features: [f%02d]" % b]
    lines += ["    env: {<<: *env, OWN: b%02d}" % b if b % 2 else "    env: *env"]
lines += ["  cpu: {default: true, env: *env}", "include:"]
for b in range(0, 40, 4):
    lines += ['  - {backend: b%02d, platform: linux-s390x, python: "3.12", env: {SETTING_0: other}}' % b]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
scratch_repo "$tmp/large"
wm -C "$tmp/large" list --format jsonl
expect_status 0 "list of the large matrix"
[[ $(wc -l <"$tmp/out") == $((41 * 10 * 8 + 10)) ]] || fail "the large matrix: $(wc -l <"$tmp/out") jobs, not $((41 * 10 * 8 + 10))"
wm -C "$tmp/large" -q generate
expect_status 0 "generate of the large matrix"
run "$py" - "$tmp/large/.github/workflows/wheels.yml" <<'PY'
import sys, yaml
text = open(sys.argv[1]).read()
yaml.safe_load(text)
for i in range(10):
    value = "value-%d-%s" % (i, "v" * 300)
    assert value in text, "SETTING_%d's value is missing" % i
PY
expect_status 0 "the large matrix's workflow, read by PyYAML"
finish
