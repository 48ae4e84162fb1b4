/* generate.h — every output of a matrix, in memory (generate.c). */
#ifndef WM_EMIT_GENERATE_H
#define WM_EMIT_GENERATE_H

#include "util/common.h"
#include "util/buf.h"

/*
 * Renders backend b's variant patch of m->project into `out`:
 * 1 when its pyproject.toml differs from the base, 0 when the variant
 * builds the base file as it is.
 */
int wm_generate_variant(struct wm_buf *out, const struct wm_matrix *m, const struct wm_backend *b,
	struct wm_error *err);

#endif
