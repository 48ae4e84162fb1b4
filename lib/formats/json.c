/* json.c — the thin wrapper over Jansson (its only user): JSON values built, read, parsed and written. */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "util/buf.h"
#include "util/utf8.h"
#include "formats/json.h"

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

static int parse(struct wm_json **out, const char *text, size_t len, size_t flags, struct wm_json_error *e)
{
	json_error_t jerr;
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES | flags, &jerr);

	*out = W(v);
	memset(e, 0, sizeof(*e));
	if (v)
		return 0;
	if (json_error_code(&jerr) == json_error_out_of_memory)
		return WM_ENOMEM;
	e->line = jerr.line;
	e->column = jerr.column;
	memcpy(e->text, jerr.text, sizeof(e->text) < sizeof(jerr.text) ? sizeof(e->text) - 1 : sizeof(jerr.text));
	e->text[sizeof(e->text) - 1] = '\0';
	return WM_EINVALID;
}

int wm_json_parse(struct wm_json **out, const char *text, size_t len, struct wm_json_error *e)
{
	return parse(out, text, len, 0, e);
}

int wm_json_parse_value(struct wm_json **out, const char *text, size_t len, struct wm_json_error *e)
{
	return parse(out, text, len, JSON_DECODE_ANY, e);
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
