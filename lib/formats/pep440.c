/* pep440.c — versions as PEP 440 writes them: Cargo's semver converted, spellings normalised. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/buf.h"
#include "formats/pep440.h"

/*
 * One parser serves both inputs.  PEP 440's normalisation rules accept the
 * spellings semver pre-releases use (`-alpha.1`, `-beta.2`, `-rc.1`: a
 * separator, the word, a separator, the number), so a Cargo version such as
 * 0.3.0-alpha.1 comes out as 0.3.0a1 and a pyproject version is only
 * normalised.  What neither grammar has (`-x.7.z`, `-alpha.beta`) is refused.
 */

struct cursor {
	const char *s;
	const char *why;
};

static bool sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

/* Reads digits into `out` without their leading zeros; false when there are none. */
static bool number(struct cursor *c, struct wm_buf *out)
{
	const char *p = c->s;
	if (!isdigit((unsigned char)*p))
		return false;
	while (*p == '0' && isdigit((unsigned char)p[1]))
		p++;
	while (isdigit((unsigned char)*p))
		wm_buf_putc(out, *p++);
	c->s = p;
	return true;
}

/* Matches `word` case-insensitively, not followed by a letter. */
static bool word(struct cursor *c, const char *w)
{
	size_t n = strlen(w);
	if (strncasecmp(c->s, w, n) != 0 || isalpha((unsigned char)c->s[n]))
		return false;
	c->s += n;
	return true;
}

/* [-_.]?WORD[-_.]?N?  where WORD is one of `words`; appends `canon` and the number (0 when absent). */
static bool segment(struct cursor *c, struct wm_buf *out, const char *const *words, const char *canon)
{
	struct cursor save = *c;
	if (sep(*c->s))
		c->s++;
	for (; *words; words++)
		if (word(c, *words))
			break;
	if (!*words) {
		*c = save;
		return false;
	}
	wm_buf_puts(out, canon);
	if (sep(c->s[0]) && isdigit((unsigned char)c->s[1]))
		c->s++;
	if (!number(c, out))
		wm_buf_putc(out, '0');
	return true;
}

static bool local(struct cursor *c, struct wm_buf *out)
{
	bool first = true;
	c->s++;  /* the '+' */
	wm_buf_putc(out, '+');
	for (;;) {
		if (!isalnum((unsigned char)*c->s)) {
			c->why = "a local version label is letters and digits separated by '.', '-' or '_'";
			return false;
		}
		if (!first)
			wm_buf_putc(out, '.');
		while (isalnum((unsigned char)*c->s))
			wm_buf_putc(out, (char)tolower((unsigned char)*c->s++));
		first = false;
		if (!*c->s)
			return true;
		if (!sep(*c->s)) {
			c->why = "a local version label is letters and digits separated by '.', '-' or '_'";
			return false;
		}
		c->s++;
	}
}

int wm_pep440(struct wm_buf *out, const char *version, const char **why)
{
	static const char *const pre_a[] = { "alpha", "a", NULL }, *const pre_b[] = { "beta", "b", NULL },
		*const pre_rc[] = { "rc", "c", "preview", "pre", NULL }, *const post[] = { "post", "rev", "r", NULL },
		*const dev[] = { "dev", NULL };
	struct cursor c = { version, NULL };
	size_t start = out->len;
	const char *bang;

	while (isspace((unsigned char)*c.s))
		c.s++;
	if (*c.s == 'v' || *c.s == 'V')
		c.s++;
	/* an epoch: N! */
	if ((bang = strchr(c.s, '!')) != NULL) {
		struct wm_buf epoch = WM_BUF_INIT;
		const char *digits = c.s;
		bool ok = number(&c, &epoch) && c.s == bang;
		if (ok && strcmp(epoch.ptr, "0") != 0) {
			wm_buf_puts(out, epoch.ptr);
			wm_buf_putc(out, '!');
		}
		wm_buf_release(&epoch);
		if (!ok) {
			c.s = digits;
			c.why = "an epoch is a number followed by '!'";
			goto bad;
		}
		c.s++;
	}
	if (!number(&c, out)) {
		c.why = "a version starts with a number, such as 1.2.0";
		goto bad;
	}
	while (c.s[0] == '.' && isdigit((unsigned char)c.s[1])) {
		c.s++;
		wm_buf_putc(out, '.');
		number(&c, out);
	}
	if (!segment(&c, out, pre_a, "a") && !segment(&c, out, pre_b, "b"))
		segment(&c, out, pre_rc, "rc");
	if (c.s[0] == '-' && isdigit((unsigned char)c.s[1])) {
		c.s++;
		wm_buf_puts(out, ".post");
		number(&c, out);
	} else {
		segment(&c, out, post, ".post");
	}
	segment(&c, out, dev, ".dev");
	if (*c.s == '+' && !local(&c, out))
		goto bad;
	while (isspace((unsigned char)*c.s))
		c.s++;
	if (*c.s) {
		c.why = "after the release numbers PEP 440 allows only a pre-release (a, b, rc), .postN, "
			".devN and +local; semver pre-releases other than alpha, beta, rc and dev have no equivalent";
		goto bad;
	}
	if (out->oom)
		return WM_ENOMEM;
	return 0;
bad:
	out->len = start;
	if (out->ptr)
		out->ptr[start] = '\0';
	if (why)
		*why = c.why;
	return WM_EINVALID;
}

