/* toml.c — a TOML 1.0.0 parser keeping exact source positions, for byte-exact edits of pyproject.toml and Cargo.toml. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/text.h"
#include "util/utf8.h"
#include "formats/toml.h"

/* A slot of the key index: entry `i` of table `t`, whose key hashes to `hash`; empty without `t`. */
struct slot {
	const struct wm_toml_table *t;
	uint32_t hash, i;
};

/*
 * What is being read.  The growing lists (a key's parts, the items of the arrays being read, the
 * key/value pairs of the sections and inline tables being read) live here, innermost last, and
 * each gets an array of its exact size in the arena when it is complete.
 */
struct parser {
	struct wm_toml_doc *doc;
	struct wm_error *err;
	const char *s;           /* doc->text */
	size_t len, pos;
	size_t loc_off;          /* locate()'s cache: the offset it last located */
	unsigned loc_line, loc_col;
	struct slot *slots;      /* (table, key) -> entry, for the duplicate checks */
	size_t nslots, capslots;
	size_t count;            /* values and comments so far */
	char *pool, *pool_end;   /* where the next short text goes */
	struct wm_buf str;       /* the string being decoded */
	struct wm_toml_key *parts;  /* the key being parsed */
	size_t capparts;
	struct wm_toml_value **items;
	size_t nitems, capitems;
	struct wm_toml_kv *kvs;
	size_t nkvs, capkvs;
};

/* Values stay compact: the header's promise, and what bench/toml.sh measures. */
_Static_assert(sizeof(void *) != 8 || sizeof(struct wm_toml_value) <= 96, "a TOML value grew");

/* A dotted key as written. */
struct keypath {
	struct wm_toml_key *parts;
	size_t n;
	struct wm_toml_span span;
};

/* ---- positions and diagnostics ------------------------------------------- */

/*
 * The line and column of byte `off`.  Positions are asked for in increasing
 * order while parsing, so counting resumes where the last call stopped.
 */
static void locate(struct parser *p, size_t off, unsigned *line, unsigned *column)
{
	if (off < p->loc_off) {
		p->loc_off = 0;
		p->loc_line = p->loc_col = 1;
	}
	for (size_t i = p->loc_off; i < off; i++) {
		unsigned char c = (unsigned char)p->s[i];
		if (c == '\n') {
			p->loc_line++;
			p->loc_col = 1;
		} else if ((c & 0xc0) != 0x80) {
			p->loc_col++;
		}
	}
	p->loc_off = off;
	*line = p->loc_line;
	*column = p->loc_col;
}

/* A span starting at `start`, empty until its end is set. */
static struct wm_toml_span span_at(struct parser *p, size_t start)
{
	struct wm_toml_span sp = { (uint32_t)start, (uint32_t)start, 0, 0 };
	locate(p, start, &sp.line, &sp.column);
	return sp;
}

/* Reports an error at bytes [off, end) (a caret only when end <= off); returns WM_EINVALID. */
static int fail_at(struct parser *p, size_t off, size_t end, const char *fmt, ...) WM_PRINTF(4, 5);
static int fail_at(struct parser *p, size_t off, size_t end, const char *fmt, ...)
{
	unsigned line, column, span = 1;
	va_list ap;
	if (off > p->len)
		off = p->len;
	locate(p, off, &line, &column);
	if (end > off) {
		const char *eol = memchr(p->s + off, '\n', (end < p->len ? end : p->len) - off);
		size_t stop = eol ? (size_t)(eol - p->s) : (end < p->len ? end : p->len);
		span = (unsigned)wm_utf8_len(p->s + off, stop - off);
		if (span == 0)
			span = 1;
	}
	va_start(ap, fmt);
	wm_error_vadd(p->err, WM_EINVALID, WM_SEV_ERROR, p->doc->file, p->s, p->len, line, column, span, fmt, ap);
	va_end(ap);
	return WM_EINVALID;
}

static int oom(struct parser *p)
{
	wm_error_nopos(p->err, WM_ENOMEM, WM_SEV_ERROR, p->doc->file, "out of memory");
	return WM_ENOMEM;
}

