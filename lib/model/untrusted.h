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
 * Loads an `env:` mapping (a backend's or an include's) into *out: the names the matrix may set, and
 * values whose expressions read only secrets.NAME and vars.NAME.
 */
void wm_untrusted_load_env(struct wm_loader *l, const struct wm_node *n, struct wm_env **out, size_t *nout);
/*
 * Refuses, anywhere in a setup subtree except a GitHub step's `env:` values,
 * an expression that reads anything but the contexts of wm_expr_setup_allowed.
 */
void wm_untrusted_check(struct wm_loader *l, const struct wm_node *n, bool github_step);

#endif
