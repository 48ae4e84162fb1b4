#!/bin/bash
# t-variants-job.sh — strategy variants: the generated workflow's `variants` job and then its
# `index-pages` job, run for real on real builds, release the variant wheels and lay out the variant
# index that uv installs the right variant from.
#
# The llm-rs fixture under matrices/llm-rs-variants.yaml (cuda the variant cu124 with the property
# `nvidia :: cuda_version_lower_bound :: 12.4`, cpu the default and the null variant) with its GitHub
# workflow alone, the index URL on the loopback server: `wheelmatrix generate` writes the variant
# patches and the workflow. cpu and cuda are built as their build jobs (linux-x86_64) and the sdist
# job build them (the variant patch applied with `wheelmatrix patch`, maturin, auditwheel repair)
# into an artifact store named as the jobs' artifacts (wheels-<backend>-linux-x86_64-abi3,
# sdist-cpu). tests/helpers/replay-github.py then runs, step by step, in a fresh clone tagged v0.2.15, with
# what GitHub would give them (GITHUB_REPOSITORY, GITHUB_REF_NAME, GITHUB_SHA, GITHUB_SERVER_URL the
# loopback server, the configure-pages output base_url) and their `run:` scripts unchanged:
# - the `wheelmatrix-tag` job, which `variants` needs: the tag checked against the version;
# - the `variants` job: the default's patch applied (its
#   [variant] table), setup-python replaced by the pinned tools' Python (its variantlib 0.2.2
#   satisfies the step's `pip install`, offline), `variantlib make-variant` per backend,
#   `variantlib generate-index-json`, the attestation skipped (said so), `gh release create`
#   (a shim that checks its arguments and puts the files where nginx serves
#   $GITHUB_SERVER_URL/owner/llm-rs/releases/download/v0.2.15-variants/), the artifact `variants`
#   uploaded into the store;
# - the `index-pages` job: the artifact `variants` downloaded, templates/index-pages.py --variants
#   run by the "Lay out the variant index" step, the site uploaded and served at the Pages URL.
# Checked:
# - the release holds exactly the null and cu124 variant wheels, the variants.json, the plain cpu
#   wheel and the sdist, the same files as the artifact `variants`;
# - tests/helpers/index-pages-check.py reads the variant index (<index url>/llm-rs/) as pip does, every
#   file's sha256 and size through its URL, every URL the release v0.2.15-variants;
# - uv --preview-features wheel-variants installs the cu124 variant with a CUDA 12.8 driver
#   (NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION, read by uv's NVIDIA provider) and the null
#   variant without a driver or with a 12.2 one; pip installs the plain cpu wheel; each answers backend() with its backend;
# - with a tag other than the version the `wheelmatrix-tag` job fails, saying why, so the `variants` job, which needs it, does not run and
#   releases nothing; with no cuda wheel downloaded (the artifact wheels-cuda-* empty) it fails at
#   the step that makes cuda's variant wheels (variantlib finds no wheel) and releases nothing.
. "$ROOT/tests/kit/lib.sh"
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
. "$ROOT/tests/kit/plan-servers.sh"

[ -x "$tools/bin/variantlib" ] ||
	fatal "variantlib is not in $tools: run tests/tools/install.sh (make check does; tests/tools/requirements.txt pins it)"
export PIP_NO_CACHE_DIR=1
version=0.2.15 tag=v0.2.15 label=cu124
www=$tmp/www art=$tmp/artifacts
mkdir -p "$www/simple" "$art" "$tmp/cwd" "$tmp/n"
start_nginx "$tmp/n" "$www" || fatal "nginx (above)"
u=http://127.0.0.1:$HTTP_PORT
index=$u/simple/variants
release=$www/owner/llm-rs/releases/download/$tag-variants