static bool is_control(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

/* The character at `off` for a message: 'x', a space, U+0001, the end of the line... */
static const char *describe(struct parser *p, size_t off, char buf[16])
{
	unsigned char c;
	size_t n = 1;
	if (off >= p->len)
		return "the end of the file";
	c = (unsigned char)p->s[off];
	if (c == '\n' || (c == '\r' && off + 1 < p->len && p->s[off + 1] == '\n'))
		return "the end of the line";
	if (c == ' ')
		return "a space";
	if (c == '\t')
		return "a tab";
	if (is_control(c)) {
		snprintf(buf, 16, "U+%04X", c);
		return buf;
	}
	while (off + n < p->len && n < 4 && ((unsigned char)p->s[off + n] & 0xc0) == 0x80)
		n++;
	snprintf(buf, 16, "'%.*s'", (int)n, p->s + off);
	return buf;
}

/* ---- arena arrays, texts, counts and the key index ------------------------ */

/*
 * Makes room for item n of an arena array that only ever grows through
 * here: its capacity is implicit (4, then each power of two), so the
 * structures carry no capacity fields.  NULL when out of memory.  For the
 * lists that grow over the whole file (a table's entries, an array of
 * tables, the comments); the others are built in the parser's lists.
 */
static void *grow(struct parser *p, void *items, size_t n, size_t size)
{
	void *bigger;
	if (n > 0 && (n < 4 || (n & (n - 1)) != 0))
		return items;
	bigger = wm_arena_array(&p->doc->arena, n ? n * 2 : 4, size);
	if (bigger && n)
		memcpy(bigger, items, n * size);
	return bigger;
}

/*
 * Room for item n of a parser's list of `size`-byte items: the list, moved if it had to grow, or
 * NULL (the list left as it is) when out of memory.
 */
static void *reserve(void *items, size_t n, size_t *cap, size_t size)
{
	void *bigger;
	if (n < *cap)
		return items;
	if ((bigger = realloc(items, (*cap ? *cap * 2 : 16) * size)) != NULL)
		*cap = *cap ? *cap * 2 : 16;
	return bigger;
}

/* The last `n - base` items of a parser's list as an arena array of their own (NULL when empty). */
static void *settle(struct parser *p, const void *list, size_t base, size_t n, size_t size, int *ret)
{
	void *out;
	if (n == base)
		return NULL;
	if (!(out = wm_arena_array(&p->doc->arena, n - base, size))) {
		*ret = oom(p);
		return NULL;
	}
	return memcpy(out, (const char *)list + base * size, (n - base) * size);
}

#define POOL_CHUNK 16384u

/*
 * A NUL-terminated copy of s[0, len) in the arena.  Short texts (keys, numbers, most strings) are
 * packed one after the other in chunks, without the arena's alignment; in the sanitizer build each
 * is an allocation of its own, so that its bounds are seen.
 */
static char *copy_text(struct parser *p, const char *s, size_t len)
{
	char *c = NULL;
#ifndef WM_ARENA_MALLOC
	if (len < POOL_CHUNK / 64) {
		if ((size_t)(p->pool_end - p->pool) < len + 1) {
			if (!(p->pool = wm_arena_alloc(&p->doc->arena, POOL_CHUNK)))
				return NULL;
			p->pool_end = p->pool + POOL_CHUNK;
		}
		c = memcpy(p->pool, s, len);
		c[len] = '\0';
		p->pool += len + 1;
	}
#endif
	return c ? c : wm_arena_strndup(&p->doc->arena, s, len);
}

/*
 * Counts a value or comment that starts at `off`; the one past WM_TOML_MAX_VALUES is an error
 * there.  Bounded in number, the structures are bounded in size whatever the file packs in.
 */
static int count(struct parser *p, size_t off)
{
	if (++p->count <= WM_TOML_MAX_VALUES)
		return 0;
	return fail_at(p, off, off + 1, "more than %u values and comments in one file, the limit of the TOML "
		"reader (a pyproject.toml or Cargo.toml holds some hundreds)", WM_TOML_MAX_VALUES);
}

/* The index is keyed by the table's address and the key's bytes (FNV-1a). */
static uint32_t key_hash(const struct wm_toml_table *t, const char *key, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	uintptr_t a = (uintptr_t)t;
	for (size_t i = 0; i < sizeof(a); i++, a >>= 8) {
		h ^= a & 0xff;
		h *= 1099511628211ull;
	}
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 1099511628211ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* The slot of (t, key): its entry's, or the empty one where it would go. */
static struct slot *find_slot(const struct parser *p, const struct wm_toml_table *t, const char *key, size_t len,
	uint32_t h)
{
	size_t mask = p->capslots - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct slot *sl = &p->slots[i];
		if (!sl->t || (sl->t == t && sl->hash == h && t->entries[sl->i].len == len &&
				memcmp(t->entries[sl->i].key, key, len) == 0))
			return sl;
	}
}

static struct wm_toml_value *lookup(struct parser *p, const struct wm_toml_table *t, const char *key, size_t len)
{
	const struct slot *sl;
	if (!p->capslots)
		return NULL;
	sl = find_slot(p, t, key, len, key_hash(t, key, len));
	return sl->t ? sl->t->entries[sl->i].value : NULL;
}

/* Doubles the index (at three quarters full), placing every slot again. */
static int grow_index(struct parser *p)
{
	size_t cap = p->capslots ? p->capslots * 2 : 64;
	struct slot *old = p->slots;
	size_t oldcap = p->capslots;
	if (!(p->slots = calloc(cap, sizeof(*p->slots)))) {
		p->slots = old;
		return oom(p);
	}
	p->capslots = cap;
	for (size_t i = 0; i < oldcap; i++) {
		size_t k = old[i].hash & (cap - 1);
		if (!old[i].t)
			continue;
		while (p->slots[k].t)
			k = (k + 1) & (cap - 1);
		p->slots[k] = old[i];
	}
	free(old);
	return 0;
}

/* Adds `key` = v to table t (the caller looked it up: it is new). */
static int insert(struct parser *p, struct wm_toml_table *t, const char *key, size_t len,
	struct wm_toml_value *v)
{
	struct wm_toml_entry *entries = grow(p, t->entries, t->n, sizeof(*entries));
	uint32_t h = key_hash(t, key, len);
	struct slot *sl;
	int ret;
	if (!entries)
		return oom(p);
	t->entries = entries;
	if ((p->nslots + 1) * 4 > p->capslots * 3 && (ret = grow_index(p)) < 0)
		return ret;
	sl = find_slot(p, t, key, len, h);
	entries[t->n].key = key;
	entries[t->n].len = len;
	entries[t->n].value = v;
	sl->t = t;
	sl->hash = h;
	sl->i = (uint32_t)t->n;
	t->n++;
	p->nslots++;
	return 0;
}

/* ---- values and tables --------------------------------------------------- */

/* A new value at `start`; NULL with the error reported (*ret) when out of memory or past the count. */
static struct wm_toml_value *new_value(struct parser *p, enum wm_toml_type type, size_t start, int *ret)
{
	struct wm_toml_value *v;
	if ((*ret = count(p, start)) < 0)
		return NULL;
	if (!(v = wm_arena_alloc(&p->doc->arena, sizeof(*v)))) {
		*ret = oom(p);
		return NULL;
	}
	v->type = type;
	v->span = span_at(p, start);
	return v;
}

/*
 * A new table value under `parent` (not inserted), of the given origin,
 * named `key`; NULL with the error reported when out of memory, too deep or
 * past the count.
 */
static struct wm_toml_value *new_table(struct parser *p, struct wm_toml_table *parent, const char *key,
	size_t keylen, enum wm_toml_origin origin, struct wm_toml_span span, int *ret)
{
	struct wm_toml_value *v;
	struct wm_toml_table *t = NULL;
	unsigned depth = parent ? parent->depth + 1 : 0;
	if (depth > WM_TOML_MAX_DEPTH) {
		*ret = fail_at(p, span.start, span.end, "nesting deeper than %u levels", WM_TOML_MAX_DEPTH);
		return NULL;
	}
	if ((*ret = count(p, span.start)) < 0)
		return NULL;
	v = wm_arena_alloc(&p->doc->arena, sizeof(*v));
	t = wm_arena_alloc(&p->doc->arena, sizeof(*t));
	if (!v || !t) {
		*ret = oom(p);
		return NULL;
	}
	v->type = WM_TOML_TABLE;
	v->span = span;
	v->table = t;
	t->origin = origin;
	t->parent = parent;
	t->key = key;
	t->keylen = keylen;
	t->depth = depth;
	t->append = origin == WM_TOML_IMPLICIT ? SIZE_MAX : span.end;
	return v;
}

static const char *const type_names[] = {
	[WM_TOML_STRING] = "a string",
	[WM_TOML_INTEGER] = "an integer",
	[WM_TOML_FLOAT] = "a float",
	[WM_TOML_BOOL] = "a boolean",
	[WM_TOML_DATETIME] = "an offset date-time",
	[WM_TOML_DATETIME_LOCAL] = "a local date-time",
	[WM_TOML_DATE_LOCAL] = "a local date",
	[WM_TOML_TIME_LOCAL] = "a local time",
	[WM_TOML_ARRAY] = "an array",
	[WM_TOML_TABLE] = "a table",
};

const char *wm_toml_type_name(enum wm_toml_type type)
{
	return (unsigned)type < WM_ARRAY_SIZE(type_names) ? type_names[type] : "a value";
}

/* ---- whitespace, newlines, comments -------------------------------------- */

static void skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
		p->pos++;
}

