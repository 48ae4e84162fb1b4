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
#include <math.h>
#include <stdlib.h>
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

/* ---- conditions: whether an `if:` holds on an event ----------------------------------------- */

/*
 * `check` asks whether a workflow's publish step runs on a tag push or a release: the step's and
 * its job's `if:` are evaluated with what those events set (github.event_name, github.ref) known
 * and every other context unknown, in three values.  The language's rules are GitHub's: `&&` and
 * `||` give one of their operands, `==` compares strings case-insensitively and other types as
 * numbers, the string functions compare case-insensitively.
 */

enum vtype { V_UNKNOWN, V_NULL, V_BOOL, V_NUMBER, V_STRING };

/* A value, or what is known of it: a string's start, or only whether it is truthy. */
struct value {
	enum vtype type;
	bool b;
	double n;
	const char *s;              /* V_STRING: not NUL-terminated */
	size_t len;
	bool prefix;                /* V_STRING: only its start is known */
	enum wm_expr_truth truth;   /* V_UNKNOWN: what is known of its truthiness */
};

#define EVAL_MAX_DEPTH 32  /* nested parentheses, calls and `!`: deeper is not understood */

struct eval {
	struct lexer x;
	enum tok t;                 /* the current token: x.start, x.len */
	const struct wm_expr_fact *facts;
	size_t nfacts;
	unsigned depth;
	bool bad;                   /* a token out of place: the condition is not understood */
};

static struct value unknown(enum wm_expr_truth truth)
{
	return (struct value){ .type = V_UNKNOWN, .truth = truth };
}

static struct value boolean(bool b)
{
	return (struct value){ .type = V_BOOL, .b = b };
}

static enum wm_expr_truth truth_of(bool b)
{
	return b ? WM_EXPR_TRUE : WM_EXPR_FALSE;
}

static enum wm_expr_truth truthy(const struct value *v)
{
	switch (v->type) {
	case V_UNKNOWN:
		return v->truth;
	case V_NULL:
		return WM_EXPR_FALSE;
	case V_BOOL:
		return truth_of(v->b);
	case V_NUMBER:
		return truth_of(v->n != 0 && v->n == v->n);
	case V_STRING:
		return v->len ? WM_EXPR_TRUE : v->prefix ? WM_EXPR_UNKNOWN : WM_EXPR_FALSE;
	}
	return WM_EXPR_UNKNOWN;
}

static void advance(struct eval *e)
{
	e->t = next(&e->x);
	if (e->t == T_BAD)
		e->bad = true;
}

/* The current token is the operator `op` (`!`, `<`, `>`, or two characters written together). */
static bool at_op(const struct eval *e, const char *op)
{
	if (e->t != T_OP || e->x.start[0] != op[0])
		return false;
	return op[1] ? e->x.start[1] == op[1] : e->x.start[1] != '=';
}

/* Consumes the operator at_op just matched. */
static void skip_op(struct eval *e, const char *op)
{
	for (size_t i = strlen(op); i > 0; i--)
		advance(e);
}

static void expect(struct eval *e, char c)
{
	if (e->t == T_OP && e->x.start[0] == c)
		advance(e);
	else
		e->bad = true;
}

static bool same_ci(const char *a, const char *b, size_t n)
{
	return strncasecmp(a, b, n) == 0;
}

/* A value as a string, as the string functions take it; false when that is not known. */
static bool as_string(const struct value *v, struct value *out)
{
	*out = *v;
	switch (v->type) {
	case V_STRING:
		return true;
	case V_NULL:
		*out = (struct value){ .type = V_STRING, .s = "", .len = 0 };
		return true;
	case V_BOOL:
		*out = (struct value){ .type = V_STRING, .s = v->b ? "true" : "false", .len = v->b ? 4 : 5 };
		return true;
	default:
		return false;
	}
}

