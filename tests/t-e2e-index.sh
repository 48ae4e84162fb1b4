#!/bin/bash
# t-e2e-index.sh — strategy index's pages (templates/index-pages.py, run as the Pages job runs it:
# `python3 -` reading the script without its title line) serve real builds of the llm-rs fixture to
# real pip and uv: the CPU build as 0.2.15 in a "main" index (standing in for PyPI, the files copied
# into the site) and the cublas build as 0.2.15+cuda and 0.2.16+cuda in the backend index cuda/
# (the files served from a "release" directory, as GitHub release assets are); the files of an
# earlier version are kept by a second run on the same site and by a run on a fresh site with
# --previous (the deployed site, fetched over HTTP), which agree byte for byte. nginx serves the
# sites on loopback with PEP 691 content negotiation (and as HTML only); tests/helpers/index-pages-check.py
# reads the root and project pages, JSON and HTML, and every file's sha256 and size. pip
# (--index-url main --extra-index-url cuda) and uv (the same, and a project with an explicit
# [[tool.uv.index]] as the source of llm-rs, `uv sync`) install the builds each pin or source asks
# for; each is imported from an empty directory and answers backend() and its version with the
# local label. pip and uv refuse a file one byte of which was changed after the page was written. The
# script refuses files of another project, names that are not wheels or sdists or could leave
# their directory, hostile index entries and a --previous index it cannot read, and escapes what
# it writes.
#
# The fixture's matrix says strategy index (its URL the second site's): `wheelmatrix patch cuda`
# sets the labelled version and the feature for the build, and what generate writes for users
# (.wheelmatrix/index/: requirements-<backend>.txt, a uv project of an extra per backend) installs
# the builds with pip and uv too. The tools are tests/tools/requirements.txt's.
. "$ROOT/tests/kit/lib.sh"
# each step below is checked where it happens: a failed one does not end the script
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
. "$ROOT/tests/kit/plan-servers.sh"

export PIP_NO_CACHE_DIR=1
script=$ROOT/templates/index-pages.py
version=0.2.15 next=0.2.16
wheels=$tmp/wheels
mkdir -p "$wheels" "$tmp/cwd"

# pages ARGS...: the script as the Pages job runs it, output in $tmp/pages.log
pages() {
	tail -n +2 "$script" | "$py" - "$@" >"$tmp/pages.log" 2>&1
}
# the job embeds it in a `python3 - <<'PY'` heredoc and runs the runner's python3: 3.8 at least
! grep -qx PY "$script" || fail "a line of $script ends the heredoc it is embedded in"
"$py" -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), feature_version=(3, 8))' "$script" ||
	fail "$script is not Python 3.8"

# The two sites' servers, nginx on loopback: www1 (the deployed site, and the "release assets")
# and www2 (a fresh deploy), whose URL is the matrix's index URL
www1=$tmp/www1 site1=$tmp/www1/simple www2=$tmp/www2 site2=$tmp/www2/simple
mkdir -p "$tmp/n1" "$tmp/n2" "$www1/releases/v$version" "$www1/releases/v$next" "$www2"
start_nginx "$tmp/n1" "$www1" || fatal "nginx (above)"
u1=http://127.0.0.1:$HTTP_PORT
start_nginx "$tmp/n2" "$www2" || fatal "nginx (above)"
u2=http://127.0.0.1:$HTTP_PORT

# The fixture in a git repository with strategy index: `wheelmatrix generate` writes the variant
# patch (the version with its label, the feature) and the install files of .wheelmatrix/index/
repo=$tmp/llm-rs
cp -RL "$ROOT/tests/fixtures/llm-rs" "$repo"
printf '%s\n' "wheelmatrix: 1" "project: {name: llm-rs, module: llm_rs}" 'python: {abi3: "3.8"}' \
	"platforms: [linux-x86_64]" "backends:" "  cuda: {features: [cublas]}" "  cpu: {default: true}" \
	"distribution:" "  strategy: index" "  index: {url: \"$u2/simple\", local: true}" "ci: {}" >"$repo/wheelmatrix.yaml"
