/*
 * eval.c — GitHub Actions expressions evaluated over what a workflow says, the rest unknown.
 *
 * init reads the wheels a project's workflows build as GitHub would run them: `runs-on`,
 * maturin-action's `target` and `args`, `if:` and the rest are expressions over the job's matrix
 * combination, the `env` of the workflow, job and step, a composite action's or called
 * workflow's `inputs`.  What a workflow cannot know before it runs (secrets, vars, the event's
 * payload, a step's outputs) stays unknown, named, and never guessed: an expression over it is
 * unknown too, unless the language's rules decide it anyway (`unknown || 'x'` is unknown but
 * truthy; `false && unknown` is false).
 *
 * The rules are GitHub's (docs.github.com, "Evaluate expressions in workflows and actions"):
 * `==` compares strings ignoring case and values of other types as numbers; `&&` and `||` give
 * one of their operands; null, false, 0, NaN and '' are falsy; a missing property is null;
 * contains, startsWith and endsWith ignore case; format() reads {N}, {{ and }}.  The tokens are
 * model/expr.c's.  Everything is bounded: nesting by WM_EVAL_MAX_DEPTH, the text made by
 * e->budget.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "formats/json.h"
#include "formats/yaml.h"
#include "model/expr.h"
#include "workflow/eval.h"

#define MAX_ARGS 16     /* a function's arguments kept (format's are numbered up to this) */
#define MAX_PARTS 16    /* the names of a context's path passed to the resolver */

/* One evaluation: the tokens, the scope, whether the text went wrong. */
struct parser {
	struct wm_eval *e;
	const struct wm_eval_scope *scope;
	struct wm_expr_lexer x;
	enum wm_expr_tok t;
	unsigned depth;
	bool bad;               /* a token out of place: the expression is not understood */
	bool deep;              /* nested past WM_EVAL_MAX_DEPTH: not read further */
};

void wm_eval_init(struct wm_eval *e, struct wm_arena *arena, size_t budget)
{
	memset(e, 0, sizeof(*e));
	e->arena = arena;
	e->budget = budget;
}

/* ---- values ------------------------------------------------------------------------------ */

void wm_eval_unknown(struct wm_val *out, struct wm_eval *e, const char *why)
{
	memset(out, 0, sizeof(*out));
	out->kind = WM_VAL_UNKNOWN;
	out->truth = WM_MAYBE;
	out->why = why ? wm_arena_strdup(e->arena, why) : NULL;
	if (why && !out->why)
		e->oom = true;
}

void wm_eval_str(struct wm_val *out, const char *s, size_t len)
{
	memset(out, 0, sizeof(*out));
	out->kind = WM_VAL_STRING;
	out->s = s;
	out->len = len;
}

static void val_bool(struct wm_val *out, bool b)
{
	memset(out, 0, sizeof(*out));
	out->kind = WM_VAL_BOOL;
	out->b = b;
}

static void val_number(struct wm_val *out, double n)
{
	memset(out, 0, sizeof(*out));
	out->kind = WM_VAL_NUMBER;
	out->n = n;
}

static void val_null(struct wm_val *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = WM_VAL_NULL;
}

/* An unknown whose truthiness is known (`unknown || 'x'`), keeping what it depends on. */
static void val_unknown_truth(struct wm_val *out, const struct wm_val *from, enum wm_truth truth)
{
	/* a string known in part names what it is (github.ref's tag) */
	const char *why = from->kind == WM_VAL_UNKNOWN || from->prefix ? from->why : NULL;
	if (!why)
		why = from->kind == WM_VAL_STRING && from->prefix ? "a value known only in part" : "a value init cannot read";
	memset(out, 0, sizeof(*out));
	out->kind = WM_VAL_UNKNOWN;
	out->truth = truth;
	out->why = why;
}

/* Text the evaluator makes, charged to its budget; NULL (and an unknown to give) past it. */
static char *make_text(struct wm_eval *e, const char *s, size_t len)
{
	char *t;
	if (len > e->budget)
		return NULL;
	e->budget -= len;
	if (!(t = wm_arena_strndup(e->arena, s, len)))
		e->oom = true;
	return t;
}

static void val_made(struct wm_val *out, struct wm_eval *e, const struct wm_buf *b, const char *what)
{
	char *s = b->oom ? NULL : make_text(e, b->ptr ? b->ptr : "", b->len);
	if (b->oom)
		e->oom = true;
	if (!s) {
		wm_eval_unknown(out, e, what);
		return;
	}
	wm_eval_str(out, s, b->len);
}

/* YAML 1.2's core schema: a plain scalar that is a number, with its value; false for another text. */
static bool core_number(const char *s, double *out)
{
	static const char *const inf[] = { ".inf", ".Inf", ".INF" }, *const nan[] = { ".nan", ".NaN", ".NAN" };
	const char *p = s;
	char *end;
	bool sign = *p == '-' || *p == '+';
	for (size_t i = 0; i < 3; i++) {
		if (!strcmp(p + sign, inf[i])) {
			*out = *p == '-' ? -INFINITY : INFINITY;
			return true;
		}
		if (!strcmp(s, nan[i])) {
			*out = NAN;
			return true;
		}
	}
	if (!sign && p[0] == '0' && (p[1] == 'o' || p[1] == 'x') && p[2]) {
		unsigned long long v = strtoull(p + 2, &end, p[1] == 'o' ? 8 : 16);
		if (*end || !isxdigit((unsigned char)p[2]))
			return false;
		*out = (double)v;
		return true;
	}
	p += sign;
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p)
		return false;
	*out = strtod(s, &end);
	return true;
}

