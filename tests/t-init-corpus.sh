#!/bin/bash
# t-init-corpus.sh — init on every pyproject.toml of the corpus: a matrix that loads and lists jobs,
# or, for the files that are no maturin project here, a clear error.
#
# The corpus is the sdists of real maturin projects pinned in tests/tools/corpus.txt, installed by
# tests/tools/install-testdata.sh (`make testdata`, which `make check` runs); without it the test
# fails and says how to install it.
. "$ROOT/tests/kit/lib.sh"
testdata corpus
corpus=$data/corpus
# project, pyproject.toml path, and what init must do: "ok BACKENDS" (the backends it proposes, from
# the GPU features of that Cargo.toml, read by hand) or "error TEXT"
while read -r project path outcome rest; do
	[ -d "$tmp/$project" ] || cp -r "$corpus/$project" "$tmp/"
	repo=$tmp/$project
	rm -f "$repo/wheelmatrix.yaml"
	wm -q -C "$repo" init --offline --pyproject "$path"
	if [ "$outcome" = error ]; then
		expect_status 2 "$project/$path"
		expect_err "$rest" "$project/$path"
		[ ! -e "$repo/wheelmatrix.yaml" ] || fail "$project/$path: init wrote wheelmatrix.yaml"
		continue
	fi
	expect_status 0 "$project/$path: init"
	((status == 0)) || continue
	if ! "$WM" -C "$repo" list --format jsonl >"$tmp/jobs" 2>"$tmp/err" || [ ! -s "$tmp/jobs" ]; then
		fail "$project/$path: the matrix init wrote does not list jobs: $(cat "$tmp/err")"
		continue
	fi
	got=$(python3 -c 'import json, sys
seen = []
for line in open(sys.argv[1]):
    b = json.loads(line)["backend"]
    if b not in seen:
        seen.append(b)
print(" ".join(sorted(seen)))' "$tmp/jobs")
	[ "$got" = "$rest" ] || fail "$project/$path: backends '$got', want '$rest'"
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
finish
