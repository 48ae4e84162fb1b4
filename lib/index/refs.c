/* refs.c — a forge repository's tags, read from git's smart-HTTP ref advertisement, strictly. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/show.h"
#include "util/text.h"
#include "util/utf8.h"
#include "index/net.h"
#include "index/refs.h"

/*
 * The advertisement is what a forge sends before a fetch (gitprotocol-http(5),
 * "Smart Clients"): a stream of pkt-lines, each four hex digits giving its
 * length (the digits included) and then that many bytes, "0000" being a
 * flush.  It is read from a network answer a forge or a proxy controls, so
 * nothing in it is trusted: every length is checked against the body and
 * git's own maximum, the number of refs is capped, and a tag name goes
 * nowhere before it passed git's own rules for ref names and ours for text
 * a person is shown (a tag ends up in a comment of a generated workflow).
 */

#define CONTENT_TYPE "application/x-git-upload-pack-advertisement"
#define SERVICE "# service=git-upload-pack"
#define TAGS "refs/tags/"
#define HEADS "refs/heads/"
#define PEELED "^{}"
/* The longest tag name taken: a version tag is a few bytes, and a comment must stay readable. */
#define TAG_MAX 255
/* What a refused name shows of itself at most, in bytes of the name. */
#define SHOWN_MAX 80

struct reader {
	const char *s;
	size_t len, at;
	struct wm_arena *a;
	const char **why;
};

static int refuse(struct reader *r, const char *fmt, ...) WM_PRINTF(2, 3);
static int refuse(struct reader *r, const char *fmt, ...)
{
	struct wm_buf b = WM_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	wm_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	*r->why = b.oom ? NULL : wm_arena_strndup(r->a, b.ptr ? b.ptr : "", b.len);
	wm_buf_release(&b);
	return *r->why ? WM_EINVALID : WM_ENOMEM;
}

/* `s` (len bytes, at most SHOWN_MAX of them) as a person is shown it, in the arena ("" without memory). */
static const char *shown(struct wm_arena *a, const char *s, size_t len)
{
	struct wm_buf b = WM_BUF_INIT;
	const char *out;
	wm_show_add(&b, s, len < SHOWN_MAX ? len : SHOWN_MAX, 0);
	if (len > SHOWN_MAX)
		wm_buf_puts(&b, "...");
	out = b.oom ? NULL : wm_arena_strndup(a, b.ptr ? b.ptr : "", b.len);
	wm_buf_release(&b);
	return out ? out : "";
}

/*
 * The pkt-line at the reader's position: 1 with *line and *n its payload, 0
 * for a flush-pkt, or WM_EINVALID (or WM_ENOMEM) with the reason.  A
 * delimiter or response-end pkt (protocol v2) has no place in a v0 or v1
 * advertisement.
 */
static int next_pkt(struct reader *r, const char **line, size_t *n)
{
	size_t len = 0;

	if (r->len - r->at < 4)
		return refuse(r, r->at == r->len ? "the advertisement ends before its final flush-pkt (truncated)" :
			"the advertisement ends inside a pkt-line's length (truncated)");
	for (int i = 0; i < 4; i++) {
		int v = wm_text_hex_digit(r->s[r->at + i]);
		if (v < 0)
			return refuse(r, "the pkt-line at byte %zu has the length '%s', not four hex digits", r->at,
				shown(r->a, r->s + r->at, 4));
		len = len << 4 | (size_t)v;
	}
	if (len == 0) {
		r->at += 4;
		return 0;
	}
	if (len < 4)
		return refuse(r, "the pkt-line at byte %zu is a %s, which a protocol v0 advertisement has none of", r->at,
			len == 1 ? "delimiter (protocol v2)" : len == 2 ? "response end (protocol v2)" : "pkt of length 3");
	if (len > WM_REFS_PKT_MAX)
		return refuse(r, "the pkt-line at byte %zu is %zu bytes long: git sends at most %d", r->at, len,
			WM_REFS_PKT_MAX);
	if (len > r->len - r->at)
		return refuse(r, "the advertisement ends inside the pkt-line at byte %zu (truncated: %zu of its %zu bytes)",
			r->at, r->len - r->at, len);
	*line = r->s + r->at + 4;
	*n = len - 4;
	r->at += len;
	return 1;
}

