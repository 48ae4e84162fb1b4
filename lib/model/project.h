/* project.h — what the matrix takes from pyproject.toml and Cargo.toml (project.c). */
#ifndef WM_MODEL_PROJECT_H
#define WM_MODEL_PROJECT_H

#include "util/common.h"
#include "util/arena.h"
#include "formats/toml.h"

/* What the matrix takes from pyproject.toml and Cargo.toml; strings point into the parsed files. */
struct wm_project {
	struct wm_arena arena;
	struct wm_toml_doc py, cargo, workspace;
	bool has_py, has_cargo;
	const char *workspace_path;             /* the Cargo workspace root's manifest, NULL when none was read */
	const char *py_path, *cargo_path;       /* repository-relative */
	const char *name;                       /* [project].name, NULL when absent */
	const char *version;                    /* [project].version, else Cargo's (workspace included) */
	const char *version_file;
	bool version_dynamic;
	const char *requires_python;
	unsigned min_minor;                     /* of requires-python, 0 when unknown */
	const char *module_name, *python_source, *manifest_setting, *bindings;  /* [tool.maturin] */
	struct wm_strlist maturin_features;     /* the string entries of [tool.maturin].features */
	const char *crate_name, *lib_name;
	const char **features;                  /* the keys of Cargo's [features] */
	size_t nfeatures;
	const char **deps;                      /* the keys of Cargo's [dependencies] */
	bool *deps_optional;
	size_t ndeps;
	/* pyo3's abi3 as the build with the crate's default features and [tool.maturin]'s enables it (wm_project_abi3) */
	bool abi3;                              /* pyo3's abi3 feature is on */
	unsigned abi3_minor;                    /* the lowest abi3-py3X; 0 for plain abi3 (the interpreter's) */
	const char *abi3_feature, *abi3_file;   /* the feature that sets it, and where */
	const struct wm_toml_doc *abi3_doc;
	struct wm_toml_span abi3_span;
	/* pyo3 among [dependencies] (or pyo3-ffi without it): its requirement ("0.22"), or how it is
	 * given instead ("path", "git"; "workspace" when the workspace root was not read), at
	 * `pyo3_span` of `pyo3_file`; and the version Cargo.lock resolved, NULL when none is read */
	const char *pyo3_req, *pyo3_source;
	struct wm_toml_span pyo3_span;
	const char *pyo3_file;
	const struct wm_toml_doc *pyo3_doc;
	const char *pyo3_key;                   /* its key among [dependencies] */
	bool pyo3_optional;
	const struct wm_toml_value *pyo3_features[2];  /* its `features` arrays: the member's and the workspace root's */
	const struct wm_toml_doc *pyo3_features_doc[2];
	const char *pyo3_features_file[2];
	const char *pyo3_locked, *pyo3_lock_file;
	bool src_layout_by_name;                /* no python-source, and src/<name> is a directory */
	/* maturin in [build-system].requires: its specifiers (">=1.9,<2", "" for any), NULL when not listed */
	const char *maturin_specs;
	struct wm_toml_span maturin_span;
};

/* Where a string of the project's files is written; `file` NULL when it is none of them (the matrix's features). */
struct wm_project_at {
	const char *file;
	const struct wm_toml_doc *doc;
	struct wm_toml_span span;
};

/* pyo3's stable ABI as one build enables it (wm_project_abi3). */
struct wm_abi3 {
	bool abi3;                   /* pyo3's abi3 (or an abi3-py3X) is enabled */
	unsigned minor;              /* the lowest abi3-py3X enabled; 0 for plain abi3 (the interpreter's version) */
	bool abi3t;                  /* pyo3's abi3t (PEP 803, PyO3 0.30) */
	unsigned abi3t_minor;        /* abi3t-py3X; 0 for plain abi3t */
	const char *feature;         /* the pyo3 feature that sets abi3's minimum ("abi3-py310"), else abi3t's */
	const char *written;         /* that feature as written there ("pyo3/abi3-py310", "abi3-py310") */
	struct wm_project_at at;     /* where that feature is written */
	const char *via;             /* the build's feature that enables it through [features] ("abi3",
	                                "default"), NULL when pyo3's entry or the feature itself names it */
};

/*
 * What one build enables beyond the crate's own defaults and [tool.maturin]: its Cargo features
 * (a backend's; later a platform's too), and whether it turns the default features off.
 */
struct wm_build_features {
	const struct wm_strlist *features;
	bool no_default;
};

/*
 * Reads pyproject.toml (at `pyproject`) and the crate's manifest (`manifest`,
 * or NULL for maturin's default) through `r`.  Returns 1 when pyproject.toml
 * does not exist (nothing reported), 0 with *out set, or an error.
 */
int wm_project_load(struct wm_project **out, const struct wm_reader *r, const char *pyproject,
	const char *manifest, struct wm_error *err);
void wm_project_free(struct wm_project *p);
#define WM_ABI3_BUILD 12    /* the interpreter that builds an abi3 wheel: every runner and image has it */
/*
 * pyo3's abi3 and abi3t as Cargo resolves the features of a build: the crate's default features
 * (unless `b` turns them off or [tool.maturin] sets no-default-features), [tool.maturin].features
 * (all of them with all-features), the features of `b` (NULL: none), each through the crate's
 * [features] table, transitively (`feat`, `dep:name`, `pkg/feat`, `pkg?/feat`), to the features
 * of the pyo3 dependency, which add to those of its entry (and, with `workspace = true`, of the
 * workspace root's [workspace.dependencies] entry).  Each pyo3 abi3-py3X turns on the ones above
 * it, so the lowest enabled is the minimum.
 */
void wm_project_abi3(const struct wm_project *p, const struct wm_build_features *b, struct wm_abi3 *out);
/* The abi3 minimum: the lowest abi3-py3X; for plain abi3, the interpreter's (WM_ABI3_BUILD or requires-python's). */
unsigned wm_project_abi3_minor(const struct wm_project *p);
/* maturin's module name: module-name, else [lib].name, else the project name with '_'. */
const char *wm_project_module(struct wm_arena *a, const char *module_name, const char *lib_name, const char *name);
/*
 * Whether a feature exists for Cargo: a [features] key, `dep/feature`, `dep:name`; else a close
 * name in *hint (none is looked for when hint is NULL).
 */
bool wm_project_has_feature(const struct wm_project *p, const char *feature, const char **hint);

#endif
