/*
 * meta.c — strategy `meta` in the model: each backend becomes a
 * co-installable distribution with its own import package
 * `_<package>_<backend>`, and a pure-Python meta package with the base name
 * picks one at import time.
 *
 * At load, wm_meta_scan finds the project's layout with maturin's rules and
 * reads what the meta package carries; the names here say where each
 * backend's module goes.  emit/package.c writes the package.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "formats/pep440.h"
#include "model/meta.h"
#include "model/project.h"

/* ---- the layout ---------------------------------------------------------- */

/* The directory part of a repository-relative path: "" for a bare name. */
static const char *dir_of(struct wm_arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? wm_arena_strndup(a, path, (size_t)(slash - path)) : "";
}

/*
 * `dir`/`name` with `.` and `..` resolved and no leading, trailing or double
 * '/': a path as git names it.  NULL when out of memory, or when it climbs
 * above the repository root (*outside set).
 */
static const char *join_path(struct wm_arena *a, const char *dir, const char *name, bool *outside)
{
	char *full, *out, *seg;
	size_t n = 0;

	*outside = false;
	if (!dir || !name || !(full = wm_arena_printf(a, "%s/%s", dir, name)) ||
			!(out = wm_arena_alloc(a, strlen(full) + 1)))
		return NULL;
	for (char *save = NULL, *s = full; (seg = strtok_r(s, "/", &save)); s = NULL) {
		if (strcmp(seg, ".") == 0)
			continue;
		if (strcmp(seg, "..") == 0) {
			if (n == 0) {
				*outside = true;
				return NULL;
			}
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
			continue;
		}
		if (n)
			out[n++] = '/';
		memcpy(out + n, seg, strlen(seg));
		n += strlen(seg);
	}
	out[n] = '\0';
	return out;
}

const char *wm_meta_path(struct wm_arena *a, const char *dir, const char *name)
{
	bool outside;
	return join_path(a, dir, name, &outside);
}

/* The top package of `module`: llm_rs, geo_rs for geo_rs._geo. */
static const char *top_package(struct wm_arena *a, const char *module)
{
	const char *dot = strchr(module, '.');
	return dot ? wm_arena_strndup(a, module, (size_t)(dot - module)) : module;
}

/* The native leaf of `module`: llm_rs, _geo for geo_rs._geo. */
static const char *leaf_of(const char *module)
{
	const char *dot = strrchr(module, '.');
	return dot ? dot + 1 : module;
}

/* Whether the meta package carries a file of the project's Python package. */
static bool carried(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	base = base ? base + 1 : path;
	if (strcmp(base, "py.typed") == 0)
		return true;
	dot = strrchr(base, '.');
	return dot && dot != base && (strcmp(dot, ".py") == 0 || strcmp(dot, ".pyi") == 0);
}

static int add_file(struct wm_meta *meta, struct wm_arena *a, size_t *cap, const char *from, const char *to,
	char *data, size_t len)
{
	if (meta->nfiles == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		struct wm_meta_file *f = wm_arena_array(a, ncap, sizeof(*f));
		if (!f)
			return WM_ENOMEM;
		if (meta->nfiles)
			memcpy(f, meta->files, meta->nfiles * sizeof(*f));
		meta->files = f;
		*cap = ncap;
	}
	meta->files[meta->nfiles].from = from;
	meta->files[meta->nfiles].to = to;
	meta->files[meta->nfiles].data = wm_arena_strndup(a, data, len);
	meta->files[meta->nfiles].len = len;
	if (!from || !to || !meta->files[meta->nfiles].data)
		return WM_ENOMEM;
	meta->nfiles++;
	return 0;
}

/* Lists `dir` through `r`: 1 when it is not a directory or holds no file. */
static int list(const struct wm_reader *r, const char *dir, struct wm_paths *out, struct wm_error *err)
{
	int ret;
	memset(out, 0, sizeof(*out));
	if (!dir) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	if (!r->list)
		return 1;
	if ((ret = r->list(r->ctx, dir, out, err)) == 0 && out->n == 0)
		ret = 1;
	return ret;
}