static bool at_newline(struct parser *p)
{
	return p->pos < p->len && (p->s[p->pos] == '\n' ||
		(p->s[p->pos] == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n'));
}

static int lone_cr(struct parser *p, size_t off)
{
	return fail_at(p, off, off + 1, "a carriage return (U+000D) must be followed by a line feed");
}

/* Consumes a line ending (LF or CRLF) at pos, or fails. */
static int newline(struct parser *p)
{
	if (p->s[p->pos] == '\n') {
		p->pos++;
		return 0;
	}
	if (at_newline(p)) {
		p->pos += 2;
		return 0;
	}
	return lone_cr(p, p->pos);
}

/* A comment from the `#` at pos to the end of the line (not consumed), recorded in the document. */
static int comment(struct parser *p)
{
	struct wm_toml_doc *doc = p->doc;
	size_t start = p->pos, i = start + 1;
	struct wm_toml_span *list;
	int ret;
	for (; i < p->len; i++) {
		unsigned char c = (unsigned char)p->s[i];
		if (c == '\n' || (c == '\r' && i + 1 < p->len && p->s[i + 1] == '\n'))
			break;
		if (c == '\r')
			return lone_cr(p, i);
		if (is_control(c))
			return fail_at(p, i, i + 1, "control character U+%04X is not allowed in a comment", c);
	}
	if ((ret = count(p, start)) < 0)
		return ret;
	if (!(list = grow(p, doc->comments, doc->ncomments, sizeof(*list))))
		return oom(p);
	doc->comments = list;
	list[doc->ncomments] = span_at(p, start);
	list[doc->ncomments].end = (uint32_t)i;
	doc->ncomments++;
	p->pos = i;
	return 0;
}

/* After `what`: spaces, an optional comment, then a line ending or the end of the file. */
static int end_of_line(struct parser *p, const char *what)
{
	char buf[16];
	int ret;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == '#' && (ret = comment(p)) < 0)
		return ret;
	if (p->pos >= p->len)
		return 0;
	if (p->s[p->pos] == '\n' || p->s[p->pos] == '\r')
		return newline(p);
	return fail_at(p, p->pos, p->pos + 1, "expected the end of the line after %s, found %s",
		what, describe(p, p->pos, buf));
}

/* Spaces, line endings and comments, as allowed between the items of an array. */
static int skip_blank(struct parser *p)
{
	int ret;
	for (;;) {
		skip_ws(p);
		if (p->pos >= p->len)
			return 0;
		if (p->s[p->pos] == '#') {
			if ((ret = comment(p)) < 0)
				return ret;
		} else if (p->s[p->pos] == '\n' || p->s[p->pos] == '\r') {
			if ((ret = newline(p)) < 0)
				return ret;
		} else {
			return 0;
		}
	}
}

/* ---- strings ------------------------------------------------------------- */

static int unterminated(struct parser *p, size_t open, size_t quotes)
{
	return fail_at(p, open, open + quotes, "unterminated string: expected %s before the end of the file",
		quotes == 3 ? (p->s[open] == '"' ? "'\"\"\"'" : "\"'''\"") : (p->s[open] == '"' ? "'\"'" : "\"'\""));
}

/* The escape sequence at pos (a backslash) in a basic string opened at `open`. */
static int escape(struct parser *p, size_t open, size_t quotes)
{
	size_t at = p->pos;
	unsigned char c;
	const char *simple = "b\bt\tn\nf\fr\r\"\"\\\\";
	char buf[16];
	if (at + 1 >= p->len)
		return unterminated(p, open, quotes);
	c = (unsigned char)p->s[at + 1];
	for (const char *e = simple; *e; e += 2) {
		if (c == (unsigned char)e[0]) {
			wm_buf_putc(&p->str, e[1]);
			p->pos += 2;
			return 0;
		}
	}
	if (c == 'u' || c == 'U') {
		size_t n = c == 'u' ? 4 : 8;
		uint32_t cp = 0;
		for (size_t i = 0; i < n; i++) {
			int h = at + 2 + i < p->len ? wm_text_hex_digit(p->s[at + 2 + i]) : -1;
			if (h < 0)
				return fail_at(p, at, at + 2 + i, "invalid escape '\\%c': expected %zu hexadecimal digits",
					c, n);
			cp = cp << 4 | (uint32_t)h;
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return fail_at(p, at, at + 2 + n, "invalid escape '%.*s': U+%04X is not a Unicode scalar value",
				(int)(n + 2), p->s + at, (unsigned)cp);
		wm_utf8_put(&p->str, cp);
		p->pos += 2 + n;
		return 0;
	}
	if (c > 0x20 && c < 0x7f)
		return fail_at(p, at, at + 2, "invalid escape '\\%c' in a string", c);
	if (c >= 0x80) {
		size_t n = 1;
		while (at + 1 + n < p->len && ((unsigned char)p->s[at + 1 + n] & 0xc0) == 0x80)
			n++;
		return fail_at(p, at, at + 2, "invalid escape '\\%.*s' in a string", (int)n, p->s + at + 1);
	}
	return fail_at(p, at, at + 1, "invalid escape: a backslash followed by %s in a string",
		describe(p, at + 1, buf));
}

/* Adds the plain bytes from pos up to `quote`, a backslash or a control character. */
static void plain_run(struct parser *p, char quote)
{
	size_t i = p->pos;
	while (i < p->len) {
		unsigned char c = (unsigned char)p->s[i];
		if (c == (unsigned char)quote || c == '\\' || is_control(c))
			break;
		i++;
	}
	wm_buf_add(&p->str, p->s + p->pos, i - p->pos);
	p->pos = i;
}

static int string_control(struct parser *p, unsigned char c)
{
	return fail_at(p, p->pos, p->pos + 1,
		"control character U+%04X in a string: write it as an escape (\\u%04X) in a \"...\" string", c, c);
}

/* "...": pos after the opening quote. */
static int basic_string(struct parser *p, size_t open)
{
	int ret;
	for (;;) {
		unsigned char c;
		plain_run(p, '"');
		if (p->pos >= p->len)
			return unterminated(p, open, 1);
		c = (unsigned char)p->s[p->pos];
		if (c == '"') {
			p->pos++;
			return 0;
		}
		if (c == '\\') {
			if ((ret = escape(p, open, 1)) < 0)
				return ret;
		} else if (c == '\n' || c == '\r') {
			return fail_at(p, open, p->pos, "unterminated string: a \"...\" string ends on its line "
				"(a multi-line string is written \"\"\"...\"\"\")");
		} else {
			return string_control(p, c);
		}
	}
}

/* '...': pos after the opening quote. */
static int literal_string(struct parser *p, size_t open)
{
	size_t i = p->pos;
	while (i < p->len && p->s[i] != '\'' && !is_control((unsigned char)p->s[i]))
		i++;
	wm_buf_add(&p->str, p->s + p->pos, i - p->pos);
	p->pos = i;
	if (i >= p->len)
		return unterminated(p, open, 1);
	if (p->s[i] == '\'') {
		p->pos++;
		return 0;
	}
	if (p->s[i] == '\n' || p->s[i] == '\r')
		return fail_at(p, open, i, "unterminated string: a '...' string ends on its line "
			"(a multi-line string is written '''...''')");
	return string_control(p, (unsigned char)p->s[i]);
}

/*
 * At a quote in a multi-line string: up to two quotes are content, three to
 * five close the string (the extra ones being content).  Returns 1 when closed.
 */
static int ml_quotes(struct parser *p, char quote)
{
	size_t q = 0;
	while (p->pos + q < p->len && p->s[p->pos + q] == quote)
		q++;
	if (q > 5)
		return fail_at(p, p->pos, p->pos + q, "too many quotes: at most two can come before the %s that ends "
			"a multi-line string", quote == '"' ? "'\"\"\"'" : "\"'''\"");
	wm_buf_add(&p->str, p->s + p->pos, q < 3 ? q : q - 3);
	p->pos += q;
	return q >= 3;
}

/* The line ending (CRLF read as LF) or control character at pos in a multi-line string. */
static int ml_special(struct parser *p, unsigned char c)
{
	if (c == '\n' || at_newline(p)) {
		wm_buf_putc(&p->str, '\n');
		p->pos += c == '\n' ? 1 : 2;
		return 0;
	}
	if (c == '\r')
		return lone_cr(p, p->pos);
	return string_control(p, c);
}

/* A backslash at the end of a line: it, the line ending and all whitespace after it are dropped. */
static int line_ending_backslash(struct parser *p)
{
	size_t i = p->pos + 1;
	while (i < p->len && (p->s[i] == ' ' || p->s[i] == '\t'))
		i++;
	p->pos = i;
	if (!at_newline(p)) {
		if (i < p->len && p->s[i] == '\r')
			return lone_cr(p, i);
		return fail_at(p, i, i + 1, "invalid escape: only a backslash at the end of a line can be "
			"followed by whitespace");
	}
	for (;;) {
		skip_ws(p);
		if (!at_newline(p))
			return 0;
		p->pos += p->s[p->pos] == '\n' ? 1 : 2;
	}
}

/* """...""": pos after the opening quotes (and the newline right after them, dropped). */
static int ml_basic_string(struct parser *p, size_t open)
{
	int ret;
	for (;;) {
		unsigned char c;
		plain_run(p, '"');
		if (p->pos >= p->len)
			return unterminated(p, open, 3);
		c = (unsigned char)p->s[p->pos];
		if (c == '"') {
			if ((ret = ml_quotes(p, '"')) != 0)
				return ret < 0 ? ret : 0;
		} else if (c == '\\') {
			unsigned char next = p->pos + 1 < p->len ? (unsigned char)p->s[p->pos + 1] : 0;
			if (next == ' ' || next == '\t' || next == '\n' || next == '\r')
				ret = line_ending_backslash(p);
			else
				ret = escape(p, open, 3);
			if (ret < 0)
				return ret;
		} else if ((ret = ml_special(p, c)) < 0) {
			return ret;
		}
	}
}

/* '''...''': pos after the opening quotes (and the newline right after them, dropped). */
static int ml_literal_string(struct parser *p, size_t open)
{
	int ret;
	for (;;) {
		size_t i = p->pos;
		unsigned char c;
		while (i < p->len && p->s[i] != '\'' && !is_control((unsigned char)p->s[i]))
			i++;
		wm_buf_add(&p->str, p->s + p->pos, i - p->pos);
		p->pos = i;
		if (i >= p->len)
			return unterminated(p, open, 3);
		c = (unsigned char)p->s[i];
		if (c == '\'') {
			if ((ret = ml_quotes(p, '\'')) != 0)
				return ret < 0 ? ret : 0;
		} else if ((ret = ml_special(p, c)) < 0) {
			return ret;
		}
	}
}

/*
 * A string of any style at pos (a quote), decoded into the arena.  Keys
 * (multiline false) cannot be multi-line strings.
 */
static int parse_string(struct parser *p, bool multiline, const char **out, size_t *len,
	enum wm_toml_style *style)
{
	size_t open = p->pos;
	char q = p->s[open];
	bool triple = open + 2 < p->len && p->s[open + 1] == q && p->s[open + 2] == q;
	char *copy;
	int ret;

	wm_buf_clear(&p->str);
	wm_buf_add(&p->str, "", 0);
	if (triple && !multiline)
		return fail_at(p, open, open + 3, "a key cannot be a multi-line string");
	if (triple) {
		p->pos += 3;
		if (at_newline(p))
			p->pos += p->s[p->pos] == '\n' ? 1 : 2;
		*style = q == '"' ? WM_TOML_ML_BASIC : WM_TOML_ML_LITERAL;
		ret = q == '"' ? ml_basic_string(p, open) : ml_literal_string(p, open);
	} else {
		p->pos++;
		*style = q == '"' ? WM_TOML_BASIC : WM_TOML_LITERAL;
		ret = q == '"' ? basic_string(p, open) : literal_string(p, open);
	}
	if (ret < 0)
		return ret;
	if (p->str.oom || !(copy = copy_text(p, p->str.ptr, p->str.len)))
		return oom(p);
	*out = copy;
	*len = p->str.len;
	return 0;
}

/* ---- keys ---------------------------------------------------------------- */

static bool bare_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int simple_key(struct parser *p, struct wm_toml_key *k)
{
	size_t start = p->pos;
	char buf[16];
	int ret;
	k->span = span_at(p, start);
	if (start < p->len && (p->s[start] == '"' || p->s[start] == '\'')) {
		if ((ret = parse_string(p, false, &k->name, &k->len, &k->style)) < 0)
			return ret;
	} else {
		while (p->pos < p->len && bare_char(p->s[p->pos]))
			p->pos++;
		if (p->pos == start) {
			if (start < p->len && (unsigned char)p->s[start] >= 0x80)
				return fail_at(p, start, start + 1, "expected a key, found %s (a bare key is made of "
					"A-Z a-z 0-9 _ and -: quote other keys)", describe(p, start, buf));
			return fail_at(p, start, start + 1, "expected a key, found %s", describe(p, start, buf));
		}
		k->style = WM_TOML_BARE;
		k->len = p->pos - start;
		if (!(k->name = copy_text(p, p->s + start, k->len)))
			return oom(p);
	}
	k->span.end = (uint32_t)p->pos;
	return 0;
}

/* A key, dotted or not, at pos. */
static int parse_key(struct parser *p, struct keypath *key)
{
	int ret = 0;
	memset(key, 0, sizeof(*key));
	key->span = span_at(p, p->pos);
	for (;;) {
		size_t save;
		struct wm_toml_key *parts = reserve(p->parts, key->n, &p->capparts, sizeof(*parts));
		if (!parts)
			return oom(p);
		p->parts = parts;
		if ((ret = simple_key(p, &p->parts[key->n])) < 0)
			return ret;
		key->n++;
		save = p->pos;
		skip_ws(p);
		if (p->pos >= p->len || p->s[p->pos] != '.') {
			p->pos = save;
			break;
		}
		p->pos++;
		skip_ws(p);
	}
	if (!(key->parts = settle(p, p->parts, 0, key->n, sizeof(*key->parts), &ret)))
		return ret;
	key->span.end = key->parts[key->n - 1].span.end;
	return 0;
}

/* ---- writing strings ------------------------------------------------------ */

/* What the writer escapes: every C0 control (tab included, as \t) and DEL. */
static bool needs_escape(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void wm_toml_put_string(struct wm_buf *b, const char *s, size_t len, enum wm_toml_style style)
{
	bool literal = style == WM_TOML_LITERAL;
	for (size_t i = 0; i < len && literal; i++)
		literal = s[i] != '\'' && !needs_escape((unsigned char)s[i]);
	if (literal) {
		wm_buf_putc(b, '\'');
		wm_buf_add(b, s, len);
		wm_buf_putc(b, '\'');
		return;
	}
	wm_buf_putc(b, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t" :
			c == '\r' ? "\\r" : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
		if (esc)
			wm_buf_puts(b, esc);
		else if (needs_escape(c))
			wm_buf_printf(b, "\\u%04X", c);
		else
			wm_buf_putc(b, (char)c);
	}
	wm_buf_putc(b, '"');
}

bool wm_toml_string_fits(const char *s, enum wm_toml_style style)
{
	if (style != WM_TOML_BASIC && style != WM_TOML_LITERAL)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (needs_escape(c) || c == (style == WM_TOML_LITERAL ? '\'' : '"') ||
				(style == WM_TOML_BASIC && c == '\\'))
			return false;
	}
	return true;
}

/* Appends a key, quoted unless it is bare. */
void wm_toml_put_key(struct wm_buf *b, const char *key, size_t len)
{
	bool bare = len > 0;
	for (size_t i = 0; i < len && bare; i++)
		bare = bare_char(key[i]);
	if (bare)
		wm_buf_add(b, key, len);
	else
		wm_toml_put_string(b, key, len, WM_TOML_BASIC);
}

/* The dotted name of table `t` from the root ("tool.maturin"), for messages; the caller frees it. */
static char *table_name(const struct wm_toml_table *t)
{
	struct wm_buf b = WM_BUF_INIT;
	const struct wm_toml_table *chain[WM_TOML_MAX_DEPTH + 1];
	size_t n = 0;
	for (; t && t->parent && n < WM_ARRAY_SIZE(chain); t = t->parent)
		chain[n++] = t;
	wm_buf_add(&b, "", 0);
	while (n-- > 0) {
		wm_toml_put_key(&b, chain[n]->key, chain[n]->keylen);
		if (n > 0)
			wm_buf_putc(&b, '.');
	}
	return wm_buf_detach(&b);
}

/* The key as written, from its start to the end of part i, for messages. */
static int key_text(const struct keypath *key, size_t i)
{
	return (int)(key->parts[i].span.end - key->span.start);
}

/* ---- numbers and date-times ---------------------------------------------- */

static bool is_digit(char c, int base)
{
	switch (base) {
	case 2: return c == '0' || c == '1';
	case 8: return c >= '0' && c <= '7';
	case 16: return wm_text_hex_digit(c) >= 0;
	default: return c >= '0' && c <= '9';
	}
}

/* Digits of `base` with single underscores between them, from t[*i]. */
static const char *digits(const char *t, size_t n, size_t *i, int base, const char *missing)
{
	if (*i >= n || !is_digit(t[*i], base))
		return missing;
	while (*i < n) {
		if (is_digit(t[*i], base)) {
			(*i)++;
		} else if (t[*i] == '_') {
			if (*i + 1 >= n || !is_digit(t[*i + 1], base))
				return "an underscore must be between two digits";
			(*i)++;
		} else {
			break;
		}
	}
	return NULL;
}

/* The value of digits t[0..n) in `base`, underscores skipped; false beyond `max`. */
static bool accumulate(const char *t, size_t n, int base, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d;
		if (t[i] == '_')
			continue;
		d = (unsigned)wm_text_hex_digit(t[i]);
		if (v > (max - d) / (unsigned)base)
			return false;
		v = v * (unsigned)base + d;
	}
	*out = v;
	return true;
}

/* Converts a checked float (underscores dropped) with strtod, whatever the locale's decimal point. */
static bool to_double(const char *t, size_t n, double *out)
{
	const char *point = localeconv()->decimal_point;
	size_t m = 0, plen = strlen(point);
	char *buf = malloc(n * (plen + 1) + 1), *end;
	bool ok;
	if (!buf)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '.') {
			memcpy(buf + m, point, plen);
			m += plen;
		} else if (t[i] != '_') {
			buf[m++] = t[i];
		}
	}
	buf[m] = '\0';
	*out = strtod(buf, &end);
	ok = *end == '\0';
	free(buf);
	return ok;
}

