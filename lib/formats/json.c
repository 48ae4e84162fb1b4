/* json.c — the thin wrapper over Jansson (its only user): JSON values built, read, parsed and written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "util/buf.h"
#include "util/utf8.h"
#include "formats/json.h"

/*
 * What Jansson (2.14) allocates to read a text, from above: its blocks
 * summed, each with 16 bytes for malloc's keeping, as measured value by
 * value (an empty object 232 bytes, an array 136, a slot of an array 21, a
 * string value 88 plus its length, a key 134 plus twice its length, a number
 * 40), with a margin; and the lexer's buffer, doubled up to the longest
 * token.  One pass over the text, stopped as soon as the cost passes
 * `limit`.  A 32 MiB page of `[{},{},...]` is ten million objects, which
 * Jansson's tree makes 70 times that size: refused before Jansson allocates
 * any of it (a budget enforced by failing its allocations would make it
 * abort: its lexer asserts after a failed one).
 */
size_t wm_json_cost(const char *s, size_t len, size_t limit)
{
	size_t cost = 4096, longest = 0, i = 0;

	while (i < len && cost + 2 * longest <= limit) {
		unsigned char c = (unsigned char)s[i];
		size_t start = i, j;
		if (c == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			i = i < len ? i + 1 : len;
			for (j = i; j < len && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r'); j++)
				;
			/* a key, copied into its pair, or a value in an array's slot */
			cost += j < len && s[j] == ':' ? 144 + 2 * (i - start) : 96 + (i - start);
		} else if (c == '{') {
			cost += 256 + 24;
			i++;
		} else if (c == '[') {
			cost += 160 + 24;
			i++;
		} else if ((c >= '0' && c <= '9') || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
			/* a number (an object of its own) or a literal (true, false, null: Jansson's own) */
			while (i < len && (((unsigned char)s[i] >= '0' && (unsigned char)s[i] <= '9') || s[i] == '-' ||
					s[i] == '+' || s[i] == '.' || ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')))
				i++;
			cost += 72;
		} else {
			i++;
		}
		if (i - start > longest)
			longest = i - start;
	}
	return cost + 2 * longest;
}

/*
 * Jansson's allocations go through this one while a parse is on, which tells
 * a refusal of the system's (`oom`) from malformed JSON, which Jansson's own
 * error cannot do (a failed allocation reads as a syntax error at line -1).
 * Blocks are plain malloc's and go back to plain free.
 */
static bool json_oom;

static void *parse_malloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		json_oom = true;
	return p;
}

/* struct wm_json is never defined: a pointer to one is a json_t. */
#define J(v) ((json_t *)(v))
#define W(v) ((struct wm_json *)(v))

/* Objects keep their keys in insertion order; a bare string or number may be written too. */
static size_t dump_flags(unsigned flags)
{
	size_t f = JSON_PRESERVE_ORDER | JSON_ENCODE_ANY;
	if (flags & WM_JSON_COMPACT)
		f |= JSON_COMPACT;
	if (flags & WM_JSON_INDENT)
		f |= JSON_INDENT(2);
	if (flags & WM_JSON_ASCII)
		f |= JSON_ENSURE_ASCII;
	return f;
}

struct wm_json *wm_json_null(void)
{
	return W(json_null());
}

struct wm_json *wm_json_bool(bool b)
{
	return W(json_boolean(b));
}

struct wm_json *wm_json_int(int64_t v)
{
	return W(json_integer((json_int_t)v));
}

struct wm_json *wm_json_string(const char *s)
{
	struct wm_buf b = WM_BUF_INIT;
	json_t *v;
	if (!s)
		return W(json_null());
	if ((v = json_string(s)) != NULL)
		return W(v);
	/* not UTF-8: each bad byte becomes U+FFFD */
	wm_utf8_sanitize(&b, s, strlen(s));
	v = b.oom ? NULL : json_string(b.ptr ? b.ptr : "");
	wm_buf_release(&b);
	return W(v);
}

struct wm_json *wm_json_string_trusted(const char *s, size_t len)
{
	return W(json_stringn_nocheck(s, len));
}

struct wm_json *wm_json_array(void)
{
	return W(json_array());
}

struct wm_json *wm_json_object(void)
{
	return W(json_object());
}

void wm_json_free(struct wm_json *v)
{
	json_decref(J(v));
}

int wm_json_push(struct wm_json *array, struct wm_json *v)
{
	if (!v)
		return WM_ENOMEM;
	return json_array_append_new(J(array), J(v)) < 0 ? WM_ENOMEM : 0;
}

int wm_json_set(struct wm_json *object, const char *key, struct wm_json *v)
{
	if (!v)
		return WM_ENOMEM;
	return json_object_set_new(J(object), key, J(v)) < 0 ? WM_ENOMEM : 0;
}

int wm_json_string_set(struct wm_json *v, const char *s, size_t len)
{
	return json_string_setn_nocheck(J(v), s, len) < 0 ? WM_ENOMEM : 0;
}

bool wm_json_is_null(const struct wm_json *v)
{
	return v && json_is_null(J(v));
}

bool wm_json_is_bool(const struct wm_json *v)
{
	return v && json_is_boolean(J(v));
}

bool wm_json_is_true(const struct wm_json *v)
{
	return v && json_is_true(J(v));
}

bool wm_json_is_int(const struct wm_json *v)
{
	return v && json_is_integer(J(v));
}

bool wm_json_is_string(const struct wm_json *v)
{
	return v && json_is_string(J(v));
}

bool wm_json_is_array(const struct wm_json *v)
{
	return v && json_is_array(J(v));
}

bool wm_json_is_object(const struct wm_json *v)
{
	return v && json_is_object(J(v));
}

int64_t wm_json_int_value(const struct wm_json *v)
{
	return v ? (int64_t)json_integer_value(J(v)) : 0;
}

bool wm_json_number(const struct wm_json *v, double *out)
{
	if (!v || !json_is_number(J(v)))
		return false;
	*out = json_number_value(J(v));
	return true;
}

const char *wm_json_str(const struct wm_json *v)
{
	return v ? json_string_value(J(v)) : NULL;
}

size_t wm_json_size(const struct wm_json *v)
{
	if (!v)
		return 0;
	if (json_is_array(J(v)))
		return json_array_size(J(v));
	return json_object_size(J(v));
}

struct wm_json *wm_json_at(const struct wm_json *array, size_t i)
{
	return array ? W(json_array_get(J(array), i)) : NULL;
}

struct wm_json *wm_json_get(const struct wm_json *object, const char *key)
{
	return object ? W(json_object_get(J(object), key)) : NULL;
}

const char *wm_json_key_at(const struct wm_json *object, size_t i, struct wm_json **value)
{
	void *it = object && json_is_object(J(object)) ? json_object_iter(J(object)) : NULL;
	for (; it && i > 0; i--)
		it = json_object_iter_next(J(object), it);
	*value = it ? W(json_object_iter_value(it)) : NULL;
	return it ? json_object_iter_key(it) : NULL;
}

static int parse(struct wm_json **out, const char *text, size_t len, size_t limit, size_t flags,
	struct wm_json_error *e)
{
	json_error_t jerr;
	json_t *v;

	memset(e, 0, sizeof(*e));
	*out = NULL;
	if (wm_json_cost(text, len, limit) > limit) {
		e->budget = limit;
		if (limit == WM_JSON_PARSE_LIMIT(len))
			snprintf(e->text, sizeof(e->text), "reading it would take more than %zu MiB (%u times its size and "
				"%u MiB)", limit >> 20, WM_JSON_PARSE_FACTOR, WM_JSON_PARSE_SLACK >> 20);
		else
			snprintf(e->text, sizeof(e->text), "reading it would take more than %zu bytes", limit);
		return WM_EINVALID;
	}
	json_set_alloc_funcs(parse_malloc, free);
	json_oom = false;
	v = json_loadb(text, len, JSON_REJECT_DUPLICATES | flags, &jerr);
	*out = W(v);
	if (v)
		return 0;
	if (json_oom || json_error_code(&jerr) == json_error_out_of_memory)
		return WM_ENOMEM;
	e->line = jerr.line;
	e->column = jerr.column;
	memcpy(e->text, jerr.text, sizeof(e->text) < sizeof(jerr.text) ? sizeof(e->text) - 1 : sizeof(jerr.text));
	e->text[sizeof(e->text) - 1] = '\0';
	return WM_EINVALID;
}

int wm_json_parse(struct wm_json **out, const char *text, size_t len, struct wm_json_error *e)
{
	return parse(out, text, len, WM_JSON_PARSE_LIMIT(len), 0, e);
}

int wm_json_parse_within(struct wm_json **out, const char *text, size_t len, size_t limit, struct wm_json_error *e)
{
	return parse(out, text, len, limit, 0, e);
}

int wm_json_parse_value(struct wm_json **out, const char *text, size_t len, struct wm_json_error *e)
{
	return parse(out, text, len, WM_JSON_PARSE_LIMIT(len), JSON_DECODE_ANY, e);
}

size_t wm_json_write(const struct wm_json *v, char *buf, size_t size, unsigned flags)
{
	return json_dumpb(J(v), buf, size, dump_flags(flags));
}

int wm_json_append(struct wm_buf *out, const struct wm_json *v, unsigned flags)
{
	char *text = json_dumps(J(v), dump_flags(flags));
	if (!text)
		return WM_ENOMEM;
	wm_buf_puts(out, text);
	free(text);
	return out->oom ? WM_ENOMEM : 0;
}
