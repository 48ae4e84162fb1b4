#!/usr/bin/env bash
# t-layers.sh — lib/'s modules keep to their floors (docs/design.md §5), with no circle.
#
# What each module calls is read from the built objects with nm, not from the
# include lines: a module's undefined symbols are matched with the module that
# defines them.  The floors, lowest first: util, formats, model, workflow,
# emit, init, then repo and index (which do not call each other).  A module may
# call its own folder or any lower floor; within a folder the calls form no
# circle.  Each
# third-party library is called by one module only (linked, or loaded with
# dlopen: then only that module calls dlopen and dlsym, and names the
# library's soname), every module is in the
# module map of docs/design.md, each module has its header, an included header
# is never above the including file's floor (the public header's umbrella of
# module headers is cmd/'s alone), and every name a module exports starts with
# the module's (wm_expand_next in model/expand.c, wm_emit_github in emit/github.c).
. "$ROOT/tests/kit/lib.sh"

obj=${WM%/*}/obj
[[ -d $obj/lib ]] || { fail "no objects under $obj/lib: run 'make check'"; finish; }
for tool in nm strip strings; do
	command -v $tool >/dev/null || { fail "$tool is missing: apt-get install binutils"; finish; }
done

cd "$ROOT"
for src in lib/*/*.c; do
	o=$obj/${src%.c}.o
	[[ -f $o ]] || { fail "$src has no object $o"; continue; }
	m=${src#lib/}
	m=${m%.c}
	nm --defined-only "$o" | awk -v m="$m" '$2 ~ /^[TDRB]$/ { print "def", m, $3 }'
	nm --undefined-only "$o" | awk -v m="$m" '{ print "use", m, $2 }'
	# a library loaded with dlopen: its soname is a string of the object (the debugging
	# information, and UBSan's type descriptors, name the types of every header included)
	strip --strip-debug -o "$tmp/nodebug.o" "$o"
	strings -a "$tmp/nodebug.o" | awk -v m="$m" '/^lib(curl|git2|yaml|jansson)[.-]so/ { print "str", m, $1 }'
done >"$tmp/symbols"
# The embedded templates and their parsed trees (generated) are part of model/catalog.
for o in "$obj/build/templates.o" "$obj/build/templates-tree.o"; do
	[[ -f $o ]] || fail "no object $o"
	nm --defined-only "$o" | awk '$2 ~ /^[TDRB]$/ { print "gen", "model/catalog", $3 }'
done >>"$tmp/symbols"

python3 - "$tmp/symbols" docs/design.md lib >"$tmp/report" <<'PY' || fail "$(cat "$tmp/report")"
import os, re, sys

floors = {"util": 0, "formats": 1, "model": 2, "workflow": 2.5, "emit": 3, "init": 3.5, "repo": 4, "index": 4}
third_party = {"yaml_": "formats/yaml", "json_": "formats/json", "git_": "repo/repo", "curl_": "index/net"}
defs, uses, modules, problems, strings = {}, [], set(), [], []
for line in open(sys.argv[1]):
    kind, module, sym = line.split()
    modules.add(module)
    if kind == "str":
        strings.append((module, sym))
        continue
    if sym.startswith("__"):
        continue  # the compiler's own (the sanitizers' __odr_asan.*, __asan_*)
    if kind == "def" and not (sym.startswith("wm_" + module.split("/")[1]) or
                              sym.startswith("wm_" + module.replace("/", "_"))):
        problems.append(f"lib/{module}.c exports {sym}: its name does not start with the module's")
    if kind in ("def", "gen"):
        defs[sym] = module
    else:
        uses.append((module, sym))

# libraries loaded with dlopen: only their owner names them, and only an owner calls dlopen
sonames = {"libcurl": "index/net", "libgit2": "repo/repo", "libyaml": "formats/yaml", "libjansson": "formats/json"}
for module, s in strings:
    for prefix, owner in sonames.items():
        if s.startswith(prefix) and module != owner:
            problems.append(f"{module} names {s}: only {owner} uses that library")
for module, sym in uses:
    if sym in ("dlopen", "dlsym") and module not in sonames.values():
        problems.append(f"{module} calls {sym}: only the modules of the third-party libraries load them")
for module, sym in uses:
    for lib, owner in sonames.items():
        if sym == "dlopen" and module == owner and not any(m == owner and s.startswith(lib + ".so") for m, s in strings):
            problems.append(f"{module} calls dlopen but names no {lib}.so: the check cannot see what it loads")

edges = {}
for module, sym in uses:
    for prefix, owner in third_party.items():
        if sym.startswith(prefix) and module != owner:
            problems.append(f"{module} calls {sym}: only {owner} uses that library")
    callee = defs.get(sym)
    if callee and callee != module:
        edges.setdefault(module, set()).add(callee)

for a, callees in sorted(edges.items()):
    fa = a.split("/")[0]
    for b in sorted(callees):
        fb = b.split("/")[0]
        if fa != fb and floors[fb] >= floors[fa]:
            problems.append(f"{a} calls {b}: {fb}/ is not below {fa}/")

# circles, found by a depth-first search
state = {}
def visit(m, path):
    state[m] = 1
    for n in sorted(edges.get(m, ())):
        if state.get(n) == 1:
            problems.append("a circle: " + " -> ".join(path[path.index(n):] + [n]))
        elif n not in state:
            visit(n, path + [n])
    state[m] = 2
for m in sorted(modules):
    if m not in state:
        visit(m, [m])

design = open(sys.argv[2]).read()
for m in sorted(modules):
    if f"`{m}.c`" not in design:
        problems.append(f"lib/{m}.c is missing from the module map of docs/design.md")

root = sys.argv[3]
for folder in sorted(floors):
    d = os.path.join(root, folder)
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if not name.endswith((".c", ".h")):
            continue
        for inc in re.findall(r'^#include "([a-z]+)/[a-z0-9_]+\.h"', open(os.path.join(d, name)).read(), re.M):
            if inc != folder and floors[inc] >= floors[folder]:
                problems.append(f"lib/{folder}/{name} includes a header of {inc}/, which is not below {folder}/")
# The public header reaches every module through util/common.h: its umbrella of module headers
# (cmd/'s) stays out of their sight, under WM_LIBRARY_MODULE, which only util/common.h defines.
public = open(os.path.join(root, "wheelmatrix.h")).read()
umbrella = public.find("\n#ifndef WM_LIBRARY_MODULE\n")
for m in re.finditer(r'^#include "[a-z]+/', public, re.M):
    if umbrella < 0 or m.start() < umbrella or m.start() > public.index("\n#endif", umbrella):
        problems.append("the public header includes a module's header outside its umbrella")
for folder in sorted(floors):
    d = os.path.join(root, folder)
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        text = open(os.path.join(d, name)).read() if name.endswith((".c", ".h")) else ""
        if f"{folder}/{name}" != "util/common.h" and re.search(r'^#include "wheelmatrix\.h"', text, re.M):
            problems.append(f"lib/{folder}/{name} includes wheelmatrix.h: a module includes util/common.h")
        if name.endswith(".c") and not os.path.exists(os.path.join(d, name[:-2] + ".h")):
            problems.append(f"lib/{folder}/{name} has no header of its own ({name[:-2]}.h)")

if len(modules) < 30 or len(edges) < 20:
    problems.append(f"only {len(modules)} modules and {len(edges)} callers found: the objects are not what they seem")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
finish