static int read_into(struct wm_meta *meta, struct wm_arena *a, size_t *cap, const struct wm_reader *r,
	const char *from, const char *to, struct wm_error *err)
{
	char *data = NULL;
	size_t len = 0;
	int ret = from && to ? r->read(r->ctx, from, &data, &len, err) : WM_ENOMEM;
	if (ret == 0)
		ret = add_file(meta, a, cap, from, to, data, len);
	if (ret == WM_ENOMEM)
		wm_error_code(err, ret);
	free(data);
	return ret < 0 ? ret : 0;
}

static int oom(struct wm_error *err)
{
	wm_error_code(err, WM_ENOMEM);
	return WM_ENOMEM;
}

/* The meta package's version: the project's, as PEP 440 writes it for the pins. */
static int meta_version(struct wm_meta *meta, struct wm_arena *a, const struct wm_matrix *m, struct wm_error *err)
{
	const struct wm_project *p = m->project;
	struct wm_buf v = WM_BUF_INIT;
	const char *why = NULL;

	if (!m->version) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, p->py_path, NULL, 0, 0, 0, 0,
			"strategy 'meta' pins every backend to the project's version, but neither [project].version "
			"nor %s's package.version gives one", p->cargo_path ? p->cargo_path : "Cargo.toml");
		return WM_EINVALID;
	}
	if (wm_pep440(&v, m->version, &why) < 0) {
		wm_buf_release(&v);
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, p->version_file ? p->version_file : p->py_path,
			NULL, 0, 0, 0, 0, "the version '%s' cannot be written as PEP 440 for the meta package's "
			"pins: %s", m->version, why ? why : "invalid");
		return WM_EINVALID;
	}
	meta->version = v.oom ? NULL : wm_arena_strndup(a, v.ptr, v.len);
	wm_buf_release(&v);
	return 0;
}

/* The names of the meta package, its directory and its variable; false when out of memory. */
static bool meta_names(struct wm_meta *meta, struct wm_arena *a, const struct wm_matrix *m)
{
	meta->package = top_package(a, m->module);
	meta->leaf = leaf_of(m->module);
	meta->project_dir = dir_of(a, m->project->py_path);
	meta->env = wm_arena_printf(a, "%s_BACKEND", meta->package);
	if (!meta->version || !meta->package || !meta->project_dir || !meta->env)
		return false;
	for (char *s = (char *)meta->env; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			*s = (char)(*s - 'a' + 'A');
	return true;
}

/*
 * maturin's python source into *srcdir: python-source, else src/ when the crate is elsewhere (and
 * src/ holds the package), else beside pyproject.
 */
static int python_source(const char **srcdir, const struct wm_meta *meta, struct wm_arena *a,
	const struct wm_project *p, const struct wm_reader *r, struct wm_error *err)
{
	struct wm_paths files = { 0 };
	int ret;

	*srcdir = NULL;
	if (p->python_source) {
		bool outside;
		if (!(*srcdir = join_path(a, meta->project_dir, p->python_source, &outside)) && outside) {
			wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, p->py_path, NULL, 0, 0, 0, 0,
				"[tool.maturin].python-source '%s' is outside the repository", p->python_source);
			return WM_EINVALID;
		}
	} else if (p->cargo_path && strcmp(dir_of(a, p->cargo_path), meta->project_dir) != 0) {
		const char *src = wm_meta_path(a, meta->project_dir, "src");
		if (src && (ret = list(r, wm_meta_path(a, src, meta->package), &files, err)) < 0)
			return ret;
		if (src && ret == 0)
			*srcdir = src;
		wm_io_paths_free(&files);
	}
	if (!*srcdir)
		*srcdir = meta->project_dir;
	return 0;
}

/*
 * A mixed layout (the package's `files` in meta->source_dir): the native module's place becomes the
 * dispatcher, and the meta package carries the package's Python files.
 */