/* A value as a number, as `==` takes two values of different types; false when that is not known. */
static bool as_number(const struct value *v, double *out)
{
	char buf[64], *end;
	size_t i = 0, n;
	switch (v->type) {
	case V_NULL:
		*out = 0;
		return true;
	case V_BOOL:
		*out = v->b;
		return true;
	case V_NUMBER:
		*out = v->n;
		return true;
	case V_STRING:
		if (v->prefix)
			return false;
		while (i < v->len && (v->s[i] == ' ' || v->s[i] == '\t' || v->s[i] == '\n' || v->s[i] == '\r'))
			i++;
		n = v->len - i;
		while (n && strchr(" \t\n\r", v->s[i + n - 1]))
			n--;
		if (n == 0) {
			*out = 0;
			return true;
		}
		if (n >= sizeof(buf)) {
			*out = NAN;
			return true;
		}
		memcpy(buf, v->s + i, n);
		buf[n] = '\0';
		*out = strtod(buf, &end);
		if (*end != '\0')
			*out = NAN;
		return true;
	default:
		return false;
	}
}

static enum wm_expr_truth equal(const struct value *a, const struct value *b)
{
	double x, y;
	if (a->type == V_UNKNOWN || b->type == V_UNKNOWN)
		return WM_EXPR_UNKNOWN;
	if (a->type == V_STRING && b->type == V_STRING) {
		size_t n = a->len < b->len ? a->len : b->len;
		if (!same_ci(a->s, b->s, n))
			return WM_EXPR_FALSE;
		/* one only starts so: equal only if it goes on as the other does */
		if ((a->prefix && b->len >= a->len) || (b->prefix && a->len >= b->len))
			return WM_EXPR_UNKNOWN;
		return truth_of(a->len == b->len && !a->prefix && !b->prefix);
	}
	if (a->type == b->type && a->type == V_NULL)
		return WM_EXPR_TRUE;
	if (a->type == b->type && a->type == V_BOOL)
		return truth_of(a->b == b->b);
	if (!as_number(a, &x) || !as_number(b, &y))
		return WM_EXPR_UNKNOWN;
	return truth_of(x == y);
}

static enum wm_expr_truth not(enum wm_expr_truth t)
{
	return t == WM_EXPR_UNKNOWN ? t : truth_of(t == WM_EXPR_FALSE);
}

/* startsWith, endsWith and contains, on what is known of their arguments. */
static struct value string_function(const char *name, size_t n, const struct value *args, size_t nargs)
{
	struct value a, b;
	if (nargs != 2 || !as_string(&args[0], &a) || !as_string(&args[1], &b) || b.prefix)
		return unknown(WM_EXPR_UNKNOWN);
	if (word_is(name, n, "startsWith")) {
		size_t common = a.len < b.len ? a.len : b.len;
		if (!same_ci(a.s, b.s, common))
			return boolean(false);
		if (b.len <= a.len)
			return boolean(true);
		return a.prefix ? unknown(WM_EXPR_UNKNOWN) : boolean(false);
	}
	if (word_is(name, n, "endsWith")) {
		if (a.prefix)
			return b.len == 0 ? boolean(true) : unknown(WM_EXPR_UNKNOWN);
		return boolean(b.len <= a.len && same_ci(a.s + a.len - b.len, b.s, b.len));
	}
	for (size_t i = 0; i + b.len <= a.len; i++)
		if (same_ci(a.s + i, b.s, b.len))
			return boolean(true);
	return a.prefix ? unknown(WM_EXPR_UNKNOWN) : boolean(false);
}

static struct value or_expr(struct eval *e);

/* A function's arguments, up to its `)`; the first four are kept. */
static size_t arguments(struct eval *e, struct value *args, size_t max)
{
	size_t n = 0;
	advance(e);  /* ( */
	if (e->t == T_OP && e->x.start[0] == ')') {
		advance(e);
		return 0;
	}
	while (!e->bad) {
		struct value v = or_expr(e);
		if (n < max)
			args[n] = v;
		n++;
		if (e->t == T_OP && e->x.start[0] == ',')
			advance(e);
		else
			break;
	}
	expect(e, ')');
	return n;
}

