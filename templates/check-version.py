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

# PEP 440's normalisation, as maturin applies it to Cargo's version: 0.8.0-dev.0 is 0.8.0.dev0,
# 1.0.0-alpha.1 1.0.0a1, -beta.2 b2, -rc.1, -pre.1 and -c.1 rc1, 1.0.0-1 1.0.0.post1.
PEP440 = re.compile(r"""v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_n1>\d+)|[-_.]?(?P<post>post|rev|r)[-_.]?(?P<post_n2>\d+)?)?
    (?:[-_.]?(?P<dev>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z\d]+(?:[-_.][a-z\d]+)*))?""", re.VERBOSE | re.IGNORECASE)

def pep440(version):
    m = PEP440.fullmatch(version.strip())
    if not m:
        fail(f"version {version} is not a PEP 440 version: maturin refuses it")
    v = m.groupdict()
    out = f"{int(v['epoch'])}!" if v["epoch"] and int(v["epoch"]) else ""
    out += ".".join(str(int(n)) for n in v["release"].split("."))
    if v["pre"]:
        out += {"alpha": "a", "a": "a", "beta": "b", "b": "b"}.get(v["pre"].lower(), "rc") + str(int(v["pre_n"] or 0))
    if v["post_n1"] or v["post"]:
        out += ".post" + str(int(v["post_n1"] or v["post_n2"] or 0))
    if v["dev"]:
        out += ".dev" + str(int(v["dev_n"] or 0))
    if v["local"]:
        out += "+" + ".".join(re.split(r"[-_.]", v["local"].lower()))
    return out

project = load(os.environ["WM_PYPROJECT"]).get("project", {})
version = project.get("version")
if version is None:
    version = cargo_version(os.environ["WM_MANIFEST"])
if version is None:
    fail("no version in " + os.environ["WM_PYPROJECT"] + " or " + os.environ["WM_MANIFEST"])
version = pep440(version)
tag = os.environ["WM_TAG"]
if not PEP440.fullmatch(tag.strip()) or pep440(tag) != version:
    fail(f"the tag {tag} does not match the project version {version}")
print(f"publishing version {version}")
