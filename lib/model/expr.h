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

/*
 * The expression language's tokens, which the checks above and the evaluator of workflow/eval.c
 * read: `x.p` is where the next token starts (NUL-terminated text); each call leaves the token in
 * x.start and x.len.  A string keeps its quotes; `}}` closes an expression; WM_TOK_OP is one of
 * `])!<>=&|,` (two-character operators are two tokens).
 */
enum wm_expr_tok {
	WM_TOK_END, WM_TOK_CLOSE, WM_TOK_IDENT, WM_TOK_STRING, WM_TOK_NUMBER, WM_TOK_DOT, WM_TOK_STAR,
	WM_TOK_LBRACKET, WM_TOK_OP, WM_TOK_LPAREN, WM_TOK_BAD,
};
struct wm_expr_lexer {
	const char *p;
	const char *start;  /* the current token */
	size_t len;
};
enum wm_expr_tok wm_expr_next(struct wm_expr_lexer *x);
/* The functions of the language (`contains`, `format`, ...), compared as GitHub does, ignoring case. */
bool wm_expr_function(const char *s, size_t n);

#endif
