#!/usr/bin/env bash
# t-publish-tools.sh — the pinned build and twine run the generated GitLab jobs' own commands: the meta package is built, and uploaded with its PEP 740 attestations.
#
# The llm-rs fixture (tests/fixtures/llm-rs) under matrices/llm-rs-meta.yaml is generated in a
# scratch repository.  In a fresh virtual
# environment whose pip sees only the wheelhouse of tests/tools/publish-requirements.txt (build and
# twine at templates/actions.yaml's pins, with what they need), the `meta-package` job's script runs
# line by line as the job would, with the file's WM_BUILD: it installs build, builds the meta
# package's wheel and sdist and passes its own checks.  Then the publish template's lines run on
# them with the meta package's WM_DIST in a CPython 3.12 environment (the job's image): twine and
# pypi-attestations are installed from the lock the job embeds (templates/publish-lock.txt, by hash), the names are checked,
# `twine check` passes, and the job's upload command under trusted publishing, taken from the
# file as it is (`twine upload --non-interactive --attestations` with each file's
# <file>.publish.attestation, which pypi-attestations writes there), uploads to a local stand-in
# of PyPI's upload API: each file arrives once, with its `attestations` field the JSON list of
# exactly its own attestation.
# heavy: build and twine installed and run in fresh environments
. "$ROOT/tests/kit/lib.sh"
# shellcheck source=tests/kit/python-env.sh
. "$ROOT/tests/kit/python-env.sh"
wheelhouse=$("$ROOT/tests/tools/install-publish.sh" --dir)
[[ -f $wheelhouse/complete ]] || fatal "the publishing tools' wheelhouse is missing: make tools (tests/tools/install-publish.sh)"
jobhouse=$("$ROOT/tests/tools/install-publish-job.sh" --dir)
[[ -f $jobhouse/complete ]] || fatal "the publish job's locked wheels are missing: make tools (tests/tools/install-publish-job.sh)"
# the job's image is python:3.12-slim and its lock is for CPython 3.12
py312=
for p in "$(command -v python3.12 2>/dev/null)" /usr/bin/python3.12 "$HOME"/.pyenv/versions/3.12.*/bin/python3.12; do
	[[ -x $p ]] && "$p" -c 'import venv' 2>/dev/null && { py312=$p; break; }
done
[[ -n $py312 ]] || fatal "no CPython 3.12 to run the job with (the image's): apt-get install python3.12, or pyenv install 3.12"

repo=$tmp/repo
cp -RL "$ROOT/tests/fixtures/llm-rs" "$repo"
cp "$ROOT/matrices/llm-rs-meta.yaml" "$repo/wheelmatrix.yaml"
scratch_repo "$repo"
expect_run 0 "$WM" -q -C "$repo" generate
"$py" - "$repo/.gitlab-ci.yml" "$tmp" <<'PY' || fatal "cannot read the jobs of the generated file"
import json, re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
out = sys.argv[2]
meta = doc["meta-package"]
publish = doc[".wheelmatrix-publish"]
job = doc["publish-meta-package"]
variables = dict(doc.get("variables") or {})
variables.update(meta.get("variables") or {})
variables.update(job.get("variables") or {})
lines = publish["script"]
upload = [l for l in lines if "twine upload --non-interactive --attestations" in l]
assert len(upload) == 1, upload
m = re.search(r"(python3 -m twine upload --non-interactive --attestations[^\n]*\\\n[^\n]*)", upload[0])
assert m, upload[0]
json.dump({"meta": meta["script"], "publish": [l for l in lines if "twine upload" not in l and "TWINE_PASSWORD" not in l],
           "upload": m.group(1), "variables": {k: str(v) for k, v in variables.items()}}, open(out + "/jobs.json", "w"))
PY

