/* project.c — what the matrix needs from pyproject.toml and Cargo.toml: names, version, features, abi3. */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/name.h"
#include "util/utf8.h"
#include "formats/toml.h"
#include "model/project.h"

/* Joins a path relative to `dir` (both repository-relative) and removes `.` and `..` parts. */
static char *join(struct wm_arena *a, const char *dir, const char *rel, bool *outside)
{
	struct wm_buf b = WM_BUF_INIT;
	const char *parts[256];
	size_t n = 0, lens[256];
	char *s;
	const char *srcs[2] = { dir, rel };

	*outside = false;
	for (int k = 0; k < 2; k++) {
		const char *p = srcs[k];
		while (p && *p) {
			const char *e = strchr(p, '/');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			if (len == 2 && p[0] == '.' && p[1] == '.') {
				if (n == 0)
					*outside = true;
				else
					n--;
			} else if (len && !(len == 1 && p[0] == '.') && n < 256) {
				parts[n] = p;
				lens[n++] = len;
			}
			p = e ? e + 1 : NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			wm_buf_putc(&b, '/');
		wm_buf_add(&b, parts[i], lens[i]);
	}
	s = b.oom ? NULL : wm_arena_strdup(a, b.ptr ? b.ptr : "");
	wm_buf_release(&b);
	return s;
}

static char *dir_of(struct wm_arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? wm_arena_strndup(a, path, (size_t)(slash - path)) : wm_arena_strdup(a, "");
}

/*
 * Reports `fmt` at value v of `doc` (file `file`): at byte `at` of its string (`len` bytes) when
 * the string is written as it reads (quoted on one line, without escapes), else (and for an `at`
 * of SIZE_MAX) at the whole value.
 */
static void error_at(struct wm_error *err, const char *file, const struct wm_toml_doc *doc,
	const struct wm_toml_value *v, size_t at, size_t len, const char *fmt, ...) WM_PRINTF(7, 8);
static void error_at(struct wm_error *err, const char *file, const struct wm_toml_doc *doc,
	const struct wm_toml_value *v, size_t at, size_t len, const char *fmt, ...)
{
	const struct wm_toml_span *sp = &v->span;
	unsigned column = sp->column, span = (unsigned)(sp->end - sp->start);
	char msg[1024];
	va_list ap;
	if (wm_toml_is_string(v) && sp->end - sp->start == v->len + 2 && at < v->len &&
			memcmp(doc->text + sp->start + 1, v->str, v->len) == 0) {
		column += 1 + (unsigned)wm_utf8_len(v->str, at);
		span = (unsigned)(len ? len : 1);
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, file, doc->text, doc->len, sp->line, column, span, "%s", msg);
}

/*
 * A path [tool.maturin] gives at `key`, relative to pyproject.toml's directory: its text is a
 * path's (wm_name_path_text), and the path it names from the repository's root stays inside the
 * repository and out of .git (wm_name_repo_path; a directory may be the root itself).  Reports
 * at the value in pyproject.toml; *out is the path from the root.
 */
static int setting_path(struct wm_project *p, const char *key, bool directory, char **out, struct wm_error *err)
{
	const struct wm_toml_value *v = wm_toml_get_path(p->py.root, key);
	const char *what = strcmp(key, "tool.maturin.manifest-path") == 0 ? "[tool.maturin].manifest-path" :
		"[tool.maturin].python-source";
	struct wm_path_fault f;
	const char *why = NULL;
	bool outside;
	*out = NULL;
	if (!wm_toml_is_string(v))
		return 0;
	if (!wm_name_path_text(v->str, v->len, &f)) {
		if (f.hidden)
			error_at(err, p->py_path, &p->py, v, f.at, f.len, "invalid path in %s: it holds U+%04X, %s", what,
				(unsigned)f.cp, f.why);
		else
			error_at(err, p->py_path, &p->py, v, f.at, f.len, "invalid path '%s' in %s: it holds %s", v->str, what,
				f.why);
		return WM_EINVALID;
	}
	if (v->str[0] == '/')
		why = "an absolute path leaves the repository: give it relative to pyproject.toml";
	else if (strchr(v->str, '\\'))
		why = "use '/' to separate directories";
	else if (!(*out = join(&p->arena, dir_of(&p->arena, p->py_path), v->str, &outside)))
		return WM_ENOMEM;
	else if (outside)
		why = "it leaves the repository";
	else if (directory && !**out)
		why = NULL;  /* the repository's root */
	else
		(void)wm_name_repo_path(*out, &why);
	if (why) {
		error_at(err, p->py_path, &p->py, v, SIZE_MAX, 0, "invalid path '%s' in %s: %s", v->str, what, why);
		return WM_EINVALID;
	}
	return 0;
}

/* The module name at `key` of `doc`, when set, is dotted Python identifiers: it reaches the CI files as WM_MODULE. */
static int module_setting(const struct wm_toml_doc *doc, const char *file, const char *key, struct wm_error *err)
{
	const struct wm_toml_value *v = wm_toml_get_path(doc->root, key);
	if (!wm_toml_is_string(v) || (strlen(v->str) == v->len && wm_name_module(v->str)))
		return 0;
	error_at(err, file, doc, v, SIZE_MAX, 0, "invalid module name '%s' in %s: Python identifiers separated by '.'", v->str,
		strcmp(key, "lib.name") == 0 ? "[lib].name" : "[tool.maturin].module-name");
	return WM_EINVALID;
}

/* Reads and parses one file; returns 1 when it does not exist (nothing reported). */
static int load_toml(struct wm_toml_doc *doc, const struct wm_reader *r, const char *path, struct wm_error *err)
{
	char *data = NULL;
	size_t len = 0;
	int ret = r->read(r->ctx, path, &data, &len, err);
	if (ret != 0) {
		free(data);
		return ret;
	}
	ret = wm_toml_parse(doc, path, data, len, err);
	free(data);
	return ret;
}

static const char *str_at(const struct wm_toml_table *t, const char *path)
{
	const struct wm_toml_value *v = wm_toml_get_path(t, path);
	return wm_toml_is_string(v) ? v->str : NULL;
}

static void string_array(struct wm_arena *a, const struct wm_toml_value *v, struct wm_strlist *out)
{
	memset(out, 0, sizeof(*out));
	if (!wm_toml_is_array(v) || !(out->items = wm_arena_array(a, v->array.n + 1, sizeof(char *))))
		return;
	for (size_t i = 0; i < v->array.n; i++)
		if (wm_toml_is_string(v->array.items[i]))
			out->items[out->n++] = v->array.items[i]->str;
}

/* The minor version of pyo3's "abi3-py3X" feature ("abi3-py38" 8, "abi3-py310" 10), or 0. */
static unsigned abi3_py(const char *s)
{
	unsigned minor = 0;
	const char *d;
	if (strncmp(s, "abi3-py3", 8) != 0 || !s[8] || (s[8] == '0' && s[9]))
		return 0;
	for (d = s + 8; *d >= '0' && *d <= '9' && minor < 1000; d++)
		minor = minor * 10 + (unsigned)(*d - '0');
	return *d ? 0 : minor;
}

/* The minor version of pyo3's "abi3t-py3X" feature ("abi3t-py315" 15), or 0. */
static unsigned abi3t_py(const char *s)
{
	char buf[32];
	if (strncmp(s, "abi3t-py3", 9) != 0 || strlen(s) >= sizeof(buf))
		return 0;
	snprintf(buf, sizeof(buf), "abi3-py3%s", s + 9);
	return abi3_py(buf);
}

/* One pyo3 feature the build enables, written at `at`, reached through the build's feature `via`. */
static void pyo3_feature(struct wm_abi3 *out, const char *f, const char *written, const struct wm_project_at *at,
	const char *via)
{
	unsigned minor = abi3_py(f), tminor = abi3t_py(f);
	if (minor || strcmp(f, "abi3") == 0) {
		/* the feature that sets the minimum: the lowest abi3-py3X, else the first plain abi3 */
		if (!out->abi3 || (minor && (!out->minor || minor < out->minor))) {
			out->minor = minor;
			out->feature = f;
			out->written = written;
			out->at = *at;
			out->via = via;
		}
		out->abi3 = true;
	} else if (tminor || strcmp(f, "abi3t") == 0) {
		if (!out->abi3t || (tminor && (!out->abi3t_minor || tminor < out->abi3t_minor))) {
			out->abi3t_minor = tminor;
			if (!out->abi3) {
				out->feature = f;
				out->written = written;
				out->at = *at;
				out->via = via;
			}
		}
		out->abi3t = true;
	}
}

/* The crate features of one resolution: each one once, and pyo3's features met on the way. */
struct resolve {
	const struct wm_project *p;
	const struct wm_toml_table *features;   /* the crate's [features], NULL when none */
	const char **seen;
	size_t nseen, cap;
	bool pyo3_on;                            /* the pyo3 dependency is built (not optional, or enabled) */
	struct pending {
		const char *feature;             /* a pyo3 feature, applied when pyo3 is built */
		const char *written;             /* as written: pyo3/feat */
		struct wm_project_at at;
		const char *via;
	} *pending;
	size_t npending, pcap;
	bool oom;
};

static bool seen_feature(struct resolve *r, const char *f)
{
	for (size_t i = 0; i < r->nseen; i++)
		if (strcmp(r->seen[i], f) == 0)
			return true;
	if (r->nseen == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		const char **n = realloc(r->seen, cap * sizeof(*n));
		if (!n) {
			r->oom = true;
			return true;
		}
		r->seen = n;
		r->cap = cap;
	}
	r->seen[r->nseen++] = f;
	return false;
}

static void add_pending(struct resolve *r, const char *f, const struct wm_project_at *at, const char *via)
{
	if (r->npending == r->pcap) {
		size_t cap = r->pcap ? 2 * r->pcap : 8;
		struct pending *n = realloc(r->pending, cap * sizeof(*n));
		if (!n) {
			r->oom = true;
			return;
		}
		r->pending = n;
		r->pcap = cap;
	}
	r->pending[r->npending++] = (struct pending){ strchr(f, '/') + 1, f, *at, via };
}

/* Whether `name` (its first `len` bytes) is the pyo3 dependency's key. */
static bool is_pyo3(const struct wm_project *p, const char *name, size_t len)
{
	/* a pyo3 this reader does not see (a target's dependency) is still named pyo3 */
	const char *key = p->pyo3_key ? p->pyo3_key : "pyo3";
	return strlen(key) == len && strncmp(key, name, len) == 0;
}

/* One entry of a feature list, as Cargo reads it: a feature, `dep:name`, `pkg/feat` or `pkg?/feat`. */
static void enable(struct resolve *r, const char *f, const struct wm_project_at *at, const char *via, unsigned depth)
{
	const char *slash = strchr(f, '/');
	const struct wm_toml_value *list;
	if (depth > 64 || r->oom)
		return;
	if (strncmp(f, "dep:", 4) == 0) {
		if (is_pyo3(r->p, f + 4, strlen(f + 4)))
			r->pyo3_on = true;
		return;
	}
	if (slash) {
		size_t n = (size_t)(slash - f);
		bool weak = n && f[n - 1] == '?';
		if (!is_pyo3(r->p, f, weak ? n - 1 : n))
			return;
		/* `pyo3/feat` builds pyo3 too; `pyo3?/feat` only adds the feature when something else does */
		if (!weak)
			r->pyo3_on = true;
		add_pending(r, f, at, via);
		return;
	}
	if (seen_feature(r, f))
		return;
	list = r->features ? wm_toml_table_get(r->features, f) : NULL;
	if (!list) {
		/* an optional dependency is a feature of its own name (unless dep: hides it) */
		if (is_pyo3(r->p, f, strlen(f)))
			r->pyo3_on = true;
		return;
	}
	for (size_t i = 0; wm_toml_is_array(list) && i < list->array.n; i++) {
		const struct wm_toml_value *item = list->array.items[i];
		struct wm_project_at where = { r->p->cargo_path, &r->p->cargo, item->span };
		if (wm_toml_is_string(item) && strlen(item->str) == item->len)
			enable(r, item->str, &where, via ? via : f, depth + 1);
	}
}

/* Each string of the array `v` of `doc` (file `file`), enabled as a build's feature. */
static void enable_all(struct resolve *r, const struct wm_toml_value *v, const char *file, const struct wm_toml_doc *doc)
{
	for (size_t i = 0; wm_toml_is_array(v) && i < v->array.n; i++) {
		const struct wm_toml_value *item = v->array.items[i];
		struct wm_project_at at = { file, doc, item->span };
		if (wm_toml_is_string(item) && strlen(item->str) == item->len)
			enable(r, item->str, &at, NULL, 0);
	}
}

void wm_project_abi3(const struct wm_project *p, const struct wm_build_features *b, struct wm_abi3 *out)
{
	const struct wm_toml_value *features = wm_toml_table_get(p->cargo.root, "features");
	const struct wm_toml_value *all = wm_toml_get_path(p->py.root, "tool.maturin.all-features");
	const struct wm_toml_value *nodef = wm_toml_get_path(p->py.root, "tool.maturin.no-default-features");
	struct resolve r;
	static const struct wm_project_at nowhere;

	memset(out, 0, sizeof(*out));
	if (!p->has_cargo)
		return;
	memset(&r, 0, sizeof(r));
	r.p = p;
	r.features = wm_toml_is_table(features) ? features->table : NULL;
	r.pyo3_on = !p->pyo3_optional;
	if (!(b && b->no_default) && !(wm_toml_is_bool(nodef) && nodef->boolean) && r.features &&
			wm_toml_table_get(r.features, "default"))
		enable(&r, "default", &nowhere, "default", 0);
	if (wm_toml_is_bool(all) && all->boolean && r.features)
		for (size_t i = 0; i < r.features->n; i++)
			enable(&r, r.features->entries[i].key, &nowhere, r.features->entries[i].key, 0);
	enable_all(&r, wm_toml_get_path(p->py.root, "tool.maturin.features"), p->py_path, &p->py);
	for (size_t i = 0; b && b->features && i < b->features->n; i++)
		enable(&r, b->features->items[i], &nowhere, NULL, 0);
	if (r.pyo3_on) {
		for (int k = 0; k < 2; k++) {
			const struct wm_toml_value *v = p->pyo3_features[k];
			for (size_t i = 0; wm_toml_is_array(v) && i < v->array.n; i++) {
				const struct wm_toml_value *item = v->array.items[i];
				struct wm_project_at at = { p->pyo3_features_file[k], p->pyo3_features_doc[k], item->span };
				if (wm_toml_is_string(item))
					pyo3_feature(out, item->str, item->str, &at, NULL);
			}
		}
		for (size_t i = 0; i < r.npending; i++)
			pyo3_feature(out, r.pending[i].feature, r.pending[i].written, &r.pending[i].at, r.pending[i].via);
	}
	free(r.seen);
	free(r.pending);
}

/*
 * pyo3's requirement: `pyo3 = "0.22"` or `{ version = "0.22", ... }` in `doc` (file `file`); a
 * dependency given by `path` or `git` (or `workspace`, until the workspace root is read) has its
 * version elsewhere, and is only named so.
 */
static void read_pyo3(struct wm_project *p, const struct wm_toml_value *pyo3, const char *file,
	const struct wm_toml_doc *doc)
{
	static const char *const sources[] = { "workspace", "path", "git" };
	const struct wm_toml_value *v;
	if (!pyo3)
		return;
	p->pyo3_span = pyo3->span;
	p->pyo3_file = file;
	p->pyo3_doc = doc;
	p->pyo3_source = NULL;
	if (wm_toml_is_string(pyo3)) {
		p->pyo3_req = pyo3->str;
		return;
	}
	if (!wm_toml_is_table(pyo3))
		return;
	for (size_t i = 0; i < WM_ARRAY_SIZE(sources); i++)
		if (wm_toml_table_get(pyo3->table, sources[i])) {
			p->pyo3_source = sources[i];
			return;
		}
	if (wm_toml_is_string(v = wm_toml_table_get(pyo3->table, "version"))) {
		p->pyo3_req = v->str;
		p->pyo3_span = v->span;
	}
}

/*
 * The dependency maturin reads abi3 from: pyo3 (by its key, or renamed with `package = "pyo3"`),
 * else pyo3-ffi; NULL when the crate has neither.
 */
static const struct wm_toml_entry *pyo3_entry(const struct wm_toml_table *deps)
{
	static const char *const names[] = { "pyo3", "pyo3-ffi" };
	for (size_t k = 0; deps && k < WM_ARRAY_SIZE(names); k++)
		for (size_t i = 0; i < deps->n; i++) {
			const struct wm_toml_value *v = deps->entries[i].value;
			const struct wm_toml_value *pkg = wm_toml_is_table(v) ? wm_toml_table_get(v->table, "package") : NULL;
			if (wm_toml_is_string(pkg) ? strcmp(pkg->str, names[k]) == 0 : strcmp(deps->entries[i].key, names[k]) == 0)
				return &deps->entries[i];
		}
	return NULL;
}

static void read_cargo(struct wm_project *p, struct wm_arena *a)
{
	const struct wm_toml_table *root = p->cargo.root;
	const struct wm_toml_value *features = wm_toml_table_get(root, "features");
	const struct wm_toml_value *deps = wm_toml_table_get(root, "dependencies");
	const struct wm_toml_value *targets = wm_toml_table_get(root, "target");
	const struct wm_toml_entry *e = wm_toml_is_table(deps) ? pyo3_entry(deps->table) : NULL;

	/*
	 * else a target's: `[target.'cfg(not(target_family = "wasm"))'.dependencies]` (PRQL's prqlc
	 * 0.13.14, prqlc/bindings/prqlc-python/Cargo.toml), which Cargo uses for every target it matches
	 */
	for (size_t i = 0; !e && wm_toml_is_table(targets) && i < targets->table->n; i++) {
		const struct wm_toml_value *t = targets->table->entries[i].value;
		const struct wm_toml_value *d = wm_toml_is_table(t) ? wm_toml_table_get(t->table, "dependencies") : NULL;
		e = wm_toml_is_table(d) ? pyo3_entry(d->table) : NULL;
	}

	p->crate_name = str_at(root, "package.name");
	p->lib_name = str_at(root, "lib.name");
	if (wm_toml_is_table(features) && (p->features = wm_arena_array(a, features->table->n + 1, sizeof(char *))))
		for (size_t i = 0; i < features->table->n; i++)
			p->features[p->nfeatures++] = features->table->entries[i].key;
	if (wm_toml_is_table(deps) && (p->deps = wm_arena_array(a, deps->table->n + 1, sizeof(*p->deps))) &&
			(p->deps_optional = wm_arena_array(a, deps->table->n + 1, sizeof(bool))))
		for (size_t i = 0; i < deps->table->n; i++) {
			const struct wm_toml_value *d = deps->table->entries[i].value;
			const struct wm_toml_value *opt = wm_toml_is_table(d) ? wm_toml_table_get(d->table, "optional") : NULL;
			p->deps_optional[p->ndeps] = wm_toml_is_bool(opt) && opt->boolean;
			p->deps[p->ndeps++] = deps->table->entries[i].key;
		}
	if (!e)
		return;
	p->pyo3_key = e->key;
	if (wm_toml_is_table(e->value)) {
		const struct wm_toml_value *opt = wm_toml_table_get(e->value->table, "optional");
		p->pyo3_optional = wm_toml_is_bool(opt) && opt->boolean;
		p->pyo3_features[0] = wm_toml_table_get(e->value->table, "features");
		p->pyo3_features_doc[0] = &p->cargo;
		p->pyo3_features_file[0] = p->cargo_path;
	}
	read_pyo3(p, e->value, p->cargo_path, &p->cargo);
}

/*
 * The Cargo workspace root of the manifest, read into p->workspace once: `package.workspace`'s
 * directory when set, else the nearest Cargo.toml above the manifest with a [workspace] table.
 * Returns 0 (p->workspace_path NULL when there is none), or an error reading one.
 */
static int load_workspace(struct wm_project *p, const struct wm_reader *r, struct wm_arena *a, struct wm_error *err)
{
	const char *given = str_at(p->cargo.root, "package.workspace");
	char *dir = dir_of(a, p->cargo_path);
	bool outside = false;
	if (p->workspace_path)
		return 0;
	if (given) {
		char *path = join(a, dir, given, &outside), *file;
		int ret;
		if (!path || outside || !(file = join(a, path, "Cargo.toml", &outside)) || outside)
			return path ? 0 : WM_ENOMEM;
		if ((ret = load_toml(&p->workspace, r, file, err)) < 0)
			return ret;
		if (ret == 0)
			p->workspace_path = file;
		return 0;
	}
	while (dir && *dir) {
		char *up = join(a, dir, "..", &outside), *path;
		int ret;
		if (!up || outside)
			break;
		path = join(a, up, "Cargo.toml", &outside);
		if (!path)
			return WM_ENOMEM;
		wm_toml_release(&p->workspace);
		memset(&p->workspace, 0, sizeof(p->workspace));
		ret = load_toml(&p->workspace, r, path, err);
		if (ret < 0)
			return ret;
		if (ret == 0 && wm_toml_table_get(p->workspace.root, "workspace")) {
			p->workspace_path = path;
			return 0;
		}
		dir = up;
	}
	return 0;
}

/*
 * `pyo3 = { workspace = true, ... }`: the workspace root's [workspace.dependencies] entry gives its
 * version (or path or git), and its features join the member's, as Cargo merges them.
 */
static int workspace_pyo3(struct wm_project *p, const struct wm_reader *r, struct wm_arena *a, struct wm_error *err)
{
	const struct wm_toml_value *deps, *e;
	int ret;
	if (!p->pyo3_source || strcmp(p->pyo3_source, "workspace") != 0)
		return 0;
	if ((ret = load_workspace(p, r, a, err)) < 0 || !p->workspace_path)
		return ret;
	deps = wm_toml_get_path(p->workspace.root, "workspace.dependencies");
	if (!wm_toml_is_table(deps) || !(e = wm_toml_table_get(deps->table, p->pyo3_key)))
		return 0;
	if (wm_toml_is_table(e)) {
		p->pyo3_features[1] = wm_toml_table_get(e->table, "features");
		p->pyo3_features_doc[1] = &p->workspace;
		p->pyo3_features_file[1] = p->workspace_path;
	}
	read_pyo3(p, e, p->workspace_path, &p->workspace);
	return 0;
}

/* `version.workspace = true`: the version of the workspace root. */
static int workspace_version(struct wm_project *p, const struct wm_reader *r, struct wm_arena *a, struct wm_error *err)
{
	int ret = load_workspace(p, r, a, err);
	if (ret < 0 || !p->workspace_path)
		return ret;
	p->version = str_at(p->workspace.root, "workspace.package.version");
	p->version_file = p->workspace_path;
	return 0;
}

/*
 * The pyo3 version Cargo resolved: the nearest Cargo.lock from the manifest's directory up to
 * the top of the tree, when it names one pyo3.  A lock that cannot be read is passed over
 * (Cargo rewrites it; the requirement is the fallback): its problems are not the matrix's.
 */
static void read_lock(struct wm_project *p, const struct wm_reader *r, struct wm_arena *a)
{
	char *dir = dir_of(a, p->cargo_path);
	struct wm_error scratch;

	wm_error_init(&scratch);
	while (dir) {
		bool outside = false;
		char *path = *dir ? join(a, dir, "Cargo.lock", &outside) : wm_arena_strdup(a, "Cargo.lock");
		struct wm_toml_doc lock;
		int ret;
		if (!path || outside)
			break;
		memset(&lock, 0, sizeof(lock));
		ret = load_toml(&lock, r, path, &scratch);
		if (ret == 0) {
			const struct wm_toml_value *pkgs = wm_toml_table_get(lock.root, "package");
			const char *found = NULL;
			size_t n = 0;
			for (size_t i = 0; wm_toml_is_array(pkgs) && i < pkgs->array.n; i++) {
				const struct wm_toml_value *e = pkgs->array.items[i];
				const char *name = wm_toml_is_table(e) ? str_at(e->table, "name") : NULL;
				const char *version = wm_toml_is_table(e) ? str_at(e->table, "version") : NULL;
				if (name && version && strcmp(name, "pyo3") == 0 && n++ == 0)
					found = wm_arena_strdup(a, version);
			}
			if (n == 1) {
				p->pyo3_locked = found;
				p->pyo3_lock_file = path;
			}
		}
		wm_toml_release(&lock);
		if (ret == 0 || !*dir)
			break;
		dir = join(a, dir, "..", &outside);
		if (outside)
			break;
	}
	wm_error_release(&scratch);
}

static void version_of(struct wm_project *p)
{
	const struct wm_toml_value *v = wm_toml_get_path(p->py.root, "project.version");
	const struct wm_toml_value *cv = wm_toml_get_path(p->cargo.root, "package.version");
	if (wm_toml_is_string(v)) {
		p->version = v->str;
		p->version_file = p->py_path;
		return;
	}
	p->version_dynamic = true;
	if (wm_toml_is_string(cv)) {
		p->version = cv->str;
		p->version_file = p->cargo_path;
	}
}

/*
 * maturin's requirement among [build-system].requires: "maturin>=1.9,<2.0",
 * "maturin[zig] ~= 1.14", "maturin (>=1.0)"; its specifiers, up to a marker.
 */
static void read_maturin_requirement(struct wm_project *p, struct wm_arena *a)
{
	const struct wm_toml_value *v = wm_toml_get_path(p->py.root, "build-system.requires");
	for (size_t i = 0; wm_toml_is_array(v) && i < v->array.n; i++) {
		const struct wm_toml_value *item = v->array.items[i];
		const char *s, *end;
		char name[16];
		size_t n = 0;
		if (!wm_toml_is_string(item))
			continue;
		for (s = item->str; *s == ' '; s++)
			;
		for (; (isalnum((unsigned char)*s) || strchr("-_.", *s)) && *s; s++)
			if (n + 1 < sizeof(name))
				name[n++] = strchr("-_.", *s) ? '-' : (char)tolower((unsigned char)*s);
		name[n] = '\0';
		if (strcmp(name, "maturin") != 0)
			continue;
		while (*s == ' ')
			s++;
		if (*s == '[' && (end = strchr(s, ']')))
			s = end + 1;
		while (*s == ' ' || *s == '(')
			s++;
		end = s + strcspn(s, ";)");
		while (end > s && end[-1] == ' ')
			end--;
		p->maturin_specs = wm_arena_strndup(a, s, (size_t)(end - s));
		p->maturin_span = item->span;
		return;
	}
}

/* The lowest minor version `requires-python` admits (">=3.9", "~=3.10", ">3.8"); 0 when unknown. */
static unsigned min_minor(const char *spec)
{
	const char *p = spec ? strstr(spec, "3.") : NULL;
	unsigned minor;
	if (!p)
		return 0;
	/* ">3.8" excludes 3.8.0 but admits 3.8.1: the same minor */
	minor = (unsigned)atoi(p + 2);
	return minor;
}

/* maturin's src layout: python-source is set, or src/<project name with '_'> is a directory. */
static bool src_layout(const struct wm_project *p, const struct wm_reader *r, struct wm_arena *a, const char *dir)
{
	struct wm_paths files;
	struct wm_error why;
	bool outside, found;
	char *name, *rel, *path;
	if (p->python_source)
		return true;
	if (!p->name || !r->list || !(name = wm_arena_strdup(a, p->name)))
		return false;
	for (char *c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	if (!(rel = wm_arena_printf(a, "src/%s", name)) || !(path = join(a, dir, rel, &outside)) || outside)
		return false;
	memset(&files, 0, sizeof(files));
	wm_error_init(&why);
	found = r->list(r->ctx, path, &files, &why) == 0;
	wm_io_paths_free(&files);
	wm_error_release(&why);
	return found;
}

int wm_project_load(struct wm_project **out, const struct wm_reader *r, const char *pyproject,
	const char *manifest, struct wm_error *err)
{
	struct wm_project *p = calloc(1, sizeof(*p));
	struct wm_arena *a;
	char *path, *manifest_path;
	bool outside;
	int ret, bad;

	*out = NULL;
	if (!p)
		return WM_ENOMEM;
	wm_arena_init(&p->arena);
	a = &p->arena;
	p->py_path = wm_arena_strdup(a, pyproject);
	if ((ret = load_toml(&p->py, r, pyproject, err)) != 0)
		goto fail;
	p->has_py = true;
	{
		const struct wm_toml_value *backend = wm_toml_get_path(p->py.root, "build-system.build-backend");
		if (wm_toml_is_string(backend) && strcmp(backend->str, "maturin") != 0) {
			wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, pyproject, p->py.text, p->py.len, backend->span.line,
				backend->span.column, (unsigned)(backend->span.end - backend->span.start),
				"the project builds with '%s', not maturin: wheelmatrix builds maturin projects", backend->str);
			ret = WM_EINVALID;
			goto fail;
		}
	}
	if (!wm_toml_table_get(p->py.root, "project")) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, pyproject,
			"no [project] table: wheelmatrix builds projects that declare their name in [project]");
		ret = WM_EINVALID;
		goto fail;
	}
	p->name = str_at(p->py.root, "project.name");
	p->requires_python = str_at(p->py.root, "project.requires-python");
	p->min_minor = min_minor(p->requires_python);
	p->module_name = str_at(p->py.root, "tool.maturin.module-name");
	p->python_source = str_at(p->py.root, "tool.maturin.python-source");
	p->manifest_setting = str_at(p->py.root, "tool.maturin.manifest-path");
	p->bindings = str_at(p->py.root, "tool.maturin.bindings");
	/* each of [tool.maturin]'s settings is reported, the manifest's path too, before failing */
	bad = setting_path(p, "tool.maturin.python-source", true, &path, err);
	ret = module_setting(&p->py, p->py_path, "tool.maturin.module-name", err);
	bad = bad < 0 ? bad : ret;
	ret = setting_path(p, "tool.maturin.manifest-path", false, &manifest_path, err);
	if ((ret = bad < 0 ? bad : ret) < 0)
		goto fail;
	read_maturin_requirement(p, a);
	string_array(a, wm_toml_get_path(p->py.root, "tool.maturin.features"), &p->maturin_features);
	/*
	 * The manifest: the matrix file's, else [tool.maturin].manifest-path, else maturin's src
	 * layout (rust/Cargo.toml, when python-source is set or src/<name> is a directory), else
	 * the Cargo.toml beside pyproject.toml.
	 */
	ret = 1;
	/* maturin's src layout found through the project's name, which a variant changes */
	p->src_layout_by_name = !p->python_source && src_layout(p, r, a, dir_of(a, pyproject));
	if (manifest)
		p->cargo_path = wm_arena_strdup(a, manifest);
	else if (p->manifest_setting)
		p->cargo_path = manifest_path;  /* checked above */
	else {
		outside = false;
		if (src_layout(p, r, a, dir_of(a, pyproject)) &&
				(p->cargo_path = join(a, dir_of(a, pyproject), "rust/Cargo.toml", &outside)) &&
				(ret = load_toml(&p->cargo, r, p->cargo_path, err)) < 0)
			goto fail;

		if (ret == 1)
			p->cargo_path = join(a, dir_of(a, pyproject), "Cargo.toml", &outside);
	}
	if (!p->cargo_path) {
		ret = WM_ENOMEM;
		goto fail;
	}
	if (ret == 1 && (ret = load_toml(&p->cargo, r, p->cargo_path, err)) < 0)
		goto fail;
	if (ret == 1) {
		wm_error_nopos(err, WM_EREAD, WM_SEV_ERROR, p->cargo_path,
			"no such file: the crate's manifest (set 'project.manifest' or [tool.maturin].manifest-path)");
		ret = WM_EREAD;
		goto fail;
	}
	p->has_cargo = true;
	read_cargo(p, a);
	if ((ret = workspace_pyo3(p, r, a, err)) < 0)
		goto fail;
	if (p->pyo3_req && !p->pyo3_source)
		read_lock(p, r, a);
	/* [lib].name is the module when module-name is not set */
	if (!p->module_name && (ret = module_setting(&p->cargo, p->cargo_path, "lib.name", err)) < 0)
		goto fail;
	{
		/* the build with the crate's default features and [tool.maturin]'s: every backend's, and more */
		struct wm_abi3 ab;
		wm_project_abi3(p, NULL, &ab);
		if ((p->abi3 = ab.abi3)) {
			p->abi3_minor = ab.minor;
			p->abi3_feature = ab.written;
			p->abi3_file = ab.at.file;
			p->abi3_doc = ab.at.doc;
			p->abi3_span = ab.at.span;
		}
	}
	version_of(p);
	if (!p->version) {
		const struct wm_toml_value *ws = wm_toml_get_path(p->cargo.root, "package.version");
		if (wm_toml_is_table(ws) && (ret = workspace_version(p, r, a, err)) < 0)
			goto fail;
	}
	*out = p;
	return 0;
