#!/usr/bin/env bash
# t-shellcheck.sh — the project's shell scripts pass shellcheck.
set -euo pipefail
: "${ROOT:?}"
if ! command -v shellcheck >/dev/null 2>&1; then
	echo "FAIL: shellcheck is not installed: make test-deps (apt-get install shellcheck)"
	exit 1
fi
cd "$ROOT"
shopt -s nullglob
scripts=(tests/*.sh tests/tools/*.sh bench/*.sh)
[[ -f .ci/run ]] && scripts+=(.ci/run)
shellcheck --severity=style "${scripts[@]}"
