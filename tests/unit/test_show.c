/* test_show.c — unit tests of what a person is shown: escapes, a long line's window, and the diagnostics' quotes and limits. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/show.h"

/* s[0..len) as shown, in a static buffer. */
static const char *shown(const char *s, size_t len, unsigned keep)
{
	static char out[4096];
	struct wm_buf b = WM_BUF_INIT;
	wm_buf_add(&b, "", 0);
	wm_show_add(&b, s, len, keep);
	snprintf(out, sizeof(out), "%s", b.oom ? "(oom)" : b.ptr);
	wm_buf_release(&b);
	return out;
}

#define SHOWN(lit, keep) shown(lit, sizeof(lit) - 1, keep)

static void test_escapes(void)
{
	CHECK_STR(SHOWN("plain text, é, 😀", 0), "plain text, é, 😀");
	CHECK_STR(SHOWN("a\x1b[2Jb\x7f", 0), "a<U+001B>[2Jb<U+007F>");
	CHECK_STR(SHOWN("\xc2\x9b" "31m \xc2\x9d" "0;t \xc2\x85", 0), "<U+009B>31m <U+009D>0;t <U+0085>");
	CHECK_STR(SHOWN("\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\x8f\xd8\x9c\xe2\x80\xae", 0),
		"<U+2028><U+2029><U+200F><U+061C><U+202E>");
	/* format characters beyond the bidi controls: soft hyphen, zero width space, BOM, a tag character */
	CHECK_STR(SHOWN("a\xc2\xad" "b\xe2\x80\x8b" "c\xef\xbb\xbf" "d\xf3\xa0\x80\x81", 0),
		"a<U+00AD>b<U+200B>c<U+FEFF>d<U+E0001>");
	/* bytes that are not UTF-8, one escape each: a lone CSI byte, a cut sequence, overlong, a surrogate, past U+10FFFF */
	CHECK_STR(SHOWN("\x9b" "2J", 0), "<9B>2J");
	CHECK_STR(SHOWN("\xe2\x80", 0), "<E2><80>");
	CHECK_STR(SHOWN("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80", 0), "<C0><AF><ED><A0><80><F4><90><80><80>");
	CHECK_STR(SHOWN("\0x", 0), "<U+0000>x");
	/* tabs and line feeds are escaped unless kept */
	CHECK_STR(SHOWN("a\tb\nc\r", 0), "a<U+0009>b<U+000A>c<U+000D>");
	CHECK_STR(SHOWN("a\tb\nc\r", WM_SHOW_TAB), "a\tb<U+000A>c<U+000D>");
	CHECK_STR(SHOWN("a\tb\nc\r", WM_SHOW_TAB | WM_SHOW_NEWLINE), "a\tb\nc<U+000D>");
}

static void test_pieces(void)
{
	char esc[WM_SHOW_ESCAPE_SIZE];
	const char *piece;
	size_t piecelen, width, n;
	size_t big = 1 << 20;
	char *s = malloc(big);

	/* a run shown as it is is one piece, however long: a writer writes it at once */
	CHECK(s != NULL);
	if (!s)
		return;
	memset(s, 'a', big);
	memcpy(s + big - 2, "\xc3\xa9", 2);
	n = wm_show_next(&piece, &piecelen, &width, esc, s, big, 0);
	CHECK(n == big && piece == s && piecelen == big && width == big - 1);
	free(s);
	n = wm_show_next(&piece, &piecelen, &width, esc, "\xc2\x9bx", 3, 0);
	CHECK(n == 2 && piece == esc && piecelen == 8 && width == 8);
	CHECK_STR(esc, "<U+009B>");
	n = wm_show_next(&piece, &piecelen, &width, esc, "", 0, 0);
	CHECK(n == 0 && piecelen == 0 && width == 0);
}

/* The window wm_show_window quotes of the line holding byte `at` of `text`: its text, caret and underline. */
struct quote {
	char text[2048];
	unsigned caret, underline;
};

static struct quote window(const char *text, size_t len, size_t at, unsigned span)
{
	struct quote q;
	struct wm_buf b = WM_BUF_INIT;
	wm_buf_add(&b, "", 0);
	wm_show_window(&b, &q.caret, &q.underline, text, len, at, span);
	snprintf(q.text, sizeof(q.text), "%s", b.oom ? "(oom)" : b.ptr);
	wm_buf_release(&b);
	return q;
}

