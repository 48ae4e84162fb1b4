#!/usr/bin/env python3
"""plan-index.py — writes the static simple index the plan tests serve with nginx: ROOT/simple/NAME/index.{json,html}.

The scene for matrices/llm-rs.yaml at version 0.3.0a1:
  llm-rs         0.2.0 (one wheel of 94 MiB, near PyPI's limit; a 32-bit Linux wheel and a CPython 3.7
                 one, which this release drops; a CPython 3.12 Windows one, whose place the abi3 wheel
                 takes) and part of 0.3.0a1 already uploaded, under names that differ from the planned
                 ones where real names legitimately vary, plus a musllinux wheel the matrix does not build
  llm-rs-cuda    all of 0.1.0 (a version published in full) and part of 0.2.0
  llm-rs-opencl  a project without files
  llm-rs-metal   no project (404)
"""
import html
import json
import os
import sys

MiB = 1 << 20
projects = {
    "llm-rs": [
        ("llm_rs-0.2.0-cp38-abi3-manylinux_2_28_x86_64.whl", 94 * MiB),
        ("llm_rs-0.2.0-cp38-abi3-manylinux_2_17_i686.manylinux2014_i686.whl", 40 * MiB),
        ("llm_rs-0.2.0-cp37-cp37m-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", 40 * MiB),
        ("llm_rs-0.2.0-cp312-cp312-win_amd64.whl", 30 * MiB),
        ("llm_rs-0.2.0.tar.gz", 2 * MiB),
        ("llm_rs-0.3.0a1-cp38-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", 30 * MiB),
        ("llm_rs-0.3.0a1-cp38-abi3-macosx_10_9_x86_64.whl", 20 * MiB),
        ("llm_rs-0.3.0a1-cp38-abi3-win_amd64.whl", 20 * MiB),
        ("llm_rs-0.3.0a1-cp38-abi3-musllinux_1_2_x86_64.whl", 30 * MiB),
        ("llm_rs-0.3.0a1.tar.gz", 2 * MiB),
    ],
    "llm-rs-cuda": [
        ("llm_rs_cuda-0.1.0-cp38-abi3-manylinux_2_28_x86_64.whl", 60 * MiB),
        ("llm_rs_cuda-0.1.0-cp38-abi3-win_amd64.whl", 50 * MiB),
        ("llm_rs_cuda-0.1.0.tar.gz", 1 * MiB),
        ("llm_rs_cuda-0.2.0-cp38-abi3-manylinux_2_28_x86_64.whl", 80 * MiB),
        ("llm_rs_cuda-0.2.0-cp38-abi3-win_amd64.whl", 70 * MiB),
    ],
    "llm-rs-opencl": [],
}

root = sys.argv[1]
for name, files in projects.items():
    d = os.path.join(root, "simple", name)
    os.makedirs(d, exist_ok=True)
    page = {
        "meta": {"api-version": "1.1"},
        "name": name,
        "versions": sorted({f.split("-")[1] for f, _ in files}),
        "files": [{"filename": f, "url": "../../files/" + f, "hashes": {"sha256": "0" * 64}, "size": size}
                  for f, size in files],
    }
    with open(os.path.join(d, "index.json"), "w") as out:
        json.dump(page, out, indent=1)
    with open(os.path.join(d, "index.html"), "w") as out:
        out.write('<!DOCTYPE html>\n<html>\n<head>\n<meta name="pypi:repository-version" content="1.1">\n'
                  "<title>Links for %s</title>\n</head>\n<body>\n<h1>Links for %s</h1>\n" % (name, name))
        for f, _ in files:
            out.write('<a href="../../files/%s#sha256=%s">%s</a><br>\n' % (html.escape(f), "0" * 64, html.escape(f)))
        out.write("</body>\n</html>\n")
