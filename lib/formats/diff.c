/* diff.c — git-format diffs of one file (diff --git, index line of blob ids), for the variant patches. */
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "util/sha1.h"
#include "formats/diff.h"

#define CONTEXT 3

struct line {
	const char *p;
	size_t len;   /* with its line ending */
};

static size_t split(const char *text, size_t len, struct line **out)
{
	size_t n = 0, cap = 0;
	struct line *lines = NULL;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) + 1 : len;
		if (n == cap) {
			struct line *p;
			cap = cap ? cap * 2 : 64;
			if (!(p = realloc(lines, cap * sizeof(*p)))) {
				free(lines);
				*out = NULL;
				return SIZE_MAX;
			}
			lines = p;
		}
		lines[n].p = text + i;
		lines[n++].len = end - i;
		i = end;
	}
	*out = lines;
	return n;
}

static bool same(const struct line *a, const struct line *b)
{
	return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/*
 * Myers' O(ND) difference: marks in `keep_a`/`keep_b` the lines common to
 * both.  Edits in a pyproject.toml are few, so D stays small.
 */
static int lcs(const struct line *a, size_t n, const struct line *b, size_t m, bool *keep_a, bool *keep_b)
{
	size_t max = n + m, off = max + 1;
	long *v = calloc(2 * max + 3, sizeof(*v));
	long **trace = calloc(max + 1, sizeof(*trace));
	long d, k, x = 0, y = 0;
	int ret = WM_ENOMEM;

	if (!v || !trace)
		goto out;
	for (d = 0; d <= (long)max; d++) {
		for (k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < (long)n && y < (long)m && same(&a[x], &b[y]))
				x++, y++;
			v[off + k] = x;
			if (x >= (long)n && y >= (long)m)
				goto found;
		}
		if (!(trace[d] = malloc((2 * max + 3) * sizeof(long))))
			goto out;
		memcpy(trace[d], v, (2 * max + 3) * sizeof(long));
	}
found:
	/* walk back through the saved frontiers */
	x = (long)n;
	y = (long)m;
	for (; d > 0; d--) {
		long *pv = trace[d - 1], pk, px, py;
		k = x - y;
		if (k == -d || (k != d && pv[off + k - 1] < pv[off + k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = pv[off + pk];
		py = px - pk;
		while (x > px && y > py) {
			keep_a[--x] = true;
			keep_b[--y] = true;
		}
		x = px;
		y = py;
	}
	while (x > 0 && y > 0) {
		keep_a[--x] = true;
		keep_b[--y] = true;
	}
	ret = 0;
out:
	if (trace)
		for (size_t i = 0; i <= max; i++)
			free(trace[i]);
	free(trace);
	free(v);
	return ret;
}

static void put_line(struct wm_buf *out, char sign, const struct line *l)
{
	wm_buf_putc(out, sign);
	wm_buf_add(out, l->p, l->len);
	if (!l->len || l->p[l->len - 1] != '\n')
		wm_buf_puts(out, "\n\\ No newline at end of file\n");
}

static void range(struct wm_buf *out, size_t start, size_t count)
{
	/* a hunk of no lines is numbered from the line before it */
	if (count == 1)
		wm_buf_printf(out, "%zu", start + 1);
	else
		wm_buf_printf(out, "%zu,%zu", count ? start + 1 : start, count);
}

/* A diff of `old` (none, with `created`) into `new`. */
static int diff_git(struct wm_buf *out, const char *path, bool created, const char *old, size_t oldlen,
	const char *new, size_t newlen)
{
	struct line *a = NULL, *b = NULL;
	size_t n = split(old, oldlen, &a), m = split(new, newlen, &b);
	bool *ka = NULL, *kb = NULL;
	char ida[41], idb[41];
	size_t i = 0, j = 0;
	int ret = WM_ENOMEM;

	if (n == SIZE_MAX || m == SIZE_MAX || !(ka = calloc(n + 1, 1)) || !(kb = calloc(m + 1, 1)))
		goto out;
	if ((ret = lcs(a, n, b, m, ka, kb)) < 0)
		goto out;
	wm_sha1_git_blob(idb, new, newlen);
	if (created) {
		/* as git writes a new file, which git apply and patch then create */
		wm_buf_printf(out, "diff --git a/%s b/%s\nnew file mode 100644\nindex %040d..%s\n--- /dev/null\n"
			"+++ b/%s\n", path, path, 0, idb, path);
	} else {
		wm_sha1_git_blob(ida, old, oldlen);
		wm_buf_printf(out, "diff --git a/%s b/%s\nindex %s..%s 100644\n--- a/%s\n+++ b/%s\n",
			path, path, ida, idb, path, path);
	}
	/* hunks: runs of changes with CONTEXT common lines around them, merged when close */
	while (i < n || j < m) {
		size_t si, sj, ei, ej, ci, cj, common;
		if (i < n && j < m && ka[i] && kb[j]) {
			i++, j++;
			continue;
		}
		si = i > CONTEXT ? i - CONTEXT : 0;
		sj = j - (i - si);
		ei = i, ej = j;
		for (;;) {
			while (ei < n && !ka[ei])
				ei++;
			while (ej < m && !kb[ej])
				ej++;
			/* common lines ahead: end the hunk if more than twice the context follow */
			for (ci = ei, cj = ej, common = 0; ci < n && cj < m && ka[ci] && kb[cj]; ci++, cj++)
				common++;
			if ((ci >= n && cj >= m) || common > 2 * CONTEXT)
				break;
			ei = ci, ej = cj;
		}
		common = 0;
		while (common < CONTEXT && ei + common < n && ej + common < m && ka[ei + common] && kb[ej + common])
			common++;
		ei += common, ej += common;
		wm_buf_puts(out, "@@ -");
		range(out, si, ei - si);
		wm_buf_puts(out, " +");
		range(out, sj, ej - sj);
		wm_buf_puts(out, " @@\n");
		for (size_t x = si, y = sj; x < ei || y < ej;) {
			if (x < ei && y < ej && ka[x] && kb[y]) {
				put_line(out, ' ', &a[x++]);
				y++;
			} else if (x < ei && !ka[x]) {
				put_line(out, '-', &a[x++]);
			} else {
				put_line(out, '+', &b[y++]);
			}
		}
		i = ei, j = ej;
	}
	ret = out->oom ? WM_ENOMEM : 0;
out:
	free(a);
	free(b);
	free(ka);
	free(kb);
	return ret;
}

int wm_diff_git(struct wm_buf *out, const char *path, const char *old, size_t oldlen,
	const char *new, size_t newlen)
{
	return diff_git(out, path, false, old, oldlen, new, newlen);
}

int wm_diff_git_new(struct wm_buf *out, const char *path, const char *new, size_t newlen)
{
	return diff_git(out, path, true, "", 0, new, newlen);
}

/* ---- reversing ---------------------------------------------------------------- */

struct cursor {
	const char *p, *end;
};

/* The next line with its newline, or false at the end. */
static bool next_line(struct cursor *c, const char **line, size_t *len)
{
	const char *nl;
	if (c->p >= c->end)
		return false;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	*line = c->p;
	*len = nl ? (size_t)(nl + 1 - c->p) : (size_t)(c->end - c->p);
	c->p += *len;
	return true;
}

static bool has_prefix(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(line, prefix, n) == 0;
}

/* A changed line and the "\ No newline at end of file" marker that may follow it. */
static size_t changed_line(struct cursor *c, size_t len)
{
	struct cursor peek = *c;
	const char *next;
	size_t n;
	if (next_line(&peek, &next, &n) && has_prefix(next, n, "\\")) {
		*c = peek;
		return len + n;
	}
	return len;
}

/* Writes a run of changed lines the other way round: the old '+' lines as '-' first, then the '-' as '+'. */
static void flush_run(struct wm_buf *out, const char *run, size_t len)
{
	for (int pass = 0; pass < 2; pass++) {
		char from = pass == 0 ? '+' : '-';
		struct cursor c = { run, run + len };
		const char *line;
		size_t n;
		while (next_line(&c, &line, &n)) {
			if (line[0] == '\\')
				continue;
			if (line[0] == from) {
				size_t whole = changed_line(&c, n);
				wm_buf_putc(out, from == '+' ? '-' : '+');
				wm_buf_add(out, line + 1, whole - 1);
			}
		}
	}
}

int wm_diff_reverse(struct wm_buf *out, const char *patch, size_t len)
{
	struct cursor c = { patch, patch + len };
	const char *line, *run = NULL;
	size_t n, runlen = 0;
	bool in_hunk = false, seen_header = false;

	while (next_line(&c, &line, &n)) {
		if (in_hunk && n && (line[0] == '+' || line[0] == '-') &&
		    !has_prefix(line, n, "--- ") && !has_prefix(line, n, "+++ ")) {
			size_t whole = changed_line(&c, n);
			if (!run)
				run = line;
			runlen = (size_t)(line + whole - run);
			continue;
		}
		if (run) {
			flush_run(out, run, runlen);
			run = NULL;
		}
		if (has_prefix(line, n, "diff --git ")) {
			seen_header = true;
			in_hunk = false;
			wm_buf_add(out, line, n);
		} else if (seen_header && has_prefix(line, n, "index ")) {
			/* index <old>..<new>[ <mode>] */
			const char *ids = line + 6, *dots = memchr(ids, '.', n - 6), *sp, *end = line + n;
			if (!dots || dots + 1 >= end || dots[1] != '.')
				return WM_EINVALID;
			sp = dots + 2;
			while (sp < end && *sp != ' ' && *sp != '\n')
				sp++;
			wm_buf_puts(out, "index ");
			wm_buf_add(out, dots + 2, (size_t)(sp - dots - 2));
			wm_buf_puts(out, "..");
			wm_buf_add(out, ids, (size_t)(dots - ids));
			wm_buf_add(out, sp, (size_t)(end - sp));
		} else if (seen_header && has_prefix(line, n, "@@ -")) {
			/* @@ -<old range> +<new range> @@<rest> */
			const char *old = line + 4, *plus = memchr(old, ' ', n - 4), *close;
			if (!plus || plus[1] != '+')
				return WM_EINVALID;
			close = memchr(plus + 2, ' ', (size_t)(line + n - plus - 2));
			if (!close)
				return WM_EINVALID;
			wm_buf_puts(out, "@@ -");
			wm_buf_add(out, plus + 2, (size_t)(close - plus - 2));
			wm_buf_puts(out, " +");
			wm_buf_add(out, old, (size_t)(plus - old));
			wm_buf_add(out, close, (size_t)(line + n - close));
			in_hunk = true;
		} else {
			wm_buf_add(out, line, n);
		}
	}
	if (run)
		flush_run(out, run, runlen);
	if (!seen_header)
		return WM_EINVALID;
	return out->oom ? WM_ENOMEM : 0;
}
