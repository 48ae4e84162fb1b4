/* fuzz.h — what the libFuzzer targets of tests/fuzz/ share: property checks that abort with a message. */
#ifndef WM_FUZZ_H
#define WM_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/common.h"
#include "util/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property failed: say which, then abort, which libFuzzer records as a crash with the input. */
#define FUZZ_CHECK(cond, ...) do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

/* Prints the diagnostics of `err` to stderr (for a failing property's report). */
static inline void fuzz_print_errors(const struct wm_error *err)
{
	for (size_t i = 0; i < err->ndiags; i++) {
		const struct wm_diag *d = &err->diags[i];
		fprintf(stderr, "  %s:%u:%u: %s\n", d->file ? d->file : "", d->line, d->column,
			d->message ? d->message : "(no message)");
	}
}

/*
 * The length of a character that must never be written raw into a file or a
 * terminal at s[0], or 0: a C0 control other than tab and line feed, DEL, a
 * C1 control (U+0080-U+009F), U+2028/U+2029 and the bidirectional controls
 * U+202A-U+202E and U+2066-U+2069.
 */
static inline size_t fuzz_control_at(const unsigned char *s, size_t len)
{
	if ((s[0] < 0x20 && s[0] != '\t' && s[0] != '\n') || s[0] == 0x7f)
		return 1;
	if (len >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	if (len >= 3 && s[0] == 0xe2 && s[1] == 0x80 && s[2] >= 0xa8 && s[2] <= 0xae)
		return 3;
	if (len >= 3 && s[0] == 0xe2 && s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)
		return 3;
	return 0;
}

/* The offset of the first such character in `s`, or SIZE_MAX. */
static inline size_t fuzz_find_control(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (fuzz_control_at((const unsigned char *)s + i, len - i))
			return i;
	return SIZE_MAX;
}

/* Checks that no such character is in `s`, naming `what` when one is. */
static inline void fuzz_check_no_control(const char *what, const char *s, size_t len)
{
	size_t at = fuzz_find_control(s, len);
	FUZZ_CHECK(at == SIZE_MAX, "%s has the control byte 0x%02x at offset %zu: ...%.*s...", what,
		(unsigned char)s[at], at, (int)(len - at < 60 ? len - at : 60), s + at);
}

/*
 * Bounds of positions in `text`: the lines (every line break a reader may
 * count: LF, CR, CRLF, NEL, U+2028, U+2029) and the longest line in bytes.
 */
struct fuzz_extent {
	unsigned lines;
	size_t longest;
};

static inline struct fuzz_extent fuzz_extent(const char *text, size_t len)
{
	struct fuzz_extent e = { 1, 0 };
	size_t start = 0;
	const unsigned char *s = (const unsigned char *)text;
	for (size_t i = 0; i < len; i++) {
		size_t brk = 0;
		if (s[i] == '\n')
			brk = 1;
		else if (s[i] == '\r')
			brk = i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
		else if (i + 1 < len && s[i] == 0xc2 && s[i + 1] == 0x85)
			brk = 2;
		else if (i + 2 < len && s[i] == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9))
			brk = 3;
		if (!brk)
			continue;
		e.lines++;
		i += brk - 1;
	}
	/* the longest run between line feeds: columns count from the last LF at most */
	for (size_t i = 0; i <= len; i++) {
		if (i == len || s[i] == '\n') {
			if (i - start > e.longest)
				e.longest = i - start;
			start = i + 1;
		}
	}
	return e;
}

/*
 * The shape of what a diagnostic quotes, whatever the input's: a message of at
 * most 1024 bytes; a source line of at most WM_SHOW_WINDOW columns, valid
 * UTF-8, with no character a terminal acts on but tabs; its caret (with a
 * column) within it or one past its end, the underline too.
 */
static inline void fuzz_check_quote(const struct wm_diag *d)
{
	const char *s = d->source;
	size_t columns = 0, len;
	unsigned line, column;
	unsigned char byte;

	FUZZ_CHECK(!d->message || strlen(d->message) <= 1024, "a message of %zu bytes", strlen(d->message));
	if (!s)
		return;
	len = strlen(s);
	FUZZ_CHECK(wm_utf8_valid(s, len, &line, &column, &byte), "a quoted source line is not UTF-8: %s", s);
	for (size_t i = 0; i < len;) {
		bool control;
		size_t n = wm_utf8_next(s + i, len - i, &control);
		FUZZ_CHECK(!control || s[i] == '\t', "a quoted source line holds the control 0x%02x: %s",
			(unsigned char)s[i], s);
		i += n;
		columns++;
	}
	FUZZ_CHECK(columns <= WM_SHOW_WINDOW, "a quoted source line of %zu columns: %s", columns, s);
	if (!d->column) {
		FUZZ_CHECK(d->source_column == 0, "a caret at %u for a diagnostic without a column", d->source_column);
		return;
	}
	FUZZ_CHECK(d->source_column >= 1 && d->source_column <= columns + 1 && d->source_span >= 1 &&
		d->source_column + d->source_span - 1 <= columns + 1,
		"caret %u, underline %u under a quote of %zu columns: %s", d->source_column, d->source_span, columns, s);
}

/*
 * Every diagnostic about the file `file` has a position inside `text`: a line
 * from 1 to the number of lines, a column from 1 to one past the longest line
 * (a column counts characters, so never more than bytes); and every
 * diagnostic quotes in the shape fuzz_check_quote wants.
 */
static inline void fuzz_check_positions(const struct wm_error *err, const char *file, const char *text, size_t len)
{
	struct fuzz_extent e = fuzz_extent(text, len);
	for (size_t i = 0; i < err->ndiags; i++) {
		const struct wm_diag *d = &err->diags[i];
		fuzz_check_quote(d);
		if (!d->file || strcmp(d->file, file) != 0 || d->line == 0)
			continue;
		if (d->line > e.lines || d->column == 0 || d->column > e.longest + 1) {
			fuzz_print_errors(err);
			FUZZ_CHECK(0, "%s:%u:%u is outside the input (%u lines, the longest %zu bytes)", file, d->line,
				d->column, e.lines, e.longest);
		}
	}
}

#endif
