/* internal.h — what the library's modules share and callers never see. */
#ifndef WM_INTERNAL_H
#define WM_INTERNAL_H

#include <stdarg.h>
#include "wheelmatrix.h"

#define WM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define WM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define WM_PRINTF(f, a)
#endif

/* ---- arena (arena.c) ---------------------------------------------------- */

/*
 * Bump allocation freed in one call.  Built with WM_ARENA_MALLOC (the
 * sanitizer build), every allocation is a real malloc so that the sanitizers
 * see each object's bounds.
 */
struct wm_arena {
	struct wm_chunk *chunks;
	char *next, *end;
#ifdef WM_ARENA_MALLOC
	void **ptrs;
	size_t nptrs, capptrs;
#endif
};

void wm_arena_init(struct wm_arena *a);
void wm_arena_release(struct wm_arena *a);
/* Zeroed memory, or NULL when out of memory. */
void *wm_arena_alloc(struct wm_arena *a, size_t size);
void *wm_arena_array(struct wm_arena *a, size_t n, size_t size);
char *wm_arena_strndup(struct wm_arena *a, const char *s, size_t len);
char *wm_arena_strdup(struct wm_arena *a, const char *s);
char *wm_arena_printf(struct wm_arena *a, const char *fmt, ...) WM_PRINTF(2, 3);

/* ---- growable string (buf.c) -------------------------------------------- */

struct wm_buf {
	char *ptr;   /* always NUL-terminated once anything was added */
	size_t len, cap;
	bool oom;    /* an allocation failed: the content is incomplete */
};

#define WM_BUF_INIT { NULL, 0, 0, false }
void wm_buf_add(struct wm_buf *b, const char *s, size_t len);
void wm_buf_puts(struct wm_buf *b, const char *s);
void wm_buf_putc(struct wm_buf *b, char c);
void wm_buf_printf(struct wm_buf *b, const char *fmt, ...) WM_PRINTF(2, 3);
void wm_buf_vprintf(struct wm_buf *b, const char *fmt, va_list ap);
void wm_buf_clear(struct wm_buf *b);
void wm_buf_release(struct wm_buf *b);
/* Hands the string over to the caller (malloc'd, "" when empty); NULL when out of memory. */
char *wm_buf_detach(struct wm_buf *b);

/* ---- string map (map.c) ------------------------------------------------- */

/* Open addressing from strings (not owned) to pointers. */
struct wm_map {
	struct wm_map_slot *slots;
	size_t n, cap;
};

void wm_map_init(struct wm_map *m);
void wm_map_release(struct wm_map *m);
/* Returns the value stored for `key`, or NULL. */
void *wm_map_get(const struct wm_map *m, const char *key, size_t len);
/* Stores `value` (replacing any); returns WM_ENOMEM on failure. */
int wm_map_put(struct wm_map *m, const char *key, size_t len, void *value);

/* ---- diagnostics (error.c) ---------------------------------------------- */

/* Appends a diagnostic; `source` is the whole input, used to copy the offending line. */
void wm_error_add(struct wm_error *err, enum wm_err code, enum wm_severity sev,
	const char *file, const char *source, size_t srclen,
	unsigned line, unsigned column, unsigned span, const char *fmt, ...) WM_PRINTF(10, 11);
void wm_error_vadd(struct wm_error *err, enum wm_err code, enum wm_severity sev,
	const char *file, const char *source, size_t srclen,
	unsigned line, unsigned column, unsigned span, const char *fmt, va_list ap);
/* Records `code` as the report's code unless one is already set. */
void wm_error_code(struct wm_error *err, enum wm_err code);

/* ---- text helpers (text.c) ---------------------------------------------- */

