/* arena.h — bump allocation freed in one call (arena.c). */
#ifndef WM_UTIL_ARENA_H
#define WM_UTIL_ARENA_H

#include "util/common.h"

/*
 * Bump allocation freed in one call.  Built with WM_ARENA_MALLOC (the
 * sanitizer build), every allocation is a real malloc so that the sanitizers
 * see each object's bounds.
 */
struct wm_arena {
	struct wm_chunk *chunks;
	char *next, *end;
#ifdef WM_ARENA_MALLOC
	void **ptrs;
	size_t nptrs, capptrs;
#endif
};

void wm_arena_init(struct wm_arena *a);
void wm_arena_release(struct wm_arena *a);
/* Zeroed memory, or NULL when out of memory. */
void *wm_arena_alloc(struct wm_arena *a, size_t size);
void *wm_arena_array(struct wm_arena *a, size_t n, size_t size);
char *wm_arena_strndup(struct wm_arena *a, const char *s, size_t len);
char *wm_arena_strdup(struct wm_arena *a, const char *s);
char *wm_arena_printf(struct wm_arena *a, const char *fmt, ...) WM_PRINTF(2, 3);

#endif
