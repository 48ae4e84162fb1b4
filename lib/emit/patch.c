/*
 * patch.c — the surgical edit of a pyproject.toml for one build variant: rename, merge features, pin maturin
 * settings, set the version, add the [variant] table of wheel variants.
 */
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "formats/toml.h"
#include "emit/patch.h"

/*
 * Every change is a splice of the original text: bytes [start, end) are
 * replaced by `text` (an insertion when start == end).  Splices are
 * collected, sorted, checked not to overlap, then applied in one pass, so
 * that every byte outside them is kept as it was.
 */
struct splice {
	size_t start, end;
	const char *text;  /* in the patcher's arena */
	size_t len;
	size_t seq;        /* creation order: insertions at one offset keep it */
};

/* A `key = value` to add to a table, the value already written as TOML. */
struct newkey {
	const char *key;
	const char *value;
};

#define MAX_NEWKEYS 4  /* features, module-name, python-source, manifest-path */

struct patcher {
	const struct wm_toml_doc *doc;
	const struct wm_patch_spec *spec;
	struct wm_error *err;
	struct wm_arena arena;
	struct splice *splices;
	size_t n, cap;
	const char *nl;    /* the document's line ending, for inserted lines */
};

/* ---- diagnostics --------------------------------------------------------- */

/* Reports an error at `sp` (NULL: no position) and returns `code`. */
static int fail(struct patcher *p, enum wm_err code, const struct wm_toml_span *sp, const char *fmt, ...)
	WM_PRINTF(4, 5);
static int fail(struct patcher *p, enum wm_err code, const struct wm_toml_span *sp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_toml_vfail(p->doc, p->err, code, sp, fmt, ap);
	va_end(ap);
	return code;
}

static int oom(struct patcher *p)
{
	return fail(p, WM_ENOMEM, NULL, "out of memory");
}

/* "a string", "an array", ..., "an array of tables", for messages. */
static const char *kind(const struct wm_toml_value *v)
{
	return v->type == WM_TOML_ARRAY && v->array.aot ? "an array of tables" : wm_toml_type_name(v->type);
}

/* ---- splices ------------------------------------------------------------- */

/* Records that bytes [start, end) become the content of `text` (which is cleared). */
static int splice(struct patcher *p, size_t start, size_t end, struct wm_buf *text)
{
	struct splice *s;
	char *copy;
	if (text->oom || !(copy = wm_arena_strndup(&p->arena, text->ptr ? text->ptr : "", text->len)))
		return oom(p);
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		if (!(s = realloc(p->splices, cap * sizeof(*s))))
			return oom(p);
		p->splices = s;
		p->cap = cap;
	}
	s = &p->splices[p->n];
	s->start = start;
	s->end = end;
	s->text = copy;
	s->len = text->len;
	s->seq = p->n++;
	wm_buf_clear(text);
	return 0;
}

static int cmp_splice(const void *pa, const void *pb)
{
	const struct splice *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sorts the splices, checks that none overlaps the next, and appends the edited text to `out`. */
static int apply(struct patcher *p, struct wm_buf *out)
{
	const char *text = p->doc->text;
	size_t pos = 0;
	if (p->n > 1)
		qsort(p->splices, p->n, sizeof(*p->splices), cmp_splice);
	for (size_t i = 0; i < p->n; i++) {
		const struct splice *s = &p->splices[i];
		if (s->end < s->start || s->end > p->doc->len || (i > 0 && s->start < p->splices[i - 1].end))
			return fail(p, WM_EINTERNAL, NULL, "internal error: overlapping edits of the pyproject.toml "
				"(bytes %zu-%zu)", s->start, s->end);
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct splice *s = &p->splices[i];
		wm_buf_add(out, text + pos, s->start - pos);
		wm_buf_add(out, s->text, s->len);
		pos = s->end;
	}
	wm_buf_add(out, text + pos, p->doc->len - pos);
	return out->oom ? oom(p) : 0;
}

/* ---- writing TOML -------------------------------------------------------- */

/* An array of strings on one line: ["a", "b"]. */
static void put_array(struct wm_buf *b, const char *const *items, size_t n)
{
	wm_buf_putc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			wm_buf_puts(b, ", ");
		wm_toml_put_string(b, items[i], strlen(items[i]), WM_TOML_BASIC);
	}
	wm_buf_putc(b, ']');
}

