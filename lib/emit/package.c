/*
 * package.c — the files of strategy `meta` (model/meta.c): the backends'
 * python-source directories, the meta package's pyproject.toml and its
 * import package: the dispatcher, and for a mixed project the project's own
 * Python package around it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "formats/toml.h"
#include "model/catalog.h"
#include "model/meta.h"
#include "model/project.h"
#include "emit/emit.h"
#include "emit/package.h"

/* ---- environment markers -------------------------------------------------- */

/* The PEP 508 marker of one platform, as pip evaluates it on the installing machine. */
static void platform_marker(struct wm_buf *b, const struct wm_platform *pl)
{
	static const char *const sys[WM_OS_COUNT] = { "linux", "darwin", "win32", "emscripten" };
	const char *machine = pl->arch;

	if (pl->os == WM_OS_LINUX && pl->wheel_arch)
		machine = pl->wheel_arch;
	else if (pl->os == WM_OS_MACOS && strcmp(pl->arch, "universal2") == 0)
		machine = NULL;
	else if (pl->os == WM_OS_WINDOWS)
		machine = strcmp(pl->arch, "x86_64") == 0 ? "AMD64" : strcmp(pl->arch, "arm64") == 0 ? "ARM64" : "x86";
	wm_buf_printf(b, "sys_platform == \"%s\"", sys[pl->os]);
	if (machine)
		wm_buf_printf(b, " and platform_machine == \"%s\"", machine);
}

struct clauses {
	char **items;
	size_t n;
};

static int clause_add(struct clauses *c, struct wm_arena *a, const struct wm_platform *pl)
{
	struct wm_buf b = WM_BUF_INIT;
	char *s;
	platform_marker(&b, pl);
	s = b.oom ? NULL : wm_arena_strndup(a, b.ptr, b.len);
	wm_buf_release(&b);
	if (!s)
		return WM_ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->items[i], s) == 0)
			return 0;
	c->items[c->n++] = s;
	return 0;
}

/*
 * The marker of each backend (NULL when it is built for every platform of the
 * matrix): the platforms of its jobs, one clause per distinct platform.
 */
static int backend_markers(const char ***out, struct wm_arena *a, const struct wm_matrix *m)
{
	size_t nclauses = m->nplatforms + m->nincludes + 1;
	struct clauses all = { wm_arena_array(a, nclauses, sizeof(char *)), 0 };
	struct clauses *per = wm_arena_array(a, m->nbackends ? m->nbackends : 1, sizeof(*per));
	const char **markers = wm_arena_array(a, m->nbackends ? m->nbackends : 1, sizeof(*markers));
	struct wm_expand *it = NULL;
	struct wm_job job;
	int ret = 0, more;

	if (!all.items || !per || !markers)
		return WM_ENOMEM;
	for (size_t i = 0; i < m->nbackends; i++) {
		per[i].n = 0;
		markers[i] = NULL;
		/* includes may add platforms the matrix does not list */
		if (!(per[i].items = wm_arena_array(a, nclauses, sizeof(char *))))
			return WM_ENOMEM;
	}
	for (size_t i = 0; i < m->nplatforms; i++)
		if ((ret = clause_add(&all, a, m->platforms[i])) < 0)
			return ret;
	if ((ret = wm_expand_new(&it, m, WM_EXPAND_JOBS)) < 0)
		return ret;
	while ((more = wm_expand_next(it, &job)) > 0)
		if ((ret = clause_add(&per[job.backend->index], a, job.platform)) < 0)
			break;
	wm_expand_free(it);
	if (more < 0)
		return more;
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < m->nbackends; i++) {
		struct wm_buf b = WM_BUF_INIT;
		bool every = per[i].n >= all.n;
		for (size_t k = 0; every && k < all.n; k++) {
			bool found = false;
			for (size_t j = 0; j < per[i].n && !found; j++)
				found = strcmp(per[i].items[j], all.items[k]) == 0;
			every = found;
		}
		if (every || per[i].n == 0)
			continue;
		for (size_t j = 0; j < per[i].n; j++)
			wm_buf_printf(&b, per[i].n > 1 ? "%s(%s)" : "%s%s", j ? " or " : "", per[i].items[j]);
		markers[i] = b.oom ? NULL : wm_arena_strndup(a, b.ptr, b.len);
		wm_buf_release(&b);
		if (!markers[i])
			return WM_ENOMEM;
	}
	*out = markers;
	return 0;
}

