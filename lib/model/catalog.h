/* catalog.h — platforms, toolkits, actions and tools from templates/, and the embedded templates (catalog.c). */
#ifndef WM_MODEL_CATALOG_H
#define WM_MODEL_CATALOG_H

#include "util/common.h"
#include "util/arena.h"
#include "formats/yaml.h"

/* The closest platform id or alias target for a misspelt id, or NULL. */
const char *wm_catalog_suggest_platform(const struct wm_catalog *cat, const char *word);
const char *wm_catalog_suggest_toolkit(const struct wm_catalog *cat, const char *word);
/* The default reference of an action of templates/actions.yaml ("v4"), or NULL when not listed. */
const char *wm_catalog_action(const struct wm_catalog *cat, const char *name);
/* The actions of templates/actions.yaml, in its order. */
size_t wm_catalog_action_count(const struct wm_catalog *cat);
const char *wm_catalog_action_name(const struct wm_catalog *cat, size_t i);
const char *wm_catalog_suggest_action(const struct wm_catalog *cat, const char *word);
/*
 * The runtime of action@`ref` from templates/actions.yaml's `runtimes` ("node24", "docker",
 * "composite"), a version tag read as its major; NULL when the table does not know it.  `why`
 * gets NULL, or, when it or an action its composite steps use runs on a Node GitHub's runners no
 * longer have, why it cannot run (allocated in `a`).
 */
const char *wm_catalog_action_runtime(const struct wm_catalog *cat, struct wm_arena *a, const char *action,
	const char *ref, const char **why);
/* Whether the runners have runtime `using` (a `nodeN` in node-runtimes, or anything but Node). */
bool wm_catalog_node_runtime_ok(const struct wm_catalog *cat, const char *using);
/* The pinned version of a tool ("maturin"), or NULL. */
const char *wm_catalog_tool(const struct wm_catalog *cat, const char *name);
/* The releases of a tool ("maturin") a pin may be chosen from, newest first: a sequence, or NULL. */
const struct wm_node *wm_catalog_releases(const struct wm_catalog *cat, const char *name);
/* The full release of toolkit version `version` (`full-versions`), or `version` itself. */
const char *wm_catalog_toolkit_full(const struct wm_toolkit *t, const char *version);
/* Whether the installer `t` uses on `os` can install `version`; true when that OS has no list. */
bool wm_catalog_toolkit_installs(const struct wm_toolkit *t, enum wm_os os, const char *version);
/* A PyO3 release series and the CPython it builds for (templates/pyo3.yaml); versions are 3.N's N. */
struct wm_pyo3 {
	const char *series;            /* "0.22" */
	unsigned major, minor;         /* 0, 22 */
	const char *crate;             /* the release read: "0.22.6" */
	unsigned py_min, py_max;
	unsigned ft_min;               /* the oldest free-threaded build; 0 when none */
	unsigned abi3_min;
	unsigned abi3t_min;            /* the lowest abi3t-py3N (PEP 803); 0 when it builds none */
	unsigned pypy_min, pypy_max;   /* the PyPy it builds for */
};
/* The series of templates/pyo3.yaml, newest first; the one of major.minor, or NULL. */
size_t wm_catalog_pyo3_count(const struct wm_catalog *cat);
const struct wm_pyo3 *wm_catalog_pyo3_at(const struct wm_catalog *cat, size_t i);
const struct wm_pyo3 *wm_catalog_pyo3(const struct wm_catalog *cat, unsigned major, unsigned minor);
/*
 * Whether a runner label looks like one GitHub hosts (ubuntu-*, macos-*, windows-*), so that a
 * label the catalog lacks is more likely misspelt or newer than self-hosted; and the catalog's
 * label closest to a word, or NULL.
 */