/* Appends a `key = value` for each of `keys`, separated by `sep`. */
static void put_keys(struct wm_buf *b, const char *prefix, const struct newkey *keys, size_t n, const char *sep)
{
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			wm_buf_puts(b, sep);
		if (prefix && *prefix)
			wm_buf_printf(b, "%s.", prefix);
		wm_buf_printf(b, "%s = %s", keys[i].key, keys[i].value);
	}
}

/* ---- positions in the text ----------------------------------------------- */

/* The offset where the line holding `off` starts. */
static size_t line_start(const struct wm_toml_doc *doc, size_t off)
{
	size_t start = doc->bom ? 3 : 0;
	while (off > start && doc->text[off - 1] != '\n')
		off--;
	return off;
}

/* Whether the text before `off` ends with a line that holds nothing but whitespace (or nothing). */
static bool after_blank_line(const struct wm_toml_doc *doc, size_t off)
{
	size_t i = off;
	if (i > 0 && doc->text[i - 1] == '\n')
		i--;
	if (i > 0 && doc->text[i - 1] == '\r')
		i--;
	for (size_t j = line_start(doc, i); j < i; j++)
		if (doc->text[j] != ' ' && doc->text[j] != '\t')
			return false;
	return true;
}

/* Inserting at `off` needs a line ending first: the end of a document without a final newline. */
static bool needs_newline(const struct wm_toml_doc *doc, size_t off)
{
	return off == doc->len && !doc->final_newline;
}

/* ---- tables -------------------------------------------------------------- */

/* The table whose section holds `t`'s key/value pairs: `t` itself unless dotted keys made it. */
static const struct wm_toml_table *section_of(const struct wm_toml_table *t)
{
	while (t->origin == WM_TOML_DOTTED && t->parent)
		t = t->parent;
	return t;
}

static bool below(const struct wm_toml_table *t, const struct wm_toml_table *ancestor)
{
	for (; t; t = t->parent)
		if (t == ancestor)
			return true;
	return false;
}

/*
 * The dotted prefix that leads from `t`'s section to `t`, as a key/value
 * pair of the section that goes through `t` writes it ("tool.maturin"); ""
 * when `t` has its own section.
 */
static int dotted_prefix(struct patcher *p, const struct wm_toml_table *t, const char **out)
{
	const struct wm_toml_table *section = section_of(t);
	size_t k = t->depth - section->depth;
	struct wm_buf b = WM_BUF_INIT;
	int ret = 0;

	*out = "";
	if (k == 0)
		return 0;
	for (size_t i = 0; i < section->nkvs; i++) {
		const struct wm_toml_kv *kv = &section->kvs[i];
		if (!below(kv->table, t) || kv->nparts <= k)
			continue;
		for (size_t j = 0; j < k; j++) {
			if (j > 0)
				wm_buf_putc(&b, '.');
			wm_buf_add(&b, p->doc->text + kv->parts[j].span.start,
				kv->parts[j].span.end - kv->parts[j].span.start);
		}
		break;
	}
	if (b.len == 0)
		ret = fail(p, WM_EINTERNAL, NULL, "internal error: no key of its section leads to table '%s'", t->key);
	else if (b.oom || !(*out = wm_arena_strndup(&p->arena, b.ptr, b.len)))
		ret = oom(p);
	wm_buf_release(&b);
	return ret;
}

/*
 * Adds `keys` to table `t`, which has a section or is inline: lines at its
 * append offset (with the dotted prefix of its siblings when dotted keys made
 * it), or `, key = value` after the last pair of an inline table.
 */
