/* toml-decode.c — the toml-test decoder: TOML on stdin, the suite's tagged JSON on stdout, or the error and exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "util/buf.h"
#include "formats/toml.h"

static json_t *value_json(const struct wm_toml_value *v);

static json_t *tagged(const char *type, const char *value, size_t len)
{
	return json_pack("{s:s, s:s%}", "type", type, "value", value, len);
}

static json_t *table_json(const struct wm_toml_table *t)
{
	json_t *obj = json_object();
	for (size_t i = 0; obj && i < t->n; i++) {
		json_t *v = value_json(t->entries[i].value);
		if (!v || json_object_setn_new(obj, t->entries[i].key, t->entries[i].len, v) < 0) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

static json_t *array_json(const struct wm_toml_array *a)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < a->n; i++) {
		json_t *v = value_json(a->items[i]);
		if (!v || json_array_append_new(arr, v) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* The suite spells floats as numbers, inf, -inf or nan (without a sign), without underscores. */
static json_t *float_json(const char *raw)
{
	char *buf = malloc(strlen(raw) + 1);
	size_t n = 0;
	const char *s = raw;
	json_t *j;
	if (!buf)
		return NULL;
	if (!strcmp(s + (*s == '+' || *s == '-'), "nan"))
		s = "nan";
	else if (*s == '+')
		s++;
	for (; *s; s++)
		if (*s != '_')
			buf[n++] = *s;
	j = tagged("float", buf, n);
	free(buf);
	return j;
}

/* Date-times as RFC 3339 spells them: 'T' between date and time, 'Z' upper case. */
static json_t *datetime_json(const char *type, const char *raw)
{
	size_t n = strlen(raw);
	char *buf = malloc(n + 1);
	json_t *j;
	if (!buf)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = raw[i];
		buf[i] = c == ' ' || c == 't' ? 'T' : c == 'z' ? 'Z' : c;
	}
	j = tagged(type, buf, n);
	free(buf);
	return j;
}

static json_t *value_json(const struct wm_toml_value *v)
{
	char buf[32];
	switch (v->type) {
	case WM_TOML_STRING:
		return tagged("string", v->str, v->len);
	case WM_TOML_INTEGER:
		snprintf(buf, sizeof(buf), "%lld", (long long)v->integer);
		return tagged("integer", buf, strlen(buf));
	case WM_TOML_FLOAT:
		return float_json(v->raw);
	case WM_TOML_BOOL:
		return tagged("bool", v->boolean ? "true" : "false", v->boolean ? 4 : 5);
	case WM_TOML_DATETIME:
		return datetime_json("datetime", v->raw);
	case WM_TOML_DATETIME_LOCAL:
		return datetime_json("datetime-local", v->raw);
	case WM_TOML_DATE_LOCAL:
		return datetime_json("date-local", v->raw);
	case WM_TOML_TIME_LOCAL:
		return datetime_json("time-local", v->raw);
	case WM_TOML_ARRAY:
		return array_json(&v->array);
	case WM_TOML_TABLE:
		return table_json(v->table);
	}
	return NULL;
}

/* All of `f`; NULL on a read error or past twice the parser's limit (below that, the parser reports the size). */
static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 64 * 1024, n = 0, r;
	char *data = malloc(cap);
	while (data && (r = fread(data + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *bigger = cap > WM_TOML_MAX_BYTES ? NULL : realloc(data, cap * 2);
			if (!bigger) {
				free(data);
				return NULL;
			}
			data = bigger;
			cap *= 2;
		}
	}
	if (data && ferror(f)) {
		free(data);
		return NULL;
	}
	*len = n;
	return data;
}

/* Parses `text`: the tagged JSON in *out, or the diagnostics as "<stdin>:L:C: error: ..." lines in `errors`. */
static int decode(const char *text, size_t len, json_t **out, struct wm_buf *errors)
{
	struct wm_toml_doc doc;
	struct wm_error err;
	int ret;

	wm_error_init(&err);
	*out = NULL;
	ret = wm_toml_parse(&doc, "<stdin>", text, len, &err);
	for (size_t i = 0; ret < 0 && i < err.ndiags; i++) {
		const struct wm_diag *d = &err.diags[i];
		wm_buf_printf(errors, "%s:%u:%u: error: %s\n", d->file ? d->file : "<stdin>", d->line, d->column,
			d->message ? d->message : "out of memory");
		if (d->source)
			wm_buf_printf(errors, "%5u | %s\n", d->line, d->source);
	}
	if (ret == 0 && !(*out = table_json(doc.root))) {
		wm_buf_puts(errors, "toml-decode: out of memory\n");
		ret = WM_ENOMEM;
	}
	wm_toml_release(&doc);
	wm_error_release(&err);
	return ret;
}

/*
 * With files as arguments, the batch mode of tests/t-toml-test.sh: one JSON
 * line per file, {"file", "exit", "output"} for a decoded one, {"file",
 * "exit", "stderr"} for a rejected one; what one process per file would give.
 */
static int batch(char **files, int n)
{
	int status = 0;
	for (int i = 0; i < n; i++) {
		struct wm_buf errors = WM_BUF_INIT;
		json_t *json = NULL, *line;
		size_t len = 0;
		FILE *f = fopen(files[i], "rb");
		char *text = f ? read_all(f, &len) : NULL;

		if (text)
			decode(text, len, &json, &errors);
		else
			wm_buf_printf(&errors, "toml-decode: cannot read %s\n", files[i]);
		line = json ? json_pack("{s:s, s:i, s:o}", "file", files[i], "exit", 0, "output", json) :
			json_pack("{s:s, s:i, s:s}", "file", files[i], "exit", 1, "stderr", errors.ptr ? errors.ptr : "");
		if (!line || json_dumpf(line, stdout, JSON_COMPACT) < 0 || fputc('\n', stdout) == EOF)
			status = 2;
		json_decref(line);
		wm_buf_release(&errors);
		free(text);
		if (f)
			fclose(f);
	}
	if (fflush(stdout) == EOF)
		status = 2;
	return status;
}

int main(int argc, char **argv)
{
	struct wm_buf errors = WM_BUF_INIT;
	json_t *json = NULL;
	size_t len = 0;
	char *text;
	int status = 1;

	if (argc > 1)
		return batch(argv + 1, argc - 1);
	if (!(text = read_all(stdin, &len))) {
		fprintf(stderr, "toml-decode: cannot read the standard input\n");
		return 1;
	}
	if (decode(text, len, &json, &errors) < 0)
		fputs(errors.ptr ? errors.ptr : "toml-decode: error\n", stderr);
	else if (json_dumpf(json, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF || fflush(stdout) == EOF)
		fprintf(stderr, "toml-decode: cannot write the JSON\n");
	else
		status = 0;
	json_decref(json);
	wm_buf_release(&errors);
	free(text);
	return status;
}
