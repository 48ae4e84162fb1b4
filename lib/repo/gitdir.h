/* gitdir.h — where git keeps a repository, found as git finds it, without libgit2 (gitdir.c). */
#ifndef WM_REPO_GITDIR_H
#define WM_REPO_GITDIR_H

#include "util/common.h"

/* A repository's places, every path absolute and real (symbolic links resolved). */
struct wm_gitdir {
	char *gitdir;    /* $GIT_DIR: the .git directory, or a linked worktree's own (.git/worktrees/NAME) */
	char *common;    /* where the objects, refs, configuration and hooks are: $GIT_COMMON_DIR, commondir */
	char *workdir;   /* the top of the working tree, with a final '/'; NULL for a bare repository */
	char *index;     /* the index git reads and writes: $GIT_INDEX_FILE, else <gitdir>/index */
	/*
	 * What this reader does not follow, so that libgit2 must answer: the
	 * configuration includes files by a condition (includeIf), or the
	 * repository is owned by another user (git's safe.directory).
	 */
	bool uncertain;
	bool sha1;       /* objects are named by SHA-1 (not extensions.objectFormat = sha256) */
	bool ignorecase; /* core.ignorecase: paths are looked up without regard to case */
};

/*
 * Finds the repository of the directory `dir` as git does when it starts
 * there: $GIT_DIR (a directory, or a file "gitdir: PATH"), $GIT_WORK_TREE,
 * $GIT_COMMON_DIR and $GIT_INDEX_FILE when they are set, otherwise the
 * first of `dir` and its parents holding a .git directory or file (a
 * linked worktree, a submodule) or being a bare repository, up to
 * $GIT_CEILING_DIRECTORIES and, unless $GIT_DISCOVERY_ACROSS_FILESYSTEM,
 * the file system's boundary; core.bare and core.worktree as the
 * configuration says.  A relative $GIT_INDEX_FILE is taken from the top of
 * the working tree (where git runs once it has found it), or from the
 * current directory outside it.  0 with *out (released with
 * wm_gitdir_release), 1 when there is no repository, WM_EIO when $GIT_DIR
 * names no repository, WM_ENOMEM.
 */
int wm_gitdir_find(struct wm_gitdir *out, const char *dir, struct wm_error *err);
void wm_gitdir_release(struct wm_gitdir *g);

/*
 * False only when no ignore rule can match `path` (below the top of the
 * working tree) or a directory above it: no pattern of the .gitignore files
 * on its way, of <common>/info/exclude, of core.excludesFile or of the
 * user's ignore file matches any of them, read generously (a pattern that
 * is not plain, with "**" or a backslash, may match anything).  True means
 * "may be ignored": git's own rules must decide.
 */
bool wm_gitdir_may_ignore(const struct wm_gitdir *g, const char *path);

#endif
