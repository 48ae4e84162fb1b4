/* tracked.h — tracked files by name, from git's index read directly; init's project looked for among them (tracked.c). */
#ifndef WM_REPO_TRACKED_H
#define WM_REPO_TRACKED_H

#include "util/common.h"

/*
 * The files tracked below the directory `dir` (git's index, read directly)
 * whose last path component is `leaf`, relative to dir, in the index's order:
 * at most `max` in `out`, all of them counted in *total.  Only the paths are
 * read.  1 (nothing added) when there is no repository or working tree, or
 * an index this reader does not handle (a sparse one, core.ignorecase,
 * SHA-256): the caller goes without.
 */
int wm_repo_tracked_named(struct wm_paths *out, size_t *total, const char *dir, const char *leaf, size_t max,
	struct wm_error *err);
/*
 * The project init reads when no --pyproject is given and the root's pyproject.toml (read through
 * `r`, the directory `root`) is not one maturin builds: *pyproject (malloc'd) is the one the
 * repository points at, with a note in `err` saying why; NULL for the root's (found nowhere else,
 * then with a hint when the root holds no project).  Several: WM_EINVALID, each listed in `err`
 * with the `init --pyproject` line that picks it.
 */
int wm_repo_tracked_init_project(char **pyproject, const struct wm_reader *r, const char *root, struct wm_error *err);

#endif
