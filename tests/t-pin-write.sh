#!/usr/bin/env bash
# t-pin-write.sh — pin never loses an edit made while it waits on the network, never interleaves with another run, and writes through to the file the user has: a symbolic link's target, every hard link, its owner, group and mode.
#
# A forge of real bare repositories (tests/servers/forge-server.py) holds its answers, as a slow network
# would, until the test has done what it does meanwhile: the matrix file changed meanwhile is not replaced (exit 1, the change kept), and a second
# pin started meanwhile is refused (exit 1) while the first finishes. A matrix file that is a symbolic
# link keeps being one, its target pinned; one with hard links stays one inode, every name pinned; a
# file of another owner keeps its owner, group and mode, also when pin may not give a new file away
# (setpriv drops CAP_CHOWN), when it is rewritten in place. A link leading out of the project is
# refused, nothing written.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/forge.sh
source "$ROOT/tests/kit/forge.sh"
need setpriv "apt-get install util-linux"

forge=$tmp/forge
"$py" -c 'import sys, yaml; [print(a, r) for a, r in yaml.safe_load(open(sys.argv[1]))["actions"].items()]' \
	"$ROOT/templates/actions.yaml" >"$tmp/actions"
while read -r action ref; do
	case $ref in
	release/v*) forge_action "$forge" "$action" "${ref#release/v}.13.0" --branch "$ref" ;;
	v*.*) forge_action "$forge" "$action" "${ref#v}" ;;
	v*) forge_action "$forge" "$action" "${ref#v}.0.0" ;;
	*) fatal "templates/actions.yaml: $action's reference '$ref' is neither vN, vN.N... nor release/vN" ;;
	esac
done <"$tmp/actions"
checkout=$(sed -n 's|^actions/checkout ||p' "$tmp/actions")
start_forge "$forge"
fast=$FORGE
hold=$tmp/hold
start_forge "$forge" --hold "$hold" --log "$tmp/slow.log"
slow=$FORGE

# held: the slow forge's next answers wait (until released); the log is emptied
held() {
	: >"$hold"
	: >"$tmp/slow.log"
}
# asked PID: waits until pin (PID) has asked the slow forge: it has taken the lock and read the file
asked() {
	local i
	for ((i = 0; i < 1200; i++)); do
		[[ -s $tmp/slow.log ]] && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	fatal "pin did not ask the forge: $(cat "$tmp/pin.err")"
}
released() {
	rm -f "$hold"
}

# project DIR: the demo project, its matrix unpinned
project() {
	demo_project "$1"
	printf 'actions:\n  actions/checkout: %s   # to be pinned\n' "$checkout" >>"$1/wheelmatrix.yaml"
}

leftover() {  # leftover DIR: a temporary or backup file pin left there
	find "$1" -maxdepth 1 \( -name '.*.tmp*' -o -name '.*.backup*' \) | grep -q .
}

pinned() {  # pinned FILE WHAT: FILE's actions table is pinned (checkout on a 40-hex commit)
	grep -qE "^  actions/checkout: [0-9a-f]{40}  # $checkout\$" "$1" || fail "$2: not pinned: $(cat "$1")"
}

# ---- an edit while pin waits on the network is kept, and pin says so ----------------------------
r=$tmp/edit
project "$r"
held
"$WM" -C "$r" pin --github "$slow" >"$tmp/pin.out" 2>"$tmp/pin.err" &
pid=$!
asked "$pid"
printf '# a comment added while pin waited\n' >>"$r/wheelmatrix.yaml"
cp "$r/wheelmatrix.yaml" "$tmp/edited.yaml"
released
status=0
wait "$pid" || status=$?
[[ $status == 1 ]] || fail "an edit while pin waited: exit $status, not 1: $(cat "$tmp/pin.err")"
grep -qxF "wheelmatrix: error: 'wheelmatrix.yaml' changed since it was read: nothing was written, and the change is kept; run again" "$tmp/pin.err" ||
	fail "an edit while pin waited says: $(cat "$tmp/pin.err")"
cmp -s "$tmp/edited.yaml" "$r/wheelmatrix.yaml" || fail "an edit while pin waited was lost: $(cat "$r/wheelmatrix.yaml")"
leftover "$r" && fail "an edit while pin waited: a temporary file was left: $(ls -a "$r")"
# replaced by another file (an editor's save) the same: nothing written
held
"$WM" -C "$r" pin --github "$slow" >"$tmp/pin.out" 2>"$tmp/pin.err" &
pid=$!
asked "$pid"
cp "$r/wheelmatrix.yaml" "$tmp/saved.yaml"
mv "$tmp/saved.yaml" "$r/wheelmatrix.yaml"
cp "$r/wheelmatrix.yaml" "$tmp/edited.yaml"
released
status=0
wait "$pid" || status=$?
[[ $status == 1 ]] || fail "a file replaced while pin waited: exit $status, not 1: $(cat "$tmp/pin.err")"
cmp -s "$tmp/edited.yaml" "$r/wheelmatrix.yaml" || fail "a file replaced while pin waited was overwritten"

# ---- two runs: the second is refused while the first holds the lock -------------------------------
r=$tmp/two
project "$r"
held
"$WM" -C "$r" pin --github "$slow" >"$tmp/pin.out" 2>"$tmp/pin.err" &
pid=$!
asked "$pid"
wm -C "$r" pin --github "$fast"
expect_status 1 "a second pin while the first waits"
expect_err "wheelmatrix: error: another process holds the lock on 'wheelmatrix.yaml' (another 'wheelmatrix pin' writing it?): nothing was done" \
	"a second pin while the first waits"
