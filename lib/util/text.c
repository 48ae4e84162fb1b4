/* text.c — "did you mean" suggestions, globs and hex digits, shared by every validator; URLs as messages show them. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/buf.h"
#include "util/text.h"

#define SUGGEST_MAX 64  /* longer words and candidates are not compared */

/*
 * Optimal string alignment distance (insertions, deletions, substitutions,
 * transpositions), or (size_t)-1 when it is certainly over `max`: words
 * whose lengths differ by more are not compared.  An unknown key in a list of
 * millions asks for one suggestion each, so this allocates nothing.
 */
static size_t distance(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][SUGGEST_MAX + 1], *row0 = rows[0], *row1 = rows[1], *row2 = rows[2];
	if (la > SUGGEST_MAX || lb > SUGGEST_MAX || (la > lb ? la - lb : lb - la) > max)
		return (size_t)-1;
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
	return row1[lb];
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
		size_t d = distance(word, candidates[i], limit);
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

char *wm_text_shell_line(const char *const *words, size_t n)
{
	struct wm_buf b = WM_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (i)
			wm_buf_putc(&b, ' ');
		wm_buf_shell_word(&b, words[i], true);
	}
	if (b.oom) {
		wm_buf_release(&b);
		return NULL;
	}
	return wm_buf_detach(&b);
}

/* ---- URLs as messages show them ------------------------------------------------ */

static bool ascii_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * The length of the scheme `url` starts with and the slashes after it
 * ("https://", "http:/"), or 0.  "user:token@host" has none: a scheme is
 * followed by "//", or is http or https followed by a '/'.
 */
static size_t scheme_len(const char *url, size_t len)
{
	size_t i = 0, n;

	if (!len || !ascii_alpha(url[0]))
		return 0;
	while (i < len && (ascii_alpha(url[i]) || (url[i] >= '0' && url[i] <= '9') || url[i] == '+' || url[i] == '-' ||
			url[i] == '.'))
		i++;
	if (i == len || url[i] != ':')
		return 0;
	for (n = i + 1; n < len && url[n] == '/'; n++)
		;
	if (n - (i + 1) >= 2)
		return n;
	if (n > i + 1 && ((i == 4 && strncasecmp(url, "http", 4) == 0) || (i == 5 && strncasecmp(url, "https", 5) == 0)))
		return n;
	return 0;
}

void wm_text_url(struct wm_buf *out, const char *url, size_t len)
{
	size_t scheme = scheme_len(url, len), q, at = len;

	for (q = scheme; q < len && url[q] != '?' && url[q] != '#'; q++)
		;
	for (size_t i = scheme; i < len; i++)
		if (url[i] == '@')
			at = i;
	wm_buf_add(out, url, scheme);
	if (at != len && at > q) {
		wm_buf_puts(out, "<redacted>");
		return;
	}
	/* a '/' in a password written as it is ends the host for curl, not for us: all up to the '@' goes */
	if (at != len)
		scheme = at + 1;
	wm_buf_add(out, url + scheme, q - scheme);
	if (q < len && url[q] == '?')
		wm_buf_puts(out, "?<redacted>");
}

/* True when the word `w` may be a URL or an address with a user name or password; a file's path is not. */
static bool url_like(const char *w, size_t n)
{
	if (n && w[0] != '/' && memchr(w, '@', n))
		return true;
	for (size_t i = 0; i + 2 < n; i++)
		if (w[i] == ':' && w[i + 1] == '/' && w[i + 2] == '/')
			return true;
	return false;
}

void wm_text_redact(struct wm_buf *out, const char *s)
{
	while (*s) {
		const char *close;
		size_t n;

		if (*s == '\'' || *s == '"') {
			/* a quoted address, which may hold spaces: 'user:pass word@proxy' */
			close = strchr(s + 1, *s);
			wm_buf_putc(out, *s);
			if (close && url_like(s + 1, (size_t)(close - s - 1))) {
				wm_text_url(out, s + 1, (size_t)(close - s - 1));
				wm_buf_putc(out, *close);
				s = close + 1;
			} else {
				s++;
			}
			continue;
		}
		n = strcspn(s, " \t\r\n'\"<>");
		if (n == 0) {
			wm_buf_putc(out, *s++);
			continue;
		}
		if (url_like(s, n))
			wm_text_url(out, s, n);
		else
			wm_buf_add(out, s, n);
		s += n;
	}
}
