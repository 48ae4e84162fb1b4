#!/bin/bash
# t-e2e-runners.sh — the generated CI's Linux x86_64 jobs run for real on this machine, on the seed
# fixture (tests/fixtures/llm-rs) and on the project in python/ under a Cargo workspace
# (tests/fixtures/workspace):
#
# - GitLab: gitlab-ci-local (tests/external) runs the generated .gitlab-ci.yml's build and smoke
#   test jobs of each backend without a toolkit, and every sdist job, with its shell executor
#   (--force-shell-executor: the job's image is not pulled, the scripts run here; each job in its
#   own copy of the checkout), where Rust and the pinned maturin are already installed.
# - GitHub: tests/helpers/replay-github.py runs each Linux x86_64 build job entry and each sdist job of
#   the generated workflow, step by step, in a fresh clone (see its header for what it does not
#   emulate: containers, toolkit recipes).
#
# Every wheel is then installed in a fresh virtual environment and imported from outside the
# checkout: its distribution name, and backend() answering the variant's backend; every sdist
# names its distribution and carries the backend's features.  What is not the generated file's:
# the manylinux level (WM_COMPATIBILITY, and the replay's) is this machine's glibc, since the
# wheels are built here and not in the manylinux image; and the toolkits' dnf recipes do not run.
. "$ROOT/tests/kit/lib.sh"
# each build, run and install below is checked where it happens: a failed one does not end the script
set +e
# shellcheck source=tests/kit/e2e-env.sh
. "$ROOT/tests/kit/e2e-env.sh"

glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"
glibc=$(ldd --version 2>/dev/null | sed -n '1s/.* \([0-9]*\)\.\([0-9]*\)$/\1_\2/p')
[ -n "$glibc" ] || fatal "cannot tell this machine's glibc version from 'ldd --version'"
host=manylinux_$glibc

# interpreter MINOR: an interpreter of CPython 3.MINOR (the jobs' WM_PYTHON and setup-python)
interpreter() {
	local p
	for p in "$(command -v "python3.$1" 2>/dev/null)" /usr/bin/python3."$1" "$HOME"/.pyenv/versions/3."$1".*/bin/python3."$1"; do
		[ -x "$p" ] && "$p" -c 'import venv' 2>/dev/null && { printf '%s\n' "$p"; return 0; }
	done
	return 1
}

# venv DIR MINOR [TOOLS]: a fresh virtual environment of CPython 3.MINOR, with the pinned maturin
# and auditwheel when TOOLS is given
venv() {
	local python
	python=$(interpreter "$2") || { fail "no CPython 3.$2 to run the jobs with: install it (apt-get install python3.$2, or pyenv install 3.$2)"; return 1; }
	uv venv -q --seed --python "$python" "$1" || return 1
	[ -z "${3:-}" ] || uv pip install -q --python "$1/bin/python" --require-hashes --no-deps \
		-r "$ROOT/tests/tools/requirements.txt" || return 1
}

# installed WHEEL DIST BACKEND MODULE: installs WHEEL in a fresh environment and checks it
installed() {
	local env=$tmp/check-$RANDOM minor
	minor=$(basename "$1" | sed -n 's/.*-cp3\([0-9]*\)-.*/\1/p')
	[ "${minor:-8}" -lt 11 ] && minor=12
	venv "$env" "${minor:-12}" || return 1
	uv pip install -q --python "$env/bin/python" "$1" || { fail "$(basename "$1"): uv cannot install it"; return 1; }
	(cd "$tmp" && "$env/bin/python" -I - "$2" "$3" "$4" <<'PY') || fail "$(basename "$1"): not the $3 build of $2"
import importlib, importlib.metadata as md, sys
dist, backend, module = sys.argv[1:]
m = importlib.import_module(module)
ok = md.distribution(dist).metadata["Name"] == dist and m.backend() == backend and "site-packages" in m.__file__
print(f"{dist}: {module}.backend() = {m.backend()!r} from {m.__file__}")
sys.exit(0 if ok else 1)
PY
}

# sdist_is TARBALL DIST FEATURE: the sdist names DIST and its pyproject.toml lists FEATURE
sdist_is() {
	"$py" - "$@" <<'PY' || fail "$(basename "$1") is not the sdist of $2 with feature $3"
import sys, tarfile, tomllib
path, dist, feature = sys.argv[1:]
with tarfile.open(path) as t:
    names = t.getnames()
    top = names[0].split("/")[0]
    pkg = t.extractfile(top + "/PKG-INFO").read().decode()
    pyprojects = [n for n in names if n.endswith("/pyproject.toml") and n.count("/") <= 2]
    pp = tomllib.loads(t.extractfile(sorted(pyprojects, key=len)[0]).read().decode())
name = [l.split(": ", 1)[1] for l in pkg.splitlines() if l.startswith("Name: ")][0]
features = pp.get("tool", {}).get("maturin", {}).get("features", [])
ok = name == dist and (feature == "-" or feature in features)
print(f"{path.rsplit('/', 1)[-1]}: Name {name}, features {features}")
sys.exit(0 if ok else 1)
PY
}

