/* pin.c — the actions of the generated workflows resolved to commits on their forge, and written into the matrix file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "util/text.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/matrix.h"
#include "emit/github.h"
#include "index/net.h"
#include "index/refs.h"
#include "index/pin.h"

void wm_pin_options_init(struct wm_pin_options *o)
{
	memset(o, 0, sizeof(*o));
	o->move = WM_PIN_KEEP;
	WM_NET_DEFAULTS(o);
}

void wm_pin_free(struct wm_pin *p)
{
	if (!p)
		return;
	wm_arena_release(p->arena);
	free(p->arena);
	free(p);
}

static bool is_sha(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n == 40 && !s[n];
}

int wm_pin_new(struct wm_pin **out, const struct wm_matrix *m, const struct wm_catalog *cat, struct wm_error *err)
{
	struct wm_pin *p = calloc(1, sizeof(*p));
	size_t nactions = wm_catalog_action_count(cat);
	bool *used = calloc(nactions + 1, sizeof(*used));
	int ret = WM_ENOMEM;

	*out = NULL;
	if (!p || !used || !(p->arena = malloc(sizeof(*p->arena))))
		goto fail;
	wm_arena_init(p->arena);
	p->matrix = m;
	if (!(p->actions = wm_arena_array(p->arena, nactions + 1, sizeof(*p->actions))))
		goto fail;
	/* what the GitHub workflow would use, as generate writes it; without a matrix, every action */
	for (size_t i = 0; !m && i < nactions; i++)
		used[i] = true;
	if (m && m->github.enabled && (ret = wm_emit_github_actions(used, m, cat, err)) < 0)
		goto out;
	for (size_t i = 0; i < nactions; i++) {
		struct wm_pin_action *a;
		if (!used[i])
			continue;
		a = &p->actions[p->n++];
		a->action = wm_catalog_action_name(cat, i);
		a->ref = wm_catalog_action(cat, a->action);
		for (size_t k = 0; m && k < m->nactions; k++)
			if (strcmp(m->actions[k].action, a->action) == 0) {
				a->ref = m->actions[k].ref;
				a->tag = m->actions[k].tag;
				a->in_table = true;
			}
		a->pinned = is_sha(a->ref);
		if (!a->pinned)
			a->tag = a->ref;
	}
	free(used);
	*out = p;
	return 0;
fail:
	wm_error_code(err, WM_ENOMEM);
out:
	free(used);
	wm_pin_free(p);
	return ret;
}

/* ---- tags as versions ------------------------------------------------------- */

/* A release tag: an optional 'v', then one to four numbers with dots between, and nothing else. */
static bool release_version(const char *tag, struct wm_refs_release *v)
{
	return wm_refs_release_read(tag, 4, v);
}

/* The major version a tag names: its last path component read as a release ("release/v1": 1). */
static bool tag_major(const char *tag, unsigned long *major)
{
	const char *slash = strrchr(tag, '/');
	struct wm_refs_release v;
	if (!release_version(slash ? slash + 1 : tag, &v))
		return false;
	*major = v.part[0];
	return true;
}

/* The newest release tag of `refs`, of major version `major` unless `any`; NULL when none. */
static const struct wm_refs_tag *newest(const struct wm_refs *refs, bool any, unsigned long major)
{
	const struct wm_refs_tag *best = NULL;
	struct wm_refs_release bv = { { 0 }, 0 }, v;
	for (size_t i = 0; i < refs->ntags; i++) {
		if (!release_version(refs->tags[i].name, &v) || (!any && v.part[0] != major))
			continue;
		if (!best || wm_refs_release_cmp(&v, &bv) > 0) {
			best = &refs->tags[i];
			bv = v;
		}
	}
	return best;
}

static const struct wm_refs_tag *find_ref(const struct wm_refs_tag *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return &list[i];
	return NULL;
}

/* ---- asking the forge ------------------------------------------------------- */