void wm_eval_of_node(struct wm_val *out, const struct wm_node *n)
{
	double d;
	if (!n) {
		val_null(out);
		return;
	}
	if (n->type != WM_NODE_SCALAR) {
		memset(out, 0, sizeof(*out));
		out->kind = n->type == WM_NODE_SEQ ? WM_VAL_ARRAY : WM_VAL_OBJECT;
		out->node = n;
		return;
	}
	if (n->style != WM_PLAIN || (n->tag && strcmp(n->tag, "tag:yaml.org,2002:str") == 0)) {
		wm_eval_str(out, n->text, n->len);
		return;
	}
	if (!n->len || !strcmp(n->text, "~") || !strcmp(n->text, "null") || !strcmp(n->text, "Null") ||
			!strcmp(n->text, "NULL"))
		val_null(out);
	else if (!strcmp(n->text, "true") || !strcmp(n->text, "True") || !strcmp(n->text, "TRUE"))
		val_bool(out, true);
	else if (!strcmp(n->text, "false") || !strcmp(n->text, "False") || !strcmp(n->text, "FALSE"))
		val_bool(out, false);
	else if (core_number(n->text, &d))
		val_number(out, d);
	else
		wm_eval_str(out, n->text, n->len);
}

enum wm_truth wm_eval_truthy(const struct wm_val *v)
{
	switch (v->kind) {
	case WM_VAL_UNKNOWN:
		return v->truth;
	case WM_VAL_NULL:
		return WM_FALSE;
	case WM_VAL_BOOL:
		return v->b ? WM_TRUE : WM_FALSE;
	case WM_VAL_NUMBER:
		return v->n != 0 && v->n == v->n ? WM_TRUE : WM_FALSE;
	case WM_VAL_STRING:
		return v->len ? WM_TRUE : v->prefix ? WM_MAYBE : WM_FALSE;
	case WM_VAL_ARRAY:
	case WM_VAL_OBJECT:
		return WM_TRUE;
	}
	return WM_MAYBE;
}

/* A number as GitHub writes it: 3.1, 12, 1e+21, NaN, Infinity. */
static void number_text(char *buf, size_t size, double n)
{
	if (n != n)
		snprintf(buf, size, "NaN");
	else if (isinf(n))
		snprintf(buf, size, n < 0 ? "-Infinity" : "Infinity");
	else if (n == 0)
		snprintf(buf, size, "0");
	else if (n == floor(n) && fabs(n) < 1e21)
		snprintf(buf, size, "%.0f", n);
	else
		snprintf(buf, size, "%.15g", n);
}

const char *wm_eval_string(struct wm_eval *e, const struct wm_val *v)
{
	char buf[64];
	switch (v->kind) {
	case WM_VAL_UNKNOWN:
		return NULL;
	case WM_VAL_NULL:
		return "";
	case WM_VAL_BOOL:
		return v->b ? "true" : "false";
	case WM_VAL_NUMBER:
		number_text(buf, sizeof(buf), v->n);
		return make_text(e, buf, strlen(buf));
	case WM_VAL_STRING:
		return v->prefix ? NULL : make_text(e, v->s, v->len);
	case WM_VAL_ARRAY:
		return "Array";
	case WM_VAL_OBJECT:
		return "Object";
	}
	return NULL;
}

/* A value as a string for the string functions and format(): its text and length, without copying when it can. */
static bool string_of(struct wm_eval *e, const struct wm_val *v, const char **s, size_t *len)
{
	char buf[64];
	switch (v->kind) {
	case WM_VAL_STRING:
		*s = v->s;
		*len = v->len;
		return !v->prefix;
	case WM_VAL_NUMBER:
		number_text(buf, sizeof(buf), v->n);
		*len = strlen(buf);
		return (*s = make_text(e, buf, *len)) != NULL;
	case WM_VAL_UNKNOWN:
		return false;
	default:
		*s = wm_eval_string(e, v);
		*len = *s ? strlen(*s) : 0;
		return *s != NULL;
	}
}

/* A value as a number, as `==` and `<` take two values of different types: strings parsed, others NaN. */
static double number_of(const struct wm_val *v)
{
	char buf[64], *end;
	size_t i = 0, n;
	switch (v->kind) {
	case WM_VAL_NULL:
		return 0;
	case WM_VAL_BOOL:
		return v->b;
	case WM_VAL_NUMBER:
		return v->n;
	case WM_VAL_STRING:
		while (i < v->len && isspace((unsigned char)v->s[i]))
			i++;
		n = v->len - i;
		while (n && isspace((unsigned char)v->s[i + n - 1]))
			n--;
		if (n == 0)
			return 0;
		if (n >= sizeof(buf))
			return NAN;
		memcpy(buf, v->s + i, n);
		buf[n] = '\0';
		if (!strcmp(buf, "Infinity") || !strcmp(buf, "-Infinity"))
			return buf[0] == '-' ? -INFINITY : INFINITY;
		{
			double d = strtod(buf, &end);
			return *end || strchr(buf, 'n') || strchr(buf, 'N') ? NAN : d;
		}
	default:
		return NAN;
	}
}

