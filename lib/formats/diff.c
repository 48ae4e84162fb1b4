/* diff.c — git-format diffs of one file (diff --git, index line of blob ids), for the variant patches. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/buf.h"
#include "util/name.h"
#include "util/sha1.h"
#include "util/utf8.h"
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
 * What the difference may cost: at most EDITS_MAX edits, and WORK_MAX steps
 * and bytes compared.  A file with more changes than that (a committed file
 * that has nothing to do with the generated one, megabytes of it) is
 * replaced as a whole between the lines both begin and end with: a diff that
 * applies the same, found in linear time and memory.
 */
#define EDITS_MAX 2048
#define WORK_MAX (1ul << 25)

/*
 * Myers' O(ND) difference: marks in `keep_a`/`keep_b` the lines common to
 * both, or none when it would cost more than the limits above.  Edits in a
 * pyproject.toml are few, so D stays small.  trace[d] holds the frontier
 * after d edits, diagonals -d to d.
 */
static int myers(const struct line *a, size_t n, const struct line *b, size_t m, bool *keep_a, bool *keep_b)
{
	size_t max = n + m < EDITS_MAX ? n + m : EDITS_MAX, off = max + 1, work = 0;
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
			while (x < (long)n && y < (long)m && same(&a[x], &b[y])) {
				work += a[x].len;
				x++, y++;
			}
			work++;
			v[off + k] = x;
			if (x >= (long)n && y >= (long)m)
				goto found;
		}
		if (work > WORK_MAX)
			break;
		if (!(trace[d] = malloc((2 * (size_t)d + 1) * sizeof(long))))
			goto out;
		memcpy(trace[d], v + off - d, (2 * (size_t)d + 1) * sizeof(long));
	}
	/* too different: no line is kept, the whole of one replaces the whole of the other */
	ret = 0;
	goto out;
