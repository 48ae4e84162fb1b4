# shellcheck shell=bash
# forge.sh — sourced by the tests of refs, pin and outdated: a forge on loopback with real repositories.
#
# forge_repos ROOT      bare repositories made now with git under ROOT, as a forge serves them:
#                       acme/setup-tool.git (branches, lightweight tags, annotated tags, a tag of
#                       a tag, 3,000 more tags: v0.0.0 ... v0.2.999), acme/empty.git (no commits)
# start_forge ROOT [ARGS...]   tests/servers/forge-server.py (git http-backend for ROOT, and its faults);
#                       sets FORGE (http://127.0.0.1:PORT)
# forge_action, forge_catalog_actions   an action's repository, every catalogue action's (below)
#
# Source it after tests/kit/lib.sh (and tests/kit/plan-servers.sh, whose stop_servers stops it too).

: "${ROOT:?}" "${tmp:?source tests/kit/lib.sh first}"

forge_repos() {
	local dir=$1 w=$tmp/forge-work i
	mkdir -p "$dir/acme"
	git init -q --bare "$dir/acme/setup-tool.git"
	git init -q --bare "$dir/acme/empty.git"
	git init -q "$w"
	git -C "$w" commit -q --allow-empty -m one
	git -C "$w" tag v1.0.0
	git -C "$w" tag -a v1.1.0 -m "v1.1.0"
	git -C "$w" commit -q --allow-empty -m two
	git -C "$w" tag -a v1.2.0 -m "v1.2.0"
	git -C "$w" tag v1
	git -C "$w" checkout -q -b next
	git -C "$w" commit -q --allow-empty -m three
	git -C "$w" tag -a v2.0.0 -m "v2.0.0"
	# a tag of a tag: its ^{} line names the commit under both
	git -C "$w" -c advice.nestedTag=false tag -a v2 -m "v2" v2.0.0
	for ((i = 0; i < 3000; i++)); do
		printf 'create refs/tags/v0.%d.%d HEAD~2\n' $((i / 1000)) $((i % 1000))
	done | git -C "$w" update-ref --stdin
	git -C "$w" push -q "$dir/acme/setup-tool.git" 'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*'
	rm -rf "$w"
}

start_forge() {
	local dir=$1 i
	shift
	rm -f "$tmp/forge.port"
	python3 "$ROOT/tests/servers/forge-server.py" "$tmp/forge.port" --root "$dir" "$@" &
	server_pids+=($!)
	for ((i = 0; i < 100; i++)); do
		[[ -s $tmp/forge.port ]] && break
		sleep 0.05
	done
	# shellcheck disable=SC2034  # for the script that sources this file
	FORGE=http://127.0.0.1:$(cat "$tmp/forge.port" 2>/dev/null) || { echo "the forge did not start"; return 1; }
}

# forge_action ROOT OWNER/NAME VERSION... [--branch NAME]: a bare repository ROOT/OWNER/NAME.git as an
# action's repository is kept: a commit and an annotated tag vVERSION for each VERSION, in order,
# and each major's lightweight tag (v4) on the newest of its releases; with --branch, a branch NAME
# (release/v1) at the last commit too.  A repository already there is replaced.  Each commit has an
# action.yml: $FORGE_ACTION_YML when set, else one whose runs.using is node24.
forge_action() {
	local dir=$1 repo=$2 w=$tmp/forge-work v branch=
	shift 2
	rm -rf "$w"
	git init -q "$w"
	for v in "$@"; do
		if [[ $v == --branch ]]; then
			branch=next
			continue
		fi
		if [[ $branch == next ]]; then
			branch=$v
			continue
		fi
		if [[ -n ${FORGE_ACTION_YML:-} ]]; then
			printf '%s\n' "$FORGE_ACTION_YML" >"$w/action.yml"
		else
			printf 'runs:\n  using: node24\n' >"$w/action.yml"
		fi
		git -C "$w" add action.yml
		git -C "$w" commit -q --allow-empty -m "release $v"
		git -C "$w" tag -a "v$v" -m "v$v"
		git -C "$w" tag -f "v${v%%.*}" >/dev/null
	done
	[[ -z $branch ]] || git -C "$w" branch "$branch"
	mkdir -p "$dir/${repo%/*}"
	rm -rf "$dir/$repo.git"
	git init -q --bare "$dir/$repo.git"
	git -C "$w" push -q "$dir/$repo.git" 'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*'
	rm -rf "$w"
}

# forge_catalog_actions ROOT: every action of templates/actions.yaml as forge_action keeps it, at its
# reference with one newer release of the same major and none newer: a major tag vN as vN.0.0 and
# vN.1.0, a full tag as itself, a branch release/vN with N.12.4 and N.13.0 and the branch
forge_catalog_actions() {
	local dir=$1 action ref
	"${py:-python3}" -c 'import sys, yaml; [print(a, r) for a, r in yaml.safe_load(open(sys.argv[1]))["actions"].items()]' \
		"$ROOT/templates/actions.yaml" >"$tmp/catalog-actions"
	while read -r action ref; do
		case $ref in
		release/v*) forge_action "$dir" "$action" "${ref#release/v}.12.4" "${ref#release/v}.13.0" --branch "$ref" ;;
		v*.*) forge_action "$dir" "$action" "${ref#v}" ;;
		v*) forge_action "$dir" "$action" "${ref#v}.0.0" "${ref#v}.1.0" ;;
		esac
	done <"$tmp/catalog-actions"
}
