/* file.h — the files `generate` writes: a header recording the body's digest, and the state of the copy on disk (file.c). */
#ifndef WM_EMIT_FILE_H
#define WM_EMIT_FILE_H

#include "util/common.h"

/*
 * A file `generate` writes: a fixed header of comment lines (the only bytes
 * not written by the YAML emitter), then the body.  The header records a
 * SHA-256 digest of the body with line endings normalised to LF, so that a
 * stale file (digest matches its body, body differs from ours) can be told
 * from a hand-edited one (digest does not match its own body).
 */
struct wm_file {
	char *path;   /* relative to the repository root, '/'-separated (owned) */
	char *data;   /* header and body (owned) */
	size_t len;
};

struct wm_files {
	struct wm_file *items;
	size_t n, cap;
};

void wm_files_init(struct wm_files *files);
void wm_files_release(struct wm_files *files);

/*
 * Appends a file made of the header and `body`.  `matrix_file` is the matrix
 * file's path relative to the root, named in the header and in the
 * regenerate command.  Copies everything it is given.
 */
int wm_files_add(struct wm_files *files, const char *path, const char *matrix_file,
	const char *body, size_t len);

enum wm_file_state {
	WM_FILE_MISSING,  /* no file there */
	WM_FILE_CURRENT,  /* ours and equal to what we would write (line endings aside) */
	WM_FILE_STALE,    /* ours, untouched since written, but out of date */
	WM_FILE_EDITED,   /* ours, but its body no longer matches its digest: edited by hand */
	WM_FILE_FOREIGN,  /* not written by wheelmatrix: no header */
};

/* Compares `f` with existing content (NULL = no file). */
enum wm_file_state wm_file_compare(const struct wm_file *f, const char *existing, size_t len);
/*
 * Compares `f` with the file at root/f->path on disk; an error when that file
 * could not be written there (wm_file_write would fail: a symbolic link that
 * leads out of the repository, into `.git` or to nothing), so that a caller
 * that decides every file before writing one writes nothing when one would fail.
 */
int wm_file_state(enum wm_file_state *out, const char *root, const struct wm_file *f, struct wm_error *err);
/*
 * A git-format diff (malloc'd, *outlen bytes) that turns `existing` (NULL:
 * no file there) into `f`, in the direction black and ruff show a change:
 * `---` the file as it is, `+++` what generate writes, so that `git apply`
 * or `patch -p1` on the current file gives the generated one.
 */
int wm_file_diff(char **out, size_t *outlen, const struct wm_file *f, const char *existing, size_t len);
/* wm_file_state, and the file's diff (wm_file_diff) in *diff: NULL when it is current. */
int wm_file_state_diff(enum wm_file_state *out, char **diff, size_t *difflen, const char *root,
	const struct wm_file *f, struct wm_error *err);
/*
 * Writes `f` under the directory `root`, creating parent directories:
 * atomically (a temporary file in the same directory, then rename), never
 * outside root (no absolute path, no `..`, no symbolic link leading out).
 */
int wm_file_write(const char *root, const struct wm_file *f, struct wm_error *err);

#endif
