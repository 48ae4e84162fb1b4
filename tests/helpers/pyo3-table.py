#!/usr/bin/env python3
"""pyo3-table.py — reads, from PyO3's own crates, which CPython each release builds for, and compares
it with templates/pyo3.yaml.

usage: tests/helpers/pyo3-table.py CRATES TEMPLATE     exit 1 naming each difference
       tests/helpers/pyo3-table.py CRATES --print      the table as read from the crates

CRATES holds pyo3-ffi-X.Y.Z/ and pyo3-build-config-X.Y.Z/ as crates.io's .crate archives unpack
(tests/tools/install-crates.sh).  From each pyo3-ffi release:
  python         build.rs SUPPORTED_VERSIONS_CPYTHON: min and max (a PY_3_N constant, or a
                 PythonVersion { major: 3, minor: N } literal)
  free-threaded  build.rs MIN_FREE_THREADED_VERSION when it has one; else 3.13 where
                 pyo3-build-config refuses free-threaded builds "earlier than 3.13" (0.23 to 0.28);
                 else none: build.rs refuses an interpreter built with the GIL disabled (0.22), or
                 does not know of one (older)
  abi3           the lowest abi3-py3N feature of its Cargo.toml
  abi3t          the lowest abi3t-py3N feature of its Cargo.toml (PEP 803), null when it has none
  pypy           build.rs SUPPORTED_VERSIONS_PYPY: min and max (max may be
                 SUPPORTED_VERSIONS_CPYTHON.max)
"""
import os
import re
import sys

import yaml


def version_expr(text, consts):
    """3.N from `PythonVersion { major: 3, minor: N }` or a PY_3_N constant."""
    text = text.strip()
    m = re.fullmatch(r"PythonVersion\s*\{\s*major:\s*3,\s*minor:\s*(\d+),?\s*\}", text, re.S)
    if m:
        return int(m.group(1))
    if text in consts:
        return consts[text]
    raise ValueError(f"cannot read a Python version from {text!r}")


def read_release(crates, version):
    ffi = os.path.join(crates, f"pyo3-ffi-{version}")
    config = os.path.join(crates, f"pyo3-build-config-{version}")
    with open(os.path.join(ffi, "build.rs"), encoding="utf-8") as f:
        build = f.read()
    consts = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"const (PY_3_\d+): PythonVersion = PythonVersion \{\s*major: 3,\s*minor: (\d+),?\s*\};", build)}
    m = re.search(r"const SUPPORTED_VERSIONS_CPYTHON: SupportedVersions = SupportedVersions \{\s*"
                  r"min: (.*?),\s*max: (.*?),\s*\};", build, re.S)
    if not m:
        raise ValueError(f"{ffi}/build.rs: no SUPPORTED_VERSIONS_CPYTHON")
    lo, hi = version_expr(m.group(1), consts), version_expr(m.group(2), consts)
    m = re.search(r"const SUPPORTED_VERSIONS_PYPY: SupportedVersions = SupportedVersions \{\s*"
                  r"min: (.*?),\s*max: (.*?),\s*\};", build, re.S)
    if not m:
        raise ValueError(f"{ffi}/build.rs: no SUPPORTED_VERSIONS_PYPY")
    pp_lo = version_expr(m.group(1), consts)
    pp_hi = hi if m.group(2).strip() == "SUPPORTED_VERSIONS_CPYTHON.max" else version_expr(m.group(2), consts)
    ft = None
    m = re.search(r"const MIN_FREE_THREADED_VERSION: PythonVersion = (.*?);", build, re.S)
    if m:
        ft = version_expr(m.group(1), consts)
    else:
        impl = open(os.path.join(config, "src", "impl_.rs"), encoding="utf-8").read()
        if re.search(r"free-threaded build on Python versions earlier than 3\.13", impl):
            ft = 13
        elif not re.search(r"GIL disabled, which is not yet supported", build) and "Py_GIL_DISABLED" in build:
            raise ValueError(f"{ffi}/build.rs: free-threaded support not recognised")
    with open(os.path.join(ffi, "Cargo.toml"), encoding="utf-8") as f:
        cargo = f.read()
    floors = [int(n) for n in re.findall(r"^abi3-py3(\d+)\s*=", cargo, re.M)]
    if not floors:
        raise ValueError(f"{ffi}/Cargo.toml: no abi3-py3N feature")
    tfloors = [int(n) for n in re.findall(r"^abi3t-py3(\d+)\s*=", cargo, re.M)]
    return {"crate": version, "python": [f"3.{lo}", f"3.{hi}"],
            "free-threaded": f"3.{ft}" if ft else None, "abi3": f"3.{min(floors)}",
            "abi3t": f"3.{min(tfloors)}" if tfloors else None,
            "pypy": [f"3.{pp_lo}", f"3.{pp_hi}"]}


def releases(crates):
    found = []
    for name in os.listdir(crates):
        m = re.fullmatch(r"pyo3-ffi-(\d+)\.(\d+)\.(\d+)", name)
        if m:
            found.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    return [f"{a}.{b}.{c}" for a, b, c in sorted(found)]


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    crates, template = sys.argv[1:]
    got = {}
    for version in releases(crates):
        series = ".".join(version.split(".")[:2])
        got[series] = read_release(crates, version)
    if template == "--print":
        for series, r in reversed(list(got.items())):
            ft = f'"{r["free-threaded"]}"' if r["free-threaded"] else "null"
            t = f'"{r["abi3t"]}"' if r["abi3t"] else "null"
            print(f'  "{series}": {{crate: {r["crate"]}, python: ["{r["python"][0]}", "{r["python"][1]}"], '
                  f'free-threaded: {ft}, abi3: "{r["abi3"]}", abi3t: {t}, pypy: ["{r["pypy"][0]}", "{r["pypy"][1]}"]}}')
        return 0
    with open(template, encoding="utf-8") as f:
        table = yaml.safe_load(f)["pyo3"]
    bad = 0
    if not got:
        print(f"no pyo3-ffi crate in {crates}")
        return 1
    for series, want in got.items():
        have = table.get(series)
        if have is None:
            print(f"{template}: PyO3 {series} ({want['crate']}) is missing")
            bad = 1
            continue
        have = dict(have, crate=str(have.get("crate")))
        if have != want:
            print(f"{template}: PyO3 {series}: {have}\n    but the crates say {want}")
            bad = 1
    for series in table:
        if series not in got:
            print(f"{template}: PyO3 {series} is not among the crates read ({', '.join(got)})")
            bad = 1
    if not bad:
        print(f"PyO3 {', '.join(got)}: the table agrees with pyo3-ffi and pyo3-build-config")
    return bad


if __name__ == "__main__":
    sys.exit(main())
