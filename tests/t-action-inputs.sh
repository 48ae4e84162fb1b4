#!/usr/bin/env bash
# t-action-inputs.sh — every input the generated workflows pass to an action is one its action.yml declares at the pinned tag.
#
# tests/helpers/action-inputs.yaml holds, for each action of templates/actions.yaml at the reference
# pinned there, the inputs its action.yml declares (read from the action's repository at that
# tag; the file says where, and how to refresh it).  First the checker (tests/helpers/action-inputs.py) is
# shown able to fail: a workflow passing an input checkout does not declare (`fetch_depth`, beside
# the declared `fetch-depth`, which is not reported), one
# that leaves out upload-artifact's required `path`, one on another tag of checkout, and a pin with
# no inputs recorded (templates/actions.yaml read from a copy with checkout on v1) each fail.
# Then every example matrix (matrices/*.yaml: strategies rename, meta, index and variants, the
# toolkits cuda, rocm, vulkan, clblast and metal) is generated in a scratch repository as it is, and
# with `publish.github-release: true` and `publish.pypi.trusted: false`, and in every workflow
# written each step's `uses:` is an action of templates/actions.yaml at its pin, each `with:` key
# is a declared input, each required input is passed, and together they use every action pinned.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
check=$ROOT/tests/helpers/action-inputs.py

# the checker fails where it should
# the first line of each: the `actions:` table's, not `runtimes:`'s
checkout=$(sed -n 's|^  actions/checkout: \([^ ]*\).*|\1|p' "$ROOT/templates/actions.yaml" | head -n 1)
upload=$(sed -n 's|^  actions/upload-artifact: \([^ ]*\).*|\1|p' "$ROOT/templates/actions.yaml" | head -n 1)
[[ -n $checkout && -n $upload ]] || fatal "templates/actions.yaml: no pin of actions/checkout or actions/upload-artifact read"
mkdir "$tmp/canary"
canary() {
	cat >"$tmp/canary/$1.yml"
	expect_run 1 "$py" "$check" "$tmp/canary/$1.yml"
	grep -qF "$2" "$tmp/out" || { fail "canary $1: no '$2' in its report"; show "$tmp/out"; }
}
canary bad-input "\`fetch_depth\` is not an input of actions/checkout@$checkout" <<EOF2
jobs:
  a:
    steps:
      - uses: actions/checkout@$checkout
        with: {fetch-depth: 0, fetch_depth: 0}
EOF2
! grep -qF "\`fetch-depth\`" "$tmp/out" || fail "canary bad-input: the declared fetch-depth reported: $(cat "$tmp/out")"
canary missing-required "the required input \`path\` is not passed" <<EOF2
jobs:
  a:
    steps:
      - uses: actions/upload-artifact@$upload
        with: {name: x}
EOF2
canary other-tag 'not an action at the reference' <<'EOF2'
jobs:
  a:
    steps:
      - uses: actions/checkout@v1
EOF2
# a pin the data file has no inputs for
mkdir -p "$tmp/stale/tests/helpers" "$tmp/stale/templates"
cp "$check" "$ROOT/tests/helpers/action-inputs.yaml" "$ROOT/tests/helpers/ghinline.py" "$tmp/stale/tests/helpers/"
sed '0,/^  actions\/checkout: /s|^  actions/checkout: [^ ]*|  actions/checkout: v1|' "$ROOT/templates/actions.yaml" >"$tmp/stale/templates/actions.yaml"
expect_run 1 "$py" "$tmp/stale/tests/helpers/action-inputs.py"
grep -q 'no inputs for actions/checkout@v1' "$tmp/out" || { fail "stale pin: not reported"; show "$tmp/out"; }

# every example matrix, as it is, with a GitHub release and with a token (the matrix files written
# by one Python for all, then each generated)
variants=(plain release-token)
for m in "$ROOT"/matrices/*.yaml; do
	for variant in "${variants[@]}"; do
		scratch_repo "$tmp/$(basename "$m" .yaml)-$variant"
	done
done
"$py" - "$tmp" "${variants[@]}" -- "$ROOT"/matrices/*.yaml <<'PY' || fatal "writing the matrices' variants"
import os, sys, yaml
tmp, rest = sys.argv[1], sys.argv[2:]
variants, sources = rest[:rest.index("--")], rest[rest.index("--") + 1:]
for src in sources:
    for variant in variants:
        with open(src, encoding="utf-8") as f:
            m = yaml.safe_load(f)
        if variant == "release-token":
            publish = m.get("publish") or {}
            publish["github-release"] = True
            publish.setdefault("pypi", {})["trusted"] = False
            m["publish"] = publish
        out = os.path.join(tmp, "%s-%s" % (os.path.basename(src)[:-len(".yaml")], variant), "wheelmatrix.yaml")
        with open(out, "w", encoding="utf-8") as f:
            yaml.safe_dump(m, f, sort_keys=False)
PY
workflows=()
for m in "$ROOT"/matrices/*.yaml; do
	name=$(basename "$m" .yaml)
	for variant in "${variants[@]}"; do
		repo=$tmp/$name-$variant
		wm -q -C "$repo" generate
		expect_status 0 "generate $name ($variant)"
		for w in "$repo"/.github/workflows/*.yml; do
			[[ -f $w ]] && workflows+=("$w")
		done
	done
done
(( ${#workflows[@]} >= 12 )) || fail "only ${#workflows[@]} workflows written for 6 matrices in 2 variants"
expect_run 0 "$py" "$check" --coverage "${workflows[@]}"
finish
