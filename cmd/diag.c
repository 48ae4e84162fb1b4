/* diag.c — everything the tool says on stderr: its own errors and the library's diagnostics, compiler-style. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"

#define BOLD "\033[1m"
#define RED "\033[1;31m"
#define MAGENTA "\033[1;35m"
#define CYAN "\033[1;36m"
#define GREEN "\033[1;32m"
#define RESET "\033[0m"

static bool color;

void cli_color_init(enum cli_color when)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
	if (when == CLI_COLOR_AUTO)
		color = isatty(STDERR_FILENO) && !(no_color && *no_color) && !(term && strcmp(term, "dumb") == 0);
	else
		color = when == CLI_COLOR_ALWAYS;
}

static const char *paint(const char *code)
{
	return color ? code : "";
}

static void severity(enum wm_severity sev)
{
	static const char *const names[] = { "error", "warning", "note" };
	static const char *const colors[] = { RED, MAGENTA, CYAN };
	unsigned i = (unsigned)sev < 3 ? (unsigned)sev : 0;
	fprintf(stderr, "%s%s:%s ", paint(colors[i]), names[i], paint(RESET));
}

static void vmessage(enum wm_severity sev, const char *fmt, va_list ap)
{
	fprintf(stderr, "%swheelmatrix:%s ", paint(BOLD), paint(RESET));
	severity(sev);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(WM_SEV_ERROR, fmt, ap);
	va_end(ap);
}

void cli_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(WM_SEV_NOTE, fmt, ap);
	va_end(ap);
}

static bool utf8_lead(char c)
{
	return ((unsigned char)c & 0xc0) != 0x80;
}

/*
 * The caret line under `source`: the characters before `column` become
 * spaces, except tabs, which stay tabs so that the caret lines up whatever
 * the tab width; then a caret and span-1 tildes, kept within the line.
 */
static void caret(const char *source, unsigned column, unsigned span)
{
	const char *p = source;
	unsigned left = 0;
	fputs("      | ", stderr);
	for (unsigned c = 1; c < column; c++) {
		if (*p) {
			fputc(*p == '\t' ? '\t' : ' ', stderr);
			do
				p++;
			while (*p && !utf8_lead(*p));
		} else {
			fputc(' ', stderr);
		}
	}
	for (const char *q = p; *q; q++)
		left += utf8_lead(*q);
	if (span > left)
		span = left;
	fprintf(stderr, "%s^", paint(GREEN));
	for (unsigned i = 1; i < span; i++)
		fputc('~', stderr);
	fprintf(stderr, "%s\n", paint(RESET));
}

/*
 * Writes `s` with each character that would act on the terminal or hide
 * text written as one '?' (so the caret still lines up): C0 controls but
 * tab, DEL, C1 controls (U+009B is a CSI), U+2028/U+2029 and the
 * bidirectional controls.  Messages quote the matrix file's values and
 * source lines.
 */
static void put_shown(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = 0;
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			n = 1;
		else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			n = 2;
		else if (p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xa8 && p[2] <= 0xae) ||
				(p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9)))
			n = 3;
		fputc(n ? '?' : *p, stderr);
		p += n ? n : 1;
	}
}

static void print_diag(const struct wm_diag *d)
{
	fputs(paint(BOLD), stderr);
	if (!d->file) {
		fputs("wheelmatrix:", stderr);
	} else {
		put_shown(d->file);
		if (!d->line)
			fputs(":", stderr);
		else if (!d->column)
			fprintf(stderr, ":%u:", d->line);
		else
			fprintf(stderr, ":%u:%u:", d->line, d->column);
	}
	fprintf(stderr, "%s ", paint(RESET));
	severity(d->severity);
	put_shown(d->message ? d->message : "out of memory");
	fputc('\n', stderr);
	if (!d->source || !d->line)
		return;
	fprintf(stderr, "%5u | ", d->line);
	put_shown(d->source);
	fputc('\n', stderr);
	if (d->column)
		caret(d->source, d->column, d->span);
}

void cli_print_diags(struct wm_error *err)
{
	wm_error_sort(err);
	for (size_t i = 0; i < err->ndiags; i++)
		print_diag(&err->diags[i]);
	if (err->truncated)
		cli_note("too many errors; only the first %d are shown", WM_ERROR_MAX);
	/* a failure without a diagnostic: an allocation failed while reporting */
	if (err->code < 0 && err->nerrors == 0)
		cli_error("%s", err->code == WM_ENOMEM ? "out of memory" : "unexpected failure");
}

int cli_exit_code(int code)
{
	switch (code) {
	case WM_OK:
		return CLI_EXIT_OK;
	case WM_EINVALID:
	case WM_EREAD:
		return CLI_EXIT_USAGE;
	case WM_ESTATE:
		return CLI_EXIT_STATE;
	default:
		return CLI_EXIT_ENV;
	}
}
