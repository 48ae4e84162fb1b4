/* json.h — the thin wrapper over Jansson (json.c, its only user). */
#ifndef WM_FORMATS_JSON_H
#define WM_FORMATS_JSON_H

#include "util/common.h"
#include "util/buf.h"
/* The JSON report of a plan (json.c). */
int wm_json_plan(struct wm_buf *out, const struct wm_plan *p);

#endif