# The fixtures: name, the build job's Python minor, module, then backend:distribution:feature.
fixtures='
llm-rs     12  llm_rs  cuda:llm-rs-cuda:cublas opencl:llm-rs-opencl:clblast metal:llm-rs-metal:metal cpu:llm-rs:-
workspace  11  ws_rs   cuda:ws-rs-cuda:cublas cpu:ws-rs:-
'
while read -r name minor module backends; do
	[ -n "$name" ] || continue
	repo=$tmp/$name
	cp -r "$ROOT/tests/fixtures/$name" "$repo"
	scratch_repo "$repo"
	git -C "$repo" remote add origin "https://gitlab.example/wheelmatrix/$name.git"
	"$WM" -C "$repo" generate >/dev/null || { fail "$name: generate failed"; continue; }
	commit_all "$repo" "$name with its generated CI"

	# GitLab, with interpreters of both Python versions on PATH, maturin and auditwheel in each
	gl=$tmp/$name-gl
	if ! { venv "$gl-311" 11 tools && venv "$gl-312" 12 tools; }; then
		fail "$name: no environments for the GitLab jobs"
		continue
	fi
	jobs=()
	for spec in $backends; do
		IFS=: read -r b dist feature <<<"$spec"
		if "$py" -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); sys.exit(0 if sys.argv[2] in d else 1)' \
			"$repo/.gitlab-ci.yml" "sdist-$b"; then
			jobs+=("sdist-$b")
		fi
		[ "$feature" = - ] && jobs+=("build-$b-linux-x86_64" "test-$b-linux-x86_64")
	done
	echo "gitlab-ci-local: ${jobs[*]}"
	if ! (cd "$repo" && PATH=$(e2e_python "$gl-312")/bin:$(e2e_python "$gl-311")/bin:$PATH "$glci" --force-shell-executor --shell-isolation \
		--variable "WM_COMPATIBILITY=$host" "${jobs[@]}") >"$tmp/$name-gitlab.log" 2>&1; then
		fail "$name: gitlab-ci-local failed"
		grep -E 'FAIL|Error|error' "$tmp/$name-gitlab.log" | tail -n 20 | sed 's/^/    /'
	fi
	grep -E '^ (PASS|FAIL) ' "$tmp/$name-gitlab.log"
	grep -q "^test-cpu-linux-x86_64.* > $module from $e2e_targets/slot-$e2e_slot.python/cpython-3.1[12]/lib/python3.1[12]/site-packages/" "$tmp/$name-gitlab.log" ||
		fail "$name: the GitLab smoke test did not import $module from the installed wheel"
	for spec in $backends; do
		IFS=: read -r b dist feature <<<"$spec"
		sdist=$(ls "$repo"/dist/"$(echo "$dist" | tr - _)"-*.tar.gz 2>/dev/null)
		if grep -q "^sdist-$b:" "$repo/.gitlab-ci.yml"; then
			if [ -f "$sdist" ]; then sdist_is "$sdist" "$dist" "$feature"; else fail "$name: GitLab's sdist-$b made no sdist of $dist"; fi
		fi
		[ "$feature" = - ] || continue
		wheel=$(find "$repo/dist" -path "*/$b-linux-x86_64-*/*.whl" | head -n 1)
		if [ -f "$wheel" ]; then installed "$wheel" "$dist" "$b" "$module"; else fail "$name: GitLab's build-$b-linux-x86_64 made no wheel"; fi
	done

	# GitHub: each Linux x86_64 entry of each build job, and each sdist job, in a fresh clone
	"$py" - "$repo/.github/workflows/wheels.yml" >"$tmp/gh-jobs" <<'PY'
import sys, yaml
for name, job in yaml.safe_load(open(sys.argv[1]))["jobs"].items():
    if name.startswith("build-") and name.endswith("-linux"):
        for e in job["strategy"]["matrix"]["include"]:
            if "-linux-x86_64-" in e["id"]:
                print(name, e["id"])
    elif name.startswith("sdist-"):
        print(name, "-")
PY
	while read -r job id; do
		clone=$tmp/gh-$name-$job-$id
		git clone -q "$repo" "$clone"
		pyminor=$(sed -n 's/.*-cp3\([0-9]*\)$/\1/p' <<<"$id")
		venv "$clone.venv" "${pyminor:-$minor}" tools || { fail "$name: no environment for $job"; continue; }
		echo "replay: $name $job $id"
		entry=()
		[ "$id" = - ] || entry=("$id")
		run_env=$(e2e_python "$clone.venv")
		# each interpreter's builds in a cargo target directory of their own, kept in the slot: one
		# after another in one directory (3.11, then 3.12, then 3.11) would compile PyO3 at each
		if ! (cd "$clone" && PATH=$run_env/bin:$PATH WM_REPLAY_MANYLINUX=$host CARGO_TARGET_DIR=$CARGO_TARGET_DIR/t-e2e-runners/${run_env##*/} \
			"$py" "$ROOT/tests/helpers/replay-github.py" .github/workflows/wheels.yml "$job" "${entry[@]}") >"$clone.log" 2>&1; then
			fail "$name: the replay of $job $id failed"
			tail -n 20 "$clone.log" | sed 's/^/    /'
			continue
		fi
		grep '^replay: \(artifact\|the image\|the toolkit\|manylinux\)' "$clone.log" | sed 's/^/    /'
		b=${job#*-}
		b=${b%-linux}
		spec=$(tr ' ' '\n' <<<"$backends" | grep "^$b:")
		IFS=: read -r b dist feature <<<"$spec"
		if [ "$id" = - ]; then
			sdist=$(ls "$clone"/dist/*.tar.gz 2>/dev/null)
			if [ -f "$sdist" ]; then sdist_is "$sdist" "$dist" "$feature"; else fail "$name: $job made no sdist of $dist"; fi
		else
			grep -q "^$module from $run_env/lib/python3.[0-9]*/site-packages/" "$clone.log" || [ "$feature" != - ] ||
				fail "$name: $job's smoke test did not import $module from the installed wheel"
			wheel=$(ls "$clone"/dist/*.whl 2>/dev/null)
			if [ "$(wc -w <<<"$wheel")" = 1 ]; then installed "$wheel" "$dist" "$b" "$module"; else fail "$name: $job $id made no single wheel: $wheel"; fi
		fi
	done <"$tmp/gh-jobs"
done <<<"$fixtures"

finish
