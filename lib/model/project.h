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
	bool abi3;                              /* pyo3's abi3 feature is on */
	unsigned abi3_minor;                    /* the lowest abi3-py3X; 0 for plain abi3 (the interpreter's) */
	const char *abi3_feature, *abi3_file;   /* the feature that sets it, and where */
	const struct wm_toml_doc *abi3_doc;
	struct wm_toml_span abi3_span;
	/* pyo3 among [dependencies]: its requirement ("0.22"), or how it is given instead ("workspace",
	 * "path", "git"), at `pyo3_span`; and the version Cargo.lock resolved, NULL when none is read */
	const char *pyo3_req, *pyo3_source;
	struct wm_toml_span pyo3_span;
	const char *pyo3_locked, *pyo3_lock_file;
	bool src_layout_by_name;                /* no python-source, and src/<name> is a directory */
	/* maturin in [build-system].requires: its specifiers (">=1.9,<2", "" for any), NULL when not listed */
	const char *maturin_specs;
	struct wm_toml_span maturin_span;
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
