/* yaml.c — the one module that uses libyaml: parses a document into our position-keeping tree. */
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "internal.h"

#define TAG_PREFIX "tag:yaml.org,2002:"

/* A collection being built: its node and the children seen so far. */
struct frame {
	struct wm_node *node;
	const char *anchor;
	struct wm_node **items;
	size_t n, cap;
};

struct builder {
	struct wm_doc *doc;
	struct wm_error *err;
	const struct wm_yaml_limits *limits;
	struct frame *stack;
	size_t depth, cap;
	struct wm_map anchors;
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
	wm_error_add(b->err, WM_ENOMEM, WM_SEV_ERROR, b->doc->file, NULL, 0, 0, 0, 0, "out of memory");
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
			"aliases expand this document past %llu nodes (an alias bomb?)",
			(unsigned long long)b->limits->max_nodes);
	}
}

static void remember_anchor(struct builder *b, const char *anchor, struct wm_node *n)
{
	if (anchor && wm_map_put(&b->anchors, anchor, strlen(anchor), n) < 0)
		report_oom(b);
}

static const char *copy_anchor(struct builder *b, const yaml_char_t *anchor)
{
	return anchor ? wm_arena_strdup(&b->doc->arena, (const char *)anchor) : NULL;
}

static void on_scalar(struct builder *b, const yaml_event_t *ev)
{
	struct wm_node *n = new_node(b, WM_NODE_SCALAR, ev);
	const char *value = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
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
	n->text = wm_arena_strndup(&b->doc->arena, value, len);
	n->len = len;
	if (!n->text) {
		report_oom(b);
		return;
	}
	remember_anchor(b, copy_anchor(b, ev->data.scalar.anchor), n);
	add_child(b, n, ev);
}

static void on_alias(struct builder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct wm_node *target = wm_map_get(&b->anchors, name, strlen(name));
	if (!target) {
		report(b, (unsigned)ev->start_mark.line + 1, (unsigned)ev->start_mark.column + 1,
			(unsigned)(ev->end_mark.column - ev->start_mark.column),
			"unknown anchor '%s' (an alias must follow its anchor, outside it)", name);
		return;
	}
	add_child(b, target, ev);
}

static void on_start(struct builder *b, const yaml_event_t *ev, enum wm_node_type type)
{
	struct wm_node *n = new_node(b, type, ev);
	struct frame *f;
	const yaml_char_t *tag = type == WM_NODE_MAP ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
	const yaml_char_t *anchor = type == WM_NODE_MAP ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
	if (!n)
		return;
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
			report(b, k->line, k->column, 1, "a mapping key must be a string, not %s", wm_node_kind(k));
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
			memcpy(f.node->items, f.items, f.n * sizeof(*f.items));
			f.node->n = f.n;
		} else {
			report_oom(b);
		}
	}
	free(f.items);
	if (b->failed)
		return;
	remember_anchor(b, f.anchor, f.node);
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
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, file, NULL, 0, 0, 0, 0,
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
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, file, NULL, 0, 0, 0, 0,
			"the file is UTF-16: save it as UTF-8");
		return WM_EINVALID;
	}
	if (!wm_utf8_valid(text, len, &line, &column, &byte)) {
		report(&b, line, column, 1, "invalid UTF-8 (byte 0x%02x): the file must be UTF-8", byte);
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

void wm_doc_release(struct wm_doc *doc)
{
	wm_arena_release(&doc->arena);
	memset(doc, 0, sizeof(*doc));
}
