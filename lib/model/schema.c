/* schema.c — typed reads of a YAML tree that report type errors and unknown keys with positions. */
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "formats/yaml.h"
#include "model/schema.h"

struct wm_loc wm_schema_loc(const struct wm_schema *c, const struct wm_node *n)
{
	struct wm_loc loc = { c->doc->file, n ? n->line : 0, n ? n->column : 0 };
	return loc;
}

void wm_schema_error_at(struct wm_schema *c, unsigned line, unsigned column, unsigned span, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(c->err, WM_EINVALID, WM_SEV_ERROR, c->doc->file, c->doc->text, c->doc->len,
		line, column, span, fmt, ap);
	va_end(ap);
}

void wm_schema_warning_at(struct wm_schema *c, unsigned line, unsigned column, unsigned span, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(c->err, WM_OK, WM_SEV_WARNING, c->doc->file, c->doc->text, c->doc->len,
		line, column, span, fmt, ap);
	va_end(ap);
}

void wm_schema_error(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(c->err, WM_EINVALID, WM_SEV_ERROR, c->doc->file, c->doc->text, c->doc->len,
		n ? n->line : 0, n ? n->column : 0, n ? wm_yaml_span(n) : 0, fmt, ap);
	va_end(ap);
}

void wm_schema_warning(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(c->err, WM_OK, WM_SEV_WARNING, c->doc->file, c->doc->text, c->doc->len,
		n ? n->line : 0, n ? n->column : 0, n ? wm_yaml_span(n) : 0, fmt, ap);
	va_end(ap);
}

void wm_schema_note(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(c->err, WM_EINVALID, WM_SEV_NOTE, c->doc->file, c->doc->text, c->doc->len,
		n ? n->line : 0, n ? n->column : 0, n ? wm_yaml_span(n) : 0, fmt, ap);
	va_end(ap);
}

void wm_schema_note_at(struct wm_schema *c, unsigned line, unsigned column, unsigned span, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(c->err, WM_EINVALID, WM_SEV_NOTE, c->doc->file, c->doc->text, c->doc->len,
		line, column, span, fmt, ap);
	va_end(ap);
}

bool wm_schema_is_one_of(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return true;
	return false;
}

/* The inner mapping `key` is a key of, or NULL. */
static const struct wm_schema_inner *inner_of(const char *key, const struct wm_schema_inner *inner, size_t ninner)
{
	for (size_t i = 0; i < ninner; i++)
		if (wm_schema_is_one_of(key, inner[i].keys->names, inner[i].keys->n))
			return &inner[i];
	return NULL;
}

bool wm_schema_map(struct wm_schema *c, const struct wm_node *n, const char *what,
	const char *const *keys, size_t nkeys)
{
	return wm_schema_map_inner(c, n, what, keys, nkeys, NULL, 0);
}

bool wm_schema_map_inner(struct wm_schema *c, const struct wm_node *n, const char *what,
	const char *const *keys, size_t nkeys, const struct wm_schema_inner *inner, size_t ninner)
{
	if (n->type != WM_NODE_MAP) {
		wm_schema_error(c, n, "%s must be a mapping, not %s", what, wm_yaml_kind(n));
		return false;
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *k = n->pairs[i].key;
		const struct wm_schema_inner *in;
		const char *hint;
		if (wm_schema_is_one_of(k->text, keys, nkeys))
			continue;
		if (wm_schema_missing_colon(c, k, n->pairs[i].value))
			continue;
		if ((in = inner_of(k->text, inner, ninner)) != NULL) {
			wm_schema_error(c, k, "unknown key '%s' in %s: is it indented too little? it is a key of %s",
				k->text, what, in->what);
			continue;
		}
		hint = wm_error_full(c->err, WM_SEV_ERROR) ? NULL : wm_text_suggest(k->text, keys, nkeys);
		if (hint)
			wm_schema_error(c, k, "unknown key '%s' in %s (did you mean '%s'?)", k->text, what, hint);
		else
			wm_schema_error(c, k, "unknown key '%s' in %s", k->text, what);
	}
	return true;
}

bool wm_schema_missing_colon(struct wm_schema *c, const struct wm_node *key, const struct wm_node *value)
{
	const char *s = key->text, *rest;
	size_t word = 0;

	if (key->type != WM_NODE_SCALAR || key->style != WM_PLAIN || key->line == 0)
		return false;
	while (s[word] > ' ' && s[word] < 0x7f && !strchr("{}[],:", s[word]))
		word++;
	for (rest = s + word; *rest == ' '; rest++)
		;
	/* the collection cut at its first ': ', which ended the key */
	if (word == 0 || rest == s + word || (*rest != '{' && *rest != '[') || strchr(rest, *rest == '{' ? '}' : ']'))
		return false;
	if (value && value->type == WM_NODE_SCALAR && value->style == WM_PLAIN && !wm_yaml_is_null(value) &&
	    value->len && value->text[value->len - 1] == (*rest == '{' ? '}' : ']') && strlen(s) + value->len < 120)
		wm_schema_error_at(c, key->line, key->column + (unsigned)word, 1, "a ':' is missing after '%.*s' "
			"('%s' is read as one key): write '%.*s: %s: %s'", (int)word, s, s, (int)word, s, rest,
			value->text);
	else
		wm_schema_error_at(c, key->line, key->column + (unsigned)word, 1, "a ':' is missing after '%.*s' "
			"('%s' is read as one key): write '%.*s: %c...'", (int)word, s, s, (int)word, s, *rest);
	return true;
}

