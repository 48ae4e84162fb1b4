/* arena.c — bump allocation for everything a loaded matrix owns, freed in one call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"

#define CHUNK_SIZE (64u * 1024u)
#define ALIGN 16u

struct wm_chunk {
	struct wm_chunk *next;
	max_align_t pad[];  /* the chunk's memory follows, suitably aligned */
};

void wm_arena_init(struct wm_arena *a)
{
	memset(a, 0, sizeof(*a));
}

void wm_arena_release(struct wm_arena *a)
{
	struct wm_chunk *c = a->chunks;
	while (c) {
		struct wm_chunk *next = c->next;
		free(c);
		c = next;
	}
#ifdef WM_ARENA_MALLOC
	for (size_t i = 0; i < a->nptrs; i++)
		free(a->ptrs[i]);
	free(a->ptrs);
#endif
	memset(a, 0, sizeof(*a));
}

#ifdef WM_ARENA_MALLOC
void *wm_arena_alloc(struct wm_arena *a, size_t size)
{
	void *p;
	if (a->nptrs == a->capptrs) {
		size_t cap = a->capptrs ? a->capptrs * 2 : 64;
		void **ptrs = realloc(a->ptrs, cap * sizeof(*ptrs));
		if (!ptrs)
			return NULL;
		a->ptrs = ptrs;
		a->capptrs = cap;
	}
	p = calloc(1, size ? size : 1);
	if (p)
		a->ptrs[a->nptrs++] = p;
	return p;
}
#else
void *wm_arena_alloc(struct wm_arena *a, size_t size)
{
	char *p;
	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (size == 0)
		size = ALIGN;
	if ((size_t)(a->end - a->next) < size) {
		size_t want = size > CHUNK_SIZE / 4 ? size : CHUNK_SIZE;
		struct wm_chunk *c = malloc(sizeof(*c) + want);
		if (!c)
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		if (want != CHUNK_SIZE) {
			/* a large block gets its own chunk; keep bumping in the current one */
			return memset(c->pad, 0, size);
		}
		a->next = (char *)c->pad;
		a->end = a->next + want;
	}
	p = a->next;
	a->next += size;
	return memset(p, 0, size);
}
#endif

void *wm_arena_array(struct wm_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return wm_arena_alloc(a, n * size);
}

char *wm_arena_strndup(struct wm_arena *a, const char *s, size_t len)
{
	char *p = wm_arena_alloc(a, len + 1);
	if (p && len)
		memcpy(p, s, len);
	return p;
}

char *wm_arena_strdup(struct wm_arena *a, const char *s)
{
	return wm_arena_strndup(a, s, strlen(s));
}

char *wm_arena_printf(struct wm_arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(p = wm_arena_alloc(a, (size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