# The fixture under the example matrix, its index URL on the loopback server, its GitHub workflow alone
repo=$tmp/llm-rs
scratch_repo "$repo"
cp -RL "$ROOT/tests/fixtures/llm-rs/." "$repo/"
"$py" - "$ROOT/matrices/llm-rs-variants.yaml" "$repo/wheelmatrix.yaml" "$index" <<'PY' || fatal "writing the matrix"
import re, sys
src, dst, url = sys.argv[1:]
text = open(src).read()
old = "index: {url: https://owner.github.io/llm-rs/variants}"
ci = re.compile(r"^ci:\n(?:  .*\n)*", re.M)
assert text.count(old) == 1 and len(ci.findall(text)) == 1, "the example matrix changed"
text = ci.sub("ci: {github: {}}\n", text.replace(old, "index: {url: %s}" % url))
open(dst, "w").write(text)
PY
commit_all "$repo" fixture
"$WM" -q -C "$repo" generate >"$tmp/generate.log" 2>&1 || { show "$tmp/generate.log"; fatal "wheelmatrix generate"; }
commit_all "$repo" generated
git -C "$repo" tag "$tag"
workflow=$repo/.github/workflows/wheels.yml
[ -f "$workflow" ] || fatal "generate wrote no workflow"
for j in variants index-pages; do
	"$py" -c 'import sys, yaml; sys.exit(sys.argv[2] not in yaml.safe_load(open(sys.argv[1]))["jobs"])' "$workflow" "$j" ||
		fatal "the workflow has no job $j"
done