static int scan_mixed(struct wm_meta *meta, struct wm_arena *a, size_t *cap, const struct wm_matrix *m,
	const struct wm_reader *r, const struct wm_paths *files, struct wm_error *err)
{
	const char *pydir = meta->source_dir, *dot = strchr(m->module, '.');
	/* a.b.c -> a/b/c.py, a -> a/a.py (maturin's rule) */
	char *native = dot ? wm_arena_printf(a, "%s.py", m->module) : wm_arena_printf(a, "%s/%s.py", m->module, m->module);
	int ret;

	if (!native)
		return oom(err);
	for (char *s = native; dot && s < native + strlen(m->module); s++)
		if (*s == '.')
			*s = '/';
	meta->dispatcher = native;
	for (size_t i = 0; i < files->n; i++) {
		const char *to = wm_meta_path(a, meta->package, files->items[i]);
		if (!carried(files->items[i]))
			continue;
		if (to && strcmp(to, native) == 0) {
			wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, wm_meta_path(a, pydir, files->items[i]), NULL, 0, 0, 0, 0,
				"this file has the name of the native module %s, whose place the meta package's "
				"dispatcher takes", m->module);
			return WM_EINVALID;
		}
		if ((ret = read_into(meta, a, cap, r, wm_meta_path(a, pydir, files->items[i]), to, err)) < 0)
			return ret;
	}
	return 0;
}

/*
 * A pure layout (no Python package in `srcdir`): the dispatcher is the package's __init__.py, and
 * maturin's <module>.pyi, when there is one, the package's stub, with py.typed.
 */
static int scan_pure(struct wm_meta *meta, struct wm_arena *a, size_t *cap, const struct wm_matrix *m,
	const struct wm_reader *r, const char *srcdir, struct wm_error *err)
{
	char *data = NULL;
	size_t len = 0;
	const char *stub = wm_meta_path(a, meta->project_dir, wm_arena_printf(a, "%s.pyi", meta->package));
	int ret;

	if (strchr(m->module, '.')) {
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, m->project->py_path, NULL, 0, 0, 0, 0,
			"strategy 'meta' needs a Python package '%s' for the module '%s' (maturin's mixed "
			"layout), and %s has none", meta->package, m->module, srcdir[0] ? srcdir : "the project");
		return WM_EINVALID;
	}
	meta->dispatcher = wm_arena_printf(a, "%s/__init__.py", meta->package);
	if (!meta->dispatcher || !stub)
		return oom(err);
	if ((ret = r->read(r->ctx, stub, &data, &len, err)) < 0)
		return ret;
	if (ret == 0) {
		ret = add_file(meta, a, cap, stub, wm_arena_printf(a, "%s/__init__.pyi", meta->package), data, len);
		if (ret == 0)
			ret = add_file(meta, a, cap, stub, wm_arena_printf(a, "%s/py.typed", meta->package), "", 0);
		free(data);
		if (ret < 0)
			return oom(err);
	}
	return 0;
}

int wm_meta_scan(const struct wm_meta **out, struct wm_arena *a, const struct wm_matrix *m,
	const struct wm_reader *r, struct wm_error *err)
{
	struct wm_meta *meta = wm_arena_alloc(a, sizeof(*meta));
	struct wm_paths files = { 0 };
	const char *pydir, *srcdir;
	size_t cap = 0;
	int ret;

	*out = NULL;
	if (!meta)
		return oom(err);
	memset(meta, 0, sizeof(*meta));
	if ((ret = meta_version(meta, a, m, err)) < 0)
		return ret;
	if (!meta_names(meta, a, m))
		return oom(err);
	if ((ret = python_source(&srcdir, meta, a, m->project, r, err)) < 0)
		return ret;
	if (!srcdir || !(pydir = wm_meta_path(a, srcdir, meta->package)))
		return oom(err);
	if ((ret = list(r, pydir, &files, err)) < 0)
		return ret;
	meta->mixed = ret == 0;
	meta->source_dir = pydir;
	ret = meta->mixed ? scan_mixed(meta, a, &cap, m, r, &files, err) : scan_pure(meta, a, &cap, m, r, srcdir, err);
	wm_io_paths_free(&files);
	if (ret < 0)
		return ret;
	*out = meta;
	return 0;
}

const char *wm_meta_import(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b)
{
	const char *pkg = top_package(a, m->module);
	return pkg ? wm_arena_printf(a, "_%s_%s", pkg, b->id) : NULL;
}

const char *wm_meta_module_name(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b)
{
	const char *pkg = top_package(a, m->module);
	return pkg ? wm_arena_printf(a, "_%s_%s.%s", pkg, b->id, leaf_of(m->module)) : NULL;
}

const char *wm_meta_python_source(struct wm_arena *a, const struct wm_backend *b)
{
	/* relative to pyproject.toml's directory, whatever the layout */
	return wm_arena_printf(a, WM_META_BACKENDS_DIR "/%s", b->id);
}
