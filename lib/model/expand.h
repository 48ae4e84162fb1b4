/* expand.h — the expansion of a matrix into jobs (expand.c). */
#ifndef WM_MODEL_EXPAND_H
#define WM_MODEL_EXPAND_H

#include "util/common.h"
#include "model/schema.h"

/* Precomputes the expansion masks and groups of a validated matrix; fills njobs and groups. */
struct wm_catalog;
int wm_expand_prepare(struct wm_matrix *m, const struct wm_catalog *cat, struct wm_schema *c);
/* True when (backend, platform, python) is in the base matrix (before includes). */
bool wm_expand_in_base(const struct wm_matrix *m, size_t b, size_t p, const struct wm_python *py,
	const struct wm_rule **exclude);

#endif
