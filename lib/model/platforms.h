/* platforms.h — the matrix's `platforms` section (platforms.c). */
#ifndef WM_MODEL_PLATFORMS_H
#define WM_MODEL_PLATFORMS_H

#include "util/common.h"
#include "formats/yaml.h"

struct wm_loader;

/* Loads `platforms` (`n` NULL when the key is absent: the default platforms). */
void wm_platforms_load(struct wm_loader *l, const struct wm_node *n);
/* Warns about a runner label a job runs on that retires within 90 days, and refuses a retired one. */
void wm_platforms_check_runners(struct wm_loader *l);
/* Reports `id`, at `n`, as a platform the catalog does not have, with a suggestion. */
void wm_platforms_unknown(struct wm_loader *l, const struct wm_node *n, const char *id);
/*
 * Applies the overrides in mapping `o` to a copy of `p`.  Shared by `platforms:`
 * entries and `include` rules, whose other keys the caller has checked.
 */
struct wm_platform *wm_platforms_apply_overrides(struct wm_loader *l, const struct wm_platform *base,
	const struct wm_node *o);
/*
 * `runner` and `tags` of mapping `o` (a platform's entry, an include, a backend, a backend's
 * per-platform entry), checked alike: false when it has neither.
 */
bool wm_platforms_load_runs_on(struct wm_loader *l, const struct wm_node *o, struct wm_runs_on *out);
/* `base` as a backend's jobs run on it: a copy with r's runner and tags, or base when r has none. */
const struct wm_platform *wm_platforms_runs_on(struct wm_loader *l, const struct wm_platform *base,
	const struct wm_runs_on *r);
/* The matrix platform a pattern names, or reports why none. */
/* Why PyPy cannot be built for platform pl, or NULL when it can (any version the loader takes). */
const char *wm_platforms_pypy_missing(const struct wm_platform *pl);
bool wm_platforms_pattern(struct wm_loader *l, const struct wm_node *n, const char *what);

/*
 * The platform of id `id`: the matrix's (with its overrides), else the catalog's, else, for
 * <catalog id>-<level> (linux-x86_64-2_17, musllinux-x86_64-1_1), the catalog's Linux platform at
 * that manylinux or musllinux level, GitLab's image at that level too; NULL when none.
 */
const struct wm_platform *wm_platforms_find(struct wm_loader *l, const char *id);

#endif
