/* yaml.c — the one module that uses libyaml: parses documents into our tree and writes our output trees. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/map.h"
#include "util/utf8.h"
#include "formats/yaml.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

/* A collection being built: its node and the children seen so far. */
struct frame {
	struct wm_node *node;
	const char *anchor;
	struct wm_node **items;
	size_t n, cap;
	uint64_t text_start;    /* the document's text before it */
};

/* An anchored node and the bytes of scalar text it stands for, aliases in it expanded. */
struct anchor {
	struct wm_node *node;
	uint64_t text;
};

struct builder {
	struct wm_doc *doc;
	struct wm_error *err;
	const struct wm_yaml_limits *limits;
	struct frame *stack;
	size_t depth, cap;
	struct wm_map anchors;  /* name -> struct anchor */
	uint64_t text;          /* bytes of scalar text so far, aliases expanded */
	bool aliased;           /* an alias was read */
	bool failed;
};

static void report(struct builder *b, unsigned line, unsigned column, unsigned span, const char *fmt, ...)
	WM_PRINTF(5, 6);

static void report(struct builder *b, unsigned line, unsigned column, unsigned span, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(b->err, WM_EINVALID, WM_SEV_ERROR, b->doc->file, b->doc->text, b->doc->len,
		line, column, span, fmt, ap);
	va_end(ap);
	b->failed = true;
}

static void report_oom(struct builder *b)
{
	wm_error_nopos(b->err, WM_ENOMEM, WM_SEV_ERROR, b->doc->file, "out of memory");
	b->failed = true;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static struct wm_node *new_node(struct builder *b, enum wm_node_type type, const yaml_event_t *ev)
{
	struct wm_node *n = wm_arena_alloc(&b->doc->arena, sizeof(*n));
	if (!n) {
		report_oom(b);
		return NULL;
	}
	n->type = type;
	n->line = (unsigned)ev->start_mark.line + 1;
	n->column = (unsigned)ev->start_mark.column + 1;
	n->end_line = (unsigned)ev->end_mark.line + 1;
	n->end_column = (unsigned)ev->end_mark.column + 1;
	n->weight = 1;
	return n;
}

/* Checks an explicit tag; only the YAML core tags are allowed. */
static bool check_tag(struct builder *b, struct wm_node *n, const yaml_char_t *tag, enum wm_node_type type)
{
	static const char *const scalar_tags[] = { "str", "int", "bool", "null", "float" };
	const char *t = (const char *)tag;
	if (!t || strcmp(t, "!") == 0)
		return true;
	if (strncmp(t, TAG_PREFIX, strlen(TAG_PREFIX)) == 0) {
		const char *name = t + strlen(TAG_PREFIX);
		if (type == WM_NODE_SCALAR) {
			for (size_t i = 0; i < WM_ARRAY_SIZE(scalar_tags); i++)
				if (strcmp(name, scalar_tags[i]) == 0)
					goto ok;
		} else if ((type == WM_NODE_MAP && strcmp(name, "map") == 0) ||
			(type == WM_NODE_SEQ && strcmp(name, "seq") == 0)) {
			goto ok;
		}
	}
	report(b, n->line, n->column, 1, "unsupported YAML tag '%s'", t);
	return false;
ok:
	n->tag = wm_arena_strdup(&b->doc->arena, t);
	return true;
}

static void add_child(struct builder *b, struct wm_node *child, const yaml_event_t *ev)
{
	struct frame *f;
	if (b->depth == 0) {
		b->doc->root = child;
		return;
	}
	f = &b->stack[b->depth - 1];
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct wm_node **items = realloc(f->items, cap * sizeof(*items));
		if (!items) {
			report_oom(b);
			return;
		}
		f->items = items;
		f->cap = cap;
	}
	f->items[f->n++] = child;
	f->node->weight = sat_add(f->node->weight, child->weight);
	if (f->node->weight > b->limits->max_nodes) {
		bool alias = ev->type == YAML_ALIAS_EVENT;
		report(b, alias ? (unsigned)ev->start_mark.line + 1 : child->line,
			alias ? (unsigned)ev->start_mark.column + 1 : child->column,
			alias ? (unsigned)(ev->end_mark.column - ev->start_mark.column) : 1,
			b->aliased ? "aliases expand this document past %llu nodes (an alias bomb?)" :
			"the document has more than %llu nodes", (unsigned long long)b->limits->max_nodes);
	}
}

/*
 * Adds a scalar's bytes, or an alias's (what its anchor stands for), to the document's text,
 * reporting at line:column when that passes the limit.  Counted as the nodes are, this bounds the
 * text that aliases can make a reader of the tree copy: a 256 KiB value used through 1,000 aliases
 * is 256 MiB to every reader that writes it out, in few nodes.
 */
static void add_text(struct builder *b, uint64_t n, unsigned line, unsigned column, unsigned span)
{
	uint64_t max = b->limits->max_text;
	b->text = sat_add(b->text, n);
	if (b->text <= max)
		return;
	if (max % (1u << 20) == 0)
		report(b, line, column, span, "aliases expand this document past %llu MiB of text (an alias bomb?)",
			(unsigned long long)(max >> 20));
	else
		report(b, line, column, span, "aliases expand this document past %llu bytes of text (an alias bomb?)",
			(unsigned long long)max);
}

static void remember_anchor(struct builder *b, const char *name, struct wm_node *n, uint64_t text)
{
	struct anchor *a;
	if (!name)
		return;
	if (!(a = wm_arena_alloc(&b->doc->arena, sizeof(*a))) || wm_map_put(&b->anchors, name, strlen(name), a) < 0) {
		report_oom(b);
		return;
	}
	a->node = n;
	a->text = text;
}

static const char *copy_anchor(struct builder *b, const yaml_char_t *anchor)
{
	return anchor ? wm_arena_strdup(&b->doc->arena, (const char *)anchor) : NULL;
}

/*
 * The first bidirectional control (U+202A-U+202E, U+2066-U+2069) in `s`, or 0.
 * Copied into a workflow, one would make a command or a value show other
 * than what runs, and libyaml writes them as they are, even in quotes.
 */
static unsigned bidi_control(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i + 2 < len; i++)
		if (p[i] == 0xe2 && ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
				(p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)))
			return 0x2000u + ((p[i + 1] & 0x3fu) << 6) + (p[i + 2] & 0x3fu);
	return 0;
}

static void on_scalar(struct builder *b, const yaml_event_t *ev)
{
	struct wm_node *n = new_node(b, WM_NODE_SCALAR, ev);
	const char *value = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	unsigned bidi;
	if (!n)
		return;
	switch (ev->data.scalar.style) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		n->style = WM_QUOTED;
		break;
	case YAML_LITERAL_SCALAR_STYLE:
	case YAML_FOLDED_SCALAR_STYLE:
		n->style = WM_BLOCK;
		break;
	default:
		n->style = WM_PLAIN;
	}
	if (!check_tag(b, n, ev->data.scalar.tag, WM_NODE_SCALAR))
		return;
	if (memchr(value, '\0', len)) {
		report(b, n->line, n->column, 1, "a string cannot contain a NUL character");
		return;
	}
	if ((bidi = bidi_control(value, len)) != 0) {
		report(b, n->line, n->column, 1, "a string cannot contain the bidirectional control U+%04X: "
			"it makes the text show other than it reads", bidi);
		return;
	}
	n->text = wm_arena_strndup(&b->doc->arena, value, len);
	n->len = len;
	if (!n->text) {
		report_oom(b);
		return;
	}
	remember_anchor(b, copy_anchor(b, ev->data.scalar.anchor), n, len);
	add_child(b, n, ev);
	if (!b->failed)
		add_text(b, len, n->line, n->column, 1);
}