static bool same_ci(const char *a, const char *b, size_t n)
{
	return strncasecmp(a, b, n) == 0;
}

static enum wm_truth truth_of(bool b)
{
	return b ? WM_TRUE : WM_FALSE;
}

static enum wm_truth not(enum wm_truth t)
{
	return t == WM_MAYBE ? t : truth_of(t == WM_FALSE);
}

/* `a == b`: strings ignoring case (one known only by its start may still differ), else as numbers. */
static enum wm_truth equal(const struct wm_val *a, const struct wm_val *b)
{
	double x, y;
	if (a->kind == WM_VAL_UNKNOWN || b->kind == WM_VAL_UNKNOWN)
		return WM_MAYBE;
	if (a->kind == WM_VAL_STRING && b->kind == WM_VAL_STRING) {
		size_t n = a->len < b->len ? a->len : b->len;
		if (!same_ci(a->s, b->s, n))
			return WM_FALSE;
		if ((a->prefix && b->len >= a->len) || (b->prefix && a->len >= b->len))
			return WM_MAYBE;
		return truth_of(a->len == b->len && !a->prefix && !b->prefix);
	}
	if (a->kind == b->kind) {
		switch (a->kind) {
		case WM_VAL_NULL:
			return WM_TRUE;
		case WM_VAL_BOOL:
			return truth_of(a->b == b->b);
		case WM_VAL_ARRAY:
		case WM_VAL_OBJECT:
			return truth_of(a->node == b->node);
		default:
			break;
		}
	}
	if ((a->kind == WM_VAL_STRING && a->prefix) || (b->kind == WM_VAL_STRING && b->prefix))
		return WM_MAYBE;
	x = number_of(a);
	y = number_of(b);
	return truth_of(x == y);
}

/* `a < b` (op 0), `a <= b` (1), `a > b` (2), `a >= b` (3). */
static enum wm_truth compare(const struct wm_val *a, const struct wm_val *b, int op)
{
	int c;
	double x, y;
	if (a->kind == WM_VAL_UNKNOWN || b->kind == WM_VAL_UNKNOWN || (a->kind == WM_VAL_STRING && a->prefix) ||
			(b->kind == WM_VAL_STRING && b->prefix))
		return WM_MAYBE;
	if (a->kind == WM_VAL_STRING && b->kind == WM_VAL_STRING) {
		size_t n = a->len < b->len ? a->len : b->len;
		c = strncasecmp(a->s, b->s, n);
		if (!c)
			c = a->len < b->len ? -1 : a->len > b->len;
	} else {
		x = number_of(a);
		y = number_of(b);
		if (x != x || y != y)
			return WM_FALSE;
		c = x < y ? -1 : x > y;
	}
	switch (op) {
	case 0: return truth_of(c < 0);
	case 1: return truth_of(c <= 0);
	case 2: return truth_of(c > 0);
	default: return truth_of(c >= 0);
	}
}

/* The value of `key` in object `v`, ignoring case; null when there is none. */
void wm_eval_member(struct wm_val *out, const struct wm_val *v, const char *key, size_t len)
{
	if (v->kind == WM_VAL_OBJECT)
		for (size_t i = 0; i < v->node->n; i++) {
			const struct wm_node *k = v->node->pairs[i].key;
			if (k->type == WM_NODE_SCALAR && k->len == len && same_ci(k->text, key, len)) {
				wm_eval_of_node(out, v->node->pairs[i].value);
				return;
			}
		}
	val_null(out);
}

/* `v[index]`: an array's item by number, an object's member by string; null otherwise. */
static void index_of(struct wm_val *out, struct wm_eval *e, const struct wm_val *v, const struct wm_val *index)
{
	if (v->kind == WM_VAL_UNKNOWN) {
		*out = *v;
		return;
	}
	if (index->kind == WM_VAL_UNKNOWN) {
		*out = *index;
		return;
	}
	if (v->kind == WM_VAL_ARRAY) {
		double i = number_of(index);
		if (i == i && i >= 0 && i < (double)v->node->n && i == floor(i)) {
			wm_eval_of_node(out, v->node->items[(size_t)i]);
			return;
		}
	} else if (v->kind == WM_VAL_OBJECT) {
		const char *s;
		size_t len;
		if (string_of(e, index, &s, &len)) {
			wm_eval_member(out, v, s, len);
			return;
		}
	}
	val_null(out);
}

/* ---- fromJSON: a JSON text read into nodes -------------------------------------------------- */

