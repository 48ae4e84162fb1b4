/* find.h — where the project is when the root holds none: what the workflows, the uv workspace and the tracked pyproject.toml files say (find.c). */
#ifndef WM_INIT_FIND_H
#define WM_INIT_FIND_H

#include "util/common.h"
#include "util/arena.h"

/* A maturin project found below the root (find.c), and why. */
struct wm_init_candidate {
	const char *pyproject;   /* relative to the root */
	const char *why;         /* what pointed at it: "FILE:LINE: ..." */
	bool evidence;           /* a workflow or the uv workspace pointed at it, not only the index */
};

struct wm_init_found {
	struct wm_arena arena;   /* owns everything below */
	struct wm_init_candidate *items;
	size_t n;
	bool missing;            /* the root's pyproject.toml is missing or is no project init can read */
};

/*
 * Where the project is when the root's pyproject.toml is not one maturin builds: the pyproject.toml
 * of the project the workflows' maturin builds build (maturin-action's `working-directory`, the
 * `--manifest-path` they pass maturin, a `run:` step's working directory), of the root's uv
 * workspace members, else of the tracked files `tracked` (pyproject.toml files, `ntracked` of the
 * `total` there are, in the order to read them, at most 64 read): each one whose build-backend is
 * maturin.  The files the workflows or the workspace point at win over those only tracked (a
 * test's fixture, an example).  Paths from the workflows are data: only plain relative paths
 * inside the repository are followed, the others noted in `err`.  Nothing is found when the root
 * is the project.  Only running out of memory fails.
 */
int wm_init_find(struct wm_init_found *out, const struct wm_reader *r, const char *const *tracked, size_t ntracked,
	size_t total, struct wm_error *err);
void wm_init_find_release(struct wm_init_found *f);

#endif