# build BACKEND: the backend's linux-x86_64 wheel (and cpu's sdist) as its build and sdist jobs
# make them, into the artifact store
build() {
	local b=$1 d=$tmp/build-$1 w=$art/wheels-$1-linux-x86_64-abi3
	mkdir -p "$d" "$w"
	"$WM" -q -C "$repo" patch "$b" >"$d/patch.log" 2>&1 || { fail "$b: wheelmatrix patch"; show "$d/patch.log"; return 1; }
	(cd "$repo" && maturin build --release --locked --out "$d/dist" -i "$tools/bin/python" --auditwheel skip) >"$d/build.log" 2>&1 ||
		{ fail "$b: maturin build failed"; show "$d/build.log"; }
	if [ "$b" = cpu ]; then
		mkdir -p "$art/sdist-cpu"
		(cd "$repo" && maturin sdist --out "$art/sdist-cpu") >"$d/sdist.log" 2>&1 || { fail "$b: maturin sdist failed"; show "$d/sdist.log"; }
	fi
	"$WM" -q -C "$repo" patch --revert "$b" >"$d/patch.log" 2>&1 || { fail "$b: wheelmatrix patch --revert"; show "$d/patch.log"; }
	auditwheel repair --wheel-dir "$w" "$d"/dist/*.whl >"$d/repair.log" 2>&1 ||
		{ fail "$b: auditwheel repair failed"; show "$d/repair.log"; return 1; }
}
t0=$SECONDS
if ! { build cpu && build cuda; }; then
	fatal "the builds failed (above)"
fi
[ -z "$(git -C "$repo" status --porcelain)" ] || fatal "the builds left the checkout changed: $(git -C "$repo" status --porcelain)"
echo "builds: $((SECONDS - t0)) s"
plain=$(ls "$art"/wheels-cpu-linux-x86_64-abi3/*.whl) sdist=$(ls "$art"/sdist-cpu/*.tar.gz)
plain=${plain##*/} sdist=${sdist##*/}
null=${plain%.whl}-null.whl var=${plain%.whl}-$label.whl json=llm_rs-$version-variants.json

# replay LOG JOB REF [STORE]: JOB in a fresh clone of the repository at REF, GITHUB_REF_NAME REF,
# the artifacts of STORE (default: the builds' store)
n=0
replay() {
	local ws=$tmp/workspace-$((n += 1))
	git clone -q "$repo" "$ws" && git -C "$ws" checkout -q "$3" || return 1
	# PIP_NO_INDEX: the job's `pip install "variantlib[cli]==..."` must find it installed, never the network
	(cd "$ws" && env PIP_NO_INDEX=1 GITHUB_REPOSITORY=owner/llm-rs GITHUB_REF_NAME="$3" GITHUB_SERVER_URL="$u" \
		GITHUB_SHA="$(git -C "$ws" rev-parse HEAD)" WM_REPLAY_ARTIFACTS="${4:-$art}" WM_REPLAY_RELEASES="$www" \
		WM_REPLAY_PYTHON="$tools/bin/python" WM_REPLAY_PAGES_URL="$u/simple" WM_REPLAY_PAGES_DIR="$www/simple" \
		"$py" "$ROOT/tests/helpers/replay-github.py" "$workflow" "$2") >"$1" 2>&1
}

t0=$SECONDS
if ! replay "$tmp/variants.log" variants "$tag"; then
	show "$tmp/variants.log"
	fatal "the variants job failed"
fi
echo "variants job: $((SECONDS - t0)) s"
grep -qF "replay: no provenance attested" "$tmp/variants.log" || fail "the replay did not say it skipped the attestation"
grep -qF "replay: setup-python 3.12 replaced by $tools/bin/python" "$tmp/variants.log" || fail "the replay did not say which Python replaced setup-python's"
want=$(printf '%s\n' "$json" "$null" "$var" "$plain" "$sdist" | sort)
got=$(find "$release" -mindepth 1 -printf "%f\n" 2>/dev/null | sort)
[ "$got" = "$want" ] || fail "the release $tag-variants holds: $(echo "$got" | tr '\n' ' '), not: $(echo "$want" | tr '\n' ' ')"
diff -r "$release" "$art/variants" >"$tmp/diff" || { fail "the release and the artifact 'variants' differ"; show "$tmp/diff"; }
grep -qF "$index/" "$release.notes" 2>/dev/null || fail "the release notes do not name the index $index/: $(cat "$release.notes")"
# what make-variant wrote: each variant wheel's variant.json and the variants.json, by variantlib's validator
cat >"$tmp/expected.json" <<JSON
{"default-priorities": {"namespace": ["nvidia"]},
 "providers": {"nvidia": {"plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
                          "requires": ["nvidia-variant-provider>=0.0.1,<1.0.0"]}},
 "variants": {"null": {}, "$label": {"nvidia": {"cuda_version_lower_bound": ["12.4"]}}}}
JSON
"$tools/bin/python" "$ROOT/tests/helpers/variant-check.py" "$tmp/expected.json" "null=$art/wheels-cpu-linux-x86_64-abi3/$plain" \
	"$label=$(ls "$art"/wheels-cuda-linux-x86_64-abi3/*.whl)" -- "$release/$null" "$release/$var" "$release/$json" >"$tmp/check.log" 2>&1 ||
	{ fail "the variants the job made (tests/helpers/variant-check.py)"; show "$tmp/check.log"; }

t0=$SECONDS
if ! replay "$tmp/pages.log" index-pages "$tag"; then
	show "$tmp/pages.log"
	fatal "the index-pages job failed"
fi
echo "index-pages job: $((SECONDS - t0)) s"
"$py" "$ROOT/tests/helpers/index-pages-check.py" "$index/" llm-rs ">=3.8" "$null" "$var" "$json" "$plain" "$sdist" >"$tmp/check.log" 2>&1 ||
	{ fail "the variant index the job laid out"; show "$tmp/check.log"; }
"$py" - "$www/simple/variants/llm-rs/index.json" "$u/owner/llm-rs/releases/download/$tag-variants/" "$version" <<'PY' ||
import json, sys
doc = json.load(open(sys.argv[1]))
bad = [f["url"] for f in doc["files"] if not f["url"].startswith(sys.argv[2])]
if bad or doc["versions"] != [sys.argv[3]]:
    sys.exit("file URLs outside %s: %s; versions %s" % (sys.argv[2], bad, doc["versions"]))
PY
	fail "the variant index does not link the release's files"

# installed WHAT VENV BACKEND LABEL: llm-rs VERSION answers backend() BACKEND, imported from an
# empty directory, and its dist-info holds the variant.json of LABEL (none for "-", the plain wheel)
installed() {
	local out got
	out=$(cd "$tmp/cwd" && "$2/bin/python" -I "$ROOT/tests/helpers/llm-rs-installed.py" "$version" "$3" 2>&1) || { fail "$1: $out"; return; }
	got=$("$2/bin/python" -I -c '
import importlib.metadata as md, json
t = md.distribution("llm-rs").read_text("variant.json")
print(" ".join(json.loads(t)["variants"]) if t else "-")' 2>&1)
	[ "$got" = "$4" ] || { fail "$1: the installed variant is '$got', not '$4'"; return; }
	echo "ok   $1"
}
uv_install() {  # uv_install DRIVER BACKEND LABEL: a fresh environment, uv pip install llm-rs with the preview, the check
	local venv=$tmp/venv-$((n += 1))
	uv venv -q --python "$py" "$venv"
	if NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=$1 UV_CACHE_DIR=$venv.cache uv pip install -v --python "$venv/bin/python" \
		--preview-features wheel-variants --index-url "$index/" llm-rs >"$venv.log" 2>&1; then
		installed "uv pip install --preview-features wheel-variants --index-url $index/ llm-rs (driver '$1')" "$venv" "$2" "$3"
	else
		fail "uv pip install llm-rs (driver '$1') failed"
		show "$venv.log"
	fi
}
uv_install 12.8 cuda "$label"
uv_install "" cpu null
uv_install 12.2 cpu null
venv=$tmp/venv-pip
"$py" -m venv --without-pip "$venv"
if NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 "$tools/bin/python" -m pip --python "$venv/bin/python" install -q \
	--only-binary :all: --index-url "$index/" llm-rs >"$venv.log" 2>&1; then
	installed "pip install --index-url $index/ llm-rs" "$venv" cpu -
else
	fail "pip install --index-url $index/ llm-rs failed"
	show "$venv.log"
fi

# failures: a tag other than the version, which the tag check job (wheelmatrix-tag, which the
# variants job needs, so that GitHub does not run it) refuses, and the cuda wheels missing;
# neither releases anything
"$py" -c 'import sys, yaml; sys.exit("wheelmatrix-tag" not in yaml.safe_load(open(sys.argv[1]))["jobs"]["variants"]["needs"])' \
	"$workflow" || fail "the variants job does not need the tag check, wheelmatrix-tag"
replay "$tmp/right-tag.log" wheelmatrix-tag "$tag" || { fail "the tag check failed on $tag"; show "$tmp/right-tag.log"; }
git -C "$repo" tag v0.2.16
if replay "$tmp/wrong-tag.log" wheelmatrix-tag v0.2.16; then
	fail "the tag check succeeded with the tag v0.2.16 and the version $version"
elif ! grep -qF "::error::the tag v0.2.16 does not match the project version $version" "$tmp/wrong-tag.log"; then
	fail "the tag check failed on a wrong tag without saying why"
	show "$tmp/wrong-tag.log"
fi
[ ! -e "$www/owner/llm-rs/releases/download/v0.2.16-variants" ] || fail "the variants job released v0.2.16-variants with the wrong tag"
rm -rf "$release" "$release".*
mkdir -p "$tmp/no-cuda"
cp -R "$art/wheels-cpu-linux-x86_64-abi3" "$art/sdist-cpu" "$tmp/no-cuda/"
mkdir "$tmp/no-cuda/wheels-cuda-linux-x86_64-abi3"
if replay "$tmp/no-cuda.log" variants "$tag" "$tmp/no-cuda"; then
	fail "the variants job succeeded without the cuda wheels"
	show "$tmp/no-cuda.log"
elif ! grep -qF "replay-github.py: step 6 (Make the variant wheels of cuda (cu124)) failed" "$tmp/no-cuda.log" ||
	! grep -qF "::error::no wheels of backend cuda in dist/cuda/" "$tmp/no-cuda.log"; then
	fail "the variants job without the cuda wheels did not fail where it makes their variants, saying why"
	show "$tmp/no-cuda.log"
fi
[ ! -e "$release" ] || fail "the variants job released $tag-variants without the cuda wheels"
finish
