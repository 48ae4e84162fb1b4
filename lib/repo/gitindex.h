/* gitindex.h — git's index file read directly: faster than libgit2, and a split index, which libgit2 refuses (gitindex.c). */
#ifndef WM_REPO_GITINDEX_H
#define WM_REPO_GITINDEX_H

#include "util/common.h"

/* An entry: its path and its record in the index file (mapped), read with the functions below. */
struct wm_gitindex_entry {
	const char *path;           /* NUL-terminated */
	const unsigned char *rec;   /* the entry's record in the file */
	uint32_t len;               /* the path's length */
	uint32_t seq;               /* the reader's own */
};
struct wm_gitindex {
	struct wm_gitindex_entry *entries;  /* sorted as git sorts them: by path (bytes), then stage */
	size_t n;
	bool split;               /* a split index, merged with its shared index */
	/* the reader's own: the files mapped, the paths of version 4 put together */
	void *map[2];
	size_t maplen[2];
	char *paths[2];
};

/* An entry's mode (0100644, 0100755, 0120000, 0160000), stage (0, or 1 to 3 in a conflict) and SHA-1. */
uint32_t wm_gitindex_mode(const struct wm_gitindex_entry *e);
unsigned wm_gitindex_stage(const struct wm_gitindex_entry *e);
const unsigned char *wm_gitindex_id(const struct wm_gitindex_entry *e);

/*
 * Reads the index file `index` (<gitdir>/index, or the one $GIT_INDEX_FILE
 * names: a commit's temporary index), of version 2, 3 or 4; a split one
 * (`git update-index --split-index`, or core.splitIndex) merged with the
 * shared index it links to, <gitdir>/sharedindex.<id>, as git merges them.  1 when the index has what this
 * reader does not handle (a sparse index, another mandatory extension,
 * another version): libgit2 reads it, or says why not.  An error (WM_EREAD,
 * WM_EINVALID for a corrupt file) is reported in `err`.  As git when it
 * reads the index, it does not verify the file's checksum; a shared index
 * must be the one the split index names.  Free it with wm_gitindex_free.
 */
int wm_gitindex_read(struct wm_gitindex *out, const char *index, const char *gitdir, struct wm_error *err);
/* The stage 0 entry of `path`, or NULL. */
const struct wm_gitindex_entry *wm_gitindex_find(const struct wm_gitindex *ix, const char *path);
/* The position of the first entry whose path is `prefix` or after it. */
size_t wm_gitindex_lower_bound(const struct wm_gitindex *ix, const char *prefix);
void wm_gitindex_free(struct wm_gitindex *ix);

#endif