/* An integer or a float in the token t[0..n); on failure, `why` says what is wrong. */
static const char *number(const char *t, size_t n, struct wm_toml_value *v)
{
	size_t i = 0, intstart;
	bool neg = false, isfloat = false;
	const char *why;
	uint64_t u;

	if (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-';
		i = 1;
	}
	if (i + 1 < n && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'o' || t[i + 1] == 'b')) {
		int base = t[i + 1] == 'x' ? 16 : t[i + 1] == 'o' ? 8 : 2;
		if (i > 0)
			return "a hexadecimal, octal or binary integer cannot have a sign";
		i = 2;
		if ((why = digits(t, n, &i, base, "expected a digit after the prefix")))
			return why;
		if (i != n)
			return "unexpected character in the number";
		if (!accumulate(t + 2, n - 2, base, INT64_MAX, &u))
			return "out of the range of 64-bit integers";
		v->type = WM_TOML_INTEGER;
		v->integer = (int64_t)u;
		return NULL;
	}
	intstart = i;
	if ((why = digits(t, n, &i, 10, "expected a digit")))
		return why;
	if (t[intstart] == '0' && i - intstart > 1)
		return "leading zeros are not allowed";
	if (i < n && t[i] == '.') {
		i++;
		isfloat = true;
		if ((why = digits(t, n, &i, 10, "expected a digit after the decimal point")))
			return why;
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		i++;
		isfloat = true;
		if (i < n && (t[i] == '+' || t[i] == '-'))
			i++;
		if ((why = digits(t, n, &i, 10, "expected a digit in the exponent")))
			return why;
	}
	if (i != n)
		return "unexpected character in the number";
	if (isfloat) {
		v->type = WM_TOML_FLOAT;
		/* beyond the range of doubles, strtod rounds to infinity, like Python's tomllib */
		if (!to_double(t, n, &v->number))
			return "it cannot be converted";
		return NULL;
	}
	if (!accumulate(t + intstart, n - intstart, 10, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &u))
		return "out of the range of 64-bit integers";
	v->type = WM_TOML_INTEGER;
	v->integer = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
	return NULL;
}

