/* gitindex.h — git's index file read directly, for a split index, which libgit2 cannot read (gitindex.c). */
#ifndef WM_REPO_GITINDEX_H
#define WM_REPO_GITINDEX_H

#include "util/common.h"

struct wm_gitindex_entry {
	const char *path;         /* NUL-terminated, owned by the index */
	uint32_t mode;            /* 0100644, 0100755, 0120000, 0160000 */
	unsigned stage;           /* 0, or 1 to 3 in a conflict */
	unsigned char id[20];     /* the blob's SHA-1 */
};
struct wm_gitindex {
	struct wm_gitindex_entry *entries;  /* sorted as git sorts them: by path, then stage */
	size_t n;
	/* the reader's own */
	char *paths;
	size_t paths_len, paths_cap;
};

/*
 * Reads `gitdir`/index when it is a split index (`git update-index
 * --split-index`, or core.splitIndex): its entries merged with those of the
 * shared index it links to, as git merges them.  1 when the index is not a
 * split one, or one of what this reader does not handle (a sparse index, or
 * a hash other than SHA-1): libgit2 reads it, or says why not.  An error
 * (WM_EREAD, WM_EINVALID for a corrupt file) is reported in `err`.  Both
 * files' checksums are verified.  Free it with wm_gitindex_free.
 */
int wm_gitindex_read_split(struct wm_gitindex *out, const char *gitdir, struct wm_error *err);
void wm_gitindex_free(struct wm_gitindex *ix);

#endif
