#!/bin/bash
# t-e2e-fixtures.sh — every variant of every fixture project (tests/fixtures/) built for real:
# `wheelmatrix generate` in a fresh git repository of the fixture; each variant patch applied with
# `git apply` and with `wheelmatrix patch` (the same change, during which `wheelmatrix list` still
# works) and reverted (the committed bytes); `wheelmatrix check` content with the committed output;
# `maturin build --release` and `maturin sdist` where the project's pyproject.toml is; a wheel
# built by pip from that sdist; auditwheel show and repair with the exclude list of the generated
# workflow; each wheel installed in a fresh virtual environment (pip for the repaired wheel, uv
# for the one built from the sdist) and checked from a directory outside the checkout: the
# distribution's name and version, the wheel's tags (also against `wheelmatrix list`) and that
# backend() answers the variant's backend under the unchanged import name.
#
# The tools are tests/tools/requirements.txt's (make check installs them), Rust is the machine's;
# the wheels are built on this Debian host, not in a manylinux container, so the platform tag is
# the one auditwheel finds for this glibc, not the generated workflow's manylinux_2_28.
# E2E_FIXTURES="llm-rs pure" limits the run to some fixtures.
. "$ROOT/tests/kit/lib.sh"
# each build, install and check below is checked where it happens: a failed one does not end the script
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

problems=()
bad() {  # bad FIXTURE/BACKEND WHAT [LOG]: a failed check, with the end of its log
	problems+=("$1: $2")
	fail "$1: $2"
	[ -n "${3:-}" ] && [ -s "$3" ] && tail -n 25 "$3" | sed 's/^/    /'
	return 1
}
# The fixtures: directory, where pyproject.toml is, import name (!NAME: the executable NAME), version, the
# wheel's python-abi tag, and each backend with its distribution (written here from the fixture's
# files: what a correct build gives).
fixtures='
llm-rs         .      llm_rs       0.2.15  cp38-abi3    cuda:llm-rs-cuda,opencl:llm-rs-opencl,metal:llm-rs-metal,cpu:llm-rs
pure           .      pure_rs      0.3.0   HOST-HOST    cuda:pure-rs-cuda,cpu:pure-rs
src-layout     .      src_layout   0.3.0   HOST-HOST    cuda:src-layout-cuda,cpu:src-layout
python-source  .      pysource_rs  0.3.0   HOST-HOST    cuda:pysource-rs-cuda,cpu:pysource-rs
workspace      python ws_rs        1.2.0   HOST-HOST    cuda:ws-rs-cuda,cpu:ws-rs
abi3           .      abi3_rs      0.3.0   cp310-abi3   cuda:abi3-rs-cuda,cpu:abi3-rs
bin            .      !bin-rs      0.4.0   py3-none     cuda:bin-rs-cuda,cpu:bin-rs
'
# HOST in a tag is $py's version (the matrices list 3.11, Debian 12's, and 3.12)
host=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')

