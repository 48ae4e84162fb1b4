/* check.h — `check`: the matrix, the project and every generated file, read from one git source, against each other (check.c). */
#ifndef WM_REPO_CHECK_H
#define WM_REPO_CHECK_H

#include "util/common.h"

struct wm_check_options {
	enum wm_source source;
	const char *rev;        /* WM_SOURCE_REV: the commit */
	const char *root;       /* the directory of the matrix file, on disk */
	const char *matrix;     /* the matrix file's path relative to root */
	bool diff;              /* put a diff of each stale or edited file into *diff */
	struct wm_paths *checked; /* when not NULL: gets the path of each generated file compared */
};

/*
 * `check`'s findings (and its diff, or NULL) as one indented JSON object:
 * {"ok", "errors", "warnings", "findings": [{"file", "line", "column",
 * "severity", "message"}], "diff"}.  *out is malloc'd.
 */
int wm_check_json(char **out, const struct wm_error *findings, const char *diff);
/*
 * Checks the matrix file, the project and every generated file, all read
 * from one source of the repository that holds opts->root, against each
 * other.  Findings go into `findings` (severity, file, line, column and
 * message, file paths relative to the root); the unified diffs asked for,
 * malloc'd, into *diff (NULL when none).  Returns 0 when the check ran
 * (findings->nerrors says whether it passed), WM_EINVALID with the loader's
 * diagnostics in `findings` for an invalid matrix or project, WM_EIO for
 * no repository ("not a git repository (or any parent): DIR") or a git
 * failure.  Nothing is written anywhere.
 */
int wm_check(struct wm_error *findings, char **diff, size_t *difflen, const struct wm_catalog *cat,
	const struct wm_check_options *opts);

#endif
