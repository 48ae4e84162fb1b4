/* init.h — a first matrix from the project, its CI and its release; the workflows it replaces, which check reads too (init.c). */
#ifndef WM_INIT_INIT_H
#define WM_INIT_INIT_H

#include "util/common.h"
#include "util/arena.h"
#include "init/matrix.h"
#include "workflow/builds.h"
#include "workflow/workflows.h"

/*
 * The schema `init` names in the matrix's first line (docs/init.md): the JSON Schema Store's copy
 * of this version's schema, which docs/schemastore/ prepares for submission; a URL that means the
 * same on every clone of a project, where a path of the machine that ran `init` would not.
 * `make SCHEMA_URL=...` names another, for a package that publishes the schema itself.
 */
#ifdef WM_SCHEMA_URL
#define WM_INIT_SCHEMA_URL WM_SCHEMA_URL
#else
#define WM_INIT_SCHEMA_URL "https://json.schemastore.org/wheelmatrix-" WM_VERSION ".json"
#endif

/* A job of a workflow that publishes, and whether the generated workflow does all it does. */
struct wm_init_job {
	const char *id;
	unsigned line, column;
	bool replaced;           /* it builds or uploads the matrix's distributions as the matrix does, and nothing else */
};

/*
 * One of the project's own workflows that publishes (`.github/workflows/NAME.yml`, not written by
 * wheelmatrix, uploading to an index on a tag push or a release): init lists it as one the
 * generated workflow replaces only when nothing it builds is lost; check reports it.
 */
struct wm_init_workflow {
	const char *path;
	const char **dists;      /* the distributions it builds: those of the project it names, else the project's own */
	size_t ndists;
	const char *publisher;   /* what uploads them to an index on a tag push or a release ("uv publish"), or NULL */
	const char *event;       /* then: "a tag push" or "a release" */
	unsigned line, column;   /* then: where (the step's action, command or script line) */
	const char *job;         /* then: the job that uploads */
	struct wm_init_job *jobs;
	size_t njobs;
	bool builds;             /* it builds wheels */
	bool others;             /* every build of it builds another project than the matrix's */
	bool partial;            /* part of what it runs is not read (a bound, a file that cannot be read) */
	const char **lost;       /* wheels it builds that the matrix does not, each said */
	size_t nlost;
};

struct wm_init_workflows {
	struct wm_arena arena;   /* owns everything below */
	struct wm_init_workflow *items;
	size_t n;
	struct wm_workflows *read;
};

/*
 * The project's own publishing workflows below the root of reader `r`, in path order.  `name` is
 * the project's distribution, `p` the project (NULL: no Cargo features to tell a backend's suffix
 * by), `known` the other distributions to look for in each workflow (the matrix's); `skip`, when
 * not NULL, a path not to read (the workflow generate writes).  With `m`, each workflow's wheels
 * the matrix does not build are listed (its builds read against m's jobs, and the wheels `record`
 * names: the lines "#   lost: FILE (WORKFLOW)" of the matrix file's header, when m's jobs still
 * make none of them).  Workflows are evidence: one that cannot be read is passed over; only
 * running out of memory fails.  The caller releases `out` with wm_init_ci_workflows_release.
 */
int wm_init_ci_workflows(struct wm_init_workflows *out, const struct wm_reader *r, const char *name,
	const struct wm_project *p, const char *const *known, size_t nknown, const char *skip, const struct wm_matrix *m,
	const char *record, size_t record_len, struct wm_error *err);
void wm_init_ci_workflows_release(struct wm_init_workflows *w);

/* A published wheel's verdict, once judged (index/takeover.c). */
struct wm_init_verdict {
	bool reproduced;
	const char *why;         /* not reproduced: why */
	const char *workflow;    /* the workflow whose build makes it, or NULL */
	const char *predicted;   /* the matrix's file of the same slot, when its name differs */
	const char *job;         /* reproduced: the matrix's job that builds it */
};

/* init's state: the project, its CI, the takeover, the release and its judgement. */
struct wm_init {
	struct wm_arena arena;
	struct wm_catalog *cat;
	struct wm_project *project;
	struct wm_workflows *workflows;
	struct wm_builds builds;
	struct wm_takeover takeover;
	struct wm_init_ci *ci;
	/* the release, when the index was asked (index/takeover.c) */
	const char *index;           /* as shown: no credentials */
	const char *version;         /* the newest release's version, or NULL: not on the index, or offline */
	bool offline, absent;        /* --offline; the project is not on the index */
	struct wm_published *published;
	struct wm_init_verdict *verdicts;
	size_t npublished;
	size_t reproduced;
	bool judged;
	struct wm_reader reader;     /* the repository's files */
	/* the matrix written */
	char *body;
	size_t body_len;
};

/* The release's wheels (in in->arena, their verdicts empty): what wm_init_matrix_publish reads. */
void wm_init_set_release(struct wm_init *in, struct wm_published *wheels, size_t n, const char *version);
/* The matrix's body (no header) into in->body: what the judgement loads. */
int wm_init_render_body(struct wm_init *in, struct wm_error *err);
/* Whether the workflow `path` loses nothing: none of its builds carries a note, and no lost wheel is its. */
bool wm_init_replaced(const struct wm_init *in, const char *path);
#endif