/* What the forge's refs say of action `a`: the commit of its tag, the newest tags, the pin to write. */
static int settle(struct wm_pin *p, struct wm_pin_action *a, const struct wm_refs *refs, enum wm_pin_move move)
{
	struct wm_arena *ar = p->arena;
	const struct wm_refs_tag *t = NULL, *want = NULL;
	unsigned long major = 0;
	bool has_major = a->tag && tag_major(a->tag, &major);

	a->refs_read = true;
	if (a->tag && !(t = find_ref(refs->tags, refs->ntags, a->tag)))
		t = find_ref(refs->heads, refs->nheads, a->tag);
	if (t && !(a->tag_sha = wm_arena_strdup(ar, t->commit)))
		return WM_ENOMEM;
	if ((want = newest(refs, true, 0)) && !(a->latest = want->name))
		return WM_ENOMEM;
	if (has_major && (want = newest(refs, false, major)))
		a->latest_major = want->name;
	switch (move) {
	case WM_PIN_KEEP:
		if (!a->tag)
			a->error = "pinned to a commit without its tag: write the tag after the SHA ('# v4.2.2'), or pin "
				"to the newest with --major";
		else if (!t)
			a->error = wm_arena_printf(ar, "the repository has no tag or branch '%s'", a->tag);
		else
			want = t;
		break;
	case WM_PIN_UPDATE:
		if (!a->tag)
			a->error = "pinned to a commit without its tag: write the tag after the SHA ('# v4.2.2'), or pin "
				"to the newest with --major";
		else if (!has_major)
			a->error = wm_arena_printf(ar, "'%s' names no major version (v1, v1.2.3): --update cannot tell "
				"which tags are of its major; pin to the newest with --major", a->tag);
		else if (!(want = newest(refs, false, major)))
			a->error = wm_arena_printf(ar, "the repository has no release tag of major version %lu", major);
		break;
	case WM_PIN_MAJOR:
		if (!(want = newest(refs, true, 0)))
			a->error = "the repository has no release tag (v1, v1.2.3)";
		break;
	}
	if (!a->error) {
		a->new_tag = want->name;
		if (!(a->new_sha = wm_arena_strdup(ar, want->commit)))
			return WM_ENOMEM;
		a->changes = !a->pinned || strcmp(a->ref, a->new_sha) != 0 || !a->tag || strcmp(a->tag, a->new_tag) != 0;
	}
	return 0;
}

int wm_pin_resolve(struct wm_pin *p, const struct wm_pin_options *o, struct wm_error *err)
{
	return wm_pin_resolve_with(p, o, NULL, 0, err);
}

int wm_pin_resolve_with(struct wm_pin *p, const struct wm_pin_options *o, struct wm_net_request *extra,
	size_t nextra, struct wm_error *err)
{
	struct wm_refs_query *q = NULL;
	struct wm_net_options no;
	struct wm_buf b = WM_BUF_INIT;
	const char *forge = o->forge ? o->forge : WM_PIN_FORGE;
	int ret;

	if ((ret = wm_refs_forge_check(forge, err)) < 0)
		return ret;
	wm_text_url(&b, forge, strlen(forge));
	p->forge = b.oom ? NULL : wm_arena_strndup(p->arena, b.ptr ? b.ptr : "", b.len);
	wm_buf_release(&b);
	if (!p->forge)
		return wm_error_oom(err);
	if (p->n + nextra == 0)
		return 0;
	if ((ret = wm_net_cacert_check(o->cacert, err)) < 0 || (ret = wm_net_init(err)) < 0)
		return ret;
	if (!(q = calloc(p->n + 1, sizeof(*q))))
		return wm_error_oom(err);
	for (size_t i = 0; i < p->n; i++)
		q[i].repo = p->actions[i].action;
	memset(&no, 0, sizeof(no));
	no.jobs = o->jobs;
	no.retries = o->retries;
	no.timeout_ms = o->timeout_ms;
	no.connect_timeout_ms = o->connect_timeout_ms;
	no.backoff_ms = o->backoff_ms;
	no.max_bytes = o->max_bytes;
	no.cacert = o->cacert;
	no.netrc = o->netrc;
	ret = wm_refs_fetch_with(q, p->n, p->arena, forge, 0, &no, extra, nextra);
	for (size_t i = 0; ret == 0 && i < p->n; i++) {
		if (q[i].error)
			p->actions[i].error = wm_arena_printf(p->arena, "%s: %s", q[i].url, q[i].error);
		else
			ret = settle(p, &p->actions[i], &q[i].refs, o->move);
	}
	free(q);
	if (ret < 0)
		wm_error_code(err, ret);
	return ret;
}

/* ---- the edit of the matrix file ------------------------------------------- */

