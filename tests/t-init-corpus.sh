#!/bin/bash
# t-init-corpus.sh — init on every pyproject.toml of the corpus: a matrix that loads and lists jobs,
# or, for the files that are no maturin project here, a clear error.
set -euo pipefail
: "${WM:?}"
corpus=${SHARED:-}/corpus
if [ -z "${SHARED:-}" ] || [ ! -d "$corpus" ]; then
	echo "skip: ../shared/corpus is not here"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# project, pyproject.toml path, and what init must do: "ok BACKENDS" (the backends it proposes, from
# the GPU features of that Cargo.toml, read by hand) or "error TEXT"
while read -r project path outcome rest; do
	[ -d "$tmp/$project" ] || cp -r "$corpus/$project" "$tmp/"
	repo=$tmp/$project
	rm -f "$repo/wheelmatrix.yaml"
	set +e
	"$WM" -q -C "$repo" init --pyproject "$path" >"$tmp/out" 2>"$tmp/err"
	code=$?
	set -e
	if [ "$outcome" = error ]; then
		if [ "$code" != 2 ] || ! grep -qF -- "$rest" "$tmp/err" || [ -e "$repo/wheelmatrix.yaml" ]; then
			echo "FAIL $project/$path: exit $code, want 2 with '$rest'; stderr: $(cat "$tmp/err")"
			fail=1
		fi
		continue
	fi
	if [ "$code" != 0 ]; then
		echo "FAIL $project/$path: init exited $code: $(cat "$tmp/err")"
		fail=1
		continue
	fi
	if ! "$WM" -C "$repo" list --format jsonl >"$tmp/jobs" 2>"$tmp/err" || [ ! -s "$tmp/jobs" ]; then
		echo "FAIL $project/$path: the matrix init wrote does not list jobs: $(cat "$tmp/err")"
		fail=1
		continue
	fi
	got=$(python3 -c 'import json, sys
seen = []
for line in open(sys.argv[1]):
    b = json.loads(line)["backend"]
    if b not in seen:
        seen.append(b)
print(" ".join(sorted(seen)))' "$tmp/jobs")
	if [ "$got" != "$rest" ]; then
		echo "FAIL $project/$path: backends '$got', want '$rest'"
		fail=1
	fi
done <<'LIST'
EricLBuehler__mistral.rs mistralrs-pyo3/pyproject.toml ok cpu cuda cudnn metal
LLukas22__llm-rs-python pyproject.toml ok clblast cpu cublas metal
PyO3__maturin test-crates/pyo3-mixed-py-subdir/pyproject.toml ok cpu
PyO3__maturin test-crates/pyo3-mixed-workspace/pyproject.toml ok cpu
PyO3__maturin test-crates/pyo3-mixed/pyproject.toml ok cpu
PyO3__maturin test-crates/pyo3-pure/pyproject.toml ok cpu
PyO3__maturin test-crates/workspace-inheritance/python/pyproject.toml error no [project] table
crate-py__rpds pyproject.toml ok cpu
huggingface__candle candle-pyo3/pyproject.toml ok cpu cuda
huggingface__tokenizers bindings/python/pyproject.toml ok cpu
ijl__orjson pyproject.toml ok cpu
pola-rs__polars py-polars/pyproject.toml error builds with 'setuptools.build_meta', not maturin
pola-rs__polars py-polars/runtime/polars-runtime-32/pyproject.toml ok cpu
pola-rs__polars py-polars/runtime/polars-runtime-64/pyproject.toml ok cpu
pola-rs__polars py-polars/runtime/polars-runtime-compat/pyproject.toml ok cpu
pola-rs__polars py-polars/runtime/template/pyproject.toml error py-polars/runtime/template/Cargo.toml: error: no such file
pydantic__jiter crates/jiter-python/pyproject.toml ok cpu
pydantic__jiter pyproject.toml ok cpu
pydantic__pydantic-core pyproject.toml ok cpu
LIST
exit $fail
