/*
 * combos.c — a job's strategy.matrix expanded into its combinations as GitHub expands it.
 *
 * GitHub's rules (docs.github.com, "Running variations of jobs in a workflow"): the product of
 * the lists, the first key varying slowest; every `exclude` entry removes the combinations it
 * matches, before `include`; an `include` entry is added to each original combination whose
 * original values it would not change, setting its other keys (over what an earlier entry
 * added), and is a combination of its own when it fits none, and no later entry extends that
 * one.  A matrix has at most 256 jobs.  The bounds here (WM_COMBOS_MAX_*) keep a hostile
 * workflow's cost small: a matrix of 2^20 combinations is named, not expanded.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "workflow/combos.h"

#define MAX_KEYS 64   /* keys of one combination */

struct expansion {
	struct wm_arena *a;
	struct wm_eval *e;
	const struct wm_eval_scope *s;
	struct wm_combos *out;
	const char *axes[MAX_KEYS];       /* the original keys */
	size_t naxes;
	size_t nkeys;                     /* room for keys in each combination */
	bool oom;
};

const struct wm_node *wm_combos_get(const struct wm_combo *c, const char *key, size_t len)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (strlen(c->keys[i]) == len && strncasecmp(c->keys[i], key, len) == 0)
			return c->values[i];
	return NULL;
}

static void stop(struct expansion *x, const struct wm_node *at, const char *why)
{
	if (!x->out->why) {
		x->out->why = why;
		x->out->at = at;
	}
}

/* A node for a value an expression gave: a scalar typed as it is, an array or object itself. */
static const struct wm_node *node_of_value(struct expansion *x, const struct wm_val *v, const struct wm_node *at)
{
	struct wm_node *n;
	const char *text;
	if (v->kind == WM_VAL_ARRAY || v->kind == WM_VAL_OBJECT)
		return v->node;
	if (!(n = wm_arena_alloc(x->a, sizeof(*n)))) {
		x->oom = true;
		return NULL;
	}
	n->type = WM_NODE_SCALAR;
	n->line = at->line;
	n->column = at->column;
	n->style = v->kind == WM_VAL_STRING ? WM_QUOTED : WM_PLAIN;
	if (v->kind == WM_VAL_UNKNOWN) {
		n->tag = WM_COMBOS_UNKNOWN;
		text = v->why ? v->why : "a value not known";
	} else if (v->kind == WM_VAL_NULL) {
		text = "null";
	} else {
		text = wm_eval_string(x->e, v);
	}
	if (!text || !(n->text = wm_arena_strdup(x->a, text))) {
		x->oom |= !text ? x->e->oom : true;
		if (!text) {
			n->tag = WM_COMBOS_UNKNOWN;
			n->text = "a text too long";
		} else {
			return NULL;
		}
	}
	n->len = strlen(n->text);
	return n;
}

/* A value of the matrix, its expression evaluated. */
static const struct wm_node *value(struct expansion *x, const struct wm_node *n)
{
	struct wm_val v;
	if (!n || n->type != WM_NODE_SCALAR || !strstr(n->text, "${{"))
		return n;
	wm_eval_node(&v, x->e, x->s, n);
	return node_of_value(x, &v, n);
}

static bool is_rule(const struct wm_node *key)
{
	return key->type == WM_NODE_SCALAR && (!strcmp(key->text, "include") || !strcmp(key->text, "exclude"));
}

/* Two values the same, as GitHub compares a matrix's values: typed scalars, lists item by item; `partial`: an object's keys given. */
static bool same(const struct wm_node *have, const struct wm_node *want, bool partial, unsigned depth)
{
	if (!have || !want || depth > WM_EVAL_MAX_DEPTH)
		return false;
	if (have->type != want->type)
		return false;
	if (have->type == WM_NODE_SCALAR) {
		struct wm_val a, b;
		if ((have->tag && !strcmp(have->tag, WM_COMBOS_UNKNOWN)) || (want->tag && !strcmp(want->tag, WM_COMBOS_UNKNOWN)))
			return false;
		wm_eval_of_node(&a, have);
		wm_eval_of_node(&b, want);
		if (a.kind != b.kind)
			return false;
		switch (a.kind) {
		case WM_VAL_BOOL:
			return a.b == b.b;
		case WM_VAL_NUMBER:
			return a.n == b.n;
		case WM_VAL_STRING:
			return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
		default:
			return true;
		}
	}
	if (have->type == WM_NODE_SEQ) {
		if (have->n != want->n)
			return false;
		for (size_t i = 0; i < have->n; i++)
			if (!same(have->items[i], want->items[i], false, depth + 1))
				return false;
		return true;
	}
	if (!partial && have->n != want->n)
		return false;
	for (size_t k = 0; k < want->n; k++) {
		const struct wm_node *v = wm_yaml_find(have, want->pairs[k].key->text);
		if (!v || !same(v, want->pairs[k].value, partial, depth + 1))
			return false;
	}
	return true;
}

