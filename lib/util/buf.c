/* buf.c — a growable NUL-terminated string that remembers allocation failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"

static bool grow(struct wm_buf *b, size_t extra)
{
	size_t cap;
	char *p;
	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	p = realloc(b->ptr, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->ptr = p;
	b->cap = cap;
	return true;
}

void wm_buf_add(struct wm_buf *b, const char *s, size_t len)
{
	if (!grow(b, len))
		return;
	if (len)
		memcpy(b->ptr + b->len, s, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void wm_buf_puts(struct wm_buf *b, const char *s)
{
	wm_buf_add(b, s, strlen(s));
}

void wm_buf_putc(struct wm_buf *b, char c)
{
	wm_buf_add(b, &c, 1);
}

void wm_buf_vprintf(struct wm_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || !grow(b, (size_t)n))
		return;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void wm_buf_printf(struct wm_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void wm_buf_clear(struct wm_buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

void wm_buf_release(struct wm_buf *b)
{
	free(b->ptr);
	memset(b, 0, sizeof(*b));
}

char *wm_buf_detach(struct wm_buf *b)
{
	char *p;
	if (b->oom) {
		wm_buf_release(b);
		return NULL;
	}
	p = b->ptr ? b->ptr : strdup("");
	memset(b, 0, sizeof(*b));
	return p;
}

void wm_buf_shell_word(struct wm_buf *b, const char *s, bool bare_when_safe)
{
	if (bare_when_safe && *s &&
			strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == strlen(s)) {
		wm_buf_puts(b, s);
		return;
	}
	wm_buf_putc(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			wm_buf_puts(b, "'\\''");
		else
			wm_buf_putc(b, *s);
	wm_buf_putc(b, '\'');
}
