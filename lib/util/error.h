/* error.h — adding diagnostics to a report (error.c). */
#ifndef WM_UTIL_ERROR_H
#define WM_UTIL_ERROR_H

#include "util/common.h"

/* Appends a diagnostic; `source` is the whole input, used to copy the offending line. */
void wm_error_add(struct wm_error *err, enum wm_err code, enum wm_severity sev,
	const char *file, const char *source, size_t srclen,
	unsigned line, unsigned column, unsigned span, const char *fmt, ...) WM_PRINTF(10, 11);
void wm_error_vadd(struct wm_error *err, enum wm_err code, enum wm_severity sev,
	const char *file, const char *source, size_t srclen,
	unsigned line, unsigned column, unsigned span, const char *fmt, va_list ap);
/*
 * The short forms.  A diagnostic with no position: of `file` as a whole (no line,
 * column or quoted line), or of none when `file` is NULL.
 */
void wm_error_nopos(struct wm_error *err, enum wm_err code, enum wm_severity sev, const char *file,
	const char *fmt, ...) WM_PRINTF(5, 6);
/* Out of memory: records WM_ENOMEM as the report's code (unless one is set) and returns WM_ENOMEM. */
int wm_error_oom(struct wm_error *err);
/*
 * Whether a diagnostic of severity `sev` would be dropped now: the report
 * holds WM_ERROR_MAX of them.  A caller skips the work of its message then
 * (a suggestion among many names), for every one of millions of bad items.
 */
bool wm_error_full(const struct wm_error *err, enum wm_severity sev);
/* Marks the diagnostics added since the report held `from` as asides (struct wm_diag). */
void wm_error_aside(struct wm_error *err, size_t from);
/* Records `code` as the report's code unless one is already set. */
void wm_error_code(struct wm_error *err, enum wm_err code);

#endif