# installed VENV WHEEL-LABEL DIST VERSION TAG MODULE BACKEND: the installed distribution (MODULE !NAME:
# the executable NAME prints BACKEND), checked from
# an empty directory with python -I (the checkout is nowhere on sys.path)
installed() {
	local venv=$1 label=$2 dist=$3 version=$4 tag=$5 module=$6 backend=$7 out
	mkdir -p "$tmp/cwd"
	if [[ $module == !* ]]; then
		module=${module#!}
		out=$(cd "$tmp/cwd" && "$venv/bin/$module" 2>&1) || { bad "$label" "the installed $module failed: $out"; return 1; }
		[ "$out" = "$backend" ] || { bad "$label" "the installed $module printed '$out', not '$backend'"; return 1; }
		module=
	fi
	out=$(cd "$tmp/cwd" && "$venv/bin/python" -I - "$dist" "$version" "$tag" "$module" "$backend" 2>&1 <<'PY'
import importlib, importlib.metadata as md, os, sys
dist, version, tag, module, backend = sys.argv[1:]
try:
    d = md.distribution(dist)
except md.PackageNotFoundError:
    sys.exit("%s is not installed; installed: %s" % (dist, sorted(x.metadata["Name"] for x in md.distributions())))
problems = []
if d.version != version:
    problems.append("version %s, not %s" % (d.version, version))
tags = [line.split(": ", 1)[1] for line in d.read_text("WHEEL").splitlines() if line.startswith("Tag: ")]
if not tags or any(not t.startswith(tag + "-") for t in tags):
    problems.append("installed tags %s, not %s-*" % (tags, tag))
if module:
    m = importlib.import_module(module)
    site = os.path.realpath(sys.prefix)
    if not os.path.realpath(m.__file__).startswith(site + os.sep):
        problems.append("%s came from %s, not the environment" % (module, m.__file__))
    if m.backend() != backend:
        problems.append("%s.backend() is %r, not %r" % (module, m.backend(), backend))
print("; ".join(problems))
sys.exit(bool(problems))
PY
	) || { bad "$label" "installed: $out"; return 1; }
}

# variant FIXTURE REPO PYDIR MODULE VERSION TAG BACKEND DIST: one variant built every way
variant() {
	local fx=$1 repo=$2 pydir=$3 module=$4 version=$5 tag=$6 backend=$7 dist=$8
	local label=$fx/$backend w=$tmp/$fx-$backend patch=.wheelmatrix/patches/$backend.patch plat libs
	mkdir -p "$w"
	# the patch, by git and by wheelmatrix: the same change; the default of rename has none
	if [ -f "$repo/$patch" ]; then
		git -C "$repo" apply "$patch" >"$w/apply.log" 2>&1 || { bad "$label" "git apply $patch failed" "$w/apply.log"; return; }
		git -C "$repo" diff >"$w/git-apply.diff"
		git -C "$repo" checkout -q -- .
		"$WM" -q -C "$repo" patch "$backend" >"$w/patch.log" 2>&1 || { bad "$label" "wheelmatrix patch $backend failed" "$w/patch.log"; return; }
		git -C "$repo" diff >"$w/wm-patch.diff"
		cmp -s "$w/git-apply.diff" "$w/wm-patch.diff" ||
			{ diff -u "$w/git-apply.diff" "$w/wm-patch.diff" >"$w/diff.log"; bad "$label" "git apply and wheelmatrix patch differ" "$w/diff.log"; }
		# the documented local workflow: list works while a patch is applied, and says the same
		if "$WM" -C "$repo" list --format jsonl >"$w/list.jsonl" 2>"$w/list.log"; then
			cmp -s "$w/list.jsonl" "$tmp/list-$fx.jsonl" || bad "$label" "wheelmatrix list says something else while $patch is applied"
		else
			bad "$label" "wheelmatrix list fails while $patch is applied" "$w/list.log"
		fi
	elif [ "$dist" != "$(sed -n 's/^name = "\(.*\)"$/\1/p' "$repo/$pydir/pyproject.toml" | head -n 1)" ]; then
		bad "$label" "no $patch, but $dist is not the project's own name"
		return
	fi
	# what the generated CI builds: a release wheel and the sdist, where pyproject.toml is
	(cd "$repo/$pydir" && maturin build --release --locked --out "$w/dist" -i "$tools/bin/python" --auditwheel skip) >"$w/build.log" 2>&1 ||
		bad "$label" "maturin build --release failed" "$w/build.log"
	(cd "$repo/$pydir" && maturin sdist --out "$w/sdist") >"$w/sdist.log" 2>&1 ||
		bad "$label" "maturin sdist failed" "$w/sdist.log"
	if [ -f "$repo/$patch" ]; then
		"$WM" -q -C "$repo" patch --revert "$backend" >"$w/revert.log" 2>&1 || bad "$label" "wheelmatrix patch --revert $backend failed" "$w/revert.log"
	fi
	[ -z "$(git -C "$repo" status --porcelain)" ] || { git -C "$repo" status --short >"$w/status.log"; bad "$label" "the working tree is not as committed after the build" "$w/status.log"; git -C "$repo" checkout -q -- .; }

	# the sdist: its name, and a wheel built from it by pip with the pinned maturin as the backend
	local sd=("$w"/sdist/*.tar.gz)
	if [ -f "${sd[0]}" ]; then
		"$py" "$ROOT/tests/helpers/e2e.py" sdist "${sd[0]}" "$dist" "$version" >"$w/check.log" 2>&1 || bad "$label" "sdist" "$w/check.log"
		MATURIN_PEP517_ARGS=--locked "$tools/bin/python" -m pip wheel -q --no-deps --no-build-isolation --no-index \
			-w "$w/from-sdist" "${sd[0]}" >"$w/pip-wheel.log" 2>&1 || bad "$label" "pip wheel from the sdist failed" "$w/pip-wheel.log"
	fi
	# the wheel built from the checkout: auditwheel with the workflow's exclude list, pip, the checks
	local wh=("$w"/dist/*.whl)
	if [ -f "${wh[0]}" ]; then
		libs=$("$py" "$ROOT/tests/helpers/e2e.py" exclude "$repo/.github/workflows/wheels.yml" "$backend")
		local exclude=()
		for lib in $libs; do exclude+=(--exclude "$lib"); done
		auditwheel show "${wh[0]}" >"$w/show.log" 2>&1 || bad "$label" "auditwheel show failed" "$w/show.log"
		if auditwheel repair "${exclude[@]}" --wheel-dir "$w/repaired" "${wh[0]}" >"$w/repair.log" 2>&1; then
			wh=("$w"/repaired/*.whl)
		else
			bad "$label" "auditwheel repair ${exclude[*]} failed" "$w/repair.log"
		fi
		if plat=$("$py" "$ROOT/tests/helpers/e2e.py" wheel "${wh[0]}" "$dist" "$version" "$tag" 2>&1); then
			[[ $plat == manylinux_*_x86_64* ]] || bad "$label" "platform tag $plat of ${wh[0]##*/}"
		else
			bad "$label" "$plat"
		fi
		"$py" "$ROOT/tests/helpers/e2e.py" jobs "$w/../list-$fx.jsonl" "$backend" >"$w/jobs"
		grep -qxF "$tag" "$w/jobs" || bad "$label" "wheelmatrix list gives $backend the tags '$(tr '\n' ' ' <"$w/jobs")' but the wheel is $tag"
		if ! { "$py" -m venv --without-pip "$w/venv-pip" &&
			"$tools/bin/python" -m pip --python "$w/venv-pip/bin/python" install -q --no-index --no-deps "${wh[0]}"; } >"$w/pip.log" 2>&1; then
			bad "$label" "pip install ${wh[0]##*/} failed" "$w/pip.log"
			return
		fi
		installed "$w/venv-pip" "$label (pip, ${wh[0]##*/})" "$dist" "$version" "$tag" "$module" "$backend"
	fi
	local fs=("$w"/from-sdist/*.whl)
	if [ -f "${fs[0]}" ]; then
		if plat=$("$py" "$ROOT/tests/helpers/e2e.py" wheel "${fs[0]}" "$dist" "$version" "$tag" 2>&1); then :; else bad "$label" "the wheel built from the sdist: $plat"; fi
		if ! { uv venv -q --python "$py" "$w/venv-uv" &&
			uv pip install -q --offline --no-index --no-deps --python "$w/venv-uv/bin/python" "${fs[0]}"; } >"$w/uv.log" 2>&1; then
			bad "$label" "uv pip install ${fs[0]##*/} failed" "$w/uv.log"
			return
		fi
		installed "$w/venv-uv" "$label (uv, from the sdist)" "$dist" "$version" "$tag" "$module" "$backend"
	fi
}

# the seed fixture's matrix is the bundled example's
cmp -s "$ROOT/matrices/llm-rs.yaml" "$ROOT/tests/fixtures/llm-rs/wheelmatrix.yaml" ||
	bad llm-rs "tests/fixtures/llm-rs/wheelmatrix.yaml is not matrices/llm-rs.yaml"

start=$SECONDS
while read -r fx pydir module version tag backends; do
	[ -n "$fx" ] || continue
	[[ -z ${E2E_FIXTURES:-} || " $E2E_FIXTURES " == *" $fx "* ]] || continue
	t0=$SECONDS
	n=${#problems[@]}
	repo=$tmp/$fx
	cp -RL "$ROOT/tests/fixtures/$fx" "$repo"
	scratch_repo "$repo" && commit_all "$repo" fixture
	if ! "$WM" -q -C "$repo" generate >"$tmp/gen-$fx.log" 2>&1; then
		bad "$fx" "wheelmatrix generate failed" "$tmp/gen-$fx.log"
		continue
	fi
	commit_all "$repo" generated
	"$WM" -C "$repo" list --format jsonl >"$tmp/list-$fx.jsonl" 2>"$tmp/list-$fx.log" || bad "$fx" "wheelmatrix list failed" "$tmp/list-$fx.log"
	"$WM" -C "$repo" check >"$tmp/check-$fx.log" 2>&1 || bad "$fx" "wheelmatrix check fails on what generate wrote, committed" "$tmp/check-$fx.log"
	IFS=, read -ra pairs <<<"$backends"
	for pair in "${pairs[@]}"; do
		variant "$fx" "$repo" "$pydir" "$module" "$version" "${tag//HOST/$host}" "${pair%%:*}" "${pair#*:}"
	done
	if [ ${#problems[@]} = "$n" ]; then
		echo "ok   $fx ($((SECONDS - t0)) s)"
	else
		echo "FAILED $fx: $((${#problems[@]} - n)) failures ($((SECONDS - t0)) s)"
	fi
done <<<"$fixtures"

echo "$((SECONDS - start)) s"
if [ ${#problems[@]} -gt 0 ]; then
	echo "${#problems[@]} failures:"
	printf '  %s\n' "${problems[@]}"
fi
finish