fail:
	wm_project_free(p);
	return ret;
}

void wm_project_free(struct wm_project *p)
{
	if (!p)
		return;
	wm_toml_release(&p->py);
	wm_toml_release(&p->cargo);
	wm_toml_release(&p->workspace);
	wm_arena_release(&p->arena);
	free(p);
}

unsigned wm_project_abi3_minor(const struct wm_project *p)
{
	if (p->abi3_minor)
		return p->abi3_minor;
	/* pyo3 with abi3 but no abi3-py3X builds for the interpreter's version: the one wheelmatrix builds with */
	return p->min_minor > WM_ABI3_BUILD ? p->min_minor : WM_ABI3_BUILD;
}

/* maturin's rule: module-name, then [lib].name, then the project name with '-' as '_'. */
const char *wm_project_module(struct wm_arena *a, const char *module_name, const char *lib_name, const char *name)
{
	char *m;
	if (module_name)
		return module_name;
	if (lib_name)
		return lib_name;
	if (!name || !(m = wm_arena_strdup(a, name)))
		return NULL;
	for (char *c = m; *c; c++)
		if (*c == '-' || *c == '.')
			*c = '_';
	return m;
}

bool wm_project_has_feature(const struct wm_project *p, const char *feature, const char **hint)
{
	const char *slash = strchr(feature, '/'), *none;
	bool suggest = hint != NULL;  /* a report that is full wants none: each costs a search */
	if (!suggest)
		hint = &none;
	*hint = NULL;
	if (strncmp(feature, "dep:", 4) == 0) {
		for (size_t i = 0; i < p->ndeps; i++)
			if (p->deps_optional[i] && strcmp(p->deps[i], feature + 4) == 0)
				return true;
		if (suggest)
			*hint = wm_text_suggest(feature + 4, p->deps, p->ndeps);
		return false;
	}
	if (slash) {
		/* dep/feature: an existing dependency (or a feature of ours, as Cargo allows) */
		size_t n = (size_t)(slash - feature);
		if (n && feature[n - 1] == '?')
			n--;
		for (size_t i = 0; i < p->ndeps; i++)
			if (strlen(p->deps[i]) == n && strncmp(p->deps[i], feature, n) == 0)
				return true;
		for (size_t i = 0; i < p->nfeatures; i++)
			if (strlen(p->features[i]) == n && strncmp(p->features[i], feature, n) == 0)
				return true;
		{
			char dep[128];
			snprintf(dep, sizeof(dep), "%.*s", (int)n, feature);
			if (suggest)
				*hint = wm_text_suggest(dep, p->deps, p->ndeps);
		}
		return false;
	}
	for (size_t i = 0; i < p->nfeatures; i++)
		if (strcmp(p->features[i], feature) == 0)
			return true;
	/* an optional dependency is a feature of its own name, unless dep: hides it */
	for (size_t i = 0; i < p->ndeps; i++)
		if (p->deps_optional[i] && strcmp(p->deps[i], feature) == 0)
			return true;
	if (suggest)
		*hint = wm_text_suggest(feature, p->features, p->nfeatures);
	return false;
}