static size_t columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void test_window(void)
{
	char line[1024];
	struct quote q;

	q = window("a: 1\nkey: [x, y]\r\nz\n", 20, 11, 1);  /* the 'x' of line 2 */
	CHECK_STR(q.text, "key: [x, y]");
	CHECK(q.caret == 7 && q.underline == 1);
	q = window("a: 1\nkey: [x, y]\r\nz\n", 20, 16, 3);  /* the line's end: its CR */
	CHECK_STR(q.text, "key: [x, y]");
	CHECK(q.caret == 12 && q.underline == 1);
	q = window("a: 1\nkey: [x, y]\r\nz\n", 20, 17, 1);  /* the LF of the CRLF: the same place */
	CHECK(q.caret == 12);
	q = window("a: 1\nkey: [x, y]\r\nz", 19, 19, 1);  /* the end of a last line without a line break */
	CHECK_STR(q.text, "z");
	CHECK(q.caret == 2 && q.underline == 1);
	/* an escaped character before the caret moves it by its escape's width; one under it is underlined whole */
	q = window("x\x1b" "y: \xc2\x9b", 7, 5, 1);
	CHECK_STR(q.text, "x<U+001B>y: <U+009B>");
	CHECK(q.caret == 13 && q.underline == 8);
	q = window("\tkey: 1", 7, 1, 3);  /* a tab stays, one column */
	CHECK_STR(q.text, "\tkey: 1");
	CHECK(q.caret == 2 && q.underline == 3);

	/* a line of 1000 columns: a caret near its start keeps the start, "..." at the cut end */
	for (size_t i = 0; i < sizeof(line) - 1; i++)
		line[i] = (char)('a' + i % 26);
	line[sizeof(line) - 1] = '\0';
	q = window(line, strlen(line), 90, 4);
	CHECK(columns(q.text) == WM_SHOW_WINDOW && strncmp(q.text, line, 157) == 0);
	CHECK(strcmp(q.text + 157, "...") == 0);
	CHECK(q.caret == 91 && q.underline == 4 && q.text[q.caret - 1] == line[90]);
	/* further right: "..." on both sides, the caret 60 columns from the left, under the same character */
	q = window(line, strlen(line), 500, 4);
	CHECK(columns(q.text) == WM_SHOW_WINDOW && strncmp(q.text, "...", 3) == 0);
	CHECK(strcmp(q.text + WM_SHOW_WINDOW - 3, "...") == 0);
	CHECK(q.caret == 61 && q.text[q.caret - 1] == line[500] && strncmp(q.text + 60, line + 500, 97) == 0);
	/* at the end: the last 57 columns and the caret one past them */
	q = window(line, strlen(line), strlen(line), 1);
	CHECK(strncmp(q.text, "...", 3) == 0 && strcmp(q.text + 3, line + strlen(line) - 57) == 0);
	CHECK(q.caret == 61 && q.underline == 1);
	/* an underline is cut where the window is */
	q = window(line, strlen(line), 500, 500);
	CHECK(q.caret + q.underline - 1 == WM_SHOW_WINDOW - 3);
	/* a line of 160 columns exactly is not cut, wherever the caret; one more is */
	q = window(line, WM_SHOW_WINDOW, 150, 1);
	CHECK(columns(q.text) == WM_SHOW_WINDOW && strncmp(q.text, line, WM_SHOW_WINDOW) == 0 && q.caret == 151);
	q = window(line, WM_SHOW_WINDOW + 1, 150, 1);
	CHECK(strncmp(q.text, "...", 3) == 0 && q.caret == 61 && q.text[60] == line[150]);
	/* escapes count as what they show: 100 ESC before the caret are 800 columns, cut too */
	memset(line, 0x1b, 100);
	strcpy(line + 100, "key");
	q = window(line, strlen(line), 100, 3);
	CHECK(strncmp(q.text, "...<U+001B>", 11) == 0 && strcmp(q.text + q.caret - 1, "key") == 0);
	CHECK(q.caret <= 61 && q.underline == 3);
}

/* Line `line`, column `column` of text by reading it from the start: the offset quote() must find. */
static size_t naive_offset(const char *text, size_t len, unsigned line, unsigned column, bool *found)
{
	unsigned l = 1, c = 1;
	size_t i = 0;
	for (; i < len; i++) {
		unsigned char ch = (unsigned char)text[i];
		bool lead = (ch & 0xc0) != 0x80;
		if (l == line && (ch == '\n' || (lead && c >= column)))
			break;
		if (l > line)
			break;
		if (ch == '\n')
			l++, c = 1;
		else if (lead)
			c++;
	}
	*found = l == line;
	return i;
}

static unsigned long long rng = 88172645463325252ull;