released
status=0
wait "$pid" || status=$?
[[ $status == 0 ]] || fail "the first pin: exit $status: $(cat "$tmp/pin.err")"
pinned "$r/wheelmatrix.yaml" "the first pin"
wm -C "$r" pin --github "$fast" --check
expect_status 0 "pin --check after the two runs"
# --check writes nothing and takes no lock: it runs beside a writing pin
project "$tmp/check"
held
"$WM" -C "$tmp/check" pin --github "$slow" >"$tmp/pin.out" 2>"$tmp/pin.err" &
pid=$!
asked "$pid"
wm -C "$tmp/check" pin --github "$fast" --check
expect_status 1 "pin --check beside a writing pin"
released
wait "$pid" || fail "the pin beside --check failed: $(cat "$tmp/pin.err")"

# ---- a symbolic link: its target is pinned, the link stays ----------------------------------------
r=$tmp/link
project "$r"
mkdir "$r/conf"
mv "$r/wheelmatrix.yaml" "$r/conf/matrix.yaml"
ln -s conf/matrix.yaml "$r/wheelmatrix.yaml"
wm -C "$r" pin --github "$fast"
expect_status 0 "pin through a symbolic link"
[[ -L $r/wheelmatrix.yaml && $(readlink "$r/wheelmatrix.yaml") == conf/matrix.yaml ]] ||
	fail "pin replaced the symbolic link: $(ls -l "$r/wheelmatrix.yaml")"
pinned "$r/conf/matrix.yaml" "the link's target"
# one that leads out of the project: refused, nothing written anywhere
r=$tmp/out-link
project "$tmp/elsewhere"
mkdir -p "$r"
cp "$tmp/elsewhere/pyproject.toml" "$tmp/elsewhere/Cargo.toml" "$r/"
ln -s ../elsewhere/wheelmatrix.yaml "$r/wheelmatrix.yaml"
cp "$tmp/elsewhere/wheelmatrix.yaml" "$tmp/elsewhere.yaml"
wm -C "$r" pin --github "$fast"
expect_status 2 "pin through a link out of the project"
expect_err "'wheelmatrix.yaml' is a symbolic link that leads outside the repository" "pin through a link out of the project"
cmp -s "$tmp/elsewhere.yaml" "$tmp/elsewhere/wheelmatrix.yaml" || fail "pin wrote outside the project"
[[ -L $r/wheelmatrix.yaml ]] || fail "pin replaced the link out of the project"

# ---- hard links: one inode, every name pinned, the link count kept --------------------------------
r=$tmp/hard
project "$r"
mkdir "$r/keep"
ln "$r/wheelmatrix.yaml" "$r/keep/copy.yaml"
inode=$(stat -c %i "$r/wheelmatrix.yaml")
wm -C "$r" pin --github "$fast"
expect_status 0 "pin of a file with two hard links"
[[ $(stat -c %i "$r/wheelmatrix.yaml") == "$inode" && $(stat -c %h "$r/wheelmatrix.yaml") == 2 ]] ||
	fail "pin split the hard links: $(stat -c '%i %h' "$r/wheelmatrix.yaml") (inode $inode, 2 links before)"
pinned "$r/keep/copy.yaml" "the other hard link"
leftover "$r" && fail "hard links: a temporary or backup file was left: $(ls -a "$r")"

# ---- owner, group and mode -------------------------------------------------------------------------
r=$tmp/owner
project "$r"
if [[ $(id -u) == 0 ]]; then
	chown 1234:5678 "$r/wheelmatrix.yaml"
fi
chmod 640 "$r/wheelmatrix.yaml"
before=$(stat -c '%u:%g %a' "$r/wheelmatrix.yaml")
wm -C "$r" pin --github "$fast"
expect_status 0 "pin of a file of another owner"
[[ $(stat -c '%u:%g %a' "$r/wheelmatrix.yaml") == "$before" ]] ||
	fail "pin changed the owner, group or mode: $(stat -c '%u:%g %a' "$r/wheelmatrix.yaml"), not $before"
pinned "$r/wheelmatrix.yaml" "a file of another owner"
# without the right to give a file away (no CAP_CHOWN): rewritten in place, the same inode
if [[ $(id -u) == 0 ]]; then
	r=$tmp/nochown
	project "$r"
	chown 1234:5678 "$r/wheelmatrix.yaml"
	chmod 664 "$r/wheelmatrix.yaml"
	inode=$(stat -c %i "$r/wheelmatrix.yaml")
	run setpriv --bounding-set=-chown --inh-caps=-chown -- "$WM" -C "$r" pin --github "$fast"
	expect_status 0 "pin without CAP_CHOWN"
	[[ $(stat -c '%u:%g %a %i' "$r/wheelmatrix.yaml") == "1234:5678 664 $inode" ]] ||
		fail "pin without CAP_CHOWN: $(stat -c '%u:%g %a %i' "$r/wheelmatrix.yaml"), not 1234:5678 664 $inode"
	pinned "$r/wheelmatrix.yaml" "pin without CAP_CHOWN"
	leftover "$r" && fail "pin without CAP_CHOWN: a file was left: $(ls -a "$r")"
fi
finish