/* Exactly `width` decimal digits at t[*i], as a number; -1 when not there. */
static int fixed(const char *t, size_t n, size_t *i, size_t width)
{
	int v = 0;
	if (*i + width > n)
		return -1;
	for (size_t k = 0; k < width; k++) {
		char c = t[*i + k];
		if (c < '0' || c > '9')
			return -1;
		v = v * 10 + (c - '0');
	}
	if (*i + width < n && t[*i + width] >= '0' && t[*i + width] <= '9')
		return -1;  /* more digits than the field has */
	*i += width;
	return v;
}

static bool leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* HH:MM:SS[.fraction] at t[*i]. */
static const char *time_part(const char *t, size_t n, size_t *i)
{
	int h, m, s;
	if ((h = fixed(t, n, i, 2)) < 0 || *i >= n || t[*i] != ':')
		return "expected a time as HH:MM:SS";
	(*i)++;
	if ((m = fixed(t, n, i, 2)) < 0)
		return "expected a time as HH:MM:SS";
	if (*i >= n || t[*i] != ':')
		return "the seconds are missing (HH:MM:SS)";
	(*i)++;
	if ((s = fixed(t, n, i, 2)) < 0)
		return "expected a time as HH:MM:SS";
	if (h > 23)
		return "the hour must be 00 to 23";
	if (m > 59)
		return "the minute must be 00 to 59";
	if (s > 60)
		return "the second must be 00 to 60";
	if (*i < n && t[*i] == '.') {
		size_t start = ++(*i);
		while (*i < n && t[*i] >= '0' && t[*i] <= '9')
			(*i)++;
		if (*i == start)
			return "expected a digit after the decimal point";
	}
	return NULL;
}

/* A date-time, date or time in the token t[0..n); on failure, `why` says what is wrong. */
static const char *datetime(const char *t, size_t n, struct wm_toml_value *v)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	size_t i = 0;
	int y, m, d;
	const char *why;

	if (n >= 3 && (t[1] == ':' || t[2] == ':')) {
		if ((why = time_part(t, n, &i)))
			return why;
		if (i != n)
			return "unexpected character after the time (a local time has no offset)";
		v->type = WM_TOML_TIME_LOCAL;
		return NULL;
	}
	if ((y = fixed(t, n, &i, 4)) < 0 || i >= n || t[i++] != '-' || (m = fixed(t, n, &i, 2)) < 0 ||
			i >= n || t[i++] != '-' || (d = fixed(t, n, &i, 2)) < 0)
		return "expected a date as YYYY-MM-DD";
	if (m < 1 || m > 12)
		return "the month must be 01 to 12";
	if (d < 1 || d > mdays[m - 1] + (m == 2 && leap_year(y)))
		return m == 2 && d == 29 ? "February has 28 days that year" : "no such day in that month";
	if (i == n) {
		v->type = WM_TOML_DATE_LOCAL;
		return NULL;
	}
	if (t[i] != 'T' && t[i] != 't' && t[i] != ' ')
		return "expected 'T' or a space between the date and the time";
	i++;
	if ((why = time_part(t, n, &i)))
		return why;
	if (i == n) {
		v->type = WM_TOML_DATETIME_LOCAL;
		return NULL;
	}
	if (t[i] == 'Z' || t[i] == 'z') {
		i++;
	} else if (t[i] == '+' || t[i] == '-') {
		int oh, om;
		i++;
		if ((oh = fixed(t, n, &i, 2)) < 0 || i >= n || t[i++] != ':' || (om = fixed(t, n, &i, 2)) < 0)
			return "expected an offset as Z, +HH:MM or -HH:MM";
		if (oh > 23 || om > 59)
			return "the offset must be within -23:59 and +23:59";
	} else {
		return "expected an offset as Z, +HH:MM or -HH:MM";
	}
	if (i != n)
		return "unexpected character after the offset";
	v->type = WM_TOML_DATETIME;
	return NULL;
}

static bool token_char(char c)
{
	return bare_char(c) || c == '+' || c == '.' || c == ':';
}

/* A token that can only be a date or time: a ':', or a '-' right after a digit. */
static bool datetime_like(const char *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (t[i] == ':' || (i > 0 && t[i] == '-' && t[i - 1] >= '0' && t[i - 1] <= '9'))
			return true;
	return false;
}

static bool is_date(const char *t)
{
	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? t[i] != '-' : (t[i] < '0' || t[i] > '9'))
			return false;
	return true;
}

/* A boolean, number or date-time: the run of characters that can make one up. */
static int scalar(struct parser *p, struct wm_toml_value *v)
{
	size_t start = p->pos, end = start, n;
	const char *t = p->s + start, *why, *unsigned_text;
	char buf[16];

	while (end < p->len && token_char(p->s[end]))
		end++;
	/* a space can separate a date from its time */
	if (end - start == 10 && is_date(t) && end + 3 < p->len && p->s[end] == ' ' &&
			p->s[end + 1] >= '0' && p->s[end + 1] <= '9' && p->s[end + 2] >= '0' && p->s[end + 2] <= '9' &&
			p->s[end + 3] == ':')
		for (end++; end < p->len && token_char(p->s[end]); end++)
			;
	n = end - start;
	if (n == 0)
		return fail_at(p, start, start + 1, "expected a value, found %s", describe(p, start, buf));
	if (!(v->raw = copy_text(p, t, n)))
		return oom(p);
	p->pos = end;
	v->span.end = (uint32_t)end;
	if ((n == 4 && !memcmp(t, "true", 4)) || (n == 5 && !memcmp(t, "false", 5))) {
		v->type = WM_TOML_BOOL;
		v->boolean = n == 4;
		return 0;
	}
	unsigned_text = v->raw + (*t == '+' || *t == '-');
	if (!strcmp(unsigned_text, "inf") || !strcmp(unsigned_text, "nan")) {
		v->type = WM_TOML_FLOAT;
		v->number = *unsigned_text == 'i' ? INFINITY : NAN;
		if (*t == '-')
			v->number = -v->number;
		return 0;
	}
	if (t[0] >= '0' && t[0] <= '9' && datetime_like(t, n)) {
		if ((why = datetime(t, n, v)))
			return fail_at(p, start, end, "invalid date-time '%.*s': %s", (int)n, t, why);
		return 0;
	}
	if (!(t[0] >= '0' && t[0] <= '9') && !((t[0] == '+' || t[0] == '-') && n > 1))
		return fail_at(p, start, end, "invalid value '%.*s' (strings are written in quotes)", (int)n, t);
	if ((why = number(t, n, v)))
		return fail_at(p, start, end, "invalid number '%.*s': %s", (int)n, t, why);
	return 0;
}