/* ---- the meta package's pyproject.toml ------------------------------------ */

/* Writes a copied value: strings, integers, booleans, arrays and tables (inline), as TOML. */
static int put_value(struct wm_buf *b, const struct wm_toml_doc *doc, const struct wm_toml_value *v,
	struct wm_error *err)
{
	int ret = 0;
	switch (v->type) {
	case WM_TOML_STRING:
		wm_toml_put_string(b, v->str, v->len, WM_TOML_BASIC);
		break;
	case WM_TOML_ARRAY:
		wm_buf_putc(b, '[');
		for (size_t i = 0; i < v->array.n && ret == 0; i++) {
			if (i)
				wm_buf_puts(b, ", ");
			ret = put_value(b, doc, v->array.items[i], err);
		}
		wm_buf_putc(b, ']');
		break;
	case WM_TOML_TABLE:
		wm_buf_putc(b, '{');
		for (size_t i = 0; i < v->table->n && ret == 0; i++) {
			wm_buf_puts(b, i ? ", " : "");
			wm_toml_put_key(b, v->table->entries[i].key, v->table->entries[i].len);
			wm_buf_puts(b, " = ");
			ret = put_value(b, doc, v->table->entries[i].value, err);
		}
		wm_buf_putc(b, '}');
		break;
	default:
		if (v->raw) {
			wm_buf_puts(b, v->raw);
			break;
		}
		return wm_toml_fail(doc, err, WM_EINVALID, &v->span, "cannot copy %s into the meta package's "
			"pyproject.toml", wm_toml_type_name(v->type));
	}
	return ret;
}

/* PEP 685's normal form of an extra's name: lowercase, runs of -_. as one '-'. */
static void extra_normal(char *out, size_t size, const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len && n + 1 < size; i++) {
		char c = s[i];
		if (c == '-' || c == '_' || c == '.') {
			if (n && out[n - 1] == '-')
				continue;
			c = '-';
		} else if (c >= 'A' && c <= 'Z') {
			c = (char)(c - 'A' + 'a');
		}
		out[n++] = c;
	}
	out[n] = '\0';
}

static bool dynamic(const struct wm_toml_table *project, const char *key)
{
	const struct wm_toml_value *d = wm_toml_table_get(project, "dynamic");
	for (size_t i = 0; wm_toml_is_array(d) && i < d->array.n; i++)
		if (wm_toml_is_string(d->array.items[i]) && strcmp(d->array.items[i]->str, key) == 0)
			return true;
	return false;
}

static void put_pin(struct wm_buf *b, const struct wm_backend *be, const char *version, const char *marker)
{
	struct wm_buf req = WM_BUF_INIT;
	wm_buf_printf(&req, "%s==%s", be->dist, version);
	if (marker)
		wm_buf_printf(&req, "; %s", marker);
	wm_toml_put_string(b, req.ptr ? req.ptr : "", req.len, WM_TOML_BASIC);
	if (req.oom)
		b->oom = true;
	wm_buf_release(&req);
}