static void on_alias(struct builder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	const struct anchor *a = wm_map_get(&b->anchors, name, strlen(name));
	unsigned line = (unsigned)ev->start_mark.line + 1, column = (unsigned)ev->start_mark.column + 1,
		span = (unsigned)(ev->end_mark.column - ev->start_mark.column);

	b->aliased = true;
	if (!a) {
		report(b, line, column, span, "unknown anchor '%s' (an alias must follow its anchor, outside it)", name);
		return;
	}
	add_child(b, a->node, ev);
	if (!b->failed)
		add_text(b, a->text, line, column, span);
}

static void on_start(struct builder *b, const yaml_event_t *ev, enum wm_node_type type)
{
	struct wm_node *n = new_node(b, type, ev);
	struct frame *f;
	const yaml_char_t *tag = type == WM_NODE_MAP ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
	const yaml_char_t *anchor = type == WM_NODE_MAP ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
	if (!n)
		return;
	n->flow = type == WM_NODE_MAP ? ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE :
		ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
	check_tag(b, n, tag, type);
	if (b->depth >= b->limits->max_depth) {
		report(b, n->line, n->column, 1, "nesting deeper than %u levels", b->limits->max_depth);
		return;
	}
	if (b->depth == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct frame *s = realloc(b->stack, cap * sizeof(*s));
		if (!s) {
			report_oom(b);
			return;
		}
		b->stack = s;
		b->cap = cap;
	}
	f = &b->stack[b->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	f->anchor = copy_anchor(b, anchor);
	f->text_start = b->text;
}

static bool is_merge_key(const struct wm_node *k)
{
	return k->type == WM_NODE_SCALAR && k->style == WM_PLAIN && strcmp(k->text, "<<") == 0;
}

static const struct wm_node *find_key(const struct wm_pair *pairs, size_t n, const struct wm_map *index,
	const char *key, size_t len)
{
	if (index)
		return wm_map_get(index, key, len);
	for (size_t i = 0; i < n; i++)
		if (pairs[i].key->len == len && memcmp(pairs[i].key->text, key, len) == 0)
			return pairs[i].key;
	return NULL;
}

/* Adds `src`'s pairs that `dst` does not have yet: a merge key's contribution. */
static bool merge_from(struct builder *b, struct wm_pair *out, size_t *nout, struct wm_map *index,
	const struct wm_node *src, const struct wm_node *at)
{
	if (src->type != WM_NODE_MAP) {
		report(b, at->line, at->column, 1, "a merge key ('<<') takes a mapping or a list of mappings");
		return false;
	}
	for (size_t i = 0; i < src->n; i++) {
		const struct wm_node *k = src->pairs[i].key;
		if (find_key(out, *nout, index, k->text, k->len))
			continue;
		out[*nout] = src->pairs[i];
		if (index && wm_map_put(index, k->text, k->len, (void *)k) < 0) {
			report_oom(b);
			return false;
		}
		(*nout)++;
	}
	return true;
}

static size_t merged_size(const struct wm_node *v)
{
	size_t n = 0;
	if (v->type == WM_NODE_MAP)
		return v->n;
	if (v->type == WM_NODE_SEQ)
		for (size_t i = 0; i < v->n; i++)
			n += v->items[i]->type == WM_NODE_MAP ? v->items[i]->n : 0;
	return n;
}

/* Turns a mapping's key/value list into pairs: duplicate and non-string keys are errors. */
static void finish_map(struct builder *b, struct frame *f)
{
	struct wm_node *n = f->node;
	size_t cap = f->n / 2, np = 0;
	struct wm_map index;
	bool use_index = f->n / 2 > 8;
	struct wm_pair *pairs;

	for (size_t i = 0; i + 1 < f->n; i += 2)
		if (is_merge_key(f->items[i]))
			cap += merged_size(f->items[i + 1]);
	pairs = wm_arena_array(&b->doc->arena, cap ? cap : 1, sizeof(*pairs));
	if (!pairs) {
		report_oom(b);
		return;
	}
	wm_map_init(&index);
	/* explicit keys first, so that they win over merged ones wherever they stand */
	for (size_t i = 0; i + 1 < f->n; i += 2) {
		struct wm_node *k = f->items[i];
		const struct wm_node *prev;
		if (k->type != WM_NODE_SCALAR) {
			report(b, k->line, k->column, 1, "a mapping key must be a string, not %s", wm_yaml_kind(k));
			continue;
		}
		if (is_merge_key(k))
			continue;
		prev = find_key(pairs, np, use_index ? &index : NULL, k->text, k->len);
		if (prev) {
			report(b, k->line, k->column, (unsigned)wm_utf8_len(k->text, k->len),
				"duplicate key '%s' (first defined at line %u)", k->text, prev->line);
			continue;
		}
		pairs[np].key = k;
		pairs[np].value = f->items[i + 1];
		if (use_index && wm_map_put(&index, k->text, k->len, k) < 0)
			report_oom(b);
		np++;
	}
	for (size_t i = 0; i + 1 < f->n; i += 2) {
		struct wm_node *k = f->items[i], *v = f->items[i + 1];
		if (k->type != WM_NODE_SCALAR || !is_merge_key(k))
			continue;
		if (v->type == WM_NODE_SEQ) {
			for (size_t j = 0; j < v->n; j++)
				if (!merge_from(b, pairs, &np, use_index ? &index : NULL, v->items[j], v->items[j]))
					break;
		} else {
			merge_from(b, pairs, &np, use_index ? &index : NULL, v, v);
		}
	}
	wm_map_release(&index);
	n->pairs = pairs;
	n->n = np;
}

static void on_end(struct builder *b, const yaml_event_t *ev)
{
	struct frame f;
	if (b->depth == 0)
		return;
	f = b->stack[--b->depth];
	f.node->end_line = (unsigned)ev->end_mark.line + 1;
	f.node->end_column = (unsigned)ev->end_mark.column + 1;
	if (f.node->type == WM_NODE_MAP) {
		finish_map(b, &f);
	} else {
		f.node->items = wm_arena_array(&b->doc->arena, f.n ? f.n : 1, sizeof(*f.items));
		if (f.node->items) {
			if (f.n)  /* an empty sequence has no items to copy (f.items is NULL) */
				memcpy(f.node->items, f.items, f.n * sizeof(*f.items));
			f.node->n = f.n;
		} else {
			report_oom(b);
		}
	}
	free(f.items);
	if (b->failed)
		return;
	remember_anchor(b, f.anchor, f.node, b->text - f.text_start);
	add_child(b, f.node, ev);
}

/* Line and column (in characters) of a byte offset. */
static void offset_position(const char *text, size_t len, size_t off, unsigned *line, unsigned *column)
{
	unsigned l = 1, c = 1;
	if (off > len)
		off = len;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			c++;
		}
	}
	*line = l;
	*column = c;
}

/* ---- libyaml's errors, explained ------------------------------------------- */

/*
 * A tab or a line indented more or less than its neighbours is the commonest
 * mistake in a hand-written file, and libyaml reports what it found where it
 * noticed it: "mapping values are not allowed in this context" at the colon
 * of an over-indented key, "could not find expected ':'" on the line after a
 * word without one.  These name the mistake at its own place instead, from
 * the lines around it; any other error keeps libyaml's words.
 */