/* ---- arrays, inline tables, values --------------------------------------- */

static int parse_value(struct parser *p, unsigned depth, struct wm_toml_value **out);
static int parse_keyval(struct parser *p, struct wm_toml_table *t, struct wm_toml_kv *kv);

static int unterminated_array(struct parser *p, const struct wm_toml_array *a)
{
	return fail_at(p, a->open.start, a->open.end,
		"unterminated array: expected ']' before the end of the file");
}

static int parse_array(struct parser *p, unsigned depth, struct wm_toml_value *v)
{
	struct wm_toml_array *a = &v->array;
	size_t base = p->nitems;
	char buf[16];
	int ret = 0;

	a->open = v->span;
	a->open.end = (uint32_t)++p->pos;
	for (;;) {
		struct wm_toml_value *item, **items;
		if ((ret = skip_blank(p)) < 0)
			return ret;
		if (p->pos >= p->len)
			return unterminated_array(p, a);
		if (p->s[p->pos] == ']')
			break;
		if (p->s[p->pos] == ',')
			return fail_at(p, p->pos, p->pos + 1, "expected a value before ',' in the array");
		if ((ret = parse_value(p, depth + 1, &item)) < 0)
			return ret;
		if (!(items = reserve(p->items, p->nitems, &p->capitems, sizeof(*items))))
			return oom(p);
		p->items = items;
		items[p->nitems++] = item;
		if ((ret = skip_blank(p)) < 0)
			return ret;
		if (p->pos >= p->len)
			return unterminated_array(p, a);
		if (p->s[p->pos] == ']')
			break;
		if (p->s[p->pos] != ',')
			return fail_at(p, p->pos, p->pos + 1, "expected ',' or ']' after an item of the array, found %s",
				describe(p, p->pos, buf));
		a->comma = span_at(p, p->pos);
		a->comma.end = (uint32_t)++p->pos;
		if ((ret = skip_blank(p)) < 0)
			return ret;
		if (p->pos < p->len && p->s[p->pos] == ']') {
			a->trailing_comma = true;
			break;
		}
	}
	if (!a->trailing_comma)
		memset(&a->comma, 0, sizeof(a->comma));
	a->close = span_at(p, p->pos);
	a->close.end = (uint32_t)++p->pos;
	a->multiline = a->open.line != a->close.line;
	v->span.end = (uint32_t)p->pos;
	a->items = settle(p, p->items, base, p->nitems, sizeof(*a->items), &ret);
	a->n = p->nitems - base;
	p->nitems = base;
	return ret;
}

/* Adds a key/value pair to the parser's list, for the section or inline table being read. */
static int push_kv(struct parser *p, const struct wm_toml_kv *kv)
{
	struct wm_toml_kv *kvs = reserve(p->kvs, p->nkvs, &p->capkvs, sizeof(*kvs));
	if (!kvs)
		return oom(p);
	p->kvs = kvs;
	kvs[p->nkvs++] = *kv;
	return 0;
}

/* Gives table t the pairs of its section (or braces): those pushed since `base`. */
static int settle_kvs(struct parser *p, struct wm_toml_table *t, size_t base)
{
	int ret = 0;
	t->kvs = settle(p, p->kvs, base, p->nkvs, sizeof(*t->kvs), &ret);
	t->nkvs = p->nkvs - base;
	p->nkvs = base;
	return ret;
}

static int inline_one_line(struct parser *p)
{
	return fail_at(p, p->pos, p->pos + 1, "unterminated inline table: expected '}' before the end of the "
		"line (an inline table is written on one line)");
}

static int parse_inline(struct parser *p, unsigned depth, struct wm_toml_value **out)
{
	size_t start = p->pos;
	struct wm_toml_value *v;
	struct wm_toml_table *t = NULL;
	size_t base = p->nkvs;
	char buf[16];
	int ret = 0;

	/* its parent and key are set when the key/value pair holding it is inserted */
	if (!(v = new_table(p, NULL, "", 0, WM_TOML_INLINE, span_at(p, start), &ret)))
		return ret;
	t = v->table;
	t->depth = depth;
	t->header = v->span;
	p->pos++;
	skip_ws(p);
	while (!(p->nkvs == base && p->pos < p->len && p->s[p->pos] == '}')) {
		struct wm_toml_kv kv;
		size_t comma;
		if (p->pos >= p->len || at_newline(p) || p->s[p->pos] == '\r' || p->s[p->pos] == '#')
			return inline_one_line(p);
		if ((ret = parse_keyval(p, t, &kv)) < 0)
			return ret;
		kv.line.end = (uint32_t)p->pos;
		if ((ret = push_kv(p, &kv)) < 0)
			return ret;
		skip_ws(p);
		if (p->pos >= p->len || at_newline(p) || p->s[p->pos] == '\r' || p->s[p->pos] == '#')
			return inline_one_line(p);
		if (p->s[p->pos] == '}')
			break;
		if (p->s[p->pos] != ',')
			return fail_at(p, p->pos, p->pos + 1, "expected ',' or '}' after a key/value pair of the inline "
				"table, found %s", describe(p, p->pos, buf));
		comma = p->pos++;
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == '}')
			return fail_at(p, comma, comma + 1, "a trailing comma is not allowed in an inline table");
	}
	if ((ret = settle_kvs(p, t, base)) < 0)
		return ret;
	t->append = p->pos;
	for (size_t i = 0; i < t->nkvs; i++)
		for (struct wm_toml_table *x = t->kvs[i].table; x != t; x = x->parent)
			x->append = t->append;
	p->pos++;
	v->span.end = t->header.end = (uint32_t)p->pos;
	*out = v;
	return 0;
}

/* A value at pos; `depth` is its nesting (the table holding it has depth - 1). */
static int parse_value(struct parser *p, unsigned depth, struct wm_toml_value **out)
{
	struct wm_toml_value *v;
	char c = p->pos < p->len ? p->s[p->pos] : '\0';
	int ret;

	if ((c == '[' || c == '{') && depth > WM_TOML_MAX_DEPTH)
		return fail_at(p, p->pos, p->pos + 1, "nesting deeper than %u levels", WM_TOML_MAX_DEPTH);
	if (c == '{')
		return parse_inline(p, depth, out);
	if (!(v = new_value(p, c == '[' ? WM_TOML_ARRAY : WM_TOML_STRING, p->pos, &ret)))
		return ret;
	if (c == '"' || c == '\'') {
		ret = parse_string(p, true, &v->str, &v->len, &v->style);
		v->span.end = (uint32_t)p->pos;
	} else if (c == '[') {
		ret = parse_array(p, depth, v);
	} else {
		ret = scalar(p, v);
	}
	*out = v;
	return ret;
}

/* ---- placing keys -------------------------------------------------------- */

/*
 * The table a dotted key's value goes into, below `t` (the section's table,
 * or the inline table being parsed): the tables before the last part are
 * created, or extended when dotted keys made them; the last part must be
 * new.
 */
static int resolve_dotted(struct parser *p, struct wm_toml_table *t, const struct keypath *key,
	struct wm_toml_table **out)
{
	const char *text = p->s + key->span.start;
	const struct wm_toml_key *last = &key->parts[key->n - 1];
	struct wm_toml_value *v;
	int ret = 0;

	for (size_t i = 0; i + 1 < key->n; i++) {
		const struct wm_toml_key *part = &key->parts[i];
		v = lookup(p, t, part->name, part->len);
		if (!v) {
			if (!(v = new_table(p, t, part->name, part->len, WM_TOML_DOTTED, part->span, &ret)))
				return ret;
			if ((ret = insert(p, t, part->name, part->len, v)) < 0)
				return ret;
		} else if (v->type == WM_TOML_TABLE && v->table->origin == WM_TOML_IMPLICIT) {
			v->table->origin = WM_TOML_DOTTED;
			v->span = part->span;
		} else if (v->type == WM_TOML_TABLE && v->table->origin != WM_TOML_DOTTED) {
			char *name = table_name(v->table);
			ret = v->table->origin == WM_TOML_INLINE ?
				fail_at(p, part->span.start, part->span.end, "cannot add keys to '%s': it is an inline "
					"table (defined at line %u), and inline tables cannot be extended",
					name ? name : "", v->span.line) :
				fail_at(p, part->span.start, part->span.end, "cannot add keys to table [%s] with dotted "
					"keys: it has its own header (at line %u)", name ? name : "", v->span.line);
			free(name);
			return ret;
		} else if (v->type != WM_TOML_TABLE) {
			bool aot = v->type == WM_TOML_ARRAY && v->array.aot;
			return fail_at(p, part->span.start, part->span.end, "cannot use '%.*s' as a table: it is "
				"already %s (defined at line %u)", key_text(key, i), text,
				aot ? "an array of tables" : wm_toml_type_name(v->type), v->span.line);
		}
		t = v->table;
	}
	if ((v = lookup(p, t, last->name, last->len)))
		return fail_at(p, last->span.start, last->span.end, "duplicate key '%.*s' (first defined at line %u)",
			key_text(key, key->n - 1), text, v->span.line);
	*out = t;
	return 0;
}

