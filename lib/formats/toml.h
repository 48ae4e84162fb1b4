/* toml.h — TOML 1.0 with exact source positions, for byte-exact edits; the one TOML string writer (toml.c). */
#ifndef WM_FORMATS_TOML_H
#define WM_FORMATS_TOML_H

#include "util/common.h"
#include "util/arena.h"
#include "util/buf.h"

/*
 * A TOML 1.0.0 document parsed for byte-exact edits of pyproject.toml and
 * Cargo.toml: every key, value, table header and comment keeps where it is
 * written.  Everything lives in the document's arena and stays valid until
 * wm_toml_release; callers only read the structures.
 *
 * The structures are compact (a value is 96 bytes, its text in a pool of
 * bytes beside it) and their number is bounded, so that what the reader
 * keeps is a small multiple of its input plus at most some tens of MiB
 * (bench/toml.sh measures it).
 */

#define WM_TOML_MAX_BYTES (16u << 20)  /* input size */
#define WM_TOML_MAX_DEPTH 128          /* nesting of tables and arrays */
/* Values (each key's, each array item, each table, inline or not) and comments in one file. */
#define WM_TOML_MAX_VALUES 65536u

/*
 * Bytes [start, end) of the input (at most WM_TOML_MAX_BYTES); line and
 * column (1-based, the column in characters, a UTF-8 byte-order mark
 * counting as one) are those of start.
 */
struct wm_toml_span {
	uint32_t start, end;
	unsigned line, column;
};

enum wm_toml_type {
	WM_TOML_STRING,
	WM_TOML_INTEGER,
	WM_TOML_FLOAT,
	WM_TOML_BOOL,
	WM_TOML_DATETIME,        /* offset date-time: 1979-05-27T07:32:00Z */
	WM_TOML_DATETIME_LOCAL,  /* 1979-05-27T07:32:00 */
	WM_TOML_DATE_LOCAL,      /* 1979-05-27 */
	WM_TOML_TIME_LOCAL,      /* 07:32:00 */
	WM_TOML_ARRAY,
	WM_TOML_TABLE,
};

/* How a string or a key part is written. */
enum wm_toml_style {
	WM_TOML_BARE,        /* keys only: name */
	WM_TOML_BASIC,       /* "..." */
	WM_TOML_LITERAL,     /* '...' */
	WM_TOML_ML_BASIC,    /* """...""" */
	WM_TOML_ML_LITERAL,  /* '''...''' */
};

/* How a table came to exist. */
enum wm_toml_origin {
	WM_TOML_ROOT,      /* the document */
	WM_TOML_HEADER,    /* [a.b] */
	WM_TOML_AOT,       /* an element of an array of tables: [[a.b]] */
	WM_TOML_IMPLICIT,  /* only a super-table of headers: `a` of [a.b], until [a] defines it */
	WM_TOML_DOTTED,    /* by dotted keys: `a` of a.b = 1 (also once they extend an implicit table) */
	WM_TOML_INLINE,    /* { ... } */
};

struct wm_toml_table;
struct wm_toml_value;

struct wm_toml_array {
	struct wm_toml_value **items;
	size_t n;
	struct wm_toml_span open, close;  /* the `[` and the `]`; zero for an array of tables */
	struct wm_toml_span comma;        /* the comma after the last item, when there is one */
	bool trailing_comma;              /* a comma after the last item */
	bool multiline;                   /* `[` and `]` are on different lines */
	bool aot;                         /* an array of tables: its items are [[header]] tables */
};

/*
 * A value.  `span` is the value as written: a string with its quotes, an
 * array from `[` to `]`, an inline table from `{` to `}`.  A table made by a
 * header has the header's span; an implicit or dotted table the key part
 * that created it; an array of tables its first [[header]].  Only the
 * members of its type hold anything: read them after checking `type`.
 */
struct wm_toml_value {
	enum wm_toml_type type;
	enum wm_toml_style style;  /* string: how it is written */
	struct wm_toml_span span;
	union {
		struct {                       /* string */
			const char *str;       /* decoded, NUL-terminated (it may hold NULs: see len) */
			size_t len;
		};
		struct {                       /* integer, float, boolean, date-times */
			const char *raw;       /* the text as written */
			union {
				int64_t integer;
				double number; /* float */
				bool boolean;
			};
		};
		struct wm_toml_array array;    /* array */
		struct wm_toml_table *table;   /* table */
	};
};

/* One part of a key: `b` of a."b".c */
struct wm_toml_key {
	const char *name;          /* decoded, NUL-terminated */
	size_t len;
	enum wm_toml_style style;  /* bare, basic or literal */
	struct wm_toml_span span;  /* as written, quotes included */
};

/*
 * A `key = value` written in a table's section (under its header, at the
 * top of the document for the root, between the braces of an inline
 * table).  A dotted key's value ends up in `table`, a descendant of the
 * section's table.  `line` runs from the key's first byte to the end of the
 * line, trailing comment and line ending included, so that a line can be
 * inserted at line.end; within an inline table it ends with the value.
 */