found:
	/* walk back through the saved frontiers */
	x = (long)n;
	y = (long)m;
	for (; d > 0; d--) {
		long *pv = trace[d - 1] + (d - 1), pk, px, py;  /* pv[k] is diagonal k */
		k = x - y;
		if (k == -d || (k != d && pv[k - 1] < pv[k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = pv[pk];
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

/* The lines both begin and end with are kept as they are; Myers' difference runs between them. */
static int lcs(const struct line *a, size_t n, const struct line *b, size_t m, bool *keep_a, bool *keep_b)
{
	size_t pre = 0, suf = 0;
	while (pre < n && pre < m && same(&a[pre], &b[pre])) {
		keep_a[pre] = keep_b[pre] = true;
		pre++;
	}
	while (suf < n - pre && suf < m - pre && same(&a[n - 1 - suf], &b[m - 1 - suf])) {
		keep_a[n - 1 - suf] = keep_b[m - 1 - suf] = true;
		suf++;
	}
	return myers(a + pre, n - pre - suf, b + pre, m - pre - suf, keep_a + pre, keep_b + pre);
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

static bool hunk_header(const char *line, size_t n, size_t *os, size_t *oc, size_t *ns, size_t *nc, bool strict);

int wm_diff_reverse(struct wm_buf *out, const char *patch, size_t len)
{
	struct cursor c = { patch, patch + len };
	const char *line, *run = NULL;
	size_t n, runlen = 0, old_left = 0, new_left = 0;
	bool in_hunk = false, seen_header = false;

	while (next_line(&c, &line, &n)) {
		/* a hunk's lines are as many as its header says: a changed line may begin "--- " or "+++ " */
		bool body = in_hunk && (old_left || new_left) && n;
		if (body && ((line[0] == '-' && old_left) || (line[0] == '+' && new_left))) {
			size_t whole = changed_line(&c, n);
			if (line[0] == '-')
				old_left--;
			else
				new_left--;
			if (!run)
				run = line;
			runlen = (size_t)(line + whole - run);
			continue;
		}
		if (run) {
			flush_run(out, run, runlen);
			run = NULL;
		}
		if (body && line[0] == ' ' && old_left && new_left) {
			old_left--, new_left--;
			wm_buf_add(out, line, n);
			continue;
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
			size_t os, ns;
			if (!plus || plus[1] != '+' || !hunk_header(line, n, &os, &old_left, &ns, &new_left, false))
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

/* ---- reading and applying one of ours ------------------------------------------- */

static int apply_hunks(struct wm_buf *out, struct cursor *c, const char *pre, size_t prelen, bool apply, bool strict);

/* The file's path in "diff --git a/P b/P" when both sides are the same plain path, else 0. */
static size_t git_path(const char *line, size_t n, const char **path)
{
	const char *p = line + 11, *end = line + n;
	size_t len;
	if (end > p && end[-1] == '\n')
		end--;
	/* "a/" P " b/" P */
	if (end - p < 8 || memcmp(p, "a/", 2) != 0 || (size_t)(end - p - 5) % 2 != 0)
		return 0;
	len = (size_t)(end - p - 5) / 2;
	if (memcmp(p + 2 + len, " b/", 3) != 0 || memcmp(p + 2, p + 5 + len, len) != 0 || memchr(p + 2, '"', len))
		return 0;
	*path = p + 2;
	return len;
}

static bool hex40(const char *p, const char *end)
{
	if (end - p < 40)
		return false;
	for (int i = 0; i < 40; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return true;
}

/*
 * The header of a patch as wm_diff_git writes it, after any lines before
 * it: "diff --git a/P b/P", "index OLD..NEW[ MODE]" of full ids, "--- a/P",
 * "+++ b/P".  The cursor is left at the first hunk.  False for any other
 * shape.
 */
static bool read_header(struct cursor *c, struct wm_diff_file *out)
{
	const char *line = NULL, *path = NULL, *end;
	size_t n = 0, plen = 0;
	bool found = false;
	char want[4096];

	while (!found && next_line(c, &line, &n))
		found = has_prefix(line, n, "diff --git ");
	if (!found || !(plen = git_path(line, n, &path)) || plen + 8 > sizeof(want))
		return false;
	if (!next_line(c, &line, &n) || !has_prefix(line, n, "index "))
		return false;
	end = line + n;
	if (!hex40(line + 6, end) || end - line < 88 || memcmp(line + 46, "..", 2) != 0 || !hex40(line + 48, end) ||
	    (line[88] != '\n' && line[88] != ' '))
		return false;
	memcpy(out->old_id, line + 6, 40);
	memcpy(out->new_id, line + 48, 40);
	out->old_id[40] = out->new_id[40] = '\0';
	snprintf(want, sizeof(want), "--- a/%.*s\n", (int)plen, path);
	if (!next_line(c, &line, &n) || n != strlen(want) || memcmp(line, want, n) != 0)
		return false;
	want[0] = want[1] = want[2] = '+', want[4] = 'b';
	if (!next_line(c, &line, &n) || n != strlen(want) || memcmp(line, want, n) != 0)
		return false;
	out->path = path;
	out->pathlen = plen;
	out->start = path - 13;  /* "diff --git a/" */
	return true;
}

int wm_diff_read(struct wm_diff_file *out, const char *patch, size_t len)
{
	struct cursor c = { patch, patch + len };
	struct wm_buf none = WM_BUF_INIT;
	int ret;
	memset(out, 0, sizeof(*out));
	if (!read_header(&c, out))
		return 1;
	/* the whole patch has that shape: its hunks read, applied to nothing */
	ret = apply_hunks(&none, &c, NULL, 0, false, false);
	wm_buf_release(&none);
	return ret;
}

/* A parsed "@@ -OLD[,N] +NEW[,N] @@" line; with `strict`, nothing after the second "@@". */
static bool hunk_header(const char *line, size_t n, size_t *os, size_t *oc, size_t *ns, size_t *nc, bool strict)
{
	const char *p = line + 4, *end = line + n;
	char *next;
	if (!has_prefix(line, n, "@@ -"))
		return false;
	*os = strtoul(p, &next, 10);
	*oc = 1;
	if (next == p || next >= end)
		return false;
	if (*next == ',')
		*oc = strtoul(p = next + 1, &next, 10);
	if (next >= end - 2 || next[0] != ' ' || next[1] != '+')
		return false;
	*ns = strtoul(p = next + 2, &next, 10);
	*nc = 1;
	if (next == p || next >= end)
		return false;
	if (*next == ',')
		*nc = strtoul(p = next + 1, &next, 10);
	if (strict && (end - next != 4 || memcmp(next, " @@\n", 4) != 0))
		return false;
	return end - next >= 3 && memcmp(next, " @@", 3) == 0 && *oc < SIZE_MAX / 2 && *nc < SIZE_MAX / 2;
}

/*
 * Applies the hunks at the cursor to the lines of `pre` (when `apply`),
 * appending the result to `out`: each hunk exactly where its header puts
 * it, its context and removed lines byte for byte, one that has no
 * trailing context ending at the file's end as git requires.  0, or 1
 * when the hunks do not apply so or are not of the shape wm_diff_git
 * writes (with `strict`, to the byte: a hunk header ending at its "@@",
 * git's own "\ No newline at end of file"); WM_ENOMEM.  On 1 the cursor
 * is past the line that failed.
 */
static int apply_hunks(struct wm_buf *out, struct cursor *c, const char *pre, size_t prelen, bool apply, bool strict)
{
	struct line *a = NULL;
	size_t n = apply ? split(pre, prelen, &a) : 0, pos = 0, hunks = 0, added = 0, removed = 0;
	bool end_old = false, end_new = false;  /* a side's last line was marked "\ No newline at end of file" */
	const char *line;
	size_t len;
	int ret = 1;

	if (n == SIZE_MAX)
		return WM_ENOMEM;
	while (next_line(c, &line, &len)) {
		size_t os, oc, ns, nc, k, old = 0, new = 0, trailing = 0;
		if (end_old || end_new || !hunk_header(line, len, &os, &oc, &ns, &nc, strict))
			goto out;   /* nothing follows the end of the file */
		hunks++;
		k = oc ? os - 1 : os;   /* the first old line's index; after line os when it has none */
		if ((oc && !os) || k < pos || (apply && k + oc > n))
			goto out;
		/* strict: the new side's numbers are the old side's moved by the lines the hunks before added or removed */
		if (strict && ((nc && !ns) || (nc ? ns - 1 : ns) + removed != k + added))
			goto out;
		added += nc;
		removed += oc;
		for (size_t i = pos; apply && i < k; i++)
			wm_buf_add(out, a[i].p, a[i].len);
		while (old < oc || new < nc) {
			struct line l;
			struct cursor peek;
			const char *marker;
			size_t mlen;
			char sign;
			if (!next_line(c, &line, &len) || !len || (line[0] != ' ' && line[0] != '-' && line[0] != '+'))
				goto out;
			sign = line[0];
			l.p = line + 1;
			l.len = len - 1;
			if (!l.len || l.p[l.len - 1] != '\n')
				goto out;   /* a line of the patch ends with its newline */
			if ((sign != '+' && end_old) || (sign != '-' && end_new))
				goto out;   /* a line after the last one of its side */
			peek = *c;
			if (next_line(&peek, &marker, &mlen) && has_prefix(marker, mlen, "\\")) {
				*c = peek;
				if (strict && (mlen != 28 || memcmp(marker, "\\ No newline at end of file\n", 28) != 0))
					goto out;
				l.len--;    /* "\ No newline at end of file" */
				end_old = sign != '+';
				end_new = sign != '-';
			}
			if (sign != '+') {
				if (old >= oc || (apply && !same(&a[k + old], &l)))
					goto out;
				old++;
			}
			if (sign != '-') {
				if (new >= nc)
					goto out;
				new++;
				if (apply)
					wm_buf_add(out, l.p, l.len);
			}
			trailing = sign == ' ' ? trailing + 1 : 0;
		}
		/* git: a hunk without trailing context must match at the end */
		if (apply && !trailing && k + oc != n)
			goto out;
		pos = k + oc;
	}
	if (!hunks)
		goto out;
	for (size_t i = pos; apply && i < n; i++)
		wm_buf_add(out, a[i].p, a[i].len);
	ret = out->oom ? WM_ENOMEM : 0;
out:
	free(a);
	return ret;
}

int wm_diff_apply(struct wm_buf *out, const char *patch, size_t len, const char *path, const char *pre, size_t prelen)
{
	struct cursor c = { patch, patch + len };
	struct wm_diff_file f;
	size_t start = out->len;
	int ret;

	if (!read_header(&c, &f) || f.pathlen != strlen(path) || memcmp(f.path, path, f.pathlen) != 0)
		return 1;
	if ((ret = apply_hunks(out, &c, pre, prelen, true, false)) != 0 && out->ptr) {
		out->len = start;
		out->ptr[start] = '\0';
	}
	return ret;
}

/* ---- the shape of a patch from the repository ------------------------------------ */

static unsigned line_of(const char *patch, const char *at)
{
	unsigned n = 1;
	for (const char *p = patch; p < at && (p = memchr(p, '\n', (size_t)(at - p))) != NULL; p++)
		n++;
	return n;
}

static int problem(struct wm_diff_problem *why, unsigned line, const char *fmt, ...) WM_PRINTF(3, 4);

static int problem(struct wm_diff_problem *why, unsigned line, const char *fmt, ...)
{
	va_list ap;
	why->line = line;
	va_start(ap, fmt);
	vsnprintf(why->why, sizeof(why->why), fmt, ap);
	va_end(ap);
	return 1;
}

/* The first control byte of `patch` but tab, LF and a CR before LF: its offset, or len. */
static size_t control_byte(const char *patch, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)patch[i];
		if ((b < 0x20 && b != '\t' && b != '\n' && !(b == '\r' && i + 1 < len && patch[i + 1] == '\n')) || b == 0x7f)
			return i;
	}
	return len;
}

/* The line that ends at `end`, the cursor of a reader that stopped past it (none after `from`: NULL). */
static const char *last_line(const char *from, const char *end, size_t *n)
{
	const char *p = end - 1;
	if (end <= from)
		return NULL;
	while (p > from && p[-1] != '\n')
		p--;
	*n = (size_t)(end - p);
	return p;
}

/* What is wrong with `line`, where a reader of the shape generate writes stopped. */
static int shape_problem(struct wm_diff_problem *why, const char *patch, const char *line, size_t n, bool hunks)
{
	static const char *const binary[] = { "GIT binary patch", "literal ", "delta ", "Binary files " };
	static const char *const whole[] = { "new file mode", "deleted file mode", "old mode", "new mode", "rename ",
		"copy ", "similarity index", "dissimilarity index" };
	unsigned at = line_of(patch, line);
	for (size_t i = 0; i < sizeof(binary) / sizeof(*binary); i++)
		if (has_prefix(line, n, binary[i]))
			return problem(why, at, "a binary section");
	if (has_prefix(line, n, "diff --git ") && hunks)
		return problem(why, at, "a second file");
	for (size_t i = 0; i < sizeof(whole) / sizeof(*whole); i++)
		if (has_prefix(line, n, whole[i]))
			return problem(why, at, "not one file modified in place");
	if (has_prefix(line, n, "index "))
		return problem(why, at, "an index line without both full blob ids");
	if (!hunks)
		return problem(why, at, "a header other than 'diff --git a/P b/P', 'index OLD..NEW', '--- a/P', '+++ b/P'");
	return problem(why, at, "a hunk of another shape, or of more or fewer lines than its header says");
}

int wm_diff_check(struct wm_diff_file *out, const char *patch, size_t len, struct wm_diff_problem *why)
{
	struct cursor c = { patch, patch + len }, at;
	struct wm_buf none = WM_BUF_INIT;
	const char *line = NULL;
	unsigned l, col;
	unsigned char byte;
	uint32_t cp;
	size_t n = 0, off;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(why, 0, sizeof(*why));
	if (len > WM_DIFF_MAX_BYTES)
		return problem(why, 0, "larger than %u KiB", WM_DIFF_MAX_BYTES >> 10);
	if ((off = control_byte(patch, len)) < len)
		return problem(why, line_of(patch, patch + off), patch[off] ? "a control character (U+%04X)" : "a NUL byte",
			(unsigned char)patch[off]);
	if (!wm_utf8_valid(patch, len, &l, &col, &byte))
		return problem(why, l, "a byte that is not UTF-8 (0x%02x)", byte);
	if ((cp = wm_utf8_find_break(patch, len, &l, &col)) != 0)
		return problem(why, l, "a raw %s", wm_utf8_break_name(cp));
	/* the generated header's comment lines, then the diff */
	for (;;) {
		at = c;
		if (!next_line(&c, &line, &n))
			return problem(why, 0, "no 'diff --git' line");
		if (has_prefix(line, n, "diff --git "))
			break;
		if (line[0] != '#')
			return problem(why, line_of(patch, line), "a line before 'diff --git' that is not a comment");
	}
	c = at;
	if (!read_header(&c, out)) {
		line = last_line(at.p, c.p, &n);
		memset(out, 0, sizeof(*out));
		return shape_problem(why, patch, line ? line : at.p, line ? n : 0, false);
	}
	/* the index line as generate writes it, to the end: the ids, then the mode of a plain file */
	{
		const char *index = memchr(out->start, '\n', (size_t)(patch + len - out->start)) + 1;
		if ((size_t)(patch + len - index) < 96 || memcmp(index + 88, " 100644\n", 8) != 0) {
			memset(out, 0, sizeof(*out));
			return problem(why, line_of(patch, index), "an index line other than 'index OLD..NEW 100644'");
		}
	}
	/* the file it patches has a path of the repository's grammar, as the matrix can name one */
	{
		char file[4096];
		const char *bad;
		memcpy(file, out->path, out->pathlen);  /* read_header keeps it shorter */
		file[out->pathlen] = '\0';
		if (!wm_name_repo_path(file, &bad)) {
			memset(out, 0, sizeof(*out));
			return problem(why, line_of(patch, line), "a path that is not a plain repository path");
		}
	}
	at = c;
	ret = apply_hunks(&none, &c, NULL, 0, false, true);
	wm_buf_release(&none);
	if (ret == 0)
		return 0;
	memset(out, 0, sizeof(*out));
	if (ret < 0)
		return ret;
	if (!(line = last_line(at.p, c.p, &n)))
		return problem(why, line_of(patch, c.p), "no hunk");
	return shape_problem(why, patch, line, n, true);
}