static int insert_keys(struct patcher *p, const struct wm_toml_table *t, const struct newkey *keys, size_t n)
{
	const struct wm_toml_table *section = section_of(t);
	struct wm_buf b = WM_BUF_INIT;
	const char *prefix;
	size_t at;
	int ret;

	if (n == 0)
		return 0;
	if ((ret = dotted_prefix(p, t, &prefix)) < 0)
		return ret;
	if (section->origin == WM_TOML_INLINE) {
		/* after the last value, so that `{ a = 1 }` becomes `{ a = 1, b = 2 }` */
		if (section->nkvs > 0) {
			at = section->kvs[section->nkvs - 1].line.end;
			wm_buf_puts(&b, ", ");
		} else {
			at = section->append;
		}
		put_keys(&b, prefix, keys, n, ", ");
	} else {
		at = t->append;
		if (at > p->doc->len)
			return fail(p, WM_EINTERNAL, NULL, "internal error: no place to add keys to table '%s'", t->key);
		if (needs_newline(p->doc, at))
			wm_buf_puts(&b, p->nl);
		put_keys(&b, prefix, keys, n, p->nl);
		if (!needs_newline(p->doc, at))
			wm_buf_puts(&b, p->nl);
	}
	ret = splice(p, at, at, &b);
	wm_buf_release(&b);
	return ret;
}

/*
 * `body` (lines separated by the document's line ending, without a final one) at the end of the
 * document, after a blank line; it ends with a line ending when the document did.  Releases body.
 */
static int append_block(struct patcher *p, struct wm_buf *body)
{
	const struct wm_toml_doc *doc = p->doc;
	size_t start = doc->bom ? 3 : 0;
	struct wm_buf b = WM_BUF_INIT;
	int ret;

	if (needs_newline(doc, doc->len) && doc->len > start)
		wm_buf_puts(&b, p->nl);
	if (doc->len > start && !after_blank_line(doc, doc->len))
		wm_buf_puts(&b, p->nl);
	wm_buf_add(&b, body->ptr ? body->ptr : "", body->len);
	if (body->oom)
		b.oom = true;
	if (doc->final_newline || doc->len == start)
		wm_buf_puts(&b, p->nl);
	ret = splice(p, doc->len, doc->len, &b);
	wm_buf_release(&b);
	wm_buf_release(body);
	return ret;
}

/* A new `[name]` section with `keys` at the end of the document, after a blank line. */
static int append_section(struct patcher *p, const char *name, const struct newkey *keys, size_t n)
{
	struct wm_buf b = WM_BUF_INIT;
	wm_buf_printf(&b, "[%s]%s", name, p->nl);
	put_keys(&b, NULL, keys, n, p->nl);
	return append_block(p, &b);
}

/* ---- arrays -------------------------------------------------------------- */

static bool array_has(const struct wm_toml_array *a, const char *s)
{
	size_t len = strlen(s);
	for (size_t i = 0; i < a->n; i++)
		if (a->items[i]->type == WM_TOML_STRING && a->items[i]->len == len && !memcmp(a->items[i]->str, s, len))
			return true;
	return false;
}

/* The quotes for new items: '...' when the array's last string is a '...' string, else "...". */
static enum wm_toml_style array_style(const struct wm_toml_array *a)
{
	for (size_t i = a->n; i-- > 0;)
		if (a->items[i]->type == WM_TOML_STRING)
			return a->items[i]->style == WM_TOML_LITERAL ? WM_TOML_LITERAL : WM_TOML_BASIC;
	return WM_TOML_BASIC;
}

/*
 * The indentation for a new line of items after item `v`: that of its line,
 * or, when the array opens on that line, blanks up to the item (so that new
 * items line up under it).
 */
static void put_indent(struct wm_buf *b, const struct wm_toml_doc *doc, const struct wm_toml_array *a,
	const struct wm_toml_value *v)
{
	size_t ls = line_start(doc, v->span.start);
	if (a->open.start >= ls) {
		for (size_t i = ls; i < v->span.start; i++) {
			unsigned char c = (unsigned char)doc->text[i];
			if (c == '\t')
				wm_buf_putc(b, '\t');
			else if ((c & 0xc0) != 0x80)
				wm_buf_putc(b, ' ');
		}
		return;
	}
	for (size_t i = ls; i < v->span.start && (doc->text[i] == ' ' || doc->text[i] == '\t'); i++)
		wm_buf_putc(b, doc->text[i]);
}

