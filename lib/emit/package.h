/* package.h — the meta package and the backends' python-source directories (package.c). */
#ifndef WM_EMIT_PACKAGE_H
#define WM_EMIT_PACKAGE_H

#include "util/common.h"

/* Adds the backends' python-source files and the meta package to `out`; nothing without m->meta. */
int wm_package_generate(struct wm_files *out, const struct wm_matrix *m, const char *matrix_file,
	struct wm_error *err);

#endif
