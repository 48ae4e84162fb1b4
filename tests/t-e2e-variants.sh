#!/bin/bash
# t-e2e-variants.sh — strategy variants: real builds of the llm-rs fixture made into wheel variants
# (PEP 825) by real variantlib, laid out in one index by templates/index-pages.py --variants, served
# by nginx on loopback, and installed by uv with --preview-features wheel-variants as the system's
# provider answers: the cuda build where it reports the cuda property, the null variant (cpu)
# where it does not; pip, and uv without the preview, install the plain default wheel.  A second
# version (0.2.16) is added to the same site in place and to a fresh site with --previous (the
# deployed one, over HTTP): the two agree byte for byte, and uv installs either version's variant.
#
# The backends, as the matrix declares them:
#   cpu:  {default: true}                       the null variant (variantlib --null-variant)
#   cuda: {features: [cublas], variant: {properties: ["nvidia :: cuda_version_lower_bound :: 12.4"], label: cu124}}
#   distribution: {strategy: variants, providers: {nvidia: {requires: [nvidia-variant-provider>=0.0.1,<1.0.0],
#                  plugin-api: "nvidia_variant_provider.plugin:NvidiaVariantPlugin"}}}
# Each build's pyproject.toml gets the [variant] table (variantlib's pyproject format: the providers'
# default priorities and each provider's requires and plugin-api) and the cuda build its Cargo
# feature: `wheelmatrix patch` writes them from matrices/llm-rs-variants.yaml.  maturin builds each backend,
# auditwheel repairs it; `variantlib make-variant` makes the cpu wheel the null variant and the cuda
# wheel the variant cu124 (its property validated by the provider plugin); `variantlib
# generate-index-json` writes llm_rs-0.2.15-variants.json.  tests/helpers/variant-check.py checks every
# name against PEP 825's grammar and every variant.json and the variants.json with variantlib's
# validator and against what the matrix says.
#
# The provider: uv (0.13.9) runs no provider plugin; it answers the plugin API of NVIDIA's provider
# with its own, which reads NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION, and skips any other
# provider.  tests/variant-provider/ is a plugin of that API for variantlib (built into a wheel with
# the pinned setuptools, installed in a scratch environment) that reads the same variable, so the one
# switch says "a CUDA 12.8 driver" or "none" to both.  The tools are tests/tools/requirements.txt's.
. "$ROOT/tests/kit/lib.sh"
# each step below is checked where it happens: a failed one does not end the script
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
. "$ROOT/tests/kit/plan-servers.sh"

[ -x "$tools/bin/variantlib" ] ||
	fatal "variantlib is not in $tools: run tests/tools/install.sh (make check does; tests/tools/requirements.txt pins it)"
export PIP_NO_CACHE_DIR=1
version=0.2.15 next=0.2.16 label=cu124 property="nvidia :: cuda_version_lower_bound :: 12.4"
mkdir -p "$tmp/cwd" "$tmp/n" "$tmp/www/simple"
start_nginx "$tmp/n" "$tmp/www" || fatal "nginx (above)"
u=http://127.0.0.1:$HTTP_PORT

# The provider plugin in a scratch environment that also sees the tools' packages (variantlib)
pv=$tmp/provider-env
cp -R "$ROOT/tests/variant-provider" "$tmp/provider-src"
"$tools/bin/python" -m pip wheel -q --no-build-isolation --no-deps -w "$tmp/provider-dist" "$tmp/provider-src" >"$tmp/provider.log" 2>&1 ||
	{ show "$tmp/provider.log"; fatal "building tests/variant-provider"; }
