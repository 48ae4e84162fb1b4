/* gitlab.h — the GitLab CI file and GitLab.com's limits (gitlab.c). */
#ifndef WM_EMIT_GITLAB_H
#define WM_EMIT_GITLAB_H

#include "util/common.h"
#include "util/buf.h"
#include "formats/yaml.h"

/* The body of the GitLab CI file; `patched` as for wm_emit_github. */
int wm_emit_gitlab(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, struct wm_error *err);

/* GitLab.com's limits, which the GitLab emitter asserts on what it wrote (gitlab-ci-local does not). */
#define WM_GITLAB_MAX_PERMUTATIONS 200  /* instances of one parallel:matrix job */
#define WM_GITLAB_MAX_NAME 255          /* characters of a job name, matrix instances' names included */
#define WM_GITLAB_MAX_NEEDS 50          /* entries of one `needs`, after matrix expansion */
/*
 * Checks a GitLab CI tree against those limits, reporting each excess in
 * `err` (WM_EINTERNAL: the emitter should have stayed within them).
 */
int wm_emit_gitlab_limits(const struct wm_y *root, struct wm_error *err);

#endif
