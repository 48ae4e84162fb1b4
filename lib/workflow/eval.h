/* eval.h — GitHub Actions expressions evaluated over what a workflow says, the rest unknown (eval.c). */
#ifndef WM_WORKFLOW_EVAL_H
#define WM_WORKFLOW_EVAL_H

#include "util/common.h"
#include "util/arena.h"
#include "formats/yaml.h"

enum wm_val_kind { WM_VAL_UNKNOWN, WM_VAL_NULL, WM_VAL_BOOL, WM_VAL_NUMBER, WM_VAL_STRING, WM_VAL_ARRAY, WM_VAL_OBJECT };
enum wm_truth { WM_FALSE, WM_TRUE, WM_MAYBE };

/*
 * A value of the expression language, or what is known of one.  Arrays and objects are YAML nodes
 * (a matrix combination's values, a fromJSON result read into nodes): their plain scalars are typed
 * as YAML 1.2's core schema types them, as GitHub reads a workflow (`3.10` is the number 3.1).
 */
struct wm_val {
	enum wm_val_kind kind;
	bool b;
	double n;
	const char *s;              /* a string: not NUL-terminated */
	size_t len;
	bool prefix;                /* a string of which only the start is known (github.ref: refs/tags/...) */
	const struct wm_node *node; /* an array (sequence) or object (mapping) */
	enum wm_truth truth;        /* unknown: what is known of its truthiness */
	const char *why;            /* unknown: what it depends on ("secrets.PYPI_TOKEN"), in the arena; a prefix: what it is */
};

struct wm_eval;
/*
 * The contexts of an evaluation: `resolve` gives the value of a context read with a path of names
 * (`matrix.target` is {"matrix", "target"}; `github['ref']` is {"github", "ref"}), as written;
 * the caller compares them ignoring case, as GitHub does.  A value it does not know is unknown,
 * with `why` naming it.  The evaluator goes on into an array or object it returns for the parts
 * it leaves (*used < nparts).
 */
struct wm_eval_scope {
	void (*resolve)(void *ctx, struct wm_eval *e, const char *const *parts, const size_t *lens, size_t nparts,
		size_t *used, struct wm_val *out);
	void *ctx;
};

/*
 * An evaluator: its values live in `arena` (the caller's).  `budget` bounds the bytes of the text
 * it makes (format, join, concatenation) over its life: past it, a value is unknown ("too long"),
 * so that a hostile workflow costs bounded memory.  `statuses` is the answer of success() and
 * always() (true: a step of a run where everything before succeeded).
 */
struct wm_eval {
	struct wm_arena *arena;
	size_t budget;
	unsigned depth;             /* of evaluations in progress (a context's value read through another) */
	bool oom;
};
#define WM_EVAL_MAX_DEPTH 32   /* nested parentheses, calls, `!` and contexts read through others */

void wm_eval_init(struct wm_eval *e, struct wm_arena *arena, size_t budget);

/* The expression `expr` (without `${{ }}`; an `if:`'s text may have them around it whole). */
void wm_eval_expr(struct wm_val *out, struct wm_eval *e, const struct wm_eval_scope *s, const char *expr);
/* Whether an `if:` holds: absent (NULL) holds; one not understood may. */
enum wm_truth wm_eval_if(struct wm_eval *e, const struct wm_eval_scope *s, const char *cond);
/*
 * A workflow's value with its `${{ }}`: a scalar without them is its typed YAML value; one that is
 * a single expression is that expression's value; any other is a string of its parts.  A mapping
 * or sequence is itself (an array or object).
 */
void wm_eval_node(struct wm_val *out, struct wm_eval *e, const struct wm_eval_scope *s, const struct wm_node *n);
/* The same for a text, which GitHub gives as a string (a `run:`'s script, an action's input). */
void wm_eval_text(struct wm_val *out, struct wm_eval *e, const struct wm_eval_scope *s, const char *text);

/* A YAML scalar as GitHub types it (null, bool, number, else string); an array or object for the others. */
void wm_eval_of_node(struct wm_val *out, const struct wm_node *n);
/* The string GitHub makes of a value (3.1, true, "" for null, "Array", "Object"), in the arena; NULL for an unknown. */
const char *wm_eval_string(struct wm_eval *e, const struct wm_val *v);
enum wm_truth wm_eval_truthy(const struct wm_val *v);
/* An unknown value depending on `why` (copied). */
void wm_eval_unknown(struct wm_val *out, struct wm_eval *e, const char *why);
/* A known string (not copied). */
void wm_eval_str(struct wm_val *out, const char *s, size_t len);
/* The value of `key` in object `v` (compared ignoring case), or null. */
void wm_eval_member(struct wm_val *out, const struct wm_val *v, const char *key, size_t len);

#endif
