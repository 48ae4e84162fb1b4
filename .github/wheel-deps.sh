#!/bin/bash
# wheel-deps.sh — the C libraries wheelmatrix's release wheels are built with and bundle (release.yml:
# cibuildwheel's before-all, pyproject.toml [tool.cibuildwheel]), installed with their pkg-config files.
#
# usage: .github/wheel-deps.sh linux   in the manylinux_2_28 container (AlmaLinux 8), as root
#        .github/wheel-deps.sh macos   on a GitHub-hosted macOS runner
#
# AlmaLinux 8 has libyaml and Jansson, but its libcurl (7.61) is older than the 7.85 lib/index/net.c
# needs and it has no libgit2 1.x, so those two are built from their repositories at the tags
# below, each checked to be the commit recorded here (read from the repositories' snapshots:
# curl/curl tag curl-8_21_0, libgit2/libgit2 tag v1.9.7), with only what wheelmatrix uses: libcurl
# with OpenSSL for HTTPS, libgit2 without network transports.  On macOS the libraries the wheel
# bundles come the same way, built from their repositories at recorded commits (yaml/libyaml tag
# 0.2.5, akheron/jansson tag v2.15.1, libgit2 as on Linux) into /usr/local for MACOSX_DEPLOYMENT_TARGET,
# and libcurl is the system's (/usr/lib/libcurl.4.dylib, curl 8 since macOS 13: the wheel links it
# and bundles nothing of it), its headers the SDK's; only pkgconf, a build tool, comes from Homebrew.
# libgit2 stays at v1.9.7, its newest release: the fix of its zstream loop on a truncated zlib
# stream (commit 5254f5dc4947e2590968294c07ee12653e541e0d, merged into main by 0551dfd4 on
# 2026-08-15) came after v1.9.7 (2026-08-13) and v1.8.7, and no release tag holds it yet.  The
# tool never gives libgit2's patch reader a file of the repository (lib/formats/diff.c reads and
# applies the variant patches), so that loop is out of its reach whatever libgit2 it runs with.
set -euo pipefail
curl_tag=curl-8_21_0 curl_commit=68720b4837284335b2d63cb358f8f6ce65f5bc55
libgit2_tag=v1.9.7 libgit2_commit=49e408b3208bc3093757a1c2db938d3590f3f412
libyaml_tag=0.2.5 libyaml_commit=2c891fc7a770e8ba2fec34fc6b545c672beb37e6
jansson_tag=v2.15.1 jansson_commit=dbb5fb3636e155fccfce4cd215de752779bd6971

# clone NAME URL TAG COMMIT: the repository at TAG into /tmp/NAME, refused unless TAG is COMMIT
clone() {
	git clone --quiet --depth 1 --branch "$3" "$2" "/tmp/$1"
	[[ $(git -C "/tmp/$1" rev-parse HEAD) == "$4" ]] || {
		echo "wheel-deps.sh: $2 tag $3 is $(git -C "/tmp/$1" rev-parse HEAD), not $4" >&2
		exit 1
	}
}

case ${1:-} in
linux)
	dnf install -y dnf-plugins-core
	dnf config-manager --set-enabled powertools
	dnf install -y git libyaml-devel jansson-devel openssl-devel zlib-devel pkgconf-pkg-config
	clone curl https://github.com/curl/curl.git "$curl_tag" "$curl_commit"
	cmake -S /tmp/curl -B /tmp/curl/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr/local \
		-DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF -DBUILD_LIBCURL_DOCS=OFF -DBUILD_MISC_DOCS=OFF \
		-DENABLE_CURL_MANUAL=OFF -DCURL_USE_OPENSSL=ON -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF \
		-DUSE_LIBIDN2=OFF -DUSE_NGHTTP2=OFF -DCURL_DISABLE_LDAP=ON -DCURL_BROTLI=OFF -DCURL_ZSTD=OFF
	cmake --build /tmp/curl/build --parallel
	cmake --install /tmp/curl/build
	clone libgit2 https://github.com/libgit2/libgit2.git "$libgit2_tag" "$libgit2_commit"
	cmake -S /tmp/libgit2 -B /tmp/libgit2/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr/local \
		-DBUILD_TESTS=OFF -DBUILD_CLI=OFF -DUSE_HTTPS=OFF -DUSE_SSH=OFF -DUSE_GSSAPI=OFF -DREGEX_BACKEND=builtin
	cmake --build /tmp/libgit2/build --parallel
	cmake --install /tmp/libgit2/build
	;;
macos)
	brew install pkgconf
	# installed under their full paths (not @rpath), which delocate follows to bundle them
	prefix=/usr/local
	sudo mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
	sudo chown -R "$(id -u)" "$prefix/lib" "$prefix/include"
	clone libyaml https://github.com/yaml/libyaml.git "$libyaml_tag" "$libyaml_commit"
	cmake -S /tmp/libyaml -B /tmp/libyaml/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_NAME_DIR="$prefix/lib" \
		-DBUILD_SHARED_LIBS=ON -DBUILD_TESTING=OFF
	cmake --build /tmp/libyaml/build --parallel
	cmake --install /tmp/libyaml/build
	# libyaml's CMake build writes no pkg-config file: the one its autotools build would
	printf 'Name: LibYAML\nDescription: Library to parse and emit YAML\nVersion: %s\nCflags: -I%s/include\nLibs: -L%s/lib -lyaml\n' \
		"$libyaml_tag" "$prefix" "$prefix" >"$prefix/lib/pkgconfig/yaml-0.1.pc"
	clone jansson https://github.com/akheron/jansson.git "$jansson_tag" "$jansson_commit"
	cmake -S /tmp/jansson -B /tmp/jansson/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_NAME_DIR="$prefix/lib" \
		-DJANSSON_BUILD_SHARED_LIBS=ON -DJANSSON_BUILD_DOCS=OFF -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON
	cmake --build /tmp/jansson/build --parallel
	cmake --install /tmp/jansson/build
	clone libgit2 https://github.com/libgit2/libgit2.git "$libgit2_tag" "$libgit2_commit"
	cmake -S /tmp/libgit2 -B /tmp/libgit2/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_NAME_DIR="$prefix/lib" \
		-DBUILD_TESTS=OFF -DBUILD_CLI=OFF -DUSE_HTTPS=OFF -DUSE_SSH=OFF -DUSE_GSSAPI=OFF -DREGEX_BACKEND=builtin
	cmake --build /tmp/libgit2/build --parallel
	cmake --install /tmp/libgit2/build
	# the system's libcurl, with the SDK's headers
	sdk=$(xcrun --show-sdk-path)
	curl_version=$(sed -n 's/^#define LIBCURL_VERSION "\([^"]*\)".*/\1/p' "$sdk/usr/include/curl/curlver.h")
	printf 'Name: libcurl\nDescription: the system libcurl\nVersion: %s\nCflags: -I%s/usr/include\nLibs: -lcurl\n' \
		"$curl_version" "$sdk" >"$prefix/lib/pkgconfig/libcurl.pc"
	;;
*)
	echo "usage: $0 linux|macos" >&2
	exit 2
	;;
esac
