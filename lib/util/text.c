/* text.c — UTF-8 checks, "did you mean" suggestions and globs, shared by every validator. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "util/text.h"

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

size_t wm_utf8_next(const char *s, size_t avail, bool *control)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	uint32_t cp;

	*control = false;
	if (avail == 0)
		return 0;
	if (*p < 0x80) {
		*control = *p < 0x20 || *p == 0x7f;
		return 1;
	}
	if ((n = utf8_seq(p, avail)) == 0) {
		*control = true;
		return 1;
	}
	if (n == 4)
		return n;  /* no control above U+FFFF */
	cp = n == 2 ? (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f) :
		(uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
	*control = (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
		(cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
	return n;
}

/* Optimal string alignment distance: insertions, deletions, substitutions, transpositions. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d;
	size_t *base, *row0, *row1, *row2;
	if (la > 64 || lb > 64)
		return (size_t)-1;
	base = row0 = calloc(3 * (lb + 1), sizeof(size_t));
	if (!base)
		return (size_t)-1;
	row1 = row0 + lb + 1;
	row2 = row1 + lb + 1;
	for (size_t j = 0; j <= lb; j++)
		row1[j] = j;
	for (size_t i = 1; i <= la; i++) {
		row2[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = row1[j - 1] + cost;
			if (row1[j] + 1 < v)
				v = row1[j] + 1;
			if (row2[j - 1] + 1 < v)
				v = row2[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && row0[j - 2] + 1 < v)
				v = row0[j - 2] + 1;
			row2[j] = v;
		}
		size_t *t = row0;
		row0 = row1;
		row1 = row2;
		row2 = t;
	}
	d = row1[lb];
	free(base);
	return d;
}

const char *wm_text_suggest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, len = strlen(word);
	/* a third of the word, at least one edit and at most three */
	size_t limit = len / 3;
	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, candidates[i]);
		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		}
	}
	if (best && best_d <= limit && best_d < len)
		return best;
	/* a different case or separator is a typo too: Linux-X86_64, linux_x86_64 */
	for (size_t i = 0; i < n; i++) {
		const char *a = word, *b = candidates[i];
		for (; *a && *b; a++, b++) {
			char ca = *a == '_' ? '-' : (*a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a);
			char cb = *b == '_' ? '-' : (*b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b);
			if (ca != cb)
				break;
		}
		if (!*a && !*b)
			return candidates[i];
	}
	return NULL;
}

int wm_text_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool wm_text_glob_match(const char *pattern, const char *s)
{
	return fnmatch(pattern, s, 0) == 0;
}

bool wm_text_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}
