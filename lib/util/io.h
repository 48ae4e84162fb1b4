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
/* The real path of the directory `path` ("" for the root) below `root`, confined as wm_io_read_below; 1 when none. */
int wm_io_dir_below(char **out, const char *root, const char *path, struct wm_error *err);

#endif