bool wm_pep440_equal(const char *a, const char *b)
{
	struct wm_buf x = WM_BUF_INIT, y = WM_BUF_INIT;
	bool same;
	if (wm_pep440(&x, a, NULL) == 0 && wm_pep440(&y, b, NULL) == 0)
		same = strcmp(x.ptr, y.ptr) == 0;
	else
		same = strcmp(a, b) == 0;
	wm_buf_release(&x);
	wm_buf_release(&y);
	return same;
}

/* ---- specifiers over releases (the maturin pin) ----------------------------- */

/*
 * Reads a release `N(.N)*` at *sp: its start in *start and its count of parts,
 * 0 when none; a trailing `.*` sets *wild.  Parts are kept as text, so that a
 * part of any length compares by its value.
 */
static size_t release(const char **sp, const char **start, bool *wild)
{
	const char *s = *sp;
	size_t n = 0;
	*start = s;
	*wild = false;
	while (isdigit((unsigned char)*s)) {
		while (isdigit((unsigned char)*s))
			s++;
		n++;
		if (s[0] == '.' && isdigit((unsigned char)s[1]))
			s++;
		else
			break;
	}
	if (n && s[0] == '.' && s[1] == '*') {
		*wild = true;
		s += 2;
	}
	*sp = s;
	return n;
}

/* The next part of a release at *p, without its leading zeros (*len 0 for zero); "0" past the end. */
static const char *next_part(const char **p, size_t *len)
{
	const char *s = *p, *d;
	if (!isdigit((unsigned char)*s)) {
		*len = 0;
		return s;
	}
	while (*s == '0' && isdigit((unsigned char)s[1]))
		s++;
	for (d = s; isdigit((unsigned char)*d); d++)
		;
	*len = *s == '0' ? 0 : (size_t)(d - s);
	*p = d[0] == '.' && isdigit((unsigned char)d[1]) ? d + 1 : d;
	return s;
}

