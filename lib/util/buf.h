/* buf.h — a growable string (buf.c). */
#ifndef WM_UTIL_BUF_H
#define WM_UTIL_BUF_H

#include "util/common.h"

struct wm_buf {
	char *ptr;   /* always NUL-terminated once anything was added */
	size_t len, cap;
	bool oom;    /* an allocation failed: the content is incomplete */
};

#define WM_BUF_INIT { NULL, 0, 0, false }
void wm_buf_add(struct wm_buf *b, const char *s, size_t len);
void wm_buf_puts(struct wm_buf *b, const char *s);
void wm_buf_putc(struct wm_buf *b, char c);
void wm_buf_printf(struct wm_buf *b, const char *fmt, ...) WM_PRINTF(2, 3);
void wm_buf_vprintf(struct wm_buf *b, const char *fmt, va_list ap);
/*
 * Appends `s` as one POSIX shell word: single-quoted (a `'` written `'\''`), or
 * bare when `bare_when_safe` and it has only characters no shell treats specially.
 */
void wm_buf_shell_word(struct wm_buf *b, const char *s, bool bare_when_safe);
void wm_buf_clear(struct wm_buf *b);
void wm_buf_release(struct wm_buf *b);
/* Hands the string over to the caller (malloc'd, "" when empty); NULL when out of memory. */
char *wm_buf_detach(struct wm_buf *b);

#endif
