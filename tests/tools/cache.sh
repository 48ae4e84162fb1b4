# cache.sh — what the installers of pinned test tools and data share: a cache directory named by
# a digest of the pins, made in a scratch directory and moved into place whole, `complete` last.
# shellcheck shell=bash
#
# An installer sets `here` and sources it, then:
#   cache_begin NAME SUBDIR PIN... -- "$@"   sets `dir` (~/.cache/wheelmatrix/SUBDIR/KEY, KEY a digest
#                                            of the PIN files); with --dir prints it and exits; exits 0
#                                            when it is complete, saying what is there; later
#                                            messages start NAME
#   die MESSAGE                              prints it and exits 1
#   need_go WHAT                             Go 1.21 or newer on PATH, or dies saying WHAT needs it
#   cache_tmp                                sets `tmp`, a scratch directory beside `dir`, removed at exit
#   cache_commit LINE                        writes LINE to `complete` and moves `tmp` to `dir`, unless
#                                            another install of the same pins finished meanwhile, and
#                                            says it is ready
#   pip_install PYTHON ARGS...               PYTHON -m pip install ARGS, printing a line per package
#                                            it collects, and all its output if it fails

cache_begin() {
	local name=$1 sub=$2 key pins=()
	shift 2
	while [[ $1 != -- ]]; do
		pins+=("$1")
		shift
	done
	shift
	key=$(cat "${pins[@]}" | sha256sum | cut -c1-16)
	dir=${XDG_CACHE_HOME:-$HOME/.cache}/wheelmatrix/$sub/$key
	if [[ ${1:-} == --dir ]]; then
		printf '%s\n' "$dir"
		exit 0
	fi
	[[ $# == 0 ]] || {
		echo "usage: $0 [--dir]" >&2
		exit 2
	}
	if [[ -f $dir/complete ]]; then
		printf '%s: %s: installed already in %s\n' "$name" "$(head -n 1 "$dir/complete")" "$dir"
		exit 0
	fi
	cache_name=$name
}

die() {
	printf '%s: %s\n' "${cache_name:-$0}" "$*" >&2
	exit 1
}

need_go() {
	local gov
	# Go's own installer puts it in /usr/local/go, not always on PATH.
	PATH=$PATH:/usr/local/go/bin
	command -v go >/dev/null 2>&1 ||
		die "Go is not installed; $1 comes from the Go module proxy with Go 1.21 or newer (https://go.dev/doc/install)"
	gov=$(go env GOVERSION)
	if ! [[ $gov =~ ^go1\.([0-9]+) ]] || ((BASH_REMATCH[1] < 21)); then
		die "$gov is too old for $1: Go 1.21 or newer is needed (https://go.dev/doc/install)"
	fi
}

cache_tmp() {
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$dir.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
}

cache_commit() {
	echo "$1" >"$tmp/complete"
	if [[ ! -f $dir/complete ]]; then
		rm -rf "$dir"
		mv -T "$tmp" "$dir" 2>/dev/null || [[ -f $dir/complete ]] || die "could not move $tmp to $dir"
	fi
	printf '%s: %s: ready in %s\n' "$cache_name" "$1" "$dir"
}

pip_install() {
	local python=$1 log line
	shift
	log=$(mktemp)
	# --isolated: no PIP_* variables or user configuration (a find-links or an index of its own)
	if "$python" -m pip install --isolated --disable-pip-version-check --progress-bar off "$@" 2>&1 | tee "$log" |
		while IFS= read -r line; do
			[[ $line == "Collecting "* ]] || continue
			line=${line#Collecting }
			printf '%s:   %s\n' "${cache_name:-$0}" "${line%% *}"
		done; then
		rm -f "$log"
		return 0
	fi
	cat "$log" >&2
	rm -f "$log"
	return 1
}
