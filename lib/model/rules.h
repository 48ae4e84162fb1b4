/* rules.h — the matrix's `exclude` and `include` rules (rules.c). */
#ifndef WM_MODEL_RULES_H
#define WM_MODEL_RULES_H

#include "util/common.h"
#include "formats/yaml.h"

struct wm_loader;

/* Loads `exclude` (a present, non-null value) once backends, platforms and Python are loaded. */
void wm_rules_load_excludes(struct wm_loader *l, const struct wm_node *n);
/* Loads `include` (a present, non-null value): each rule one whole job. */
void wm_rules_load_includes(struct wm_loader *l, const struct wm_node *n);

/* Loads `dropped` (a present, non-null value): the planned drops `plan` takes a dropped wheel for. */
void wm_rules_load_drops(struct wm_loader *l, const struct wm_node *n);

#endif