void wm_schema_warn_number(struct wm_schema *c, const struct wm_node *n)
{
	char number[32];
	if (wm_yaml_misread_number(n, number, sizeof(number)))
		wm_schema_warning(c, n, "%s without quotes is the number %s to other YAML readers: write \"%s\"",
			n->text, number, n->text);
}

bool wm_schema_string(struct wm_schema *c, const struct wm_node *n, const char *what, const char **out)
{
	if (n->type != WM_NODE_SCALAR || wm_yaml_is_null(n)) {
		wm_schema_error(c, n, "%s must be a string, not %s", what, wm_yaml_kind(n));
		return false;
	}
	wm_schema_warn_number(c, n);
	*out = n->text;
	return true;
}

bool wm_schema_bool(struct wm_schema *c, const struct wm_node *n, const char *what, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE" }, *const no[] = { "false", "False", "FALSE" };
	static const char *const yaml11[] = { "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON",
		"off", "Off", "OFF", "y", "Y", "n", "N" };
	if (n->type == WM_NODE_SCALAR && wm_yaml_plain(n, "tag:yaml.org,2002:bool")) {
		for (size_t i = 0; i < WM_ARRAY_SIZE(yes); i++) {
			if (strcmp(n->text, yes[i]) == 0) {
				*out = true;
				return true;
			}
			if (strcmp(n->text, no[i]) == 0) {
				*out = false;
				return true;
			}
		}
		for (size_t i = 0; i < WM_ARRAY_SIZE(yaml11); i++) {
			if (strcmp(n->text, yaml11[i]) == 0) {
				wm_schema_error(c, n, "%s must be true or false; '%s' is a boolean only to YAML 1.1 readers",
					what, n->text);
				return false;
			}
		}
	}
	if (n->type == WM_NODE_SCALAR && n->style == WM_QUOTED &&
			(strcmp(n->text, "true") == 0 || strcmp(n->text, "false") == 0))
		wm_schema_error(c, n, "%s must be true or false without quotes: quoted, it is a string", what);
	else if (n->type == WM_NODE_SCALAR && !wm_yaml_is_null(n))
		wm_schema_error(c, n, "%s must be true or false, not '%s'", what, n->text);
	else
		wm_schema_error(c, n, "%s must be true or false, not %s", what, wm_yaml_kind(n));
	return false;
}

bool wm_schema_uint(struct wm_schema *c, const struct wm_node *n, const char *what, unsigned *out)
{
	unsigned long v = 0;
	if (n->type == WM_NODE_SCALAR && wm_yaml_plain(n, "tag:yaml.org,2002:int") && n->len > 0 && n->len < 10) {
		size_t i;
		for (i = 0; i < n->len && n->text[i] >= '0' && n->text[i] <= '9'; i++)
			v = v * 10 + (unsigned long)(n->text[i] - '0');
		if (i == n->len) {
			*out = (unsigned)v;
			return true;
		}
	}
	if (n->type == WM_NODE_SCALAR && !wm_yaml_is_null(n))
		wm_schema_error(c, n, "%s must be a whole number, not '%s'", what, n->text);
	else
		wm_schema_error(c, n, "%s must be a whole number, not %s", what, wm_yaml_kind(n));
	return false;
}

bool wm_schema_strlist(struct wm_schema *c, const struct wm_node *n, const char *what,
	struct wm_strlist *out, const struct wm_node ***nodes)
{
	bool ok = true;
	memset(out, 0, sizeof(*out));
	if (nodes)
		*nodes = NULL;
	if (n->type != WM_NODE_SEQ) {
		if (n->type == WM_NODE_SCALAR && !wm_yaml_is_null(n))
			wm_schema_error(c, n, "%s must be a list of strings, not a string (write [\"%s\"])", what, n->text);
		else
			wm_schema_error(c, n, "%s must be a list of strings, not %s", what, wm_yaml_kind(n));
		return false;
	}
	out->items = wm_arena_array(c->arena, n->n ? n->n : 1, sizeof(*out->items));
	if (nodes)
		*nodes = wm_arena_array(c->arena, n->n ? n->n : 1, sizeof(**nodes));
	if (!out->items || (nodes && !*nodes)) {
		wm_error_code(c->err, WM_ENOMEM);
		return false;
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *item = n->items[i];
		if (item->type != WM_NODE_SCALAR || wm_yaml_is_null(item)) {
			wm_schema_error(c, item, "%s must be a list of strings; this item is %s", what, wm_yaml_kind(item));
			ok = false;
			continue;
		}
		wm_schema_warn_number(c, item);
		if (nodes)
			(*nodes)[out->n] = item;
		out->items[out->n++] = item->text;
	}
	return ok;
}
