/* outdated.h — what the generated CI pins against the newest releases upstream (outdated.c). */
#ifndef WM_INDEX_OUTDATED_H
#define WM_INDEX_OUTDATED_H

#include "util/common.h"

enum wm_outdated_kind {
	WM_OUTDATED_ACTION, WM_OUTDATED_TOOL, WM_OUTDATED_RUNNER, WM_OUTDATED_TOOLKIT,
	WM_OUTDATED_RUNTIME,    /* an action's runtime (runs.using of its action.yml, and its composite steps') */
	WM_OUTDATED_PYO3,       /* the crate's pyo3, and the PyO3 table's pyo3-ffi and pyo3-build-config */
	WM_OUTDATED_PYTHON,     /* a CPython or PyPy version the jobs build for */
};
enum wm_outdated_state {
	WM_OUTDATED_CURRENT,    /* the newest of its kind (or a floating major tag of the newest major) */
	WM_OUTDATED_MINOR,      /* a newer release of the same major version */
	WM_OUTDATED_MAJOR,      /* a newer major version */
	WM_OUTDATED_RETIRING,   /* a runner label (a CPython) with a retirement (end of life) day not passed */
	WM_OUTDATED_RETIRED,    /* past that day; an action whose runtime the runners no longer have */
	WM_OUTDATED_UNKNOWN,    /* could not be learnt: `why` says why */
	WM_OUTDATED_MISSING,    /* the pinned tag or version does not exist upstream */
	WM_OUTDATED_SELF_HOSTED, /* a runner label that is not GitHub's: nothing to check */
};

struct wm_outdated_item {
	enum wm_outdated_kind kind;
	const char *name;             /* owner/name, a PyPI project, a runner label, a toolkit id, a crate, CPython */
	const char *pin;              /* what the generated CI uses: a tag, a version, a label */
	const char *latest_major;     /* the newest release of the pin's major version, NULL when unknown */
	const char *latest;           /* the newest release (a runtime: runs.using upstream), NULL when unknown */
	const char *catalog;          /* what wheelmatrix's catalogue knows: its newest release, a runtime; or NULL */
	const char *source;           /* where upstream was read (a URL as shown), or NULL */
	const char *retires;          /* a runner's retirement day, a CPython's end of life, or NULL */
	const char *instead;          /* a retiring runner's successor, or NULL */
	enum wm_outdated_state state;
	const char *why;              /* WM_OUTDATED_UNKNOWN: the reason */
	const char *note;             /* another state's explanation (a gone runtime, a missing tag), or NULL */
};

struct wm_outdated_options {
	const char *index;            /* NULL: WM_PLAN_INDEX; tools' and toolkits' PEP 691 pages */
	const char *forge;            /* NULL: WM_PIN_FORGE; tags, and action.yml as <forge>/<owner>/<name>/raw/<ref>/ */
	const char *crates;           /* NULL: WM_OUTDATED_CRATES; crates.io's sparse index */
	const char *python;           /* NULL: WM_OUTDATED_PYTHON_RELEASES; CPython's release-cycle JSON */
	unsigned jobs, retries;
	long timeout_ms, connect_timeout_ms;
	unsigned backoff_ms;
	size_t max_bytes;
	const char *cacert, *netrc, *username, *password;  /* username and password: the index's */
};
#define WM_OUTDATED_CRATES "https://index.crates.io/"
#define WM_OUTDATED_PYTHON_RELEASES "https://peps.python.org/api/release-cycle.json"
void wm_outdated_options_init(struct wm_outdated_options *o);

struct wm_outdated {
	struct wm_arena *arena;
	struct wm_outdated_item *items;   /* actions and runtimes, tools, runners, toolkits, PyO3, Pythons */
	size_t n;
	struct wm_pin *pin;               /* the actions, asked through pin */
	const struct wm_catalog *cat;
	const struct wm_matrix *matrix;   /* NULL: the catalogue's own facts */
};
/*
 * What the generated CI of `m` pins: its actions and their runtimes, tools, runner labels,
 * toolkit versions, the crate's PyO3 and the PyO3 table's crates, and its Python versions.  With
 * `m` NULL, the catalogue's own: every action and tool, its platforms' runner labels, each toolkit's and
 * the PyO3 table's newest, and the default Python versions.
 */
int wm_outdated_new(struct wm_outdated **out, const struct wm_matrix *m, const struct wm_catalog *cat,
	struct wm_error *err);
/*
 * Asks the forge for the actions' tags and action.yml, the index for the tools' and toolkits'
 * versions, crates.io's index for PyO3's, and CPython's release cycle, in concurrent batches, and
 * sets each item's state.  Failures are set in their item (unknown, with the reason); the return
 * value is 0, or WM_EINVALID (a bad URL), WM_EREAD (a CA file), WM_EIO (no libcurl), WM_ENOMEM.
 */
int wm_outdated_query(struct wm_outdated *o, const struct wm_outdated_options *opts, struct wm_error *err);
/* How many items could not be checked, and one line saying which and why (NULL when none). */
size_t wm_outdated_unchecked(const struct wm_outdated *o, const char **summary);
enum wm_outdated_format { WM_OUTDATED_TABLE, WM_OUTDATED_JSON };
/* The report (malloc'd, the caller's); every text from outside shown safely in the table. */
int wm_outdated_render(char **out, size_t *len, const struct wm_outdated *o, enum wm_outdated_format format);
const char *wm_outdated_state_name(enum wm_outdated_state s);
void wm_outdated_free(struct wm_outdated *o);

#endif
