/* io.h — files within a size limit, confined below a root, and atomic writes (io.c). */
#ifndef WM_UTIL_IO_H
#define WM_UTIL_IO_H

#include "util/common.h"

/* Reads a whole file ("-" = stdin) of at most `max` bytes; errors name the path. */
int wm_io_read(char **out, size_t *len, const char *path, size_t max, struct wm_error *err);
/*
 * Reads `fd` to its end into a NUL-terminated malloc'd buffer, reporting
 * nothing: WM_EINVALID past `max` bytes, WM_ENOMEM, or WM_EREAD with errno set.
 */
int wm_io_read_fd(char **out, size_t *len, int fd, size_t max);
/*
 * Replaces the file `target` (its directory exists) with `data`
 * atomically: a temporary file beside it, synced, renamed over it, with
 * permissions `mode`.  Messages name it `shown`.
 */
int wm_io_write_atomic(const char *target, const char *shown, const char *data, size_t len, unsigned mode,
	struct wm_error *err);
/*
 * Reads the file `path` below the repository `root` so that
 * nothing leaves it: a symbolic link is followed only while it stays inside the
 * root and out of `.git`, else the error names the link.  1 when there is
 * no file there.
 */
int wm_io_read_below(char **out, size_t *len, const char *root, const char *path, struct wm_error *err);
/*
 * Writes `data` to the file `path` below `root` atomically (wm_io_write_atomic),
 * creating missing directories; a link on the way is followed only while it stays
 * inside the root and out of `.git`.  An existing file keeps its permissions.
 */
int wm_io_write_below(const char *root, const char *path, const char *data, size_t len, struct wm_error *err);
/*
 * Decides whether wm_io_write_below could write the file `path` below `root`,
 * creating nothing: 0, or the error it would report (a link on the way that
 * leads out of the root, into `.git` or to nothing; a file where a directory
 * should be), so that a caller writing several files writes none when one would fail.
 */
int wm_io_check_below(const char *root, const char *path, struct wm_error *err);
/*
 * An exclusive lock on the existing file `path` below `root`, found as
 * wm_io_write_below finds it (a symbolic link followed while it stays inside
 * the root and out of `.git`): flock(2) on the file itself, so that a read, a
 * wait and a write of one holder are not interleaved with another's.  Taken
 * again when the path names another file once it is had (a holder replaced
 * it).  WM_ESTATE, reported, when another process holds it.
 */
struct wm_io_lock {
	int fd;            /* the locked file, -1 when none */
	char *target;      /* its real path */
	char *shown;       /* `path`, for messages */
};
int wm_io_lock_below(struct wm_io_lock *out, const char *root, const char *path, struct wm_error *err);
void wm_io_unlock(struct wm_io_lock *l);
/*
 * Replaces the content of the locked file with `data`, only if it still is
 * the file that was locked and holds `expect` byte for byte (else WM_ESTATE,
 * reported, and nothing is written), keeping the file the user has: a
 * symbolic link's target is written, and the file keeps its owner, group and
 * mode.  A file of one link is replaced atomically: a temporary file beside
 * it, given the owner, group and mode, synced and renamed over it.  A file
 * of several hard links, or one whose owner a new file cannot be given (not
 * ours, and we are not root), is rewritten in place so that it stays the one
 * inode: after a copy of `expect` is synced beside it as
 * `.<name>.backup<random>`, removed once the file is written and synced (on a
 * failure the message names it).
 */
int wm_io_replace_locked(const struct wm_io_lock *l, const char *expect, size_t expect_len, const char *data,
	size_t len, struct wm_error *err);
/* The real path of the directory `path` ("" for the root) below `root`, confined as wm_io_read_below; 1 when none. */
int wm_io_dir_below(char **out, const char *root, const char *path, struct wm_error *err);

#endif
