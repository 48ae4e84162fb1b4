/* builds.h — what the workflows build and upload: maturin-action's and the scripts' wheel builds, the uploads (builds.c). */
#ifndef WM_WORKFLOW_BUILDS_H
#define WM_WORKFLOW_BUILDS_H

#include "util/common.h"
#include "workflow/maturin.h"
#include "workflow/workflows.h"

enum wm_wf_build_kind {
	WM_BUILD_ACTION,     /* maturin-action */
	WM_BUILD_MATURIN,    /* maturin on a command line (maturin, python -m maturin, uvx maturin, ...) */
	WM_BUILD_PEP517,     /* pip wheel, python -m build, uv build: maturin through the build backend */
};

/*
 * One wheel build (or an sdist's) of one job combination, with what the workflow says of it: each
 * value as the workflow gives it, NULL when it does not.  `unknown` names the first value the build
 * depends on that is not known before the job runs, and where.
 */
struct wm_wf_build {
	const struct wm_wf_run *run;
	const struct wm_wf_step *step;
	const char *file;                /* where: the step's `uses:`, or the script's command line */
	unsigned line, column;
	enum wm_wf_build_kind kind;
	const char *command;             /* maturin's: build, publish, sdist, develop, ...; "wheel" for a PEP 517 build */
	bool sdist;                      /* it builds an sdist (maturin sdist, build --sdist, maturin build --sdist) */
	bool wheel;                      /* it builds a wheel */
	const char *target;              /* maturin-action's `target`, else --target */
	const char *manylinux;           /* maturin-action's `manylinux`, NULL when not given */
	const char *container;           /* maturin-action's `container` */
	const char *docker_options;
	const char *toolchain;           /* maturin-action's `rust-toolchain` */
	const char *before_script;       /* maturin-action's `before-script-linux` */
	const char *working_directory;   /* maturin-action's, or the `run:` step's */
	const char *project;             /* a PEP 517 build's path argument (".", a directory, an sdist), or NULL */
	struct wm_maturin args;          /* maturin's command line (a PEP 517 build's: none) */
	struct wm_strs pythons;          /* setup-python's (or setup-uv's) python-version before it, the last the one on the PATH */
	const char *pythons_unknown;     /* why those are not known, or NULL */
	const char **env;                /* NAME=value of what the build's environment sets (known values) */
	size_t nenv;
	const char **env_unknown;        /* NAME of what it sets to a value not known */
	size_t nenv_unknown;
	const char *unknown;             /* what it depends on that is not known (runner, target, level, arguments), or NULL */
	const char *interpreters_unknown;/* `unknown` when all it names is an -i value (the interpreters), else NULL */
	const char *settings_unknown;    /* a setting not known (rust-toolchain, docker-options, container, before-script-linux), or NULL */
	const char *bad;                 /* a command line that cannot be read (maturin has no such option), or NULL */
};

/* A step that uploads: to a package index, or to a GitHub release. */
struct wm_upload {
	const struct wm_wf_run *run;
	const struct wm_wf_step *step;
	const char *file;
	unsigned line, column;
	const char *how;                 /* "pypa/gh-action-pypi-publish", "maturin-action's command: upload", "uv publish", ... */
	bool index;                      /* a package index (else a GitHub release) */
	unsigned events;                 /* WM_WF_TAG and WM_WF_RELEASE: the release events it may run on */
	const char *environment;         /* its job's deployment environment (`environment:`, or its `name:`), or NULL */
	const char *environment_unknown; /* why that is not known (an expression of a value not known), or NULL */
	const char *environment_file;    /* where `environment:` is written (the job's file), when it is */
	unsigned environment_line, environment_column;
};

struct wm_builds {
	struct wm_wf_build *items;
	size_t n;
	struct wm_upload *uploads;
	size_t nuploads;
};

/*
 * The builds and uploads of every run of `w` whose steps may run in a release (those whose `if:`
 * is false there are left out), in run and step order.  Memory from w's arena; only running out
 * of memory fails.
 */
int wm_builds_read(struct wm_builds *out, struct wm_workflows *w);
/* Whether the file `path` uploads to an index or a GitHub release on a tag push or a release. */
bool wm_builds_releases(const struct wm_builds *b, const char *path);

#endif
