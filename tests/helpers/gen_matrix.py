#!/usr/bin/env python3
"""gen_matrix.py — seeded random valid wheelmatrix.yaml files for the property tests.

usage: python3 tests/helpers/gen_matrix.py SEED [OUT]   (writes the matrix to OUT, default stdout)

The same seed always gives the same matrix.  Every matrix is meant to be valid: platforms are
a random subset of the catalog (templates/platforms.yaml), Python is either a subset of the
supported versions or abi3 plus optional free-threaded versions, and there are one to five
backends with Cargo feature names from a safe list.  A backend that uses a toolkit from
templates/toolkits.yaml gets platform filters (exact ids and globs) that select only platforms
the toolkit builds on; every filter, exclude and include is checked against the generator's own
expansion (platforms in file order, then backends, then Python versions), so that each pattern
matches something, each exclude removes a job still there, no backend loses all its jobs, and
each include adds a job the matrix does not have.  `expected_ids` is that expansion: if the tool
rejects a generated matrix (exit 2), the generator is wrong and must be fixed, not the test.
"""

import fnmatch
import os
import random
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

VERSIONS = ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14"]
FREE_THREADED = ["3.13t", "3.14t"]
ABI3 = ["3.8", "3.9", "3.10"]
BACKEND_IDS = ["cpu", "cpu_avx", "gpu", "gpu_2", "accel", "fast", "blas", "opencl", "vk", "rocm_b", "apple", "simd", "core", "b_2", "x9",
               "cuda"]
SAFE_FEATURES = ["simd", "avx2", "fast-math", "serde", "parallel", "rayon", "openblas", "blas", "f16",
                 "pyo3/extension-module", "dep:half", "tokio/rt", "Extra_1", "v2.0"]
# A feature per toolkit, as real projects name them (each is one of the toolkit's `features`).
TOOLKIT_FEATURES = {"cuda": ["cublas", "cuda", "candle-core/cuda"], "rocm": ["hipblas", "rocm"],
                    "clblast": ["clblast", "opencl"], "vulkan": ["vulkan"], "metal": ["metal", "mps"],
                    "mkl": ["mkl", "candle-core/mkl"], "accelerate": ["accelerate"]}
# Build settings (docs/matrix.md, "Build settings") drawn for platforms and backends: features of no
# toolkit, profiles Cargo always knows (the matrices have no Cargo.toml), toolchains.
SETTING_FEATURES = ["jemalloc", "mimalloc", "avx512", "simd128"]
PROFILES = ["release", "dev", "bench"]
TOOLCHAINS = ["stable", "beta", "1.85.0", "nightly", "nightly-2026-01-15"]
# Runner labels actionlint knows, per platform, for the `runner` override.
RUNNERS = {"linux-x86_64": ["ubuntu-22.04", "ubuntu-24.04"], "linux-aarch64": ["ubuntu-22.04-arm"],
           "macos-arm64": ["macos-15"], "windows-x86_64": ["windows-2025"]}
ENV_VALUES = ["1", "on", "3.10", "a b", "x=y", "", "-O2 -g", "yes", "0", "path/to/dir"]


def _load(name):
    with open(os.path.join(ROOT, "templates", name), encoding="utf-8") as f:
        return yaml.safe_load(f)


PLATFORMS = _load("platforms.yaml")
TOOLKITS = _load("toolkits.yaml")


def _globs(pid):
    """Patterns that match a platform id: itself and a few globs built from it."""
    head, _, tail = pid.partition("-")
    out = {pid, head + "-*", "*-" + tail, head[:3] + "*", "*" + tail[-3:]}
    i = len(head) + 1 + len(tail) // 2
    out.add(pid[:i] + "?" + pid[i + 1:])
    out.add(head + "-[" + tail[0] + "]*")
    return sorted(out)


def _match(pattern, ids):
    return [p for p in ids if fnmatch.fnmatchcase(p, pattern)]


def _filter(rng, platforms, feasible):
    """A list of 1-3 patterns each matching, among the matrix's platforms, only feasible ones."""
    candidates = sorted({g for p in feasible for g in _globs(p)
                         if _match(g, platforms) and set(_match(g, platforms)) <= set(feasible)})
    return rng.sample(candidates, rng.randint(1, min(3, len(candidates))))


def _expand(platforms, backends, axis):
    jobs = []
    for p in platforms:
        for bid, b in backends.items():
            if p in b["_platforms"]:
                for py in axis:
                    jobs.append((bid, p, py))
    return jobs


def _py_key(py):
    if py == "abi3":
        return (0, 0, "")
    major, minor = py.rstrip("t").split(".")
    return (int(major), int(minor), py[-1] if py.endswith("t") else "")


def _job_id(job):
    bid, p, py = job
    tag = "abi3" if py == "abi3" else "cp" + py.replace(".", "")
    return "%s-%s-%s" % (bid, p, tag)


def _rule_matches(rule, job):
    return all(fnmatch.fnmatchcase(job[i], rule[k]) for i, k in enumerate(("backend", "platform", "python")) if k in rule)


