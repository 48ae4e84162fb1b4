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
 * A relative path inside the repository: no absolute path, no `..`, no
 * component that git refuses under core.protectHFS and core.protectNTFS
 * (wm_name_git_component).
 */
bool wm_name_repo_path(const char *s, const char **why);
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
