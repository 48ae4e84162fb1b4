/* init.h — the project's own wheel workflows as init reads them, for check too (init.c). */
#ifndef WM_EMIT_INIT_H
#define WM_EMIT_INIT_H

#include "util/common.h"
#include "util/arena.h"

/*
 * One of the project's own workflows that build wheels (`.github/workflows/NAME.yml` or `.yaml`,
 * not written by wheelmatrix, running maturin or its action): init lists it as one the generated
 * workflow replaces.
 */
struct wm_init_workflow {
	const char *path;
	const char **dists;     /* the distributions it builds: those of the project it names, else the project's own */
	size_t ndists;
	const char *publisher;  /* what uploads them to an index on a tag push or a release ("uv publish"), or NULL */
	const char *event;      /* then: "a tag push" or "a release" */
	unsigned line, column;  /* then: where, in the workflow (the step's action, command or script line) */
};

struct wm_init_workflows {
	struct wm_arena arena;  /* owns everything below */
	struct wm_init_workflow *items;
	size_t n;
};

/*
 * The project's own wheel workflows below the root of reader `r`, in path order.  `name` is the
 * project's distribution (pyproject.toml's [project].name), `p` the project (NULL: no Cargo
 * features to tell a backend's suffix by), `known` the other distributions to look for in each
 * workflow (the matrix's); `skip`, when not NULL, a path not to read (the workflow generate
 * writes, which check compares as a generated file).  Workflows are evidence: one that cannot be
 * read or parsed is passed over; only running out of memory fails.  The caller releases `out` with
 * wm_init_workflows_release, also on failure.
 */
int wm_init_workflows_scan(struct wm_init_workflows *out, const struct wm_reader *r, const char *name,
	const struct wm_project *p, const char *const *known, size_t nknown, const char *skip, struct wm_error *err);
void wm_init_workflows_release(struct wm_init_workflows *w);

/* A maturin project found below the root (init_find.c), and why. */
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
 * of maturin-action's `working-directory` or of the `--manifest-path` (`-m`) the workflows pass
 * maturin, of the root's uv workspace members, else of the tracked files `tracked` (pyproject.toml
 * files, `ntracked` of the `total` there are, in the order to read them, at most 64 read): each one
 * whose build-backend is maturin.  The files the workflows or the workspace point at win over those
 * only tracked (a test's fixture, an example).  Paths from the
 * workflows are data: only plain relative paths inside the repository are followed, the others
 * noted in `err`.  Nothing is found when the root is the project.  Only running out of memory fails.
 */
int wm_init_find(struct wm_init_found *out, const struct wm_reader *r, const char *const *tracked, size_t ntracked,
	size_t total, struct wm_error *err);
void wm_init_find_release(struct wm_init_found *f);

#endif
