/* combos.h — a job's strategy.matrix expanded into its combinations as GitHub expands it (combos.c). */
#ifndef WM_WORKFLOW_COMBOS_H
#define WM_WORKFLOW_COMBOS_H

#include "util/common.h"
#include "util/arena.h"
#include "formats/yaml.h"
#include "workflow/eval.h"

#define WM_COMBOS_MAX_JOBS 256     /* GitHub's bound on the jobs of one matrix */
#define WM_COMBOS_MAX_PRODUCT 4096 /* combinations of the lists read before exclude: more is not expanded */
#define WM_COMBOS_MAX_RULES 4096   /* include and exclude entries read each */

/*
 * One combination: the matrix context of its job.  A value that an expression in the matrix gives
 * and that is not known is a scalar tagged WM_COMBOS_UNKNOWN, its text saying what it depends on.
 */
struct wm_combo {
	const char **keys;
	const struct wm_node **values;
	size_t n;
};
#define WM_COMBOS_UNKNOWN "!unknown"

struct wm_combos {
	struct wm_combo *combos;
	size_t n;
	/*
	 * Why the combinations are not all there, or NULL: a matrix given by an expression that is not
	 * known, one GitHub refuses (more than 256 jobs, a list without items), one too large to read.
	 */
	const char *why;
	const struct wm_node *at;    /* where */
};

/*
 * The combinations of `matrix` (a job's strategy.matrix, or NULL: one combination without keys):
 * the product of its lists (the first key varies slowest), less those an `exclude` entry matches
 * (an object's value matched by the keys the entry gives), then each `include` entry added to every
 * combination whose original values it does not change (its other keys set, overwriting what an
 * earlier entry added), or, when it fits none, as a combination of its own.  Expressions in the
 * matrix are evaluated in `s` (a workflow's inputs; the rest unknown).  Memory from `a`; only
 * running out of memory fails.
 */
int wm_combos_expand(struct wm_combos *out, struct wm_arena *a, struct wm_eval *e, const struct wm_eval_scope *s,
	const struct wm_node *matrix);
/* The value of `key` (compared ignoring case) in a combination, or NULL. */
const struct wm_node *wm_combos_get(const struct wm_combo *c, const char *key, size_t len);

#endif