def _exclude(rng, jobs, backends):
    """An exclude rule matching at least one of `jobs` that leaves every backend a job, or None."""
    for _ in range(30):
        bid, p, py = rng.choice(jobs)
        keys = rng.sample(["backend", "platform", "python"], rng.randint(1, 3))
        rule = {}
        for k in ("backend", "platform", "python"):
            if k not in keys:
                continue
            value = {"backend": bid, "platform": p, "python": py}[k]
            if k == "platform" and rng.random() < 0.4:
                value = rng.choice(_globs(p))
            if k == "python" and rng.random() < 0.4:
                value = "*t" if py.endswith("t") else rng.choice([py[:3] + "*", py, "*"]) if py != "abi3" else "abi*"
            rule[k] = value
        left = [j for j in jobs if not _rule_matches(rule, j)]
        if len(left) < len(jobs) and all(any(j[0] == b for j in left) for b in backends):
            return rule, left
    return None


def generate(seed):
    """Returns (matrix as a dict, the job ids the generator expects, as a sorted list)."""
    rng = random.Random(seed)
    catalog = list(PLATFORMS)
    platforms = rng.sample(catalog, rng.randint(1, min(8, len(catalog))))
    m = {"wheelmatrix": 1}
    name = rng.choice(["demo", "llm-rs", "gridcompute", "tensor-kit", "Fast.Lib"])
    m["project"] = {"name": name}
    if rng.random() < 0.5:
        m["project"]["module"] = name.lower().replace("-", "_").replace(".", "_")

    if rng.random() < 0.35:
        ft = sorted(rng.sample(FREE_THREADED, rng.randint(0, 2)))
        m["python"] = {"abi3": rng.choice(ABI3)}
        if ft:
            m["python"]["versions"] = ft
        axis = ["abi3"] + ft
    else:
        versions = rng.sample(VERSIONS + FREE_THREADED, rng.randint(1, 5))
        m["python"] = {"versions": versions}
        axis = sorted(versions, key=_py_key)
        # python.org ships Windows arm64 interpreters from 3.11: older versions are an error there
        if "windows-arm64" in platforms and any(not v.endswith("t") and _py_key(v) < _py_key("3.11")
                                                for v in versions):
            platforms = [p for p in platforms if p != "windows-arm64"] or ["windows-x86_64"]

    # a Pyodide platform builds its release's one CPython (an abi3 entry at or below it): any other
    # version of the axis is an error there, so the platform is left out of such a matrix
    for pid, p in PLATFORMS.items():
        if "pyodide" not in p or pid not in platforms:
            continue
        minor = ".".join(str(p["pyodide"]["python"]).split(".")[:2])
        if not all(v == minor or (v == "abi3" and _py_key(m["python"]["abi3"]) <= _py_key(minor)) for v in axis):
            platforms = [q for q in platforms if q != pid] or ["linux-x86_64"]

    if rng.random() < 0.5:
        m["platforms"] = platforms
    else:
        m["platforms"] = {}
        for p in platforms:
            over = {}
            if p in RUNNERS and rng.random() < 0.3:
                over["runner"] = rng.choice(RUNNERS[p])
            if PLATFORMS[p].get("family") == "manylinux" and rng.random() < 0.2:
                over["manylinux"] = rng.choice(["2014", "2_28"])
            m["platforms"][p] = over

    backends = {}
    default_done = False
    for bid in rng.sample(BACKEND_IDS, rng.randint(1, 5)):
        kinds = [k for k in TOOLKITS if set(TOOLKITS[k]["platforms"]) & set(platforms)]
        kind = rng.choice(kinds + [None] * 3)
        b = {}
        feasible = [p for p in platforms if kind is None or p in TOOLKITS[kind]["platforms"]]
        features = []
        if kind:
            features.append(rng.choice(TOOLKIT_FEATURES[kind]))
        features += rng.sample(SAFE_FEATURES, rng.randint(0 if kind else 1, 2))
        b["features"] = list(dict.fromkeys(features))
        if len(feasible) < len(platforms) or rng.random() < 0.4:
            b["platforms"] = _filter(rng, platforms, feasible)
            chosen = {p for g in b["platforms"] for p in _match(g, platforms)}
        else:
            chosen = set(platforms)
        if kind in ("cuda", "rocm", "vulkan"):
            t = TOOLKITS[kind]
            # only a version the installer of every OS it builds on lists (toolkits.yaml `installers`)
            oses = {PLATFORMS[p]["os"] for p in chosen}
            full = t.get("full-versions", {})
            versions = [v for v in t["versions"] if all(str(full.get(v, v)) in map(str, t.get("installers", {}).get(o, {}).get("versions", [full.get(v, v)]))
                                                        for o in oses)]
            b["toolkit"] = {kind: rng.choice(versions) if versions and rng.random() < 0.7 else {}}
        elif kind == "clblast" or kind in ("metal", "mkl", "accelerate") and rng.random() < 0.5:
            b["toolkit"] = {kind: {}}
        if kind is None and not default_done and rng.random() < 0.6:
            b["default"] = True
            default_done = True
        elif rng.random() < 0.2:
            b["dist"] = "%s-%s-build" % (name, bid.replace("_", "-"))
        if rng.random() < 0.3:
            b["env"] = {"APP_%s_%d" % (bid.upper(), i): rng.choice(ENV_VALUES) for i in range(rng.randint(1, 3))}
        if rng.random() < 0.2:
            b["dependencies"] = ["numpy>=1.24"]
        if rng.random() < 0.2:
            b["smoke"] = rng.random() < 0.5
        b["_platforms"] = chosen
        b["_feasible"] = set(feasible)
        backends[bid] = b

    jobs = _expand(platforms, backends, axis)
    excludes = []
    for _ in range(rng.randint(0, 3)):
        got = _exclude(rng, jobs, backends)
        if got:
            excludes.append(got[0])
            jobs = got[1]
    includes = []
    if rng.random() < 0.6:
        have = set(jobs)
        candidates = [(bid, p, py) for bid, b in backends.items() for p in platforms if p in b["_feasible"]
                      for py in axis if (bid, p, py) not in have]
        for job in rng.sample(candidates, min(len(candidates), rng.randint(1, 2))):
            includes.append({"backend": job[0], "platform": job[1], "python": job[2]})
            jobs.append(job)

    m["backends"] = {bid: {k: v for k, v in b.items() if not k.startswith("_")} for bid, b in backends.items()}
    if excludes:
        m["exclude"] = excludes
    if includes:
        m["include"] = includes
    m["distribution"] = {"strategy": "rename"}
    m["ci"] = {"github": {}}
    if rng.random() < 0.3:
        m["actions"] = {"actions/checkout": "%040x" % rng.getrandbits(160)}
    m["publish"] = {"pypi": {"trusted": rng.random() < 0.7, "environment": rng.choice(["pypi", "release"])}}
    # drawn last, so the rest of each seed's matrix stays what it was
    if rng.random() < 0.3:
        m["distribution"] = {"strategy": "meta"}
    _settings(rng, m, platforms, backends)
    return m, sorted(_job_id(j) for j in jobs)


