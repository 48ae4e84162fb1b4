/* error.c — the caller-provided error report: positioned diagnostics, collected and sorted, their source quoted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "util/error.h"
#include "util/show.h"

/* A message longer than this is cut in the middle: it quotes a value from the input, which can be megabytes long. */
#define MESSAGE_MAX 1024
#define MESSAGE_TAIL 240

/*
 * Where the lines of one text start, found once for all of its diagnostics:
 * a spot every SPOT_EVERY bytes of the part read so far, so that finding a
 * position reads at most that far past a spot, and no part of the text is
 * read twice whatever the order of the diagnostics.
 */
#define SPOT_EVERY 4096
#define TEXTS 4
#define PRINT_SIZE 32

struct spot {
	size_t off;
	unsigned line, column;
};

struct text {
	const char *text;
	size_t len;
	char head[PRINT_SIZE], tail[PRINT_SIZE];  /* to tell another text at the same address */
	struct spot *spots;                        /* ascending, at the starts of characters */
	size_t nspots, cap;
	struct spot end;                           /* how far it was read */
	unsigned long long used;
};

struct wm_error_texts {
	struct text t[TEXTS];
	unsigned long long clock;
};

void wm_error_init(struct wm_error *err)
{
	memset(err, 0, sizeof(*err));
}

static void texts_free(struct wm_error_texts *texts)
{
	if (!texts)
		return;
	for (size_t i = 0; i < TEXTS; i++)
		free(texts->t[i].spots);
	free(texts);
}

void wm_error_release(struct wm_error *err)
{
	for (size_t i = 0; i < err->ndiags; i++) {
		free(err->diags[i].file);
		free(err->diags[i].message);
		free(err->diags[i].source);
	}
	free(err->diags);
	texts_free(err->texts);
	memset(err, 0, sizeof(*err));
}

void wm_error_aside(struct wm_error *err, size_t from)
{
	for (size_t i = from; i < err->ndiags; i++)
		err->diags[i].aside = true;
}

void wm_error_code(struct wm_error *err, enum wm_err code)
{
	if (err->code == WM_OK)
		err->code = code;
}

static void fingerprint(const char *text, size_t len, char *head, char *tail)
{
	size_t n = len < PRINT_SIZE ? len : PRINT_SIZE;
	memset(head, 0, PRINT_SIZE);
	memset(tail, 0, PRINT_SIZE);
	memcpy(head, text, n);
	memcpy(tail, text + len - n, n);
}

/* The record of `text`, made (in place of the least recently used) when there is none; NULL when out of memory. */
static struct text *text_of(struct wm_error *err, const char *text, size_t len)
{
	char head[PRINT_SIZE], tail[PRINT_SIZE];
	struct text *t, *lru;
	if (!err->texts && !(err->texts = calloc(1, sizeof(*err->texts))))
		return NULL;
	fingerprint(text, len, head, tail);
	lru = &err->texts->t[0];
	for (size_t i = 0; i < TEXTS; i++) {
		t = &err->texts->t[i];
		if (t->text == text && t->len == len && memcmp(t->head, head, PRINT_SIZE) == 0 &&
		    memcmp(t->tail, tail, PRINT_SIZE) == 0) {
			t->used = ++err->texts->clock;
			return t;
		}
		if (t->used < lru->used)
			lru = t;
	}
	t = lru;
	t->text = text;
	t->len = len;
	memcpy(t->head, head, PRINT_SIZE);
	memcpy(t->tail, tail, PRINT_SIZE);
	t->nspots = 0;
	t->end = (struct spot){ 0, 1, 1 };
	t->used = ++err->texts->clock;
	return t;
}

static bool before(unsigned line, unsigned column, const struct spot *s)
{
	return line < s->line || (line == s->line && column < s->column);
}

/*
 * The byte offset of (line, column) in the text: where that character
 * starts, or where its line ends when the line is shorter; false when the
 * text has no such line.  Columns count characters, as the readers do.
 */
