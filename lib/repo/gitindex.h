/* gitindex.h — git's index file read directly: faster than libgit2, and a split index, which libgit2 refuses (gitindex.c). */
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
	struct wm_gitindex_entry *entries;  /* sorted as git sorts them: by path (bytes), then stage */
	size_t n;
	bool split;               /* a split index, merged with its shared index */
	/* the reader's own */
	char *paths;
	size_t paths_len, paths_cap;
};

/*
 * Reads `gitdir`/index, of version 2, 3 or 4; a split one (`git
 * update-index --split-index`, or core.splitIndex) merged with the shared
 * index it links to, as git merges them.  1 when the index has what this
 * reader does not handle (a sparse index, another mandatory extension,
 * another version): libgit2 reads it, or says why not.  An error (WM_EREAD,
 * WM_EINVALID for a corrupt file) is reported in `err`.  As git when it
 * reads the index, it does not verify the file's checksum; a shared index
 * must be the one the split index names.  Free it with wm_gitindex_free.
 */
int wm_gitindex_read(struct wm_gitindex *out, const char *gitdir, struct wm_error *err);
/* The stage 0 entry of `path`, or NULL. */
const struct wm_gitindex_entry *wm_gitindex_find(const struct wm_gitindex *ix, const char *path);
/* The position of the first entry whose path is `prefix` or after it. */
size_t wm_gitindex_lower_bound(const struct wm_gitindex *ix, const char *prefix);
void wm_gitindex_free(struct wm_gitindex *ix);

#endif
