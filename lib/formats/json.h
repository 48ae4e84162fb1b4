/* json.h — the thin wrapper over Jansson (json.c, its only user): JSON values built, read, parsed and written. */
#ifndef WM_FORMATS_JSON_H
#define WM_FORMATS_JSON_H

#include "util/common.h"

#include "util/buf.h"

/*
 * A JSON value, counted by reference.  The features build and read their
 * own documents with these calls: the job encoder (emit/jobs.c), check's
 * findings (repo/check.c), PEP 691 pages (index/simple.c), the plan report
 * (index/report.c).  Objects keep their keys in insertion order.
 */
struct wm_json;

/* Values; each is NULL when out of memory.  Strings are copied. */
struct wm_json *wm_json_null(void);
struct wm_json *wm_json_bool(bool b);
struct wm_json *wm_json_int(int64_t v);
/* A string, or null for NULL; a byte that is not UTF-8 (text from an index) becomes U+FFFD. */
struct wm_json *wm_json_string(const char *s);
/* A string the caller knows is UTF-8 (the catalog, a matrix file the loader checked): not checked again. */
struct wm_json *wm_json_string_trusted(const char *s, size_t len);
struct wm_json *wm_json_array(void);
struct wm_json *wm_json_object(void);
/* Drops a reference (NULL is fine). */
void wm_json_free(struct wm_json *v);

/*
 * Appends `v` to an array, or sets `key` of an object to it.  Both take the
 * caller's reference to `v`, also when they fail; a NULL `v` (an allocation
 * that failed) fails with WM_ENOMEM, so that calls can be chained.
 */
int wm_json_push(struct wm_json *array, struct wm_json *v);
int wm_json_set(struct wm_json *object, const char *key, struct wm_json *v);
/* Replaces the text of a string value in place (trusted as UTF-8). */
int wm_json_string_set(struct wm_json *v, const char *s, size_t len);

/* Reading; every call accepts NULL, and a value of another type, and answers false, 0 or NULL. */
bool wm_json_is_null(const struct wm_json *v);
bool wm_json_is_bool(const struct wm_json *v);
bool wm_json_is_true(const struct wm_json *v);
bool wm_json_is_int(const struct wm_json *v);
bool wm_json_is_string(const struct wm_json *v);
bool wm_json_is_array(const struct wm_json *v);
bool wm_json_is_object(const struct wm_json *v);
int64_t wm_json_int_value(const struct wm_json *v);
/* An integer or a real as a double into *out; false for another value. */
bool wm_json_number(const struct wm_json *v, double *out);
const char *wm_json_str(const struct wm_json *v);
/* The items of an array or the members of an object. */
size_t wm_json_size(const struct wm_json *v);
struct wm_json *wm_json_at(const struct wm_json *array, size_t i);
struct wm_json *wm_json_get(const struct wm_json *object, const char *key);
/* The i-th member of an object, in order: its key and value (i < wm_json_size). */
const char *wm_json_key_at(const struct wm_json *object, size_t i, struct wm_json **value);

/* Why a text is not JSON, or not read. */
struct wm_json_error {
	int line, column;
	size_t budget;   /* not 0: it would take more than this many bytes to read (the text says so) */
	char text[160];
};

/*
 * What a parse may allocate, as json.c reckons it from the text before Jansson
 * reads it (every block with 16 bytes for malloc's keeping): WM_JSON_PARSE_FACTOR
 * times the text and WM_JSON_PARSE_SLACK.  A real index page takes 3 to 6
 * times its size so (8 when version strings fill a tenth of it); JSON of
 * empty objects, arrays, strings or zeros, 20 to 70 times.
 */
#define WM_JSON_PARSE_FACTOR 12u
#define WM_JSON_PARSE_SLACK (1u << 20)
/*
 * What Jansson would allocate to read `text`, reckoned from above in one
 * pass (or a number past `limit`, where the pass stopped).
 */
size_t wm_json_cost(const char *text, size_t len, size_t limit);
#define WM_JSON_PARSE_LIMIT(len) ((len) > (SIZE_MAX - WM_JSON_PARSE_SLACK) / WM_JSON_PARSE_FACTOR ? SIZE_MAX : \
	(len) * WM_JSON_PARSE_FACTOR + WM_JSON_PARSE_SLACK)

/*
 * Parses a whole text; a duplicate key is an error.  WM_EINVALID with *e:
 * malformed (line, column and Jansson's message), or it would take more
 * memory than the budget above to read (e->budget set, e->text saying so);
 * WM_ENOMEM when the system refused memory.
 */
int wm_json_parse(struct wm_json **out, const char *text, size_t len, struct wm_json_error *e);
/* The same within `limit` bytes, reckoned so, for a caller (the fuzz target) that sets its own. */
int wm_json_parse_within(struct wm_json **out, const char *text, size_t len, size_t limit, struct wm_json_error *e);
/* The same for any JSON value, a string, number, true, false or null alone too (GitHub's fromJSON reads them). */
int wm_json_parse_value(struct wm_json **out, const char *text, size_t len, struct wm_json_error *e);

enum {
	WM_JSON_COMPACT = 1 << 0,  /* no whitespace at all */
	WM_JSON_INDENT = 1 << 1,   /* two spaces per level */
	WM_JSON_ASCII = 1 << 2,    /* every character outside ASCII as a \u escape */
};
/*
 * Writes `v` (any value, not only a document) into `buf` of `size` bytes,
 * without a NUL; returns the length it needs, which is more than `size` when
 * it did not fit, or 0 when out of memory.
 */
size_t wm_json_write(const struct wm_json *v, char *buf, size_t size, unsigned flags);
/* Appends `v` to `out`; WM_ENOMEM on failure. */
int wm_json_append(struct wm_buf *out, const struct wm_json *v, unsigned flags);

#endif