def _layer(rng, linux, prefix):
    """Random build settings of one place; `linux`: the place builds on Linux platforms only."""
    s = {}
    if rng.random() < 0.4:
        s["features"] = rng.sample(SETTING_FEATURES, rng.randint(1, 2))
    if rng.random() < 0.2:
        s["no-default-features"] = rng.random() < 0.5
    if rng.random() < 0.3:
        s["profile"] = rng.choice(PROFILES)
    if rng.random() < 0.2:
        s["rust-toolchain"] = rng.choice(TOOLCHAINS)
        if s["rust-toolchain"].startswith("nightly") and rng.random() < 0.5:
            s["rustup-components"] = ["rust-src"]
            s["unstable-flags"] = ["build-std=std,panic_abort"]
    if linux and rng.random() < 0.2:
        s["zig"] = True
    if rng.random() < 0.3:
        s["env"] = {"%s_%d" % (prefix, i): rng.choice(ENV_VALUES) for i in range(rng.randint(1, 2))}
    return s


def _settings(rng, m, platforms, backends):
    """Build settings in every place; the ones that hold only for some jobs stay where they hold."""
    def linux(p):
        return PLATFORMS[p]["os"] == "linux" and not p.endswith("s390x")
    if isinstance(m["platforms"], list) and rng.random() < 0.5:
        m["platforms"] = {p: {} for p in m["platforms"]}
    if isinstance(m["platforms"], dict):
        for p in platforms:
            if rng.random() < 0.3:
                m["platforms"][p].update(_layer(rng, linux(p), "PLAT_%s" % p.upper().replace("-", "_")))
    for bid, b in m["backends"].items():
        mine = sorted(backends[bid]["_platforms"])
        # unstable flags ask for a nightly wherever they reach, which a platform's toolchain could undo
        if rng.random() < 0.3:
            layer = _layer(rng, all(linux(p) for p in mine), "SET_%s" % bid.upper())
            if "unstable-flags" in layer:
                layer.pop("unstable-flags")
                layer.pop("rustup-components", None)
            b.update({k: v for k, v in layer.items() if k not in ("features", "env")})
        if mine and rng.random() < 0.3:
            p = rng.choice(mine)
            layer = _layer(rng, linux(p), "PER_%s" % bid.upper())
            layer.pop("unstable-flags", None)
            layer.pop("rustup-components", None)
            if layer:
                b["per-platform"] = {p: layer}


def dump(m):
    return "# generated by tests/helpers/gen_matrix.py\n" + yaml.safe_dump(m, sort_keys=False, default_flow_style=None, width=1 << 20)


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: gen_matrix.py SEED [OUT]", file=sys.stderr)
        return 2
    text = dump(generate(int(argv[1]))[0])
    if len(argv) == 3:
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
