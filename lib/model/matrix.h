/* matrix.h — the matrix file loaded and validated (matrix.c). */
#ifndef WM_MODEL_MATRIX_H
#define WM_MODEL_MATRIX_H

#include "util/common.h"
#include "formats/yaml.h"

/* The parsed matrix file, for diagnostics with its source lines. */
const struct wm_doc *wm_matrix_doc(const struct wm_matrix *m);
/* True when the CI output `o` leaves platform `p` out (ci.gitlab.exclude-platforms). */
bool wm_matrix_output_excludes(const struct wm_output *o, const struct wm_platform *p);
/* wm_matrix_load_file reading the project through `r` (NULL: the tree below the file's directory). */
int wm_matrix_load_path(struct wm_matrix **out, const struct wm_catalog *cat, const char *path,
	const struct wm_reader *r, struct wm_error *err);
/* Whether `s` is a name publish.pypi.environment takes: letters, digits, ' ', '-', '_', '.', at most 255. */
bool wm_matrix_environment_valid(const char *s);

#endif