struct wm_toml_kv {
	struct wm_toml_key *parts;
	size_t nparts;
	struct wm_toml_span key;   /* the whole key: a . b . c */
	struct wm_toml_value *value;
	struct wm_toml_table *table;
	struct wm_toml_span line;
};

struct wm_toml_entry {
	const char *key;           /* decoded, NUL-terminated */
	size_t len;
	struct wm_toml_value *value;
};

/*
 * A table.  `append` is where a `key = value` line can be inserted so that
 * it belongs to the table:
 *   root, header, array-of-tables element: just after the section's last
 *     key/value line, so before the blank lines and comments that precede
 *     the next header; with no key/value line, just after the header line
 *     (for the root, the start of the document, after a byte-order mark);
 *   dotted: just after the last line of its section whose key goes through
 *     or into it (the inserted key needs the same dotted prefix);
 *   inline, and dotted within an inline table: the offset of the closing
 *     `}` (the caller writes `, key = value`, or `key = value` when empty);
 *   implicit: SIZE_MAX, no line can go there until a [header] defines it.
 * An offset equal to the document's length in a document without a final
 * newline needs a line ending written first.
 */
struct wm_toml_table {
	enum wm_toml_origin origin;
	unsigned depth;                /* 0 for the root */
	struct wm_toml_table *parent;  /* NULL for the root */
	const char *key;               /* its key in the parent ("" for the root) */
	size_t keylen;
	struct wm_toml_entry *entries; /* direct children, in order of first appearance */
	size_t n;
	struct wm_toml_kv *kvs;        /* the key/value pairs of its section, in source order */
	size_t nkvs;
	struct wm_toml_span header;    /* [a.b], [[a.b]], or an inline table's braces; zero otherwise */
	size_t append;
};

struct wm_toml_doc {
	struct wm_arena arena;
	const char *file;
	const char *text;              /* the input, NUL-terminated, owned by the arena */
	size_t len;
	struct wm_toml_table *root;
	struct wm_toml_span *comments; /* every comment, `#` to the end of the line (line ending excluded) */
	size_t ncomments;
	bool crlf;                     /* the first line ending is CRLF: inserted lines should use it */
	bool final_newline;            /* the input ends with a line ending */
	bool bom;                      /* the input starts with a UTF-8 byte-order mark */
};

/*
 * Parses `len` bytes of `text` (copied) into `doc`, which the caller releases
 * with wm_toml_release, also on failure.  `file` names the input in
 * diagnostics.  The first error stops the parse and is reported, positioned
 * and with its source line, as WM_EINVALID (WM_ENOMEM when out of memory);
 * more than WM_TOML_MAX_VALUES values and comments is an error at the first
 * one too many.  Multi-line strings are decoded with their CRLF line endings
 * as LF.
 */
int wm_toml_parse(struct wm_toml_doc *doc, const char *file, const char *text, size_t len,
	struct wm_error *err);
void wm_toml_release(struct wm_toml_doc *doc);

/* The value of `key` (one key, not dotted) in `t`, or NULL; NULL `t` gives NULL. */
const struct wm_toml_value *wm_toml_table_get(const struct wm_toml_table *t, const char *key);
/*
 * The value at a dotted path below `t` ("tool.maturin.features": split at
 * each `.`, no quoting), or NULL when a part is missing or not a table.
 */
const struct wm_toml_value *wm_toml_get_path(const struct wm_toml_table *t, const char *path);
/* Type predicates; each is false for NULL.  Any of the four date-time types is a date-time. */
bool wm_toml_is_string(const struct wm_toml_value *v);
bool wm_toml_is_integer(const struct wm_toml_value *v);
bool wm_toml_is_float(const struct wm_toml_value *v);
bool wm_toml_is_bool(const struct wm_toml_value *v);
bool wm_toml_is_datetime(const struct wm_toml_value *v);
bool wm_toml_is_array(const struct wm_toml_value *v);
bool wm_toml_is_table(const struct wm_toml_value *v);
/* "a string", "an integer", ..., for messages. */
const char *wm_toml_type_name(enum wm_toml_type type);
/*
 * Appends `s` as a TOML string: a '...' string when `style` is
 * WM_TOML_LITERAL and `s` can be one, else a "..." string escaped where it
 * must be (the one TOML string writer: patches, the meta package, messages).
 */
void wm_toml_put_string(struct wm_buf *b, const char *s, size_t len, enum wm_toml_style style);
/* Appends a key, bare when it can be, else as a basic string. */
void wm_toml_put_key(struct wm_buf *b, const char *key, size_t len);
/* True when `s` can go between the quotes of a `style` string (basic or literal) as it is. */
bool wm_toml_string_fits(const char *s, enum wm_toml_style style);
/* Reports an error at `sp` of `doc` (NULL: no position), with its source line, and returns `code`. */
int wm_toml_fail(const struct wm_toml_doc *doc, struct wm_error *err, enum wm_err code,
	const struct wm_toml_span *sp, const char *fmt, ...) WM_PRINTF(5, 6);
int wm_toml_vfail(const struct wm_toml_doc *doc, struct wm_error *err, enum wm_err code,
	const struct wm_toml_span *sp, const char *fmt, va_list ap);

#endif
