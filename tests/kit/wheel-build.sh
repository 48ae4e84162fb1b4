# wheel-build.sh — sourced after tests/kit/wheel-env.sh by the tests that need wheelmatrix's own wheel
# (t-wheel, t-check-job, t-commit-paths): one build of it per run of the tests.
# shellcheck shell=bash
#
# wheel_build DIR   `uv build` of the repository (the sdist, then the wheel from the sdist) into
#                   DIR/dist, and `auditwheel repair` of the wheel into DIR/repaired; the logs in
#                   DIR/build.log.  Returns 1 when either failed.
#
# The build takes a minute and more of both processors, and its result depends on the sources
# alone: the scripts of one run share it.  The first to ask builds it into $TMPDIR (the run's, which
# tests/run.sh removes when the run ends), under a name made of the digest of every file git tracks
# or would add (their paths and contents), holding a lock that the others wait on; each then copies
# the files.  Sources changed in between make another name, so another build.  As the others wait,
# the build's make (CMakeLists.txt's, run by Ninja) runs a job per processor (MAKEFLAGS: -j alone).
: "${ROOT:?}" "${tmp:?source tests/kit/lib.sh first}" "${version:?source tests/kit/wheel-env.sh first}"
need flock "apt-get install util-linux"

# The digest of the sources: every file git tracks or does not ignore, path and content.
wheel_sources_digest() {
	(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | LC_ALL=C sort -zu |
		while IFS= read -r -d '' f; do
			[ -f "$f" ] || continue
			printf '%s\0' "$f"
			sha256sum <"$f"
		done) | sha256sum | cut -c1-32
}

wheel_build() {
	local out=$1 digest cache
	digest=$(wheel_sources_digest) || return 1
	cache=${TMPDIR:-/tmp}/wheelmatrix-wheel-$digest
	mkdir -p "$cache" "$out"
	(
		flock 9
		if [ ! -f "$cache/complete" ]; then
			rm -rf "$cache/dist" "$cache/repaired"
			{
				MAKEFLAGS=-j$(nproc 2>/dev/null || echo 2) uv build --no-index -o "$cache/dist" "$ROOT" &&
					auditwheel repair -w "$cache/repaired" "$cache/dist/wheelmatrix-$version-py3-none-linux_$(uname -m).whl"
			} >"$cache/build.log" 2>&1 && touch "$cache/complete"
		fi
	) 9>"$cache/lock"
	cp "$cache/build.log" "$out/build.log" 2>/dev/null || true
	[ -f "$cache/complete" ] || return 1
	cp -R "$cache/dist" "$cache/repaired" "$out/"
}
