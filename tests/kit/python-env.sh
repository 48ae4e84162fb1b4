# python-env.sh — sourced by the tests that run Python with PyYAML: sets $py and keeps tests/ clean.
# shellcheck shell=bash
# The python helpers are imported from tests/: leave no __pycache__ behind.
export PYTHONDONTWRITEBYTECODE=1
# PyYAML: .ci/run installs Debian's python3-yaml, for /usr/bin/python3 when python3 is another.
py=python3
"$py" -c 'import yaml' 2>/dev/null || py=/usr/bin/python3
export py