static int meta_pyproject(struct wm_buf *b, const struct wm_matrix *m, struct wm_arena *a, struct wm_error *err)
{
	static const char *const copied[] = { "description", "requires-python", "license", "authors", "maintainers",
		"keywords", "classifiers", "urls" };
	const struct wm_meta *meta = m->meta;
	const struct wm_toml_doc *doc = &m->project->py;
	const struct wm_toml_value *pv = wm_toml_table_get(doc->root, "project"), *extras;
	const struct wm_toml_table *project = wm_toml_is_table(pv) ? pv->table : NULL;
	const char **markers;
	int ret;

	if ((ret = backend_markers(&markers, a, m)) < 0) {
		wm_error_code(err, ret);
		return ret;
	}
	wm_buf_puts(b, "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n\n");
	wm_buf_puts(b, "[project]\nname = ");
	wm_toml_put_string(b, m->name, strlen(m->name), WM_TOML_BASIC);
	wm_buf_puts(b, "\nversion = ");
	wm_toml_put_string(b, meta->version, strlen(meta->version), WM_TOML_BASIC);
	wm_buf_putc(b, '\n');
	for (size_t i = 0; project && i < sizeof(copied) / sizeof(*copied); i++) {
		const struct wm_toml_value *v = wm_toml_table_get(project, copied[i]);
		if (!v || dynamic(project, copied[i]))
			continue;
		wm_buf_printf(b, "%s = ", copied[i]);
		if ((ret = put_value(b, doc, v, err)) < 0)
			return ret;
		wm_buf_putc(b, '\n');
	}
	/* the default backend comes with the plain name */
	wm_buf_puts(b, "dependencies = [");
	if (m->default_backend)
		put_pin(b, m->default_backend, meta->version, markers[m->default_backend->index]);
	wm_buf_puts(b, "]\n\n[project.optional-dependencies]\n");
	extras = project && !dynamic(project, "optional-dependencies") ?
		wm_toml_table_get(project, "optional-dependencies") : NULL;
	if (extras && !wm_toml_is_table(extras))
		return wm_toml_fail(doc, err, WM_EINVALID, &extras->span, "[project].optional-dependencies is %s, "
			"expected a table", wm_toml_type_name(extras->type));
	for (size_t i = 0; extras && i < extras->table->n; i++) {
		const struct wm_toml_entry *e = &extras->table->entries[i];
		char name[128];
		extra_normal(name, sizeof(name), e->key, e->len);
		for (size_t k = 0; k < m->nbackends; k++) {
			char id[128];
			extra_normal(id, sizeof(id), m->backends[k]->id, strlen(m->backends[k]->id));
			if (strcmp(id, name) == 0)
				return wm_toml_fail(doc, err, WM_EINVALID, &e->value->span, "the extra '%s' has the name "
					"of the backend '%s', whose extra the meta package defines: rename one of them",
					e->key, m->backends[k]->id);
		}
		wm_toml_put_key(b, e->key, e->len);
		wm_buf_puts(b, " = ");
		if ((ret = put_value(b, doc, e->value, err)) < 0)
			return ret;
		wm_buf_putc(b, '\n');
	}
	for (size_t i = 0; i < m->nbackends; i++) {
		wm_buf_printf(b, "%s = [", m->backends[i]->id);
		put_pin(b, m->backends[i], meta->version, markers[i]);
		wm_buf_puts(b, "]\n");
	}
	wm_buf_puts(b, "\n[tool.setuptools]\npackages = [");
	/* every directory of the import package that holds a module or stub */
	{
		const char **pkgs = wm_arena_array(a, meta->nfiles + 2, sizeof(*pkgs));
		size_t npkgs = 0;
		if (!pkgs)
			return wm_error_oom(err);
		pkgs[npkgs++] = meta->package;
		for (size_t i = 0; i < meta->nfiles; i++) {
			const char *slash = strrchr(meta->files[i].to, '/');
			char *dotted = slash ? wm_arena_strndup(a, meta->files[i].to, (size_t)(slash - meta->files[i].to)) : NULL;
			bool seen = false;
			if (!dotted)
				continue;
			for (char *s = dotted; *s; s++)
				if (*s == '/')
					*s = '.';
			for (size_t k = 0; k < npkgs && !seen; k++)
				seen = strcmp(pkgs[k], dotted) == 0;
			if (!seen)
				pkgs[npkgs++] = dotted;
		}
		for (size_t i = 0; i < npkgs; i++) {
			wm_buf_puts(b, i ? ", " : "");
			wm_toml_put_string(b, pkgs[i], strlen(pkgs[i]), WM_TOML_BASIC);
		}
	}
	wm_buf_puts(b, "]\n\n[tool.setuptools.package-data]\n\"*\" = [\"py.typed\", \"*.pyi\"]\n");
	if (b->oom)
		return wm_error_oom(err);
	return 0;
}

/* ---- the Python files ----------------------------------------------------- */

