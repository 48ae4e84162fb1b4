#!/bin/bash
# t-plan-legend.sh — the Markdown report's legend names every distribution state and every file state
# the code has, `ready` included, each with a meaning; the state names come from lib/index/plan.c,
# checked against the enums of lib/wheelmatrix.h, not from a list written here.
. "$ROOT/tests/kit/lib.sh"
# the names of one enum's states (PREFIX ENUM): plan.c's name table, as many as the enum has members
states() {
	python3 - "$ROOT" "$1" "$2" <<'PY'
import re, sys
root, prefix, enum = sys.argv[1:]
names = re.findall(r"\[" + prefix + r"\w+\] = \"(\w+)\"", open(root + "/lib/index/plan.c").read())
body = re.search(r"enum " + enum + r" \{(.*?)\};", open(root + "/lib/wheelmatrix.h").read(), re.S).group(1)
members = re.findall(r"\b" + prefix + r"\w+", body)
if len(set(names)) != len(members):
    sys.exit("%s: %d members in lib/wheelmatrix.h, %d names in lib/index/plan.c" % (enum, len(members), len(set(names))))
print(" ".join(names))
PY
}
read -r -a dist_states < <(states WM_DIST_ wm_dist_state)
read -r -a art_states < <(states WM_ART_ wm_artifact_state)
((${#dist_states[@]} >= 6)) || fatal "the distribution states were not read from lib/index/plan.c: ${dist_states[*]}"
((${#art_states[@]} >= 4)) || fatal "the file states were not read from lib/index/plan.c: ${art_states[*]}"
[[ " ${dist_states[*]} " == *" ready "* ]] || fail "no 'ready' among the distribution states: ${dist_states[*]}"

wm -f "$ROOT/matrices/llm-rs.yaml" plan 0.3.0 --offline --format markdown
expect_status 0 "plan --format markdown"
# the rows of the table headed by "| $1 | meaning |", as "NAME<TAB>MEANING"
legend() {
	awk -v head="| $1 | meaning |" '
		$0 == head { on = 1; next }
		on && /^\|---/ { next }
		on && /^\| / { split($0, f, " \\| "); sub(/^\| /, "", f[1]); sub(/ \|$/, "", f[2]); print f[1] "\t" f[2]; next }
		on { exit }' "$tmp/out"
}
for kind in "distribution state" "file state"; do
	legend "$kind" >"$tmp/legend"
	[[ -s $tmp/legend ]] || { fail "no '$kind' legend in the Markdown report: $(cat "$tmp/out")"; continue; }
	if [[ $kind == "distribution state" ]]; then states=("${dist_states[@]}"); else states=("${art_states[@]}"); fi
	for s in "${states[@]}"; do
		meaning=$(awk -F '\t' -v s="$s" '$1 == s { print $2 }' "$tmp/legend")
		[[ -n $meaning ]] || fail "the $kind legend lacks '$s': $(cat "$tmp/legend")"
	done
	[[ $(wc -l <"$tmp/legend") == "${#states[@]}" ]] || fail "the $kind legend has rows for no state: $(cat "$tmp/legend")"
done
# each distribution row names its state, which the legend explains
grep -qF "| \`llm-rs\` | unchecked | " "$tmp/out" || fail "the distribution table does not name the state: $(head -12 "$tmp/out")"
finish