/* One line of the input, without its line break. */
struct src_line {
	const char *p, *end;
	unsigned number;
};

static void set_line(struct src_line *out, const char *p, const char *end, unsigned number)
{
	out->p = p;
	out->end = end > p && end[-1] == '\r' ? end - 1 : end;
	out->number = number;
}

/* Line `number` (1-based) of the document; false past its end. */
static bool get_line(const struct wm_doc *d, unsigned number, struct src_line *out)
{
	const char *p = d->text, *end = d->text + d->len, *nl;
	if (number == 0)
		return false;
	for (unsigned n = 1; n < number; n++) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			return false;
		p = nl + 1;
	}
	nl = memchr(p, '\n', (size_t)(end - p));
	set_line(out, p, nl ? nl : end, number);
	return true;
}

/* Columns count characters, as libyaml's marks and the diagnostics do. */
static unsigned column_of(const struct src_line *l, const char *s)
{
	return (unsigned)wm_utf8_len(l->p, (size_t)(s - l->p)) + 1;
}

static const char *at_column(const struct src_line *l, unsigned column)
{
	const char *s = l->p;
	for (unsigned c = 1; c < column && s < l->end; c++)
		do
			s++;
		while (s < l->end && ((unsigned char)*s & 0xc0) == 0x80);
	return s;
}

