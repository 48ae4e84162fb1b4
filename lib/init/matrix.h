/* matrix.h — the wheels of the workflows init replaces and of the release, as the matrix that builds them (matrix.c). */
#ifndef WM_INIT_MATRIX_H
#define WM_INIT_MATRIX_H

#include "util/common.h"
#include "util/arena.h"
#include "formats/yaml.h"
#include "workflow/builds.h"

#define WM_TAKEOVER_MAX 32  /* platforms and drops kept: more is no starting point */
#define WM_TAKEOVER_SETTINGS 16  /* the build settings a layer of the matrix carries, by matrix.c's table */

/* A wheel of the release, its tags as the index's file name gives them ('.'-separated sets). */
struct wm_published {
	const char *filename;
	const char *python, *abi, *platform;
	/* what matrix.c makes of it */
	const struct wm_platform *p;   /* the catalogue's platform, NULL when none is it (`why`) */
	char entry[16];                /* the matrix's Python entry: "3.12", "3.14t", "pp3.11", "graalpy3.11", "abi3" */
	unsigned abi3_minor;           /* of an abi3 wheel */
	const char *level;             /* a Linux wheel's manylinux or musllinux level (2_17 for 2014) */
	const char *why;               /* what the matrix cannot express of it, or NULL */
};

/* A platform the matrix builds, with the overrides that make it build the same wheels. */
struct wm_takeover_platform {
	const struct wm_platform *p;
	const char *level;      /* manylinux or musllinux level, when not the catalogue's; else NULL */
	const char *runner;     /* a runner label the catalogue does not know (self-hosted); else NULL */
	const char *container;  /* maturin-action's `container`; else NULL */
	const char *set[WM_TAKEOVER_SETTINGS];  /* the build settings every build there shares, by matrix.c's table */
	unsigned graalpy;       /* bit N: GraalPy 3.N built there */
	unsigned pypy;          /* bit N: PyPy 3.N built there */
	unsigned cpython[2];    /* bit N: CPython 3.N built there ([1]: free-threaded) */
	bool abi3;              /* the abi3 wheel built there */
};

/* Something the matrix does not build as the workflows do: "WHAT: WHY", in `file`. */
struct wm_takeover_drop {
	const char *file;
	const char *what;
};

/* One wheel build of a workflow init replaces, and what the matrix makes of it. */
struct wm_takeover_build {
	const struct wm_wf_build *b;
	const struct wm_platform *p;   /* NULL when no platform of the catalogue builds it (`note`) */
	const char *level;             /* its manylinux or musllinux level (2014 for maturin's `auto`), NULL off Linux */
	unsigned cpython[2], pypy;     /* the Python entries it builds */
	unsigned graalpy;              /* bit N: GraalPy 3.N */
	bool abi3;
	const char *note;              /* why its wheels are not the matrix's (a setting it cannot carry), or NULL */
	bool partial;                  /* some of its wheels are not the matrix's (GraalPy, a level it cannot take) */
	const char *partial_why;       /* the first of those: what */
	bool backend;                  /* it builds a backend's distribution (a workflow that names one): not the default's */
};

struct wm_takeover {
	struct wm_arena *arena;
	const struct wm_catalog *cat;
	const struct wm_project *project;
	struct wm_takeover_platform platforms[WM_TAKEOVER_MAX];
	size_t nplatforms;
	const char *before_script;    /* maturin-action's before-script-linux, the same in every build */
	const char *backend_set[WM_TAKEOVER_SETTINGS];  /* the default backend's build settings: those every build shares */
	struct wm_takeover_drop drops[WM_TAKEOVER_MAX];
	size_t ndrops;
	bool more_drops;              /* beyond WM_TAKEOVER_MAX */
	struct wm_takeover_build *builds;
	size_t nbuilds;
	const char *file;             /* the first workflow builds were read in */
	/* the release, when the index was asked: it decides what is built (wm_init_matrix_publish) */
	struct wm_published *published;
	size_t npublished;
	const char *release;          /* "name X.Y.Z", or NULL */
};

/*
 * Reads the wheel builds of the workflows of `b` that release (wm_builds_releases) into `t`: for
 * each, its platform, level and Python entries, and the settings that change what is compiled
 * that the matrix cannot carry (each a drop, and the build's note).  The builds of the workflows
 * `backends` names (those that build a backend's distribution) are read the same, but the
 * platforms and Python versions written are those of the others, the project's own.
 */
void wm_init_matrix_read(struct wm_takeover *t, struct wm_workflows *w, const struct wm_builds *b,
	const char *const *backends, size_t nbackends);
/*
 * The settings the matrix carries (features, profile, toolchain, zig, docker options, env, ...): a
 * value every build shares on the default backend, one a platform's builds share (the most of its
 * wheels) on that platform's entry, and the before-script-linux most builds use on the default
 * backend; a build that uses another, or a value the matrix file cannot take, is noted and dropped.
 */
void wm_init_matrix_carry(struct wm_takeover *t);
/*
 * The release decides what is built: each published wheel is read for its platform, level and
 * Python entry (or why the matrix cannot express it), a platform or entry the workflows build that
 * the release does not have is left out, and one it has that they do not build is added; each
 * difference is a drop that says so.
 */
void wm_init_matrix_publish(struct wm_takeover *t, struct wm_published *wheels, size_t n, const char *release);
/*
 * Writes what was read into the matrix `root`: `platforms` (with overrides), `python.versions` and
 * the excludes the runners need, and the default backend's features and before-script-linux
 * (`backends` already written).  Python versions PyO3 or the matrix cannot build become drops.
 * Nothing is written when nothing was read: the matrix keeps its defaults.
 */
void wm_init_matrix_write(struct wm_takeover *t, struct wm_yb *b, struct wm_y *root);
/*
 * Why a published wheel is not what the matrix builds: what the matrix cannot express of it, else
 * the note of a build that makes it; NULL when nothing is known against it.  `*workflow` is the
 * workflow whose build makes it (NULL when none is known).
 */
const char *wm_init_matrix_why(const struct wm_takeover *t, const struct wm_published *w, const char **workflow);
/* Whether a job of `m` makes a wheel of `filename`'s tags (its Python, ABI and platform tag each in the name's sets). */
bool wm_init_matrix_made(const struct wm_matrix *m, const char *filename);
/* Whether the workflow `path` builds wheels the matrix does not (a build's note, or one init cannot read). */
bool wm_init_matrix_keeps(const struct wm_takeover *t, const char *path);

#endif