static bool is_axis(const struct expansion *x, const char *key)
{
	for (size_t i = 0; i < x->naxes; i++)
		if (!strcmp(x->axes[i], key))
			return true;
	return false;
}

static struct wm_combo *new_combo(struct expansion *x)
{
	struct wm_combos *o = x->out;
	struct wm_combo *c = &o->combos[o->n++];
	c->n = 0;
	c->keys = wm_arena_array(x->a, x->nkeys, sizeof(*c->keys));
	c->values = wm_arena_array(x->a, x->nkeys, sizeof(*c->values));
	if (!c->keys || !c->values)
		x->oom = true;
	return c;
}

/* Sets key to value in a combination (replacing an earlier value). */
static void set(struct expansion *x, struct wm_combo *c, const char *key, const struct wm_node *v)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->keys[i], key)) {
			c->values[i] = v;
			return;
		}
	if (c->n < x->nkeys && !x->oom) {
		c->keys[c->n] = key;
		c->values[c->n++] = v;
	}
}

/* The lists: each an axis; false (with why) when the matrix cannot be expanded. */
static bool read_axes(struct expansion *x, const struct wm_node *matrix, size_t *product)
{
	*product = 1;
	for (size_t k = 0; k < matrix->n; k++) {
		const struct wm_node *key = matrix->pairs[k].key, *list = value(x, matrix->pairs[k].value);
		if (is_rule(key))
			continue;
		if (!list || list->type != WM_NODE_SEQ || !list->n) {
			stop(x, matrix->pairs[k].value, list && list->tag && !strcmp(list->tag, WM_COMBOS_UNKNOWN) ?
				wm_arena_printf(x->a, "its list '%s' depends on %s", key->text, list->text) :
				wm_arena_printf(x->a, "its key '%s' is not a list of values (GitHub refuses it)", key->text));
			return false;
		}
		if (x->naxes == MAX_KEYS) {
			stop(x, key, "more keys than init reads");
			return false;
		}
		x->axes[x->naxes++] = key->text;
		if (*product > WM_COMBOS_MAX_PRODUCT / list->n) {
			stop(x, matrix, "more combinations than init reads (its lists alone make over 4096)");
			return false;
		}
		*product *= list->n;
	}
	return true;
}

/* The product of the lists, the first key varying slowest. */
static void product_of(struct expansion *x, const struct wm_node *matrix, size_t total)
{
	for (size_t i = 0; i < total && !x->oom; i++) {
		struct wm_combo *c = new_combo(x);
		size_t rest = total;
		for (size_t k = 0; k < matrix->n && !x->oom; k++) {
			const struct wm_node *key = matrix->pairs[k].key, *list;
			if (is_rule(key))
				continue;
			list = value(x, matrix->pairs[k].value);
			rest /= list->n;
			set(x, c, key->text, value(x, list->items[(i / rest) % list->n]));
		}
	}
}

static void exclude(struct expansion *x, const struct wm_node *rules)
{
	struct wm_combos *o = x->out;
	for (size_t i = 0; rules && rules->type == WM_NODE_SEQ && i < rules->n; i++) {
		const struct wm_node *e = value(x, rules->items[i]);
		size_t kept = 0;
		if (i == WM_COMBOS_MAX_RULES) {
			stop(x, rules, "more exclude entries than init reads: the first 4096 are applied");
			return;
		}
		if (!e || e->type != WM_NODE_MAP || !e->n)
			continue;
		for (size_t c = 0; c < o->n; c++) {
			bool match = true;
			for (size_t k = 0; k < e->n && match; k++) {
				const char *key = e->pairs[k].key->text;
				match = same(wm_combos_get(&o->combos[c], key, strlen(key)), value(x, e->pairs[k].value), true, 0);
			}
			if (!match)
				o->combos[kept++] = o->combos[c];
		}
		o->n = kept;
	}
}