# a fresh environment whose pip knows nothing but the wheelhouse
"$py312" -m venv "$tmp/venv" || fatal "cannot make a virtual environment"
export PATH=$tmp/venv/bin:$PATH PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheelhouse $jobhouse" PIP_DISABLE_PIP_VERSION_CHECK=1
# script NAME: the job's lines of jobs.json's NAME, each in bash -e as GitLab runs a line, in the repository
script() {
	local i n
	n=$("$py" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$tmp/jobs.json" "$1")
	for ((i = 0; i < n; i++)); do
		"$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][int(sys.argv[3])])' "$tmp/jobs.json" "$1" "$i" >"$tmp/line.sh"
		(cd "$repo" && bash -e "$tmp/line.sh") >>"$tmp/$1.log" 2>&1 || { fail "$1 job, line $((i + 1)) failed: $(cat "$tmp/line.sh")"; tail -n 30 "$tmp/$1.log"; return 1; }
	done
}
eval "$("$py" -c 'import json, shlex, sys; [print("export %s=%s" % (k, shlex.quote(v))) for k, v in json.load(open(sys.argv[1]))["variables"].items() if k in ("WM_BUILD", "WM_DIST")]' "$tmp/jobs.json")"
# twine comes from the lock the job embeds, at templates/actions.yaml's pin
twine=$(sed -n 's/^twine==\([^ ]*\).*/\1/p' "$ROOT/templates/publish-lock.txt")
[[ $WM_BUILD == "$(sed -n 's/^  build: "\(.*\)"$/\1/p' "$ROOT/templates/actions.yaml")" && -n $WM_DIST ]] ||
	fatal "the file's WM_BUILD ($WM_BUILD), WM_DIST ($WM_DIST)"
[[ $twine == "$(sed -n 's/^  twine: "\(.*\)"$/\1/p' "$ROOT/templates/actions.yaml")" ]] ||
	fatal "the lock's twine ($twine) is not templates/actions.yaml's"

script meta || fatal "the meta package was not built"
[[ $("$tmp/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("build"))') == "$WM_BUILD" ]] ||
	fail "the meta job did not install build $WM_BUILD"

# the publish job's lines, then its upload under trusted publishing, to a stand-in of PyPI's upload API
script publish || fatal "the publish job's checks failed"
[[ $("$tmp/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("twine"))') == "$twine" ]] ||
	fail "the publish job did not install twine $twine"
for f in "$repo"/dist/*/*.whl "$repo"/dist/*.tar.gz; do
	printf '{"version": 1, "verification_material": {"file": "%s"}, "envelope": {}}\n' "${f##*/}" >"$f.publish.attestation"
done
cat >"$tmp/upload-server.py" <<'PY'
import email.parser, email.policy, http.server, json, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + body)
        fields = {}
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            fields[name] = part.get_filename() if name == "content" else part.get_content()
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps({"path": self.path, "file": fields.get("content"), "action": fields.get(":action"),
                                "attestations": fields.get("attestations")}) + "\n")
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write(str(s.server_address[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
python3 "$tmp/upload-server.py" "$tmp/upload.port" "$tmp/uploads.jsonl" &
upload_pid=$!
# shellcheck disable=SC2317  # run at exit
stop_upload() { kill "$upload_pid" 2>/dev/null; }
at_exit stop_upload
for ((i = 0; i < 100; i++)); do [[ -s $tmp/upload.port ]] && break; sleep 0.05; done
upload_cmd=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["upload"])' "$tmp/jobs.json")
(cd "$repo" && TWINE_USERNAME=__token__ TWINE_PASSWORD=pypi-test TWINE_REPOSITORY_URL="http://127.0.0.1:$(cat "$tmp/upload.port")/legacy/" \
	bash -e -c "$upload_cmd") >"$tmp/upload.log" 2>&1 || { fail "the upload command failed: $upload_cmd"; cat "$tmp/upload.log"; }
"$py" - "$repo" "$tmp/uploads.jsonl" <<'PY' || fail "what the stand-in received (above)"
import glob, json, os, sys
repo, log = sys.argv[1:]
files = sorted(glob.glob(os.path.join(repo, "dist/*/*.whl")) + glob.glob(os.path.join(repo, "dist/*.tar.gz")))
got = [json.loads(l) for l in open(log)] if os.path.exists(log) else []
bad = []
if sorted(g["file"] for g in got) != sorted(os.path.basename(f) for f in files) or len(files) != 2:
    bad.append("uploaded %s, built %s" % (sorted(g["file"] for g in got), [os.path.basename(f) for f in files]))
for g in got:
    f = [f for f in files if os.path.basename(f) == g["file"]]
    want = [json.load(open(f[0] + ".publish.attestation"))] if f else None
    if g["action"] != "file_upload" or g["path"] != "/legacy/" or not g["attestations"] or json.loads(g["attestations"]) != want:
        bad.append("%s: %r" % (g["file"], g))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
finish
