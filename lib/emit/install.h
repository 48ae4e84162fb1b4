/* install.h — strategy index: what users install a backend with (install.c). */
#ifndef WM_EMIT_INSTALL_H
#define WM_EMIT_INSTALL_H

#include "util/common.h"

/*
 * Adds .wheelmatrix/index/requirements-<backend>.txt for each backend and
 * .wheelmatrix/index/pyproject.toml (uv: an extra per backend, each from its
 * explicit index) to `out`; nothing unless the strategy is index.
 */
int wm_install_generate(struct wm_files *out, const struct wm_matrix *m, const char *matrix_file,
	struct wm_error *err);

#endif