/* The indentation of the first comment inside an empty multi-line array that starts its line, or 4 spaces. */
static void put_empty_indent(struct wm_buf *b, const struct wm_toml_doc *doc, const struct wm_toml_array *a)
{
	for (size_t i = 0; i < doc->ncomments; i++) {
		const struct wm_toml_span *c = &doc->comments[i];
		size_t ls;
		bool first = true;
		if (c->start < a->open.end || c->start >= a->close.start)
			continue;
		ls = line_start(doc, c->start);
		for (size_t j = ls; j < c->start; j++)
			first = first && (doc->text[j] == ' ' || doc->text[j] == '\t');
		if (first && ls > a->open.start) {
			wm_buf_add(b, doc->text + ls, c->start - ls);
			return;
		}
	}
	wm_buf_puts(b, "    ");
}

/*
 * Appends the strings of `items` that `arr` does not hold yet, in the
 * array's layout: `, "b"` on the line of the last item when the array
 * closes there, else one line per item indented like the last one, with
 * commas as the array uses them.
 */
static int append_items(struct patcher *p, const struct wm_toml_value *arr, const char *const *items, size_t n)
{
	const struct wm_toml_doc *doc = p->doc;
	const struct wm_toml_array *a = &arr->array;
	const char **add = NULL;
	struct wm_buf b = WM_BUF_INIT;
	enum wm_toml_style style = array_style(a);
	size_t nadd = 0;
	int ret = 0;

	if (n == 0)
		return 0;
	if (!(add = wm_arena_array(&p->arena, n, sizeof(*add))))
		return oom(p);
	for (size_t i = 0; i < n; i++) {
		bool dup = array_has(a, items[i]);
		for (size_t j = 0; j < nadd && !dup; j++)
			dup = strcmp(add[j], items[i]) == 0;
		if (!dup)
			add[nadd++] = items[i];
	}
	if (nadd == 0)
		return 0;

	if (a->n == 0 && !a->multiline) {
		/* [] or [ ]: the blanks between the brackets make way for the items */
		for (size_t i = 0; i < nadd; i++) {
			if (i > 0)
				wm_buf_puts(&b, ", ");
			wm_toml_put_string(&b, add[i], strlen(add[i]), style);
		}
		ret = splice(p, a->open.end, a->close.start, &b);
	} else if (a->n == 0) {
		/* only blanks and comments inside: new lines just before the line of the `]` */
		size_t at = line_start(doc, a->close.start);
		for (size_t i = 0; i < nadd; i++) {
			put_empty_indent(&b, doc, a);
			wm_toml_put_string(&b, add[i], strlen(add[i]), style);
			wm_buf_printf(&b, ",%s", p->nl);
		}
		ret = splice(p, at, at, &b);
	} else {
		const struct wm_toml_value *last = a->items[a->n - 1];
		size_t anchor = a->trailing_comma ? a->comma.end : last->span.end;
		const char *eol = memchr(doc->text + anchor, '\n', a->close.start - anchor);
		if (!eol) {
			/* the array closes on the line of its last item (or trailing comma) */
			for (size_t i = 0; i < nadd; i++) {
				wm_buf_puts(&b, ", ");
				wm_toml_put_string(&b, add[i], strlen(add[i]), style);
			}
			ret = splice(p, last->span.end, last->span.end, &b);
		} else {
			size_t at = (size_t)(eol - doc->text) + 1;
			if (!a->trailing_comma) {
				wm_buf_putc(&b, ',');
				if ((ret = splice(p, last->span.end, last->span.end, &b)) < 0)
					goto out;
			}
			for (size_t i = 0; i < nadd; i++) {
				put_indent(&b, doc, a, last);
				wm_toml_put_string(&b, add[i], strlen(add[i]), style);
				if (a->trailing_comma || i + 1 < nadd)
					wm_buf_putc(&b, ',');
				wm_buf_puts(&b, p->nl);
			}
			ret = splice(p, at, at, &b);
		}
	}
out:
	wm_buf_release(&b);
	return ret;
}

/* ---- [project] ----------------------------------------------------------- */

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '-' || c == '_' || c == '.';
}