static unsigned next(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* A text of random lines: short, long (up to 40,000 characters), multibyte, CRLF, controls. */
static char *random_text(size_t *len, unsigned *lines)
{
	static const char *const pieces[] = { "a", "b c", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\t", "\x1b",
		"\xc2\x9b", "\xe2\x80\xae", "\x9b", "\r" };
	struct wm_buf b = WM_BUF_INIT;
	*lines = 1 + next(60);
	for (unsigned l = 0; l < *lines; l++) {
		unsigned n = next(8) == 0 ? next(40000) : next(200);
		for (unsigned i = 0; i < n; i++)
			wm_buf_puts(&b, pieces[next(WM_ARRAY_SIZE(pieces))]);
		wm_buf_puts(&b, next(4) ? "\n" : "\r\n");
	}
	*len = b.len;
	return wm_buf_detach(&b);
}

/* Overwrites text[0..len) with other random lines: another text of the same length at the same address. */
static void rewrite(char *text, size_t len)
{
	unsigned lines;
	size_t n;
	char *other = random_text(&n, &lines);
	for (size_t i = 0; i < len; i++)
		text[i] = other ? other[i % n] : '\n';
	free(other);
}

/*
 * Every quote of a diagnostic is the window of the place a plain reading of
 * the text finds, whatever the order of the diagnostics and however many
 * texts they quote in turn (another text of the same length at the same
 * address among them), all in one report.
 */
static void test_quotes(void)
{
	struct wm_error err;
	size_t len[5];
	unsigned lines[5];
	char *text[5];
	int bad = 0, quoted = 0;

	wm_error_init(&err);
	for (int t = 0; t < 5; t++)
		text[t] = random_text(&len[t], &lines[t]);
	for (int round = 0; round < 5000; round++) {
		int t = (int)next(round < 2500 ? 2 : 5);
		unsigned line = 1 + next(lines[t] + 2), column = next(3) ? 1 + next(300) : 1 + next(60000), span = next(5);
		bool found;
		size_t at;
		struct quote want;
		const struct wm_diag *d;
		if (next(200) == 0)
			rewrite(text[t], len[t]);
		at = naive_offset(text[t], len[t], line, column, &found);
		want = window(text[t], len[t], at, span);
		/* notes: as many as wanted are kept */
		wm_error_add(&err, WM_EINVALID, WM_SEV_NOTE, "t", text[t], len[t], line, column, span, "m");
		if (err.ndiags != (size_t)round + 1) {
			bad++;
			break;
		}
		d = &err.diags[round];
		quoted += found;
		if (found ? !d->source || strcmp(d->source, want.text) != 0 || d->source_column != want.caret ||
				d->source_span != want.underline : d->source != NULL)
			bad++;
	}
	CHECK(bad == 0 && quoted > 3500);
	wm_error_release(&err);
	for (int t = 0; t < 5; t++)
		free(text[t]);
}

static void test_limits(void)
{
	struct wm_error err;
	size_t notes = 0;
	char *big = malloc(1 << 20);

	/* WM_ERROR_MAX errors, each with its note, the last one's too; the notes of those dropped are dropped */
	wm_error_init(&err);
	for (int i = 0; i < 150; i++) {
		wm_error_add(&err, WM_EINVALID, WM_SEV_ERROR, "f", NULL, 0, 1, 1, 1, "error %d", i);
		wm_error_add(&err, WM_EINVALID, WM_SEV_NOTE, "f", NULL, 0, 1, 1, 1, "note %d", i);
	}
	for (size_t i = 0; i < err.ndiags; i++)
		notes += err.diags[i].severity == WM_SEV_NOTE;
	CHECK(err.nerrors == WM_ERROR_MAX && notes == WM_ERROR_MAX && err.truncated && !err.warnings_truncated);
	CHECK(err.ndiags > 0 && strcmp(err.diags[err.ndiags - 1].message, "note 99") == 0);
	CHECK(err.code == WM_EINVALID);
	wm_error_release(&err);

	/* as many warnings */
	wm_error_init(&err);
	for (int i = 0; i < 150; i++)
		wm_error_add(&err, WM_OK, WM_SEV_WARNING, "f", NULL, 0, 1, 1, 1, "warning %d", i);
	CHECK(err.ndiags == WM_ERROR_MAX && err.nwarnings == WM_ERROR_MAX && err.warnings_truncated && !err.truncated);
	wm_error_add(&err, WM_EINVALID, WM_SEV_ERROR, "f", NULL, 0, 1, 1, 1, "an error after them");
	CHECK(err.nerrors == 1 && err.ndiags == WM_ERROR_MAX + 1);
	wm_error_release(&err);

	/* a message quoting a megabyte keeps its start and end */
	CHECK(big != NULL);
	if (!big)
		return;
	memset(big, 'x', (1 << 20) - 1);
	big[(1 << 20) - 1] = '\0';
	big[0] = 'S';
	big[(1 << 20) - 2] = 'E';
	wm_error_init(&err);
	wm_error_add(&err, WM_EINVALID, WM_SEV_ERROR, "f", NULL, 0, 1, 1, 1, "unknown key '%s' in 'project'", big);
	CHECK(err.ndiags == 1 && strlen(err.diags[0].message) <= 1024);
	CHECK(err.ndiags == 1 && strncmp(err.diags[0].message, "unknown key 'Sxxx", 17) == 0);
	CHECK(err.ndiags == 1 && strstr(err.diags[0].message, "xxx...xxx") != NULL);
	CHECK(err.ndiags == 1 && strstr(err.diags[0].message, "xxE' in 'project'") != NULL);
	wm_error_release(&err);
	free(big);
}

int main(void)
{
	test_escapes();
	test_pieces();
	test_window();
	test_quotes();
	test_limits();
	return harness_done();
}
