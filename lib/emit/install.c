/*
 * install.c — strategy index: what users install a backend with, under
 * .wheelmatrix/index/: a pip requirements file per backend, and a project
 * whose extras pick a backend through uv's explicit indexes.
 *
 * Everything written comes from values the loader checked against a grammar
 * (the index URL, the project name, backend ids, the version): nothing needs
 * quoting in a requirements file, and TOML strings go through toml.c.
 */
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "formats/pep440.h"
#include "formats/toml.h"
#include "model/project.h"
#include "emit/emit.h"
#include "emit/install.h"

#define INDEX_DIR ".wheelmatrix/index"

/* An extra's name as PEP 685 writes it: rocm_6 -> rocm-6. */
static const char *extra_name(struct wm_arena *a, const char *id)
{
	char *s = wm_arena_strdup(a, id);
	for (char *c = s; c && *c; c++)
		if (*c == '_')
			*c = '-';
	return s;
}

/*
 * requirements-<backend>.txt: the backend's index and the exact version.  With
 * local labels, `--extra-index-url` and the pin `name==<version>+<label>`, which
 * no other index has, work alike for pip and uv; without them, the backend's
 * index is the only one (`--index-url`): pip and uv rank extra indexes
 * differently, and a file that is right for both cannot list a second index
 * offering the same version.  The default backend's comes from the main index.
 */
static void requirements(struct wm_buf *b, const struct wm_matrix *m, const struct wm_backend *be,
	const char *version)
{
	wm_buf_printf(b, "# pip install -r requirements-%s.txt, or: uv pip install -r requirements-%s.txt\n",
		be->id, be->id);
	if (!be->is_default)
		wm_buf_printf(b, "%s %s/%s/\n", be->local ? "--extra-index-url" : "--index-url", m->index_url, be->id);
	wm_buf_puts(b, m->name);
	if (version)
		wm_buf_printf(b, "==%s%s%s", version, be->local ? "+" : "", be->local ? be->local : "");
	wm_buf_putc(b, '\n');
}

/* `key = "value"`; a NULL value (out of memory) marks the buffer incomplete. */
static void toml_line(struct wm_buf *b, const char *key, const char *value)
{
	if (!value) {
		b->oom = true;
		return;
	}
	wm_toml_put_key(b, key, strlen(key));
	wm_buf_puts(b, " = ");
	wm_toml_put_string(b, value, strlen(value), WM_TOML_BASIC);
	wm_buf_putc(b, '\n');
}

/*
 * pyproject.toml: a project that installs the package with one backend, its
 * extra's name: `uv sync --extra cuda`.  Each backend but the default comes
 * from its own index, marked explicit so that nothing else is looked up
 * there; the extras conflict, so uv resolves each on its own.
 */
static void uv_project(struct wm_buf *b, struct wm_arena *a, const struct wm_matrix *m)
{
	const char *requires = m->project ? m->project->requires_python : NULL;
	size_t nown = 0;

	wm_buf_printf(b, "# A project that installs %s with one backend: uv sync --extra <backend>.\n", m->name);
	wm_buf_puts(b, "# Copy [project.optional-dependencies] and the [tool.uv] tables into your pyproject.toml.\n\n");
	wm_buf_puts(b, "[project]\n");
	toml_line(b, "name", wm_arena_printf(a, "%s-backends", m->name));
	toml_line(b, "version", "0");
	if (requires)
		toml_line(b, "requires-python", requires);
	wm_buf_puts(b, "dependencies = []\n\n[project.optional-dependencies]\n");
	for (size_t i = 0; i < m->nbackends; i++) {
		const char *extra = extra_name(a, m->backends[i]->id);
		if (!extra) {
			b->oom = true;
			return;
		}
		wm_toml_put_key(b, extra, strlen(extra));
		wm_buf_puts(b, " = [");
		wm_toml_put_string(b, m->name, strlen(m->name), WM_TOML_BASIC);
		wm_buf_puts(b, "]\n");
		nown += !m->backends[i]->is_default;
	}
	wm_buf_puts(b, "\n[tool.uv]\nconflicts = [\n  [");
	for (size_t i = 0; i < m->nbackends; i++) {
		const char *extra = extra_name(a, m->backends[i]->id);
		if (!extra) {
			b->oom = true;
			return;
		}
		wm_buf_puts(b, i ? ", { extra = " : "{ extra = ");
		wm_toml_put_string(b, extra, strlen(extra), WM_TOML_BASIC);
		wm_buf_puts(b, " }");
	}
	wm_buf_puts(b, "],\n]\n");
	if (!nown)
		return;
	wm_buf_puts(b, "\n[tool.uv.sources]\n");
	wm_toml_put_key(b, m->name, strlen(m->name));
	wm_buf_puts(b, " = [\n");
	for (size_t i = 0; i < m->nbackends; i++) {
		const struct wm_backend *be = m->backends[i];
		const char *extra = extra_name(a, be->id);
		const char *index = extra ? wm_arena_printf(a, "%s-%s", m->name, extra) : NULL;
		if (be->is_default)
			continue;
		if (!index) {
			b->oom = true;
			return;
		}
		wm_buf_puts(b, "  { index = ");
		wm_toml_put_string(b, index, strlen(index), WM_TOML_BASIC);
		wm_buf_puts(b, ", extra = ");
		wm_toml_put_string(b, extra, strlen(extra), WM_TOML_BASIC);
		wm_buf_puts(b, " },\n");
	}
	wm_buf_puts(b, "]\n");
	for (size_t i = 0; i < m->nbackends; i++) {
		const struct wm_backend *be = m->backends[i];
		const char *extra = extra_name(a, be->id);
		if (be->is_default)
			continue;
		wm_buf_puts(b, "\n[[tool.uv.index]]\n");
		toml_line(b, "name", extra ? wm_arena_printf(a, "%s-%s", m->name, extra) : NULL);
		toml_line(b, "url", wm_arena_printf(a, "%s/%s/", m->index_url, be->id));
		wm_buf_puts(b, "explicit = true\n");
	}
}

int wm_install_generate(struct wm_files *out, const struct wm_matrix *m, const char *matrix_file,
	struct wm_error *err)
{
	struct wm_buf b = WM_BUF_INIT, v = WM_BUF_INIT;
	struct wm_arena a;
	const char *version = NULL, *why;
	int ret = 0;

	if (m->strategy != WM_STRATEGY_INDEX || !m->index_url || !m->name)
		return 0;
	wm_arena_init(&a);
	/* the loader checked that a version with local labels has a PEP 440 form */
	if (m->version && wm_pep440(&v, m->version, &why) == 0 && !v.oom)
		version = v.ptr;
	for (size_t i = 0; ret == 0 && i < m->nbackends; i++) {
		wm_buf_clear(&b);
		requirements(&b, m, m->backends[i], version);
		ret = wm_emit_add_buf(out, wm_arena_printf(&a, INDEX_DIR "/requirements-%s.txt", m->backends[i]->id), matrix_file,
			&b, err);
	}
	if (ret == 0) {
		wm_buf_clear(&b);
		uv_project(&b, &a, m);
		ret = wm_emit_add_buf(out, INDEX_DIR "/pyproject.toml", matrix_file, &b, err);
	}
	wm_buf_release(&b);
	wm_buf_release(&v);
	wm_arena_release(&a);
	return ret;
}
