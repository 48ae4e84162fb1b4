/*
 * loader.h — the matrix loader's state, shared by matrix.c and the modules that load its sections
 * (python.c, platforms.c, backends.c, rules.c, untrusted.c); not for the rest of the library.
 */
#ifndef WM_MODEL_LOADER_H
#define WM_MODEL_LOADER_H

#include <string.h>
#include "util/common.h"
#include "util/error.h"
#include "util/text.h"
#include "formats/yaml.h"
#include "model/project.h"
#include "model/schema.h"

/* One load of a matrix file: the typed reader, the matrix being filled, and the nodes that later checks point at. */
struct wm_loader {
	struct wm_schema c;
	const struct wm_catalog *cat;
	struct wm_matrix *m;
	const struct wm_node *root;
	const struct wm_node *abi3_node;
	const struct wm_node *abi3t_node;     /* python.abi3t, NULL when absent */
	const struct wm_node **backend_nodes;  /* each backend's key */
	const struct wm_node **dist_nodes;     /* each backend's `dist:` value, or NULL */
	const struct wm_node **platforms_nodes; /* each backend's `platforms:` value, or NULL */
	const struct wm_node **variant_nodes;  /* each backend's `variant:` value, or NULL */
	const struct wm_node *providers_node;  /* `distribution.providers`, or NULL */
	const struct wm_node **python_nodes;   /* each axis entry's node (NULL for defaults) */
	const struct wm_node **platform_nodes; /* each matrix platform's node */
	bool platforms_ok, backends_ok, python_ok;
	const struct wm_reader *reader;     /* the project's files, or NULL */
	struct wm_project *project;         /* read through it, or NULL */
	const struct wm_pyo3 *pyo3;         /* the PyO3 series it builds with, when known (python.c) */
};

/*
 * The keys of each mapping of the file, and the values of its enumerations, in
 * the order the documentation gives them; they are defined beside the code that
 * loads each section, and jsonschema.c writes the JSON Schema from them.
 */
extern const struct wm_names wm_matrix_keys, wm_matrix_project_keys, wm_matrix_distribution_keys,
	wm_matrix_index_keys, wm_matrix_ci_keys, wm_matrix_github_keys, wm_matrix_trigger_keys, wm_matrix_gitlab_keys, wm_matrix_publish_keys, wm_matrix_pypi_keys,
	wm_matrix_strategies;
extern const struct wm_names wm_python_keys, wm_python_defaults, wm_platforms_override_keys, wm_platforms_defaults;
extern const struct wm_names wm_backends_keys, wm_backends_toolkit_keys, wm_backends_setup_keys,
	wm_backends_setup_os_keys, wm_backends_test_keys, wm_backends_backend_test_keys, wm_variants_keys, wm_variants_provider_keys, wm_rules_exclude_keys,
	wm_rules_include_keys, wm_rules_drop_keys, wm_untrusted_step_keys;

/* Records WM_ENOMEM when `p` is NULL, and says so. */
static inline bool wm_loader_oom(struct wm_loader *l, const void *p)
{
	if (!p)
		wm_error_code(l->c.err, WM_ENOMEM);
	return p == NULL;
}

/* Where node `n` is in the matrix file. */
static inline struct wm_loc wm_loader_loc(struct wm_loader *l, const struct wm_node *n)
{
	return wm_schema_loc(&l->c, n);
}

/* A `bindings = "bin"` project: its wheels hold a program, not a module. */
static inline bool wm_loader_bindings_bin(const struct wm_loader *l)
{
	return l->project && l->project->bindings && strcmp(l->project->bindings, "bin") == 0;
}

/* Whether backend b is built on the platform `id`: its `platforms:` globs match it (none: every platform). */
static inline bool wm_loader_builds_on(const struct wm_backend *b, const char *id)
{
	if (b->platforms.n == 0)
		return true;
	for (size_t i = 0; i < b->platforms.n; i++)
		if (wm_text_glob_match(b->platforms.items[i], id))
			return true;
	return false;
}

/* A character of a name in the CI files (an action, an environment, secrets.NAME): letters, digits, '_', '-'. */
static inline bool wm_loader_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

#endif
