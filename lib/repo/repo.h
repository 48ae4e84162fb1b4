/* repo.h — the git repository through libgit2 (its only user) (repo.c). */
#ifndef WM_REPO_REPO_H
#define WM_REPO_REPO_H

#include "util/common.h"
#include "util/buf.h"

struct wm_repo;

/*
 * Opens the repository that holds `dir` (searching its parents): 0 with
 * *out, which the caller frees with wm_repo_free; 1 when there is none.
 */
int wm_repo_discover(struct wm_repo **out, const char *dir, struct wm_error *err);
void wm_repo_free(struct wm_repo *r);
/* The working tree's absolute path with a final '/', or NULL for a bare repository. */
const char *wm_repo_workdir(const struct wm_repo *r);
/*
 * Appends `data`, the content of `path` (relative to the working tree),
 * converted as git converts it on the way into the object store (line
 * endings under core.autocrlf or .gitattributes), or, with `to_worktree`,
 * on the way out.
 */
int wm_repo_filter(struct wm_buf *out, struct wm_repo *r, const char *path, bool to_worktree,
	const char *data, size_t len, struct wm_error *err);

/*
 * True when no filter of libgit2's can change `data` on its way into the
 * object store, whatever the path, the attributes and the configuration:
 * it holds no CR (the only byte crlf's conversion removes) and no "$Id"
 * (which the ident filter collapses).  Such a file is stored as it is, and
 * the repository need not be opened (nor libgit2 started) to convert it.
 * One refusal is not made so: core.safecrlf=true with CRLF checkouts refuses
 * a file with LF line endings, which `git add` would refuse too.
 */
bool wm_repo_filter_stores_as_is(const char *data, size_t len);

/*
 * Where `root` (a directory on disk) is below the top of the working tree,
 * "" or "dir/", malloc'd into *out; "" for a bare repository; NULL (not an
 * error) when root is outside the working tree.
 */
int wm_repo_prefix(char **out, const struct wm_repo *r, const char *root, struct wm_error *err);

/*
 * A reader of the files below `root` from `kind` (wheelmatrix.h): the index,
 * the tree of commit `rev`, or the working tree converted as `git add` would
 * store it.  Missing files read as 1.  `r` and `root` must outlive it; close
 * it with wm_repo_source_close.
 */
int wm_repo_source_open(struct wm_reader *out, struct wm_repo *r, enum wm_source kind, const char *rev,
	const char *root, struct wm_error *err);
void wm_repo_source_close(struct wm_reader *r);

struct wm_repo_status {
	bool tracked;   /* in the index (always true for the index and a commit) */
	bool ignored;   /* the working tree's ignore rules ignore it (never in a bare repository) */
};
/* What git thinks of `path` (below the source's root). */
int wm_repo_source_status(struct wm_repo_status *out, const struct wm_reader *src, const char *path,
	struct wm_error *err);

/* What a variant patch says about itself. */
struct wm_repo_patch {
	char *path;           /* the one file it modifies (owned) */
	char old_id[41], new_id[41];  /* the blob ids of its index line */
	bool full_ids;        /* the ids are written in full, so they can be compared */
};

/*
 * With libgit2, for the tests alone (formats/diff.c's judge): parses
 * `patch`, one file modified in place, or WM_EINVALID; applies it to `pre`,
 * the content of `path`, in an in-memory object store (nothing is written
 * anywhere), WM_ESTATE with libgit2's reason when it does not apply.  Never
 * given a file from the repository: the commands read and apply patches
 * with formats/diff.c alone, after wm_diff_check.
 */
int wm_repo_patch_read_git(struct wm_repo_patch *out, const char *patch, size_t len, struct wm_error *err);
int wm_repo_patch_apply_git(struct wm_buf *out, const char *patch, size_t patchlen, const char *path,
	const char *pre, size_t prelen, struct wm_error *err);
void wm_repo_patch_release(struct wm_repo_patch *p);

#endif