static struct wm_node *node_of_json(struct wm_eval *e, const struct wm_json *j, unsigned depth)
{
	struct wm_node *n = wm_arena_alloc(e->arena, sizeof(*n));
	double d;
	char buf[64];
	if (!n || depth > WM_EVAL_MAX_DEPTH)
		return NULL;
	n->type = WM_NODE_SCALAR;
	n->style = WM_PLAIN;
	if (wm_json_is_array(j) || wm_json_is_object(j)) {
		size_t count = wm_json_size(j);
		bool object = wm_json_is_object(j);
		n->type = object ? WM_NODE_MAP : WM_NODE_SEQ;
		if (count && !(object ? (void *)(n->pairs = wm_arena_array(e->arena, count, sizeof(*n->pairs))) :
				(void *)(n->items = wm_arena_array(e->arena, count, sizeof(*n->items)))))
			return NULL;
		for (size_t i = 0; i < count; i++) {
			struct wm_json *value = NULL;
			const char *key = object ? wm_json_key_at(j, i, &value) : NULL;
			struct wm_node *child = node_of_json(e, object ? value : wm_json_at(j, i), depth + 1), *k;
			if (!child)
				return NULL;
			if (!object) {
				n->items[n->n++] = child;
				continue;
			}
			if (!(k = wm_arena_alloc(e->arena, sizeof(*k))) || !(k->text = make_text(e, key, strlen(key))))
				return NULL;
			k->type = WM_NODE_SCALAR;
			k->style = WM_QUOTED;
			k->len = strlen(key);
			n->pairs[n->n].key = k;
			n->pairs[n->n++].value = child;
		}
		return n;
	}
	if (wm_json_is_string(j)) {
		n->style = WM_QUOTED;
		n->text = make_text(e, wm_json_str(j), strlen(wm_json_str(j)));
	} else if (wm_json_is_bool(j)) {
		n->text = wm_json_is_true(j) ? "true" : "false";
	} else if (wm_json_number(j, &d)) {
		snprintf(buf, sizeof(buf), "%.17g", d);
		n->text = make_text(e, buf, strlen(buf));
	} else {
		n->text = "null";
	}
	if (!n->text)
		return NULL;
	n->len = strlen(n->text);
	return n;
}

static void from_json(struct wm_val *out, struct wm_eval *e, const struct wm_val *arg)
{
	struct wm_json *j = NULL;
	struct wm_json_error je;
	const char *s;
	size_t len;
	if (!string_of(e, arg, &s, &len)) {
		*out = *arg;
		return;
	}
	if (wm_json_parse_value(&j, s, len, &je) < 0) {
		wm_eval_unknown(out, e, "fromJSON of a text that is not JSON");
		return;
	}
	{
		const struct wm_node *n = node_of_json(e, j, 0);
		if (n)
			wm_eval_of_node(out, n);
		else
			wm_eval_unknown(out, e, "fromJSON of a text too large or deep");
	}
	wm_json_free(j);
}

/* ---- functions ---------------------------------------------------------------------------- */

static bool word_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

/* The first unknown of the arguments, or NULL. */
static const struct wm_val *first_unknown(const struct wm_val *args, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (args[i].kind == WM_VAL_UNKNOWN)
			return &args[i];
	return NULL;
}

/* startsWith, endsWith and contains on strings, ignoring case, on what is known of them. */
static void string_function(struct wm_val *out, struct wm_eval *e, const char *name, size_t n, const struct wm_val *a,
	const struct wm_val *b)
{
	const char *hs, *ns;
	size_t hl, nl;
	bool prefix = a->kind == WM_VAL_STRING && a->prefix;
	if (b->kind == WM_VAL_UNKNOWN || (b->kind == WM_VAL_STRING && b->prefix) || a->kind == WM_VAL_UNKNOWN ||
			!string_of(e, b, &ns, &nl) || (!prefix && !string_of(e, a, &hs, &hl))) {
		val_unknown_truth(out, a->kind == WM_VAL_UNKNOWN ? a : b, WM_MAYBE);
		return;
	}
	if (prefix) {
		hs = a->s;
		hl = a->len;
	}
	if (word_is(name, n, "startsWith")) {
		size_t common = hl < nl ? hl : nl;
		if (!same_ci(hs, ns, common))
			val_bool(out, false);
		else if (nl <= hl)
			val_bool(out, true);
		else if (prefix)
			val_unknown_truth(out, a, WM_MAYBE);
		else
			val_bool(out, false);
		return;
	}
	if (word_is(name, n, "endsWith")) {
		if (prefix && nl)
			val_unknown_truth(out, a, WM_MAYBE);
		else
			val_bool(out, nl <= hl && same_ci(hs + hl - nl, ns, nl));
		return;
	}
	for (size_t i = 0; i + nl <= hl; i++)
		if (same_ci(hs + i, ns, nl)) {
			val_bool(out, true);
			return;
		}
	if (prefix)
		val_unknown_truth(out, a, WM_MAYBE);
	else
		val_bool(out, false);
}

/* contains(array, item): an item equal to it; contains(string, text) as a string function. */
static void contains(struct wm_val *out, struct wm_eval *e, const char *name, size_t n, const struct wm_val *a,
	const struct wm_val *b)
{
	bool maybe = false;
	if (a->kind != WM_VAL_ARRAY) {
		string_function(out, e, name, n, a, b);
		return;
	}
	for (size_t i = 0; i < a->node->n; i++) {
		struct wm_val item;
		enum wm_truth t;
		wm_eval_of_node(&item, a->node->items[i]);
		if ((t = equal(&item, b)) == WM_TRUE) {
			val_bool(out, true);
			return;
		}
		maybe |= t == WM_MAYBE;
	}
	if (maybe)
		val_unknown_truth(out, b, WM_MAYBE);
	else
		val_bool(out, false);
}

