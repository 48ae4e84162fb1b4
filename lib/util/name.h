/* name.h — the grammars of names: backends, distributions, features, requirements, paths (name.c). */
#ifndef WM_UTIL_NAME_H
#define WM_UTIL_NAME_H

#include "util/common.h"

bool wm_name_backend_id(const char *s);      /* [a-z][a-z0-9_]*, at most 32 */
bool wm_name_distribution(const char *s);    /* PEP 508 name */
/* A Cargo feature, `dep/feature` or `dep:name`; on failure `why` says what is wrong. */
bool wm_name_feature(const char *s, const char **why);
/* A PEP 508 requirement; on failure `why` says what is wrong. */
bool wm_name_requirement(const char *s, const char **why);
bool wm_name_env(const char *s);             /* [A-Za-z_][A-Za-z0-9_]* */
bool wm_name_module(const char *s);          /* dotted Python identifiers, ASCII */
bool wm_name_target(const char *s);          /* a Rust target triple's characters */
/*
 * The words of a build's settings (docs/matrix.md, "Build settings"), which reach maturin's
 * command line and, through maturin-action, a shell script unquoted: none holds a blank, a quote,
 * '$', '\\' or a pattern character ('*', '?', '['), so each is one word wherever it goes.
 */
bool wm_name_cargo_profile(const char *s);   /* Cargo's: letters, digits, '-' and '_', not starting with '-' */
/* rustup's: stable, beta, nightly or 1.N[.N], then an optional -YYYY-MM-DD and host triple */
bool wm_name_rust_toolchain(const char *s);
bool wm_name_rustup_component(const char *s); /* [a-z0-9][a-z0-9_.-]* (rust-src, llvm-tools-preview) */
/* A Cargo -Z flag: [a-z0-9][a-z0-9-]*, optionally =value of [A-Za-z0-9_,.+-] (build-std=std,panic_abort) */
bool wm_name_unstable_flag(const char *s);
/* A word of `docker run`'s options: letters, digits and _=:,./@+- (--shm-size=2g, /data:/data:ro) */
bool wm_name_docker_option(const char *s);
/* What is wrong with a path's text: why, where (a byte offset and length), and the character when it is a hidden one. */
struct wm_path_fault {
	const char *why;
	size_t at, len;
	bool hidden;      /* a control or format character, or a byte that is not UTF-8: */
	uint32_t cp;      /* its code point (the byte) */
};
/*
 * The text every path from the matrix file or the project's files obeys: no
 * '$' (a GitHub expression `${{` or a variable GitLab and shells expand),
 * no control or format character (Unicode Cc and Cf, U+2028, U+2029) and no
 * byte that is not UTF-8 (a NUL among `len` bytes is a control character).
 * False with *out filled at the first fault.
 */
bool wm_name_path_text(const char *s, size_t len, struct wm_path_fault *out);
/*
 * A relative path inside the repository, in the text of wm_name_path_text:
 * no absolute path, no '\\', no empty, `.` or `..` component, no component
 * that git refuses under core.protectHFS and core.protectNTFS
 * (wm_name_git_component).
 */
bool wm_name_repo_path(const char *s, const char **why);
/* The same but for the text (wm_name_path_text): the components alone, so that a name git refuses is told as that first. */
bool wm_name_repo_path_shape(const char *s, const char **why);
/*
 * Why git keeps the path component `c` (`n` bytes) out of a tree, or NULL:
 * a name that git, macOS (HFS+) or Windows (NTFS) reads as `.git` (any case;
 * HFS+'s ignorable characters anywhere; trailing dots and spaces, an NTFS
 * stream, the short name git~1), or as `.gitmodules` in any of those ways and
 * as its short names (gitmod~1 to ~4, gi7eba~N), which git refuses for a link.
 */
const char *wm_name_git_component(const char *c, size_t n);
/*
 * An index's base URL: https://host[:port][/path], or http:// on the loopback
 * (localhost, 127.0.0.1) for tests; a host of letters, digits, '.' and '-', a
 * path of letters, digits and -._~/ only: no user, query, fragment or escape,
 * nothing a shell, YAML or HTML would read differently.  `why` says what is wrong.
 */
bool wm_name_index_url(const char *s, const char **why);
/* The leaf of a feature: `cublas` of `llm/cublas`, `cudarc` of `dep:cudarc`. */
const char *wm_name_feature_leaf(const char *s);

#endif
