#!/usr/bin/env bash
# goals.sh — the performance goals in one run, each printed as met or NOT met with its numbers:
#   generate and generate --check on the seed example (tests/fixtures/llm-rs): median under 5 ms;
#   list, init and patch: libcurl not loaded, libgit2 not started unless the command needs it;
#   check --staged and check --worktree: at most 0.5 of git status at 10,000 tracked files and at
#   most 0.1 at 100,000, run in turn with it (bench/check.sh);
#   no regression: list of 10^6 jobs under 3 s and 1 GiB (bench/run.sh), plan with 8 connections
#   at least 6x faster than with 1 (bench/plan.sh).
#
# Usage: bench/goals.sh          (RUNS=N for N runs or pairs of each, default 21;
#                                 WHEELMATRIX=PATH to time another binary instead of build/wheelmatrix,
#                                 the default build, with Debian's libraries)
# Reported, not asserted: the script fails only when a command fails; the last lines are the goals.
set -euo pipefail

gen_target_ms=5
RUNS=${RUNS:-21}
# shellcheck source=bench/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
goals=$tmp/goals
: >"$goals"

echo "wheelmatrix: $("$wm" --version)"
echo
echo "== generate on the seed example (tests/fixtures/llm-rs, matrices/llm-rs.yaml), in a git repository"
seed=$tmp/seed
cp -R "$root/tests/fixtures/llm-rs" "$seed"
"$wm" -q -C "$seed" generate
git -C "$seed" init -q
git -C "$seed" add -A
git -C "$seed" commit -qm seed
"$wm" -C "$seed" generate --check
read -r a b _ _ _ < <(cd "$seed" && python3 "$here/pair.py" --runs "$runs" -- "$wm" generate -- "$wm" generate --check)
# what any process costs under the same harness, for scale
printf 'int main(void) { return 0; }\n' >"$tmp/empty.c"
cc -O2 -o "$tmp/empty" "$tmp/empty.c"
read -r e _ _ _ _ < <(python3 "$here/pair.py" --runs "$runs" -- "$tmp/empty" -- "$tmp/empty")
awk -v s="$e" 'BEGIN { printf "(a process that does nothing: median %.2f ms, started the same way)\n", s * 1000 }'
for pair in "generate:$a" "generate --check:$b"; do
	awk -v w="${pair%%:*}" -v s="${pair#*:}" -v t="$gen_target_ms" 'BEGIN {
		printf "goal: %s  %s on the seed example: median %.2f ms (target under %d ms)\n",
			(s * 1000 < t ? "met" : "NOT met"), w, s * 1000, t
	}'
done | tee -a "$goals"

echo
echo "== the libraries each command starts (ld.so's LD_DEBUG=files,bindings)"
# With lazy binding (the default; not with -z now), a function of a shared library is bound at its
# first call: git_libgit2_init bound means libgit2 was started, libcurl in the files means loaded.
if readelf -d "$wm" 2>/dev/null | grep -Eq 'BIND_NOW|FLAGS.*NOW'; then
	echo "goal: NOT met  $wm binds every symbol at start-up (-z now): which library each command starts cannot be told"
else
	cp -R "$root/tests/fixtures/llm-rs" "$tmp/init"
	rm "$tmp/init/wheelmatrix.yaml"
	libs() {  # NAME DIR COMMAND...: what COMMAND (run in DIR) loads and starts
		local what=$1 dir=$2
		shift 2
		rm -f "$tmp/ld".*
		(cd "$dir" && LD_DEBUG=files,bindings LD_DEBUG_OUTPUT=$tmp/ld "$@" >/dev/null)
		local curl=no git=no
		grep -q 'file=libcurl\.so' "$tmp"/ld.* && curl=yes
		grep -q "symbol \`git_libgit2_init'" "$tmp"/ld.* && git=yes
		echo "$what $curl $git"
	}
	{
		libs list "$seed" "$wm" list
		libs generate "$seed" "$wm" generate
		libs init "$tmp/init" "$wm" init --offline
		libs patch "$seed" "$wm" patch --dry-run cuda
		libs check "$seed" "$wm" check --staged
	} | while read -r what curl git; do
		printf '  %-9s libcurl loaded: %-3s  libgit2 started: %s\n' "$what" "$curl" "$git"
		case $what in
		list | init) need=no ;;
		*) need=$git ;;  # generate and check start libgit2 only when they need it, patch always
		esac
		if [[ $what != check ]]; then
			printf 'goal: %s  %s: libcurl %s, libgit2 %s\n' "$([[ $curl = no && $git = "$need" ]] && echo met || echo "NOT met")" \
				"$what" "$([[ $curl = no ]] && echo "not loaded" || echo loaded)" \
				"$([[ $git = yes ]] && echo started || echo "not started")" >>"$goals"
		fi
	done
fi

echo
echo "== check against git status (bench/check.sh)"
FLOOR=0 WHEELMATRIX=$wm RUNS=$runs "$here/check.sh" | tee "$tmp/out"
grep '^goal:' "$tmp/out" >>"$goals" || true

echo
echo "== list of 10 to 10^6 jobs (bench/run.sh)"
WHEELMATRIX=$wm RUNS=$(( runs < 5 ? runs : 5 )) "$here/run.sh" | tee "$tmp/out"
grep '^goal:' "$tmp/out" >>"$goals" || true

echo
echo "== plan at 1 and 8 connections (bench/plan.sh)"
WHEELMATRIX=$wm RUNS=$(( runs < 5 ? runs : 5 )) "$here/plan.sh" | tee "$tmp/out"
grep '^goal:' "$tmp/out" >>"$goals" || true

echo
echo "== the goals"
cat "$goals"
met=$(grep -c '^goal: met' "$goals" || true)
echo "$met of $(wc -l <"$goals") goals met"
