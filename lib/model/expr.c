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
 */
#include <string.h>
#include <strings.h>
#include "model/expr.h"

enum tok { T_END, T_CLOSE, T_IDENT, T_STRING, T_NUMBER, T_DOT, T_STAR, T_LBRACKET, T_OP, T_LPAREN, T_BAD };

struct lexer {
	const char *p;
	const char *start;  /* the current token */
	size_t len;
};

static bool ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9') || c == '-';
}

static enum tok next(struct lexer *x)
{
	const char *p = x->p;
	enum tok t;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	x->start = p;
	if (*p == '\0') {
		t = T_END;
	} else if (p[0] == '}' && p[1] == '}') {
		p += 2;
		t = T_CLOSE;
	} else if (ident_start(*p)) {
		while (ident_char(*p))
			p++;
		t = T_IDENT;
	} else if (*p >= '0' && *p <= '9') {
		while (ident_char(*p) || *p == '.' || ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
			p++;
		t = T_NUMBER;
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
			return T_BAD;
		}
		p++;
		t = T_STRING;
	} else if (*p == '.') {
		p++;
		t = T_DOT;
	} else if (*p == '*') {
		p++;
		t = T_STAR;
	} else if (*p == '[') {
		p++;
		t = T_LBRACKET;
	} else if (*p == '(') {
		p++;
		t = T_LPAREN;
	} else if (strchr("])!<>=&|,", *p)) {
		p++;
		t = T_OP;
	} else {
		p++;
		t = T_BAD;
	}
	x->p = p;
	x->len = (size_t)(p - x->start);
	return t;
}

static bool word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

static bool is_function(const char *s, size_t n)
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
	struct lexer x = { open + 3, NULL, 0 };
	enum tok prev = T_OP, t;
	for (;;) {
		t = next(&x);
		if (t == T_CLOSE) {
			*endp = x.p;
			return true;
		}
		if (t == T_END || t == T_BAD) {
			f->at = t == T_END ? open : x.start;
			f->len = t == T_END ? strlen(open) : x.len;
			f->why = t == T_END ? "has no closing '}}' after" : "has text the expression language does not have:";
			return false;
		}
		if (t == T_IDENT && prev != T_DOT) {
			const char *name = x.start;
			size_t nlen = x.len;
			struct lexer look = x;
			enum tok after = next(&look);
			if (after == T_LPAREN) {
				if (!is_function(name, nlen)) {
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
					struct lexer dot = x;
					enum tok d = next(&dot), part;
					const char *pstart;
					size_t pn;
					if (d != T_DOT)
						break;
					part = next(&dot);
					if (part != T_IDENT && part != T_STAR)
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
					struct lexer look2 = x;
					if (next(&look2) == T_LBRACKET) {
						f->why = "indexes the context";
						return false;
					}
				}
				if (!fits || !path_allowed(path, plen, allowed, nallowed)) {
					f->why = "reads";
					return false;
				}
				prev = T_IDENT;
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
