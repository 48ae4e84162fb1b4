/*
 * variants.h — strategy `variants` (wheel variants, PEP 817/825 drafts): the
 * providers of `distribution`, each backend's `variant:`, and the checks
 * across them (variants.c).
 */
#ifndef WM_MODEL_VARIANTS_H
#define WM_MODEL_VARIANTS_H

#include "model/loader.h"

/* `distribution.providers`: the variant namespaces' provider plugins, in priority order. */
void wm_variants_load_providers(struct wm_loader *l, const struct wm_node *n);
/* A backend's `variant:` value (`properties`, `label`); checked against the strategy later. */
void wm_variants_load_backend(struct wm_loader *l, struct wm_backend *b, const struct wm_node *n);
/*
 * Across the backends, once all are loaded: under strategy variants every
 * backend keeps the project's name, the default is the null variant and every
 * other backend a variant with properties, labels and property sets are
 * unique, and every namespace has a provider; under another strategy neither
 * `variant:` nor `providers` may appear.
 */
void wm_variants_check(struct wm_loader *l);

/* Whether `s` is a variant label (PEP 825: [0-9a-z_.]+, and not `null`, the null variant's). */
bool wm_variants_label_valid(const char *s);

#endif
