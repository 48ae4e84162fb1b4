#!/usr/bin/env bash
# t-shellcheck.sh — the project's shell scripts pass shellcheck.
# heavy: shellcheck over every script of the project
. "$ROOT/tests/kit/lib.sh"
need shellcheck "make test-deps (apt-get install shellcheck)"
cd "$ROOT"
shopt -s nullglob
scripts=(tests/*.sh tests/kit/*.sh tests/tools/*.sh bench/*.sh)
[[ -f .ci/run ]] && scripts+=(.ci/run)
shellcheck --severity=style "${scripts[@]}" || fail "shellcheck has findings (above)"
finish
