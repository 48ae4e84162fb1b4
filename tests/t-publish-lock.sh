#!/usr/bin/env bash
# t-publish-lock.sh — GitLab's publish jobs, which hold the upload's tokens, install twine and pypi-attestations from a lock of hashes alone: pip refuses any other file, and the lock is what the index serves.
#
# templates/publish-lock.txt pins twine and pypi-attestations at templates/actions.yaml's pins with
# every package they need, each with its wheels' sha256 (tests/tools/lock-publish-job.sh writes it).
# Checked here:
# - the lock: those two at the catalogue's pins, every requirement `name==version` with hashes;
#   tests/tools/install-publish-job.sh downloaded its wheels for this machine from the package
#   index with pip --require-hashes (so the index serves files of those hashes), and every wheel
#   there is one of the lock's, every requirement has one;
# - the generated GitLab file, with trusted publishing and with a token: the publish template
#   writes the lock out, its requirements exactly, and installs it with `pip install
#   --require-hashes --only-binary :all:`, its only install; no job carries a tool's pin of its own;
# - gitlab-ci-local (its shell executor, a CPython 3.12 environment for the image's python3) runs the
#   generated publish job on a tag in token mode, pip's only source the wheelhouse: pip installs the
#   lock, twine checks the files and uploads them to a loopback server standing in for PyPI, which
#   gets the wheel and the sdist; with one hash of the lock changed in the generated file, the same
#   job fails at pip's hash check and uploads nothing.
# heavy: pip installs from the lock's wheelhouse, and jobs run by gitlab-ci-local
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
glci=$ROOT/tests/external/node_modules/.bin/gitlab-ci-local
need "$glci" "run 'npm ci --prefix tests/external'"
need rsync "apt-get install rsync (gitlab-ci-local copies the checkout with it)"
lock=$ROOT/templates/publish-lock.txt
wheelhouse=$("$ROOT/tests/tools/install-publish-job.sh" --dir)
[[ -f $wheelhouse/complete ]] || fatal "the publish job's wheels are not in $wheelhouse: run 'make tools' (tests/tools/install-publish-job.sh)"
tools=$("$ROOT/tests/tools/install.sh" --path)

# 1. the lock, the catalogue's pins and the wheelhouse
"$py" - "$lock" "$ROOT/templates/actions.yaml" "$wheelhouse" <<'PY' || fail "the lock (above)"
import hashlib, os, re, sys, yaml
lock, actions, wheelhouse = sys.argv[1:]
tools = yaml.safe_load(open(actions))["tools"]
norm = lambda s: re.sub(r"[-_.]+", "-", s).lower()
reqs, bad = {}, []
for entry in re.sub(r"\\\n", " ", open(lock).read()).splitlines():
    entry = entry.strip()
    if not entry or entry.startswith("#"):
        continue
    m = re.fullmatch(r"([a-z0-9-]+)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)", entry)
    if not m:
        bad.append("not a pin with hashes: %r" % entry)
        continue
    reqs[m[1]] = (m[2], set(re.findall(r"[0-9a-f]{64}", m[3])))
for tool in ("twine", "pypi-attestations"):
    if reqs.get(tool, ("",))[0] != tools[tool]:
        bad.append("%s is locked at %r, templates/actions.yaml pins %s: run tests/tools/lock-publish-job.sh"
                   % (tool, reqs.get(tool, (None,))[0], tools[tool]))
seen = set()
for f in os.listdir(wheelhouse):
    if not f.endswith(".whl"):
        continue
    name, version = norm(f.split("-")[0]), f.split("-")[1]
    digest = hashlib.sha256(open(os.path.join(wheelhouse, f), "rb").read()).hexdigest()
    if name not in reqs or reqs[name][0] != version or digest not in reqs[name][1]:
        bad.append("the wheelhouse's %s (sha256 %s) is not one of the lock's files" % (f, digest))
    seen.add(name)
bad += ["no wheel of %s==%s in the wheelhouse" % (n, reqs[n][0]) for n in sorted(set(reqs) - seen)]
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY

# 2. the generated publish jobs
project() {  # project DIR TRUSTED
	maturin_project "$1"
	printf '\n[lib]\nname = "demo"\n' >>"$1/Cargo.toml"
	printf 'wheelmatrix: 1\npython: {versions: ["3.12"]}\nplatforms: [linux-x86_64]\nbackends:\n  cpu: {default: true}\nci: {gitlab: {}}\npublish: {pypi: {trusted: %s}}\n' "$2" >"$1/wheelmatrix.yaml"
	"$WM" -q -C "$1" generate || fatal "generate in $1"
}
for trusted in true false; do
	project "$tmp/gen-$trusted" "$trusted"
	"$py" - "$tmp/gen-$trusted/.gitlab-ci.yml" "$lock" <<'PY' || fail "the publish jobs with trusted: $trusted (above)"
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
lock = open(sys.argv[2]).read()
bad = []
script = doc[".wheelmatrix-publish"]["script"]
installs = [line for s in script for line in s.splitlines() if re.search(r"\bpip install\b", line)]
if installs != ['python3 -m pip install --no-cache-dir --require-hashes --only-binary :all: -r "$wm_lock"']:
    bad.append("the publish template's installs: %r" % installs)
heredoc = re.search(r"<<'EOF'\n(.*?)\nEOF\n", script[0], re.S)
body = lambda text: [l for l in text.splitlines() if l and not l.startswith("#")]
if not heredoc or body(heredoc[1]) != body(lock):
    bad.append("the heredoc of the publish template is not templates/publish-lock.txt's requirements")
