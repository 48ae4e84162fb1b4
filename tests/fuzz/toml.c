/* toml.c — libFuzzer target: the TOML reader (toml.c) and the TOML string writer the patcher uses. */
#include "fuzz.h"
#include "util/buf.h"
#include "util/utf8.h"
#include "formats/toml.h"

/*
 * Input: any bytes, read as pyproject.toml.
 *
 * Properties:
 *   1. no crash, leak or undefined behaviour; the result is 0 or WM_EINVALID;
 *   2. a refused document has at least one error, and every positioned
 *      diagnostic lies inside the input;
 *   3. an accepted document is consistent with its text: every span lies in
 *      the input, its line and column are those of its first byte (columns
 *      in characters); a string value's span starts with the quotes its
 *      style says; an integer, float, boolean or date-time's `raw` is the
 *      text of its span; every key and string is valid UTF-8;
 *   4. lookups agree with the tree: wm_toml_table_get finds each entry of a
 *      table (keys without NUL) as that very value;
 *   5. every string value written back with wm_toml_put_string (what the
 *      patcher inserts) parses again, as `k = ...`, to the same bytes.
 */

static const char *input;
static size_t input_len;

/* Line and column (characters) of byte `off` of the input. */
static void position(size_t off, unsigned *line, unsigned *column)
{
	size_t start = 0;
	*line = 1;
	for (size_t i = 0; i < off; i++)
		if (input[i] == '\n') {
			(*line)++;
			start = i + 1;
		}
	*column = 1 + (unsigned)wm_utf8_len(input + start, off - start);
}

static void check_span(const char *what, const struct wm_toml_span *sp)
{
	unsigned line, column;
	if (sp->start == 0 && sp->end == 0 && sp->line == 0)
		return;  /* not written: an array of tables has no brackets */
	FUZZ_CHECK(sp->start <= sp->end && sp->end <= input_len, "%s: span [%zu, %zu) of %zu bytes", what,
		(size_t)sp->start, (size_t)sp->end, input_len);
	position(sp->start, &line, &column);
	FUZZ_CHECK(sp->line == line && sp->column == column, "%s at byte %zu says %u:%u, the text %u:%u", what,
		(size_t)sp->start, sp->line, sp->column, line, column);
}

static void check_utf8(const char *what, const char *s, size_t len)
{
	unsigned line, column;
	unsigned char byte;
	FUZZ_CHECK(wm_utf8_valid(s, len, &line, &column, &byte), "%s is not UTF-8 (byte 0x%02x)", what, byte);
}

/* A string written with wm_toml_put_string reads back as the same bytes. */
static void check_string_round_trip(const char *s, size_t len)
{
	struct wm_buf b = WM_BUF_INIT;
	struct wm_toml_doc doc;
	struct wm_error err;
	const struct wm_toml_value *v;

	wm_error_init(&err);
	wm_buf_puts(&b, "k = ");
	wm_toml_put_string(&b, s, len, WM_TOML_BASIC);
	wm_buf_putc(&b, '\n');
	FUZZ_CHECK(!b.oom, "out of memory");
	if (wm_toml_parse(&doc, "k.toml", b.ptr, b.len, &err) < 0) {
		fuzz_print_errors(&err);
		FUZZ_CHECK(0, "the written string does not parse: %s", b.ptr);
	}
	v = wm_toml_table_get(doc.root, "k");
	FUZZ_CHECK(v && v->type == WM_TOML_STRING && v->len == len && memcmp(v->str, s, len) == 0,
		"the written string reads back differently: %s", b.ptr);
	wm_toml_release(&doc);
	wm_error_release(&err);
	wm_buf_release(&b);
}

static void check_value(const struct wm_toml_value *v);

