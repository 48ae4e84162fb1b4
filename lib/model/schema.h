/* schema.h — typed reads of a YAML tree, with positioned diagnostics (schema.c). */
#ifndef WM_MODEL_SCHEMA_H
#define WM_MODEL_SCHEMA_H

#include "util/common.h"
#include "util/arena.h"
#include "formats/yaml.h"

struct wm_schema {
	struct wm_doc *doc;
	struct wm_error *err;
	struct wm_arena *arena;  /* where validated values go */
};

/*
 * The names a mapping of the file may hold, or the values a key takes: the
 * loader checks a file against them, and jsonschema.c writes the JSON Schema
 * from the same tables.
 */
struct wm_names {
	const char *const *names;
	size_t n;
};
#define WM_NAMES(array) { (array), WM_ARRAY_SIZE(array) }

struct wm_loc wm_schema_loc(const struct wm_schema *c, const struct wm_node *n);

void wm_schema_error(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...) WM_PRINTF(3, 4);
void wm_schema_note(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...) WM_PRINTF(3, 4);
/*
 * A key that is a word, a blank and a flow collection's start (`cpu {default`
 * of `cpu {default: true}`): the ':' after the word is missing.  Reported
 * there, with the line to write; true when it was that.
 */
bool wm_schema_missing_colon(struct wm_schema *c, const struct wm_node *key, const struct wm_node *value);
/* A warning: the load still succeeds, and the commands print it unless -q. */
void wm_schema_warning(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...) WM_PRINTF(3, 4);
void wm_schema_error_at(struct wm_schema *c, unsigned line, unsigned column, unsigned span,
	const char *fmt, ...) WM_PRINTF(5, 6);
void wm_schema_warning_at(struct wm_schema *c, unsigned line, unsigned column, unsigned span,
	const char *fmt, ...) WM_PRINTF(5, 6);
void wm_schema_note_at(struct wm_schema *c, unsigned line, unsigned column, unsigned span,
	const char *fmt, ...) WM_PRINTF(5, 6);

/*
 * A mapping's keys checked against `keys` (unknown keys are reported with a
 * suggestion); returns false and reports when `n` is not a mapping.  `what`
 * names the mapping in messages ("'python'").
 */
bool wm_schema_map(struct wm_schema *c, const struct wm_node *n, const char *what,
	const char *const *keys, size_t nkeys);

/* Whether `s` is one of the `n` `names`. */
bool wm_schema_is_one_of(const char *s, const char *const *names, size_t n);

/* A mapping that goes inside another one: how messages name it ("'python'", "a backend"), and its keys. */
struct wm_schema_inner {
	const char *what;
	const struct wm_names *keys;
};

/*
 * wm_schema_map, where an unknown key that is a key of one of the `ninner`
 * mappings `inner` is said to be indented too little ("versions" under no
 * "python:"), rather than given a suggestion.
 */
bool wm_schema_map_inner(struct wm_schema *c, const struct wm_node *n, const char *what,
	const char *const *keys, size_t nkeys, const struct wm_schema_inner *inner, size_t ninner);

/*
 * Warns at a plain scalar that another YAML reader takes for a number other
 * than its text (3.10 for 3.1, 12.0 for 12): this loader reads every scalar
 * as text, so only the quotes make the file mean the same to all of them.
 */
void wm_schema_warn_number(struct wm_schema *c, const struct wm_node *n);

/* Scalars: each returns false (and reports) on a type error. */
bool wm_schema_string(struct wm_schema *c, const struct wm_node *n, const char *what, const char **out);
bool wm_schema_bool(struct wm_schema *c, const struct wm_node *n, const char *what, bool *out);
bool wm_schema_uint(struct wm_schema *c, const struct wm_node *n, const char *what, unsigned *out);
/* A list of strings; a single string is not accepted. */
bool wm_schema_strlist(struct wm_schema *c, const struct wm_node *n, const char *what,
	struct wm_strlist *out, const struct wm_node ***nodes);

#endif