/* `key = value` at pos, its value placed below `t`; kv.line ends with the value. */
static int parse_keyval(struct parser *p, struct wm_toml_table *t, struct wm_toml_kv *kv)
{
	struct keypath key;
	struct wm_toml_table *target = NULL;
	const struct wm_toml_key *last;
	struct wm_toml_value *v;
	char buf[16];
	int ret;

	memset(kv, 0, sizeof(*kv));
	if ((ret = parse_key(p, &key)) < 0)
		return ret;
	skip_ws(p);
	if (p->pos >= p->len || p->s[p->pos] != '=')
		return fail_at(p, p->pos, p->pos + 1, "expected '=' after the key");
	p->pos++;
	skip_ws(p);
	if ((ret = resolve_dotted(p, t, &key, &target)) < 0)
		return ret;
	if (p->pos >= p->len || at_newline(p) || p->s[p->pos] == '\r' || p->s[p->pos] == '#')
		return fail_at(p, p->pos, p->pos + 1, "expected a value after '=', found %s", describe(p, p->pos, buf));
	if ((ret = parse_value(p, target->depth + 1, &v)) < 0)
		return ret;
	last = &key.parts[key.n - 1];
	if (v->type == WM_TOML_TABLE) {
		v->table->parent = target;
		v->table->key = last->name;
		v->table->keylen = last->len;
	}
	if ((ret = insert(p, target, last->name, last->len, v)) < 0)
		return ret;
	kv->parts = key.parts;
	kv->nparts = key.n;
	kv->key = key.span;
	kv->value = v;
	kv->table = target;
	kv->line = key.span;
	return 0;
}

/* A key/value line of the section of `section`. */
static int keyval_line(struct parser *p, struct wm_toml_table *section)
{
	struct wm_toml_kv kv;
	int ret;
	if ((ret = parse_keyval(p, section, &kv)) < 0)
		return ret;
	if ((ret = end_of_line(p, "the value")) < 0)
		return ret;
	kv.line.end = (uint32_t)p->pos;
	if ((ret = push_kv(p, &kv)) < 0)
		return ret;
	for (struct wm_toml_table *x = kv.table; x != section; x = x->parent)
		x->append = p->pos;
	section->append = p->pos;
	return 0;
}

/* The super-tables of a header: created implicitly, or walked through (the last element of an array of tables). */
static int header_parents(struct parser *p, const struct keypath *key, struct wm_toml_table **out)
{
	const char *text = p->s + key->span.start;
	struct wm_toml_table *t = p->doc->root;
	int ret = 0;

	for (size_t i = 0; i + 1 < key->n; i++) {
		const struct wm_toml_key *part = &key->parts[i];
		struct wm_toml_value *v = lookup(p, t, part->name, part->len);
		if (!v) {
			if (!(v = new_table(p, t, part->name, part->len, WM_TOML_IMPLICIT, part->span, &ret)))
				return ret;
			if ((ret = insert(p, t, part->name, part->len, v)) < 0)
				return ret;
		} else if (v->type == WM_TOML_ARRAY && v->array.aot) {
			v = v->array.items[v->array.n - 1];
		} else if (v->type == WM_TOML_TABLE && v->table->origin == WM_TOML_INLINE) {
			return fail_at(p, part->span.start, part->span.end, "cannot define table [%.*s]: '%.*s' is an "
				"inline table (defined at line %u), and inline tables cannot be extended",
				key_text(key, key->n - 1), text, key_text(key, i), text, v->span.line);
		} else if (v->type != WM_TOML_TABLE) {
			return fail_at(p, part->span.start, part->span.end, "cannot define table [%.*s]: '%.*s' is "
				"already %s (defined at line %u)", key_text(key, key->n - 1), text, key_text(key, i), text,
				wm_toml_type_name(v->type), v->span.line);
		}
		t = v->table;
	}
	*out = t;
	return 0;
}

/* [key]: the table, new or so far implicit. */
static int define_table(struct parser *p, const struct keypath *key, struct wm_toml_span hspan,
	struct wm_toml_table **out)
{
	const char *text = p->s + key->span.start;
	int n = key_text(key, key->n - 1);
	const struct wm_toml_key *last = &key->parts[key->n - 1];
	struct wm_toml_table *parent;
	struct wm_toml_value *v;
	int ret = 0;

	if ((ret = header_parents(p, key, &parent)) < 0)
		return ret;
	v = lookup(p, parent, last->name, last->len);
	if (!v) {
		if (!(v = new_table(p, parent, last->name, last->len, WM_TOML_HEADER, hspan, &ret)))
			return ret;
		if ((ret = insert(p, parent, last->name, last->len, v)) < 0)
			return ret;
	} else if (v->type == WM_TOML_TABLE && v->table->origin == WM_TOML_IMPLICIT) {
		v->table->origin = WM_TOML_HEADER;
		v->span = hspan;
	} else if (v->type == WM_TOML_TABLE) {
		switch (v->table->origin) {
		case WM_TOML_DOTTED:
			return fail_at(p, hspan.start, hspan.end, "table [%.*s] was already defined with dotted keys "
				"at line %u", n, text, v->span.line);
		case WM_TOML_INLINE:
			return fail_at(p, hspan.start, hspan.end, "table [%.*s] was already defined as an inline table "
				"at line %u", n, text, v->span.line);
		default:
			return fail_at(p, hspan.start, hspan.end, "table [%.*s] defined twice (first defined at line %u)",
				n, text, v->span.line);
		}
	} else if (v->type == WM_TOML_ARRAY && v->array.aot) {
		return fail_at(p, hspan.start, hspan.end, "[%.*s] is already an array of tables (defined at line %u): "
			"[[%.*s]] adds an element", n, text, v->span.line, n, text);
	} else {
		return fail_at(p, hspan.start, hspan.end, "cannot define table [%.*s]: the key is already %s "
			"(defined at line %u)", n, text, wm_toml_type_name(v->type), v->span.line);
	}
	v->table->header = hspan;
	*out = v->table;
	return 0;
}

/* [[key]]: a new element of the array of tables. */
static int define_element(struct parser *p, const struct keypath *key, struct wm_toml_span hspan,
	struct wm_toml_table **out)
{
	const char *text = p->s + key->span.start;
	int n = key_text(key, key->n - 1);
	const struct wm_toml_key *last = &key->parts[key->n - 1];
	struct wm_toml_table *parent;
	struct wm_toml_value *v, *elem, **items;
	int ret = 0;

	if ((ret = header_parents(p, key, &parent)) < 0)
		return ret;
	v = lookup(p, parent, last->name, last->len);
	if (!v) {
		if (!(v = new_value(p, WM_TOML_ARRAY, hspan.start, &ret)))
			return ret;
		v->span = hspan;
		v->array.aot = true;
		if ((ret = insert(p, parent, last->name, last->len, v)) < 0)
			return ret;
	} else if (v->type == WM_TOML_ARRAY && !v->array.aot) {
		return fail_at(p, hspan.start, hspan.end, "cannot add to '%.*s' with [[%.*s]]: it is a static array "
			"(defined at line %u), not an array of tables", n, text, n, text, v->span.line);
	} else if (v->type != WM_TOML_ARRAY) {
		return fail_at(p, hspan.start, hspan.end, "cannot define [[%.*s]]: '%.*s' is already %s (defined at "
			"line %u)", n, text, n, text, wm_toml_type_name(v->type), v->span.line);
	}
	if (!(elem = new_table(p, parent, last->name, last->len, WM_TOML_AOT, hspan, &ret)))
		return ret;
	elem->table->header = hspan;
	if (!(items = grow(p, v->array.items, v->array.n, sizeof(*items))))
		return oom(p);
	v->array.items = items;
	items[v->array.n++] = elem;
	*out = elem->table;
	return 0;
}

