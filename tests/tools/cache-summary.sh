#!/bin/bash
# cache-summary.sh — what `make check` keeps in ${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix between
# runs, and its size: one line per kind of thing cached, largest first, and how to clear it
# (`make clean-cache`, which removes the directory; the next `make check` installs it all again).
set -euo pipefail
cache=${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix
[ -d "$cache" ] || { echo "make check: nothing cached in $cache"; exit 0; }

# what each directory holds (tests/tools/install*.sh, tests/kit/lib.sh)
what() {
	case $1 in
	tools-*) echo "maturin, auditwheel, uv and the Python tools the tests run (tests/tools/requirements.txt)" ;;
	cargo-target) echo "the Rust builds of the end-to-end tests, kept so that the next run builds less" ;;
	takeover-build) echo "Zig and the sdists t-takeover-build builds" ;;
	validators) echo "actionlint, zizmor and action-validator (tests/tools/validators.txt)" ;;
	testdata) echo "the toml-test suite and the real-project corpus" ;;
	crates) echo "PyO3's pyo3-ffi and pyo3-build-config, which the tests read (tests/tools/crates.txt)" ;;
	cuda) echo "the CUDA runtime of the CUDA import test" ;;
	wheelhouse) echo "the build requirements of wheelmatrix's own wheel" ;;
	pytest) echo "pytest's wheels for the replayed test steps" ;;
	publish) echo "build and twine for the publishing jobs" ;;
	publish-job) echo "the wheels of the GitLab publish job's lock" ;;
	powershell-parser) echo "the PowerShell parser of the Windows scripts' tests" ;;
	*) echo "left by another version of the tests" ;;
	esac
}

# KB (du -k) as MB, to the nearest
mb() { if [ "$1" -lt 512 ]; then echo "<1 MB"; else echo "$(( ($1 + 512) / 1024 )) MB"; fi; }

total=$(du -sk "$cache" | cut -f1)
echo "make check: $(mb "$total") of test tools and data are cached in $cache, kept between runs;" \
	"'make clean-cache' removes them (the next 'make check' downloads them again):"
for d in "$cache"/*/; do
	[ -d "$d" ] || continue
	name=$(basename "$d")
	printf '%s\t%s\n' "$(du -sk "$d" | cut -f1)" "$name"
done | sort -rn | while IFS=$'\t' read -r size name; do
	printf '  %8s  %-24s %s\n' "$(mb "$size")" "$name" "$(what "$name")"
done