scratch_repo "$repo" && commit_all "$repo" fixture
generate() {
	"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate"; }
	commit_all "$repo" generated
}
generate

# build NAME BACKEND: the fixture built with maturin into $wheels/NAME/ (and its sdist for the
# default build), BACKEND's patch applied with `wheelmatrix patch` and reverted; auditwheel repair
# gives it its manylinux tag
build() {
	local name=$1 backend=$2 d=$tmp/build-$1
	mkdir -p "$d"
	if [ "$backend" != cpu ]; then
		"$WM" -q -C "$repo" patch "$backend" >"$d/patch.log" 2>&1 || { fail "$name: wheelmatrix patch $backend"; show "$d/patch.log"; return 1; }
	fi
	(cd "$repo" && maturin build --release --locked --out "$d/dist" -i "$tools/bin/python" --auditwheel skip) >"$d/build.log" 2>&1 ||
		{ fail "$name: maturin build failed"; show "$d/build.log"; }
	if [ "$backend" = cpu ]; then
		(cd "$repo" && maturin sdist --out "$wheels/$name") >"$d/sdist.log" 2>&1 || { fail "$name: maturin sdist failed"; show "$d/sdist.log"; }
	else
		"$WM" -q -C "$repo" patch --revert "$backend" >"$d/patch.log" 2>&1 || { fail "$name: wheelmatrix patch --revert $backend"; show "$d/patch.log"; }
	fi
	[ -z "$(git -C "$repo" status --porcelain)" ] || { fail "$name: the checkout is not as committed after the build"; git -C "$repo" status --short; }
	auditwheel repair --wheel-dir "$wheels/$name" "$d"/dist/*.whl >"$d/repair.log" 2>&1 ||
		{ fail "$name: auditwheel repair failed"; show "$d/repair.log"; return 1; }
}

t0=$SECONDS
if ! { build cpu cpu && build cuda cuda; }; then
	fatal "the builds failed (above)"
fi
cp -R "$repo/.wheelmatrix/index" "$tmp/install-$version"
# the next version, Cargo's: generate writes the patch of 0.2.16+cuda
"$py" - "$repo" "$version" "$next" <<'PY' || fatal "setting the version $next"
import sys
repo, old, new = sys.argv[1:]
for name, before in (("Cargo.toml", 'version = "%s"'), ("Cargo.lock", 'name = "llm-rs"\nversion = "%s"')):
    path = repo + "/" + name
    text = open(path).read()
    assert text.count(before % old) == 1, (name, before % old)
    open(path, "w").write(text.replace(before % old, before % new))
PY
commit_all "$repo" "version $next"
generate
build cuda-next cuda || fatal "the build of $next failed (above)"
echo "builds: $((SECONDS - t0)) s"
cpu=$(ls "$wheels"/cpu/*.whl) sdist=$(ls "$wheels"/cpu/*.tar.gz)
cuda=$(ls "$wheels"/cuda/*.whl) cuda_next=$(ls "$wheels"/cuda-next/*.whl)
[[ ${cuda##*/} == "llm_rs-$version+cuda-cp38-abi3-manylinux"*.whl ]] || fail "the cuda build is ${cuda##*/}, not llm_rs-$version+cuda-cp38-abi3-manylinux*"
[[ ${cuda_next##*/} == "llm_rs-$next+cuda-cp38-abi3-manylinux"*.whl ]] || fail "the next cuda build is ${cuda_next##*/}, not llm_rs-$next+cuda-*"

# The first site: main/ with the CPU wheel copied in, cuda/ with 0.2.15+cuda served from
# releases/v0.2.15/
cp "$cuda" "$www1/releases/v$version/"
cp "$cuda_next" "$www1/releases/v$next/"
pages --site "$site1" --backend main --project llm-rs "$cpu" || { fail "index-pages main"; show "$tmp/pages.log"; }
cp -R "$site1/main" "$tmp/main-once"
pages --site "$site1" --backend main --project llm-rs "$cpu" || { fail "index-pages main, again"; show "$tmp/pages.log"; }
diff -r "$tmp/main-once" "$site1/main" >"$tmp/diff" || { fail "a second run with the same file changed the pages"; show "$tmp/diff"; }
pages --site "$site1" --backend cuda --project llm-rs --files-url "$u1/releases/v$version" "$cuda" ||
	{ fail "index-pages cuda"; show "$tmp/pages.log"; }
[ ! -e "$site1/cuda/llm-rs/${cuda##*/}" ] || fail "with --files-url the wheel was copied into the site"

# The second site, a fresh deploy: --previous keeps what the first one serves (the copied CPU
# wheel downloaded), the sdist and 0.2.16+cuda are added
pages --site "$site2" --backend main --project llm-rs --previous "$u1/simple" "$sdist" ||
	{ fail "index-pages main --previous"; show "$tmp/pages.log"; }
grep -qF "index.json: 1 files kept" "$tmp/pages.log" || { fail "main --previous did not say it kept the deployed file"; show "$tmp/pages.log"; }
cmp -s "$cpu" "$site2/main/llm-rs/${cpu##*/}" || fail "main --previous: the deployed CPU wheel is not in the new site"
pages --site "$site2" --backend cuda --project llm-rs --files-url "$u1/releases/v$next" --previous "$u1/simple/" "$cuda_next" ||
	{ fail "index-pages cuda --previous"; show "$tmp/pages.log"; }
# the first site updated in place with the same file: the same pages as the fresh deploy's
pages --site "$site1" --backend cuda --project llm-rs --files-url "$u1/releases/v$next" "$cuda_next" ||
	{ fail "index-pages cuda, a second version"; show "$tmp/pages.log"; }
diff -r "$site1/cuda" "$site2/cuda" >"$tmp/diff" || { fail "the updated site and the fresh deploy with --previous differ"; show "$tmp/diff"; }

# The pages as pip reads them
check_pages() {  # check_pages BASE FILE...
	"$py" "$ROOT/tests/helpers/index-pages-check.py" "$1" llm-rs ">=3.8" "${@:2}" >"$tmp/check.log" 2>&1 ||
		{ fail "the pages at $1"; show "$tmp/check.log"; }
}
check_pages "$u1/simple/main/" "${cpu##*/}"
check_pages "$u1/simple/cuda/" "${cuda##*/}" "${cuda_next##*/}"
check_pages "$u2/simple/main/" "${cpu##*/}" "${sdist##*/}"
check_pages "$u2/simple/cuda/" "${cuda##*/}" "${cuda_next##*/}"

# installed LABEL VENV VERSION BACKEND: llm-rs VERSION from VENV, imported from an empty directory
installed() {
	local out
	out=$(cd "$tmp/cwd" && "$2/bin/python" -I "$ROOT/tests/helpers/llm-rs-installed.py" "$3" "$4" 2>&1) ||
		{ fail "$1: $out"; return; }
	echo "ok   $1"
}
n=0
# pip_install VERSION BACKEND INDEX-ARGS... -- REQUIREMENT: a fresh environment, pip install, the check
pip_install() {
	local want=$1 backend=$2 venv=$tmp/venv-$((n += 1))
	shift 2
	"$py" -m venv --without-pip "$venv"
	if "$tools/bin/python" -m pip --python "$venv/bin/python" install -q --only-binary :all: "$@" >"$venv.log" 2>&1; then
		installed "pip install $*" "$venv" "$want" "$backend"
	else
		fail "pip install $* failed"
		show "$venv.log"
	fi
}
uv_install() {
	local want=$1 backend=$2 venv=$tmp/venv-$((n += 1))
	shift 2
	uv venv -q --python "$py" "$venv"
	if uv pip install -q --python "$venv/bin/python" "$@" >"$venv.log" 2>&1; then
		installed "uv pip install $*" "$venv" "$want" "$backend"
	else
		fail "uv pip install $* failed"
		show "$venv.log"
	fi
}
main=$u2/simple/main/ cuda_index=$u2/simple/cuda/
pip_install "$version+cuda" cuda --index-url "$main" --extra-index-url "$cuda_index" "llm-rs==$version+cuda"
pip_install "$version" cpu --index-url "$main" llm-rs
pip_install "$next+cuda" cuda --index-url "$u2/html/main/" --extra-index-url "$u2/html/cuda/" "llm-rs==$next+cuda"
# unpinned with both indexes, pip takes the highest version of all: a local label sorts after its release
pip_install "$next+cuda" cuda --index-url "$main" --extra-index-url "$cuda_index" llm-rs
uv_install "$version+cuda" cuda --index-url "$main" --extra-index-url "$cuda_index" "llm-rs==$version+cuda"
uv_install "$version" cpu --index-url "$main" llm-rs
uv_install "$next+cuda" cuda --index-url "$u2/html/main/" --extra-index-url "$u2/html/cuda/" "llm-rs==$next+cuda"

# uv's project sources: llm-rs from the explicit cuda index, everything else from main
proj=$tmp/project
mkdir -p "$proj" "$tmp/xdg"
cat >"$proj/pyproject.toml" <<TOML
[project]
name = "app"
version = "0"
requires-python = ">=3.8"
dependencies = ["llm-rs"]

[[tool.uv.index]]
name = "main"
url = "$main"
default = true

[[tool.uv.index]]
name = "cuda"
url = "$cuda_index"
explicit = true

[tool.uv.sources]
llm-rs = { index = "cuda" }
TOML
if (cd "$proj" && env -u UV_NO_CONFIG XDG_CONFIG_HOME="$tmp/xdg" uv sync -q --python "$py") >"$tmp/sync.log" 2>&1; then
	installed "uv sync (llm-rs from the explicit index cuda)" "$proj/.venv" "$next+cuda" cuda
	grep -qF "source = { registry = \"$cuda_index\" }" "$proj/uv.lock" ||
		{ fail "uv.lock does not take llm-rs from $cuda_index"; show "$proj/uv.lock"; }
else
	fail "uv sync failed"
	show "$tmp/sync.log"
fi
# the same pinned to the earlier version, which the index kept
sed -i "s/dependencies = \[\"llm-rs\"\]/dependencies = [\"llm-rs==$version+cuda\"]/" "$proj/pyproject.toml"
if (cd "$proj" && env -u UV_NO_CONFIG XDG_CONFIG_HOME="$tmp/xdg" uv sync -q --python "$py") >"$tmp/sync.log" 2>&1; then
	installed "uv sync (llm-rs==$version+cuda from the explicit index cuda)" "$proj/.venv" "$version+cuda" cuda
else
	fail "uv sync llm-rs==$version+cuda failed"
	show "$tmp/sync.log"
fi

# What generate wrote for users: the requirements files with pip and uv, the uv project of one
# extra per backend with `uv sync --extra` (the default index main, as PyPI would be)
gen=$tmp/install-$version
pip_install "$version+cuda" cuda --index-url "$main" -r "$gen/requirements-cuda.txt"
pip_install "$version" cpu --index-url "$main" -r "$gen/requirements-cpu.txt"
uv_install "$version+cuda" cuda --index-url "$main" -r "$gen/requirements-cuda.txt"
for extra in cuda:"$next+cuda" cpu:"$version"; do
	proj=$tmp/backends-${extra%%:*}
	mkdir -p "$proj"
	cp "$repo/.wheelmatrix/index/pyproject.toml" "$proj/"
	if (cd "$proj" && env -u UV_NO_CONFIG XDG_CONFIG_HOME="$tmp/xdg" UV_DEFAULT_INDEX="$main" uv sync -q --python "$py" --extra "${extra%%:*}") >"$proj.log" 2>&1; then
		installed "uv sync --extra ${extra%%:*} (.wheelmatrix/index/pyproject.toml)" "$proj/.venv" "${extra#*:}" "${extra%%:*}"
	else
		fail "uv sync --extra ${extra%%:*} of .wheelmatrix/index/pyproject.toml failed"
		show "$proj.log"
	fi
done

# One byte of a served file changed after the page was written, the wheel still a valid zip (the
# first entry's modification time): pip and uv refuse it for its sha256
mkdir -p "$www2/tampered"
cp -R "$site2/main" "$www2/tampered/main"
"$py" - "$www2/tampered/main/llm-rs/${cpu##*/}" <<'PY' || fail "changing a byte of the wheel"
import sys, zipfile
with open(sys.argv[1], "r+b") as f:
    head = f.read(30)
    assert head[:4] == b"PK\x03\x04", head
    f.seek(10)
    f.write(bytes([head[10] ^ 0x01]))
with zipfile.ZipFile(sys.argv[1]) as z:
    assert z.testzip() is None
PY
venv=$tmp/venv-tampered
"$py" -m venv --without-pip "$venv"
if "$tools/bin/python" -m pip --python "$venv/bin/python" install --only-binary :all: --index-url "$u2/tampered/main/" llm-rs >"$venv.log" 2>&1; then
	fail "pip installed a wheel whose sha256 is not its page's"
elif ! grep -q "Expected sha256 $(sha256sum "$cpu" | cut -d' ' -f1)" "$venv.log"; then
	fail "pip failed on the changed wheel, but not for its sha256"
	show "$venv.log"
fi
venv=$tmp/venv-tampered-uv
uv venv -q --python "$py" "$venv"
if uv pip install --python "$venv/bin/python" --index-url "$u2/tampered/main/" llm-rs >"$venv.log" 2>&1; then
	fail "uv installed a wheel whose sha256 is not its page's"
elif ! grep -qF "sha256:$(sha256sum "$cpu" | cut -d' ' -f1)" "$venv.log" || ! grep -qF "Hash mismatch" "$venv.log"; then
	fail "uv failed on the changed wheel, but not for its sha256"
	show "$venv.log"
fi

# What the script refuses: exit status 1 (2 for an argument) and the reason
refuse() {  # refuse STATUS TEXT WHAT ARGS...
	local want=$1 text=$2 what=$3 status=0
	shift 3
	rm -rf "$tmp/bad-site"
	pages --site "$tmp/bad-site" "$@" || status=$?
	[ "$status" = "$want" ] || { fail "$what: exit $status, not $want"; show "$tmp/pages.log"; return; }
	grep -qF -- "$text" "$tmp/pages.log" || { fail "$what: no '$text' in"; show "$tmp/pages.log"; }
}
bad=$tmp/bad
mkdir -p "$bad"
cp "$cpu" "$bad/other-1.0-py3-none-any.whl"
cp "$cpu" "$bad/llm_rs-1.0.whl"
cp "$cpu" "$bad/llm_rs-1.0-py3-none-any.whl"
cp "$cpu" "$bad/llm_rs-1.0-py3-none-any.whl.asc"
cp "$cpu" "$bad/llm_rs-1..0-py3-none-any.whl"
cp "$cpu" "$bad/llm_rs-1.0\"-py3-none-any.whl"
cp "$cpu" "$bad/llm_rs-1.0"$'\e'"[31m-py3-none-any.whl"
cp "$cpu" "$bad/llm_rs-one-py3-none-any.whl"
refuse 1 "is not a file of llm-rs" "another project's wheel" --backend cuda --project llm-rs "$bad/other-1.0-py3-none-any.whl"
refuse 1 "is not a wheel's name" "a wheel name of 2 parts" --backend cuda --project llm-rs "$bad/llm_rs-1.0.whl"
refuse 1 "neither a wheel" "a signature" --backend cuda --project llm-rs "$bad/llm_rs-1.0-py3-none-any.whl.asc"
refuse 1 "is not a plain file name" "'..' in a name" --backend cuda --project llm-rs "$bad/llm_rs-1..0-py3-none-any.whl"
refuse 1 "is not a plain file name" "a quote in a name" --backend cuda --project llm-rs "$bad/llm_rs-1.0\"-py3-none-any.whl"
refuse 1 "is not a plain file name" "an escape in a name" --backend cuda --project llm-rs "$bad/llm_rs-1.0"$'\e'"[31m-py3-none-any.whl"
refuse 1 "is not a PEP 440 version" "a version that is not one" --backend cuda --project llm-rs "$bad/llm_rs-one-py3-none-any.whl"
refuse 1 "its metadata says version '$version', its name 1.0" "a renamed wheel" --backend cuda --project llm_rs "$bad/llm_rs-1.0-py3-none-any.whl"
refuse 2 "--backend '../x'" "a backend that leaves the site" --backend ../x --project llm-rs "$cpu"
refuse 2 "is not a valid project name" "a project name with a slash" --backend cuda --project "a/b" "$cpu"
refuse 2 "is not an http(s) URL" "a files URL that is not http" --backend cuda --project llm-rs --files-url "javascript:alert(1)" "$cpu"
refuse 1 "HTTP 401" "a --previous index that answers 401" --backend cuda --project llm-rs --previous "$u2/private" "$cpu"
refuse 1 "127.0.0.1:1/cuda/llm-rs/index.json" "a --previous index nobody serves" --backend cuda --project llm-rs --previous "http://127.0.0.1:1" "$cpu"
pages --site "$tmp/new-site" --backend cuda --project llm-rs --previous "$u2/nothing" "$cpu" || { fail "a --previous without the index (404)"; show "$tmp/pages.log"; }
grep -qF "index.json: none yet" "$tmp/pages.log" || { fail "a --previous without the index: not said"; show "$tmp/pages.log"; }
# a hostile entry in the existing index, and a file of a listed name that is not there
mkdir -p "$tmp/bad-site/cuda/llm-rs"
hostile_entry() {  # hostile_entry FILENAME URL
	"$py" - "$tmp/bad-site/cuda/llm-rs/index.json" "$1" "$2" <<'PY'
import json, sys
json.dump({"meta": {"api-version": "1.1"}, "name": "llm-rs", "files": [
    {"filename": sys.argv[2], "url": sys.argv[3], "hashes": {"sha256": "0" * 64}}]}, open(sys.argv[1], "w"))
PY
}
for entry in "../../x/llm_rs-1.0-py3-none-any.whl|x" "llm_rs-1.0-py3-none-any.whl|../secret/llm_rs-1.0-py3-none-any.whl" \
	"llm_rs-1.0-py3-none-any.whl|file:///etc/passwd" "llm_rs-1.0-py3-none-any.whl|llm_rs-1.0-py3-none-any.whl"; do
	rm -rf "$tmp/bad-site"
	mkdir -p "$tmp/bad-site/cuda/llm-rs"
	hostile_entry "${entry%%|*}" "${entry#*|}"
	status=0
	pages --site "$tmp/bad-site" --backend cuda --project llm-rs "$cpu" || status=$?
	[ "$status" = 1 ] || { fail "an index entry $entry: exit $status, not 1"; show "$tmp/pages.log"; }
done
# what a wheel's metadata says is escaped in the page
"$py" - "$bad/llm_rs-1.0-py3-none-any.whl" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("llm_rs-1.0.dist-info/METADATA",
               'Metadata-Version: 2.1\nName: llm-rs\nVersion: 1.0\nRequires-Python: >=3.8"><script>alert(1)</script>\n')
PY
rm -rf "$tmp/esc-site"
pages --site "$tmp/esc-site" --backend cuda --project llm-rs "$bad/llm_rs-1.0-py3-none-any.whl" || { fail "a wheel with hostile metadata"; show "$tmp/pages.log"; }
page=$tmp/esc-site/cuda/llm-rs/index.html
if grep -qF "<script" "$page" || ! grep -qF 'data-requires-python="&gt;=3.8&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' "$page"; then
	fail "the hostile Requires-Python is not escaped in the page"
	show "$page"
fi

echo "$((SECONDS - t0)) s"
finish
