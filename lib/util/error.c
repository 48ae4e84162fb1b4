/* error.c — the caller-provided error report: positioned diagnostics, collected and sorted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"

void wm_error_init(struct wm_error *err)
{
	memset(err, 0, sizeof(*err));
}

void wm_error_release(struct wm_error *err)
{
	for (size_t i = 0; i < err->ndiags; i++) {
		free(err->diags[i].file);
		free(err->diags[i].message);
		free(err->diags[i].source);
	}
	free(err->diags);
	memset(err, 0, sizeof(*err));
}

void wm_error_code(struct wm_error *err, enum wm_err code)
{
	if (err->code == WM_OK)
		err->code = code;
}

/* Copies line `line` (1-based) of `source`, without its line ending, as valid UTF-8. */
static char *source_line(const char *source, size_t len, unsigned line)
{
	const char *p = source, *end = source + len, *eol;
	struct wm_buf out = WM_BUF_INIT;
	for (unsigned l = 1; l < line; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	if (eol > p && eol[-1] == '\r')
		eol--;
	wm_buf_add(&out, "", 0);
	wm_utf8_sanitize(&out, p, (size_t)(eol - p));
	return wm_buf_detach(&out);
}

void wm_error_vadd(struct wm_error *err, enum wm_err code, enum wm_severity sev,
	const char *file, const char *source, size_t srclen,
	unsigned line, unsigned column, unsigned span, const char *fmt, va_list ap)
{
	struct wm_diag *d;
	struct wm_buf msg = WM_BUF_INIT;

	if (sev == WM_SEV_ERROR)
		wm_error_code(err, code);
	if (err->nerrors >= WM_ERROR_MAX) {
		err->truncated = true;
		return;
	}
	if (err->ndiags == err->cap) {
		size_t cap = err->cap ? err->cap * 2 : 8;
		struct wm_diag *p = realloc(err->diags, cap * sizeof(*p));
		if (!p) {
			wm_error_code(err, WM_ENOMEM);
			return;
		}
		err->diags = p;
		err->cap = cap;
	}
	wm_buf_vprintf(&msg, fmt, ap);
	d = &err->diags[err->ndiags];
	memset(d, 0, sizeof(*d));
	d->severity = sev;
	d->file = file ? strdup(file) : NULL;
	d->line = line;
	d->column = column;
	d->span = span;
	d->message = wm_buf_detach(&msg);
	d->source = source && line ? source_line(source, srclen, line) : NULL;
	if (sev == WM_SEV_NOTE && err->ndiags > 0)
		d->lead = err->diags[err->ndiags - 1].lead;
	else
		d->lead = err->ndiags;
	err->ndiags++;
	if (sev == WM_SEV_ERROR)
		err->nerrors++;
}

void wm_error_add(struct wm_error *err, enum wm_err code, enum wm_severity sev,
	const char *file, const char *source, size_t srclen,
	unsigned line, unsigned column, unsigned span, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(err, code, sev, file, source, srclen, line, column, span, fmt, ap);
	va_end(ap);
}

struct sortkey {
	const struct wm_diag *lead;
	size_t index;
};

static int cmp_key(const void *pa, const void *pb)
{
	const struct sortkey *a = pa, *b = pb;
	int c;
	if (a->lead != b->lead) {
		const char *fa = a->lead->file ? a->lead->file : "", *fb = b->lead->file ? b->lead->file : "";
		if ((c = strcmp(fa, fb)) != 0)
			return c;
		if (a->lead->line != b->lead->line)
			return a->lead->line < b->lead->line ? -1 : 1;
		if (a->lead->column != b->lead->column)
			return a->lead->column < b->lead->column ? -1 : 1;
	}
	return a->index < b->index ? -1 : a->index > b->index;
}

void wm_error_sort(struct wm_error *err)
{
	struct sortkey *keys;
	struct wm_diag *sorted;
	if (err->ndiags < 2)
		return;
	keys = malloc(err->ndiags * sizeof(*keys));
	sorted = malloc(err->ndiags * sizeof(*sorted));
	if (!keys || !sorted)
		goto out;
	for (size_t i = 0; i < err->ndiags; i++) {
		keys[i].lead = &err->diags[err->diags[i].lead];
		keys[i].index = i;
	}
	qsort(keys, err->ndiags, sizeof(*keys), cmp_key);
	for (size_t i = 0; i < err->ndiags; i++)
		sorted[i] = err->diags[keys[i].index];
	for (size_t i = 0; i < err->ndiags; i++)
		sorted[i].lead = i;  /* positions changed; keep leads meaningful */
	for (size_t i = 1; i < err->ndiags; i++)
		if (sorted[i].severity == WM_SEV_NOTE)
			sorted[i].lead = sorted[i - 1].lead;
	memcpy(err->diags, sorted, err->ndiags * sizeof(*sorted));
out:
	free(keys);
	free(sorted);
}