/* format('{0} {1}', a, b): {N} the Nth argument's string, {{ and }} a brace. */
static void format(struct wm_val *out, struct wm_eval *e, const struct wm_val *args, size_t nargs)
{
	struct wm_buf b = WM_BUF_INIT;
	const struct wm_val *u = first_unknown(args, nargs);
	const char *f;
	size_t flen;
	if (u) {
		val_unknown_truth(out, u, WM_MAYBE);
		return;
	}
	if (!nargs || !string_of(e, &args[0], &f, &flen)) {
		wm_eval_unknown(out, e, "format() without a format");
		return;
	}
	for (size_t i = 0; i < flen && !b.oom; i++) {
		if ((f[i] == '{' || f[i] == '}') && i + 1 < flen && f[i + 1] == f[i]) {
			wm_buf_putc(&b, f[i++]);
		} else if (f[i] == '{') {
			size_t k = i + 1, index = 0;
			const char *s;
			size_t len;
			while (k < flen && isdigit((unsigned char)f[k]) && index < 1000)
				index = index * 10 + (size_t)(f[k++] - '0');
			if (k == i + 1 || k >= flen || f[k] != '}' || index + 1 >= nargs ||
					!string_of(e, &args[index + 1], &s, &len)) {
				wm_buf_release(&b);
				wm_eval_unknown(out, e, "format() with a placeholder it has no argument for");
				return;
			}
			if (b.len + len > e->budget) {
				wm_buf_release(&b);
				wm_eval_unknown(out, e, "format() of a text too long");
				return;
			}
			wm_buf_add(&b, s, len);
			i = k;
		} else if (f[i] == '}') {
			wm_buf_release(&b);
			wm_eval_unknown(out, e, "format() with a lone '}'");
			return;
		} else {
			wm_buf_putc(&b, f[i]);
		}
	}
	val_made(out, e, &b, "format() of a text too long");
	wm_buf_release(&b);
}

/* join(array, separator): the items' strings; a string is itself. */
static void join(struct wm_val *out, struct wm_eval *e, const struct wm_val *args, size_t nargs)
{
	struct wm_buf b = WM_BUF_INIT;
	const struct wm_val *u = first_unknown(args, nargs);
	const char *sep = ",", *s;
	size_t seplen = 1, len;
	if (u) {
		val_unknown_truth(out, u, WM_MAYBE);
		return;
	}
	if (!nargs) {
		wm_eval_unknown(out, e, "join() without an argument");
		return;
	}
	if (nargs > 1 && !string_of(e, &args[1], &sep, &seplen)) {
		wm_eval_unknown(out, e, "join() with a separator it cannot read");
		return;
	}
	if (args[0].kind != WM_VAL_ARRAY) {
		if (args[0].kind == WM_VAL_STRING)
			*out = args[0];
		else
			wm_eval_str(out, "", 0);
		return;
	}
	for (size_t i = 0; i < args[0].node->n && !b.oom; i++) {
		struct wm_val item;
		wm_eval_of_node(&item, args[0].node->items[i]);
		if (!string_of(e, &item, &s, &len) || b.len + len + seplen > e->budget) {
			wm_buf_release(&b);
			wm_eval_unknown(out, e, "join() of a text too long");
			return;
		}
		if (i)
			wm_buf_add(&b, sep, seplen);
		wm_buf_add(&b, s, len);
	}
	val_made(out, e, &b, "join() of a text too long");
	wm_buf_release(&b);
}

/* toJSON of a scalar; an array or object is not written back. */
static void to_json(struct wm_val *out, struct wm_eval *e, const struct wm_val *v)
{
	struct wm_buf b = WM_BUF_INIT;
	const char *s;
	size_t len;
	if (v->kind == WM_VAL_UNKNOWN || v->kind == WM_VAL_ARRAY || v->kind == WM_VAL_OBJECT) {
		wm_eval_unknown(out, e, v->kind == WM_VAL_UNKNOWN && v->why ? v->why : "toJSON() of an array or object");
		return;
	}
	if (v->kind != WM_VAL_STRING) {
		string_of(e, v, &s, &len);
		*out = *v;
		if (v->kind == WM_VAL_NULL)
			wm_eval_str(out, "null", 4);
		else if (s)
			wm_eval_str(out, s, len);
		return;
	}
	{
		struct wm_json *j = wm_json_string_trusted(v->s, v->len);
		if (!j || wm_json_append(&b, j, WM_JSON_COMPACT) < 0)
			e->oom = true;
		wm_json_free(j);
	}
	val_made(out, e, &b, "toJSON() of a text too long");
	wm_buf_release(&b);
}

/* case(pred, value, ..., default): the value of the first predicate that holds. */
static void case_function(struct wm_val *out, struct wm_eval *e, const struct wm_val *args, size_t nargs)
{
	if (nargs < 3 || nargs % 2 == 0) {
		wm_eval_unknown(out, e, "case() with a wrong number of arguments");
		return;
	}
	for (size_t i = 0; i + 1 < nargs; i += 2) {
		enum wm_truth t = wm_eval_truthy(&args[i]);
		if (t == WM_TRUE) {
			*out = args[i + 1];
			return;
		}
		if (t == WM_MAYBE) {
			val_unknown_truth(out, &args[i], WM_MAYBE);
			return;
		}
	}
	*out = args[nargs - 1];
}