/* A [table] or [[array of tables]] header line; `section` becomes its table. */
static int header_line(struct parser *p, struct wm_toml_table **section)
{
	size_t start = p->pos;
	bool aot = start + 1 < p->len && p->s[start + 1] == '[';
	struct wm_toml_span hspan = span_at(p, start);
	struct keypath key;
	struct wm_toml_table *t = NULL;
	int ret;

	p->pos += aot ? 2 : 1;
	skip_ws(p);
	if ((ret = parse_key(p, &key)) < 0)
		return ret;
	skip_ws(p);
	if (aot && !(p->pos + 1 < p->len && p->s[p->pos] == ']' && p->s[p->pos + 1] == ']'))
		return fail_at(p, p->pos, p->pos + 1, "expected ']]' at the end of the array-of-tables header");
	if (!aot && !(p->pos < p->len && p->s[p->pos] == ']'))
		return fail_at(p, p->pos, p->pos + 1, "expected ']' at the end of the table header");
	p->pos += aot ? 2 : 1;
	hspan.end = (uint32_t)p->pos;
	if ((ret = aot ? define_element(p, &key, hspan, &t) : define_table(p, &key, hspan, &t)) < 0)
		return ret;
	if ((ret = end_of_line(p, "the table header")) < 0)
		return ret;
	t->append = p->pos;
	*section = t;
	return 0;
}

static int parse_document(struct parser *p)
{
	struct wm_toml_table *section = p->doc->root;
	int ret;

	if (p->len >= 3 && !memcmp(p->s, "\xef\xbb\xbf", 3)) {
		p->doc->bom = true;
		p->pos = 3;
	}
	section->append = p->pos;
	for (;;) {
		char c;
		skip_ws(p);
		if (p->pos >= p->len)
			return settle_kvs(p, section, 0);
		c = p->s[p->pos];
		if (c == '#' || c == '\n' || c == '\r') {
			ret = end_of_line(p, "a comment");
		} else if (c == '[') {
			/* the section before ends: its pairs get their array */
			if ((ret = settle_kvs(p, section, 0)) == 0)
				ret = header_line(p, &section);
		} else {
			ret = keyval_line(p, section);
		}
		if (ret < 0)
			return ret;
	}
}

int wm_toml_parse(struct wm_toml_doc *doc, const char *file, const char *text, size_t len,
	struct wm_error *err)
{
	struct parser p;
	struct wm_toml_value *root;
	const char *nl;
	unsigned line, column;
	unsigned char byte;
	uint32_t cp;
	char *copy;
	int ret = 0;

	memset(doc, 0, sizeof(*doc));
	wm_arena_init(&doc->arena);
	memset(&p, 0, sizeof(p));
	p.doc = doc;
	p.err = err;
	p.loc_line = p.loc_col = 1;
	if (file && !(doc->file = wm_arena_strdup(&doc->arena, file)))
		return oom(&p);
	if (len > WM_TOML_MAX_BYTES) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, doc->file,
			"the file is larger than the limit of %u MiB", WM_TOML_MAX_BYTES >> 20);
		return WM_EINVALID;
	}
	if (!(copy = wm_arena_strndup(&doc->arena, text, len)))
		return oom(&p);
	doc->text = p.s = copy;
	doc->len = p.len = len;
	if (len >= 2 && (((unsigned char)text[0] == 0xff && (unsigned char)text[1] == 0xfe) ||
			((unsigned char)text[0] == 0xfe && (unsigned char)text[1] == 0xff))) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, doc->file,
			"the file is UTF-16: save it as UTF-8");
		return WM_EINVALID;
	}
	if (!wm_utf8_valid(text, len, &line, &column, &byte)) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, doc->file, copy, len, line, column, 1,
			"invalid UTF-8 (byte 0x%02x): the file must be UTF-8", byte);
		return WM_EINVALID;
	}
	/* TOML reads them as text; some editors and review tools break the line there, which would hide what follows */
	if ((cp = wm_utf8_find_break(copy, len, &line, &column)) != 0) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, doc->file, copy, len, line, column, 1,
			"a raw %s: some editors and review tools break the line here, others show one line, so a "
			"reader may not see what follows; remove it (in a string, write it escaped: \\u%04X)",
			wm_utf8_break_name(cp), (unsigned)cp);
		return WM_EINVALID;
	}
	nl = memchr(copy, '\n', len);
	doc->crlf = nl && nl > copy && nl[-1] == '\r';
	doc->final_newline = len > 0 && copy[len - 1] == '\n';

	if (!(root = new_table(&p, NULL, "", 0, WM_TOML_ROOT, span_at(&p, 0), &ret)))
		goto out;
	doc->root = root->table;
	ret = parse_document(&p);
out:
	free(p.slots);
	wm_buf_release(&p.str);
	free(p.parts);
	free(p.items);
	free(p.kvs);
	return ret;
}

void wm_toml_release(struct wm_toml_doc *doc)
{
	wm_arena_release(&doc->arena);
	memset(doc, 0, sizeof(*doc));
}

/* ---- lookups ------------------------------------------------------------- */

static const struct wm_toml_value *table_getn(const struct wm_toml_table *t, const char *key, size_t len)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (t->entries[i].len == len && !memcmp(t->entries[i].key, key, len))
			return t->entries[i].value;
	return NULL;
}

const struct wm_toml_value *wm_toml_table_get(const struct wm_toml_table *t, const char *key)
{
	return table_getn(t, key, strlen(key));
}

const struct wm_toml_value *wm_toml_get_path(const struct wm_toml_table *t, const char *path)
{
	const struct wm_toml_value *v = NULL;
	for (;;) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (!(v = table_getn(t, path, n)) || !dot)
			return v;
		if (v->type != WM_TOML_TABLE)
			return NULL;
		t = v->table;
		path = dot + 1;
	}
}

static bool is_type(const struct wm_toml_value *v, enum wm_toml_type type)
{
	return v && v->type == type;
}

bool wm_toml_is_string(const struct wm_toml_value *v) { return is_type(v, WM_TOML_STRING); }
bool wm_toml_is_integer(const struct wm_toml_value *v) { return is_type(v, WM_TOML_INTEGER); }
bool wm_toml_is_float(const struct wm_toml_value *v) { return is_type(v, WM_TOML_FLOAT); }
bool wm_toml_is_bool(const struct wm_toml_value *v) { return is_type(v, WM_TOML_BOOL); }
bool wm_toml_is_array(const struct wm_toml_value *v) { return is_type(v, WM_TOML_ARRAY); }
bool wm_toml_is_table(const struct wm_toml_value *v) { return is_type(v, WM_TOML_TABLE); }

bool wm_toml_is_datetime(const struct wm_toml_value *v)
{
	return v && (v->type == WM_TOML_DATETIME || v->type == WM_TOML_DATETIME_LOCAL ||
		v->type == WM_TOML_DATE_LOCAL || v->type == WM_TOML_TIME_LOCAL);
}

int wm_toml_vfail(const struct wm_toml_doc *doc, struct wm_error *err, enum wm_err code,
	const struct wm_toml_span *sp, const char *fmt, va_list ap)
{
	unsigned line = 0, column = 0, span = 0;
	if (sp && sp->line) {
		const char *s = doc->text + sp->start;
		size_t n = sp->end > sp->start ? sp->end - sp->start : 0;
		const char *eol = memchr(s, '\n', n);
		line = sp->line;
		column = sp->column;
		span = (unsigned)wm_utf8_len(s, eol ? (size_t)(eol - s) : n);
	}
	wm_error_vadd(err, code, WM_SEV_ERROR, doc->file, doc->text, doc->len, line, column, span, fmt, ap);
	return code;
}

int wm_toml_fail(const struct wm_toml_doc *doc, struct wm_error *err, enum wm_err code,
	const struct wm_toml_span *sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_toml_vfail(doc, err, code, sp, fmt, ap);
	va_end(ap);
	return code;
}
