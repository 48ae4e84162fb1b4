/* expr.h — what a GitHub Actions expression reads (expr.c). */
#ifndef WM_MODEL_EXPR_H
#define WM_MODEL_EXPR_H

#include "util/common.h"

/* Where an expression in a text is refused: `at`/`len` span the part in the text, `why` ("reads") what it does with it. */
struct wm_expr_fault {
	const char *at;
	size_t len;
	const char *why;
};

/*
 * Whether every `${{ ... }}` in `s` reads only contexts in `allowed` (dotted
 * paths, case-insensitive; a final `.*` stands for one name), with no index
 * on a context and only the language's functions; *f tells the first that
 * does not.
 */
bool wm_expr_check(const char *s, const char *const *allowed, size_t nallowed, struct wm_expr_fault *f);
extern const char *const wm_expr_setup_allowed[];
extern const size_t wm_expr_setup_nallowed;

#endif