static void call(struct wm_val *out, struct parser *p, const char *name, size_t n, const struct wm_val *args,
	size_t nargs)
{
	struct wm_eval *e = p->e;
	if (nargs > MAX_ARGS) {
		wm_eval_unknown(out, e, "a call with too many arguments");
	} else if (word_is(name, n, "success") || word_is(name, n, "always")) {
		val_bool(out, true);
	} else if (word_is(name, n, "failure") || word_is(name, n, "cancelled")) {
		val_bool(out, false);
	} else if ((word_is(name, n, "startsWith") || word_is(name, n, "endsWith")) && nargs == 2) {
		string_function(out, e, name, n, &args[0], &args[1]);
	} else if (word_is(name, n, "contains") && nargs == 2) {
		contains(out, e, name, n, &args[0], &args[1]);
	} else if (word_is(name, n, "format")) {
		format(out, e, args, nargs);
	} else if (word_is(name, n, "join") && nargs <= 2) {
		join(out, e, args, nargs);
	} else if (word_is(name, n, "fromJSON") && nargs == 1) {
		from_json(out, e, &args[0]);
	} else if (word_is(name, n, "toJSON") && nargs == 1) {
		to_json(out, e, &args[0]);
	} else if (word_is(name, n, "case")) {
		case_function(out, e, args, nargs);
	} else if (word_is(name, n, "hashFiles")) {
		wm_eval_unknown(out, e, "hashFiles()");
	} else {
		p->bad = true;
		wm_eval_unknown(out, e, NULL);
	}
}

/* ---- the grammar ------------------------------------------------------------------------ */

static void advance(struct parser *p)
{
	p->t = wm_expr_next(&p->x);
	if (p->t == WM_TOK_BAD)
		p->bad = true;
}

/* The current token is the operator `op` (`!`, `<`, `>`, or two characters written together). */
static bool at_op(const struct parser *p, const char *op)
{
	if (p->t != WM_TOK_OP || p->x.start[0] != op[0])
		return false;
	return op[1] ? p->x.start[1] == op[1] : p->x.start[1] != '=';
}

static void skip_op(struct parser *p, const char *op)
{
	for (size_t i = strlen(op); i > 0; i--)
		advance(p);
}

static bool at_char(const struct parser *p, char c)
{
	return p->t == WM_TOK_OP && p->x.start[0] == c;
}

static void expect(struct parser *p, char c)
{
	if (at_char(p, c))
		advance(p);
	else
		p->bad = true;
}

static void or_expr(struct wm_val *out, struct parser *p);

/* A string literal without its quotes, '' read as one quote. */
static void string_literal(struct wm_val *out, struct parser *p, const char *s, size_t n)
{
	const char *body = s + 1;
	size_t len = n - 2;
	if (!memchr(body, '\'', len)) {
		wm_eval_str(out, body, len);
		return;
	}
	{
		struct wm_buf b = WM_BUF_INIT;
		for (size_t i = 0; i < len; i++) {
			wm_buf_putc(&b, body[i]);
			if (body[i] == '\'')
				i++;
		}
		val_made(out, p->e, &b, "a string too long");
		wm_buf_release(&b);
	}
}

