/* jsonschema.h — the JSON Schema of wheelmatrix.yaml, for editors (jsonschema.c). */
#ifndef WM_MODEL_JSONSCHEMA_H
#define WM_MODEL_JSONSCHEMA_H

#include "util/common.h"
#include "formats/json.h"

/*
 * Builds the schema (draft 2020-12) from the loader's tables of keys and values
 * and from the catalogs.  WM_EINTERNAL, with the reason in `err`, when a key of
 * the loader has no description here or a description names a key the loader
 * does not read; WM_ENOMEM.
 */
int wm_jsonschema_build(struct wm_json **out, const struct wm_catalog *cat, struct wm_error *err);

#endif
