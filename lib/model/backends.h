/* backends.h — the matrix's `backends` section and the checks across backends (backends.c). */
#ifndef WM_MODEL_BACKENDS_H
#define WM_MODEL_BACKENDS_H

#include "util/common.h"
#include "formats/yaml.h"

struct wm_loader;

/* Loads `backends` (`n` NULL when the key is absent: one plain build, "cpu"). */
void wm_backends_load(struct wm_loader *l, const struct wm_node *n);
/* The keys of a backend's per-platform entry: `runner`, `tags` and the build settings. */
const struct wm_names *wm_backends_per_platform_keys(void);
/* The platforms as each backend's jobs run on them (m->runs_on), from the backends' runner and tags. */
void wm_backends_runs_on(struct wm_loader *l);
/*
 * Loads the `test:` mapping n (the top-level one, or with `backend` a backend's, which may also
 * say `runner` and `tags`) over `base` (NULL: nothing) into *out; NULL in *out on an error, which
 * is reported.  The result is in the loader's arena.
 */
void wm_backends_load_test(struct wm_loader *l, const struct wm_node *n, const struct wm_test *base, bool backend,
	const struct wm_test **out);
/* Reports each toolkit of `b` that cannot be built on `p`; `at` is where the job is asked for. */
bool wm_backends_check_toolkit_platform(struct wm_loader *l, const struct wm_backend *b, const struct wm_platform *p,
	struct wm_loc at);
/* Reports each toolkit a backend uses that cannot be built on one of the platforms it builds on. */
void wm_backends_check_toolkits(struct wm_loader *l);
/* Takes the backend marked 'default' as the base build; reports a second one. */
void wm_backends_check_defaults(struct wm_loader *l);
/* Fills in default distribution names and reports names that collide after PEP 503 normalisation. */
void wm_backends_check_distributions(struct wm_loader *l);

#endif