static void include(struct expansion *x, const struct wm_node *rules, size_t original)
{
	struct wm_combos *o = x->out;
	for (size_t i = 0; rules && rules->type == WM_NODE_SEQ && i < rules->n && !x->oom; i++) {
		const struct wm_node *e = value(x, rules->items[i]);
		bool added = false;
		if (i == WM_COMBOS_MAX_RULES) {
			stop(x, rules, "more include entries than init reads: the first 4096 are read");
			return;
		}
		if (!e || e->type != WM_NODE_MAP)
			continue;
		for (size_t c = 0; c < original; c++) {
			bool fits = true;
			for (size_t k = 0; k < e->n && fits; k++) {
				const char *key = e->pairs[k].key->text;
				if (is_axis(x, key))
					fits = same(wm_combos_get(&o->combos[c], key, strlen(key)), value(x, e->pairs[k].value), false, 0);
			}
			if (!fits)
				continue;
			added = true;
			for (size_t k = 0; k < e->n; k++)
				if (!is_axis(x, e->pairs[k].key->text))
					set(x, &o->combos[c], e->pairs[k].key->text, value(x, e->pairs[k].value));
		}
		if (added)
			continue;
		if (o->n == WM_COMBOS_MAX_JOBS) {
			stop(x, e, "more than 256 combinations (GitHub refuses such a matrix): the first 256 are read");
			return;
		}
		{
			struct wm_combo *c = new_combo(x);
			for (size_t k = 0; k < e->n && !x->oom; k++)
				set(x, c, e->pairs[k].key->text, value(x, e->pairs[k].value));
		}
	}
}

int wm_combos_expand(struct wm_combos *out, struct wm_arena *a, struct wm_eval *e, const struct wm_eval_scope *s,
	const struct wm_node *matrix)
{
	struct expansion x = { .a = a, .e = e, .s = s, .out = out };
	size_t total = 1, nrules = 0;

	memset(out, 0, sizeof(*out));
	if (matrix)
		matrix = value(&x, matrix);
	if (matrix && matrix->type == WM_NODE_SCALAR && matrix->tag && !strcmp(matrix->tag, WM_COMBOS_UNKNOWN)) {
		stop(&x, matrix, wm_arena_printf(a, "it depends on %s", matrix->text));
		return 0;
	}
	if (matrix && matrix->type != WM_NODE_MAP) {
		stop(&x, matrix, "it is not a mapping (GitHub refuses it)");
		return 0;
	}
	if (matrix && !read_axes(&x, matrix, &total))
		return 0;
	for (size_t k = 0; matrix && k < matrix->n; k++) {
		const struct wm_node *r = matrix->pairs[k].value;
		if (is_rule(matrix->pairs[k].key) && r->type == WM_NODE_SEQ)
			nrules += r->n < WM_COMBOS_MAX_RULES ? r->n : WM_COMBOS_MAX_RULES;
	}
	/* room for every key a combination can get: the lists' and the include entries' (at most MAX_KEYS) */
	x.nkeys = x.naxes;
	for (size_t k = 0; matrix && k < matrix->n && x.nkeys < MAX_KEYS; k++) {
		const struct wm_node *r = matrix->pairs[k].value;
		if (matrix->pairs[k].key->type == WM_NODE_SCALAR && !strcmp(matrix->pairs[k].key->text, "include") &&
				r->type == WM_NODE_SEQ)
			for (size_t i = 0; i < r->n && i < WM_COMBOS_MAX_RULES && x.nkeys < MAX_KEYS; i++)
				if (r->items[i]->type == WM_NODE_MAP)
					x.nkeys += r->items[i]->n;
	}
	if (x.nkeys > MAX_KEYS)
		x.nkeys = MAX_KEYS;
	if (!x.nkeys)
		x.nkeys = 1;
	if (!(out->combos = wm_arena_array(a, (x.naxes ? total : 0) + WM_COMBOS_MAX_JOBS + 1, sizeof(*out->combos))))
		return WM_ENOMEM;
	if (!matrix) {
		new_combo(&x);
		return x.oom ? WM_ENOMEM : 0;
	}
	if (x.naxes)
		product_of(&x, matrix, total);
	exclude(&x, wm_yaml_find(matrix, "exclude"));
	if (out->n > WM_COMBOS_MAX_JOBS) {
		stop(&x, matrix, "more than 256 combinations (GitHub refuses such a matrix): the first 256 are read");
		out->n = WM_COMBOS_MAX_JOBS;
	}
	include(&x, wm_yaml_find(matrix, "include"), x.naxes ? out->n : 0);
	/* a matrix whose keys are only include and exclude, with no entry: one job */
	if (!out->n && !x.naxes && !nrules)
		new_combo(&x);
	return x.oom || e->oom ? WM_ENOMEM : 0;
}