/* The PEP 508 name at the start of requirement `s` (after blanks): its offset and length; false when none. */
static bool requirement_name(const char *s, size_t len, size_t *off, size_t *n)
{
	size_t i = 0, end;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	end = i;
	while (end < len && is_name_char(s[end]))
		end++;
	while (end > i && (s[end - 1] == '-' || s[end - 1] == '_' || s[end - 1] == '.'))
		end--;
	if (end == i || s[i] == '-' || s[i] == '_' || s[i] == '.')
		return false;
	*off = i;
	*n = end - i;
	return true;
}

/* The next character of a name under PEP 503 normalisation (runs of -_. are one '-'), or 0 at the end. */
static char next_normal(const char *s, size_t len, size_t *i)
{
	char c;
	if (*i >= len)
		return 0;
	c = s[(*i)++];
	if (c == '-' || c == '_' || c == '.') {
		while (*i < len && (s[*i] == '-' || s[*i] == '_' || s[*i] == '.'))
			(*i)++;
		return '-';
	}
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Whether two names are the same project under PEP 503. */
static bool same_name(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, j = 0;
	for (;;) {
		char ca = next_normal(a, alen, &i), cb = next_normal(b, blen, &j);
		if (ca != cb)
			return false;
		if (!ca)
			return true;
	}
}

/*
 * Renames the requirements of `arr` that name the project itself
 * (`old[extra]>=1` becomes `new[extra]>=1`): just the name's bytes when the
 * string is a one-line string without escapes before the name's end, else
 * the whole string, rewritten.
 */
static int rename_requirements(struct patcher *p, const struct wm_toml_value *arr, const char *old)
{
	const char *name = p->spec->name;
	struct wm_buf b = WM_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < arr->array.n && ret == 0; i++) {
		const struct wm_toml_value *v = arr->array.items[i];
		size_t off, n, raw;
		if (v->type != WM_TOML_STRING || !requirement_name(v->str, v->len, &off, &n) ||
				!same_name(v->str + off, n, old, strlen(old)))
			continue;
		raw = v->span.start + 1;
		/* a literal string is its content; a basic one is as long as no escape comes before the name's end */
		if (wm_toml_string_fits(name, v->style) &&
				(v->style == WM_TOML_LITERAL || !memchr(p->doc->text + raw, '\\', off + n))) {
			wm_buf_puts(&b, name);
			ret = splice(p, raw + off, raw + off + n, &b);
		} else {
			struct wm_buf s = WM_BUF_INIT;
			wm_buf_add(&s, v->str, off);
			wm_buf_puts(&s, name);
			wm_buf_add(&s, v->str + off + n, v->len - off - n);
			if (s.oom) {
				ret = oom(p);
			} else {
				wm_toml_put_string(&b, s.ptr, s.len, v->style);
				ret = splice(p, v->span.start, v->span.end, &b);
			}
			wm_buf_release(&s);
		}
	}
	wm_buf_release(&b);
	return ret;
}

/* Sets string `v` to `s`: the same quotes when it is a one-line string and `s` fits them, else "...". */
static int replace_string(struct patcher *p, const struct wm_toml_value *v, const char *s)
{
	struct wm_buf b = WM_BUF_INIT;
	int ret;
	if (v->len == strlen(s) && !memcmp(v->str, s, v->len))
		return 0;
	wm_toml_put_string(&b, s, strlen(s), v->style == WM_TOML_LITERAL ? WM_TOML_LITERAL : WM_TOML_BASIC);
	ret = splice(p, v->span.start, v->span.end, &b);
	wm_buf_release(&b);
	return ret;
}

static bool dynamic_has(const struct wm_toml_table *project, const char *key)
{
	const struct wm_toml_value *d = wm_toml_table_get(project, "dynamic");
	return wm_toml_is_array(d) && array_has(&d->array, key);
}

