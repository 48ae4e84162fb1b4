/* github.h — the GitHub Actions workflow (github.c). */
#ifndef WM_EMIT_GITHUB_H
#define WM_EMIT_GITHUB_H

#include "util/common.h"
#include "util/buf.h"

/* The body of the GitHub Actions workflow; `patched[b]`: backend b has a variant patch. */
int wm_emit_github(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, struct wm_error *err);
/*
 * Which actions of the catalogue the workflow of `m` uses: used[i] for
 * wm_catalog_action_name(cat, i) (the caller's array, that long).
 */
int wm_emit_github_actions(bool *used, const struct wm_matrix *m, const struct wm_catalog *cat, struct wm_error *err);

#endif
