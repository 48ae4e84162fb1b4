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
/*
 * Appends `s` as one POSIX shell word: single-quoted (a `'` written `'\''`), or
 * bare when `bare_when_safe` and it has only characters no shell treats specially.
 */
void wm_buf_shell_word(struct wm_buf *b, const char *s, bool bare_when_safe);
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

/* The value of a hexadecimal digit, or -1. */
int wm_text_hex_digit(char c);
/* Checks UTF-8; on failure gives the 1-based line and column (in characters) of the bad byte. */
bool wm_utf8_valid(const char *s, size_t len, unsigned *line, unsigned *column, unsigned char *byte);
/* Appends `s` with each byte that is not valid UTF-8 replaced by U+FFFD. */
void wm_utf8_sanitize(struct wm_buf *out, const char *s, size_t len);
/* Number of characters (not bytes) of a UTF-8 string. */
size_t wm_utf8_len(const char *s, size_t len);
/* Shell-style glob (`*`, `?`, `[...]`) over a whole string. */
bool wm_text_glob_match(const char *pattern, const char *s);
bool wm_text_is_glob(const char *s);

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
const char *wm_name_feature_leaf(const char *s);

/* ---- expr.c: what a GitHub Actions expression reads ---------------------- */

/* Where an expression in a text is refused: `at`/`len` span the part in the text, `why` ("reads") what it does with it. */
struct wm_expr_fault {
	const char *at;
	size_t len;
	const char *why;
};

/*
 * Whether every `${{ ... }}` in `s` reads only contexts in `allowed` (dotted
 * paths, case-insensitive; a final `.*` stands for one name), with no index
 * on a context and only the language's functions; *f tells the first that
 * does not.
 */
bool wm_expr_check(const char *s, const char *const *allowed, size_t nallowed, struct wm_expr_fault *f);
extern const char *const wm_expr_setup_allowed[];
extern const size_t wm_expr_setup_nallowed;

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
 * wm_yaml_release, also on failure).  Scalars stay text; duplicate keys,
 * non-scalar keys, unknown anchors, alias bombs and excess depth are errors.
 */
int wm_yaml_parse(struct wm_doc *doc, const char *file, const char *text, size_t len,
	const struct wm_yaml_limits *limits, struct wm_error *err);
void wm_yaml_release(struct wm_doc *doc);

/* Reading a tree. */
/* A scalar written plain, or tagged `tag` ("tag:yaml.org,2002:int"). */
bool wm_yaml_plain(const struct wm_node *n, const char *tag);
bool wm_yaml_is_null(const struct wm_node *n);
const char *wm_yaml_kind(const struct wm_node *n);  /* "a mapping", "a string", "null", ... */
/* The characters a one-line scalar spans (1 for anything else), for a diagnostic's underline. */
unsigned wm_yaml_span(const struct wm_node *n);
/* The value of `key` in mapping `n`, or NULL (also when `n` is not a mapping). */
const struct wm_node *wm_yaml_find(const struct wm_node *n, const char *key);
const struct wm_pair *wm_yaml_find_pair(const struct wm_node *n, const char *key);

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

struct wm_schema {
	struct wm_doc *doc;
	struct wm_error *err;
	struct wm_arena *arena;  /* where validated values go */
};

struct wm_loc wm_schema_loc(const struct wm_schema *c, const struct wm_node *n);

void wm_schema_error(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...) WM_PRINTF(3, 4);
void wm_schema_note(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...) WM_PRINTF(3, 4);
/* A warning: the load still succeeds, and the commands print it unless -q. */
void wm_schema_warning(struct wm_schema *c, const struct wm_node *n, const char *fmt, ...) WM_PRINTF(3, 4);
void wm_schema_error_at(struct wm_schema *c, unsigned line, unsigned column, unsigned span,
	const char *fmt, ...) WM_PRINTF(5, 6);

/*
 * A mapping's keys checked against `keys` (unknown keys are reported with a
 * suggestion); returns false and reports when `n` is not a mapping.  `what`
 * names the mapping in messages ("'python'").
 */