/* Removes item k of array `a`, with the separator that goes with it. */
static int remove_item(struct patcher *p, const struct wm_toml_array *a, size_t k)
{
	struct wm_buf none = WM_BUF_INIT;
	size_t start = a->items[k]->span.start, end = a->items[k]->span.end;
	if (k + 1 < a->n)
		end = a->items[k + 1]->span.start;      /* "k", "next" -> "next" */
	else if (k > 0)
		start = a->items[k - 1]->span.end;      /* "prev", "k" -> "prev" */
	else if (a->trailing_comma)
		end = a->comma.end;                     /* ["k",] -> [] */
	return splice(p, start, end, &none);
}

/*
 * [project].version becomes spec->version: the string replaced, or, when the
 * version is dynamic (maturin takes Cargo's), "version" leaves `dynamic` and
 * the key is added (into *keys).
 */
static int set_version(struct patcher *p, const struct wm_toml_table *project, struct newkey *keys, size_t *n)
{
	const struct wm_toml_value *v = wm_toml_table_get(project, "version");
	const struct wm_toml_value *d = wm_toml_table_get(project, "dynamic");
	struct wm_buf b = WM_BUF_INIT;
	int ret;

	if (v && v->type != WM_TOML_STRING)
		return fail(p, WM_EINVALID, &v->span, "[project].version is %s, expected a string", kind(v));
	for (size_t k = 0; wm_toml_is_array(d) && k < d->array.n; k++) {
		const struct wm_toml_value *item = d->array.items[k];
		if (item->type == WM_TOML_STRING && strcmp(item->str, "version") == 0 &&
				(ret = remove_item(p, &d->array, k)) < 0)
			return ret;
	}
	if (v)
		return replace_string(p, v, p->spec->version);
	wm_toml_put_string(&b, p->spec->version, strlen(p->spec->version), WM_TOML_BASIC);
	keys[*n].key = "version";
	keys[*n].value = b.oom ? NULL : wm_arena_strndup(&p->arena, b.ptr, b.len);
	wm_buf_release(&b);
	if (!keys[(*n)++].value)
		return oom(p);
	return 0;
}

static int patch_project(struct patcher *p)
{
	const struct wm_patch_spec *spec = p->spec;
	const struct wm_toml_value *project = wm_toml_table_get(p->doc->root, "project");
	const struct wm_toml_value *name, *deps, *optional;
	struct newkey keys[2];
	size_t nkeys = 0;
	const char *old;
	int ret;

	name = wm_toml_is_table(project) ? wm_toml_table_get(project->table, "name") : NULL;
	if (!name)
		return fail(p, WM_EINVALID, project ? &project->span : NULL, "pyproject.toml has no [project].name");
	if (name->type != WM_TOML_STRING)
		return fail(p, WM_EINVALID, &name->span, "[project].name is %s, expected a string", kind(name));
	old = spec->old_name ? spec->old_name : name->str;
	if (spec->name && (ret = replace_string(p, name, spec->name)) < 0)
		return ret;
	if (spec->version && (ret = set_version(p, project->table, keys, &nkeys)) < 0)
		return ret;

	deps = wm_toml_table_get(project->table, "dependencies");
	optional = wm_toml_table_get(project->table, "optional-dependencies");
	if (spec->name && wm_toml_is_array(deps) && (ret = rename_requirements(p, deps, old)) < 0)
		return ret;
	for (size_t i = 0; spec->name && wm_toml_is_table(optional) && i < optional->table->n; i++) {
		const struct wm_toml_value *list = optional->table->entries[i].value;
		if (wm_toml_is_array(list) && !list->array.aot && (ret = rename_requirements(p, list, old)) < 0)
			return ret;
	}

	if (spec->ndependencies > 0 && dynamic_has(project->table, "dependencies"))
		return fail(p, WM_EINVALID, &wm_toml_table_get(project->table, "dynamic")->span,
			"[project].dependencies is dynamic: the variant's dependencies cannot be added");
	if (spec->ndependencies > 0 && !deps) {
		struct wm_buf b = WM_BUF_INIT;
		put_array(&b, spec->dependencies, spec->ndependencies);
		keys[nkeys].key = "dependencies";
		keys[nkeys].value = b.oom ? NULL : wm_arena_strndup(&p->arena, b.ptr, b.len);
		wm_buf_release(&b);
		if (!keys[nkeys++].value)
			return oom(p);
	} else if (spec->ndependencies > 0) {
		if (!wm_toml_is_array(deps) || deps->array.aot)
			return fail(p, WM_EINVALID, &deps->span, "[project].dependencies is %s, expected an array of strings",
				kind(deps));
		if ((ret = append_items(p, deps, spec->dependencies, spec->ndependencies)) < 0)
			return ret;
	}
	return insert_keys(p, project->table, keys, nkeys);
}

