/* workflows.h — a repository's GitHub workflows read as GitHub runs them: jobs, combinations, steps (workflows.c). */
#ifndef WM_WORKFLOW_WORKFLOWS_H
#define WM_WORKFLOW_WORKFLOWS_H

#include "util/common.h"
#include "util/arena.h"
#include "formats/yaml.h"
#include "workflow/combos.h"
#include "workflow/eval.h"
#include "workflow/script.h"

/* The events a workflow runs on, as far as a release goes. */
enum {
	WM_WF_TAG = 1,        /* a push of a tag (a push without a filter, or with a tags filter) */
	WM_WF_RELEASE = 2,    /* a release */
	WM_WF_CALL = 4,       /* called by another workflow (workflow_call) */
	WM_WF_MANUAL = 8,     /* workflow_dispatch */
	WM_WF_OTHER = 16,     /* a pull request, a branch push, a schedule, ... */
};

/* Something the reader could not read, at its position: init says it (a note), and judges nothing by it. */
struct wm_workflows_note {
	const char *file;
	unsigned line, column;
	const char *text;
};

struct wm_wf_scope;

/* A step as one combination of a job runs it; a composite action's steps are in its place. */
struct wm_wf_step {
	const struct wm_node *node;      /* the step's mapping */
	const char *file;                /* where it is written: a workflow, or a local action's action.yml */
	const char *uses;                /* `uses:` as written, or NULL (a `run:` step) */
	const char *via;                 /* the local actions it is reached through ("./.github/actions/x"), or NULL */
	const struct wm_wf_scope *scope; /* where its expressions are evaluated */
	enum wm_truth runs;              /* its `if:` (and its actions') in a release run */
	enum wm_shell shell;             /* a `run:` step's */
	const struct wm_node *working_directory;  /* a `run:` step's own, else its job's or workflow's defaults.run */
};

/* One combination of a job (a called workflow's jobs under each combination of their caller). */
struct wm_wf_run {
	const char *file;                /* the workflow GitHub starts: the caller's when called */
	const char *job;                 /* its job id; a called workflow's job is "caller/called" */
	const char *job_file;            /* where the job is written */
	const struct wm_node *job_node;
	const struct wm_combo *matrix;   /* its combination (no keys without a strategy.matrix) */
	size_t combo;                    /* which, of its job's */
	struct wm_val runner;            /* runs-on, evaluated */
	const char *label;               /* runs-on when it is one label, else NULL */
	int os;                          /* enum wm_os, or -1 when the runner does not say */
	const char *arch;                /* "x86_64" or "aarch64" when the runner says, else NULL */
	const char *container;           /* the job's container image, or NULL */
	enum wm_truth runs;              /* the job's `if:` (and its caller's) in a release run */
	unsigned events;                 /* WM_WF_* of the workflow GitHub starts */
	struct wm_wf_step *steps;
	size_t nsteps;
};

/* A workflow file of .github/workflows/. */
struct wm_wf_file {
	const char *path;
	unsigned events;                 /* WM_WF_* */
	const struct wm_doc *doc;        /* NULL when it could not be read */
	bool skipped;                    /* the caller's skip() said so (a file wheelmatrix wrote) */
	bool partial;                    /* some of what it runs was not read (a note says what) */
};

struct wm_workflows_options {
	/* a workflow to leave out (one wheelmatrix generated), or NULL for none */
	bool (*skip)(void *ctx, const char *path, const char *text, size_t len);
	void *skip_ctx;
	const struct wm_catalog *cat;    /* for the runner labels GitHub hosts; NULL: none known */
};

struct wm_workflows {
	struct wm_arena arena;           /* owns everything below */
	struct wm_eval eval;             /* what callers evaluate steps' values with */
	struct wm_wf_file *files;        /* .github/workflows/ in path order */
	size_t nfiles;
	struct wm_wf_run *runs;          /* every workflow's jobs' combinations, in file and job order */
	size_t nruns;
	struct wm_workflows_note *notes;
	size_t nnotes;
	size_t unplain;                  /* files passed over for their names */
	struct {                         /* the first file read with a raw NEL, LINE or PARAGRAPH SEPARATOR */
		const char *path;            /* NULL: none */
		unsigned line, column;
		uint32_t cp;
	} hidden;
	struct wm_workflows_priv *priv;
};

/*
 * Reads the workflows of .github/workflows/ below the root of `r` (at most 256; each within 1 MiB
 * and 64 levels of nesting), with the local actions (`uses: ./path`) and the workflows they call
 * (`uses: ./.github/workflows/x.yml`) they use, followed to 10 levels with a cycle guard.  A file
 * that cannot be read or parsed is a note; only running out of memory fails.  The caller frees
 * *out with wm_workflows_free, also on failure.
 */
int wm_workflows_read(struct wm_workflows **out, const struct wm_reader *r, const struct wm_workflows_options *o,
	struct wm_error *err);
void wm_workflows_free(struct wm_workflows *w);

/* A value of a step (`node`, under its step or action), with its `${{ }}` evaluated where the step runs. */
void wm_workflows_value(struct wm_val *out, struct wm_workflows *w, const struct wm_wf_step *s, const struct wm_node *node);
/* `with.<key>` of a step, evaluated (null when absent); an action's input default is its action's. */
void wm_workflows_with(struct wm_val *out, struct wm_workflows *w, const struct wm_wf_step *s, const char *key);
/* A step's script with its `${{ }}` evaluated: those not known are "\x01<i>\x01", named in *unknowns (n). */
const char *wm_workflows_script(struct wm_workflows *w, const struct wm_wf_step *s, const char ***unknowns, size_t *n);
/* The same of a `with:` input's value (maturin-action's args): NULL when it is not a scalar. */
const char *wm_workflows_with_text(struct wm_workflows *w, const struct wm_wf_step *s, const char *key,
	const char ***unknowns, size_t *n);
/* The environment a step's command sees, for wm_script_read. */
void wm_workflows_script_env(struct wm_script_env *out, struct wm_workflows *w, const struct wm_wf_step *s);
/* The value of the environment variable `name` where the step runs: 1 set (*value), 0 not set, -1 not known (*why). */
int wm_workflows_env(struct wm_workflows *w, const struct wm_wf_step *s, const char *name, size_t len, const char **value,
	const char **why);
/* The names of the variables the step's environment sets (the workflow's, the job's, its own, $GITHUB_ENV's), in the arena. */
size_t wm_workflows_env_names(const char ***out, struct wm_workflows *w, const struct wm_wf_step *s);
/* Whether a step of `run` runs on `event` (WM_WF_TAG or WM_WF_RELEASE): its job's and its own `if:`. */
enum wm_truth wm_workflows_runs_on(struct wm_workflows *w, const struct wm_wf_run *run, const struct wm_wf_step *s,
	unsigned event);
/* Adds a note at a node of `file` (copied). */
void wm_workflows_note(struct wm_workflows *w, const char *file, const struct wm_node *at, const char *fmt, ...) WM_PRINTF(4, 5);
/*
 * The column (1-based, in characters) where `text` first starts on line `line` of the file `file`
 * as read (a script's command line in its block), or 0 when it is not there.
 */
unsigned wm_workflows_column(const struct wm_workflows *w, const char *file, unsigned line, const char *text);
/* An action's name without its ref, lower case ("pyo3/maturin-action"), in the arena; NULL for none. */
const char *wm_workflows_action(struct wm_workflows *w, const struct wm_wf_step *s);

#endif