static const char *skip_blanks(const struct src_line *l, const char *s)
{
	while (s < l->end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static bool is_item(const struct src_line *l, const char *s)
{
	return s < l->end && *s == '-' && (s + 1 == l->end || s[1] == ' ' || s[1] == '\t');
}

/* Where a line's text starts: after its indentation and, with `items`, the '- ' of list items. */
static const char *line_text(const struct src_line *l, bool items)
{
	const char *s = l->p;
	while (s < l->end && *s == ' ')
		s++;
	while (items && is_item(l, s))
		s = skip_blanks(l, s + 1);
	return s;
}

static bool rest_empty(const struct src_line *l, const char *s)
{
	s = skip_blanks(l, s);
	return s == l->end || *s == '#';
}

/*
 * The nearest line before `l` with more than blanks or a comment on it; false when there is none.
 * It walks back from `l`, so that looking up through a long file stays linear.
 */
static bool previous_line(const struct wm_doc *d, const struct src_line *l, struct src_line *out)
{
	const char *start = l->p;
	unsigned number = l->number;
	while (start > d->text) {
		const char *end = start - 1;  /* the line feed that ends the line before */
		for (start = end; start > d->text && start[-1] != '\n'; start--)
			;
		set_line(out, start, end, --number);
		if (!rest_empty(out, out->p))
			return true;
	}
	return false;
}

/* A block key at `s`: its text before a ':' that a blank or the line's end follows. */
struct src_key {
	const char *text, *colon;
	int len;
};

static bool key_at(const struct src_line *l, const char *s, struct src_key *out)
{
	const char *q;
	if (s >= l->end || strchr("#[]{},&*!|>%@`", *s) || is_item(l, s))
		return false;
	for (q = s; q < l->end; q++) {
		if (*q == '#' && (q[-1] == ' ' || q[-1] == '\t'))
			return false;
		if (*q == ':' && (q + 1 == l->end || q[1] == ' ' || q[1] == '\t'))
			break;
	}
	if (q == l->end)
		return false;
	out->colon = q;
	while (q > s && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	out->text = s;
	out->len = (int)(q - s);
	return q > s;
}

/* A tab in the leading blanks of the line where libyaml stopped, at or after the error. */
static bool explain_tab(struct builder *b, unsigned line, unsigned column)
{
	struct src_line l;
	const char *text, *tab;
	if (!get_line(b->doc, line, &l))
		return false;
	text = skip_blanks(&l, l.p);
	tab = memchr(l.p, '\t', (size_t)(text - l.p));
	if (!tab || column > column_of(&l, text))
		return false;
	report(b, line, column_of(&l, tab), 1, "a tab in the indentation: YAML indents with spaces only");
	return true;
}

/*
 * The key whose mapping holds the key on line `l` at `column`: the nearest
 * line above at a smaller column, a key with nothing after its ':'.  The
 * first key of the mapping goes in *first (`l` itself when none is above).
 */
static bool parent_key(const struct wm_doc *d, const struct src_line *l, unsigned column, struct src_line *first,
	struct src_line *pl, struct src_key *parent)
{
	struct src_key k;
	*first = *l;
	for (const struct src_line *at_line = l; previous_line(d, at_line, pl); at_line = pl) {
		const char *s = line_text(pl, true);
		unsigned c = column_of(pl, s);
		if (c > column)
			continue;
		if (c == column) {
			if (!key_at(pl, s, &k))
				return false;
			*first = *pl;
			continue;
		}
		return key_at(pl, s, parent) && rest_empty(pl, parent->colon + 1);
	}
	return false;
}

/*
 * A key indented more than the key above it in the same mapping.  Most often
 * the key above is the one out of place (the mapping's first key, a column
 * short of the file's indentation): then that line is named, with the column
 * its keys go at, which the file's own indentation step gives.
 */
static void report_over_indented(struct builder *b, const struct src_line *l, const struct src_key *k,
	const struct src_line *sl, const struct src_key *sibling)
{
	struct src_line first, pl, gl, gfirst;
	struct src_key parent, grand, fk;
	unsigned at = column_of(l, k->text), sat = column_of(sl, sibling->text), pat, want;

	if (parent_key(b->doc, sl, sat, &first, &pl, &parent)) {
		pat = column_of(&pl, parent.text);
		want = pat + (parent_key(b->doc, &pl, pat, &gfirst, &gl, &grand) ? pat - column_of(&gl, grand.text) : 2);
		if (at == want && key_at(&first, line_text(&first, true), &fk)) {
			report(b, first.number, sat, (unsigned)wm_utf8_len(fk.text, (size_t)fk.len),
				"'%.*s' is indented too little: the keys under '%.*s' (line %u) go at column %u, as '%.*s' on "
				"line %u", fk.len, fk.text, parent.len, parent.text,
				pl.number, want, k->len, k->text, l->number);
			return;
		}
	}
	report(b, l->number, at, (unsigned)wm_utf8_len(k->text, (size_t)k->len),
		"'%.*s' is indented more than '%.*s' on line %u: the keys of a mapping start in the same column "
		"(here column %u)", k->len, k->text, sibling->len, sibling->text, sl->number, sat);
}

/* The text at `s` where a key should be, with no ':' after it; false when there is none. */
static bool report_no_colon(struct builder *b, const struct src_line *l, const char *s)
{
	struct src_line q;
	const char *end;
	unsigned column = column_of(l, s);
	bool left;
	for (end = s; end < l->end && !(*end == '#' && end > s && (end[-1] == ' ' || end[-1] == '\t')); end++)
		;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == s)
		return false;
	left = previous_line(b->doc, l, &q) && column_of(&q, line_text(&q, false)) > column;
	report(b, l->number, column, (unsigned)wm_utf8_len(s, (size_t)(end - s)),
		"'%.*s' stands where a key is expected, with no ':' after it%s", (int)(end - s), s,
		left ? " (is it indented too little? a list item starts with '- ', under its key)" : "");
	return true;
}

/* "could not find expected ':'", on the line after a word that stands where a key should. */
static bool explain_no_colon(struct builder *b, unsigned line, unsigned column)
{
	struct src_line l;
	return get_line(b->doc, line, &l) && report_no_colon(b, &l, at_column(&l, column));
}

/*
 * "mapping values are not allowed in this context" at the colon of the key a
 * line starts with: the line is indented more than the key above it, so it
 * continued that key's value, in which a ':' cannot stand.  At the top of the
 * file, with no key above, the line continued a first line without its ':'.
 */
static bool explain_colon(struct builder *b, unsigned line, unsigned column)
{
	struct src_line l, q, first;
	struct src_key k, sibling;
	unsigned at;
	bool words = false;
	if (!get_line(b->doc, line, &l) || !key_at(&l, line_text(&l, false), &k) || column != column_of(&l, k.colon))
		return false;
	at = column_of(&l, k.text);
	for (struct src_line *at_line = &l; previous_line(b->doc, at_line, &q); at_line = &q) {
		const char *s = line_text(&q, true);
		if (column_of(&q, s) > at || (column_of(&q, s) == at && !key_at(&q, s, &sibling))) {
			first = q;  /* a line of the value the key continues */
			words = true;
			continue;
		}
		if (column_of(&q, s) == at || !key_at(&q, s, &sibling))
			return false;
		report_over_indented(b, &l, &k, &q, &sibling);
		return true;
	}
	return words && column_of(&first, line_text(&first, true)) == at &&
		report_no_colon(b, &first, line_text(&first, true));
}

/*
 * "did not find expected key" in a block mapping whose first key is at
 * (mline, mcolumn): a key indented more than the mapping's, words with no
 * ':', or a list item where a key should be, either out of line with the
 * item above it or moved left of the key whose list it is.
 */
static bool explain_no_key(struct builder *b, unsigned line, unsigned mline, unsigned mcolumn)
{
	struct src_line l, m, q;
	struct src_key k, owner;
	const char *s, *qs;
	unsigned at;
	if (!get_line(b->doc, line, &l))
		return false;
	s = line_text(&l, false);
	at = column_of(&l, s);
	if (!is_item(&l, s)) {
		if (!key_at(&l, s, &k))
			return s < l.end && !strchr("#[]{},&*!|>%@`'\":?", *s) && report_no_colon(b, &l, s);
		if (at <= mcolumn)
			return false;
		/* the nearest key of the mapping above, else its first */
		for (struct src_line *at_line = &l; previous_line(b->doc, at_line, &m) && m.number > mline; at_line = &m)
			if (column_of(&m, line_text(&m, true)) == mcolumn && key_at(&m, line_text(&m, true), &owner)) {
				report_over_indented(b, &l, &k, &m, &owner);
				return true;
			}
		if (!get_line(b->doc, mline, &m) || !key_at(&m, at_column(&m, mcolumn), &owner))
			return false;
		report_over_indented(b, &l, &k, &m, &owner);
		return true;
	}
	qs = previous_line(b->doc, &l, &q) ? line_text(&q, false) : NULL;
	if (qs && is_item(&q, qs) && column_of(&q, qs) != at) {
		report(b, line, at, 1, "this list item is indented %s than the one on line %u: the items of a list "
			"start in the same column", at > column_of(&q, qs) ? "more" : "less", q.number);
		return true;
	}
	if (at > mcolumn)
		return false;
	if (qs && key_at(&q, line_text(&q, true), &owner) && rest_empty(&q, owner.colon + 1))
		report(b, line, at, 1, "a list item where a key is expected: is it indented too little? the items "
			"of '%.*s' (line %u) go at column %u or further right", owner.len, owner.text, q.number,
			column_of(&q, owner.text));
	else
		report(b, line, at, 1, "a list item where a key is expected: a list's items go under its key, at "
			"the key's column or further right");
	return true;
}

static bool explain_parser(struct builder *b, const yaml_parser_t *p, unsigned line, unsigned column)
{
	const char *problem = p->problem ? p->problem : "", *context = p->context ? p->context : "";
	unsigned cline = (unsigned)p->context_mark.line + 1, ccolumn = (unsigned)p->context_mark.column + 1;
	if (explain_tab(b, line, column))
		return true;
	if (strcmp(problem, "could not find expected ':'") == 0 && strcmp(context, "while scanning a simple key") == 0)
		return explain_no_colon(b, cline, ccolumn);
	if (strcmp(problem, "mapping values are not allowed in this context") == 0)
		return explain_colon(b, line, column);
	if (strcmp(problem, "did not find expected key") == 0 && strcmp(context, "while parsing a block mapping") == 0)
		return explain_no_key(b, line, cline, ccolumn);
	return false;
}

static void report_parser(struct builder *b, const yaml_parser_t *p)
{
	unsigned line, column;
	if (p->error == YAML_MEMORY_ERROR) {
		report_oom(b);
		return;
	}
	if (p->error == YAML_READER_ERROR) {
		offset_position(b->doc->text, b->doc->len, p->problem_offset, &line, &column);
		report(b, line, column, 1, "invalid YAML: %s", p->problem ? p->problem : "unreadable input");
		return;
	}
	line = (unsigned)p->problem_mark.line + 1;
	column = (unsigned)p->problem_mark.column + 1;
	/*
	 * at the end of a file without a final line break libyaml counts one more line: stay on the
	 * last (its index counts characters after a byte-order mark, which its reader drops)
	 */
	if (p->problem_mark.column == 0 && b->doc->len > 0 && b->doc->text[b->doc->len - 1] != '\n' &&
	    p->problem_mark.index + (b->doc->len >= 3 && memcmp(b->doc->text, "\xef\xbb\xbf", 3) == 0) >=
	    wm_utf8_len(b->doc->text, b->doc->len))
		offset_position(b->doc->text, b->doc->len, b->doc->len, &line, &column);
	if (explain_parser(b, p, line, column))
		return;
	if (p->context)
		report(b, line, column, 1, "invalid YAML: %s (%s that starts at line %u, column %u)",
			p->problem ? p->problem : "syntax error", p->context,
			(unsigned)p->context_mark.line + 1, (unsigned)p->context_mark.column + 1);
	else
		report(b, line, column, 1, "invalid YAML: %s", p->problem ? p->problem : "syntax error");
}

int wm_yaml_parse(struct wm_doc *doc, const char *file, const char *text, size_t len,
	const struct wm_yaml_limits *limits, struct wm_error *err)
{
	struct builder b;
	yaml_parser_t parser;
	yaml_event_t ev;
	unsigned line, column;
	unsigned char byte;
	uint32_t cp;
	char *copy;
	int documents = 0;
	bool done = false;

	memset(doc, 0, sizeof(*doc));
	wm_arena_init(&doc->arena);
	doc->file = wm_arena_strdup(&doc->arena, file);
	memset(&b, 0, sizeof(b));
	b.doc = doc;
	b.err = err;
	b.limits = limits;
	wm_map_init(&b.anchors);

	if (len > limits->max_bytes) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, file,
			"the file is larger than the limit of %zu MiB", limits->max_bytes >> 20);
		return WM_EINVALID;
	}
	copy = wm_arena_strndup(&doc->arena, text, len);
	if (!copy || !doc->file) {
		report_oom(&b);
		return WM_ENOMEM;
	}
	doc->text = copy;
	doc->len = len;
	if (len >= 2 && (((unsigned char)text[0] == 0xff && (unsigned char)text[1] == 0xfe) ||
			((unsigned char)text[0] == 0xfe && (unsigned char)text[1] == 0xff))) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, file,
			"the file is UTF-16: save it as UTF-8");
		return WM_EINVALID;
	}
	if (!wm_utf8_valid(text, len, &line, &column, &byte)) {
		report(&b, line, column, 1, "invalid UTF-8 (byte 0x%02x): the file must be UTF-8", byte);
		return WM_EINVALID;
	}
	/*
	 * libyaml breaks a line at a raw NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR; editors, terminals,
	 * `git diff` and YAML 1.2 readers do not, so the text after one, a key or a step, would hide in
	 * what shows as a comment or a value of the line before
	 */
	if ((cp = wm_utf8_find_break(text, len, &line, &column)) != 0) {
		report(&b, line, column, 1, "a raw %s: YAML readers such as this one break the line here, while "
			"editors and diffs show one line, so what follows would be read unseen; remove it (in a "
			"double-quoted string, write it escaped: %s)", wm_utf8_break_name(cp),
			cp == 0x85 ? "\\N" : cp == 0x2028 ? "\\L" : "\\P");
		return WM_EINVALID;
	}

	if (!yaml_parser_initialize(&parser)) {
		report_oom(&b);
		return WM_ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)copy, len);
	while (!done && !b.failed) {
		if (!yaml_parser_parse(&parser, &ev)) {
			report_parser(&b, &parser);
			break;
		}
		switch (ev.type) {
		case YAML_DOCUMENT_START_EVENT:
			if (++documents > 1)
				report(&b, (unsigned)ev.start_mark.line + 1, (unsigned)ev.start_mark.column + 1, 3,
					"a second YAML document: the file must hold exactly one");
			break;
		case YAML_SCALAR_EVENT:
			on_scalar(&b, &ev);
			break;
		case YAML_ALIAS_EVENT:
			on_alias(&b, &ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
			on_start(&b, &ev, WM_NODE_SEQ);
			break;
		case YAML_MAPPING_START_EVENT:
			on_start(&b, &ev, WM_NODE_MAP);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			on_end(&b, &ev);
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	while (b.depth > 0)
		free(b.stack[--b.depth].items);
	free(b.stack);
	wm_map_release(&b.anchors);
	if (b.failed) {
		doc->root = NULL;
		return err->code ? err->code : WM_EINVALID;
	}
	return 0;
}

void wm_yaml_release(struct wm_doc *doc)
{
	wm_arena_release(&doc->arena);
	memset(doc, 0, sizeof(*doc));
}

/* ---- reading the tree ----------------------------------------------------- */

bool wm_yaml_plain(const struct wm_node *n, const char *tag)
{
	if (n->tag)
		return strcmp(n->tag, tag) == 0;
	return n->style == WM_PLAIN;
}

bool wm_yaml_is_null(const struct wm_node *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	if (!n || n->type != WM_NODE_SCALAR || !wm_yaml_plain(n, "tag:yaml.org,2002:null"))
		return false;
	if (n->tag)
		return true;
	for (size_t i = 0; i < WM_ARRAY_SIZE(nulls); i++)
		if (strcmp(n->text, nulls[i]) == 0)
			return true;
	return false;
}

const char *wm_yaml_kind(const struct wm_node *n)
{
	if (n->type == WM_NODE_MAP)
		return "a mapping";
	if (n->type == WM_NODE_SEQ)
		return "a list";
	if (wm_yaml_is_null(n))
		return "null";
	return "a string";
}

bool wm_yaml_misread_number(const struct wm_node *n, char *out, size_t size)
{
	const char *s, *end, *dot;
	if (n->type != WM_NODE_SCALAR || !wm_yaml_plain(n, TAG_PREFIX "float") || n->len >= size)
		return false;
	s = n->text;
	end = s + n->len;
	if (!(dot = memchr(s, '.', n->len)) || dot == s || dot + 1 == end)
		return false;
	for (const char *p = s; p < end; p++)
		if (p != dot && !isdigit((unsigned char)*p))
			return false;
	while (s + 1 < dot && *s == '0')
		s++;
	while (end > dot + 1 && end[-1] == '0')
		end--;
	if (end == dot + 1)
		end = dot;
	if ((size_t)(end - s) == n->len)
		return false;
	memcpy(out, s, (size_t)(end - s));
	out[end - s] = '\0';
	return true;
}

unsigned wm_yaml_span(const struct wm_node *n)
{
	if (n->type != WM_NODE_SCALAR || n->end_line != n->line || n->end_column <= n->column)
		return 1;
	return n->end_column - n->column;
}

const struct wm_pair *wm_yaml_find_pair(const struct wm_node *n, const char *key)
{
	if (!n || n->type != WM_NODE_MAP)
		return NULL;
	for (size_t i = 0; i < n->n; i++)
		if (strcmp(n->pairs[i].key->text, key) == 0)
			return &n->pairs[i];
	return NULL;
}

const struct wm_node *wm_yaml_find(const struct wm_node *n, const char *key)
{
	const struct wm_pair *p = wm_yaml_find_pair(n, key);
	return p ? p->value : NULL;
}

/* ---- writing ------------------------------------------------------------ */

static struct wm_y *y_new(struct wm_yb *b, enum wm_node_type type)
{
	struct wm_y *y = wm_arena_alloc(b->arena, sizeof(*y));
	if (!y) {
		b->oom = true;
		return NULL;
	}
	y->type = type;
	return y;
}

struct wm_y *wm_yaml_str(struct wm_yb *b, const char *s)
{
	struct wm_y *y;
	if (!s || !(y = y_new(b, WM_NODE_SCALAR)))
		return NULL;
	y->text = s;
	y->len = strlen(s);
	return y;
}

struct wm_y *wm_yaml_strf(struct wm_yb *b, const char *fmt, ...)
{
	struct wm_buf buf = WM_BUF_INIT;
	va_list ap;
	char *s;
	va_start(ap, fmt);
	wm_buf_vprintf(&buf, fmt, ap);
	va_end(ap);
	s = buf.oom ? NULL : wm_arena_strndup(b->arena, buf.ptr ? buf.ptr : "", buf.len);
	wm_buf_release(&buf);
	if (!s) {
		b->oom = true;
		return NULL;
	}
	return wm_yaml_str(b, s);
}

struct wm_y *wm_yaml_bool(struct wm_yb *b, bool v)
{
	struct wm_y *y = wm_yaml_str(b, v ? "true" : "false");
	if (y)
		y->typed = true;
	return y;
}

struct wm_y *wm_yaml_literal(struct wm_yb *b, const char *s)
{
	struct wm_y *y = wm_yaml_str(b, s);
	if (y)
		y->style = WM_Y_LITERAL;
	return y;
}

struct wm_y *wm_yaml_map(struct wm_yb *b)
{
	return y_new(b, WM_NODE_MAP);
}

struct wm_y *wm_yaml_seq(struct wm_yb *b)
{
	return y_new(b, WM_NODE_SEQ);
}

static void y_append(struct wm_yb *b, struct wm_y *parent, struct wm_y *child)
{
	if (parent->n == parent->cap) {
		size_t cap = parent->cap ? parent->cap * 2 : 8;
		struct wm_y **items = wm_arena_array(b->arena, cap, sizeof(*items));
		if (!items) {
			b->oom = true;
			return;
		}
		if (parent->n)
			memcpy(items, parent->items, parent->n * sizeof(*items));
		parent->items = items;
		parent->cap = cap;
	}
	parent->items[parent->n++] = child;
}

struct wm_y *wm_yaml_set(struct wm_yb *b, struct wm_y *map, const char *key, struct wm_y *value)
{
	struct wm_y *k;
	if (!map || !value) {
		b->oom = b->oom || !value;
		return NULL;
	}
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (strcmp(map->items[i]->text, key) == 0) {
			map->items[i + 1] = value;
			return value;
		}
	if (!(k = wm_yaml_str(b, wm_arena_strdup(b->arena, key)))) {
		b->oom = true;
		return NULL;
	}
	y_append(b, map, k);
	y_append(b, map, value);
	return value;
}

struct wm_y *wm_yaml_set_before(struct wm_yb *b, struct wm_y *map, const char *before, const char *key,
	struct wm_y *value)
{
	size_t at = SIZE_MAX;
	if (!wm_yaml_set(b, map, key, value))
		return NULL;
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (strcmp(map->items[i]->text, before) == 0) {
			at = i;
			break;
		}
	/* the new pair is last: rotate it into place */
	if (at != SIZE_MAX && at + 2 < map->n && strcmp(map->items[map->n - 2]->text, key) == 0) {
		struct wm_y *k = map->items[map->n - 2], *v = map->items[map->n - 1];
		memmove(&map->items[at + 2], &map->items[at], (map->n - 2 - at) * sizeof(*map->items));
		map->items[at] = k;
		map->items[at + 1] = v;
	}
	return value;
}

struct wm_y *wm_yaml_push(struct wm_yb *b, struct wm_y *seq, struct wm_y *value)
{
	if (!seq || !value) {
		b->oom = b->oom || !value;
		return NULL;
	}
	y_append(b, seq, value);
	return value;
}

struct wm_y *wm_yaml_get(const struct wm_y *map, const char *key)
{
	for (size_t i = 0; map && map->type == WM_NODE_MAP && i + 1 < map->n; i += 2)
		if (strcmp(map->items[i]->text, key) == 0)
			return map->items[i + 1];
	return NULL;
}

struct wm_y *wm_yaml_copy(struct wm_yb *b, const struct wm_node *n)
{
	struct wm_y *y;
	if (n->type == WM_NODE_SCALAR) {
		if ((y = wm_yaml_str(b, n->text)) != NULL) {
			/* a plain true, 3 or null of a skeleton stays what it is; quoted text stays text */
			y->typed = n->style == WM_PLAIN && !n->tag;
			y->style = n->style == WM_BLOCK ? WM_Y_LITERAL : WM_Y_AUTO;
		}
		return y;
	}
	if (!(y = y_new(b, n->type)))
		return NULL;
	y->style = n->flow ? WM_Y_FLOW : WM_Y_AUTO;
	for (size_t i = 0; i < n->n; i++) {
		if (n->type == WM_NODE_SEQ) {
			wm_yaml_push(b, y, wm_yaml_copy(b, n->items[i]));
		} else {
			struct wm_y *k = wm_yaml_str(b, n->pairs[i].key->text);
			struct wm_y *v = wm_yaml_copy(b, n->pairs[i].value);
			if (k && v) {
				y_append(b, y, k);
				y_append(b, y, v);
			}
		}
	}
	return y;
}

static bool ieq(const char *a, size_t len, const char *b)
{
	return strlen(b) == len && strncasecmp(a, b, len) == 0;
}

bool wm_yaml_needs_quotes(const char *s, size_t len)
{
	/* words that YAML 1.1 or 1.2 resolve to null or a boolean, in any case */
	static const char *const words[] = { "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n",
		"<<", "=" };
	const char *p = s, *end = s + len;
	if (len == 0)
		return true;
	for (size_t i = 0; i < WM_ARRAY_SIZE(words); i++)
		if (ieq(s, len, words[i]))
			return true;
	/* dates and timestamps: 2001-12-14, 2001-12-14T21:59:43.10-05:00 */
	if (len >= 5 && isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) &&
			isdigit((unsigned char)s[2]) && isdigit((unsigned char)s[3]) && s[4] == '-')
		return true;
	/* numbers of either version: 012, 0o17, 0x1F, 0b101, 1_000, 1e3, 3.10, 1:20, .5, +.inf, -.NaN */
	if (p < end && (*p == '+' || *p == '-'))
		p++;
	if (p < end && *p == '.' && (ieq(p + 1, (size_t)(end - p - 1), "inf") || ieq(p + 1, (size_t)(end - p - 1), "nan")))
		return true;
	if (p < end && (isdigit((unsigned char)*p) || (*p == '.' && p + 1 < end && isdigit((unsigned char)p[1])))) {
		for (; p < end; p++)
			if (!isxdigit((unsigned char)*p) && !strchr("xXoO_.:+-", *p))
				return false;
		return true;
	}
	return false;
}

bool wm_yaml_comment_ok(const char *s)
{
	size_t len = strlen(s), n;
	unsigned line, column;
	unsigned char byte;
	uint32_t cp;
	return len && wm_utf8_valid(s, len, &line, &column, &byte) && wm_utf8_find_hidden(s, len, &cp, &n) == len;
}

/* The length of the line break at s[0] as libyaml reads one, or 0. */
static size_t line_break(const char *s, size_t avail)
{
	const unsigned char *u = (const unsigned char *)s;
	if (u[0] == '\r')
		return avail > 1 && u[1] == '\n' ? 2 : 1;
	if (u[0] == '\n')
		return 1;
	if (avail > 1 && u[0] == 0xc2 && u[1] == 0x85)
		return 2;
	if (avail > 2 && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
		return 3;
	return 0;
}

size_t wm_yaml_offset(const struct wm_doc *doc, unsigned line, unsigned column)
{
	const char *s = doc->text;
	size_t len = doc->len, i = 0;

	/* libyaml's reader drops a byte-order mark before its first mark */
	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	for (unsigned l = 1; l < line && i < len;) {
		size_t brk = line_break(s + i, len - i);
		if (brk) {
			i += brk;
			l++;
		} else {
			uint32_t cp;
			i += wm_utf8_decode(s + i, len - i, &cp);
		}
	}
	for (unsigned c = 1; c < column && i < len && !line_break(s + i, len - i); c++) {
		uint32_t cp;
		i += wm_utf8_decode(s + i, len - i, &cp);
	}
	return i < len ? i : len;
}

size_t wm_yaml_next_line(const struct wm_doc *doc, size_t offset)
{
	const char *s = doc->text;
	size_t len = doc->len, i = offset;

	while (i < len) {
		size_t brk = line_break(s + i, len - i);
		uint32_t cp;
		if (brk)
			return i + brk;
		i += wm_utf8_decode(s + i, len - i, &cp);
	}
	return len;
}

bool wm_yaml_trailing_comment(const struct wm_doc *doc, const struct wm_node *n, const char **text, size_t *len)
{
	const char *s = doc->text;
	size_t i = wm_yaml_offset(doc, n->end_line, n->end_column), end;

	while (i < doc->len && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
		i++;
	if (i >= doc->len || s[i] != '#')
		return false;
	for (i++; i < doc->len && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	for (end = i; end < doc->len && !line_break(s + end, doc->len - end); end++)
		;
	while (end > i && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	*text = s + i;
	*len = end - i;
	return true;
}

/* Where the emitter writes: `out`, up to just past WM_GENERATED_MAX_BYTES from `start`. */
struct writer {
	struct wm_buf *out;
	size_t start;
	bool over;
};

static int y_write(void *data, unsigned char *buffer, size_t size)
{
	struct writer *w = data;
	wm_buf_add(w->out, (const char *)buffer, size);
	if (w->out->len - w->start > WM_GENERATED_MAX_BYTES)
		w->over = true;
	return !w->out->oom && !w->over;
}

static bool y_event(yaml_emitter_t *e, yaml_event_t *ev)
{
	return yaml_emitter_emit(e, ev) != 0;
}

/*
 * NEL, LINE SEPARATOR or PARAGRAPH SEPARATOR: line breaks to YAML 1.1 readers, and text to 1.2
 * ones, which would read a literal or single-quoted value written with them raw differently.  In
 * double quotes libyaml writes them escaped (\N, \L, \P), which both read alike.
 */
static bool unicode_break(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (((unsigned char)s[i] == 0xc2 && (unsigned char)s[i + 1] == 0x85) ||
		    (i + 2 < len && (unsigned char)s[i] == 0xe2 && (unsigned char)s[i + 1] == 0x80 &&
		     ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)))
			return true;
	return false;
}

/*
 * Trailing comments.  libyaml's emitter writes no comment, and holds events
 * back (a mapping's start waits for three more) so that nothing can be added
 * to its output at the moment a scalar goes out.  So a scalar with a comment
 * is written plain with a mark after its text, `<sentinel><n>~`, and once the
 * document is out each mark is replaced by ` # <comment>`.  The sentinel is
 * chosen so that no text of the tree holds it: a mark can only be ours.
 */
struct marks {
	char sentinel[32];
	const struct wm_y **scalars;    /* the scalars with a comment, in the order written */
	size_t n;
	struct wm_buf text;             /* scratch: a scalar's text with its mark */
};

/*
 * Shared nodes (wm_y.share): a scan in the order of writing counts the equal trees under each
 * marked node's canonical text (its key), not looking inside a tree already seen, which will be
 * an alias.  A name is the anchor of one tree, so that `*name` always stands for one thing: the
 * first tree with that name that is seen twice or more.  Another tree repeated under that name is
 * written in full each time (what is inside it may still be shared): it is marked so, and the
 * scan starts again, now looking inside its copies, until no name is claimed twice.
 */
struct share {
	char *key;
	size_t len;
	const char *name;
	unsigned count;
	char *anchor;
	bool written;
	bool full;              /* written in full each time: its name is another tree's anchor */
};

struct shares {
	struct wm_map map;      /* key -> struct share, for this scan */
	struct share **list;    /* in the order of the scan */
	size_t n, cap;
	struct wm_map full;     /* key -> key: the trees written in full, across scans */
	char **fulls;
	size_t nfull;
	struct wm_buf key;      /* scratch */
	bool oom;
};

/* Appends the canonical text of `y` to `b`: type, style and flags, lengths, texts, comments. */
static void y_key(struct wm_buf *b, const struct wm_y *y)
{
	if (y->type == WM_NODE_SCALAR) {
		wm_buf_printf(b, "S%d%d%zu:", (int)y->style, (int)y->typed, y->len);
		wm_buf_add(b, y->text ? y->text : "", y->len);
		if (y->comment) {
			wm_buf_printf(b, "#%zu:", strlen(y->comment));
			wm_buf_add(b, y->comment, strlen(y->comment));
		}
		return;
	}
	wm_buf_printf(b, "%c%d%zu[", y->type == WM_NODE_SEQ ? 'Q' : 'M', (int)y->style, y->n);
	for (size_t i = 0; i < y->n; i++)
		y_key(b, y->items[i]);
	wm_buf_add(b, "]", 1);
}

/* The entry of marked node `y` (its key left in sh->key), NULL when it has none yet or out of memory (sh->oom). */
static struct share *share_find(struct shares *sh, const struct wm_y *y)
{
	wm_buf_clear(&sh->key);
	y_key(&sh->key, y);
	if (sh->key.oom) {
		sh->oom = true;
		return NULL;
	}
	return wm_map_get(&sh->map, sh->key.ptr, sh->key.len);
}

static struct share *share_add(struct shares *sh, const struct wm_y *y)
{
	struct share *s;
	if (sh->n == sh->cap) {
		size_t cap = sh->cap ? 2 * sh->cap : 16;
		struct share **list = realloc(sh->list, cap * sizeof(*list));
		if (!list)
			return NULL;
		sh->list = list;
		sh->cap = cap;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	if (!(s->key = malloc(sh->key.len))) {
		free(s);
		return NULL;
	}
	memcpy(s->key, sh->key.ptr, sh->key.len);
	s->len = sh->key.len;
	s->name = y->share;
	s->count = 1;
	s->full = wm_map_get(&sh->full, s->key, s->len) != NULL;
	sh->list[sh->n++] = s;
	return wm_map_put(&sh->map, s->key, s->len, s) < 0 ? NULL : s;
}

static void share_scan(struct shares *sh, const struct wm_y *y)
{
	if (!y || sh->oom)
		return;
	if (y->share) {
		struct share *s = share_find(sh, y);
		if (s && !s->full) {
			s->count++;
			return;
		}
		if (!s && !sh->oom && !share_add(sh, y))
			sh->oom = true;
		if (sh->oom)
			return;
	}
	if (y->type != WM_NODE_SCALAR)
		for (size_t i = 0; i < y->n; i++)
			share_scan(sh, y->items[i]);
}

/* Forgets the entries of a scan (not the trees written in full). */
static void share_clear(struct shares *sh)
{
	for (size_t i = 0; i < sh->n; i++) {
		free(sh->list[i]->key);
		free(sh->list[i]->anchor);
		free(sh->list[i]);
	}
	sh->n = 0;
	wm_map_release(&sh->map);
	wm_map_init(&sh->map);
}

/*
 * Gives each name to the first tree repeated under it as its anchor; true when another tree
 * repeated under a name already given was marked to be written in full (the scan must start again).
 */
static bool share_name(struct shares *sh)
{
	struct wm_map names;
	bool again = false;
	wm_map_init(&names);
	for (size_t i = 0; i < sh->n && !sh->oom; i++) {
		struct share *s = sh->list[i];
		char **fulls;
		if (s->full || s->count < 2)
			continue;
		if (!wm_map_get(&names, s->name, strlen(s->name))) {
			if (!(s->anchor = strdup(s->name)) || wm_map_put(&names, s->name, strlen(s->name), s) < 0)
				sh->oom = true;
			continue;
		}
		if (!(fulls = realloc(sh->fulls, (sh->nfull + 1) * sizeof(*fulls)))) {
			sh->oom = true;
			break;
		}
		sh->fulls = fulls;
		if (!(fulls[sh->nfull] = malloc(s->len))) {
			sh->oom = true;
			break;
		}
		memcpy(fulls[sh->nfull], s->key, s->len);
		if (wm_map_put(&sh->full, fulls[sh->nfull], s->len, fulls[sh->nfull]) < 0)
			sh->oom = true;
		sh->nfull++;
		again = true;
	}
	wm_map_release(&names);
	return again;
}

/* Scans `root` until every repeated name stands for one tree. */
static void share_plan(struct shares *sh, const struct wm_y *root)
{
	wm_map_init(&sh->map);
	wm_map_init(&sh->full);
	do {
		share_clear(sh);
		share_scan(sh, root);
	} while (!sh->oom && share_name(sh));
}

static void share_release(struct shares *sh)
{
	share_clear(sh);
	free(sh->list);
	wm_map_release(&sh->map);
	for (size_t i = 0; i < sh->nfull; i++)
		free(sh->fulls[i]);
	free(sh->fulls);
	wm_map_release(&sh->full);
	wm_buf_release(&sh->key);
}

static bool y_emit_node(yaml_emitter_t *e, const struct wm_y *y, struct marks *mk, struct shares *sh)
{
	yaml_event_t ev;
	yaml_char_t *anchor = NULL;
	if (y->share) {
		struct share *s = share_find(sh, y);
		if (!s)
			return false;
		if (s->anchor && s->written)
			return yaml_alias_event_initialize(&ev, (yaml_char_t *)s->anchor) && y_event(e, &ev);
		if (s->anchor) {
			anchor = (yaml_char_t *)s->anchor;
			s->written = true;
		}
	}
	if (y->type == WM_NODE_SCALAR) {
		yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
		const char *text = y->text;
		size_t len = y->len;
		if (unicode_break(y->text, y->len))
			style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		else if (y->style == WM_Y_LITERAL || memchr(y->text, '\n', y->len))
			style = YAML_LITERAL_SCALAR_STYLE;
		else if (!y->typed && wm_yaml_needs_quotes(y->text, y->len))
			style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		if (y->comment && style == YAML_PLAIN_SCALAR_STYLE && mk->scalars) {
			wm_buf_clear(&mk->text);
			wm_buf_add(&mk->text, y->text, y->len);
			wm_buf_printf(&mk->text, "%s%zu~", mk->sentinel, mk->n);
			if (mk->text.oom)
				return false;
			mk->scalars[mk->n++] = y;
			text = mk->text.ptr;
			len = mk->text.len;
		}
		if (!yaml_scalar_event_initialize(&ev, anchor, NULL, (yaml_char_t *)text, (int)len, 1, 1, style))
			return false;
		return y_event(e, &ev);
	}
	if (y->type == WM_NODE_SEQ) {
		if (!yaml_sequence_start_event_initialize(&ev, anchor, NULL, 1,
				y->style == WM_Y_FLOW ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE) || !y_event(e, &ev))
			return false;
		for (size_t i = 0; i < y->n; i++)
			if (!y_emit_node(e, y->items[i], mk, sh))
				return false;
		return yaml_sequence_end_event_initialize(&ev) && y_event(e, &ev);
	}
	if (!yaml_mapping_start_event_initialize(&ev, anchor, NULL, 1,
			y->style == WM_Y_FLOW ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE) || !y_event(e, &ev))
		return false;
	for (size_t i = 0; i < y->n; i++)
		if (!y_emit_node(e, y->items[i], mk, sh))
			return false;
	return yaml_mapping_end_event_initialize(&ev) && y_event(e, &ev);
}

/* Whether `s` occurs in any text of the tree (keys and scalars); counts the scalars with a comment into *n. */
static bool y_holds(const struct wm_y *y, const char *s, size_t *n)
{
	if (y->type == WM_NODE_SCALAR) {
		*n += y->comment != NULL;
		return y->text && strstr(y->text, s);
	}
	for (size_t i = 0; i < y->n; i++)
		if (y_holds(y->items[i], s, n))
			return true;
	return false;
}

/*
 * Picks the sentinel and counts the comments into mk->n: true when there are
 * some and their list is allocated (false with mk->n set: out of memory).
 */
static bool marks_init(struct marks *mk, const struct wm_y *root)
{
	for (unsigned salt = 0;; salt++) {
		size_t n = 0;
		snprintf(mk->sentinel, sizeof(mk->sentinel), "~wm-comment-%u-", salt);
		if (!y_holds(root, mk->sentinel, &n)) {
			mk->n = n;
			return n > 0 && (mk->scalars = calloc(n, sizeof(*mk->scalars))) != NULL;
		}
	}
}

/* Replaces each mark of out[start..] by its comment; WM_ENOMEM, or WM_EINTERNAL for a mark not found once. */
static int marks_apply(struct marks *mk, struct wm_buf *out, size_t start)
{
	struct wm_buf b = WM_BUF_INIT;
	size_t at = start, found = 0;
	int ret = 0;

	wm_buf_add(&b, out->ptr, start);
	while (at < out->len) {
		char *m = strstr(out->ptr + at, mk->sentinel);
		char *end;
		unsigned long i;
		if (!m) {
			wm_buf_add(&b, out->ptr + at, out->len - at);
			break;
		}
		i = strtoul(m + strlen(mk->sentinel), &end, 10);
		if (*end != '~' || i != found || i >= mk->n) {
			ret = WM_EINTERNAL;
			break;
		}
		wm_buf_add(&b, out->ptr + at, (size_t)(m - (out->ptr + at)));
		wm_buf_printf(&b, " # %s", mk->scalars[i]->comment);
		at = (size_t)(end + 1 - out->ptr);
		found++;
	}
	if (ret == 0 && found != mk->n)
		ret = WM_EINTERNAL;
	if (ret == 0 && b.oom)
		ret = WM_ENOMEM;
	if (ret == 0) {
		wm_buf_clear(out);
		wm_buf_add(out, b.ptr, b.len);
		wm_buf_release(&b);
	} else {
		wm_buf_release(&b);
	}
	return ret;
}

int wm_yaml_emit(struct wm_buf *out, const struct wm_y *root, struct wm_error *err)
{
	struct writer w = { out, out->len, false };
	yaml_emitter_t e;
	yaml_event_t ev;
	struct marks mk = { .text = WM_BUF_INIT };
	struct shares sh = { .key = WM_BUF_INIT };
	int ret = 0;
	bool ok;

	if (!marks_init(&mk, root) && mk.n) {
		wm_error_nopos(err, WM_ENOMEM, WM_SEV_ERROR, NULL, "out of memory");
		return WM_ENOMEM;
	}
	mk.n = 0;
	share_plan(&sh, root);
	if (sh.oom || !yaml_emitter_initialize(&e)) {
		free(mk.scalars);
		share_release(&sh);
		wm_error_nopos(err, WM_ENOMEM, WM_SEV_ERROR, NULL, "out of memory");
		return WM_ENOMEM;
	}
	yaml_emitter_set_output(&e, y_write, &w);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	yaml_emitter_set_indent(&e, 2);
	yaml_emitter_set_break(&e, YAML_LN_BREAK);
	ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && y_event(&e, &ev) &&
		yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && y_event(&e, &ev) &&
		y_emit_node(&e, root, &mk, &sh) &&
		yaml_document_end_event_initialize(&ev, 1) && y_event(&e, &ev) &&
		yaml_stream_end_event_initialize(&ev) && y_event(&e, &ev) &&
		yaml_emitter_flush(&e);
	if (!ok && w.over) {
		wm_error_code(err, WM_EINVALID);
		ret = WM_EINVALID;
	} else if (!ok) {
		ret = out->oom || mk.text.oom || sh.oom ? WM_ENOMEM : WM_EINTERNAL;
		wm_error_nopos(err, ret, WM_SEV_ERROR, NULL, "cannot write YAML: %s",
			e.problem ? e.problem : "out of memory");
	} else if (mk.n && (ret = marks_apply(&mk, out, w.start)) < 0) {
		wm_error_nopos(err, ret, WM_SEV_ERROR, NULL, ret == WM_ENOMEM ? "out of memory" :
			"cannot write YAML: a comment's mark was not written once");
	}
	yaml_emitter_delete(&e);
	wm_buf_release(&mk.text);
	free(mk.scalars);
	share_release(&sh);
	return ret;
}