static bool locate(struct wm_error *err, struct text *t, unsigned line, unsigned column, size_t *out)
{
	struct spot at = { 0, 1, 1 };
	size_t lo = 0, hi = t->nspots, i;
	bool reading;

	/* the last spot at or before the position, or the end of what was read */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(line, column, &t->spots[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo > 0)
		at = t->spots[lo - 1];
	reading = !before(line, column, &t->end);
	if (reading)
		at = t->end;
	for (i = at.off; i < t->len; i++) {
		unsigned char c = (unsigned char)t->text[i];
		bool lead = (c & 0xc0) != 0x80;
		if (reading && lead && (t->nspots ? i >= t->spots[t->nspots - 1].off + SPOT_EVERY : i >= SPOT_EVERY)) {
			if (t->nspots == t->cap) {
				size_t cap = t->cap ? 2 * t->cap : 64;
				struct spot *p = realloc(t->spots, cap * sizeof(*p));
				if (!p) {
					wm_error_code(err, WM_ENOMEM);
					return false;
				}
				t->spots = p;
				t->cap = cap;
			}
			t->spots[t->nspots++] = (struct spot){ i, at.line, at.column };
		}
		if (at.line == line && (c == '\n' || (lead && at.column >= column)))
			break;
		if (at.line > line)
			break;
		if (c == '\n') {
			at.line++;
			at.column = 1;
		} else if (lead) {
			at.column++;
		}
	}
	at.off = i;
	if (reading && i > t->end.off)
		t->end = at;
	*out = i;
	return at.line == line;
}

/* The window of the source line a diagnostic quotes (show.c), and where its caret goes in it. */
static void quote(struct wm_error *err, struct wm_diag *d, const char *source, size_t srclen)
{
	struct wm_buf out = WM_BUF_INIT;
	struct text *t = text_of(err, source, srclen);
	size_t at;
	unsigned caret, underline;

	if (!t) {
		wm_error_code(err, WM_ENOMEM);
		return;
	}
	if (!locate(err, t, d->line, d->column ? d->column : 1, &at))
		return;
	wm_buf_add(&out, "", 0);
	wm_show_window(&out, &caret, &underline, source, srclen, at, d->span);
	if (!(d->source = wm_buf_detach(&out)))
		return;
	if (d->column) {
		d->source_column = caret;
		d->source_span = underline;
	}
}

/* At most MESSAGE_MAX bytes: the start and the end of a longer message, "..." between, cut between characters. */
static char *bounded(char *msg)
{
	size_t len = msg ? strlen(msg) : 0, head = MESSAGE_MAX - MESSAGE_TAIL - 3, tail = len - MESSAGE_TAIL;
	if (len <= MESSAGE_MAX)
		return msg;
	while (head > 0 && ((unsigned char)msg[head] & 0xc0) == 0x80)
		head--;
	while (tail < len && ((unsigned char)msg[tail] & 0xc0) == 0x80)
		tail++;
	memcpy(msg + head, "...", 3);
	memmove(msg + head + 3, msg + tail, len - tail + 1);
	return msg;
}

bool wm_error_full(const struct wm_error *err, enum wm_severity sev)
{
	if (sev == WM_SEV_NOTE)
		return err->dropping;
	return sev == WM_SEV_ERROR ? err->nerrors >= WM_ERROR_MAX : err->nwarnings >= WM_ERROR_MAX;
}

/* Whether a diagnostic of severity `sev` is kept: WM_ERROR_MAX errors, as many warnings, and their notes. */
static bool kept(struct wm_error *err, enum wm_severity sev)
{
	if (sev == WM_SEV_NOTE)
		return !err->dropping;
	if (wm_error_full(err, sev)) {
		if (sev == WM_SEV_ERROR)
			err->truncated = true;
		else
			err->warnings_truncated = true;
		err->dropping = true;
		return false;
	}
	err->dropping = false;
	return true;
}

void wm_error_vadd(struct wm_error *err, enum wm_err code, enum wm_severity sev,
	const char *file, const char *source, size_t srclen,
	unsigned line, unsigned column, unsigned span, const char *fmt, va_list ap)
{
	struct wm_diag *d;
	struct wm_buf msg = WM_BUF_INIT;

	if (sev == WM_SEV_ERROR)
		wm_error_code(err, code);
	if (!kept(err, sev))
		return;
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
	d->message = bounded(wm_buf_detach(&msg));
	if (source && line)
		quote(err, d, source, srclen);
	if (sev == WM_SEV_NOTE && err->ndiags > 0)
		d->lead = err->diags[err->ndiags - 1].lead;
	else
		d->lead = err->ndiags;
	err->ndiags++;
	if (sev == WM_SEV_ERROR)
		err->nerrors++;
	else if (sev == WM_SEV_WARNING)
		err->nwarnings++;
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

void wm_error_nopos(struct wm_error *err, enum wm_err code, enum wm_severity sev, const char *file,
	const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(err, code, sev, file, NULL, 0, 0, 0, 0, fmt, ap);
	va_end(ap);
}

int wm_error_oom(struct wm_error *err)
{
	wm_error_code(err, WM_ENOMEM);
	return WM_ENOMEM;
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
