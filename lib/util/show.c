/* show.c — text as a person is shown it: what a terminal would act on escaped, a long line cut to a window. */
#include <stdio.h>
#include <string.h>
#include "util/buf.h"
#include "util/show.h"
#include "util/utf8.h"

/* The columns kept left of the caret: all of them up to LEFT_MAX, else LEFT_KEEP (with the "..." mark). */
#define LEFT_MAX 100
#define LEFT_KEEP 60
#define MARK "..."
#define MARK_WIDTH 3

/* Whether the character cp is shown as it is, given what `keep` keeps. */
static bool shown_raw(uint32_t cp, unsigned keep)
{
	if (cp == '\t')
		return keep & WM_SHOW_TAB;
	if (cp == '\n')
		return keep & WM_SHOW_NEWLINE;
	return !wm_utf8_is_control(cp);
}

/* The escape of one character (or of a byte that is not UTF-8) into esc; its length. */
static size_t escape(char esc[WM_SHOW_ESCAPE_SIZE], uint32_t cp)
{
	int n = cp & WM_UTF8_BAD ? snprintf(esc, WM_SHOW_ESCAPE_SIZE, "<%02X>", (unsigned)(cp & 0xff)) :
		snprintf(esc, WM_SHOW_ESCAPE_SIZE, "<U+%04X>", (unsigned)cp);
	return n > 0 ? (size_t)n : 0;
}

size_t wm_show_next(const char **piece, size_t *piecelen, size_t *width, char esc[WM_SHOW_ESCAPE_SIZE],
	const char *s, size_t len, unsigned keep)
{
	size_t i = 0, chars = 0;
	uint32_t cp;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n;
		/* printable ASCII, the common case, without decoding */
		if (c >= 0x20 && c < 0x7f) {
			i++, chars++;
			continue;
		}
		n = wm_utf8_decode(s + i, len - i, &cp);
		if (!shown_raw(cp, keep))
			break;
		i += n, chars++;
	}
	if (i > 0) {
		*piece = s;
		*piecelen = i;
		*width = chars;
		return i;
	}
	if (len == 0) {
		*piece = s;
		*piecelen = *width = 0;
		return 0;
	}
	i = wm_utf8_decode(s, len, &cp);
	*piece = esc;
	*piecelen = *width = escape(esc, cp);
	return i;
}

void wm_show_add(struct wm_buf *b, const char *s, size_t len, unsigned keep)
{
	char esc[WM_SHOW_ESCAPE_SIZE];
	while (len) {
		const char *piece;
		size_t piecelen, width, n = wm_show_next(&piece, &piecelen, &width, esc, s, len, keep);
		wm_buf_add(b, piece, piecelen);
		s += n;
		len -= n;
	}
}

void wm_show_puts(struct wm_buf *b, const char *s)
{
	wm_show_add(b, s, strlen(s), 0);
}

/* The columns one character takes in a source window: a tab stays (one column, repeated on the caret line). */
static size_t char_width(const char *s, size_t avail, size_t *n)
{
	char esc[WM_SHOW_ESCAPE_SIZE];
	uint32_t cp;
	*n = wm_utf8_decode(s, avail, &cp);
	return shown_raw(cp, WM_SHOW_TAB) ? 1 : escape(esc, cp);
}

/* Whether the line ends at text[i]: a line feed, a CR before one or before the end, or the end. */
static bool line_ends(const char *text, size_t len, size_t i)
{
	return i >= len || text[i] == '\n' || (text[i] == '\r' && (i + 1 == len || text[i + 1] == '\n'));
}

/* Whether the line from `start` ends within `columns` columns (reading no further). */
static bool fits(const char *text, size_t len, size_t start, size_t columns)
{
	size_t width = 0, n;
	for (size_t i = start; !line_ends(text, len, i); i += n)
		if ((width += char_width(text + i, len - i, &n)) > columns)
			return false;
	return true;
}

/*
 * Where the window starts: the line's start when the whole line fits or the
 * caret is near its start, else LEFT_KEEP columns left of `at`.
 */
static size_t window_start(const char *text, size_t len, size_t at, bool *cut)
{
	/* a character is at most 4 bytes: this far back holds more than LEFT_MAX columns, or the line's start */
	size_t back = 4 * (LEFT_MAX + 1), from = at > back ? at - back : 0, start, width = 0;
	size_t offs[4 * (LEFT_MAX + 1) + 1], widths[4 * (LEFT_MAX + 1) + 1], k = 0;
	bool nl = false;

	*cut = false;
	for (size_t i = at; i > from; i--)
		if (text[i - 1] == '\n') {
			from = i;
			nl = true;
			break;
		}
	/* a character cut in two at `from` is not shown (it is far left of the window) */
	while (!nl && from > 0 && from < at && ((unsigned char)text[from] & 0xc0) == 0x80)
		from++;
	for (size_t i = from; i < at;) {
		size_t n;
		offs[k] = i;
		widths[k++] = char_width(text + i, at - i, &n);
		i += n;
	}
	for (size_t j = 0; j < k; j++)
		width += widths[j];
	if ((nl || from == 0) && (width <= LEFT_MAX || fits(text, len, from, WM_SHOW_WINDOW)))
		return from;
	*cut = true;
	/* the first character from which what is left of the caret fits in LEFT_KEEP columns, the mark included */
	start = at;
	for (size_t j = k, w = MARK_WIDTH; j-- > 0;) {
		if ((w += widths[j]) > LEFT_KEEP)
			break;
		start = offs[j];
	}
	return start;
}

void wm_show_window(struct wm_buf *out, unsigned *caret, unsigned *underline, const char *text, size_t len,
	size_t at, unsigned span)
{
	char esc[WM_SHOW_ESCAPE_SIZE];
	size_t start, end, width = 0, marked = 0, spanned = 0, want = span ? span : 1, limit;
	bool cut;

	if (at > len)
		at = len;
	if (at > 0 && text[at - 1] == '\r' && line_ends(text, len, at - 1))
		at--;  /* the end of a CRLF line */
	start = window_start(text, len, at, &cut);
	if (cut) {
		wm_buf_puts(out, MARK);
		width = MARK_WIDTH;
	}
	*caret = 0;
	/* to the end of the line, or of the window: WM_SHOW_WINDOW columns in all, the marks included */
	limit = fits(text, len, start, WM_SHOW_WINDOW - width) ? WM_SHOW_WINDOW : WM_SHOW_WINDOW - MARK_WIDTH;
	for (end = start; !line_ends(text, len, end);) {
		size_t n, w = char_width(text + end, len - end, &n);
		if (end >= at && width + w > limit)
			break;
		if (end >= at && !*caret)
			*caret = (unsigned)width + 1;
		if (end >= at && spanned < want) {
			marked += w;
			spanned++;
		}
		width += w;
		end += n;
	}
	for (size_t i = start; i < end;) {
		const char *piece;
		size_t piecelen, w;
		i += wm_show_next(&piece, &piecelen, &w, esc, text + i, end - i, WM_SHOW_TAB);
		wm_buf_add(out, piece, piecelen);
	}
	if (!line_ends(text, len, end))
		wm_buf_puts(out, MARK);
	/* at the end of the line (a missing value, a missing quote): the caret after its last character */
	if (!*caret) {
		*caret = (unsigned)width + 1;
		marked = 1;
	}
	*underline = (unsigned)(marked ? marked : 1);
}
