/* utf8.c — UTF-8 checked, measured, written, repaired, and read one character at a time with its controls found; UTF-16 turned into it. */
#include <stdint.h>
#include <string.h>
#include "util/buf.h"
#include "util/utf8.h"

/* Length of the valid UTF-8 sequence at `p` (at most `avail` bytes), 0 when it is not one. */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
	unsigned char b = *p;
	size_t n;
	uint32_t cp, min;
	if (b < 0x80)
		return 1;
	if ((b & 0xe0) == 0xc0) {
		n = 2; cp = b & 0x1f; min = 0x80;
	} else if ((b & 0xf0) == 0xe0) {
		n = 3; cp = b & 0x0f; min = 0x800;
	} else if ((b & 0xf8) == 0xf0) {
		n = 4; cp = b & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

bool wm_utf8_valid(const char *s, size_t len, unsigned *line, unsigned *column, unsigned char *byte)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	unsigned l = 1, c = 1;
	while (p < end) {
		size_t n = utf8_seq(p, (size_t)(end - p));
		if (n == 0) {
			*line = l;
			*column = c;
			*byte = *p;
			return false;
		}
		if (*p == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
		p += n;
	}
	return true;
}

uint32_t wm_utf8_find_break(const char *s, size_t len, unsigned *line, unsigned *column)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp = 0;
	size_t i;

	/* C2 85, E2 80 A8 and E2 80 A9: the lead bytes are rare, so only they are looked at closely */
	for (i = 0; i + 1 < len && !cp; i++) {
		if (p[i] == 0xc2 && p[i + 1] == 0x85)
			cp = 0x85;
		else if (p[i] == 0xe2 && i + 2 < len && p[i + 1] == 0x80 && (p[i + 2] == 0xa8 || p[i + 2] == 0xa9))
			cp = p[i + 2] == 0xa8 ? 0x2028 : 0x2029;
	}
	if (!cp)
		return 0;
	*line = 1;
	*column = 1;
	for (size_t k = 0; k + 1 < i; k++) {
		if (p[k] == '\n') {
			++*line;
			*column = 1;
		} else if ((p[k] & 0xc0) != 0x80) {
			++*column;
		}
	}
	return cp;
}

const char *wm_utf8_break_name(uint32_t cp)
{
	return cp == 0x85 ? "NEXT LINE (U+0085)" : cp == 0x2028 ? "LINE SEPARATOR (U+2028)" : "PARAGRAPH SEPARATOR (U+2029)";
}

void wm_utf8_sanitize(struct wm_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		size_t n = utf8_seq(p, (size_t)(end - p));
		if (n == 0) {
			wm_buf_add(out, "\xef\xbf\xbd", 3);  /* U+FFFD, one character like the byte it replaces */
			p++;
		} else {
			wm_buf_add(out, (const char *)p, n);
			p += n;
		}
	}
}

size_t wm_utf8_len(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

void wm_utf8_put(struct wm_buf *out, uint32_t cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	wm_buf_add(out, b, n);
}

bool wm_utf8_from_utf16(struct wm_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	bool little;
	size_t i;

	if (len < 2 || !((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff)))
		return false;
	little = p[0] == 0xff;
	for (i = 2; i + 1 < len; i += 2) {
		uint32_t u = little ? (uint32_t)(p[i] | p[i + 1] << 8) : (uint32_t)(p[i] << 8 | p[i + 1]), v;
		if (u >= 0xd800 && u < 0xdc00 && i + 3 < len) {
			v = little ? (uint32_t)(p[i + 2] | p[i + 3] << 8) : (uint32_t)(p[i + 2] << 8 | p[i + 3]);
			if (v >= 0xdc00 && v < 0xe000) {
				wm_utf8_put(out, 0x10000 + ((u - 0xd800) << 10) + (v - 0xdc00));
				i += 2;
				continue;
			}
		}
		wm_utf8_put(out, u >= 0xd800 && u < 0xe000 ? 0xfffd : u);
	}
	if (i < len)
		wm_utf8_put(out, 0xfffd);
	return true;
}

/*
 * Unicode's format characters (general category Cf, Unicode 15.1), as ranges: they change how
 * text around them shows (direction, joining) or show as nothing at all.  The one table of what
 * is hidden, for paths (wm_utf8_find_hidden) and for what is shown (wm_utf8_is_control);
 * tests/t-show.sh holds it to Python's unicodedata.
 */
static const uint32_t format_chars[][2] = {
	{ 0x00ad, 0x00ad }, { 0x0600, 0x0605 }, { 0x061c, 0x061c }, { 0x06dd, 0x06dd }, { 0x070f, 0x070f },
	{ 0x0890, 0x0891 }, { 0x08e2, 0x08e2 }, { 0x180e, 0x180e }, { 0x200b, 0x200f }, { 0x202a, 0x202e },
	{ 0x2060, 0x2064 }, { 0x2066, 0x206f }, { 0xfeff, 0xfeff }, { 0xfff9, 0xfffb }, { 0x110bd, 0x110bd },
	{ 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 }, { 0x1d173, 0x1d17a },
	{ 0xe0001, 0xe0001 }, { 0xe0020, 0xe007f },
};

static bool hidden(uint32_t cp)
{
	size_t lo = 0, hi = sizeof(format_chars) / sizeof(format_chars[0]);
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
		return true;
	if (cp < format_chars[0][0])
		return false;  /* the common case, without a search: every character shown asks */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < format_chars[mid][0])
			hi = mid;
		else if (cp > format_chars[mid][1])
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

size_t wm_utf8_decode(const char *s, size_t avail, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	if (avail == 0) {
		*cp = WM_UTF8_BAD;
		return 0;
	}
	if (*p < 0x80) {
		*cp = *p;
		return 1;
	}
	if ((n = utf8_seq(p, avail)) == 0) {
		*cp = WM_UTF8_BAD | *p;
		return 1;
	}
	*cp = n == 2 ? (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f) :
		n == 3 ? (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f) :
		(uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 | (uint32_t)(p[2] & 0x3f) << 6 |
		(p[3] & 0x3f);
	return n;
}

bool wm_utf8_is_control(uint32_t cp)
{
	return (cp & WM_UTF8_BAD) || hidden(cp);
}

size_t wm_utf8_next(const char *s, size_t avail, bool *control)
{
	uint32_t cp;
	size_t n = wm_utf8_decode(s, avail, &cp);
	*control = n > 0 && wm_utf8_is_control(cp);
	return n;
}

size_t wm_utf8_find_hidden(const char *s, size_t len, uint32_t *cp, size_t *n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		size_t k = utf8_seq(p + i, len - i);
		uint32_t c;
		if (k == 0) {
			*cp = p[i];
			*n = 1;
			return i;
		}
		c = k == 1 ? p[i] : p[i] & (0x7fu >> k);
		for (size_t j = 1; j < k; j++)
			c = c << 6 | (p[i + j] & 0x3f);
		if (hidden(c)) {
			*cp = c;
			*n = k;
			return i;
		}
		i += k;
	}
	*cp = 0;
	*n = 0;
	return len;
}
