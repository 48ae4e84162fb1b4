#!/bin/bash
# t-init-corpus.sh — init on every pyproject.toml of the corpus: a matrix that loads and lists jobs,
# or, for the files that are no maturin project here, a clear error.
#
# The corpus is the sdists of real maturin projects pinned in tests/tools/corpus.txt, installed by
# tests/tools/install-testdata.sh (`make testdata`, which `make check` runs); without it the test
# fails and says how to install it.
set -euo pipefail
: "${WM:?}" "${ROOT:?}"
data=$("$ROOT/tests/tools/install-testdata.sh" --dir)
corpus=$data/corpus
if [ ! -f "$data/complete" ] || [ ! -d "$corpus" ]; then
	echo "FAIL: the corpus is not installed in $data: run 'make testdata' (tests/tools/install-testdata.sh)"
	exit 1
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
candle-nn-0.4.2 pyproject.toml ok cpu cuda
jiter-0.16.0 pyproject.toml ok cpu
llm-rs-0.2.15 pyproject.toml ok clblast cpu cublas metal
mistralrs-0.3.1 pyproject.toml ok cpu cuda cudnn metal
orjson-3.11.8 pyproject.toml ok cpu
polars-1.43.2 pyproject.toml error builds with 'setuptools.build_meta', not maturin
polars-runtime-32-1.43.2 pyproject.toml ok cpu
polars-runtime-64-1.43.2 pyproject.toml ok cpu
polars-runtime-compat-1.43.2 pyproject.toml ok cpu
pydantic-core-2.41.5 pyproject.toml ok cpu
rpds-py-2026.6.3 pyproject.toml ok cpu
tokenizers-0.23.1 pyproject.toml ok cpu
LIST
exit $fail