/* Replaces each @KEY@ of the template `name` with its value. */
static int fill(struct wm_buf *out, const char *name, const char *const *keys, const char *const *values, size_t n)
{
	const struct wm_template *t = wm_template_get(name);
	const char *s, *end;
	if (!t)
		return WM_EINTERNAL;
	for (s = t->data, end = t->data + t->len; s < end;) {
		const char *at = memchr(s, '@', (size_t)(end - s));
		bool done = false;
		if (!at) {
			wm_buf_add(out, s, (size_t)(end - s));
			break;
		}
		wm_buf_add(out, s, (size_t)(at - s));
		for (size_t i = 0; i < n && !done; i++) {
			size_t klen = strlen(keys[i]);
			if ((size_t)(end - at) > klen + 1 && memcmp(at + 1, keys[i], klen) == 0 && at[klen + 1] == '@') {
				wm_buf_puts(out, values[i]);
				s = at + klen + 2;
				done = true;
			}
		}
		if (!done) {
			wm_buf_putc(out, '@');
			s = at + 1;
		}
	}
	return out->oom ? WM_ENOMEM : 0;
}

static int dispatcher(struct wm_buf *out, const struct wm_matrix *m, struct wm_arena *a)
{
	static const char *const keys[] = { "NAME", "VERSION", "ENV", "BACKENDS" };
	const struct wm_meta *meta = m->meta;
	struct wm_buf list = WM_BUF_INIT;
	const char *values[4];
	int ret;

	for (size_t i = 0; i < m->nbackends; i++)
		wm_buf_printf(&list, "    (\"%s\", \"%s\", \"%s\"),\n", m->backends[i]->id, m->backends[i]->dist,
			wm_meta_module_name(a, m, m->backends[i]));
	values[0] = m->name;
	values[1] = meta->version;
	values[2] = meta->env;
	values[3] = list.ptr ? list.ptr : "";
	ret = list.oom ? WM_ENOMEM : fill(out, "meta-dispatch.py", keys, values, 4);
	wm_buf_release(&list);
	return ret;
}

int wm_package_generate(struct wm_files *out, const struct wm_matrix *m, const char *matrix_file,
	struct wm_error *err)
{
	const struct wm_meta *meta = m->meta;
	struct wm_arena a;
	struct wm_buf b = WM_BUF_INIT;
	int ret = 0;

	if (!meta)
		return 0;
	wm_arena_init(&a);
	for (size_t i = 0; i < m->nbackends && ret == 0; i++) {
		const struct wm_backend *be = m->backends[i];
		wm_buf_clear(&b);
		wm_buf_printf(&b, "\"\"\"The %s backend of %s %s: import %s, which loads the backend that fits.\"\"\"\n",
			be->id, m->name, meta->version, m->module);
		/* beside pyproject.toml: maturin's sdist takes python-source only from below its directory */
		ret = b.oom ? WM_ENOMEM : wm_emit_add(out, wm_meta_path(&a, meta->project_dir, wm_arena_printf(&a, WM_META_BACKENDS_DIR
			"/%s/%s/__init__.py", be->id, wm_meta_import(&a, m, be))), matrix_file, b.ptr, b.len, err);
	}
	if (ret == 0) {
		wm_buf_clear(&b);
		if ((ret = meta_pyproject(&b, m, &a, err)) == 0)
			ret = wm_emit_add(out, WM_META_DIR "/pyproject.toml", matrix_file, b.ptr, b.len, err);
	}
	for (size_t i = 0; i < meta->nfiles && ret == 0; i++)
		ret = wm_emit_add(out, wm_arena_printf(&a, WM_META_DIR "/%s", meta->files[i].to), matrix_file,
			meta->files[i].data, meta->files[i].len, err);
	if (ret == 0) {
		wm_buf_clear(&b);
		if ((ret = dispatcher(&b, m, &a)) == 0)
			ret = wm_emit_add(out, wm_arena_printf(&a, WM_META_DIR "/%s", meta->dispatcher), matrix_file, b.ptr, b.len, err);
		else
			wm_error_code(err, ret);
	}
	wm_buf_release(&b);
	wm_arena_release(&a);
	return ret;
}