static void number_literal(struct wm_val *out, struct parser *p, const char *s, size_t n)
{
	char buf[64], *end;
	double d;
	if (n >= sizeof(buf)) {
		p->bad = true;
		wm_eval_unknown(out, p->e, NULL);
		return;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X' || buf[1] == 'o' || buf[1] == 'O'))
		d = (double)strtoull(buf + 2, &end, buf[1] == 'o' || buf[1] == 'O' ? 8 : 16);
	else
		d = strtod(buf, &end);
	if (*end) {
		p->bad = true;
		wm_eval_unknown(out, p->e, NULL);
		return;
	}
	val_number(out, d);
}

/* A function's arguments up to its `)`: the first MAX_ARGS kept, *n counts them all. */
static void arguments(struct parser *p, struct wm_val *args, size_t *n)
{
	*n = 0;
	advance(p);  /* ( */
	if (at_char(p, ')')) {
		advance(p);
		return;
	}
	while (!p->bad) {
		struct wm_val v;
		or_expr(&v, p);
		if (*n < MAX_ARGS)
			args[*n] = v;
		(*n)++;
		if (at_char(p, ','))
			advance(p);
		else
			break;
	}
	expect(p, ')');
}

/* A context read with its static parts (`.name`, `['name']`), then what the resolver left. */
static void context(struct wm_val *out, struct parser *p, const char *name, size_t n)
{
	const char *parts[MAX_PARTS];
	size_t lens[MAX_PARTS], nparts = 1, used = 0;
	parts[0] = name;
	lens[0] = n;
	for (;;) {
		struct wm_expr_lexer look = p->x;
		enum wm_expr_tok t = p->t, u;
		if (nparts == MAX_PARTS)
			break;
		if (t == WM_TOK_DOT) {
			u = wm_expr_next(&look);
			if (u != WM_TOK_IDENT)
				break;
			parts[nparts] = look.start;
			lens[nparts++] = look.len;
			p->x = look;
			advance(p);
		} else if (t == WM_TOK_LBRACKET) {
			struct wm_expr_lexer after;
			u = wm_expr_next(&look);
			after = look;
			if (u != WM_TOK_STRING || memchr(look.start + 1, '\'', look.len - 2) || wm_expr_next(&after) != WM_TOK_OP ||
					after.start[0] != ']')
				break;
			parts[nparts] = look.start + 1;
			lens[nparts++] = look.len - 2;
			p->x = after;
			advance(p);
		} else {
			break;
		}
	}
	if (p->depth + p->e->depth > WM_EVAL_MAX_DEPTH) {
		p->bad = true;
		p->deep = true;
		wm_eval_unknown(out, p->e, NULL);
		return;
	}
	p->e->depth++;
	p->scope->resolve(p->scope->ctx, p->e, parts, lens, nparts, &used, out);
	p->e->depth--;
	/* the parts the resolver left, into what it gave */
	for (size_t i = used; i < nparts && out->kind != WM_VAL_UNKNOWN; i++) {
		struct wm_val v = *out;
		wm_eval_member(out, &v, parts[i], lens[i]);
	}
}

/* `.name`, `.*` and `[index]` after a value. */
static void postfix(struct wm_val *out, struct parser *p)
{
	while (!p->bad && (p->t == WM_TOK_DOT || p->t == WM_TOK_LBRACKET)) {
		struct wm_val v = *out;
		if (p->t == WM_TOK_DOT) {
			advance(p);
			if (p->t == WM_TOK_IDENT) {
				if (v.kind == WM_VAL_UNKNOWN)
					*out = v;
				else
					wm_eval_member(out, &v, p->x.start, p->x.len);
			} else if (p->t == WM_TOK_STAR) {
				wm_eval_unknown(out, p->e, v.kind == WM_VAL_UNKNOWN && v.why ? v.why : "a .* filter");
			} else {
				p->bad = true;
			}
			advance(p);
		} else {
			struct wm_val index;
			advance(p);
			or_expr(&index, p);
			expect(p, ']');
			index_of(out, p->e, &v, &index);
		}
	}
}

static void primary(struct wm_val *out, struct parser *p)
{
	const char *s = p->x.start;
	size_t n = p->x.len;

	switch (p->t) {
	case WM_TOK_LPAREN:
		advance(p);
		or_expr(out, p);
		expect(p, ')');
		break;
	case WM_TOK_STRING:
		advance(p);
		string_literal(out, p, s, n);
		break;
	case WM_TOK_NUMBER:
		advance(p);
		number_literal(out, p, s, n);
		break;
	case WM_TOK_IDENT:
		advance(p);
		if (p->t == WM_TOK_LPAREN) {
			struct wm_val args[MAX_ARGS];
			size_t nargs;
			if (!wm_expr_function(s, n)) {
				p->bad = true;
				wm_eval_unknown(out, p->e, NULL);
				return;
			}
			arguments(p, args, &nargs);
			if (p->bad) {
				wm_eval_unknown(out, p->e, NULL);
				return;
			}
			call(out, p, s, n, args, nargs);
		} else if (word_is(s, n, "true") || word_is(s, n, "false")) {
			val_bool(out, word_is(s, n, "true"));
		} else if (word_is(s, n, "null")) {
			val_null(out);
		} else if (word_is(s, n, "NaN") || word_is(s, n, "Infinity")) {
			val_number(out, word_is(s, n, "NaN") ? NAN : INFINITY);
		} else {
			context(out, p, s, n);
			return;  /* its postfix parts read there */
		}
		break;
	default:
		p->bad = true;
		wm_eval_unknown(out, p->e, NULL);
		return;
	}
	postfix(out, p);
}

static void unary(struct wm_val *out, struct parser *p)
{
	struct wm_val v;
	if (!at_op(p, "!")) {
		primary(out, p);
		if (p->t == WM_TOK_DOT || p->t == WM_TOK_LBRACKET)
			postfix(out, p);
		return;
	}
	if (++p->depth > WM_EVAL_MAX_DEPTH) {
		p->bad = true;
		p->deep = true;
		wm_eval_unknown(out, p->e, NULL);
		return;
	}
	advance(p);
	unary(&v, p);
	p->depth--;
	switch (not(wm_eval_truthy(&v))) {
	case WM_TRUE:
		val_bool(out, true);
		break;
	case WM_FALSE:
		val_bool(out, false);
		break;
	default:
		val_unknown_truth(out, &v, WM_MAYBE);
	}
}

static void relation(struct wm_val *out, struct parser *p)
{
	/* at_op takes `<` only where no `=` follows, so that `<=` is never read as `<` */
	static const char *const ops[] = { "<", "<=", ">", ">=" };
	unary(out, p);
	for (;;) {
		size_t k = 0;
		struct wm_val b;
		enum wm_truth t;
		while (k < WM_ARRAY_SIZE(ops) && !at_op(p, ops[k]))
			k++;
		if (k == WM_ARRAY_SIZE(ops) || p->bad)
			return;
		skip_op(p, ops[k]);
		unary(&b, p);
		t = compare(out, &b, (int)k);
		if (t == WM_MAYBE)
			val_unknown_truth(out, out->kind == WM_VAL_UNKNOWN ? out : &b, WM_MAYBE);
		else
			val_bool(out, t == WM_TRUE);
	}
}

static void equality(struct wm_val *out, struct parser *p)
{
	relation(out, p);
	while (!p->bad && (at_op(p, "==") || at_op(p, "!="))) {
		bool negate = at_op(p, "!=");
		struct wm_val b;
		enum wm_truth t;
		skip_op(p, "==");
		relation(&b, p);
		t = equal(out, &b);
		if (negate)
			t = not(t);
		if (t == WM_MAYBE)
			val_unknown_truth(out, out->kind == WM_VAL_UNKNOWN || (out->kind == WM_VAL_STRING && out->prefix) ?
				out : &b, WM_MAYBE);
		else
			val_bool(out, t == WM_TRUE);
	}
}

/* `a && b` is a when a is falsy, else b; `a || b` is a when a is truthy, else b. */
static void logical(struct wm_val *out, struct parser *p, bool and)
{
	const char *op = and ? "&&" : "||";
	if (and)
		equality(out, p);
	else
		logical(out, p, true);
	while (!p->bad && at_op(p, op)) {
		struct wm_val b;
		enum wm_truth ta = wm_eval_truthy(out), tb;
		skip_op(p, op);
		if (and)
			equality(&b, p);
		else
			logical(&b, p, true);
		tb = wm_eval_truthy(&b);
		if (ta == (and ? WM_FALSE : WM_TRUE))
			continue;
		if (ta != WM_MAYBE)
			*out = b;
		else if (tb == (and ? WM_FALSE : WM_TRUE))
			val_unknown_truth(out, out, tb);
		else
			val_unknown_truth(out, out, WM_MAYBE);
	}
}

static void or_expr(struct wm_val *out, struct parser *p)
{
	if (++p->depth > WM_EVAL_MAX_DEPTH) {
		p->bad = true;
		p->deep = true;
		wm_eval_unknown(out, p->e, NULL);
		return;
	}
	logical(out, p, false);
	p->depth--;
}

/* One expression from `text` to its end or to its `}}`; *end is just past what was read. */
static void evaluate(struct wm_val *out, struct wm_eval *e, const struct wm_eval_scope *s, const char *text,
	bool braces, const char **end)
{
	struct parser p = { .e = e, .scope = s, .x = { text, NULL, 0 } };
	advance(&p);
	or_expr(out, &p);
	if (braces ? p.t != WM_TOK_CLOSE : p.t != WM_TOK_END)
		p.bad = true;
	*end = p.x.p;
	if (p.deep)
		wm_eval_unknown(out, e, "an expression nested deeper than init reads (32 levels)");
	else if (p.bad || e->oom)
		wm_eval_unknown(out, e, "an expression init cannot read");
}

void wm_eval_expr(struct wm_val *out, struct wm_eval *e, const struct wm_eval_scope *s, const char *expr)
{
	const char *end;
	evaluate(out, e, s, expr, false, &end);
}

/* The first `${{` of the text, or NULL. */
static const char *open_at(const char *s)
{
	return strstr(s, "${{");
}

static bool blank(const char *s, const char *end)
{
	for (; s < end; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/*
 * A text with `${{ }}`: `whole` when it is one expression alone (its value kept as it is); else
 * the string of its parts, unknown when one of them is.
 */
static void text_value(struct wm_val *out, struct wm_eval *e, const struct wm_eval_scope *s, const char *text,
	bool whole)
{
	struct wm_buf b = WM_BUF_INIT;
	const char *p = text, *open;
	while ((open = open_at(p)) != NULL) {
		struct wm_val v;
		const char *end, *str;
		size_t len;
		evaluate(&v, e, s, open + 3, true, &end);
		if (whole && p == text && blank(text, open) && blank(end, end + strlen(end))) {
			wm_buf_release(&b);
			*out = v;
			return;
		}
		if (!string_of(e, &v, &str, &len)) {
			wm_buf_release(&b);
			val_unknown_truth(out, &v, WM_MAYBE);
			return;
		}
		wm_buf_add(&b, p, (size_t)(open - p));
		wm_buf_add(&b, str, len);
		p = end;
		if (b.len > e->budget)
			break;
	}
	wm_buf_puts(&b, p);
	val_made(out, e, &b, "a text too long");
	wm_buf_release(&b);
}

void wm_eval_node(struct wm_val *out, struct wm_eval *e, const struct wm_eval_scope *s, const struct wm_node *n)
{
	if (!n || n->type != WM_NODE_SCALAR || !open_at(n->text)) {
		wm_eval_of_node(out, n);
		return;
	}
	text_value(out, e, s, n->text, true);
}

void wm_eval_text(struct wm_val *out, struct wm_eval *e, const struct wm_eval_scope *s, const char *text)
{
	if (!open_at(text)) {
		wm_eval_str(out, text, strlen(text));
		return;
	}
	text_value(out, e, s, text, false);
}

enum wm_truth wm_eval_if(struct wm_eval *e, const struct wm_eval_scope *s, const char *cond)
{
	struct wm_val v;
	const char *p = cond, *end;
	if (!cond)
		return WM_TRUE;
	while (isspace((unsigned char)*p))
		p++;
	if (strncmp(p, "${{", 3) == 0) {
		evaluate(&v, e, s, p + 3, true, &end);
		/* text around an expression makes a string, which GitHub takes as true whatever it says */
		if (!blank(end, end + strlen(end)))
			return WM_MAYBE;
	} else {
		/* GitHub reads a bare `if:` as one expression; one with `${{` inside is not understood */
		if (open_at(p))
			return WM_MAYBE;
		evaluate(&v, e, s, p, false, &end);
	}
	return wm_eval_truthy(&v);
}