bool wm_catalog_runner_hosted_like(const char *label);
const char *wm_catalog_suggest_runner(const struct wm_catalog *cat, const char *word);
/* A CPython release series (templates/pyo3.yaml's `cpython`): its first release and end of life. */
struct wm_cpython {
	const char *series;            /* "3.10" */
	unsigned minor;                /* 10 */
	const char *released, *end_of_life;   /* as written: YYYY-MM-DD, or YYYY-MM for a scheduled month */
	long released_day, end_of_life_day;   /* days since 1970-01-01 (a month: its first day) */
};
const struct wm_cpython *wm_catalog_cpython(const struct wm_catalog *cat, unsigned minor);
size_t wm_catalog_cpython_count(const struct wm_catalog *cat);
const struct wm_cpython *wm_catalog_cpython_at(const struct wm_catalog *cat, size_t i);
/*
 * The C API version ending the ABI tag of a wheel for PyPy of Python 3.`minor` ("73", "80";
 * templates/interpreters.yaml), as a build on `os` takes its PyPy: maturin's tables (or the images' PyPy)
 * on Linux, the PyPy setup-python and uv install elsewhere; NULL for a PyPy the table lacks.
 */
const char *wm_catalog_pypy_api(const struct wm_catalog *cat, unsigned minor, enum wm_os os);
/* The GraalPy release ("25.0") whose ABI a GraalPy 3.`minor` wheel carries; NULL when maturin builds none. */
const char *wm_catalog_graalpy(const struct wm_catalog *cat, unsigned minor);
/*
 * Why GraalPy 3.`minor` is not built for platform `p`, or NULL where it is: manylinux x86_64 and
 * aarch64, macOS x86_64 (the versions templates/interpreters.yaml names) and arm64.
 */
const char *wm_catalog_graalpy_refused(const struct wm_catalog *cat, const struct wm_platform *p, unsigned minor);
/* Checks a manylinux/musllinux level for platform `p`; `why` says what is accepted. */
bool wm_catalog_level_valid(const struct wm_platform *p, const char *level, const char **why);
/* Reads a macOS version "10.12", "11.0", "15.0" (major 10 to 99). */
bool wm_catalog_macos_version(const char *s, unsigned *major, unsigned *minor);
/*
 * Whether the wheel tag `tag` (each of its tags, when it is a compressed set itself) is in the
 * '.'-separated tag set `set` (a wheel file name's part),
 * PEP 600's legacy names read as theirs: manylinux2014_x86_64 is manylinux_2_17_x86_64, 2010 is
 * 2_12, manylinux1 is 2_5.
 */
bool wm_catalog_tag_in(const char *set, const char *tag);
/* The wheel platform tag of `p` at its current level (arena-allocated). */
const char *wm_catalog_platform_tag(struct wm_arena *a, const struct wm_platform *p);

/* ---- embedded data (templates.c, generated) ------------------------------ */

struct wm_template {
	const char *name;
	const char *data;
	size_t len;
};

extern const struct wm_template wm_templates[];
extern const size_t wm_ntemplates;
const struct wm_template *wm_template_get(const char *name);

/* A YAML template parsed at build time (templates-tree.c, generated by templates/yamltree.c). */
struct wm_template_tree {
	const char *name;
	const char *file;          /* "templates/<name>", as diagnostics name it */
	struct wm_node *root;
};
const struct wm_template_tree *wm_template_tree(const char *name);
/* The limits every embedded template is read with, at build time as at run time. */
#define WM_TEMPLATE_LIMITS { 1u << 20, 32, 100000, 2u << 20 }
/* Parses the embedded templates/<name> (a catalog or an emitter's skeleton) into `doc`. */
int wm_catalog_template_parse(struct wm_doc *doc, const char *name, struct wm_error *err);

/*
 * The next toolkit of the catalog, from index *from on, that Cargo feature `feature` implies (its
 * last component is one of the toolkit's features); *from then points past it.  NULL when none.
 */
const struct wm_toolkit *wm_catalog_feature_toolkit(const struct wm_catalog *cat, const char *feature, size_t *from);

#endif
