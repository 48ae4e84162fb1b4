"""maturin.py — packs a stand-in native module as a wheel laid out as maturin lays out the project.

usage: maturin.py PROJECT NATIVE OUTDIR

PROJECT holds pyproject.toml (a variant patch already applied) and Cargo.toml;
NATIVE is the compiled extension module.  The layout follows maturin's rules:
the module name is [tool.maturin] module-name, else Cargo's [lib] name, else
the crate's name; python-source (default: the project directory) holds the
Python package when a directory named after the module name's first
component is there (the mixed layout: the native module goes into that
package at the module name's path, or at <name>/<name> for a name without a
dot), otherwise the module is pure Rust and
maturin writes a package of the leaf's name holding the native module and an
__init__.py that re-exports it.  The wheel's name, version and requirements
come from [project], the version from Cargo.toml when it is dynamic.
"""
import base64
import hashlib
import os
import re
import sys
import sysconfig
import tomllib
import zipfile


def fail(message):
    sys.exit("maturin.py: " + message)


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def tree(top, prefix):
    """The files under top as (archive name, path), prefix naming top in the archive."""
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for f in sorted(filenames):
            if f.endswith(".pyc"):
                continue
            path = os.path.join(dirpath, f)
            yield prefix + "/" + os.path.relpath(path, top).replace(os.sep, "/"), path


def main(project, native, outdir):
    with open(os.path.join(project, "pyproject.toml"), "rb") as f:
        pyproject = tomllib.load(f)
    with open(os.path.join(project, "Cargo.toml"), "rb") as f:
        cargo = tomllib.load(f)
    meta = pyproject["project"]
    maturin = pyproject.get("tool", {}).get("maturin", {})
    name = meta["name"]
    version = meta.get("version")
    if version is None:
        if "version" not in meta.get("dynamic", []):
            fail("%s: no [project] version and none dynamic" % project)
        version = cargo["package"]["version"]
    module = (maturin.get("module-name") or cargo.get("lib", {}).get("name")
              or cargo["package"]["name"].replace("-", "_"))
    parts = module.split(".")
    source = os.path.normpath(os.path.join(project, maturin.get("python-source", "")))
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    with open(native, "rb") as f:
        so = f.read()

    files = []  # (archive name, bytes)
    if os.path.isdir(os.path.join(source, parts[0])):
        for arcname, path in tree(os.path.join(source, parts[0]), parts[0]):
            with open(path, "rb") as f:
                files.append((arcname, f.read()))
        # a module name without a dot puts the native module inside the package of that name
        files.append(("/".join(parts if len(parts) > 1 else parts * 2) + suffix, so))
    else:
        leaf = parts[-1]
        init = ("from .{0} import *\n\n__doc__ = {0}.__doc__\n"
                "if hasattr({0}, \"__all__\"):\n    __all__ = {0}.__all__\n").format(leaf)
        files.append((leaf + "/__init__.py", init.encode()))
        files.append((leaf + "/" + leaf + suffix, so))

    dist = re.sub(r"[-_.]+", "_", name).lower()
    info = "%s-%s.dist-info" % (dist, version)
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + version]
    if "requires-python" in meta:
        lines.append("Requires-Python: " + meta["requires-python"])
    lines += ["Requires-Dist: " + d for d in meta.get("dependencies", [])]
    files.append((info + "/METADATA", ("\n".join(lines) + "\n").encode()))
    tag = "cp%d%d-cp%d%d-%s" % (sys.version_info[:2] * 2 + (sysconfig.get_platform().replace("-", "_"),))
    wheel = "Wheel-Version: 1.0\nGenerator: wheelmatrix-tests-standin\nRoot-Is-Purelib: false\nTag: %s\n" % tag
    files.append((info + "/WHEEL", wheel.encode()))
    record = "".join("%s,%s,%d\n" % (n, digest(d), len(d)) for n, d in files) + info + "/RECORD,,\n"
    files.append((info + "/RECORD", record.encode()))

    os.makedirs(outdir, exist_ok=True)
    out = os.path.join(outdir, "%s-%s-%s.whl" % (dist, version, tag))
    with zipfile.ZipFile(out + ".part", "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            z.writestr(n, d)
    os.replace(out + ".part", out)
    print(out)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        fail("usage: maturin.py PROJECT NATIVE OUTDIR")
    main(*sys.argv[1:])