static void check_table(const struct wm_toml_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct wm_toml_entry *e = &t->entries[i];
		check_utf8("a key", e->key, e->len);
		FUZZ_CHECK(e->value != NULL, "entry '%s' has no value", e->key);
		if (strlen(e->key) == e->len)
			FUZZ_CHECK(wm_toml_table_get(t, e->key) == e->value, "lookup of '%s' finds another value", e->key);
		check_value(e->value);
	}
	for (size_t i = 0; i < t->nkvs; i++) {
		const struct wm_toml_kv *kv = &t->kvs[i];
		check_span("a key/value's key", &kv->key);
		check_span("a key/value line", &kv->line);
		for (size_t k = 0; k < kv->nparts; k++) {
			check_span("a key part", &kv->parts[k].span);
			check_utf8("a key part", kv->parts[k].name, kv->parts[k].len);
		}
	}
	check_span("a table header", &t->header);
	FUZZ_CHECK(t->append == SIZE_MAX || t->append <= input_len, "append offset %zu of %zu bytes", t->append,
		input_len);
}

static void check_value(const struct wm_toml_value *v)
{
	check_span(wm_toml_type_name(v->type), &v->span);
	switch (v->type) {
	case WM_TOML_STRING: {
		static const char *const quotes[] = { "", "\"", "'", "\"\"\"", "'''" };
		const char *q = quotes[v->style];
		check_utf8("a string", v->str, v->len);
		FUZZ_CHECK(v->style != WM_TOML_BARE && v->span.end - v->span.start >= 2 * strlen(q) &&
			strncmp(input + v->span.start, q, strlen(q)) == 0, "a string's span does not start with %s", q);
		FUZZ_CHECK(v->str[v->len] == '\0', "a string is not NUL-terminated");
		check_string_round_trip(v->str, v->len);
		break;
	}
	case WM_TOML_INTEGER:
	case WM_TOML_FLOAT:
	case WM_TOML_BOOL:
	case WM_TOML_DATETIME:
	case WM_TOML_DATETIME_LOCAL:
	case WM_TOML_DATE_LOCAL:
	case WM_TOML_TIME_LOCAL:
		FUZZ_CHECK(v->raw && strlen(v->raw) == v->span.end - v->span.start &&
			memcmp(v->raw, input + v->span.start, strlen(v->raw)) == 0, "raw '%s' is not the text of its span",
			v->raw ? v->raw : "(null)");
		if (v->type == WM_TOML_BOOL)
			FUZZ_CHECK(strcmp(v->raw, v->boolean ? "true" : "false") == 0, "boolean %s", v->raw);
		break;
	case WM_TOML_ARRAY:
		for (size_t i = 0; i < v->array.n; i++)
			check_value(v->array.items[i]);
		if (!v->array.aot) {
			check_span("an array's [", &v->array.open);
			check_span("an array's ]", &v->array.close);
		}
		break;
	case WM_TOML_TABLE:
		FUZZ_CHECK(v->table != NULL, "a table value has no table");
		check_table(v->table);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wm_toml_doc doc;
	struct wm_error err;
	int ret;

	input = (const char *)data;
	input_len = size;
	wm_error_init(&err);
	ret = wm_toml_parse(&doc, "pyproject.toml", input, size, &err);
	FUZZ_CHECK(ret == 0 || ret == WM_EINVALID, "wm_toml_parse returned %d", ret);
	if (ret < 0) {
		FUZZ_CHECK(err.nerrors >= 1 && err.code == WM_EINVALID, "refused with %zu errors, code %d", err.nerrors,
			(int)err.code);
		fuzz_check_positions(&err, "pyproject.toml", input, size);
	} else {
		FUZZ_CHECK(err.nerrors == 0, "accepted with %zu errors", err.nerrors);
		FUZZ_CHECK(doc.root && doc.len == size && memcmp(doc.text, input, size) == 0, "the text is not kept");
		check_table(doc.root);
		for (size_t i = 0; i < doc.ncomments; i++) {
			check_span("a comment", &doc.comments[i]);
			FUZZ_CHECK(input[doc.comments[i].start] == '#', "a comment does not start with #");
		}
	}
	wm_toml_release(&doc);
	wm_error_release(&err);
	return 0;
}
