/* generate.c — renders every output of a matrix in memory, for `generate` to write and `check` to compare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "formats/diff.h"
#include "formats/pep440.h"
#include "formats/toml.h"
#include "model/matrix.h"
#include "model/meta.h"
#include "model/project.h"
#include "emit/emit.h"
#include "emit/file.h"
#include "emit/generate.h"
#include "emit/github.h"
#include "emit/gitlab.h"
#include "emit/install.h"
#include "emit/package.h"
#include "emit/patch.h"

/*
 * The crate's manifest relative to pyproject.toml's directory, as manifest-path takes it; "" (no
 * pin) when it is the Cargo.toml beside it, NULL when out of memory.
 */
static const char *manifest_from_pyproject(struct wm_arena *a, const struct wm_project *p)
{
	const char *slash = strrchr(p->py_path, '/');
	size_t dirlen = slash ? (size_t)(slash - p->py_path) + 1 : 0, common = 0;
	struct wm_buf out = WM_BUF_INIT;
	char *s;

	/* the longest common prefix of whole directories */
	for (size_t i = 0; i < dirlen && p->cargo_path[i] == p->py_path[i]; i++)
		if (p->py_path[i] == '/')
			common = i + 1;
	for (size_t i = common; i < dirlen; i++)
		if (p->py_path[i] == '/')
			wm_buf_puts(&out, "../");
	wm_buf_puts(&out, p->cargo_path + common);
	s = out.oom ? NULL : wm_arena_strdup(a, out.ptr);
	wm_buf_release(&out);
	return s && strcmp(s, "Cargo.toml") == 0 ? "" : s;
}

/* What backend `b` changes in pyproject.toml. */
static int variant_spec(struct wm_patch_spec *spec, struct wm_arena *a, const struct wm_matrix *m,
	const struct wm_backend *b)
{
	const struct wm_project *p = m->project;
	memset(spec, 0, sizeof(*spec));
	if (p->name && strcmp(b->dist, p->name) != 0)
		spec->name = b->dist;
	spec->old_name = p->name;
	spec->features = b->features.items;
	spec->nfeatures = b->features.n;
	spec->dependencies = b->dependencies.items;
	spec->ndependencies = b->dependencies.n;
	/* strategy variants: every backend's pyproject.toml carries the same [variant] table */
	if (m->strategy == WM_STRATEGY_VARIANTS) {
		spec->providers = m->providers;
		spec->nproviders = m->nproviders;
	}
	/* strategy index: <version>+<label>, the version as PEP 440 writes it (the loader checked it can be) */
	if (b->local) {
		struct wm_buf v = WM_BUF_INIT;
		const char *why;
		if (wm_pep440(&v, m->version, &why) < 0 || v.oom) {
			wm_buf_release(&v);
			return WM_ENOMEM;
		}
		wm_buf_printf(&v, "+%s", b->local);
		spec->version = v.oom ? NULL : wm_arena_strdup(a, v.ptr);
		wm_buf_release(&v);
		if (!spec->version)
			return WM_ENOMEM;
	}
	/* maturin names the module after the project unless module-name or [lib].name pins it */
	if (spec->name && !p->module_name && !p->lib_name)
		spec->module_name = m->module;
	/*
	 * maturin finds the src layout (src/ and rust/Cargo.toml) only where src/<project name> is a
	 * directory, and a manifest the matrix names not at all: under another name, the variant's
	 * build would look for the Cargo.toml beside pyproject.toml.  The patch pins both.
	 */
	if (spec->name && !p->manifest_setting && !(spec->manifest_path = manifest_from_pyproject(a, p)))
		return WM_ENOMEM;
	if (spec->manifest_path && !*spec->manifest_path)
		spec->manifest_path = NULL;
	if (spec->name && p->src_layout_by_name && !spec->python_source)
		spec->python_source = "src";
	/* under meta, each backend's native module lives in its own package, in maturin's mixed layout */
	if (m->meta && (!(spec->module_name = wm_meta_module_name(a, m, b)) ||
			!(spec->python_source = wm_meta_python_source(a, b))))
		return WM_ENOMEM;
	return 0;
}

int wm_generate_variant(struct wm_buf *out, const struct wm_matrix *m, const struct wm_backend *b,
	struct wm_error *err)
{
	const struct wm_toml_doc *doc = &m->project->py;
	struct wm_patch_spec spec;
	struct wm_buf text = WM_BUF_INIT;
	struct wm_arena a;
	int ret;