/* Checks UTF-8; on failure gives the 1-based line and column (in characters) of the bad byte. */
bool wm_utf8_valid(const char *s, size_t len, unsigned *line, unsigned *column, unsigned char *byte);
/* Appends `s` with each byte that is not valid UTF-8 replaced by U+FFFD. */
void wm_utf8_sanitize(struct wm_buf *out, const char *s, size_t len);
/* Number of characters (not bytes) of a UTF-8 string. */
size_t wm_utf8_len(const char *s, size_t len);
/* The candidate closest to `word` if it is close enough to be a likely typo, else NULL. */
const char *wm_suggest(const char *word, const char *const *candidates, size_t n);
/* Shell-style glob (`*`, `?`, `[...]`) over a whole string. */
bool wm_glob_match(const char *pattern, const char *s);
bool wm_is_glob(const char *s);

/* ---- grammars (names.c) ------------------------------------------------- */

bool wm_name_backend_id(const char *s);      /* [a-z][a-z0-9_]*, at most 32 */
bool wm_name_distribution(const char *s);    /* PEP 508 name */
/* A Cargo feature, `dep/feature` or `dep:name`; on failure `why` says what is wrong. */
bool wm_name_feature(const char *s, const char **why);
/* A PEP 508 requirement; on failure `why` says what is wrong. */
bool wm_name_requirement(const char *s, const char **why);
bool wm_name_env(const char *s);             /* [A-Za-z_][A-Za-z0-9_]* */
bool wm_name_module(const char *s);          /* dotted Python identifiers, ASCII */
bool wm_name_target(const char *s);          /* a Rust target triple's characters */
/* A relative path inside the repository: no absolute path, no `..`, no `.git`. */
bool wm_name_repo_path(const char *s, const char **why);
/* The leaf of a feature: `cublas` of `llm/cublas`, `cudarc` of `dep:cudarc`. */
const char *wm_feature_leaf(const char *s);

/* ---- the YAML tree (yaml.c) --------------------------------------------- */

enum wm_node_type { WM_NODE_SCALAR, WM_NODE_SEQ, WM_NODE_MAP };

enum wm_scalar_style { WM_PLAIN, WM_QUOTED, WM_BLOCK };

struct wm_node;

struct wm_pair {
	struct wm_node *key, *value;
};

/* A node of a parsed YAML document; aliases point at the anchored node itself. */
struct wm_node {
	enum wm_node_type type;
	enum wm_scalar_style style;
	unsigned line, column;          /* 1-based start */
	unsigned end_line, end_column;  /* 1-based end (exclusive) */
	const char *tag;                /* explicit tag, resolved ("tag:yaml.org,2002:str"), or NULL */
	const char *text;               /* scalar: NUL-terminated text */
	size_t len;
	struct wm_node **items;         /* sequence */
	struct wm_pair *pairs;          /* mapping, merge keys already applied */
	size_t n;
	uint64_t weight;                /* nodes reachable, aliases counted each time */
	bool flow;                      /* a collection written in flow style: [a, b], {a: b} */
};

/* A parsed document with what diagnostics need. */
struct wm_doc {
	struct wm_arena arena;
	const char *file;
	const char *text;               /* the input, NUL-terminated, owned by the arena */
	size_t len;
	struct wm_node *root;           /* NULL for an empty document */
};

struct wm_yaml_limits {
	size_t max_bytes;
	unsigned max_depth;
	uint64_t max_nodes;
};

/*
 * Parses one YAML document into `doc` (which the caller releases with
 * wm_doc_release, also on failure).  Scalars stay text; duplicate keys,
 * non-scalar keys, unknown anchors, alias bombs and excess depth are errors.
 */
int wm_yaml_parse(struct wm_doc *doc, const char *file, const char *text, size_t len,
	const struct wm_yaml_limits *limits, struct wm_error *err);
void wm_doc_release(struct wm_doc *doc);

/*
 * Output trees for the YAML writer.  Scalars are text; the writer's resolver
 * quotes any text that a YAML 1.1 or 1.2 reader would take for something else
 * (3.10, on, null, 012, 1e3, 2001-12-14, ...), unless `typed` says the plain
 * form is meant (true, 1).  Multi-line text is written as a literal block.
 */
