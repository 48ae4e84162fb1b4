/* variant.h — variant patches applied to the working tree (variant.c). */
#ifndef WM_REPO_VARIANT_H
#define WM_REPO_VARIANT_H

#include "util/common.h"
#include "util/buf.h"

/*
 * A reader over `inner` that gives pyproject.toml as it is without an applied
 * variant patch: when the file is what the patch of one of the matrix's
 * backends makes (the loader names them), that patch, checked for the shape
 * generate writes before anything else reads it, is undone in memory,
 * exactly where its hunks say.  wm_variant_reader_applied names that
 * patch's backend, or is NULL; once the matrix is loaded through it,
 * wm_variant_reader_verify makes sure the patch is the one the matrix makes
 * of the file it undid it to (WM_EINVALID or WM_ESTATE, at the patch, when
 * not: that file must not be read).  `inner` must outlive it.
 */
int wm_variant_reader(struct wm_reader *out, const struct wm_reader *inner);
const char *wm_variant_reader_applied(const struct wm_reader *r);
int wm_variant_reader_verify(const struct wm_reader *r, const struct wm_matrix *m, struct wm_error *err);
void wm_variant_reader_free(struct wm_reader *r);

#endif
