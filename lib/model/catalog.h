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
/* The pinned version of a tool ("maturin"), or NULL. */
const char *wm_catalog_tool(const struct wm_catalog *cat, const char *name);
/* The releases of a tool ("maturin") a pin may be chosen from, newest first: a sequence, or NULL. */
const struct wm_node *wm_catalog_releases(const struct wm_catalog *cat, const char *name);
/* Checks a manylinux/musllinux level for platform `p`; `why` says what is accepted. */
bool wm_catalog_level_valid(const struct wm_platform *p, const char *level, const char **why);
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
/* Parses the embedded templates/<name> (a catalog or an emitter's skeleton) into `doc`. */
int wm_catalog_template_parse(struct wm_doc *doc, const char *name, struct wm_error *err);

#endif
