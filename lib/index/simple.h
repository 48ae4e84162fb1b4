/* simple.h — simple index project pages (PEP 503 HTML, PEP 691 JSON) (simple.c). */
#ifndef WM_INDEX_SIMPLE_H
#define WM_INDEX_SIMPLE_H

#include "util/common.h"
#include "util/arena.h"

/* A project page of a simple index: its files, in the arena. */
struct wm_index_page {
	struct wm_index_file *files;
	size_t n;
	const char *api;  /* "json" or "html" */
};

/*
 * Reads a project page by its content type: PEP 691 JSON (through formats/json.c)
 * or PEP 503 HTML.  WM_EINVALID with `why` (in the arena) when
 * the page is not one.
 */
int wm_simple_parse(struct wm_index_page *out, struct wm_arena *a, const char *content_type,
	const char *body, size_t len, const char **why);
/*
 * Reads the `versions` of a PEP 691 JSON project page (PEP 700, api-version
 * 1.1 and later: every version the project has, files or not) into *out (n of
 * them, in the arena).  WM_EINVALID with `why` when the page is not JSON or
 * has no `versions` (an index older than PEP 700).
 */
int wm_simple_versions(const char ***out, size_t *n, struct wm_arena *a, const char *content_type,
	const char *body, size_t len, const char **why);

#endif