/* ---- [tool.maturin] ------------------------------------------------------ */

static int new_key(struct patcher *p, struct newkey *keys, size_t *n, const char *key, struct wm_buf *value)
{
	if (value->oom || !(keys[*n].value = wm_arena_strndup(&p->arena, value->ptr, value->len)))
		return oom(p);
	keys[(*n)++].key = key;
	wm_buf_clear(value);
	return 0;
}

/* Pins [tool.maturin].`key` to `value`: the value replaced where it is set, else a key to add. */
static int pin(struct patcher *p, const struct wm_toml_table *maturin, const char *key, const char *value,
	struct newkey *keys, size_t *n)
{
	const struct wm_toml_value *v = maturin ? wm_toml_table_get(maturin, key) : NULL;
	struct wm_buf b = WM_BUF_INIT;
	int ret;
	if (!value)
		return 0;
	if (v && v->type != WM_TOML_STRING)
		return fail(p, WM_EINVALID, &v->span, "[tool.maturin].%s is %s, expected a string", key, kind(v));
	if (v)
		return replace_string(p, v, value);
	wm_toml_put_string(&b, value, strlen(value), WM_TOML_BASIC);
	ret = new_key(p, keys, n, key, &b);
	wm_buf_release(&b);
	return ret;
}

/* Merges the features into [tool.maturin].features: appended where the array is, else a key to add. */
static int merge_features(struct patcher *p, const struct wm_toml_table *maturin, struct newkey *keys, size_t *n)
{
	const struct wm_patch_spec *spec = p->spec;
	const struct wm_toml_value *v = maturin ? wm_toml_table_get(maturin, "features") : NULL;
	struct wm_buf b = WM_BUF_INIT;
	const char **uniq;
	size_t nuniq = 0;
	int ret;

	if (spec->nfeatures == 0)
		return 0;
	if (v && (v->type != WM_TOML_ARRAY || v->array.aot))
		return fail(p, WM_EINVALID, &v->span, "[tool.maturin].features is %s, expected an array", kind(v));
	if (v)
		return append_items(p, v, spec->features, spec->nfeatures);
	if (!(uniq = wm_arena_array(&p->arena, spec->nfeatures, sizeof(*uniq))))
		return oom(p);
	for (size_t i = 0; i < spec->nfeatures; i++) {
		bool dup = false;
		for (size_t j = 0; j < nuniq && !dup; j++)
			dup = strcmp(uniq[j], spec->features[i]) == 0;
		if (!dup)
			uniq[nuniq++] = spec->features[i];
	}
	put_array(&b, uniq, nuniq);
	ret = new_key(p, keys, n, "features", &b);
	wm_buf_release(&b);
	return ret;
}

/*
 * Adds `keys` where [tool.maturin] should be: into `tool` when it is an
 * inline table (as `maturin = {...}`), else as a new [tool.maturin] section
 * at the end (valid also after [tool.maturin.target...] sub-tables, or when
 * dotted keys made `tool`).
 */
static int add_maturin(struct patcher *p, const struct wm_toml_value *tool, const struct newkey *keys, size_t n)
{
	struct wm_buf b = WM_BUF_INIT;
	struct newkey key = { "maturin", NULL };

	if (n == 0)
		return 0;
	if (!tool || section_of(tool->table)->origin != WM_TOML_INLINE)
		return append_section(p, "tool.maturin", keys, n);
	wm_buf_putc(&b, '{');
	put_keys(&b, NULL, keys, n, ", ");
	wm_buf_putc(&b, '}');
	key.value = b.oom ? NULL : wm_arena_strndup(&p->arena, b.ptr, b.len);
	wm_buf_release(&b);
	if (!key.value)
		return oom(p);
	return insert_keys(p, tool->table, &key, 1);
}

