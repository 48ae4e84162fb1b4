#!/bin/bash
# t-cargo-settings.sh — what the loader says of Cargo's configuration and profiles is what cargo does.
#
# target-cpu=native: for the repository of golden case cargo-native (configuration files in the
# root's and python/'s .cargo/, one `.cargo/config` beside a `.cargo/config.toml`, build and target
# and cfg(...) rustflags, RUSTFLAGS, CARGO_ENCODED_RUSTFLAGS and CARGO_TARGET_<TRIPLE>_RUSTFLAGS in
# the jobs' env), cargo itself (`cargo build -v` in python/, where maturin runs, with each job's
# environment from `list --format json` and its target) prints the rustc command lines; the targets
# whose lines hold target-cpu=native must be exactly the targets the warnings name, and every
# warning must point at a line of a file holding target-cpu=native.  The targets' standard
# libraries need not be installed: cargo prints a unit's command line before rustc fails on it.
# Then profiles: in golden case settings-profile-workspace, the profile the loader refuses (defined
# in a workspace member) is one cargo refuses (`profile ... is not defined`), and the one it takes
# (the root's) builds.
. "$ROOT/tests/kit/lib.sh"
case ":$PATH:" in *":$HOME/.cargo/bin:"*) ;; *) [ -d "$HOME/.cargo/bin" ] && PATH=$PATH:$HOME/.cargo/bin ;; esac
need cargo "install Rust with rustup (https://rustup.rs)"
export CARGO_TARGET_DIR=$tmp/target

# a crate without dependencies: cargo's first unit is the crate itself; an rlib, which every target
# builds (a musl target's static C runtime takes no cdylib, where maturin turns it off itself)
strip_deps() {
	sed -i -e '/^\[dependencies\]/,$d' -e 's/crate-type = \["cdylib"\]/crate-type = ["rlib"]/' "$1"
	mkdir -p "$(dirname "$1")/src"
	: >"$(dirname "$1")/src/lib.rs"
}

repo=$tmp/native
cp -r "$ROOT/tests/golden/cargo-native" "$repo"
rm -f "$repo"/{args,stdout,stderr,exit}
strip_deps "$repo/Cargo.toml"
wm -C "$repo" list --format json
expect_status 0 "list of cargo-native"
cp "$tmp/out" "$tmp/jobs.json"
cp "$tmp/err" "$tmp/warnings"
[ -s "$tmp/warnings" ] || fail "list warned of nothing"
python3 - "$repo" "$tmp/jobs.json" "$tmp/warnings" <<'PY' || fail "the warnings against cargo (above)"
import json, os, re, subprocess, sys
repo, jobs, warnings = sys.argv[1:]
text = open(warnings).read()
said = set()
for m in re.finditer(r"^(\S+?):(\d+):\d+: warning: target-cpu=native in \S+ .*?the wheels for (.*?) would crash", text, re.M):
    file, line, targets = m.group(1), int(m.group(2)), m.group(3)
    said.update(t.strip() for t in targets.split(","))
    src = open(os.path.join(repo, file)).read().splitlines()[line - 1]
    if "target-cpu=native" not in src:
        print(f"a warning at {file}:{line}, whose line holds no target-cpu=native: {src!r}")
        sys.exit(1)
native = set()
for job in json.load(open(jobs)):
    env = dict(os.environ)
    for k in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS"):
        env.pop(k, None)
    env.update((job.get("build") or {}).get("env", {}))
    targets = ["x86_64-apple-darwin", "aarch64-apple-darwin"] if job["target"] == "universal2-apple-darwin" else [job["target"]]
    for target in targets:
        p = subprocess.run(["cargo", "build", "-v", "--offline", "--manifest-path", "../Cargo.toml", "--target", target],
                           cwd=os.path.join(repo, "python"), env=env, capture_output=True, text=True)
        lines = [l for l in p.stderr.splitlines() if "Running `" in l and "--crate-name native" in l]
        if not lines:
            print(f"{job['id']}: cargo printed no rustc line for {target}:\n{p.stderr[-2000:]}")
            sys.exit(1)
        if "target-cpu=native" in lines[0]:
            native.add(target)
print("cargo compiles with target-cpu=native for:", ", ".join(sorted(native)))
print("the warnings name:", ", ".join(sorted(said)))
if native != said:
    print("they differ")
    sys.exit(1)
PY

# profiles: the member's is refused by cargo as by the loader, the root's is taken by both
ws=$tmp/ws
cp -r "$ROOT/tests/golden/settings-profile-workspace" "$ws"
rm -f "$ws"/{args,stdout,stderr,exit}
strip_deps "$ws/crate/Cargo.toml"
run cargo build --offline --manifest-path "$ws/crate/Cargo.toml" --profile dist
refused="profile \`dist\` is not defined"
if ((status == 0)) || ! grep -qF "$refused" "$tmp/err"; then
	fail "cargo builds with the member's profile dist, which the loader refuses: $(tail -n 3 "$tmp/err")"
fi
run cargo build --offline --manifest-path "$ws/crate/Cargo.toml" --profile lean
expect_status 0 "cargo builds with the root's profile lean"
sed -i 's/profile: dist}/profile: lean}/' "$ws/wheelmatrix.yaml"
wm -C "$ws" list
expect_status 0 "the loader takes the root's profile lean"
finish
