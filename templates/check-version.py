# check-version.py — the publish jobs' first step: the tag must name the project's version.
import os, re, sys, tomllib

def fail(message):
    print("::error::" + message)
    sys.exit(1)

def load(path):
    with open(path, "rb") as f:
        return tomllib.load(f)

def cargo_version(manifest):
    version = load(manifest).get("package", {}).get("version")
    if isinstance(version, dict) and version.get("workspace"):
        d = os.path.dirname(os.path.abspath(manifest))
        while True:
            parent = os.path.dirname(d)
            if parent == d:
                fail(f"{manifest} takes its version from a workspace that was not found")
            d = parent
            root = os.path.join(d, "Cargo.toml")
            if os.path.exists(root) and "workspace" in load(root):
                return load(root)["workspace"]["package"]["version"]
    return version

def pep440(version):
    m = re.fullmatch(r"(\d+(?:\.\d+)*)(?:-(alpha|beta|rc)(?:\.?(\d+))?)?(?:\+.*)?", version)
    if not m:
        return version
    release, kind, number = m.groups()
    if not kind:
        return release
    return release + {"alpha": "a", "beta": "b", "rc": "rc"}[kind] + (number or "0")

project = load(os.environ["WM_PYPROJECT"]).get("project", {})
version = project.get("version")
if version is None:
    version = cargo_version(os.environ["WM_MANIFEST"])
if version is None:
    fail("no version in " + os.environ["WM_PYPROJECT"] + " or " + os.environ["WM_MANIFEST"])
version = pep440(version)
tag = os.environ["WM_TAG"]
if tag.removeprefix("v") != version:
    fail(f"the tag {tag} does not match the project version {version}")
print(f"publishing version {version}")
