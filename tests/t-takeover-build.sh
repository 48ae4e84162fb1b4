#!/bin/bash
# t-takeover-build.sh — two jobs init predicts for real releases, built with the pinned maturin
# from the releases' own sdists: the wheel maturin makes is the one PyPI has.
#
# blake3 1.0.9 and cramjam 2.12.0rc1 (tests/takeover/: their workflows and release, served here
# as a simple index): init judges each release, and says which job of its matrix reproduces the
# published CPython 3.11 wheel for Linux x86_64.  That job, as generate writes it into the
# workflow (its manylinux level, its target and maturin-action's args with its Python), is run
# here with the pinned maturin (tests/tools/requirements.txt) on the release's sdist
# (tests/tools/takeover-build.txt, fetched by tests/tools/install-takeover-build.sh and checked
# against its sha256, which is also the one of release.json): the wheel's name, version and tags,
# read with packaging, are the published wheel's, and include the job's tags as `list` gives
# them; installed in a fresh virtual environment, the module imports and works.
#
# One difference from the job on GitHub: there maturin-action builds in the manylinux2014
# container; this host has glibc 2.36, so maturin links with Zig (--zig, zig-requirements.txt)
# against glibc 2.17's symbols, which is what makes the wheel manylinux_2_17 here.  cramjam's
# sdist has a Cargo.lock that does not cover its Cargo.toml (its release built without --locked,
# and so does this test); blake3's is used as it is (--locked).
. "$ROOT/tests/kit/lib.sh"
. "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
# shellcheck source=tests/kit/takeover-index.sh
. "$ROOT/tests/kit/takeover-index.sh"
deps=$("$ROOT/tests/tools/install-takeover-build.sh" --dir)
[[ -f $deps/complete ]] || fatal "the sdists and Zig are not installed in $deps: run 'make tools' (tests/tools/install-takeover-build.sh)"
PATH=$deps/zig/ziglang:$PATH
"$tools/bin/python" -c 'import packaging.utils' 2>/dev/null ||
	fatal "packaging is not in $tools: run 'make tools' (tests/tools/requirements.txt pins it)"

www=$tmp/www
takeover_index "$www"
mkdir -p "$tmp/srv"
start_nginx "$tmp/srv" "$www" || fatal "nginx did not start"
index=http://127.0.0.1:$HTTP_PORT/simple/
src=$CARGO_TARGET_DIR.src/t-takeover-build

