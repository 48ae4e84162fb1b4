/* untrusted.h — the checks of matrix values that reach the CI files as they are (untrusted.c). */
#ifndef WM_MODEL_UNTRUSTED_H
#define WM_MODEL_UNTRUSTED_H

#include "util/common.h"
#include "formats/yaml.h"
#include "model/expr.h"

struct wm_loader;

/*
 * Reports a GitHub expression in a value that the CI files use as it is: a
 * runner label, an image, a tag, an environment name.  `${{` there would be
 * evaluated (or fail to parse) when the workflow runs.
 */
bool wm_untrusted_expression_free(struct wm_loader *l, const struct wm_node *n, const char *what);
/*
 * Reports the expression fault `f` in scalar `n`, at the fault's own column
 * when `n` is a one-line plain scalar, else at the scalar; `where` names
 * the place ("a setup step").
 */
void wm_untrusted_expr_error(struct wm_loader *l, const struct wm_node *n, const struct wm_expr_fault *f,
	const char *where, const char *hint);
/*
 * Reports a path of the matrix file (scalar n, the value of `what`) whose text
 * is not a path's (wm_name_path_text), at the offending character; false then.
 */
bool wm_untrusted_path(struct wm_loader *l, const struct wm_node *n, const char *what);
/*
 * Loads an `env:` mapping (a backend's or an include's) into *out: the names the matrix may set, and
 * values whose expressions read only secrets.NAME and vars.NAME.
 */
void wm_untrusted_load_env(struct wm_loader *l, const struct wm_node *n, struct wm_env **out, size_t *nout);
/*
 * Why an environment variable name is not the matrix file's to set (the generated jobs' WM_*, the
 * CI providers' own, unless `code_only`; and those that make a shell, linker, git or Python run
 * other code), or NULL.
 */
const char *wm_untrusted_env_reserved(const char *name, bool code_only);
/*
 * A GitHub setup step, copied into the workflow as it is: a mapping of
 * GitHub's step keys (wm_untrusted_step_keys) to single values, whose
 * `with:` and `env:` are mappings of literal names (an environment name, not
 * one that makes a shell, linker or Python run code) to single values, never
 * one expression; every expression outside `env:` values reads only the
 * contexts of wm_expr_setup_allowed.  Reports what is not.
 */
void wm_untrusted_github_step(struct wm_loader *l, const struct wm_node *step);
/* A GitLab setup step: one script line, its expressions held to the same contexts. */
void wm_untrusted_gitlab_line(struct wm_loader *l, const struct wm_node *line);

#endif
