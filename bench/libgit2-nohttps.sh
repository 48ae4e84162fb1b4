#!/usr/bin/env bash
# libgit2-nohttps.sh — builds Debian 12's libgit2 from its pinned source package without HTTPS, SSH
# and GSSAPI (wheelmatrix never fetches or pushes) into PREFIX, for `make LIBGIT2=nohttps`.
#
# Usage: bench/libgit2-nohttps.sh PREFIX
#
# Debian's libgit2 1.5 is built with mbedTLS, and its git_libgit2_init() parses the whole CA bundle
# (/etc/ssl/certs/ca-certificates.crt, fixed at compile time) on every start: most of what `check`
# costs on a repository of 10,000 files (bench/README.md).  This is the same source, Debian's patches
# applied, configured as debian/rules configures it but with -DUSE_HTTPS=OFF -DUSE_SSH=OFF
# -DUSE_GSSAPI=OFF.  The source package comes from Debian's archive through apt (its signature
# checked against Debian's archive keyring), and each file is checked against the hashes below.
# Debian's build dependencies it needs (cmake, dpkg-dev, zlib, PCRE2, http-parser) are installed
# with apt-get as root, otherwise the command to run is printed.
set -euo pipefail

version=1.5.1+ds-1+deb12u1
declare -A sha256=(
	[libgit2_1.5.1+ds-1+deb12u1.dsc]=b4de836d38cb2aca2687420754c5fa955f719934b92a4213d787d0b7dc2abebf
	[libgit2_1.5.1+ds.orig.tar.xz]=96369433500bb528f036c16be9921bd437c098b745f1aaeccb91290815518970
	[libgit2_1.5.1+ds-1+deb12u1.debian.tar.xz]=e869077309d8fa0bc56701970af7c6908d02674a89271f7cb29cb31814b69382
)
deps=(cmake dpkg-dev zlib1g-dev libpcre2-dev libhttp-parser-dev)

[[ $# = 1 && $1 = /* ]] || { echo "usage: $0 PREFIX (an absolute path)" >&2; exit 2; }
prefix=$1
if [[ -f $prefix/lib/libgit2.so.1.5 && $(cat "$prefix/.version" 2>/dev/null) = "$version" ]]; then
	exit 0
fi

missing=()
for p in "${deps[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
	if [[ $(id -u) = 0 ]]; then
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
	else
		echo "$0: missing packages: ${missing[*]}; install them with:" >&2
		echo "  sudo apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/libgit2-nohttps.XXXXXX")
trap 'rm -rf "$work"' EXIT
# the source package, through apt with a deb-src list of its own (the system's lists are not touched)
printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main\n' \
	>"$work/sources.list"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
apt=(apt-get -q -o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1)
"${apt[@]}" update >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
(cd "$work" && "${apt[@]}" source --download-only "libgit2=$version") >>"$work/apt.log" 2>&1 ||
	{ cat "$work/apt.log" >&2; exit 1; }
for f in "${!sha256[@]}"; do
	echo "${sha256[$f]}  $work/$f"
done | sha256sum --quiet -c - || { echo "$0: the source package is not the pinned one" >&2; exit 1; }
(cd "$work" && dpkg-source -x "libgit2_$version.dsc" src) >>"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }

cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX="$prefix" \
	-DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=ON -DBUILD_CLI=OFF -DBUILD_TESTS=OFF \
	-DENABLE_REPRODUCIBLE_BUILDS=ON -DREGEX_BACKEND=pcre2 -DUSE_HTTP_PARSER=system -DUSE_NTLMCLIENT=OFF \
	-DUSE_HTTPS=OFF -DUSE_SSH=OFF -DUSE_GSSAPI=OFF >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" -j"$(nproc 2>/dev/null || echo 2)" >"$work/build.log" 2>&1 || { tail -n 50 "$work/build.log" >&2; exit 1; }
rm -rf "$prefix"
cmake --install "$work/build" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; exit 1; }
echo "$version" >"$prefix/.version"
echo "libgit2 $version without HTTPS, SSH and GSSAPI: $prefix/lib/libgit2.so.1.5"
