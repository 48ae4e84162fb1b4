/* diff.h — git-format diffs: written, and turned round (diff.c). */
#ifndef WM_FORMATS_DIFF_H
#define WM_FORMATS_DIFF_H

#include "util/common.h"
#include "util/buf.h"

/*
 * Appends a git-format diff turning `old` into `new` at `path`: the
 * `diff --git` header, an `index` line of full blob ids, and hunks
 * with three lines of context.  Line endings are kept byte for byte.
 */
int wm_diff_git(struct wm_buf *out, const char *path, const char *old, size_t oldlen,
	const char *new, size_t newlen);
/* The same for a file that does not exist yet: `new file mode`, `--- /dev/null`. */
int wm_diff_git_new(struct wm_buf *out, const char *path, const char *new, size_t newlen);
/*
 * Appends the patch `patch` turned round, undoing what it does: the index
 * ids, the hunk ranges and the signs of changed lines swapped.  WM_EINVALID
 * when it holds no git-format diff.
 */
int wm_diff_reverse(struct wm_buf *out, const char *patch, size_t len);

/* What a patch of one file says about itself (wm_diff_read). */
struct wm_diff_file {
	const char *path;     /* the file it modifies, in the patch's text (not NUL-terminated) */
	size_t pathlen;
	char old_id[41], new_id[41];  /* the full blob ids of its index line */
	const char *start;    /* its "diff --git" line, in the patch's text */
};

/*
 * Reads a patch of the shape wm_diff_git writes (after any lines before
 * it): one file modified in place, its index line of full ids, hunks.
 * 0 with *out pointing into `patch`; 1 when the patch has another shape
 * (a general reader must decide what it is).
 */
int wm_diff_read(struct wm_diff_file *out, const char *patch, size_t len);
/* The largest patch wm_diff_check reads: a variant patch changes a few lines of a pyproject.toml. */
#define WM_DIFF_MAX_BYTES (1u << 20)

/* Why a patch is not of the shape wm_diff_git writes, and where (wm_diff_check). */
struct wm_diff_problem {
	unsigned line;        /* 1-based line of the patch; 0 for the whole file */
	char why[96];
};

/*
 * Whether `patch`, a file from the repository, has exactly the shape
 * `generate` writes before anything parses it further: at most
 * WM_DIFF_MAX_BYTES of UTF-8 without control bytes (tab, LF and CR before
 * LF aside) or the line breaks YAML alone sees (U+0085, U+2028, U+2029);
 * `#` comment lines (the generated header), then one file modified in place
 * (`diff --git a/P b/P`, an index line of full blob ids, `--- a/P`,
 * `+++ b/P`), then text hunks in order whose line counts hold, and nothing
 * after them: no binary section, no second file.  0 with *out pointing into
 * `patch`; 1 with *why filled.
 */
int wm_diff_check(struct wm_diff_file *out, const char *patch, size_t len, struct wm_diff_problem *why);
/*
 * Applies such a patch of `path` to `pre` as `git apply` does when every
 * hunk applies where its header puts it, and appends the result to `out`:
 * 0; 1 (nothing appended) when the patch is of another shape or a hunk
 * does not apply exactly there, for `git apply` or libgit2 to decide
 * (moved hunks, fuzz, errors); WM_ENOMEM.
 */
int wm_diff_apply(struct wm_buf *out, const char *patch, size_t len, const char *path, const char *pre,
	size_t prelen);

#endif
