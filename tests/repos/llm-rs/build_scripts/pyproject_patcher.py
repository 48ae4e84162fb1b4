# Writes $PYPROJECT_NAME (default llm-rs) into [project].name of pyproject.toml, so that one
# workflow per backend publishes that backend under a name of its own.
import os
import sys

import toml

path = sys.argv[1] if len(sys.argv) > 1 else "pyproject.toml"
name = os.environ.get("PYPROJECT_NAME", "llm-rs")
data = toml.load(path)
data["project"]["name"] = name
with open(path + ".new", "w", encoding="utf-8") as f:
    toml.dump(data, f)
os.replace(path + ".new", path)
print(f"{path}: [project].name is now {name}")
