/*
 * expr.c — what a GitHub Actions expression `${{ ... }}` reads.
 *
 * Setup steps and other text from the matrix file are copied into the
 * generated workflow, where GitHub evaluates their expressions before the
 * shell sees the script.  An expression that reads text an outsider chooses
 * (an issue title, a branch name) injects code.  Matching names in the text
 * is not enough: contexts are case-insensitive (`GITHUB.HEAD_REF`), can be
 * indexed (`github['head_ref']`) and can be passed whole to functions
 * (`toJSON(github)`).  So each expression is read with the expression
 * language's own tokens, and every context it reads must be one of a short
 * list of paths whose values nobody outside the repository chooses.
 *
 * The tokens are also those that workflow/eval.c evaluates expressions with.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "model/expr.h"

static bool ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9') || c == '-';
}

enum wm_expr_tok wm_expr_next(struct wm_expr_lexer *x)
{
	const char *p = x->p;
	enum wm_expr_tok t;
	while (*p == ' ' || (*p >= '\t' && *p <= '\r'))  /* blanks as isspace() reads them: \t \n \v \f \r */
		p++;
	x->start = p;
	if (*p == '\0') {
		t = WM_TOK_END;
	} else if (p[0] == '}' && p[1] == '}') {
		p += 2;
		t = WM_TOK_CLOSE;
	} else if (ident_start(*p)) {
		while (ident_char(*p))
			p++;
		t = WM_TOK_IDENT;
	} else if (*p >= '0' && *p <= '9') {
		while (ident_char(*p) || *p == '.' || ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
			p++;
		t = WM_TOK_NUMBER;
	} else if (*p == '\'') {
		for (p++;; p++) {
			if (*p == '\0')
				break;
			if (*p == '\'' && p[1] == '\'')
				p++;
			else if (*p == '\'')
				break;
		}
		if (*p == '\0') {
			x->p = p;
			x->len = (size_t)(p - x->start);
			return WM_TOK_BAD;
		}
		p++;
		t = WM_TOK_STRING;
	} else if (*p == '.') {
		p++;
		t = WM_TOK_DOT;
	} else if (*p == '*') {
		p++;
		t = WM_TOK_STAR;
	} else if (*p == '[') {
		p++;
		t = WM_TOK_LBRACKET;
	} else if (*p == '(') {
		p++;
		t = WM_TOK_LPAREN;
	} else if (strchr("])!<>=&|,", *p)) {
		p++;
		t = WM_TOK_OP;
	} else {
		p++;
		t = WM_TOK_BAD;
	}
	x->p = p;
	x->len = (size_t)(p - x->start);
	return t;
}

static bool word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

bool wm_expr_function(const char *s, size_t n)
{
	static const char *const names[] = { "contains", "startsWith", "endsWith", "format", "join", "toJSON",
		"fromJSON", "hashFiles", "success", "always", "cancelled", "failure", "case" };
	for (size_t i = 0; i < WM_ARRAY_SIZE(names); i++)
		if (word_is(s, n, names[i]))
			return true;
	return false;
}

/*
 * Whether the dotted path `s` (n bytes, no spaces) is in `allowed`: entries
 * compare case-insensitively, and a final `*` in an entry stands for one
 * name (`secrets.*` allows `secrets.PYPI_TOKEN`, not `secrets` whole).
 */
static bool path_allowed(const char *s, size_t n, const char *const *allowed, size_t nallowed)
{
	for (size_t i = 0; i < nallowed; i++) {
		const char *a = allowed[i];
		size_t an = strlen(a);
		if (an >= 2 && a[an - 1] == '*' && a[an - 2] == '.') {
			size_t prefix = an - 1;
			const char *rest = s + prefix;
			if (n > prefix && strncasecmp(s, a, prefix) == 0 && !memchr(rest, '.', n - prefix) &&
					!memchr(rest, '*', n - prefix))
				return true;
		} else if (an == n && strncasecmp(s, a, n) == 0) {
			return true;
		}
	}
	return false;
}

