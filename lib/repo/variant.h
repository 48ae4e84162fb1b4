/* variant.h — variant patches applied to the working tree (variant.c). */
#ifndef WM_REPO_VARIANT_H
#define WM_REPO_VARIANT_H

#include "util/common.h"
#include "util/buf.h"

/*
 * When `data`, the content of `path` read through `r`, is what one of the
 * patches under .wheelmatrix/patches/ (read through `r` too) makes of a file,
 * puts that file without the patch in `base` and the patch's backend in
 * *applied (malloc'd); else leaves *applied NULL.
 */
int wm_variant_unapply(struct wm_buf *base, char **applied, const struct wm_reader *r, const char *path,
	const char *data, size_t len, struct wm_error *err);
/*
 * A reader over `inner` that gives pyproject.toml as it is without an applied
 * variant patch (the first file found so); wm_variant_reader_applied names
 * that patch's backend, or is NULL.  `inner` must outlive it.
 */
int wm_variant_reader(struct wm_reader *out, const struct wm_reader *inner);
const char *wm_variant_reader_applied(const struct wm_reader *r);
void wm_variant_reader_free(struct wm_reader *r);

#endif
