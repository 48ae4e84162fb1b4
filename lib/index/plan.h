/* plan.h — a release planned against package indexes (plan.c). */
#ifndef WM_INDEX_PLAN_H
#define WM_INDEX_PLAN_H

#include "util/common.h"
#include "util/arena.h"
#include "index/simple.h"

struct wm_plan;
struct wm_plan_dist;
/*
 * plan.c: the index page's files of the planned version matched with distribution d's
 * artifacts, exact names first, then by tags; sets the artifacts' and d's state and the
 * unexpected and large files.  What plan does with each index's answer.
 */
int wm_plan_compare(struct wm_plan *plan, struct wm_plan_dist *d, const struct wm_index_page *page);
/*
 * A project's page on an index as plan asks for it: *url the index URL as given (NULL: PyPI) with
 * the normalised name and the query after it, never shown; *shown without credentials or query.
 * An index URL plan refuses is WM_EINVALID, said in `err`.
 */
int wm_plan_url(struct wm_arena *a, const char *index, const char *name, char **url, char **shown, struct wm_error *err);
/* "present", "missing", ...; "new", "published", ... */
const char *wm_plan_artifact_state_name(enum wm_artifact_state s);
const char *wm_plan_dist_state_name(enum wm_dist_state s);

#endif
