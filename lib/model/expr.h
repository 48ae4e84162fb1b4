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

/* A context's value on the event a condition is evaluated for: `github.ref` is "refs/tags/" and more. */
struct wm_expr_fact {
	const char *path;     /* dotted, lower case: "github.event_name" */
	const char *value;
	bool prefix;          /* the value is only the string's start */
};

enum wm_expr_truth { WM_EXPR_FALSE, WM_EXPR_TRUE, WM_EXPR_UNKNOWN };

/*
 * Whether the condition `cond` (a job's or a step's `if:`, with or without
 * `${{ }}` around it) holds when the contexts of `facts` have those values,
 * the steps before succeeded, and nothing else is known: WM_EXPR_UNKNOWN when
 * the answer depends on the rest, or when the condition is not understood.
 */
enum wm_expr_truth wm_expr_holds(const char *cond, const struct wm_expr_fact *facts, size_t nfacts);

#endif