struct edit {
	const struct wm_doc *doc;
	const char *file;
	struct wm_error *err;
};

static int refuse(struct edit *e, const struct wm_node *at, const char *msg)
{
	wm_error_add(e->err, WM_EINVALID, WM_SEV_ERROR, e->file, e->doc->text, e->doc->len, at ? at->line : 0,
		at ? at->column : 0, 1, "%s", msg);
	return WM_EINVALID;
}

static size_t offset(const struct edit *e, unsigned line, unsigned column)
{
	return wm_yaml_offset(e->doc, line, column);
}

/* Node n lies where it is written: after `after` (a key, or NULL), before `end`; an alias's node lies at its anchor. */
static bool in_place(const struct wm_node *n, const struct wm_node *after, unsigned end_line, unsigned end_column)
{
	bool starts_after = !after || n->line > after->line || (n->line == after->line && n->column > after->column);
	bool ends_before = n->end_line < end_line || (n->end_line == end_line && n->end_column <= end_column);
	return starts_after && ends_before;
}

/* The offset just past the end of the line holding byte `at` (past its line break); *brk: the file's line break. */
static size_t line_end(const struct edit *e, size_t at, bool *had_break)
{
	const char *s = e->doc->text;
	size_t len = e->doc->len;
	while (at < len && s[at] != '\n' && s[at] != '\r')
		at++;
	*had_break = at < len;
	if (at < len && s[at] == '\r' && at + 1 < len && s[at + 1] == '\n')
		return at + 2;
	return at < len ? at + 1 : at;
}

/* The line break the file uses: CRLF when its first line ends so, else LF. */
static const char *newline(const struct edit *e)
{
	const char *nl = memchr(e->doc->text, '\n', e->doc->len);
	return nl && nl > e->doc->text && nl[-1] == '\r' ? "\r\n" : "\n";
}

struct splice {
	size_t start, end;
	char *text;
};

static int splice_add(struct splice **list, size_t *n, size_t start, size_t end, struct wm_buf *text)
{
	struct splice *p = realloc(*list, (*n + 1) * sizeof(**list));
	if (!p || text->oom)
		return WM_ENOMEM;
	*list = p;
	p[*n].start = start;
	p[*n].end = end;
	if (!(p[*n].text = wm_buf_detach(text)) && !(p[*n].text = strdup("")))
		return WM_ENOMEM;
	(*n)++;
	return 0;
}

