/* yaml.h — YAML documents into our tree, and our trees out, through libyaml (its only user) (yaml.c). */
#ifndef WM_FORMATS_YAML_H
#define WM_FORMATS_YAML_H

#include "util/common.h"
#include "util/arena.h"
#include "util/buf.h"

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

/*
 * What a document may hold.  Nodes and text are counted as if every alias
 * were expanded: an alias counts the nodes and the scalar bytes (keys
 * included) of what it stands for, each time it is used.
 */
struct wm_yaml_limits {
	size_t max_bytes;        /* the input */
	unsigned max_depth;      /* nesting of collections */
	uint64_t max_nodes;      /* nodes, aliases expanded */
	uint64_t max_text;       /* bytes of scalar text, aliases expanded */
};

/*
 * Parses one YAML document into `doc` (which the caller releases with
 * wm_yaml_release, also on failure).  Scalars stay text; duplicate keys,
 * non-scalar keys, unknown anchors, aliases past the limits (reported at
 * the alias or scalar that crosses one) and excess depth are errors.
 */
int wm_yaml_parse(struct wm_doc *doc, const char *file, const char *text, size_t len,
	const struct wm_yaml_limits *limits, struct wm_error *err);
void wm_yaml_release(struct wm_doc *doc);

/* Reading a tree. */
/* A scalar written plain, or tagged `tag` ("tag:yaml.org,2002:int"). */
bool wm_yaml_plain(const struct wm_node *n, const char *tag);
bool wm_yaml_is_null(const struct wm_node *n);
const char *wm_yaml_kind(const struct wm_node *n);  /* "a mapping", "a string", "null", ... */
/*
 * A plain decimal such as 3.10 or 12.0, which YAML 1.1 and 1.2 readers take
 * for a number that, written back, is not its text: that number's shortest
 * form ("3.1", "12") into `out`; false for any other node.
 */
bool wm_yaml_misread_number(const struct wm_node *n, char *out, size_t size);
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
	/*
	 * scalar: a comment written after it on its line (` # comment`), or NULL; only for a
	 * scalar written plain, in one line of printable text (wm_yaml_comment_ok)
	 */
	const char *comment;
	/*
	 * A name ([a-z0-9-]) under which the node is written once: when nodes marked with a name hold
	 * equal trees (text, style and comments alike), the first is written with an anchor, `&name`,
	 * and each later one as its alias, `*name`.  A name belongs to the first tree marked with it:
	 * a different tree marked with the same name is written in full.  A node marked but written
	 * once gets no anchor.
	 */
	const char *share;
	struct wm_y **items;     /* sequence: items; mapping: key, value, key, value, ... */
	size_t n, cap;
};

/* Builds trees in an arena; an allocation failure sets `oom` and the calls go on harmlessly. */
struct wm_yb {
	struct wm_arena *arena;
	bool oom;
};

struct wm_y *wm_yaml_str(struct wm_yb *b, const char *s);   /* not copied */
struct wm_y *wm_yaml_strf(struct wm_yb *b, const char *fmt, ...) WM_PRINTF(2, 3);
struct wm_y *wm_yaml_bool(struct wm_yb *b, bool v);
struct wm_y *wm_yaml_literal(struct wm_yb *b, const char *s);
struct wm_y *wm_yaml_map(struct wm_yb *b);
struct wm_y *wm_yaml_seq(struct wm_yb *b);
/* Sets `key` (copied; an existing key's value is replaced in place); returns `value`. */
struct wm_y *wm_yaml_set(struct wm_yb *b, struct wm_y *map, const char *key, struct wm_y *value);
/* The same, placing a new key just before `before` (at the end when there is none). */
struct wm_y *wm_yaml_set_before(struct wm_yb *b, struct wm_y *map, const char *before, const char *key,
	struct wm_y *value);
struct wm_y *wm_yaml_push(struct wm_yb *b, struct wm_y *seq, struct wm_y *value);
struct wm_y *wm_yaml_get(const struct wm_y *map, const char *key);
/* A deep copy of a parsed tree (a skeleton from templates/), to be filled in. */
struct wm_y *wm_yaml_copy(struct wm_yb *b, const struct wm_node *n);
/* True when plain `s` would not read back as the same string under YAML 1.1 or 1.2. */
bool wm_yaml_needs_quotes(const char *s, size_t len);
/* True when `s` can follow a '#' on a line: printable UTF-8, no control, format or separator character. */
bool wm_yaml_comment_ok(const char *s);
/*
 * The byte offset in doc->text of (line, column) as nodes give them (1-based,
 * columns in characters, lines broken where libyaml breaks them: LF, CR,
 * CRLF, NEL, U+2028, U+2029); doc->len when past the end.
 */
size_t wm_yaml_offset(const struct wm_doc *doc, unsigned line, unsigned column);
/* The offset where the line after the one holding `offset` starts, broken as wm_yaml_offset; doc->len at the last. */
size_t wm_yaml_next_line(const struct wm_doc *doc, size_t offset);
/*
 * The comment on the rest of the line where node `n` ends, when only blanks
 * (and, in a flow collection, a ',') stand between: its text after the '#'
 * and its blanks, trailing blanks dropped, in *text and *len; false when
 * there is none.
 */
bool wm_yaml_trailing_comment(const struct wm_doc *doc, const struct wm_node *n, const char **text, size_t *len);

/*
 * Appends the document to `out`: block style, unlimited width, LF line ends, no header.  A
 * document longer than WM_GENERATED_MAX_BYTES is not written out: the writer stops just past the
 * bound and returns WM_EINVALID, reporting nothing but the code, with `out` longer than the
 * bound, so that the caller, who knows which file it is, names it (wm_generate does).  Nodes
 * marked with `share` are written once, with aliases after (see struct wm_y).
 */
int wm_yaml_emit(struct wm_buf *out, const struct wm_y *root, struct wm_error *err);

#endif