static struct value call(struct eval *e, const char *name, size_t n)
{
	struct value args[4];
	size_t nargs;
	if (!is_function(name, n)) {
		e->bad = true;
		return unknown(WM_EXPR_UNKNOWN);
	}
	nargs = arguments(e, args, WM_ARRAY_SIZE(args));
	if (word_is(name, n, "success") || word_is(name, n, "always"))
		return boolean(nargs == 0);
	if (word_is(name, n, "failure") || word_is(name, n, "cancelled"))
		return nargs == 0 ? boolean(false) : unknown(WM_EXPR_UNKNOWN);
	if (nargs <= WM_ARRAY_SIZE(args) && (word_is(name, n, "startsWith") || word_is(name, n, "endsWith") ||
			word_is(name, n, "contains")))
		return string_function(name, n, args, nargs);
	return unknown(WM_EXPR_UNKNOWN);
}

/* Appends `.part` (lower case) to a context's path; false when it does not fit. */
static bool path_add(char *path, size_t *len, size_t max, const char *part, size_t n)
{
	if (*len + 1 + n >= max)
		return false;
	path[(*len)++] = '.';
	for (size_t i = 0; i < n; i++)
		path[(*len)++] = (char)(part[i] >= 'A' && part[i] <= 'Z' ? part[i] - 'A' + 'a' : part[i]);
	path[*len] = '\0';
	return true;
}

/* A context with its `.name`, `.*` and `['name']` parts: its fact's value, or unknown. */
static struct value context(struct eval *e, const char *name, size_t n)
{
	char path[128];
	size_t len = 0;
	bool known = n < sizeof(path);
	for (size_t i = 0; known && i < n; i++)
		path[len++] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
	path[len] = '\0';
	for (;;) {
		if (e->t == T_DOT) {
			advance(e);
			if (e->t == T_IDENT)
				known = known && path_add(path, &len, sizeof(path), e->x.start, e->x.len);
			else if (e->t == T_STAR)
				known = false;
			else
				e->bad = true;
			advance(e);
		} else if (e->t == T_LBRACKET) {
			struct value key;
			advance(e);
			key = or_expr(e);
			expect(e, ']');
			known = known && key.type == V_STRING && !key.prefix && !memchr(key.s, '\'', key.len) &&
				path_add(path, &len, sizeof(path), key.s, key.len);
		} else {
			break;
		}
		if (e->bad)
			return unknown(WM_EXPR_UNKNOWN);
	}
	for (size_t i = 0; known && i < e->nfacts; i++)
		if (strcmp(e->facts[i].path, path) == 0)
			return (struct value){ .type = V_STRING, .s = e->facts[i].value, .len = strlen(e->facts[i].value),
				.prefix = e->facts[i].prefix };
	return unknown(WM_EXPR_UNKNOWN);
}

static struct value primary(struct eval *e)
{
	struct value v = unknown(WM_EXPR_UNKNOWN);
	const char *s = e->x.start;
	size_t n = e->x.len;

	switch (e->t) {
	case T_LPAREN:
		advance(e);
		v = or_expr(e);
		expect(e, ')');
		return v;
	case T_STRING:
		advance(e);
		/* an escaped quote inside: not compared, but not empty either */
		if (memchr(s + 1, '\'', n - 2))
			return unknown(WM_EXPR_TRUE);
		return (struct value){ .type = V_STRING, .s = s + 1, .len = n - 2 };
	case T_NUMBER: {
		char buf[64], *end;
		advance(e);
		if (n >= sizeof(buf))
			return unknown(WM_EXPR_UNKNOWN);
		memcpy(buf, s, n);
		buf[n] = '\0';
		v = (struct value){ .type = V_NUMBER, .n = strtod(buf, &end) };
		return *end ? unknown(WM_EXPR_UNKNOWN) : v;
	}
	case T_IDENT:
		advance(e);
		if (e->t == T_LPAREN) {
			v = call(e, s, n);
			/* a property of what a function returns (fromJSON(...).a) is not known */
			while (!e->bad && (e->t == T_DOT || e->t == T_LBRACKET)) {
				v = unknown(WM_EXPR_UNKNOWN);
				if (e->t == T_DOT) {
					advance(e);
					advance(e);
				} else {
					advance(e);
					or_expr(e);
					expect(e, ']');
				}
			}
			return v;
		}
		if (word_is(s, n, "true") || word_is(s, n, "false"))
			return boolean(word_is(s, n, "true"));
		if (word_is(s, n, "null"))
			return (struct value){ .type = V_NULL };
		if (word_is(s, n, "NaN") || word_is(s, n, "Infinity"))
			return (struct value){ .type = V_NUMBER, .n = word_is(s, n, "NaN") ? NAN : INFINITY };
		return context(e, s, n);
	default:
		e->bad = true;
		return v;
	}
}