"$py" -m venv --without-pip "$pv"
"$tools/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))' >"$("$pv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/wheelmatrix-tools.pth"
"$tools/bin/python" -m pip --python "$pv/bin/python" install -q --no-index --no-deps "$tmp"/provider-dist/*.whl >"$tmp/provider.log" 2>&1 ||
	{ show "$tmp/provider.log"; fatal "installing the provider plugin"; }
# variantlib ARGS...: its command line, run by the environment that has the plugin
variantlib() {
	"$pv/bin/python" -c 'from variantlib.commands.main import main; main()' "$@"
}

# The fixture under matrices/llm-rs-variants.yaml (its CI files left out): generate writes each
# backend's variant patch, features and [variant] table, which `wheelmatrix patch` applies
repo=$tmp/llm-rs
scratch_repo "$repo"
cp -RL "$ROOT/tests/fixtures/llm-rs/." "$repo/"
sed '/^ci:/,/^$/d' "$ROOT/matrices/llm-rs-variants.yaml" >"$repo/wheelmatrix.yaml"
printf 'ci: {}\n' >>"$repo/wheelmatrix.yaml"
commit_all "$repo"
"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate"; }
commit_all "$repo" generated
applied=
variant_patch() {  # variant_patch BACKEND: the pyproject.toml of BACKEND's build, by `wheelmatrix patch`
	if [ -n "$applied" ]; then
		"$WM" -C "$repo" patch --revert "$applied" >"$tmp/patch.log" 2>&1 ||
			{ show "$tmp/patch.log"; fatal "wheelmatrix patch --revert $applied"; }
	fi
	"$WM" -C "$repo" patch "$1" >"$tmp/patch.log" 2>&1 || { show "$tmp/patch.log"; fatal "wheelmatrix patch $1"; }
	applied=$1
	cp "$repo/pyproject.toml" "$tmp/pyproject-$1.toml"
}
# what variant.json and variants.json must say
cat >"$tmp/expected.json" <<JSON
{"default-priorities": {"namespace": ["nvidia"]},
 "providers": {"nvidia": {"plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
                          "requires": ["nvidia-variant-provider>=0.0.1,<1.0.0"]}},
 "variants": {"null": {}, "$label": {"nvidia": {"cuda_version_lower_bound": ["12.4"]}}}}
JSON

# build BACKEND VERSION: maturin and auditwheel repair into $tmp/plain-VERSION/BACKEND/ (the sdist
# too for cpu)
build() {
	local b=$1 d=$tmp/build-$1-$2 out=$tmp/plain-$2/$1
	mkdir -p "$d" "$out"
	variant_patch "$b"
	(cd "$repo" && maturin build --release --locked --out "$d/dist" -i "$tools/bin/python" --auditwheel skip) >"$d/build.log" 2>&1 ||
		{ fail "$b $2: maturin build failed"; show "$d/build.log"; return 1; }
	if [ "$b" = cpu ]; then
		(cd "$repo" && maturin sdist --out "$out") >"$d/sdist.log" 2>&1 || { fail "$b $2: maturin sdist failed"; show "$d/sdist.log"; }
	fi
	auditwheel repair --wheel-dir "$out" "$d"/dist/*.whl >"$d/repair.log" 2>&1 ||
		{ fail "$b $2: auditwheel repair failed"; show "$d/repair.log"; return 1; }
}

# The provider plugin as variantlib sees it: the property with a CUDA 12.8 driver, none without
probe() {  # probe DRIVER: the supported values the plugin reports
	NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=$1 "$pv/bin/python" -c '
from nvidia_variant_provider.plugin import NvidiaVariantPlugin as P
print(" ".join(v for c in P.get_supported_configs() for v in c.values))'
}
[[ " $(probe 12.8) " == *" 12.4 "* ]] || fail "the provider with a 12.8 driver does not report 12.4: $(probe 12.8)"
[[ " $(probe 12.2) " != *" 12.4 "* ]] || fail "the provider with a 12.2 driver reports 12.4: $(probe 12.2)"
[ -z "$(probe "")" ] || fail "the provider without a driver reports: $(probe "")"

# release VERSION: both builds, made the null variant (cpu) and the variant cu124 (cuda) in
# $tmp/variants-VERSION/ with its variants.json, and checked; sets cpu, cuda, sdist (the plain
# builds), null, var and json (the variants)
release() {
	local v=$1 dir=$tmp/variants-$1
	{ build cpu "$v" && build cuda "$v"; } || fatal "the builds of $v failed (above)"
	cpu=$(ls "$tmp/plain-$v"/cpu/*.whl) cuda=$(ls "$tmp/plain-$v"/cuda/*.whl) sdist=$(ls "$tmp/plain-$v"/cpu/*.tar.gz)
	[[ ${cpu##*/} == "llm_rs-$v-cp38-abi3-manylinux"*.whl ]] || fail "the cpu build is ${cpu##*/}"
	[ "${cpu##*/}" = "${cuda##*/}" ] || fail "the builds' names differ: ${cpu##*/} and ${cuda##*/}"
	mkdir -p "$dir"
	variantlib make-variant -f "$cpu" -o "$dir" --null-variant --pyproject-toml "$tmp/pyproject-cpu.toml" >"$tmp/mv.log" 2>&1 ||
		{ fail "make-variant --null-variant"; show "$tmp/mv.log"; }
	NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 variantlib make-variant --no-isolation -f "$cuda" -o "$dir" \
		-p "$property" --variant-label "$label" --pyproject-toml "$tmp/pyproject-cuda.toml" >"$tmp/mv.log" 2>&1 ||
		{ fail "make-variant -p '$property' --variant-label $label"; show "$tmp/mv.log"; }
	grep -qF "Loading plugin for namespace nvidia via nvidia_variant_provider.plugin:NvidiaVariantPlugin" "$tmp/mv.log" ||
		{ fail "make-variant did not validate the property with the provider plugin"; show "$tmp/mv.log"; }
	null=$dir/${cpu##*/}
	null=${null%.whl}-null.whl
	var=$dir/${cuda##*/}
	var=${var%.whl}-$label.whl
	if [ ! -f "$null" ] || [ ! -f "$var" ]; then
		ls "$dir"
		fatal "make-variant did not write ${null##*/} and ${var##*/}"
	fi
	variantlib generate-index-json -d "$dir" >"$tmp/gij.log" 2>&1 || { fail "generate-index-json"; show "$tmp/gij.log"; }
	json=$dir/llm_rs-$v-variants.json
	[ -f "$json" ] || { ls "$dir"; show "$tmp/gij.log"; fatal "generate-index-json wrote no ${json##*/}"; }
	"$pv/bin/python" "$ROOT/tests/helpers/variant-check.py" "$tmp/expected.json" "null=$cpu" "$label=$cuda" -- "$null" "$var" "$json" >"$tmp/check.log" 2>&1 ||
		{ fail "the variants of $v (tests/helpers/variant-check.py)"; show "$tmp/check.log"; }
}
t0=$SECONDS
release "$version"
echo "builds and variants: $((SECONDS - t0)) s"
# a property the plugin does not know is refused
mkdir -p "$tmp/refused"
if variantlib make-variant --no-isolation -f "$cuda" -o "$tmp/refused" -p "nvidia :: cuda_version_lower_bound :: 10.0" \
	--variant-label old --pyproject-toml "$tmp/pyproject-cuda.toml" >"$tmp/mv.log" 2>&1; then
	fail "make-variant accepted a property the provider does not know"
elif ! grep -qF "invalid according to the plugins: nvidia :: cuda_version_lower_bound :: 10.0" "$tmp/mv.log"; then
	fail "make-variant refused an unknown property, but not for it"
	show "$tmp/mv.log"
fi

# The index: every variant, the variants.json, the plain default wheel (for installers without
# variants) and the sdist, in one index
site=$tmp/www/simple
pages() {
	tail -n +2 "$ROOT/templates/index-pages.py" | "$py" - "$@" >"$tmp/pages.log" 2>&1
}
pages --variants --site "$site" --project llm-rs "$null" "$var" "$json" "$cpu" "$sdist" || { fail "index-pages --variants"; show "$tmp/pages.log"; }
cp -R "$site" "$tmp/site-once"
pages --variants --site "$site" --project llm-rs "$null" "$var" "$json" || { fail "index-pages --variants, again"; show "$tmp/pages.log"; }
diff -r "$tmp/site-once" "$site" >"$tmp/diff" || { fail "a second run with the same files changed the pages"; show "$tmp/diff"; }
"$py" "$ROOT/tests/helpers/index-pages-check.py" "$u/simple/" llm-rs ">=3.8" "${null##*/}" "${var##*/}" "${json##*/}" "${cpu##*/}" "${sdist##*/}" >"$tmp/check.log" 2>&1 ||
	{ fail "the pages at $u/simple/"; show "$tmp/check.log"; }

# installed WHAT VENV VERSION BACKEND LABEL: llm-rs VERSION answers backend() BACKEND, and its
# dist-info holds the variant.json of LABEL (none for "-", the plain wheel)
installed() {
	local out got
	out=$(cd "$tmp/cwd" && "$2/bin/python" -I "$ROOT/tests/helpers/llm-rs-installed.py" "$3" "$4" 2>&1) || { fail "$1: $out"; return; }
	got=$("$2/bin/python" -I -c '
import importlib.metadata as md, json
t = md.distribution("llm-rs").read_text("variant.json")
print(" ".join(json.loads(t)["variants"]) if t else "-")' 2>&1)
	[ "$got" = "$5" ] || { fail "$1: the installed variant is '$got', not '$5'"; return; }
	echo "ok   $1"
}
n=0
uv_install() {  # uv_install DRIVER VERSION BACKEND LABEL ARGS...: a fresh environment, uv pip install, the check
	local driver=$1 v=$2 backend=$3 want=$4 venv=$tmp/venv-$((n += 1))
	shift 4
	uv venv -q --python "$py" "$venv"
	# a cache of its own: what an earlier install cached of the index (its pages) does not count
	if NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=$driver UV_CACHE_DIR=$venv.cache uv pip install -v --python "$venv/bin/python" "$@" >"$venv.log" 2>&1; then
		installed "uv pip install $* (driver '$driver')" "$venv" "$v" "$backend" "$want"
	else
		fail "uv pip install $* (driver '$driver') failed"
		show "$venv.log"
	fi
}
uv_install 12.8 "$version" cuda "$label" --preview-features wheel-variants --index-url "$u/simple/" llm-rs
grep -qF "$u/simple/llm-rs/${json##*/}" "$tmp/venv-$n.log" || { fail "uv did not read ${json##*/} from the index"; show "$tmp/venv-$n.log"; }
uv_install "" "$version" cpu null --preview-features wheel-variants --index-url "$u/simple/" llm-rs
uv_install 12.2 "$version" cpu null --preview-features wheel-variants --index-url "$u/simple/" llm-rs
uv_install 12.8 "$version" cuda "$label" --preview-features wheel-variants --index-url "$u/html/" llm-rs
uv_install 12.8 "$version" cpu - --index-url "$u/simple/" llm-rs
# pip reads no variant wheel: it installs the plain default wheel, and without it nothing
pip_install() {  # pip_install VERSION INDEX: a fresh environment, pip install llm-rs, the check
	local venv=$tmp/venv-$((n += 1))
	"$py" -m venv --without-pip "$venv"
	if NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 "$tools/bin/python" -m pip --python "$venv/bin/python" install -q --only-binary :all: --index-url "$2" llm-rs >"$venv.log" 2>&1; then
		installed "pip install --index-url $2 llm-rs" "$venv" "$1" cpu -
	else
		fail "pip install --index-url $2 llm-rs failed"
		show "$venv.log"
	fi
}
pip_install "$version" "$u/simple/"
pages --variants --site "$tmp/www/only" --project llm-rs "$null" "$var" "$json" || { fail "index-pages --variants (variants only)"; show "$tmp/pages.log"; }
venv=$tmp/venv-pip-variants-only
"$py" -m venv --without-pip "$venv"
if "$tools/bin/python" -m pip --python "$venv/bin/python" install --only-binary :all: --index-url "$u/only/" llm-rs >"$venv.log" 2>&1; then
	fail "pip installed a variant wheel"
elif ! grep -qF "No matching distribution found for llm-rs" "$venv.log"; then
	fail "pip failed on an index of variant wheels only, but not for want of a wheel"
	show "$venv.log"
fi

# The next version: the site updated in place and a fresh deploy with --previous (the deployed
# site, over HTTP) keep the files of the first, its variants.json too, and agree byte for byte
first_null=$null first_var=$var first_json=$json first_cpu=$cpu first_sdist=$sdist
"$py" - "$repo" "$version" "$next" <<'PY' || fatal "setting the version $next"
import sys
repo, old, new = sys.argv[1:]
for name, before in (("Cargo.toml", 'version = "%s"'), ("Cargo.lock", 'name = "llm-rs"\nversion = "%s"')):
    path = repo + "/" + name
    text = open(path).read()
    assert text.count(before % old) == 1, (name, before % old)
    open(path, "w").write(text.replace(before % old, before % new))
PY
t0=$SECONDS
release "$next"
echo "builds and variants of $next: $((SECONDS - t0)) s"
fresh=$tmp/www/fresh
pages --variants --site "$fresh" --project llm-rs --previous "$u/simple" "$null" "$var" "$json" "$cpu" "$sdist" ||
	{ fail "index-pages --variants --previous"; show "$tmp/pages.log"; }
grep -qF "$u/simple/llm-rs/index.json: 5 files kept" "$tmp/pages.log" || { fail "--previous did not say it kept the 5 deployed files"; show "$tmp/pages.log"; }
pages --variants --site "$site" --project llm-rs "$null" "$var" "$json" "$cpu" "$sdist" || { fail "index-pages --variants, $next"; show "$tmp/pages.log"; }
diff -r "$site" "$fresh" >"$tmp/diff" || { fail "the updated site and the fresh deploy with --previous differ"; show "$tmp/diff"; }
"$py" "$ROOT/tests/helpers/index-pages-check.py" "$u/simple/" llm-rs ">=3.8" "${first_null##*/}" "${first_var##*/}" "${first_json##*/}" \
	"${first_cpu##*/}" "${first_sdist##*/}" "${null##*/}" "${var##*/}" "${json##*/}" "${cpu##*/}" "${sdist##*/}" >"$tmp/check.log" 2>&1 ||
	{ fail "the pages of both versions at $u/simple/"; show "$tmp/check.log"; }
uv_install 12.8 "$next" cuda "$label" --preview-features wheel-variants --index-url "$u/simple/" llm-rs
uv_install 12.8 "$version" cuda "$label" --preview-features wheel-variants --index-url "$u/simple/" "llm-rs==$version"
uv_install "" "$next" cpu null --preview-features wheel-variants --index-url "$u/fresh/" llm-rs
uv_install "" "$version" cpu null --preview-features wheel-variants --index-url "$u/fresh/" "llm-rs==$version"
pip_install "$next" "$u/fresh/"

# What index-pages.py --variants refuses
refuse() {  # refuse TEXT WHAT ARGS...
	local text=$1 what=$2
	shift 2
	rm -rf "$tmp/bad-site"
	if pages --site "$tmp/bad-site" --project llm-rs "$@"; then
		fail "$what: index-pages.py accepted it"
	elif ! grep -qF -- "$text" "$tmp/pages.log"; then
		fail "$what: no '$text' in"
		show "$tmp/pages.log"
	fi
}
mkdir -p "$tmp/bad"
"$py" - "$first_json" "$tmp/bad/${first_json##*/}" <<'PY' || fail "writing a variants.json of other properties"
import json, sys
doc = json.load(open(sys.argv[1]))
doc["variants"]["cu124"]["nvidia"]["cuda_version_lower_bound"] = ["12.8"]
json.dump(doc, open(sys.argv[2], "w"))
PY
refuse "is a variant wheel (PEP 825, label '$label')" "a variant wheel without --variants" --backend cuda "$first_var"
refuse "a variant wheel, without the NAME-VERSION-variants.json of version $version" "a variant wheel without its variants.json" --variants "$first_var"
refuse "gives label '$label' other properties than its variant.json" "a variants.json of other properties" --variants "$first_var" "$tmp/bad/${first_json##*/}"
refuse "neither a wheel" "a variants.json without --variants" --backend cuda "$first_json"
bad_name=${first_var##*/}
cp "$first_var" "$tmp/bad/${bad_name%-"$label".whl}-CU124.whl"
cp "$first_var" "$tmp/bad/${bad_name/-cp38-/-x1-cp38-}"
refuse "the variant label 'CU124' is not of 0-9, a-z, '_' and '.'" "a label in capitals" --variants "$tmp/bad/${bad_name%-"$label".whl}-CU124.whl" "$first_json"
refuse "(a build tag starts with a digit)" "a build tag not starting with a digit" --variants "$tmp/bad/${bad_name/-cp38-/-x1-cp38-}" "$first_json"
finish
