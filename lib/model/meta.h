/* meta.h — strategy meta in the model: the project layout scan and the backends' module names (meta.c). */
#ifndef WM_MODEL_META_H
#define WM_MODEL_META_H

#include "util/common.h"
#include "util/arena.h"

#define WM_META_DIR ".wheelmatrix/meta"                /* the meta package */
#define WM_META_BACKENDS_DIR ".wheelmatrix/backends"    /* each backend's python-source */

/* A file of the project that the meta package carries. */
struct wm_meta_file {
	const char *from;           /* repository-relative */
	const char *to;             /* below .wheelmatrix/meta/ */
	const char *data;
	size_t len;
};

struct wm_meta {
	const char *version;        /* the project's, as PEP 440 writes it: every pin */
	const char *package;        /* the top import package (llm_rs) */
	const char *leaf;           /* the native module's last name, whose PyInit_ symbol stays */
	const char *env;            /* LLM_RS_BACKEND */
	const char *project_dir;    /* pyproject.toml's directory, "" at the root */
	bool mixed;                 /* maturin's mixed layout: a Python package beside the native module */
	const char *source_dir;     /* where that package is (or would be) */
	const char *dispatcher;     /* its path below .wheelmatrix/meta/ */
	struct wm_meta_file *files;
	size_t nfiles;
};

/*
 * Finds the layout of `m`'s project with maturin's rules (python-source; src/
 * when the crate is in another directory; else beside pyproject.toml) and
 * reads the Python files the meta package carries through `r`.  Errors: no
 * version to pin, a dotted module without a Python package.
 */
int wm_meta_scan(const struct wm_meta **out, struct wm_arena *a, const struct wm_matrix *m,
	const struct wm_reader *r, struct wm_error *err);
/* Backend `b`'s import package (_llm_rs_cuda), module-name and python-source under meta (arena-allocated). */
const char *wm_meta_import(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b);
const char *wm_meta_module_name(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b);
const char *wm_meta_python_source(struct wm_arena *a, const struct wm_backend *b);

/* `dir`/`name` with `.` and `..` resolved, as git names a path (arena-allocated); NULL when it climbs above the root. */
const char *wm_meta_path(struct wm_arena *a, const char *dir, const char *name);

#endif
