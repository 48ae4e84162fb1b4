/* map.h — open addressing from strings to pointers (map.c). */
#ifndef WM_UTIL_MAP_H
#define WM_UTIL_MAP_H

#include "util/common.h"

/* Open addressing from strings (not owned) to pointers. */
struct wm_map {
	struct wm_map_slot *slots;
	size_t n, cap;
};

void wm_map_init(struct wm_map *m);
void wm_map_release(struct wm_map *m);
/* Returns the value stored for `key`, or NULL. */
void *wm_map_get(const struct wm_map *m, const char *key, size_t len);
/* Stores `value` (replacing any); returns WM_ENOMEM on failure. */
int wm_map_put(struct wm_map *m, const char *key, size_t len, void *value);

#endif