/*
 * Reads one expression starting after its `${{`; on a problem, fills *f and
 * returns false.  The context path read is collected without spaces in
 * `path` for the allow-list, while f->at/f->len span it in the text.
 */
static bool read_expression(const char *open, const char *const *allowed, size_t nallowed,
	struct wm_expr_fault *f, const char **endp)
{
	struct wm_expr_lexer x = { open + 3, NULL, 0 };
	enum wm_expr_tok prev = WM_TOK_OP, t;
	for (;;) {
		t = wm_expr_next(&x);
		if (t == WM_TOK_CLOSE) {
			*endp = x.p;
			return true;
		}
		if (t == WM_TOK_END || t == WM_TOK_BAD) {
			f->at = t == WM_TOK_END ? open : x.start;
			f->len = t == WM_TOK_END ? strlen(open) : x.len;
			f->why = t == WM_TOK_END ? "has no closing '}}' after" : "has text the expression language does not have:";
			return false;
		}
		if (t == WM_TOK_IDENT && prev != WM_TOK_DOT) {
			const char *name = x.start;
			size_t nlen = x.len;
			struct wm_expr_lexer look = x;
			enum wm_expr_tok after = wm_expr_next(&look);
			if (after == WM_TOK_LPAREN) {
				if (!wm_expr_function(name, nlen)) {
					f->at = name;
					f->len = nlen;
					f->why = "calls a function the expression language does not have:";
					return false;
				}
			} else if (!word_is(name, nlen, "true") && !word_is(name, nlen, "false") &&
					!word_is(name, nlen, "null") && !word_is(name, nlen, "NaN") &&
					!word_is(name, nlen, "Infinity")) {
				/* a context: follow its .name and .* parts */
				char path[256];
				size_t plen = 0;
				const char *end = name + nlen;
				bool fits = nlen < sizeof(path);
				if (fits) {
					memcpy(path, name, nlen);
					plen = nlen;
				}
				for (;;) {
					struct wm_expr_lexer dot = x;
					enum wm_expr_tok d = wm_expr_next(&dot), part;
					const char *pstart;
					size_t pn;
					if (d != WM_TOK_DOT)
						break;
					part = wm_expr_next(&dot);
					if (part != WM_TOK_IDENT && part != WM_TOK_STAR)
						break;
					pstart = dot.start;
					pn = dot.len;
					if (fits && plen + 1 + pn < sizeof(path)) {
						path[plen++] = '.';
						memcpy(path + plen, pstart, pn);
						plen += pn;
					} else {
						fits = false;
					}
					end = pstart + pn;
					x = dot;
				}
				path[plen] = '\0';
				f->at = name;
				f->len = (size_t)(end - name);
				{
					struct wm_expr_lexer look2 = x;
					if (wm_expr_next(&look2) == WM_TOK_LBRACKET) {
						f->why = "indexes the context";
						return false;
					}
				}
				if (!fits || !path_allowed(path, plen, allowed, nallowed)) {
					f->why = "reads";
					return false;
				}
				prev = WM_TOK_IDENT;
				continue;
			}
		}
		prev = t;
	}
}

bool wm_expr_check(const char *s, const char *const *allowed, size_t nallowed, struct wm_expr_fault *f)
{
	const char *open = s;
	while ((open = strstr(open, "${{")) != NULL)
		if (!read_expression(open, allowed, nallowed, f, &open))
			return false;
	return true;
}

/* The contexts a setup step, a before-script or a `with:` input may read: none is chosen from outside. */
const char *const wm_expr_setup_allowed[] = {
	"runner.os", "runner.arch", "runner.temp", "runner.tool_cache", "runner.debug",
	"github.sha", "github.repository", "github.repository_id", "github.repository_owner",
	"github.repository_owner_id", "github.run_id", "github.run_number", "github.run_attempt",
	"github.workspace", "github.event_name", "github.job", "github.server_url", "github.api_url",
	"github.action_path", "job.status", "secrets.*", "vars.*",
};
const size_t wm_expr_setup_nallowed = WM_ARRAY_SIZE(wm_expr_setup_allowed);