for name, job in doc.items():
    if name.startswith("publish-"):
        pins = [v for v in (job.get("variables") or {}) if v in ("WM_TWINE", "WM_PYPI_ATTESTATIONS")]
        if pins:
            bad.append("%s carries %s: a pin outside the lock" % (name, pins))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
done

# 3. the publish job run, pip's only source the wheelhouse, twine's index a loopback server
py312=
for p in "$(command -v python3.12 2>/dev/null)" /usr/bin/python3.12 "$HOME"/.pyenv/versions/3.12.*/bin/python3.12; do
	[[ -x $p ]] && "$p" -c 'import venv' 2>/dev/null && { py312=$p; break; }
done
[[ -n $py312 ]] || fatal "no CPython 3.12 to run the job with (the image's): apt-get install python3.12, or pyenv install 3.12"
python3 - "$tmp/upload.port" "$tmp/uploads" <<'PY' &
import http.server, os, re, sys
port_file, log = sys.argv[1:]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        names = sorted({x.decode() for x in re.findall(rb'name="content"; filename="([^"]+)"', body)})
        with open(log, "a") as f:
            for name in names:
                f.write("%s %s\n" % (self.headers.get("Authorization", "").split(" ")[0], name))
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"OK")
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(port_file + ".tmp", "w").write(str(s.server_address[1]))
os.rename(port_file + ".tmp", port_file)
s.serve_forever()
PY
server=$!
# shellcheck disable=SC2317  # run at exit
stop_upload() {
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
}
at_exit stop_upload
for ((i = 0; i < 100; i++)); do
	[[ -s $tmp/upload.port ]] && break
	sleep 0.05
done
[[ -s $tmp/upload.port ]] || fatal "the upload server did not start"

repo=$tmp/repo
project "$repo" false
# the build and sdist jobs' artifacts where gitlab-ci-local keeps them: a wheel and an sdist of demo 1.0.0
"$py" - "$repo/.gitlab-ci-local/artifacts" <<'PY'
import io, os, sys, tarfile, zipfile
art = sys.argv[1]
meta = "Metadata-Version: 2.1\nName: demo\nVersion: 1.0.0\nSummary: a test\n"
wheel = os.path.join(art, "build-cpu-linux-x86_64", "dist", "cpu-linux-x86_64-cp312")
os.makedirs(wheel)
with zipfile.ZipFile(os.path.join(wheel, "demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl"), "w") as z:
    z.writestr("demo/__init__.py", "")
    z.writestr("demo-1.0.0.dist-info/METADATA", meta)
    z.writestr("demo-1.0.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: cp312-cp312-manylinux_2_28_x86_64\n")
    z.writestr("demo-1.0.0.dist-info/RECORD", "")
sdist = os.path.join(art, "sdist-cpu", "dist")
os.makedirs(sdist)
with tarfile.open(os.path.join(sdist, "demo-1.0.0.tar.gz"), "w:gz") as t:
    for name, data in (("PKG-INFO", meta), ("pyproject.toml", "[project]\nname = \"demo\"\n")):
        info = tarfile.TarInfo("demo-1.0.0/" + name)
        info.size = len(data.encode())
        t.addfile(info, io.BytesIO(data.encode()))
PY
git -C "$repo" init -q
git -C "$repo" add -A ':!.gitlab-ci-local'
git -C "$repo" commit -qm base
publish() {  # publish LOG: gitlab-ci-local runs publish-cpu on the tag v1.0.0, in a fresh image; its status in $status
	status=0
	rm -rf "$tmp/py312"
	"$tools/bin/uv" venv -q --seed --python "$py312" "$tmp/py312" || fatal "a CPython 3.12 environment"
	(cd "$repo" && PATH=$tmp/py312/bin:$PATH "$glci" --force-shell-executor --shell-isolation \
		--variable CI_COMMIT_TAG=v1.0.0 --variable PYPI_API_TOKEN=pypi-test-token \
		--variable PIP_NO_INDEX=1 --variable "PIP_FIND_LINKS=$wheelhouse" \
		--variable "TWINE_REPOSITORY_URL=http://127.0.0.1:$(cat "$tmp/upload.port")/legacy/" publish-cpu) >"$1" 2>&1 ||
		status=$?
}
publish "$tmp/run.log"
[[ $status == 0 ]] || { fail "the publish job failed"; tail -n 40 "$tmp/run.log" | show /dev/stdin; }
grep -q "Successfully installed .*pypi-attestations-0" "$tmp/run.log" || fail "the job did not install the lock: $(grep -i install "$tmp/run.log" | head -5)"
if ! grep -qx "Basic demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl" "$tmp/uploads" ||
	! grep -qx "Basic demo-1.0.0.tar.gz" "$tmp/uploads"; then
	fail "the uploads: $(cat "$tmp/uploads" 2>/dev/null)"
fi

# 4. one of the lock's hashes changed in the generated file: pip refuses, nothing is uploaded
: >"$tmp/uploads"
hash=$(sed -n 's/.*--hash=sha256:\([0-9a-f]*\).*/\1/p' "$repo/.gitlab-ci.yml" | head -1)
sed -i "0,/$hash/s//$(printf '%064d' 0)/" "$repo/.gitlab-ci.yml"
git -C "$repo" commit -qam "a hash changed"
publish "$tmp/tampered.log"
[[ $status != 0 ]] || fail "the publish job with a changed hash passed"
grep -q "THESE PACKAGES DO NOT MATCH THE HASHES" "$tmp/tampered.log" ||
	{ fail "the publish job with a changed hash did not fail at pip's hash check"; tail -n 20 "$tmp/tampered.log" | show /dev/stdin; }
[[ ! -s $tmp/uploads ]] || fail "uploaded with a changed hash: $(cat "$tmp/uploads")"
finish