/* Compares the first `n` parts of releases a and b (0 past the end of either), or all of the longer when n is 0. */
static int cmp_release(const char *a, size_t na, const char *b, size_t nb, size_t n)
{
	size_t len = n ? n : (na > nb ? na : nb);
	for (size_t i = 0; i < len; i++) {
		size_t la, lb;
		const char *x = next_part(&a, &la), *y = next_part(&b, &lb);
		int c;
		if (i >= na)
			la = 0;
		if (i >= nb)
			lb = 0;
		if (la != lb)
			return la < lb ? -1 : 1;
		if ((c = memcmp(x, y, la)) != 0)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

int wm_pep440_specs_match(const char *specs, const char *version, const char **why)
{
	const char *v, *w;
	size_t nv, nw;
	bool wild, match = true;
	const char *s = version;

	nv = release(&s, &v, &wild);
	if (!nv || *s || wild) {
		*why = "the version is not a release such as 1.2.3";
		return WM_EINVALID;
	}
	s = specs;
	while (*s) {
		char op[4] = "";
		size_t k = 0;
		int c;
		while (*s == ' ' || *s == '\t')
			s++;
		while (k < 3 && strchr("~=!<>", *s) && *s)
			op[k++] = *s++;
		op[k] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (!(nw = release(&s, &w, &wild))) {
			*why = "a specifier is an operator (>=, <, ~=, ==, !=, ...) followed by a version";
			return WM_EINVALID;
		}
		/* a pre-, post- or dev-release part of a bound is compared as its release */
		while (*s && *s != ',')
			s++;
		if (*s == ',')
			s++;
		c = cmp_release(v, nv, w, nw, wild ? nw : 0);
		if (wild && strcmp(op, "==") != 0 && strcmp(op, "!=") != 0) {
			*why = "'.*' only follows '==' or '!='";
			return WM_EINVALID;
		}
		if (strcmp(op, "==") == 0 || strcmp(op, "===") == 0)
			match = match && c == 0;
		else if (strcmp(op, "!=") == 0)
			match = match && c != 0;
		else if (strcmp(op, ">=") == 0)
			match = match && c >= 0;
		else if (strcmp(op, "<=") == 0)
			match = match && c <= 0;
		else if (strcmp(op, ">") == 0)
			match = match && c > 0;
		else if (strcmp(op, "<") == 0)
			match = match && c < 0;
		else if (strcmp(op, "~=") == 0) {
			if (nw < 2) {
				*why = "'~=' takes a version of at least two parts, such as ~=1.9";
				return WM_EINVALID;
			}
			match = match && c >= 0 && cmp_release(v, nv, w, nw, nw - 1) == 0;
		} else {
			*why = "a specifier starts with one of ~= == != <= >= < > ===";
			return WM_EINVALID;
		}
	}
	return match ? 1 : 0;
}

/* A normalised version's parts, for comparing: epoch, release, then its phase (dev < a < b < rc < final) and post. */
struct parts {
	unsigned long epoch;
	unsigned long release[16];
	size_t n;
	int phase;                  /* -4 dev only, -3 a, -2 b, -1 rc, 0 final */
	unsigned long pre, post, dev;
	bool has_post, has_dev;
};

static bool parse_parts(const char *v, struct parts *p)
{
	struct wm_buf b = WM_BUF_INIT;
	const char *why, *s;
	char *end;
	bool ok = wm_pep440(&b, v, &why) == 0 && b.ptr;
	memset(p, 0, sizeof(*p));
	if (!ok) {
		wm_buf_release(&b);
		return false;
	}
	s = b.ptr;
	if (strchr(s, '!')) {
		p->epoch = strtoul(s, &end, 10);
		s = end + 1;
	}
	do {
		unsigned long x = strtoul(s, &end, 10);
		if (p->n < 16)
			p->release[p->n++] = x;
		s = end;
	} while (*s == '.' && isdigit((unsigned char)s[1]) && s++);
	if (*s == 'a' || *s == 'b' || (s[0] == 'r' && s[1] == 'c')) {
		p->phase = *s == 'a' ? -3 : *s == 'b' ? -2 : -1;
		s += *s == 'r' ? 2 : 1;
		p->pre = strtoul(s, &end, 10);
		s = end;
	}
	if (!strncmp(s, ".post", 5)) {
		p->has_post = true;
		p->post = strtoul(s + 5, &end, 10);
		s = end;
	}
	if (!strncmp(s, ".dev", 4)) {
		p->has_dev = true;
		p->dev = strtoul(s + 4, &end, 10);
		/* 1.0.dev1 comes before 1.0a1; 1.0a1.dev1 before 1.0a1 */
		if (!p->phase && !p->has_post)
			p->phase = -4;
	}
	wm_buf_release(&b);
	return true;
}

static int cmp_ul(unsigned long a, unsigned long b)
{
	return a < b ? -1 : a > b;
}

int wm_pep440_compare(const char *a, const char *b, bool *ok)
{
	struct parts x, y;
	int c;
	*ok = parse_parts(a, &x) && parse_parts(b, &y);
	if (!*ok)
		return strcmp(a, b);
	if ((c = cmp_ul(x.epoch, y.epoch)) != 0)
		return c;
	for (size_t i = 0; i < (x.n > y.n ? x.n : y.n); i++)
		if ((c = cmp_ul(i < x.n ? x.release[i] : 0, i < y.n ? y.release[i] : 0)) != 0)
			return c;
	if (x.phase != y.phase)
		return x.phase < y.phase ? -1 : 1;
	if ((c = cmp_ul(x.pre, y.pre)) != 0)
		return c;
	if (x.has_post != y.has_post)
		return x.has_post ? 1 : -1;
	if ((c = cmp_ul(x.post, y.post)) != 0)
		return c;
	if (x.has_dev != y.has_dev)
		return x.has_dev ? -1 : 1;
	return cmp_ul(x.dev, y.dev);
}

bool wm_pep440_prerelease(const char *version)
{
	struct parts p;
	return parse_parts(version, &p) && (p.phase < 0 || p.has_dev);
}