static int patch_maturin(struct patcher *p)
{
	const struct wm_patch_spec *spec = p->spec;
	const struct wm_toml_value *tool = wm_toml_table_get(p->doc->root, "tool"), *mv = NULL;
	const struct wm_toml_table *maturin = NULL;
	struct newkey keys[MAX_NEWKEYS];
	size_t n = 0;
	int ret;

	if (spec->nfeatures == 0 && !spec->module_name && !spec->python_source && !spec->manifest_path)
		return 0;
	if (tool && tool->type != WM_TOML_TABLE)
		return fail(p, WM_EINVALID, &tool->span, "'tool' is %s, expected a table", kind(tool));
	if (tool && (mv = wm_toml_table_get(tool->table, "maturin")) && mv->type != WM_TOML_TABLE)
		return fail(p, WM_EINVALID, &mv->span, "[tool.maturin] is %s, expected a table", kind(mv));
	if (mv)
		maturin = mv->table;
	if ((ret = merge_features(p, maturin, keys, &n)) < 0 ||
			(ret = pin(p, maturin, "module-name", spec->module_name, keys, &n)) < 0 ||
			(ret = pin(p, maturin, "python-source", spec->python_source, keys, &n)) < 0 ||
			(ret = pin(p, maturin, "manifest-path", spec->manifest_path, keys, &n)) < 0)
		return ret;
	if (maturin && maturin->origin != WM_TOML_IMPLICIT)
		return insert_keys(p, maturin, keys, n);
	return add_maturin(p, tool, keys, n);
}

/* ---- the [variant] table ------------------------------------------------ */

static int patch_variant(struct patcher *p)
{
	const struct wm_patch_spec *spec = p->spec;
	const struct wm_toml_value *own = wm_toml_table_get(p->doc->root, "variant");
	struct wm_buf b = WM_BUF_INIT;

	if (spec->nproviders == 0)
		return 0;
	if (own)
		return fail(p, WM_EINVALID, &own->span, "the project has a [variant] table of its own, and the matrix's "
			"'distribution.providers' writes it: remove one of them");
	wm_buf_printf(&b, "[variant.default-priorities]%snamespace = [", p->nl);
	for (size_t i = 0; i < spec->nproviders; i++) {
		wm_buf_puts(&b, i ? ", " : "");
		wm_toml_put_string(&b, spec->providers[i].ns, strlen(spec->providers[i].ns), WM_TOML_BASIC);
	}
	wm_buf_putc(&b, ']');
	for (size_t i = 0; i < spec->nproviders; i++) {
		const struct wm_provider *pr = &spec->providers[i];
		wm_buf_printf(&b, "%s%s[variant.providers.", p->nl, p->nl);
		wm_toml_put_key(&b, pr->ns, strlen(pr->ns));
		wm_buf_printf(&b, "]%srequires = ", p->nl);
		put_array(&b, pr->requires.items, pr->requires.n);
		if (pr->plugin_api) {
			wm_buf_printf(&b, "%splugin-api = ", p->nl);
			wm_toml_put_string(&b, pr->plugin_api, strlen(pr->plugin_api), WM_TOML_BASIC);
		}
		if (pr->optional)
			wm_buf_printf(&b, "%soptional = true", p->nl);
	}
	return append_block(p, &b);
}

/* ---- the entry point ----------------------------------------------------- */

int wm_patch_pyproject(struct wm_buf *out, const struct wm_toml_doc *doc, const struct wm_patch_spec *spec,
	struct wm_error *err)
{
	struct patcher p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.doc = doc;
	p.spec = spec;
	p.err = err;
	p.nl = doc->crlf ? "\r\n" : "\n";
	wm_arena_init(&p.arena);
	if ((ret = patch_project(&p)) < 0 || (ret = patch_maturin(&p)) < 0 || (ret = patch_variant(&p)) < 0)
		goto out;
	ret = apply(&p, out);
out:
	free(p.splices);
	wm_arena_release(&p.arena);
	return ret;
}