	wm_arena_init(&a);
	if ((ret = variant_spec(&spec, &a, m, b)) < 0) {
		wm_error_code(err, ret);
		goto out;
	}
	if ((ret = wm_patch_pyproject(&text, doc, &spec, err)) < 0)
		goto out;
	if (text.len == doc->len && memcmp(text.ptr ? text.ptr : "", doc->text, doc->len) == 0) {
		ret = 0;
		goto out;
	}
	ret = wm_diff_git(out, m->project->py_path, doc->text, doc->len, text.ptr, text.len);
	if (ret == 0)
		ret = 1;
out:
	wm_arena_release(&a);
	wm_buf_release(&text);
	return ret;
}

/*
 * A file over WM_GENERATED_MAX_BYTES, refused by name.  The matrix's text is bounded, so only long
 * values repeated in many jobs make one, and a file that large is of no use to a CI service.
 */
static int too_large(const char *path, struct wm_error *err)
{
	wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
		"the generated file '%s' would be larger than the limit of %zu MiB: the matrix repeats long values "
		"(such as env values) in too many jobs", path, WM_GENERATED_MAX_BYTES >> 20);
	return WM_EINVALID;
}

/* Adds a CI file rendered into `body` (ret: the emitter's result; its writer stops past the limit). */
static int add_ci_file(struct wm_files *out, const char *path, const char *matrix_file, int ret,
	const struct wm_buf *body, struct wm_error *err)
{
	if (body->len > WM_GENERATED_MAX_BYTES)
		return too_large(path, err);
	if (ret < 0)
		return ret;
	return wm_emit_add_buf(out, path, matrix_file, body, err);
}

int wm_generate(struct wm_files *out, const struct wm_matrix *m, const struct wm_catalog *cat,
	const char *matrix_file, struct wm_error *err)
{
	struct wm_buf body = WM_BUF_INIT;
	bool *patched = calloc(m->nbackends + 1, sizeof(*patched));
	int ret = 0;

	if (!patched)
		return wm_error_oom(err);
	/* the variant patches first: the workflow applies only those that exist */
	for (size_t i = 0; m->project && i < m->nbackends; i++) {
		char path[96];
		wm_buf_clear(&body);
		if ((ret = wm_generate_variant(&body, m, m->backends[i], err)) < 0)
			goto out;
		if (ret == 0)
			continue;
		patched[i] = true;
		snprintf(path, sizeof(path), WM_PATCH_PATH, m->backends[i]->id);
		/* the commands read no larger patch back (wm_diff_check) */
		if (body.len > WM_DIFF_MAX_BYTES) {
			wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL,
				"the patch '%s' would be larger than the limit of %u KiB: %s's lines around the edits are too "
				"long", path, WM_DIFF_MAX_BYTES >> 10, m->project->py_path);
			ret = WM_EINVALID;
			goto out;
		}
		if ((ret = wm_emit_add_buf(out, path, matrix_file, &body, err)) < 0)
			goto out;
	}
	if ((ret = wm_package_generate(out, m, matrix_file, err)) < 0 ||
			(ret = wm_install_generate(out, m, matrix_file, err)) < 0)
		goto out;
	if (m->github.enabled) {
		unsigned local = 0;
		wm_buf_clear(&body);
		ret = wm_emit_github(&body, m, cat, m->project ? patched : NULL, &local, err);
		if ((ret = add_ci_file(out, m->github.path, matrix_file, ret, &body, err)) < 0)
			goto out;
		/* the local actions its steps run, beside it */
		for (unsigned k = 0; k < WM_GITHUB_NLOCAL; k++) {
			const char *dir;
			char path[128];
			if (!(local >> k & 1))
				continue;
			wm_buf_clear(&body);
			if ((ret = wm_emit_github_local(&body, &dir, k, err)) < 0)
				goto out;
			snprintf(path, sizeof(path), "%s" WM_GITHUB_LOCAL_FILE, dir);
			if ((ret = wm_emit_add_buf(out, path, matrix_file, &body, err)) < 0)
				goto out;
		}
	}
	if (m->gitlab.enabled) {
		wm_buf_clear(&body);
		ret = wm_emit_gitlab(&body, m, cat, m->project ? patched : NULL, err);
		if ((ret = add_ci_file(out, m->gitlab.path, matrix_file, ret, &body, err)) < 0)
			goto out;
	}
	/* every file, header included: the patches, the meta package and the index files too */
	for (size_t i = 0; i < out->n; i++)
		if (out->items[i].len > WM_GENERATED_MAX_BYTES && (ret = too_large(out->items[i].path, err)) < 0)
			goto out;
out:
	free(patched);
	wm_buf_release(&body);
	return ret;
}
