/* init_matrix.h — the build matrix of the workflows init replaces, read back as a wheelmatrix matrix (init_matrix.c). */
#ifndef WM_EMIT_INIT_MATRIX_H
#define WM_EMIT_INIT_MATRIX_H

#include "util/common.h"
#include "util/arena.h"
#include "formats/yaml.h"

#define WM_TAKEOVER_MAX 32  /* platforms and drops kept: more is no starting point */

/* A platform one of the workflows builds on, with the overrides that make it build the same wheels. */
struct wm_takeover_platform {
	const struct wm_platform *p;
	const char *level;      /* manylinux or musllinux level, when not the catalogue's; else NULL */
	const char *runner;     /* a runner label the catalogue does not know (self-hosted); else NULL */
	const char *container;  /* maturin-action's `container`; else NULL */
	unsigned pypy;          /* bit N: PyPy 3.N built there */
	unsigned cpython[2];    /* bit N: CPython 3.N named there ([1]: free-threaded) */
	bool find;              /* --find-interpreter there: every CPython the crate builds */
};

/* Something a workflow builds that the matrix cannot express: "drops WHAT: WHY", in `file`. */
struct wm_takeover_drop {
	const char *file;
	const char *what;
};

struct wm_takeover {
	struct wm_arena *arena;
	const struct wm_catalog *cat;
	const struct wm_project *project;
	struct wm_takeover_platform platforms[WM_TAKEOVER_MAX];
	size_t nplatforms;
	bool find_interpreter;        /* --find-interpreter: every CPython the crate builds for */
	unsigned cpython[2];          /* bit N: CPython 3.N named (-i, python-version); [1]: free-threaded */
	unsigned pypy;                /* bit N: PyPy 3.N, from -i pypy3.N of the step being read */
	const char *before_script;    /* maturin-action's before-script-linux, the same in every job */
	bool before_script_differs;
	struct wm_takeover_drop drops[WM_TAKEOVER_MAX];
	size_t ndrops;
	bool more_drops;              /* beyond WM_TAKEOVER_MAX */
	size_t jobs;                  /* maturin-action wheel builds read */
	const char *file;             /* the first workflow they were read in */
};

/* Reads the wheel builds of one workflow (`root`, parsed, bounded) of the file `path` into `t`. */
void wm_init_matrix_read(struct wm_takeover *t, const char *path, const struct wm_node *root);
/*
 * Writes what was read into the matrix `root`: `platforms` (with overrides), `python.versions` and
 * the excludes the runners need, and the default backend's before-script-linux (`backends`
 * already written).  Python versions PyO3 or the matrix cannot build become drops.  Nothing is
 * written when no build was read: the matrix keeps its defaults.
 */
void wm_init_matrix_write(struct wm_takeover *t, struct wm_yb *b, struct wm_y *root);

#endif
