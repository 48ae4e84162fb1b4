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

#endif
