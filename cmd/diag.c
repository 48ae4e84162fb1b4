/* diag.c — what the tool says to a person: its errors, the library's diagnostics compiler-style, input shown escaped. */
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

/*
 * A diagnostic is put together in memory and written with one write: stderr
 * is unbuffered, and a line written a piece at a time is a system call per
 * piece.  Without the memory, it goes straight to stderr.
 */
struct composed {
	FILE *f;
	char *text;
	size_t len;
};

static FILE *compose(struct composed *c)
{
	c->text = NULL;
	c->len = 0;
	c->f = open_memstream(&c->text, &c->len);
	return c->f ? c->f : stderr;
}

static void flush_composed(struct composed *c)
{
	if (c->f && fclose(c->f) == 0)
		fwrite(c->text, 1, c->len, stderr);
	free(c->text);
}

static void severity(FILE *f, enum wm_severity sev)
{
	static const char *const names[] = { "error", "warning", "note" };
	static const char *const colors[] = { RED, MAGENTA, CYAN };
	unsigned i = (unsigned)sev < 3 ? (unsigned)sev : 0;
	fprintf(f, "%s%s:%s ", paint(colors[i]), names[i], paint(RESET));
}

static void show(FILE *f, const char *s, size_t len, unsigned keep)
{
	char esc[WM_SHOW_ESCAPE_SIZE];
	while (len) {
		const char *piece;
		size_t piecelen, width, n = wm_show_next(&piece, &piecelen, &width, esc, s, len, keep);
		fwrite(piece, 1, piecelen, f);
		s += n;
		len -= n;
	}
}

void cli_show(FILE *f, const char *s)
{
	show(f, s, strlen(s), 0);
}

size_t cli_show_width(const char *s)
{
	char esc[WM_SHOW_ESCAPE_SIZE];
	size_t len = strlen(s), total = 0;
	while (len) {
		const char *piece;
		size_t piecelen, width, n = wm_show_next(&piece, &piecelen, &width, esc, s, len, 0);
		total += width;
		s += n;
		len -= n;
	}
	return total;
}

/*
 * Writes the format's text shown: every control escaped, a line feed that
 * the format ends with kept (a value's own line feed would start a line that
 * looks like the tool's).
 */
static void vprint(FILE *f, const char *fmt, va_list ap)
{
	char small[1024], *text = small;
	va_list again;
	size_t len;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small) && (text = malloc((size_t)n + 1)) != NULL)
		vsnprintf(text, (size_t)n + 1, fmt, again);
	va_end(again);
	if (n < 0)
		return;
	len = text ? (size_t)n : strlen(small);
	if (!text)
		text = small;
	if (len && fmt[0] && fmt[strlen(fmt) - 1] == '\n' && text[len - 1] == '\n') {
		show(f, text, len - 1, 0);
		fputc('\n', f);
	} else {
		show(f, text, len, 0);
	}
	if (text != small)
		free(text);
}

void cli_print(FILE *f, const char *fmt, ...)
{
	struct composed c = { NULL, NULL, 0 };
	va_list ap;
	va_start(ap, fmt);
	vprint(f == stderr ? compose(&c) : f, fmt, ap);
	va_end(ap);
	if (f == stderr)
		flush_composed(&c);
}

void cli_write_text(const char *data, size_t len)
{
	static int tty = -1;
	if (tty < 0)
		tty = isatty(STDOUT_FILENO);
	if (tty)
		show(stdout, data, len, WM_SHOW_TAB | WM_SHOW_NEWLINE);
	else
		fwrite(data, 1, len, stdout);
}

static void vmessage(enum wm_severity sev, const char *fmt, va_list ap)
{
	struct composed c;
	FILE *f = compose(&c);
	fprintf(f, "%swheelmatrix:%s ", paint(BOLD), paint(RESET));
	severity(f, sev);
	/* the values it quotes come from the command line and the matrix file */
	vprint(f, fmt, ap);
	fputc('\n', f);
	flush_composed(&c);
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

/*
 * The caret line under the quoted source: each character left of the caret
 * a space, but tabs, which stay tabs so that the caret lines up whatever the
 * tab width; then a caret and a tilde for each further column of the span.
 * The quote is a window of at most WM_SHOW_WINDOW columns, shown (escapes are
 * ASCII): this walks no more than that.
 */
static void caret(FILE *f, const struct wm_diag *d)
{
	const char *p = d->source;
	fputs("      | ", f);
	for (unsigned c = 1; c < d->source_column; c++) {
		if (*p) {
			fputc(*p == '\t' ? '\t' : ' ', f);
			do
				p++;
			while (((unsigned char)*p & 0xc0) == 0x80);
		} else {
			fputc(' ', f);
		}
	}
	fprintf(f, "%s^", paint(GREEN));
	for (unsigned i = 1; i < d->source_span; i++)
		fputc('~', f);
	fprintf(f, "%s\n", paint(RESET));
}

static void print_diag(const struct wm_diag *d)
{
	struct composed c;
	FILE *f = compose(&c);
	fputs(paint(BOLD), f);
	if (!d->file) {
		fputs("wheelmatrix:", f);
	} else {
		cli_show(f, d->file);
		if (d->line)
			fprintf(f, ":%u", d->line);
		if (d->line && d->column)
			fprintf(f, ":%u", d->column);
		fputc(':', f);
	}
	fprintf(f, "%s ", paint(RESET));
	severity(f, d->severity);
	cli_show(f, d->message ? d->message : "out of memory");
	fputc('\n', f);
	if (d->source && d->line) {
		/* already shown: escaped and cut by the library (wm_show_window) */
		fprintf(f, "%5u | %s\n", d->line, d->source);
		if (d->source_column)
			caret(f, d);
	}
	flush_composed(&c);
}

static bool show_asides;

void cli_show_asides(bool on)
{
	show_asides = on;
}

void cli_print_diags(struct wm_error *err)
{
	wm_error_sort(err);
	for (size_t i = 0; i < err->ndiags; i++)
		if (show_asides || !err->diags[i].aside)
			print_diag(&err->diags[i]);
	if (err->truncated)
		cli_note("too many errors; only the first %d are shown", WM_ERROR_MAX);
	if (err->warnings_truncated)
		cli_note("too many warnings; only the first %d are shown", WM_ERROR_MAX);
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
