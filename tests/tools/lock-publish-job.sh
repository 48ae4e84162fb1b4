#!/usr/bin/env bash
# lock-publish-job.sh — writes templates/publish-lock.txt, the hashed lock GitLab's publish jobs install twine and pypi-attestations from.
#
# usage: tests/tools/lock-publish-job.sh      (after a pin of twine or pypi-attestations moves in
#                                             templates/actions.yaml; needs the package index)
#
# The pinned tools' uv (tests/tools/install.sh) resolves twine and pypi-attestations at the pins of
# templates/actions.yaml, with every package they need, for CPython 3.12 on Linux (the publish job's
# image, python:3.12-slim), wheels only; the pinned tools' pip then downloads each package's wheels
# for CPython 3.12 on glibc Linux (manylinux 2.28 and 2.36, x86_64 and aarch64: the image's
# platforms), and each wheel's sha256 goes into the lock.  pip checks nothing here: the hashes are
# of the files the index serves now, which tests/t-publish-lock.sh then holds the lock to.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
tools=$("$here/install.sh" --path)
[[ -f $tools/.complete ]] || { echo "lock-publish-job.sh: run tests/tools/install.sh first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pin() {
	"$tools/bin/python" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["tools"][sys.argv[2]])' \
		"$root/templates/actions.yaml" "$1"
}
twine=$(pin twine)
attestations=$(pin pypi-attestations)
printf 'twine==%s\npypi-attestations==%s\n' "$twine" "$attestations" >"$tmp/in.txt"
"$tools/bin/uv" pip compile --quiet --python-version 3.12 --python-platform x86_64-manylinux_2_28 \
	--only-binary :all: --no-header --no-annotate "$tmp/in.txt" -o "$tmp/pins.txt"
# a glibc 2.N system takes manylinux_2_M for every M up to N (pip does not widen --platform itself)
for arch in x86_64 aarch64; do
	for glibc in 28 36; do
		platforms=()
		for ((m = glibc; m >= 17; m--)); do
			platforms+=(--platform "manylinux_2_${m}_$arch")
		done
		platforms+=(--platform "manylinux2014_$arch")
		"$tools/bin/python" -m pip download --isolated --disable-pip-version-check --progress-bar off -q \
			--no-deps --only-binary :all: --python-version 3.12 --implementation cp --abi cp312 --abi abi3 \
			--abi none "${platforms[@]}" -r "$tmp/pins.txt" -d "$tmp/wheels"
	done
done
"$tools/bin/python" - "$tmp/pins.txt" "$tmp/wheels" "$twine" "$attestations" >"$tmp/lock.txt" <<'PY'
import hashlib, os, re, sys
pins, wheels, twine, attestations = sys.argv[1:]
norm = lambda s: re.sub(r"[-_.]+", "-", s).lower()
files = {}
for f in sorted(os.listdir(wheels)):
    name, version = f.split("-")[:2]
    with open(os.path.join(wheels, f), "rb") as fh:
        files.setdefault((norm(name), version), set()).add(hashlib.sha256(fh.read()).hexdigest())
print("""# publish-lock.txt — what GitLab's publish jobs install, by hash: twine %s and pypi-attestations %s
# (templates/actions.yaml's pins) with every package they need, for CPython 3.12 on glibc Linux (the
# job's image, python:3.12-slim), each pinned with the sha256 of each of its wheels for that image
# on x86_64 and aarch64, as PyPI serves them.  The job writes it out and runs `pip install
# --require-hashes --only-binary :all: -r` on it while it holds the upload's tokens, so that pip
# installs exactly these files and builds nothing.  Written by tests/tools/lock-publish-job.sh
# (uv pip compile, then pip download of the wheels); tests/t-publish-lock.sh holds it to the pins
# and to the files the index serves.""" % (twine, attestations))
for line in open(pins):
    m = re.match(r"^([A-Za-z0-9._-]+)==([^\s;]+)", line)
    if not m:
        continue
    hashes = files.get((norm(m[1]), m[2]))
    if not hashes:
        sys.exit("no wheel of %s==%s for CPython 3.12 on Linux" % (m[1], m[2]))
    print("%s==%s \\" % (norm(m[1]), m[2]))
    print(" \\\n".join("    --hash=sha256:" + h for h in sorted(hashes)))
PY
mv "$tmp/lock.txt" "$root/templates/publish-lock.txt"
echo "lock-publish-job.sh: wrote templates/publish-lock.txt: twine $twine, pypi-attestations $attestations, $(grep -c '==' "$root/templates/publish-lock.txt") packages"