enum wm_ystyle { WM_Y_AUTO, WM_Y_LITERAL, WM_Y_FLOW };

struct wm_y {
	enum wm_node_type type;
	enum wm_ystyle style;
	bool typed;              /* scalar: written plain even when it resolves to a bool or number */
	const char *text;        /* scalar */
	size_t len;
	struct wm_y **items;     /* sequence: items; mapping: key, value, key, value, ... */
	size_t n, cap;
};

/* Builds trees in an arena; an allocation failure sets `oom` and the calls go on harmlessly. */
struct wm_yb {
	struct wm_arena *arena;
	bool oom;
};

struct wm_y *wm_y_str(struct wm_yb *b, const char *s);   /* not copied */
struct wm_y *wm_y_strf(struct wm_yb *b, const char *fmt, ...) WM_PRINTF(2, 3);
struct wm_y *wm_y_bool(struct wm_yb *b, bool v);
struct wm_y *wm_y_literal(struct wm_yb *b, const char *s);
struct wm_y *wm_y_map(struct wm_yb *b);
struct wm_y *wm_y_seq(struct wm_yb *b);
/* Sets `key` (copied; an existing key's value is replaced in place); returns `value`. */
struct wm_y *wm_y_set(struct wm_yb *b, struct wm_y *map, const char *key, struct wm_y *value);
/* The same, placing a new key just before `before` (at the end when there is none). */
struct wm_y *wm_y_set_before(struct wm_yb *b, struct wm_y *map, const char *before, const char *key,
	struct wm_y *value);
struct wm_y *wm_y_push(struct wm_yb *b, struct wm_y *seq, struct wm_y *value);
struct wm_y *wm_y_get(const struct wm_y *map, const char *key);
/* A deep copy of a parsed tree (a skeleton from templates/), to be filled in. */
struct wm_y *wm_y_copy(struct wm_yb *b, const struct wm_node *n);
/* True when plain `s` would not read back as the same string under YAML 1.1 or 1.2. */
bool wm_y_needs_quotes(const char *s, size_t len);
/* Appends the document to `out`: block style, unlimited width, LF line ends, no header. */
int wm_y_emit(struct wm_buf *out, const struct wm_y *root, struct wm_error *err);

/* ---- typed access to a YAML tree with diagnostics (schema.c) ------------ */

struct wm_ctx {
	struct wm_doc *doc;
	struct wm_error *err;
	struct wm_arena *arena;  /* where validated values go */
};

const char *wm_node_kind(const struct wm_node *n);  /* "a mapping", "a string", "null", ... */
bool wm_node_is_null(const struct wm_node *n);
struct wm_loc wm_node_loc(const struct wm_ctx *c, const struct wm_node *n);
unsigned wm_node_span(const struct wm_node *n);

void wm_ctx_error(struct wm_ctx *c, const struct wm_node *n, const char *fmt, ...) WM_PRINTF(3, 4);
void wm_ctx_note(struct wm_ctx *c, const struct wm_node *n, const char *fmt, ...) WM_PRINTF(3, 4);
void wm_ctx_error_at(struct wm_ctx *c, unsigned line, unsigned column, unsigned span,
	const char *fmt, ...) WM_PRINTF(5, 6);

/*
 * A mapping's keys checked against `keys` (unknown keys are reported with a
 * suggestion); returns false and reports when `n` is not a mapping.  `what`
 * names the mapping in messages ("'python'").
 */
bool wm_ctx_map(struct wm_ctx *c, const struct wm_node *n, const char *what,
	const char *const *keys, size_t nkeys);
/* The value of `key` in mapping `n`, or NULL. */
const struct wm_node *wm_map_find(const struct wm_node *n, const char *key);
const struct wm_pair *wm_map_find_pair(const struct wm_node *n, const char *key);