static int splice_cmp(const void *a, const void *b)
{
	const struct splice *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* The value of entry `action` in the table, or NULL. */
static const struct wm_pair *entry(const struct wm_node *table, const char *action)
{
	for (size_t i = 0; table && table->type == WM_NODE_MAP && i < table->n; i++)
		if (strcmp(table->pairs[i].key->text, action) == 0)
			return &table->pairs[i];
	return NULL;
}

/*
 * The edit read back: the new text parses, its top level has the same keys
 * (and 'actions' when it had none), and each pin written reads as meant,
 * value and tag.  Otherwise the edit is a bug of ours and nothing is written.
 */
static bool reads_back(const struct wm_pin *p, const char *text, size_t len)
{
	const struct wm_doc *old = wm_matrix_doc(p->matrix);
	const struct wm_yaml_limits limits = { WM_MATRIX_MAX_BYTES * 2, 64, 1u << 20, 1u << 24 };
	struct wm_doc doc;
	struct wm_error err;
	const struct wm_node *table;
	bool ok;

	wm_error_init(&err);
	ok = wm_yaml_parse(&doc, p->matrix->file, text, len, &limits, &err) == 0 && doc.root &&
		doc.root->type == WM_NODE_MAP && (table = wm_yaml_find(doc.root, "actions")) && table->type == WM_NODE_MAP;
	for (size_t i = 0; ok && i < old->root->n; i++)
		ok = wm_yaml_find(doc.root, old->root->pairs[i].key->text) != NULL;
	ok = ok && doc.root->n == old->root->n + !wm_yaml_find(old->root, "actions");
	for (size_t i = 0; ok && i < p->n; i++) {
		const struct wm_pin_action *a = &p->actions[i];
		const struct wm_node *v = wm_yaml_find(table, a->action);
		const char *c;
		size_t clen;
		if (!a->new_sha || !a->changes)
			continue;
		ok = v && v->type == WM_NODE_SCALAR && strcmp(v->text, a->new_sha) == 0 &&
			wm_yaml_trailing_comment(&doc, v, &c, &clen) && clen == strlen(a->new_tag) &&
			memcmp(c, a->new_tag, clen) == 0;
	}
	wm_yaml_release(&doc);
	wm_error_release(&err);
	return ok;
}

/* The offset of the '#' of the comment after value `v` on its line (past blanks and a ','), or SIZE_MAX. */
static size_t comment_at(const struct edit *e, const struct wm_node *v)
{
	const char *s = e->doc->text;
	size_t i = offset(e, v->end_line, v->end_column);
	while (i < e->doc->len && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
		i++;
	return i < e->doc->len && s[i] == '#' ? i : SIZE_MAX;
}

/*
 * A table in flow style, written again in flow style one entry a line, so
 * that each pin's tag can follow its entry as a comment: `{owner/name: <sha>,
 * # <tag>` ... `}`.  Each key as written, each value as written or replaced
 * by its pin, an entry's own comment kept (or replaced by the new tag); a
 * comment anywhere else in the table would be lost, so it is refused.
 */
static int flow_table(struct edit *e, const struct wm_pin *p, const struct wm_node *table, const struct wm_node *key,
	const char *nl, struct wm_buf *out)
{
	const char *s = e->doc->text;
	size_t start = offset(e, table->line, table->column), end = offset(e, table->end_line, table->end_column);
	unsigned indent = key->column + 1;
	size_t written = 0;

	for (size_t i = start; i < end; i++) {
		bool owned = false;
		if (s[i] != '#')
			continue;
		for (size_t k = 0; !owned && k < table->n; k++)
			owned = comment_at(e, table->pairs[k].value) == i;
		if (!owned)
			return refuse(e, table, "the actions table in flow style has a comment pin would lose (one not after "
				"an entry): move it out of the table");
	}
	wm_buf_putc(out, '{');
	for (size_t k = 0; k < table->n; k++) {
		const struct wm_node *kn = table->pairs[k].key, *v = table->pairs[k].value;
		const struct wm_pin_action *a = NULL;
		size_t ks = offset(e, kn->line, kn->column), ke = offset(e, kn->end_line, kn->end_column);
		size_t vs = offset(e, v->line, v->column), ve = offset(e, v->end_line, v->end_column), c = comment_at(e, v);
		for (size_t i = 0; !a && i < p->n; i++)
			if (strcmp(p->actions[i].action, kn->text) == 0 && p->actions[i].new_sha && p->actions[i].changes)
				a = &p->actions[i];
		if (written++)
			wm_buf_printf(out, "%s%*s", nl, (int)indent, "");
		wm_buf_add(out, s + ks, ke - ks);
		wm_buf_puts(out, ": ");
		if (a) {
			wm_buf_printf(out, "%s,  # %s", a->new_sha, a->new_tag);
			continue;
		}
		wm_buf_add(out, s + vs, ve - vs);
		wm_buf_putc(out, ',');
		if (c != SIZE_MAX) {
			size_t ce = c;
			while (ce < e->doc->len && s[ce] != '\n' && s[ce] != '\r')
				ce++;
			wm_buf_puts(out, "  ");
			wm_buf_add(out, s + c, ce - c);
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct wm_pin_action *a = &p->actions[i];
		if (!a->new_sha || !a->changes || entry(table, a->action))
			continue;
		if (written++)
			wm_buf_printf(out, "%s%*s", nl, (int)indent, "");
		wm_buf_printf(out, "%s: %s,  # %s", a->action, a->new_sha, a->new_tag);
	}
	wm_buf_printf(out, "%s%*s}", nl, (int)indent, "");
	return out->oom ? WM_ENOMEM : 0;
}

/*
 * The top-level `actions:` key and its table (*key NULL when there is none), checked to be
 * editable in place: not from an alias or a merge key, a mapping (or nothing, *block_null),
 * each reference on one line.  0, or WM_EINVALID (said) when pin cannot edit it.
 */
static int find_table(struct edit *e, const struct wm_node **key, const struct wm_node **table, bool *block_null)
{
	const struct wm_node *root = e->doc->root, *t;

	*key = *table = NULL;
	*block_null = false;
	if (!root || root->type != WM_NODE_MAP || root->flow)
		return refuse(e, root, "pin edits a matrix file whose top level is a block mapping ('key: value' lines)");
	for (size_t i = 0; i < root->n; i++)
		if (strcmp(root->pairs[i].key->text, "actions") == 0) {
			*key = root->pairs[i].key;
			*table = root->pairs[i].value;
		}
	if (!*key)
		return 0;
	t = *table;
	/* a merge key's pairs and an alias's node lie elsewhere: what the edit would change is not here */
	if (!in_place(*key, NULL, root->end_line, root->end_column) || !in_place(t, *key, root->end_line,
			root->end_column) || ((*key)->column != root->column))
		return refuse(e, *key, "the actions table comes from an alias or a merge key ('<<'): pin cannot edit "
			"it in place; write it out under 'actions:'");
	*block_null = t->type == WM_NODE_SCALAR && wm_yaml_is_null(t) && t->len == 0;
	if (*block_null)
		return 0;
	if (t->type != WM_NODE_MAP)
		return refuse(e, t, "'actions' is not a mapping");
	for (size_t i = 0; i < t->n; i++) {
		const struct wm_node *k = t->pairs[i].key, *v = t->pairs[i].value;
		const struct wm_node *prev = i ? t->pairs[i - 1].value : *key;
		if (!in_place(k, prev, t->end_line, t->end_column) || !in_place(v, k, t->end_line, t->end_column))
			return refuse(e, k, "an entry of the actions table comes from an alias or a merge key ('<<'): "
				"pin cannot edit it in place; write it out");
		if (v->type != WM_NODE_SCALAR || v->end_line != v->line)
			return refuse(e, v, "an action's reference written over several lines: write it on one");
	}
	return 0;
}

/*
 * Where a block table's new entries go (*at) and their indent: after its last entry, after
 * `actions:` when it has none, or a table of its own at the end of the file (its key and the
 * line break before them put into `adds`).
 */
static void insert_point(const struct edit *e, const struct wm_node *key, const struct wm_node *table,
	bool block_null, const char *nl, struct wm_buf *adds, size_t *at, unsigned *indent)
{
	const struct wm_doc *doc = e->doc;
	bool had_break = true;

	*at = doc->len;
	*indent = 2;
	if (!key) {
		if (doc->len && doc->text[doc->len - 1] != '\n' && doc->text[doc->len - 1] != '\r')
			wm_buf_puts(adds, nl);
		wm_buf_printf(adds, "actions:%s", nl);
		return;
	}
	if (block_null) {
		*at = line_end(e, offset(e, key->line, key->column), &had_break);
		*indent = key->column + 1;
	} else if (table->n) {
		const struct wm_node *last = table->pairs[table->n - 1].value;
		*at = line_end(e, offset(e, last->end_line, last->end_column), &had_break);
		*indent = table->pairs[0].key->column - 1;
	}
	if (!had_break)
		wm_buf_puts(adds, nl);
}

/*
 * Each changed pin of a block table (`table` NULL when the file has none, or an empty one):
 * its value and the comment after it replaced in place, or a new entry added to `adds`.
 */
static int block_edits(struct edit *e, const struct wm_pin *p, const struct wm_node *table, unsigned indent,
	const char *nl, struct wm_buf *adds, size_t *nadds, struct splice **sp, size_t *nsp)
{
	struct wm_buf b = WM_BUF_INIT;
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < p->n; i++) {
		const struct wm_pin_action *a = &p->actions[i];
		const struct wm_pair *pr = entry(table, a->action);
		const char *c;
		size_t clen, start, end;
		if (!a->new_sha || !a->changes)
			continue;
		if (!pr) {
			wm_buf_printf(adds, "%*s%s: %s  # %s%s", (int)indent, "", a->action, a->new_sha, a->new_tag, nl);
			++*nadds;
			continue;
		}
		/* the value, and the comment after it on its line: the pin's place */
		start = offset(e, pr->value->line, pr->value->column);
		end = offset(e, pr->value->end_line, pr->value->end_column);
		if (wm_yaml_trailing_comment(e->doc, pr->value, &c, &clen))
			end = (size_t)(c + clen - e->doc->text);
		wm_buf_printf(&b, "%s  # %s", a->new_sha, a->new_tag);
		ret = splice_add(sp, nsp, start, end, &b);
	}
	wm_buf_release(&b);
	return ret;
}

/* The file with the splices made, checked to read back as the pins say, into *out. */
static int apply_splices(struct edit *e, const struct wm_pin *p, struct splice *sp, size_t nsp, char **out,
	size_t *out_len)
{
	const struct wm_doc *doc = e->doc;
	struct wm_buf b = WM_BUF_INIT;
	size_t at = 0;
	int ret = 0;

	qsort(sp, nsp, sizeof(*sp), splice_cmp);
	for (size_t i = 0; i < nsp; i++) {
		wm_buf_add(&b, doc->text + at, sp[i].start - at);
		wm_buf_puts(&b, sp[i].text);
		at = sp[i].end;
	}
	wm_buf_add(&b, doc->text + at, doc->len - at);
	if (b.oom) {
		ret = WM_ENOMEM;
	} else if (!reads_back(p, b.ptr ? b.ptr : "", b.len)) {
		wm_error_nopos(e->err, WM_EINTERNAL, WM_SEV_ERROR, p->matrix->file,
			"the edited matrix file does not read back as written: nothing written (a bug: please report it)");
		ret = WM_EINTERNAL;
	} else {
		*out_len = b.len;
		*out = wm_buf_detach(&b);
		if (!*out && !(*out = strdup("")))
			ret = WM_ENOMEM;
	}
	wm_buf_release(&b);
	return ret;
}

int wm_pin_edit(char **out, size_t *out_len, const struct wm_pin *p, struct wm_error *err)
{
	const struct wm_doc *doc = wm_matrix_doc(p->matrix);
	struct edit e = { doc, p->matrix->file, err };
	const struct wm_node *table, *key;
	struct splice *sp = NULL;
	size_t nsp = 0, insert_at, nadds = 0;
	struct wm_buf adds = WM_BUF_INIT;
	const char *nl = newline(&e);
	unsigned indent;
	bool block_null;
	int ret;

	*out = NULL;
	*out_len = 0;
	if ((ret = find_table(&e, &key, &table, &block_null)) < 0)
		return ret;
	if (key && !block_null && table->flow) {
		/* the whole table, written again in its style */
		size_t start = offset(&e, table->line, table->column), end = offset(&e, table->end_line,
			table->end_column);
		if ((ret = flow_table(&e, p, table, key, nl, &adds)) == 0)
			ret = splice_add(&sp, &nsp, start, end, &adds);
	} else {
		insert_point(&e, key, table, block_null, nl, &adds, &insert_at, &indent);
		ret = block_edits(&e, p, key && !block_null ? table : NULL, indent, nl, &adds, &nadds, &sp, &nsp);
		if (ret == 0 && nadds)
			ret = splice_add(&sp, &nsp, insert_at, insert_at, &adds);
	}
	if (ret == 0)
		ret = apply_splices(&e, p, sp, nsp, out, out_len);
	for (size_t i = 0; i < nsp; i++)
		free(sp[i].text);
	free(sp);
	wm_buf_release(&adds);
	if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	return ret;
}

struct wm_pin_lock {
	struct wm_io_lock io;
};

int wm_pin_lock(struct wm_pin_lock **out, const char *path, struct wm_error *err)
{
	struct wm_pin_lock *l = calloc(1, sizeof(*l));
	char *root = wm_io_path_dir(path);
	const char *base = strrchr(path, '/');
	int ret;

	*out = NULL;
	if (!l || !root) {
		free(l);
		free(root);
		return wm_error_oom(err);
	}
	/* the file in its directory, which is the project's root: a link is followed while it stays there */
	ret = wm_io_lock_below(&l->io, root, base ? base + 1 : path, err);
	free(root);
	if (ret < 0) {
		free(l);
		return ret;
	}
	*out = l;
	return 0;
}

void wm_pin_unlock(struct wm_pin_lock *l)
{
	if (!l)
		return;
	wm_io_unlock(&l->io);
	free(l);
}

int wm_pin_write(const struct wm_pin *p, const struct wm_pin_lock *lock, const char *text, size_t len,
	struct wm_error *err)
{
	/* the text the matrix was read from, which the edit was made to: anything else is someone's change */
	const struct wm_doc *doc = wm_matrix_doc(p->matrix);
	return wm_io_replace_locked(&lock->io, doc->text, doc->len, text, len, err);
}