# build NAME VERSION LOCKED MODULE CHECK: the project's cp311 Linux x86_64 job, built and compared
build() {
	local name=$1 version=$2 locked=$3 module=$4 check=$5 repo=$tmp/$1 job=cpu-linux-x86_64-cp311 sdist published
	cp -r "$ROOT/tests/takeover/$name/repo" "$repo"
	scratch_repo "$repo"
	commit_all "$repo"
	wm -C "$repo" init --index "$index" --format json
	expect_status 0 "$name: init against the index"
	cp "$tmp/out" "$tmp/$name.summary"
	# the published wheel of the job, which init says the job reproduces
	published=$("$py" - "$tmp/$name.summary" "$job" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
(w,) = [w for w in s["wheels"] if w["job"] == sys.argv[2] and w["reproduced"]] or [None]
print(w["file"] if w else "")
PY
)
	[[ -n $published ]] || { fail "$name: init does not say job $job reproduces a published wheel: $(cat "$tmp/out")"; return; }
	wm -C "$repo" list --format json
	expect_status 0 "$name: list"
	cp "$tmp/out" "$tmp/$name.jobs"
	wm -q -C "$repo" generate
	expect_status 0 "$name: generate"
	# the job as the workflow runs it: its matrix entry, and maturin-action's inputs
	"$py" - "$repo/.github/workflows/wheels.yml" "$job" >"$tmp/$name.args" <<'PY' || { fail "$name: job $job is not in the workflow"; return; }
import re, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
for job in wf["jobs"].values():
    for entry in job.get("strategy", {}).get("matrix", {}).get("include", []):
        if entry.get("id") != sys.argv[2]:
            continue
        (step,) = [s for s in job["steps"] if str(s.get("uses", "")).startswith("PyO3/maturin-action@")]
        w = step["with"]
        args = re.sub(r"\$\{\{ matrix\.([\w-]+) \}\}", lambda m: str(entry[m.group(1)]), w["args"])
        assert "${{" not in args, args
        # maturin-action: the manylinux input (its "manylinux" prefix dropped) as --manylinux, the target as --target
        level = str(entry["manylinux"])
        level = level[len("manylinux"):].lstrip("_") if level.startswith("manylinux") else level
        print("--manylinux", level, "--target", entry["target"], args)
        sys.exit(0)
sys.exit(1)
PY
	sdist=$deps/sdists/$name-$version.tar.gz
	[[ -f $sdist ]] || { fail "$name: no sdist $sdist"; return; }
	"$py" - "$ROOT/tests/takeover/$name/release.json" "$sdist" <<'PY' || fail "$name: the sdist is not the release's"
import hashlib, json, os, sys
page = json.load(open(sys.argv[1]))
(f,) = [f for f in page["files"] if f["filename"] == os.path.basename(sys.argv[2])]
assert hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest() == f["hashes"]["sha256"]
PY
	# unpacked afresh at the same path in every run (tar keeps the files' times), beside the slot's
	# target directory, where cargo's record of the crate's last build finds its sources.  Without
	# --locked, cargo writes the Cargo.lock that covers Cargo.toml, and cramjam's build script
	# reruns whenever that file's time changes, and the crate compiles again (45 s of CPU): the
	# lock cargo wrote in the last run comes back with its time, and cargo leaves it as it is.
	rm -rf "${src:?}/$name-$version"
	mkdir -p "$src"
	tar -xzf "$sdist" -C "$src" || { fail "$name: the sdist does not unpack"; return; }
	[[ -z $locked && -f $src/$name.Cargo.lock ]] && cp -p "$src/$name.Cargo.lock" "$src/$name-$version/Cargo.lock"
	# shellcheck disable=SC2046,SC2086  # $locked is empty or one word; the job's arguments, split as maturin-action splits them (no quotes in them)
	(cd "$src/$name-$version" && maturin build --zig $locked $(cat "$tmp/$name.args")) \
		>"$tmp/$name.build" 2>&1 || { fail "$name: maturin build $(cat "$tmp/$name.args") failed: $(tail -n 20 "$tmp/$name.build")"; return; }
	[[ -n $locked ]] || cp -p "$src/$name-$version/Cargo.lock" "$src/$name.Cargo.lock"
	grep -q -- "--out dist -i python3.11" "$tmp/$name.args" || fail "$name: the job's args: $(cat "$tmp/$name.args")"
	"$tools/bin/python" - "$src/$name-$version/dist" "$published" "$tmp/$name.jobs" "$job" <<'PY' || fail "$name: the wheel built"
import json, os, sys
from packaging.utils import parse_wheel_filename
dist, published, jobs, job = sys.argv[1:]
(built,) = os.listdir(dist)
b, p = parse_wheel_filename(built), parse_wheel_filename(published)
print("built %s, published %s" % (built, published))
assert b[:2] == p[:2], "name and version: %s, published %s" % (b[:2], p[:2])
assert b[3] == p[3], "tags %s, published %s" % (sorted(map(str, b[3])), sorted(map(str, p[3])))
(j,) = [j for j in json.load(open(jobs)) if j["id"] == job]
# the job's tags are sets (manylinux2014_x86_64.manylinux_2_17_x86_64), as a wheel's name writes them
want = {"%s-%s-%s" % (py, abi, plat) for py in j["python_tag"].split(".") for abi in j["abi_tag"].split(".")
        for plat in j["platform_tag"].split(".")}
assert want == {str(t) for t in b[3]}, "the job's tags %s are not the wheel's %s" % (sorted(want), sorted(map(str, b[3])))
PY
	# an environment without a pip of its own (ensurepip would install and compile one): the pinned
	# pip installs the wheel into it from outside
	"$tools/bin/python" -m venv --without-pip "$tmp/$name-venv"
	"$tools/bin/python" -m pip --python "$tmp/$name-venv/bin/python" install -q --no-index --no-deps \
		"$src/$name-$version/dist"/*.whl >"$tmp/$name.pip" 2>&1 ||
		{ fail "$name: pip install: $(cat "$tmp/$name.pip")"; return; }
	mkdir -p "$tmp/cwd"
	(cd "$tmp/cwd" && "$tmp/$name-venv/bin/python" -I -c "import $module; $check") >"$tmp/$name.import" 2>&1 ||
		fail "$name: the installed wheel: $(cat "$tmp/$name.import")"
	show "$tmp/$name.import"
}

build blake3 1.0.9 --locked blake3 \
	"assert blake3.blake3(b'abc').hexdigest() == '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85'"
build cramjam 2.12.0rc1 "" cramjam \
	"assert bytes(cramjam.snappy.decompress(cramjam.snappy.compress(b'abc' * 100))) == b'abc' * 100"
finish
