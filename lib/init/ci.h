/* ci.h — the repository's CI as evidence: the distributions it publishes and the workflows that build them (ci.c). */
#ifndef WM_INIT_CI_H
#define WM_INIT_CI_H

#include "util/common.h"
#include "util/arena.h"
#include "workflow/builds.h"
#include "workflow/workflows.h"

#define WM_INIT_MAX_FOUND 32   /* workflows and distributions kept: more is no starting point */

/* A backend the project already publishes: the distribution `<name>-<id>` and the features it is built with. */
struct wm_init_backend {
	const char *id;
	const char *dist;         /* as the file spells it */
	const char *file;         /* where it was seen */
	const char **features;    /* Cargo features of the project, from the same file */
	size_t nfeatures;
	unsigned oses;            /* 1 << enum wm_os of the runners its workflow builds on; 0: not known */
};

/* A workflow that builds wheels in a release: the generated one replaces it, or not. */
struct wm_init_built {
	const char *path;
	const char *backends;     /* "llm-rs-cuda, backend 'cuda'" when it builds backends' distributions, else NULL */
	const char *publisher;    /* how it uploads to an index on a tag push or a release, or NULL */
	const char *event;
};

struct wm_init_ci {
	bool github;              /* .github/ is there */
	bool gitlab;              /* .gitlab-ci.yml, written by wheelmatrix */
	bool gitlab_own;          /* the project's own .gitlab-ci.yml: generate would not replace it */
	struct wm_init_built built[WM_INIT_MAX_FOUND];
	size_t nbuilt;
	const char *tests[WM_INIT_MAX_FOUND];  /* workflows that build wheels but release none (tests, benchmarks, manual builds) */
	size_t ntests;
	struct wm_init_backend backends[WM_INIT_MAX_FOUND];
	size_t nbackends;
	size_t unplain;           /* files passed over for their names */
};

/*
 * What the CI says (`w` and `b` its workflows read): the providers it uses, the workflows that
 * build wheels in a release, and the backends the project publishes as distributions of their own
 * (`<name>-<suffix>` named in the workflows and in scripts/, build_scripts/ and ci/).
 */
void wm_init_ci_scan(struct wm_init_ci *ci, struct wm_arena *a, const struct wm_reader *r, const struct wm_project *p,
	struct wm_workflows *w, const struct wm_builds *b);
/* Whether the text of a workflow or script is one wheelmatrix generated (its header), edited since or not. */
bool wm_init_ci_generated(void *ctx, const char *path, const char *text, size_t len);

/*
 * The directory of the project a build builds ("" for the root), from its working directory and
 * --manifest-path (maturin's src layout: rust/Cargo.toml is its parent's); NULL when not known or
 * not a plain relative path inside the repository (*why).
 */
const char *wm_init_ci_project(struct wm_arena *a, const struct wm_wf_build *b, const char **manifest, const char **why);

#endif
