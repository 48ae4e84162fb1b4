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

/* ---- the order of versions ------------------------------------------------- */

/* A normalised version (what wm_pep440 writes) in its parts, for comparing. */
struct parts {
	const char *epoch, *release, *pre_n, *post, *dev, *local;  /* digits, or NULL when absent */
	size_t nepoch, nparts, npre_n, npost, ndev;
	int pre;  /* -1: a dev release of nothing else (before its pre-releases); 0 a, 1 b, 2 rc; 3 none */
};

/* The digits at *p; advances past them. */
static const char *digits(const char **p, size_t *n)
{
	const char *s = *p;
	while (isdigit((unsigned char)**p))
		(*p)++;
	*n = (size_t)(*p - s);
	return s;
}

static void split(struct parts *v, const char *s)
{
	const char *bang = strchr(s, '!'), *plus = strchr(s, '+');
	memset(v, 0, sizeof(*v));
	v->pre = 3;
	if (bang && (!plus || bang < plus)) {
		v->epoch = digits(&s, &v->nepoch);
		s++;
	}
	v->release = s;
	for (;;) {
		size_t n;
		digits(&s, &n);
		v->nparts++;
		if (s[0] != '.' || !isdigit((unsigned char)s[1]))
			break;
		s++;
	}
	if (*s == 'a' || *s == 'b' || (s[0] == 'r' && s[1] == 'c')) {
		v->pre = *s == 'a' ? 0 : *s == 'b' ? 1 : 2;
		s += v->pre == 2 ? 2 : 1;
		v->pre_n = digits(&s, &v->npre_n);
	}
	if (strncmp(s, ".post", 5) == 0) {
		s += 5;
		v->post = digits(&s, &v->npost);
	}
	if (strncmp(s, ".dev", 4) == 0) {
		s += 4;
		v->dev = digits(&s, &v->ndev);
		if (v->pre == 3 && !v->post)
			v->pre = -1;
	}
	if (*s == '+')
		v->local = s + 1;
}

/* Two runs of digits by their value; an absent one (NULL) compares as `absent` (-1: below any, 1: above). */
static int cmp_number(const char *a, size_t na, const char *b, size_t nb, int absent)
{
	int c;
	if (!a || !b)
		return !a && !b ? 0 : !a ? absent : -absent;
	while (na > 1 && *a == '0')
		a++, na--;
	while (nb > 1 && *b == '0')
		b++, nb--;
	if (na != nb)
		return na < nb ? -1 : 1;
	c = memcmp(a, b, na);
	return c < 0 ? -1 : c > 0;
}

/* PEP 440's order of local labels, segment by segment: a number above a word, a longer label above its prefix. */
static int cmp_local(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : !a ? -1 : 1;
	for (;;) {
		size_t na = strcspn(a, "."), nb = strcspn(b, ".");
		bool da = strspn(a, "0123456789") == na, db = strspn(b, "0123456789") == nb;
		int c;
		if (da != db)
			return da ? 1 : -1;
		if (da)
			c = cmp_number(a, na, b, nb, 0);
		else if ((c = strncmp(a, b, na < nb ? na : nb)) == 0)
			c = na == nb ? 0 : na < nb ? -1 : 1;
		if (c)
			return c < 0 ? -1 : 1;
		a += na;
		b += nb;
		if (!*a || !*b)
			return !*a && !*b ? 0 : !*a ? -1 : 1;
		a++;
		b++;
	}
}

int wm_pep440_compare(const char *a, const char *b, bool *ok)
{
	struct wm_buf x = WM_BUF_INIT, y = WM_BUF_INIT;
	struct parts p, q;
	int c = 0;

	*ok = wm_pep440(&x, a, NULL) == 0 && wm_pep440(&y, b, NULL) == 0 && !x.oom && !y.oom && x.ptr && y.ptr;
	if (*ok) {
		split(&p, x.ptr);
		split(&q, y.ptr);
		if (!(c = cmp_number(p.epoch, p.nepoch, q.epoch, q.nepoch, -1)) &&
		    !(c = cmp_release(p.release, p.nparts, q.release, q.nparts, 0)) &&
		    !(c = p.pre < q.pre ? -1 : p.pre > q.pre) &&
		    !(c = cmp_number(p.pre_n, p.npre_n, q.pre_n, q.npre_n, -1)) &&
		    !(c = cmp_number(p.post, p.npost, q.post, q.npost, -1)) &&
		    !(c = cmp_number(p.dev, p.ndev, q.dev, q.ndev, 1)))
			c = cmp_local(p.local, q.local);
	}
	wm_buf_release(&x);
	wm_buf_release(&y);
	return c;
}

bool wm_pep440_prerelease(const char *version)
{
	struct wm_buf x = WM_BUF_INIT;
	struct parts p;
	bool pre = false;

	if (wm_pep440(&x, version, NULL) == 0 && !x.oom && x.ptr) {
		split(&p, x.ptr);
		pre = p.pre != 3 || p.dev;
	}
	wm_buf_release(&x);
	return pre;
}
