#!/usr/bin/env bash
# t-refs-forge.sh — index/refs.c (through tests/refs-fetch) against git's own smart-HTTP server: the
# tags of real bare repositories (lightweight, annotated, a tag of a tag, 3,000 more) are what
# `git ls-remote` reads from the same advertisement; each fault of tests/servers/forge-server.py (not a git
# service, truncated, oversized pkt-line, over the ref cap, 404, 503, redirects, hostile names) gets
# its message; no name reaches the output raw; credentials in the forge's URL are never shown.
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/plan-servers.sh
source "$ROOT/tests/kit/plan-servers.sh"
# shellcheck source=tests/kit/forge.sh
source "$ROOT/tests/kit/forge.sh"

fetch=${WM%/*}/tests/refs-fetch
need "$fetch" "make check (builds build/tests/refs-fetch)"
need git "apt-get install git"

forge_repos "$tmp/forge"
start_forge "$tmp/forge" --log "$tmp/log"

# the real repositories: what git itself reads from the same server, over protocol v0 as we speak it
run "$fetch" "$FORGE" acme/setup-tool acme/empty
expect_status 0 "refs-fetch of the real repositories"
cp "$tmp/out" "$tmp/real"
git -c protocol.version=0 ls-remote "$FORGE/acme/setup-tool.git" >"$tmp/ls-remote" ||
	fail "git ls-remote cannot read the forge"
python3 - "$tmp/real" "$tmp/ls-remote" "$tmp/forge/acme/setup-tool.git" "$FORGE" <<'PY' || fail "the tags read differ from git's (above)"
import subprocess, sys
ours = open(sys.argv[1]).read().splitlines()
refs = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
git, forge = sys.argv[3], sys.argv[4]
peeled = {ref[10:-3]: oid for oid, ref in refs if ref.startswith("refs/tags/") and ref.endswith("^{}")}
# in the advertisement's order, which git ls-remote keeps
want = ["tag %s %s %s %s" % (ref[10:], oid, peeled.get(ref[10:], oid), "annotated" if ref[10:] in peeled else "lightweight")
        for oid, ref in refs if ref.startswith("refs/tags/") and not ref.endswith("^{}")]
got = [l for l in ours if l.startswith("tag ")]
bad = 0
if len(want) != 3006:
    print("git ls-remote lists %d tags, not the 3,006 made" % len(want)); bad = 1
if got != want:
    print("ours and git's differ:", [(g, w) for g, w in zip(got, want) if g != w][:5], len(got), len(want)); bad = 1
# each commit is what the repository itself says its tag names
for line in got:
    _, name, obj, commit, kind = line.split()
    if name.startswith("v0."):
        continue
    real = subprocess.run(["git", "--git-dir", git, "rev-parse", "refs/tags/%s^{commit}" % name],
                          capture_output=True, text=True).stdout.strip()
    if real != commit:
        print("%s: ours %s, the repository's %s" % (name, commit, real)); bad = 1
    if (kind == "annotated") != (obj != commit):
        print("%s: %s with object %s and commit %s" % (name, kind, obj, commit)); bad = 1
nrefs = len([r for r in refs if not r[1].endswith("^{}")])
heads = [l for l in ours if l.startswith("repo ")]
if heads != ["repo acme/setup-tool %s/acme/setup-tool.git/info/refs attempts=1 refs=%d" % (forge, nrefs),
             "repo acme/empty %s/acme/empty.git/info/refs attempts=1 refs=0" % forge]:
    print("the repositories' lines:", heads); bad = 1
sys.exit(bad)
PY
grep -q '^tag v2 [0-9a-f]\{40\} [0-9a-f]\{40\} annotated$' "$tmp/real" || fail "the tag of a tag is not read as annotated"

# the faults, one batch: each its message, the others still read
run "$fetch" --retries 1 "$FORGE" fault/html fault/dumb fault/no-service fault/truncated fault/oversized \
	fault/many fault/unavailable fault/flaky fault/moved fault/loop acme/nothere fault/hostile 'x/../y'
expect_status 1 "refs-fetch of the faults"
expect_same - <(sed "s|$FORGE|FORGE|" "$tmp/out") "the faults' answers" <<'EOF2'
repo fault/html FORGE/fault/html.git/info/refs attempts=1 refs=0
error not git's smart-HTTP protocol: the Content-Type is 'text/html; charset=utf-8', not application/x-git-upload-pack-advertisement (a dumb HTTP server, or not a git repository)
repo fault/dumb FORGE/fault/dumb.git/info/refs attempts=1 refs=0
error not git's smart-HTTP protocol: the Content-Type is 'text/plain', not application/x-git-upload-pack-advertisement (a dumb HTTP server, or not a git repository)
repo fault/no-service FORGE/fault/no-service.git/info/refs attempts=1 refs=0
error the advertisement does not start with '# service=git-upload-pack': not git's smart-HTTP protocol
repo fault/truncated FORGE/fault/truncated.git/info/refs attempts=1 refs=1
error the advertisement ends inside the pkt-line at byte 92 (truncated: 42 of its 58 bytes)
repo fault/oversized FORGE/fault/oversized.git/info/refs attempts=1 refs=0
error the pkt-line at byte 34 is 65535 bytes long: git sends at most 65520
repo fault/many FORGE/fault/many.git/info/refs attempts=1 refs=200001
error more than 200000 refs: the most read from one repository
repo fault/unavailable FORGE/fault/unavailable.git/info/refs attempts=2 refs=0
error HTTP 503 (2 attempts)
repo fault/flaky FORGE/fault/flaky.git/info/refs attempts=2 refs=6
tag v9.9.9 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa lightweight
skipped v1<U+001B>[31mred	it holds a control character
skipped v1<U+009B>2J	it holds a character that does not show as itself (a control, format or separator character)
skipped v1..2	it holds '..'
skipped v1<U+202E>2	it holds a character that does not show as itself (a control, format or separator character)
repo fault/moved FORGE/fault/moved.git/info/refs attempts=1 refs=0
error HTTP 404: no such repository on the forge
repo fault/loop FORGE/fault/loop.git/info/refs attempts=1 refs=0
error more than 5 redirects (a redirect loop?)
repo acme/nothere FORGE/acme/nothere.git/info/refs attempts=1 refs=0
error HTTP 404: no such repository on the forge
repo fault/hostile FORGE/fault/hostile.git/info/refs attempts=1 refs=6
tag v9.9.9 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa lightweight
skipped v1<U+001B>[31mred	it holds a control character
skipped v1<U+009B>2J	it holds a character that does not show as itself (a control, format or separator character)
skipped v1..2	it holds '..'
skipped v1<U+202E>2	it holds a character that does not show as itself (a control, format or separator character)
repo x/../y FORGE/x/../y.git/info/refs attempts=0 refs=0
error 'x/../y' is not a repository's owner/name
EOF2
python3 "$ROOT/tests/helpers/no-controls.py" "$tmp/out" || fail "a control character reached the output"

# a redirect to where the repository is now is followed, as plan follows an index's
mkdir -p "$tmp/forge/real"
git clone -q --bare "$tmp/forge/acme/setup-tool.git" "$tmp/forge/real/moved.git"
run "$fetch" "$FORGE" fault/moved
expect_status 0 "refs-fetch of a moved repository"
[[ $(grep -c '^tag ' "$tmp/out") == "$(grep -c '^tag ' "$tmp/real")" ]] || fail "the moved repository's tags are not read"

# a user name and password in the forge's URL are sent, never shown
run "$fetch" "http://someone:SECRET-pw@${FORGE#http://}" acme/empty
expect_status 0 "refs-fetch with credentials in the URL"
if grep -q SECRET "$tmp/out" "$tmp/err"; then
	fail "the password was shown"
fi
run "$fetch" "ftp://127.0.0.1/" acme/empty
expect_status 3 "refs-fetch of an ftp forge"
expect_err "invalid forge URL 'ftp://127.0.0.1/': a forge is an http:// or https:// URL" "an ftp forge"
finish
