/* github.h — the GitHub Actions workflow (github.c). */
#ifndef WM_EMIT_GITHUB_H
#define WM_EMIT_GITHUB_H

#include "util/common.h"
#include "util/buf.h"

/* The local composite actions a workflow may run (github.c's local_actions), each in DIR/action.yml (WM_GITHUB_LOCAL_FILE). */
#define WM_GITHUB_NLOCAL 2

/*
 * The body of the GitHub Actions workflow; `patched[b]`: backend b has a variant patch.  Bit k
 * of *local (when not NULL) says a step runs local action k, whose file the workflow needs
 * beside it (wm_emit_github_local).
 */
int wm_emit_github(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, unsigned *local, struct wm_error *err);
/* The body of local action k's file (k < WM_GITHUB_NLOCAL) and its directory, in *dir. */
int wm_emit_github_local(struct wm_buf *out, const char **dir, unsigned k, struct wm_error *err);
/*
 * Which actions of the catalogue the workflow of `m` uses: used[i] for
 * wm_catalog_action_name(cat, i) (the caller's array, that long).
 */
int wm_emit_github_actions(bool *used, const struct wm_matrix *m, const struct wm_catalog *cat, struct wm_error *err);

#endif