static bool is_oid(const char *s)
{
	for (int i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int wm_refs_name_ok(const char *name, size_t len, const char **why)
{
	static const char bad[] = " ~^:?*[\\";
	size_t start = 0, n;
	uint32_t cp;
	unsigned line, column;
	unsigned char byte;

	/* git's rules (check-ref-format(1)), component by component */
	if (len == 0 || name[0] == '/' || name[len - 1] == '/') {
		*why = "it begins or ends with '/'";
		return 0;
	}
	if (name[len - 1] == '.') {
		*why = "it ends with '.'";
		return 0;
	}
	if (len == 1 && name[0] == '@') {
		*why = "it is '@'";
		return 0;
	}
	for (size_t i = 0; i <= len; i++) {
		unsigned char c = i < len ? (unsigned char)name[i] : '/';
		if (c == '/') {
			if (i == start) {
				*why = "it has an empty component ('//')";
				return 0;
			}
			if (name[start] == '.') {
				*why = "a component begins with '.'";
				return 0;
			}
			if (i - start >= 5 && memcmp(name + i - 5, ".lock", 5) == 0) {
				*why = "a component ends with '.lock'";
				return 0;
			}
			start = i + 1;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			*why = "it holds a control character";
			return 0;
		}
		if (strchr(bad, c)) {
			*why = "it holds a space or one of ~ ^ : ? * [ \\";
			return 0;
		}
		if (c == '.' && i + 1 < len && name[i + 1] == '.') {
			*why = "it holds '..'";
			return 0;
		}
		if (c == '@' && i + 1 < len && name[i + 1] == '{') {
			*why = "it holds '@{'";
			return 0;
		}
	}
	/* and ours: git takes any byte above 0x7f, a person must see what a name says */
	if (!wm_utf8_valid(name, len, &line, &column, &byte)) {
		*why = "it is not UTF-8";
		return 0;
	}
	if (wm_utf8_find_hidden(name, len, &cp, &n) != len) {
		*why = "it holds a character that does not show as itself (a control, format or separator character)";
		return 0;
	}
	return 1;
}

struct lists {
	struct wm_refs_tag *tags;
	size_t ntags, tags_cap;
	struct wm_refs_tag *heads;
	size_t nheads, heads_cap;
	struct wm_refs_skipped *skipped;
	size_t nskipped, skipped_cap;
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	void *q;
	size_t c;
	if (need <= *cap)
		return p;
	c = *cap ? *cap * 2 : 16;
	if (!(q = realloc(p, c * size)))
		return NULL;
	*cap = c;
	return q;
}

/*
 * A tag ref (or with `heads`, a branch) named `oid`: kept, or skipped with
 * the rule it breaks (a branch silently: only a tag is ever shown).
 */
static int add_tag(struct reader *r, struct lists *l, const char *ref, size_t len, const char *oid, bool heads)
{
	const char *why = NULL, *name = ref + (heads ? strlen(HEADS) : strlen(TAGS));
	size_t nlen = len - (size_t)(name - ref);
	struct wm_refs_tag **list = heads ? &l->heads : &l->tags;
	size_t *n = heads ? &l->nheads : &l->ntags, *cap = heads ? &l->heads_cap : &l->tags_cap;
	void *p;

	if (nlen > TAG_MAX)
		why = "it is longer than 255 bytes";
	else
		wm_refs_name_ok(ref, len, &why);
	if (why && heads)
		return 0;
	if (why) {
		if (!(p = grow(l->skipped, &l->skipped_cap, l->nskipped + 1, sizeof(*l->skipped))))
			return WM_ENOMEM;
		l->skipped = p;
		l->skipped[l->nskipped].why = why;
		l->skipped[l->nskipped++].shown = shown(r->a, name, nlen);
		return 0;
	}
	if (!(p = grow(*list, cap, *n + 1, sizeof(**list))))
		return WM_ENOMEM;
	*list = p;
	memset(&(*list)[*n], 0, sizeof(**list));
	memcpy((*list)[*n].object, oid, 40);
	memcpy((*list)[*n].commit, oid, 40);
	if (!((*list)[(*n)++].name = wm_arena_strndup(r->a, name, nlen)))
		return WM_ENOMEM;
	return 0;
}

static bool content_type_ok(const char *ct)
{
	size_t n = strlen(CONTENT_TYPE);
	return ct && strncasecmp(ct, CONTENT_TYPE, n) == 0 && (!ct[n] || ct[n] == ';' || ct[n] == ' ');
}

/* The header: the service line and its flush, then an optional "version 1". */
static int read_header(struct reader *r)
{
	const char *line = NULL;
	size_t n = 0;
	int ret;

	if ((ret = next_pkt(r, &line, &n)) < 0)
		return ret;
	if (ret == 0 || !(n == strlen(SERVICE) || (n == strlen(SERVICE) + 1 && line[n - 1] == '\n')) ||
	    memcmp(line, SERVICE, strlen(SERVICE)) != 0)
		return refuse(r, "the advertisement does not start with '%s': not git's smart-HTTP protocol", SERVICE);
	if ((ret = next_pkt(r, &line, &n)) < 0)
		return ret;
	if (ret != 0)
		return refuse(r, "no flush-pkt after '%s'", SERVICE);
	return 0;
}

/* The ref lines up to the final flush-pkt, into `l`; out->nrefs counts them. */
static int read_refs(struct reader *r, struct wm_refs *out, struct lists *l, size_t max_refs)
{
	const char *prev = NULL;     /* the last ref's name, for its peeled line */
	size_t prev_len = 0;
	bool prev_kept = false, first = true, version = false;
	int ret;

	for (;;) {
		const char *line = NULL, *name, *oid;
		size_t n = 0, len;

		if ((ret = next_pkt(r, &line, &n)) < 0)
			return ret;
		if (ret == 0)
			break;
		if (n && line[n - 1] == '\n')
			n--;
		if (first && !version && n == 9 && memcmp(line, "version 1", 9) == 0) {
			version = true;
			continue;
		}
		/* "<40 hex> <name>", and on the first line only, "\0<capabilities>" */
		name = memchr(line, '\0', n);
		len = name ? (size_t)(name - line) : n;
		if (name && !first)
			return refuse(r, "a ref line after the first has capabilities (a NUL byte)");
		first = false;
		if (len < 42 || line[40] != ' ')
			return refuse(r, "a ref line is not an object name, a space and a ref name: '%s'",
				shown(r->a, line, len));
		if (!is_oid(line))
			return refuse(r, "the object name '%s' is not 40 lower-case hex digits (git's SHA-1)",
				shown(r->a, line, len < 64 ? len : 64));
		oid = line;
		name = line + 41;
		len -= 41;
		/* an empty repository advertises its capabilities alone, under a zero object name */
		if (len == 15 && memcmp(name, "capabilities^{}", 15) == 0 && out->nrefs == 0 && !prev) {
			prev = name;
			continue;
		}
		if (len > 3 && memcmp(name + len - 3, PEELED, 3) == 0) {
			if (!prev || prev_len != len - 3 || memcmp(prev, name, len - 3) != 0)
				return refuse(r, "the peeled line of '%s' does not follow its ref", shown(r->a, name, len));
			if (prev_kept) {
				memcpy(l->tags[l->ntags - 1].commit, oid, 40);
				l->tags[l->ntags - 1].annotated = true;
			}
			prev = NULL;
			continue;
		}
		if (++out->nrefs > max_refs)
			return refuse(r, "more than %zu refs: the most read from one repository", max_refs);
		prev = name;
		prev_len = len;
		prev_kept = false;
		if (len > strlen(TAGS) && memcmp(name, TAGS, strlen(TAGS)) == 0) {
			size_t before = l->ntags;
			if ((ret = add_tag(r, l, name, len, oid, false)) < 0)
				return ret;
			prev_kept = l->ntags > before;
		} else if (len > strlen(HEADS) && memcmp(name, HEADS, strlen(HEADS)) == 0 &&
				(ret = add_tag(r, l, name, len, oid, true)) < 0) {
			return ret;
		}
	}
	if (r->at != r->len)
		return refuse(r, "%zu bytes after the advertisement's final flush-pkt", r->len - r->at);
	return 0;
}

int wm_refs_parse(struct wm_refs *out, struct wm_arena *a, const char *content_type, const char *body, size_t len,
	size_t max_refs, const char **why)
{
	struct reader r = { body, len, 0, a, why };
	struct lists l = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	if (!content_type_ok(content_type)) {
		if (!content_type)
			return refuse(&r, "not git's smart-HTTP protocol: the answer has no Content-Type, not %s", CONTENT_TYPE);
		return refuse(&r, "not git's smart-HTTP protocol: the Content-Type is '%s', not %s (a dumb HTTP server, or "
			"not a git repository)", shown(a, content_type, strlen(content_type)), CONTENT_TYPE);
	}
	if ((ret = read_header(&r)) < 0 || (ret = read_refs(&r, out, &l, max_refs ? max_refs : WM_REFS_MAX)) < 0)
		goto out;
	ret = WM_ENOMEM;
	if ((l.ntags && !(out->tags = wm_arena_array(a, l.ntags, sizeof(*out->tags)))) ||
	    (l.nheads && !(out->heads = wm_arena_array(a, l.nheads, sizeof(*out->heads)))) ||
	    (l.nskipped && !(out->skipped = wm_arena_array(a, l.nskipped, sizeof(*out->skipped)))))
		goto out;
	if (l.ntags)
		memcpy(out->tags, l.tags, l.ntags * sizeof(*l.tags));
	if (l.nheads)
		memcpy(out->heads, l.heads, l.nheads * sizeof(*l.heads));
	if (l.nskipped)
		memcpy(out->skipped, l.skipped, l.nskipped * sizeof(*l.skipped));
	out->nheads = l.nheads;
	out->ntags = l.ntags;
	out->nskipped = l.nskipped;
	ret = 0;
out:
	if (ret < 0) {
		size_t nrefs = out->nrefs;
		memset(out, 0, sizeof(*out));
		out->nrefs = nrefs;
	}
	free(l.tags);
	free(l.heads);
	free(l.skipped);
	return ret;
}

/* ---- asking a forge -------------------------------------------------------- */

int wm_refs_forge_check(const char *forge, struct wm_error *err)
{
	struct wm_buf b = WM_BUF_INIT;
	const char *why = NULL, *auth, *end;

	if (strncasecmp(forge, "http://", 7) != 0 && strncasecmp(forge, "https://", 8) != 0)
		why = "a forge is an http:// or https:// URL";
	else if (strcspn(forge, " \t\r\n\"<>") != strlen(forge))
		why = "spaces, quotes and angle brackets must be percent-encoded";
	else if (strpbrk(forge, "?#"))
		why = "a forge's URL has no query or fragment: the repositories' paths go after it";
	if (!why) {
		/* an '@' other than the one that ends a user name and password: curl would read part of it as the host */
		auth = strstr(forge, "://") + 3;
		end = auth + strcspn(auth, "/");
		if (strchr(end, '@') || ((auth = memchr(auth, '@', (size_t)(end - auth))) &&
				memchr(auth + 1, '@', (size_t)(end - auth - 1))))
			why = "write '@' and '/' in a user name or password as %40 and %2F, and an '@' in the path as %40";
	}
	if (!why)
		return 0;
	wm_text_url(&b, forge, strlen(forge));
	wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL, "invalid forge URL '%s': %s",
		b.ptr ? b.ptr : "", why);
	wm_buf_release(&b);
	return WM_EINVALID;
}

/* owner/name as a forge names a repository: two components of letters, digits, '.', '-' and '_', neither '.' nor '..'. */
static bool repo_ok(const char *repo)
{
	const char *slash = strchr(repo, '/');
	size_t n1, n2;
	if (!slash || strchr(slash + 1, '/') || strspn(repo, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			"0123456789._-/") != strlen(repo))
		return false;
	n1 = (size_t)(slash - repo);
	n2 = strlen(slash + 1);
	return n1 && n2 && !(n1 <= 2 && strspn(repo, ".") == n1) && !(n2 <= 2 && strspn(slash + 1, ".") == n2);
}

static int answer(struct wm_refs_query *q, struct wm_arena *a, const struct wm_net_request *r, size_t max_refs)
{
	const char *why = NULL;
	int ret;

	q->attempts = r->attempts;
	if (r->error) {
		q->error = wm_arena_strdup(a, r->error);
		return q->error ? 0 : WM_ENOMEM;
	}
	if (r->status == 404 || r->status == 410)
		q->error = wm_arena_printf(a, "HTTP %ld: no such repository on the forge", r->status);
	else if (r->status == 401 || r->status == 403)
		q->error = wm_arena_printf(a, "HTTP %ld: the forge wants credentials (netrc), or the repository is "
			"private", r->status);
	else if (r->status < 200 || r->status > 299)
		q->error = wm_arena_printf(a, "unexpected HTTP status %ld", r->status);
	else if ((ret = wm_refs_parse(&q->refs, a, r->content_type, r->body, r->len, max_refs, &why)) == WM_ENOMEM)
		return ret;
	else if (ret < 0)
		q->error = why;
	else
		return 0;
	return q->error ? 0 : WM_ENOMEM;
}

int wm_refs_fetch(struct wm_refs_query *q, size_t n, struct wm_arena *a, const char *forge, size_t max_refs,
	const struct wm_net_options *o)
{
	return wm_refs_fetch_with(q, n, a, forge, max_refs, o, NULL, 0);
}

int wm_refs_fetch_with(struct wm_refs_query *q, size_t n, struct wm_arena *a, const char *forge, size_t max_refs,
	const struct wm_net_options *o, struct wm_net_request *extra, size_t nextra)
{
	struct wm_net_request *reqs = NULL;
	struct wm_net_options opts = *o;
	size_t *of = NULL, nreqs = 0, flen = strlen(forge);
	int ret = WM_ENOMEM;

	while (flen && forge[flen - 1] == '/')
		flen--;
	if (!(reqs = calloc(n + nextra + 1, sizeof(*reqs))) || !(of = calloc(n + 1, sizeof(*of))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct wm_buf b = WM_BUF_INIT;
		char *url;

		memset(&q[i].refs, 0, sizeof(q[i].refs));
		q[i].error = NULL;
		q[i].attempts = 0;
		if (!(url = wm_arena_printf(a, "%.*s/%s.git/info/refs?service=git-upload-pack", (int)flen, forge, q[i].repo)))
			goto out;
		wm_text_url(&b, url, strlen(url) - strlen("?service=git-upload-pack"));
		q[i].url = b.oom ? NULL : wm_arena_strndup(a, b.ptr ? b.ptr : "", b.len);
		wm_buf_release(&b);
		if (!q[i].url)
			goto out;
		if (!repo_ok(q[i].repo)) {
			if (!(q[i].error = wm_arena_printf(a, "'%s' is not a repository's owner/name", shown(a, q[i].repo,
					strlen(q[i].repo)))))
				goto out;
			continue;
		}
		reqs[nreqs].url = url;
		of[nreqs++] = i;
	}
	opts.accept = CONTENT_TYPE;
	/* the caller's requests go in the same batch, after ours */
	for (size_t k = 0; k < nextra; k++)
		reqs[nreqs + k] = extra[k];
	ret = wm_net_fetch(reqs, nreqs + nextra, &opts);
	for (size_t k = 0; k < nextra; k++)
		extra[k] = reqs[nreqs + k];
	if (ret < 0)
		goto out;
	for (size_t k = 0; k < nreqs; k++)
		if ((ret = answer(&q[of[k]], a, &reqs[k], max_refs)) < 0)
			goto out;
	ret = 0;
out:
	for (size_t k = 0; reqs && k < nreqs; k++)
		wm_net_request_release(&reqs[k]);
	free(reqs);
	free(of);
	return ret;
}

bool wm_refs_release_read(const char *s, unsigned max, struct wm_refs_release *v)
{
	s += *s == 'v' || *s == 'V';
	memset(v, 0, sizeof(*v));
	for (;;) {
		char *end;
		if (*s < '0' || *s > '9' || v->n == max || v->n == WM_REFS_RELEASE_PARTS)
			return false;
		errno = 0;
		v->part[v->n++] = strtoul(s, &end, 10);
		if (errno || end - s > 9)
			return false;
		if (!*end)
			return true;
		if (*end != '.')
			return false;
		s = end + 1;
	}
}

int wm_refs_release_cmp(const struct wm_refs_release *a, const struct wm_refs_release *b)
{
	for (unsigned i = 0; i < WM_REFS_RELEASE_PARTS; i++)
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	return (a->n > b->n) - (a->n < b->n);
}
