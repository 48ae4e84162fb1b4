/* map.c — an open-addressing hash map from strings to pointers, for lookups by id. */
#include <stdlib.h>
#include <string.h>
#include "util/map.h"

struct wm_map_slot {
	const char *key;
	size_t len;
	uint64_t hash;
	void *value;
};

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;  /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

void wm_map_init(struct wm_map *m)
{
	memset(m, 0, sizeof(*m));
}

void wm_map_release(struct wm_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static struct wm_map_slot *find(const struct wm_map *m, const char *key, size_t len, uint64_t h)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask;
	for (;;) {
		struct wm_map_slot *s = &m->slots[i];
		if (!s->key || (s->hash == h && s->len == len && !memcmp(s->key, key, len)))
			return s;
		i = (i + 1) & mask;
	}
}

void *wm_map_get(const struct wm_map *m, const char *key, size_t len)
{
	struct wm_map_slot *s;
	if (!m->cap)
		return NULL;
	s = find(m, key, len, hash(key, len));
	return s->key ? s->value : NULL;
}

static int resize(struct wm_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	struct wm_map old = *m;
	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return WM_ENOMEM;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find(m, old.slots[i].key, old.slots[i].len, old.slots[i].hash) = old.slots[i];
	free(old.slots);
	return 0;
}

int wm_map_put(struct wm_map *m, const char *key, size_t len, void *value)
{
	uint64_t h = hash(key, len);
	struct wm_map_slot *s;
	if ((m->n + 1) * 4 > m->cap * 3 && resize(m) < 0)
		return WM_ENOMEM;
	s = find(m, key, len, h);
	if (!s->key) {
		s->key = key;
		s->len = len;
		s->hash = h;
		m->n++;
	}
	s->value = value;
	return 0;
}