/* Scalars: each returns false (and reports) on a type error. */
bool wm_ctx_string(struct wm_ctx *c, const struct wm_node *n, const char *what, const char **out);
bool wm_ctx_bool(struct wm_ctx *c, const struct wm_node *n, const char *what, bool *out);
bool wm_ctx_uint(struct wm_ctx *c, const struct wm_node *n, const char *what, unsigned *out);
/* A list of strings; a single string is not accepted. */
bool wm_ctx_strlist(struct wm_ctx *c, const struct wm_node *n, const char *what,
	struct wm_strlist *out, const struct wm_node ***nodes);

/* ---- catalog internals (catalog.c) ------------------------------------- */

/* The closest platform id or alias target for a misspelt id, or NULL. */
const char *wm_catalog_suggest_platform(const struct wm_catalog *cat, const char *word);
const char *wm_catalog_suggest_toolkit(const struct wm_catalog *cat, const char *word);
/* The default reference of an action of templates/actions.yaml ("v4"), or NULL when not listed. */
const char *wm_catalog_action(const struct wm_catalog *cat, const char *name);
const char *wm_catalog_suggest_action(const struct wm_catalog *cat, const char *word);
/* The pinned version of a tool ("maturin"), or NULL. */
const char *wm_catalog_tool(const struct wm_catalog *cat, const char *name);
/* Checks a manylinux/musllinux level for platform `p`; `why` says what is accepted. */
bool wm_platform_level_valid(const struct wm_platform *p, const char *level, const char **why);
/* The wheel platform tag of `p` at its current level (arena-allocated). */
const char *wm_platform_tag(struct wm_arena *a, const struct wm_platform *p);

/* ---- embedded data (templates.c, generated) ------------------------------ */

struct wm_template {
	const char *name;
	const char *data;
	size_t len;
};

extern const struct wm_template wm_templates[];
extern const size_t wm_ntemplates;
const struct wm_template *wm_template_get(const char *name);

/* ---- file input (io.c) --------------------------------------------------- */

/* Reads a whole file ("-" = stdin) of at most `max` bytes; errors name the path. */
int wm_io_read(char **out, size_t *len, const char *path, size_t max, struct wm_error *err);

/* ---- git objects and diffs (sha1.c, diff.c) -------------------------------- */

void wm_sha1(unsigned char out[20], const void *data, size_t len);
/* The id git gives a blob of these bytes (`git hash-object`), 40 hex digits. */
void wm_git_blob_id(char out[41], const char *data, size_t len);
/*
 * Appends a git-format diff turning `old` into `new` at `path`: the
 * `diff --git` header, an `index` line of full blob ids, and hunks
 * with three lines of context.  Line endings are kept byte for byte.
 */
int wm_diff_git(struct wm_buf *out, const char *path, const char *old, size_t oldlen,
	const char *new, size_t newlen);

/* ---- emitters ------------------------------------------------------------ */

/* The body of the GitHub Actions workflow (emit_github.c). */
int wm_emit_github(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	struct wm_error *err);

/* ---- expansion internals (expand.c) -------------------------------------- */

/* Precomputes the expansion masks and groups of a validated matrix; fills njobs and groups. */
int wm_expand_prepare(struct wm_matrix *m, struct wm_ctx *c);
/* True when (backend, platform, python) is in the base matrix (before includes). */
bool wm_expand_in_base(const struct wm_matrix *m, size_t b, size_t p, const struct wm_python *py,
	const struct wm_rule **exclude);

/* ---- SHA-256 (sha256.c) ------------------------------------------------- */

/* An incremental SHA-256 (FIPS 180-4); final leaves the state wiped, ready for init. */
struct wm_sha256 {
	uint32_t h[8];
	uint64_t total;          /* bytes hashed so far */
	unsigned char buf[64];   /* a partial block */
	size_t nbuf;
};

void wm_sha256_init(struct wm_sha256 *s);
void wm_sha256_update(struct wm_sha256 *s, const void *data, size_t len);
void wm_sha256_final(struct wm_sha256 *s, unsigned char out[32]);
/* The digest as 64 lowercase hex digits and a NUL. */
void wm_sha256_hex(char out[65], const unsigned char digest[32]);

#endif