bool wm_schema_map(struct wm_schema *c, const struct wm_node *n, const char *what,
	const char *const *keys, size_t nkeys);

/* Scalars: each returns false (and reports) on a type error. */
bool wm_schema_string(struct wm_schema *c, const struct wm_node *n, const char *what, const char **out);
bool wm_schema_bool(struct wm_schema *c, const struct wm_node *n, const char *what, bool *out);
bool wm_schema_uint(struct wm_schema *c, const struct wm_node *n, const char *what, unsigned *out);
/* A list of strings; a single string is not accepted. */
bool wm_schema_strlist(struct wm_schema *c, const struct wm_node *n, const char *what,
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
/* The releases of a tool ("maturin") a pin may be chosen from, newest first: a sequence, or NULL. */
const struct wm_node *wm_catalog_releases(const struct wm_catalog *cat, const char *name);
/* Checks a manylinux/musllinux level for platform `p`; `why` says what is accepted. */
bool wm_catalog_level_valid(const struct wm_platform *p, const char *level, const char **why);
/* The wheel platform tag of `p` at its current level (arena-allocated). */
const char *wm_catalog_platform_tag(struct wm_arena *a, const struct wm_platform *p);

/* ---- embedded data (templates.c, generated) ------------------------------ */

struct wm_template {
	const char *name;
	const char *data;
	size_t len;
};

extern const struct wm_template wm_templates[];
extern const size_t wm_ntemplates;
const struct wm_template *wm_template_get(const char *name);
/* Parses the embedded templates/<name> (a catalog or an emitter's skeleton) into `doc` (catalog.c). */
int wm_catalog_template_parse(struct wm_doc *doc, const char *name, struct wm_error *err);

/* ---- file input (io.c) --------------------------------------------------- */

/* Reads a whole file ("-" = stdin) of at most `max` bytes; errors name the path. */
int wm_io_read(char **out, size_t *len, const char *path, size_t max, struct wm_error *err);
/*
 * Reads `fd` to its end into a NUL-terminated malloc'd buffer, reporting
 * nothing: WM_EINVALID past `max` bytes, WM_ENOMEM, or WM_EREAD with errno set.
 */
int wm_io_read_fd(char **out, size_t *len, int fd, size_t max);
/*
 * Replaces the file `target` (its directory exists) with `data`
 * atomically: a temporary file beside it, synced, renamed over it, with
 * permissions `mode`.  Messages name it `shown`.
 */
int wm_io_write_atomic(const char *target, const char *shown, const char *data, size_t len, unsigned mode,
	struct wm_error *err);
/*
 * Reads the file `path` below the repository `root` so that
 * nothing leaves it: a symbolic link is followed only while it stays inside the
 * root and out of `.git`, else the error names the link.  1 when there is
 * no file there.
 */
int wm_io_read_below(char **out, size_t *len, const char *root, const char *path, struct wm_error *err);
/*
 * Writes `data` to the file `path` below `root` atomically (wm_io_write_atomic),
 * creating missing directories; a link on the way is followed only while it stays
 * inside the root and out of `.git`.  An existing file keeps its permissions.
 */
int wm_io_write_below(const char *root, const char *path, const char *data, size_t len, struct wm_error *err);
/* The real path of the directory `path` ("" for the root) below `root`, confined as wm_io_read_below; 1 when none. */
int wm_io_dir_below(char **out, const char *root, const char *path, struct wm_error *err);
/* wm_matrix_load_file reading the project through `r` (NULL: the tree below the file's directory). */
int wm_matrix_load_path(struct wm_matrix **out, const struct wm_catalog *cat, const char *path,
	const struct wm_reader *r, struct wm_error *err);

/* ---- variant patches applied to the working tree (variant.c) ----------------- */

/*
 * When `data`, the content of `path` read through `r`, is what one of the
 * patches under .wheelmatrix/patches/ (read through `r` too) makes of a file,
 * puts that file without the patch in `base` and the patch's backend in
 * *applied (malloc'd); else leaves *applied NULL.
 */
int wm_variant_unapply(struct wm_buf *base, char **applied, const struct wm_reader *r, const char *path,
	const char *data, size_t len, struct wm_error *err);
/*
 * A reader over `inner` that gives pyproject.toml as it is without an applied
 * variant patch (the first file found so); wm_variant_reader_applied names
 * that patch's backend, or is NULL.  `inner` must outlive it.
 */
int wm_variant_reader(struct wm_reader *out, const struct wm_reader *inner);
const char *wm_variant_reader_applied(const struct wm_reader *r);
void wm_variant_reader_free(struct wm_reader *r);

/* ---- git objects and diffs (sha1.c, diff.c) -------------------------------- */

void wm_sha1(unsigned char out[20], const void *data, size_t len);
/* The id git gives a blob of these bytes (`git hash-object`), 40 hex digits. */
void wm_sha1_git_blob(char out[41], const char *data, size_t len);
/*
 * Appends a git-format diff turning `old` into `new` at `path`: the
 * `diff --git` header, an `index` line of full blob ids, and hunks
 * with three lines of context.  Line endings are kept byte for byte.
 */
int wm_diff_git(struct wm_buf *out, const char *path, const char *old, size_t oldlen,
	const char *new, size_t newlen);
/*
 * Appends the patch `patch` turned round, undoing what it does: the index
 * ids, the hunk ranges and the signs of changed lines swapped.  WM_EINVALID
 * when it holds no git-format diff.
 */
int wm_diff_reverse(struct wm_buf *out, const char *patch, size_t len);

/* ---- the git repository (repo.c, the only libgit2 user) ------------------ */

struct wm_repo;

/*
 * Opens the repository that holds `dir` (searching its parents): 0 with
 * *out, which the caller frees with wm_repo_free; 1 when there is none.
 */
int wm_repo_discover(struct wm_repo **out, const char *dir, struct wm_error *err);
void wm_repo_free(struct wm_repo *r);
/* The working tree's absolute path with a final '/', or NULL for a bare repository. */
const char *wm_repo_workdir(const struct wm_repo *r);
/*
 * Appends `data`, the content of `path` (relative to the working tree),
 * converted as git converts it on the way into the object store (line
 * endings under core.autocrlf or .gitattributes), or, with `to_worktree`,
 * on the way out.
 */
int wm_repo_filter(struct wm_buf *out, struct wm_repo *r, const char *path, bool to_worktree,
	const char *data, size_t len, struct wm_error *err);

/*
 * Where `root` (a directory on disk) is below the top of the working tree,
 * "" or "dir/", malloc'd into *out; "" for a bare repository; NULL (not an
 * error) when root is outside the working tree.
 */
int wm_repo_prefix(char **out, const struct wm_repo *r, const char *root, struct wm_error *err);

/*
 * A reader of the files below `root` from `kind` (wheelmatrix.h): the index,
 * the tree of commit `rev`, or the working tree converted as `git add` would
 * store it.  Missing files read as 1.  `r` and `root` must outlive it; close
 * it with wm_repo_source_close.
 */
int wm_repo_source_open(struct wm_reader *out, struct wm_repo *r, enum wm_source kind, const char *rev,
	const char *root, struct wm_error *err);
void wm_repo_source_close(struct wm_reader *r);

struct wm_repo_status {
	bool tracked;   /* in the index (always true for the index and a commit) */
	bool ignored;   /* the working tree's ignore rules ignore it (never in a bare repository) */
};
/* What git thinks of `path` (below the source's root). */
int wm_repo_source_status(struct wm_repo_status *out, const struct wm_reader *src, const char *path,
	struct wm_error *err);

/* What a variant patch says about itself. */
struct wm_repo_patch {
	char *path;           /* the one file it modifies (owned) */
	char old_id[41], new_id[41];  /* the blob ids of its index line */
	bool full_ids;        /* the ids are written in full, so they can be compared */
};

/* Parses `patch` with libgit2: one file modified in place, or WM_EINVALID. */
int wm_repo_patch_read(struct wm_repo_patch *out, const char *patch, size_t len, struct wm_error *err);
void wm_repo_patch_release(struct wm_repo_patch *p);
/*
 * Applies `patch` to `pre`, the content of `path`, in an in-memory object
 * store (nothing is written anywhere) and appends the result to `out`.
 * WM_ESTATE, with libgit2's reason, when it does not apply.
 */
int wm_repo_patch_apply(struct wm_buf *out, const char *patch, size_t patchlen, const char *path,
	const char *pre, size_t prelen, struct wm_error *err);

/* ---- emitters ------------------------------------------------------------ */

/*
 * Renders backend b's variant patch of m->project (generate.c) into `out`:
 * 1 when its pyproject.toml differs from the base, 0 when the variant
 * builds the base file as it is.
 */
int wm_generate_variant(struct wm_buf *out, const struct wm_matrix *m, const struct wm_backend *b,
	struct wm_error *err);

/* The body of the GitHub Actions workflow (emit_github.c); `patched[b]`: backend b has a variant patch. */
int wm_emit_github(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, struct wm_error *err);
/* The body of the GitLab CI file (emit_gitlab.c); `patched` as for wm_emit_github. */
int wm_emit_gitlab(struct wm_buf *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const bool *patched, struct wm_error *err);

/* GitLab.com's limits, which the GitLab emitter asserts on what it wrote (gitlab-ci-local does not). */
#define WM_GITLAB_MAX_PERMUTATIONS 200  /* instances of one parallel:matrix job */
#define WM_GITLAB_MAX_NAME 255          /* characters of a job name, matrix instances' names included */
#define WM_GITLAB_MAX_NEEDS 50          /* entries of one `needs`, after matrix expansion */
/*
 * Checks a GitLab CI tree against those limits, reporting each excess in
 * `err` (WM_EINTERNAL: the emitter should have stayed within them).
 */
int wm_emit_gitlab_limits(const struct wm_y *root, struct wm_error *err);

/* What both emitters share (emit.c); strings they return live in b's arena. */
/* A copy of the skeleton's top-level piece `name`, or NULL (reported as a bug). */
struct wm_y *wm_emit_piece(struct wm_yb *b, const struct wm_doc *skel, const char *name, struct wm_error *err);
/* Moves a built string into the arena and releases the buffer; NULL when it is empty (or out of memory). */
const char *wm_emit_keep(struct wm_yb *b, struct wm_buf *out);
/* Replaces @version@, @version-dash@, @major@ and @full@ in a recipe's text (or in a whole tree). */
const char *wm_emit_recipe_text(struct wm_yb *b, const char *text, const struct wm_toolkit_use *u);
void wm_emit_recipe_subst(struct wm_yb *b, struct wm_y *y, const struct wm_toolkit_use *u);
/* The toolkit recipe's `provider`.`os`.`key` node, or NULL. */
const struct wm_node *wm_emit_recipe(const struct wm_toolkit_use *u, const char *provider, enum wm_os os,
	const char *key);
/* The libraries the wheel repair must leave out for backend `b` on `os`, space-separated, or NULL. */
const char *wm_emit_repair_exclude(struct wm_yb *yb, const struct wm_backend *b, enum wm_os os);
/* The module a backend's wheel holds: the project's, or _<package>_<backend>.<leaf> under meta. */
const char *wm_emit_module(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b);
/* Backend b has a variant patch (`patched` NULL: no project was read, so guess from the matrix). */
bool wm_emit_has_patch(const struct wm_matrix *m, const bool *patched, const struct wm_backend *b);
const char *wm_emit_env_value(const struct wm_env *env, size_t n, const char *name);
/* A wheel built for `p` (cross-built or not) can be installed and imported where it was built. */
bool wm_emit_runnable(const struct wm_platform *p, bool cross);
/* The publish jobs' version check, templates/check-version.py, as a `python3 -` heredoc. */
const char *wm_emit_check_version(struct wm_yb *b);
/* pyproject.toml's directory, where maturin runs: "" at the repository root, else "python" (no '/'). */
const char *wm_emit_project_dir(struct wm_arena *a, const struct wm_matrix *m);
/* The repository root's dist/ as seen from that directory: "dist", "../dist", "../../dist", ... */
const char *wm_emit_out_dir(struct wm_arena *a, const struct wm_matrix *m);
/*
 * The shell lines a Linux build runs in its container before building, or
 * NULL: the toolkits' recipes for `provider` (`key` names the recipe's list
 * or text) joined, then the backend's own `before-script-linux`.
 */
const char *wm_emit_before_script(struct wm_yb *b, const struct wm_backend *be, const char *provider,
	const char *key);
/* The parsed matrix file, for diagnostics with its source lines (matrix.c). */
const struct wm_doc *wm_matrix_doc(const struct wm_matrix *m);

/* ---- expansion internals (expand.c) -------------------------------------- */

/* Precomputes the expansion masks and groups of a validated matrix; fills njobs and groups. */
int wm_expand_prepare(struct wm_matrix *m, struct wm_schema *c);
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

/* ---- TOML with source positions (toml.c) --------------------------------- */

/*
 * A TOML 1.0.0 document parsed for byte-exact edits of pyproject.toml and
 * Cargo.toml: every key, value, table header and comment keeps where it is
 * written.  Everything lives in the document's arena and stays valid until
 * wm_toml_release; callers only read the structures.
 */

#define WM_TOML_MAX_BYTES (16u << 20)  /* input size */
#define WM_TOML_MAX_DEPTH 128          /* nesting of tables and arrays */

/*
 * Bytes [start, end) of the input; line and column (1-based, the column in
 * characters, a UTF-8 byte-order mark counting as one) are those of start.
 */
struct wm_toml_span {
	size_t start, end;
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
	bool trailing_comma;              /* a comma after the last item */
	struct wm_toml_span comma;        /* that comma, when there is one */
	bool multiline;                   /* `[` and `]` are on different lines */
	bool aot;                         /* an array of tables: its items are [[header]] tables */
};

/*
 * A value.  `span` is the value as written: a string with its quotes, an
 * array from `[` to `]`, an inline table from `{` to `}`.  A table made by a
 * header has the header's span; an implicit or dotted table the key part
 * that created it; an array of tables its first [[header]].
 */
struct wm_toml_value {
	enum wm_toml_type type;
	struct wm_toml_span span;
	const char *str;           /* string: decoded, NUL-terminated (it may hold NULs: see len) */
	size_t len;
	enum wm_toml_style style;  /* string: how it is written */
	const char *raw;           /* integer, float, boolean, date-times: the text as written */
	int64_t integer;
	double number;             /* float */
	bool boolean;
	struct wm_toml_array array;
	struct wm_toml_table *table;
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
	struct wm_toml_table *parent;  /* NULL for the root */
	const char *key;               /* its key in the parent ("" for the root) */
	size_t keylen;
	struct wm_toml_entry *entries; /* direct children, in order of first appearance */
	size_t n;
	struct wm_toml_kv *kvs;        /* the key/value pairs of its section, in source order */
	size_t nkvs;
	struct wm_toml_span header;    /* [a.b], [[a.b]], or an inline table's braces; zero otherwise */
	size_t append;
	unsigned depth;                /* 0 for the root */
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
 * and with its source line, as WM_EINVALID (WM_ENOMEM when out of memory).
 * Multi-line strings are decoded with their CRLF line endings as LF.
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
/* True when `s` can go between the quotes of a `style` string (basic or literal) as it is. */
bool wm_toml_string_fits(const char *s, enum wm_toml_style style);

/* ---- the project's own files (project.c) ---------------------------------- */

/* What the matrix takes from pyproject.toml and Cargo.toml; strings point into the parsed files. */
struct wm_project {
	struct wm_arena arena;
	struct wm_toml_doc py, cargo, workspace;
	bool has_py, has_cargo;
	const char *py_path, *cargo_path;       /* repository-relative */
	const char *name;                       /* [project].name, NULL when absent */
	const char *version;                    /* [project].version, else Cargo's (workspace included) */
	const char *version_file;
	bool version_dynamic;
	const char *requires_python;
	unsigned min_minor;                     /* of requires-python, 0 when unknown */
	const char *module_name, *python_source, *manifest_setting, *bindings;  /* [tool.maturin] */
	struct wm_strlist maturin_features;     /* the string entries of [tool.maturin].features */
	const char *crate_name, *lib_name;
	const char **features;                  /* the keys of Cargo's [features] */
	size_t nfeatures;
	const char **deps;                      /* the keys of Cargo's [dependencies] */
	bool *deps_optional;
	size_t ndeps;
	bool abi3;                              /* pyo3's abi3 feature is on */
	unsigned abi3_minor;                    /* the lowest abi3-py3X; 0 for plain abi3 (the interpreter's) */
	const char *abi3_feature, *abi3_file;   /* the feature that sets it, and where */
	const struct wm_toml_doc *abi3_doc;
	struct wm_toml_span abi3_span;
	bool src_layout_by_name;                /* no python-source, and src/<name> is a directory */
	/* maturin in [build-system].requires: its specifiers (">=1.9,<2", "" for any), NULL when not listed */
	const char *maturin_specs;
	struct wm_toml_span maturin_span;
};

/*
 * Reads pyproject.toml (at `pyproject`) and the crate's manifest (`manifest`,
 * or NULL for maturin's default) through `r`.  Returns 1 when pyproject.toml
 * does not exist (nothing reported), 0 with *out set, or an error.
 */
int wm_project_load(struct wm_project **out, const struct wm_reader *r, const char *pyproject,
	const char *manifest, struct wm_error *err);
void wm_project_free(struct wm_project *p);
#define WM_ABI3_BUILD 12    /* the interpreter that builds an abi3 wheel: every runner and image has it */
/* The abi3 minimum: the lowest abi3-py3X; for plain abi3, the interpreter's (WM_ABI3_BUILD or requires-python's). */
unsigned wm_project_abi3_minor(const struct wm_project *p);
/* maturin's module name: module-name, else [lib].name, else the project name with '_'. */
const char *wm_project_module(struct wm_arena *a, const char *module_name, const char *lib_name, const char *name);
/* Whether a feature exists for Cargo: a [features] key, `dep/feature`, `dep:name`; else a close name. */
bool wm_project_has_feature(const struct wm_project *p, const char *feature, const char **hint);

/* ---- variant patches of pyproject.toml (patch.c) ---------------------------- */

/* What one build variant changes in the project's pyproject.toml; NULL or 0 leaves a part alone. */
struct wm_patch_spec {
	const char *name;           /* the variant's distribution name for [project].name, or NULL to keep */
	const char *old_name;       /* the base name: self-references `old[extra]` in dependencies and
	                               optional-dependencies become `name[extra]`; NULL: [project].name */
	const char *const *features; size_t nfeatures;  /* merged into [tool.maturin].features */
	const char *module_name;    /* pin [tool.maturin].module-name, or NULL */
	const char *python_source;  /* pin [tool.maturin].python-source, or NULL */
	const char *manifest_path;  /* pin [tool.maturin].manifest-path, or NULL */
	const char *const *dependencies; size_t ndependencies;  /* PEP 508 strings appended to [project].dependencies */
};

/*
 * Appends to `out` the text of `doc` (a parsed pyproject.toml) edited for one
 * variant.  Each change is a splice of the original text, so every byte
 * outside the edited values is kept, line endings and a missing final newline
 * included; inserted lines use the document's line ending.
 *   - [project].name: the string replaced, keeping '...' quotes; names in
 *     comments or other strings are left alone;
 *   - requirements of [project].dependencies and optional-dependencies whose
 *     PEP 503 name is old_name's: just the name replaced (`old[x]>=1` -> `new[x]>=1`);
 *   - features and dependencies: the strings not in the array yet (exact match)
 *     appended in the array's layout (one line per item in a multi-line array,
 *     indented and comma'd like its last item); the key is added when missing;
 *   - module-name, python-source, manifest-path: the value replaced or the key added;
 *   - keys are added at the table's append offset (with its dotted prefix when
 *     dotted keys made it), or as `, key = value` after the last pair of an
 *     inline table; without a [tool.maturin] table, `maturin = {...}` goes into
 *     an inline `tool`, else a new [tool.maturin] section at the end, after a
 *     blank line.
 * Errors (WM_EINVALID, positioned in doc->file): no [project].name, a value of
 * the wrong type, dependencies to add that [project].dynamic lists;
 * WM_EINTERNAL if two edits overlapped (a bug).  `out` is the caller's;
 * nothing is added to it on failure, except on WM_ENOMEM.
 */
int wm_patch_pyproject(struct wm_buf *out, const struct wm_toml_doc *doc, const struct wm_patch_spec *spec,
	struct wm_error *err);

/* Reports an error at `sp` of `doc` (NULL: no position), with its source line, and returns `code`. */
int wm_toml_fail(const struct wm_toml_doc *doc, struct wm_error *err, enum wm_err code,
	const struct wm_toml_span *sp, const char *fmt, ...) WM_PRINTF(5, 6);
int wm_toml_vfail(const struct wm_toml_doc *doc, struct wm_error *err, enum wm_err code,
	const struct wm_toml_span *sp, const char *fmt, va_list ap);

/* ---- strategy meta (meta.c) ------------------------------------------------- */

/* A file of the project that the meta package carries. */
struct wm_meta_file {
	const char *from;           /* repository-relative */
	const char *to;             /* below .wheelmatrix/meta/ */
	const char *data;
	size_t len;
};

struct wm_meta {
	const char *version;        /* the project's, as PEP 440 writes it: every pin */
	const char *package;        /* the top import package (llm_rs) */
	const char *leaf;           /* the native module's last name, whose PyInit_ symbol stays */
	const char *env;            /* LLM_RS_BACKEND */
	const char *project_dir;    /* pyproject.toml's directory, "" at the root */
	bool mixed;                 /* maturin's mixed layout: a Python package beside the native module */
	const char *source_dir;     /* where that package is (or would be) */
	const char *dispatcher;     /* its path below .wheelmatrix/meta/ */
	struct wm_meta_file *files;
	size_t nfiles;
};

/*
 * Finds the layout of `m`'s project with maturin's rules (python-source; src/
 * when the crate is in another directory; else beside pyproject.toml) and
 * reads the Python files the meta package carries through `r`.  Errors: no
 * version to pin, a dotted module without a Python package.
 */
int wm_meta_scan(const struct wm_meta **out, struct wm_arena *a, const struct wm_matrix *m,
	const struct wm_reader *r, struct wm_error *err);
/* Backend `b`'s import package (_llm_rs_cuda), module-name and python-source under meta (arena-allocated). */
const char *wm_meta_import(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b);
const char *wm_meta_module_name(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b);
const char *wm_meta_python_source(struct wm_arena *a, const struct wm_backend *b);
/* Adds the backends' python-source files and the meta package to `out`; nothing without m->meta. */
int wm_meta_generate(struct wm_files *out, const struct wm_matrix *m, const char *matrix_file,
	struct wm_error *err);

/* ---- release planning (pep440.c, wheelname.c, simple.c, net.c, report.c) ---- */

/*
 * Appends `version` written as PEP 440 normalises it (Cargo's semver
 * included: 0.3.0-alpha.1 -> 0.3.0a1); WM_EINVALID with `why` set when it
 * cannot be written so.
 */
int wm_pep440(struct wm_buf *out, const char *version, const char **why);
/* Equal once normalised (compared as text when either is not PEP 440). */
bool wm_pep440_equal(const char *a, const char *b);
/*
 * Whether the release `version` (1.2.3) satisfies every comma-separated
 * specifier of `specs` (">=1.9,<2", "~=1.14", "==1.9.*"); an empty list
 * admits any.  Bounds are compared by their release part.  1 or 0, or
 * WM_EINVALID with `why` set when either cannot be read.
 */
int wm_pep440_specs_match(const char *specs, const char *version, const char **why);

/* The name part of a wheel or sdist file name (`_` for runs of -_., lower case) into `out`. */
void wm_filename_dist(char *out, const char *name);
char *wm_filename_wheel(struct wm_arena *a, const char *dist, const char *version, const char *python_tag,
	const char *abi_tag, const char *platform_tag);
char *wm_filename_sdist(struct wm_arena *a, const char *dist, const char *version);

enum wm_file_kind { WM_FILE_OTHER, WM_FILE_WHEEL, WM_FILE_SDIST };
/* A file name split into its parts (in the arena); tag parts may be '.'-separated sets. */
struct wm_filename {
	enum wm_file_kind kind;
	const char *name, *version, *build, *python, *abi, *platform;
};
int wm_filename_parse(struct wm_filename *out, struct wm_arena *a, const char *filename);
/* A wheel whose tag sets include these tags, its platform tags matched leniently (wheelname.c). */
bool wm_filename_matches_wheel(const struct wm_filename *f, const char *python_tag, const char *abi_tag,
	const char *platform_tag);

/* A project page of a simple index: its files, in the arena. */
struct wm_index_page {
	struct wm_index_file *files;
	size_t n;
	const char *api;  /* "json" or "html" */
};

struct wm_plan;
struct wm_plan_dist;
/*
 * plan.c: the index page's files of the planned version matched with distribution d's
 * artifacts, exact names first, then by tags; sets the artifacts' and d's state and the
 * unexpected and large files.  What plan does with each index's answer.
 */
int wm_plan_compare(struct wm_plan *plan, struct wm_plan_dist *d, const struct wm_index_page *page);
/*
 * Reads a project page by its content type: PEP 691 JSON through Jansson
 * (json.c), PEP 503 HTML here.  WM_EINVALID with `why` (in the arena) when
 * the page is not one.
 */
int wm_simple_parse(struct wm_index_page *out, struct wm_arena *a, const char *content_type,
	const char *body, size_t len, const char **why);
int wm_json_simple_page(struct wm_index_page *out, struct wm_arena *a, const char *body, size_t len,
	const char **why);
/* "present", "missing", ...; "new", "published", ... (plan.c) */
const char *wm_plan_artifact_state_name(enum wm_artifact_state s);
const char *wm_plan_dist_state_name(enum wm_dist_state s);
/* The JSON report of a plan (json.c). */
int wm_json_plan(struct wm_buf *out, const struct wm_plan *p);

/* One GET of a batch (net.c).  Everything the caller reads is malloc'd and released with the request. */
struct wm_net_request {
	const char *url;           /* in: not copied */
	long status;               /* the final HTTP status, 0 when no response came */
	char *content_type;        /* NULL when the response had none */
	char *body;                /* NUL-terminated */
	size_t len;
	char *error;               /* why the request failed after its retries, NULL when a response came */
	unsigned attempts;
	/* the fetcher's own state */
	void *priv;
};
struct wm_net_options {
	const char *accept;
	unsigned jobs, retries;
	long timeout_ms, connect_timeout_ms;
	unsigned backoff_ms;
	size_t max_bytes;
	const char *cacert, *netrc, *username, *password;
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
};
/*
 * Fetches every request, `jobs` at once, each retried on 429, 5xx and
 * transient transport failures with exponential backoff (Retry-After
 * honoured).  Returns 0, or WM_ENOMEM; failures are per request.
 */
int wm_net_fetch(struct wm_net_request *reqs, size_t n, const struct wm_net_options *o);
void wm_net_request_release(struct wm_net_request *r);

/* Base64 of `len` bytes (report.c's CSP hashes) into `out` (4 * ((len + 2) / 3) + 1 bytes). */
void wm_report_base64(char *out, const unsigned char *data, size_t len);

#endif