static struct value unary(struct eval *e)
{
	struct value v;
	if (!at_op(e, "!"))
		return primary(e);
	if (++e->depth > EVAL_MAX_DEPTH) {
		e->bad = true;
		return unknown(WM_EXPR_UNKNOWN);
	}
	advance(e);
	v = unary(e);
	e->depth--;
	switch (not(truthy(&v))) {
	case WM_EXPR_TRUE:
		return boolean(true);
	case WM_EXPR_FALSE:
		return boolean(false);
	default:
		return unknown(WM_EXPR_UNKNOWN);
	}
}

static struct value relation(struct eval *e)
{
	struct value a = unary(e);
	static const char *const ops[] = { "<=", ">=", "<", ">" };
	for (;;) {
		size_t k = 0;
		struct value b;
		while (k < WM_ARRAY_SIZE(ops) && !at_op(e, ops[k]))
			k++;
		if (k == WM_ARRAY_SIZE(ops) || e->bad)
			return a;
		skip_op(e, ops[k]);
		b = unary(e);
		if (a.type == V_NUMBER && b.type == V_NUMBER)
			a = boolean(k == 0 ? a.n <= b.n : k == 1 ? a.n >= b.n : k == 2 ? a.n < b.n : a.n > b.n);
		else
			a = unknown(WM_EXPR_UNKNOWN);
	}
}

static struct value equality(struct eval *e)
{
	struct value a = relation(e);
	while (!e->bad && (at_op(e, "==") || at_op(e, "!="))) {
		bool negate = at_op(e, "!=");
		struct value b;
		enum wm_expr_truth t;
		skip_op(e, "==");
		b = relation(e);
		t = equal(&a, &b);
		if (negate)
			t = not(t);
		a = t == WM_EXPR_UNKNOWN ? unknown(t) : boolean(t == WM_EXPR_TRUE);
	}
	return a;
}

/* `a && b` is a when a is falsy, else b; `a || b` is a when a is truthy, else b. */
static struct value logical(struct eval *e, bool and)
{
	struct value a = and ? equality(e) : logical(e, true);
	const char *op = and ? "&&" : "||";
	while (!e->bad && at_op(e, op)) {
		struct value b;
		enum wm_expr_truth ta = truthy(&a), tb;
		skip_op(e, op);
		b = and ? equality(e) : logical(e, true);
		tb = truthy(&b);
		if (ta == (and ? WM_EXPR_FALSE : WM_EXPR_TRUE))
			continue;
		if (ta != WM_EXPR_UNKNOWN)
			a = b;
		else if (tb == (and ? WM_EXPR_FALSE : WM_EXPR_TRUE))
			a = unknown(tb);
		else
			a = unknown(WM_EXPR_UNKNOWN);
	}
	return a;
}

static struct value or_expr(struct eval *e)
{
	struct value v;
	if (++e->depth > EVAL_MAX_DEPTH) {
		e->bad = true;
		return unknown(WM_EXPR_UNKNOWN);
	}
	v = logical(e, false);
	e->depth--;
	return v;
}

enum wm_expr_truth wm_expr_holds(const char *cond, const struct wm_expr_fact *facts, size_t nfacts)
{
	struct eval e = { .facts = facts, .nfacts = nfacts };
	bool braces;
	struct value v;
	const char *p = cond;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	braces = strncmp(p, "${{", 3) == 0;
	e.x.p = braces ? p + 3 : p;
	/* text around an expression makes a string, which GitHub takes as true whatever it says */
	if (strstr(e.x.p, "${{"))
		return WM_EXPR_UNKNOWN;
	advance(&e);
	v = or_expr(&e);
	if (braces) {
		if (e.t != T_CLOSE)
			return WM_EXPR_UNKNOWN;
		for (p = e.x.p; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++)
			;
		if (*p)
			return WM_EXPR_UNKNOWN;
	} else if (e.t != T_END) {
		return WM_EXPR_UNKNOWN;
	}
	return e.bad ? WM_EXPR_UNKNOWN : truthy(&v);
}
