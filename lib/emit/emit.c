/* emit.c — what the GitHub and GitLab emitters share: skeleton pieces, toolkit recipes, patches, smoke tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/name.h"
#include "util/text.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/meta.h"
#include "model/python.h"
#include "emit/emit.h"
#include "emit/file.h"

struct wm_y *wm_emit_piece(struct wm_yb *b, const struct wm_doc *skel, const char *name, struct wm_error *err)
{
	const struct wm_node *n = wm_yaml_find(skel->root, name);
	if (!n) {
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, skel->file, "no piece '%s'", name);
		return NULL;
	}
	return wm_yaml_copy(b, n);
}

const char *wm_emit_keep(struct wm_yb *b, struct wm_buf *out)
{
	char *s = out->len && !out->oom ? wm_arena_strdup(b->arena, out->ptr) : NULL;
	if (out->oom || (out->len && !s))
		b->oom = true;
	wm_buf_release(out);
	return s;
}

/*
 * The packages a Linux build installs: the toolkit's `packages.base`, then those of each of the
 * backend's features (by its last `/` component), or `packages.default` when no feature is one of
 * the toolkit's; each once, space-separated.
 */
static void put_packages(struct wm_yb *b, struct wm_buf *out, const struct wm_toolkit_use *u)
{
	const struct wm_node *data = wm_yaml_find(u->toolkit->recipe, "packages");
	const struct wm_node *by_feature = wm_yaml_find(data, "features");
	const struct wm_node *lists[64];
	size_t n = 0;
	size_t start = out->len;

	lists[n++] = wm_yaml_find(data, "base");
	for (size_t f = 0; u->features && f < u->features->n && n < WM_ARRAY_SIZE(lists); f++) {
		const struct wm_node *list = wm_yaml_find(by_feature, wm_name_feature_leaf(u->features->items[f]));
		if (list)
			lists[n++] = list;
	}
	if (n == 1)
		lists[n++] = wm_yaml_find(data, "default");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; lists[i] && k < lists[i]->n; k++) {
			const char *name = wm_emit_recipe_text(b, lists[i]->items[k]->text, u);
			size_t len = strlen(name);
			bool seen = false;
			/* a name already written is a whole word of what this call wrote */
			for (const char *w = out->ptr ? out->ptr + start : NULL; w && *w && !seen; w += strcspn(w, " "), w += *w == ' ')
				seen = strncmp(w, name, len) == 0 && (w[len] == ' ' || w[len] == '\0');
			if (!seen)
				wm_buf_printf(out, "%s%s", out->len > start ? " " : "", name);
		}
}

/*
 * The GPU architectures of a toolkit use, as the build systems read them: `cap` CUDA_COMPUTE_CAP
 * (bindgen_cuda: one number, nvcc's --gpu-architecture=sm_N, so the oldest, whose PTX newer GPUs
 * compile when they load it), `cmake` CMake's CUDA_ARCHITECTURES and CUDAARCHS ("75;80;86"),
 * `torch` TORCH_CUDA_ARCH_LIST ("7.5;8.0;8.6").  The matrix's `archs`, else the version's default.
 */
static void put_archs(struct wm_buf *out, const struct wm_toolkit_use *u, const char *form)
{
	const struct wm_node *def = wm_yaml_find(wm_yaml_find(wm_yaml_find(u->toolkit->recipe, "archs"),
		u->version ? u->version : ""), "default");
	size_t n = u->archs.n ? u->archs.n : def ? def->n : 0;
	const char *lowest = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *a = u->archs.n ? u->archs.items[i] : def->items[i]->text;
		if (strcmp(form, "cap") == 0) {
			if (!lowest || strtod(a, NULL) < strtod(lowest, NULL))
				lowest = a;
			continue;
		}
		if (i)
			wm_buf_putc(out, ';');
		if (strcmp(form, "torch") == 0) {
			wm_buf_puts(out, a);
		} else {
			for (const char *c = a; *c; c++)
				if (*c != '.')
					wm_buf_putc(out, *c);
		}
	}
	for (const char *c = lowest; c && *c; c++)
		if (*c != '.')
			wm_buf_putc(out, *c);
}

const char *wm_emit_recipe_text(struct wm_yb *b, const char *text, const struct wm_toolkit_use *u)
{
	const struct wm_node *full = wm_yaml_find(u->toolkit->recipe, "full-versions");
	const char *version = u->version ? u->version : "";
	const struct wm_node *fv = u->version ? wm_yaml_find(full, u->version) : NULL;
	struct wm_buf out = WM_BUF_INIT;
	const char *s;

	if (!strchr(text, '@'))
		return text;
	for (const char *p = text; *p;) {
		if (strncmp(p, "@version@", 9) == 0) {
			wm_buf_puts(&out, version);
			p += 9;
		} else if (strncmp(p, "@version-dash@", 14) == 0) {
			for (const char *v = version; *v; v++)
				wm_buf_putc(&out, *v == '.' ? '-' : *v);
			p += 14;
		} else if (strncmp(p, "@major@", 7) == 0) {
			wm_buf_add(&out, version, strcspn(version, "."));
			p += 7;
		} else if (strncmp(p, "@full@", 6) == 0) {
			wm_buf_puts(&out, fv ? fv->text : version);
			p += 6;
		} else if (strncmp(p, "@version-underscore@", 20) == 0) {
			for (const char *v = version; *v; v++)
				wm_buf_putc(&out, *v == '.' ? '_' : *v);
			p += 20;
		} else if (strncmp(p, "@packages@", 10) == 0) {
			put_packages(b, &out, u);
			p += 10;
		} else if (strncmp(p, "@compute-cap@", 13) == 0) {
			put_archs(&out, u, "cap");
			p += 13;
		} else if (strncmp(p, "@cuda-archs@", 12) == 0) {
			put_archs(&out, u, "cmake");
			p += 12;
		} else if (strncmp(p, "@torch-archs@", 13) == 0) {
			put_archs(&out, u, "torch");
			p += 13;
		} else {
			wm_buf_putc(&out, *p++);
		}
	}
	s = wm_emit_keep(b, &out);
	return s ? s : "";
}

void wm_emit_recipe_subst(struct wm_yb *b, struct wm_y *y, const struct wm_toolkit_use *u)
{
	if (!y)
		return;
	if (y->type == WM_NODE_SCALAR) {
		y->text = wm_emit_recipe_text(b, y->text, u);
		y->len = strlen(y->text);
		return;
	}
	for (size_t i = 0; i < y->n; i++)
		wm_emit_recipe_subst(b, y->items[i], u);
}

const char *wm_emit_build_image(struct wm_yb *b, const struct wm_catalog *cat, const struct wm_backend *be,
	const struct wm_platform *p)
{
	const struct wm_platform *base = wm_catalog_platform(cat, p->catalog_id);
	/* `container: off` (GitHub's build on the runner) names no image: GitLab's job keeps its own */
	const char *container = p->container && strcmp(p->container, "off") != 0 ? p->container : NULL;
	const char *image = container ? container : p->gitlab_image;

	/* the matrix's own image (`container`, `image`) is kept: it may hold more than the toolkit */
	if (p->os != WM_OS_LINUX || container || !base || !p->gitlab_image || !base->gitlab_image ||
			strcmp(p->gitlab_image, base->gitlab_image) != 0 || strcmp(p->family, "manylinux") != 0)
		return image;
	for (size_t t = 0; t < be->ntoolkits; t++) {
		const struct wm_toolkit_use *u = &be->toolkits[t];
		const struct wm_node *images = wm_yaml_find(u->toolkit->recipe, "images");
		const struct wm_node *levels = wm_yaml_find(wm_yaml_find(images, "versions"), u->version ? u->version : "");
		const struct wm_node *archs = wm_yaml_find(images, "archs"), *tag = wm_yaml_find(images, "tag");
		const struct wm_node *name = wm_yaml_find(images, "name");
		bool level = false, arch = false;
		for (size_t i = 0; levels && i < levels->n; i++)
			level = level || strcmp(levels->items[i]->text, p->manylinux) == 0;
		for (size_t i = 0; archs && i < archs->n; i++)
			arch = arch || strcmp(archs->items[i]->text, p->arch) == 0;
		if (level && arch && name && tag) {
			struct wm_buf out = WM_BUF_INIT;
			const char *s;
			for (const char *c = wm_emit_recipe_text(b, name->text, u); *c;) {
				if (strncmp(c, "@level@", 7) == 0) {
					wm_buf_puts(&out, p->manylinux);
					c += 7;
				} else if (strncmp(c, "@arch@", 6) == 0) {
					wm_buf_puts(&out, p->arch);
					c += 6;
				} else {
					wm_buf_putc(&out, *c++);
				}
			}
			wm_buf_printf(&out, ":%s", tag->text);
			s = wm_emit_keep(b, &out);
			return s ? s : image;
		}
	}
	return image;
}

const struct wm_node *wm_emit_recipe(const struct wm_toolkit_use *u, const char *provider, enum wm_os os,
	const char *key)
{
	const struct wm_node *r = wm_yaml_find(u->toolkit->recipe, provider);
	return wm_yaml_find(wm_yaml_find(r, wm_catalog_os_name(os)), key);
}

const char *wm_emit_repair_exclude(struct wm_yb *yb, const struct wm_backend *b, enum wm_os os)
{
	struct wm_buf out = WM_BUF_INIT;
	for (size_t t = 0; t < b->ntoolkits; t++) {
		const struct wm_node *list = wm_yaml_find(wm_yaml_find(b->toolkits[t].toolkit->recipe, "repair-exclude"),
			wm_catalog_os_name(os));
		for (size_t i = 0; list && i < list->n; i++)
			wm_buf_printf(&out, "%s%s", out.len ? " " : "",
				wm_emit_recipe_text(yb, list->items[i]->text, &b->toolkits[t]));
	}
	return wm_emit_keep(yb, &out);
}

const char *wm_emit_smoke_libraries(struct wm_yb *yb, const struct wm_backend *b, enum wm_os os)
{
	struct wm_buf out = WM_BUF_INIT;
	if (!(b->smoke_os >> os & 1))
		return NULL;
	for (size_t t = 0; t < b->ntoolkits; t++) {
		const struct wm_node *list = wm_yaml_find(wm_yaml_find(b->toolkits[t].toolkit->recipe, "smoke-libraries"),
			wm_catalog_os_name(os));
		for (size_t i = 0; list && i < list->n; i++)
			wm_buf_printf(&out, "%s%s", out.len ? " " : "",
				wm_emit_recipe_text(yb, list->items[i]->text, &b->toolkits[t]));
	}
	return wm_emit_keep(yb, &out);
}

bool wm_emit_has_patch(const struct wm_matrix *m, const bool *patched, const struct wm_backend *b)
{
	if (patched)
		return patched[b->index];
	/* no pyproject.toml was read: any variant that differs from the base build has one */
	return m->strategy == WM_STRATEGY_META || b->features.n > 0 || b->dependencies.n > 0 ||
		b->local || strcmp(b->dist, m->name) != 0;
}

const char *wm_emit_module(struct wm_arena *a, const struct wm_matrix *m, const struct wm_backend *b)
{
	return m->strategy == WM_STRATEGY_META ? wm_meta_module_name(a, m, b) : m->module;
}

const char *wm_emit_env_value(const struct wm_env *env, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(env[i].name, name) == 0)
			return env[i].value;
	return NULL;
}

const char *wm_emit_check_version(struct wm_yb *b)
{
	const struct wm_template *t = wm_template_get("check-version.py");
	const char *script;
	if (!t)
		return NULL;
	/* the file's first line is its title comment, not part of the script */
	script = memchr(t->data, '\n', t->len);
	script = script ? script + 1 : t->data + t->len;
	return wm_arena_printf(b->arena, "python3 - <<'PY'\n%.*sPY\n", (int)(t->data + t->len - script), script);
}

const char *wm_emit_index_pages(struct wm_yb *b, const char *args)
{
	const struct wm_template *t = wm_template_get("index-pages.py");
	const char *script;
	if (!t)
		return NULL;
	/* its title comment is not part of the script; its usage comment stays */
	script = memchr(t->data, '\n', t->len);
	script = script ? script + 1 : t->data + t->len;
	return wm_arena_printf(b->arena, "python3 - %s <<'PY'\n%.*sPY\n", args, (int)(t->data + t->len - script), script);
}

enum wm_tests wm_emit_tests(const struct wm_job *job, bool own_job, bool cross, const char **why)
{
	const struct wm_test *t = job->backend->test;
	const struct wm_platform *p = job->platform;
	*why = NULL;
	if (!t)
		return WM_TESTS_NONE;
	if (p->os == WM_OS_EMSCRIPTEN) {
		*why = "Pyodide: the import test runs in Node.js, the project's tests do not run there";
		return WM_TESTS_SKIPPED;
	}
	for (size_t i = 0; i < t->skip.n; i++)
		if (wm_text_glob_match(t->skip.items[i], job->id)) {
			*why = "its id matches test.skip";
			return WM_TESTS_SKIPPED;
		}
	if (own_job)
		return WM_TESTS_TEST_JOB;
	/* the hardware the import test would need is what the tests need too */
	if (!(job->backend->smoke_os >> p->os & 1)) {
		*why = "the build runner lacks the backend's hardware (no import test there): give the backend a "
			"'test.runner' (GitHub) or 'test.tags' (GitLab)";
		return WM_TESTS_SKIPPED;
	}
	if (wm_emit_runnable(p, cross) || wm_emit_in_image(job, cross))
		return WM_TESTS_BUILD_JOB;
	/* no emulation in the generated jobs yet: QEMU for a cross-built wheel */
	if (cross)
		*why = "cross-built: the build runner cannot run the wheel, and the generated jobs do not emulate it";
	else if (strcmp(p->family, "musllinux") == 0 && job->python->pypy)
		*why = "PyPy: the musllinux image the wheel would run in has no PyPy";
	else if (strcmp(p->family, "musllinux") == 0)
		*why = "the musllinux image the wheel would run in has no such CPython (3.9 and later, free-threaded "
			"from 3.14)";
	else
		*why = "the build runner cannot run the wheel: the generated jobs do not run it in its image";
	return WM_TESTS_SKIPPED;
}

bool wm_emit_in_image(const struct wm_job *job, bool cross)
{
	/*
	 * The runner's glibc cannot load a musllinux wheel, but the runner runs the platform's pypa
	 * image (musllinux-i686 too: an x86_64 host runs i686 code), whose CPythons are
	 * /usr/local/bin/python3.X and python3.Xt (python.h); it has no PyPy.
	 */
	const struct wm_python *py = job->python;
	unsigned minor = py->abi3 ? (unsigned)atoi(strchr(py->interpreter, '.') + 1) : py->minor;
	if (py->pypy || minor < WM_CPYTHON_IMAGES_MIN || (py->freethreaded && minor < WM_FREETHREADED_IMAGES_MIN))
		return false;
	return !cross && job->platform->os == WM_OS_LINUX &&
		strcmp(job->platform->family, "musllinux") == 0 && job->platform->gitlab_image != NULL;
}

void wm_emit_pyodide_vars(const struct wm_catalog *cat, const struct wm_platform *p,
	const char *names[WM_EMIT_PYODIDE_NVARS], const char *values[WM_EMIT_PYODIDE_NVARS])
{
	static const char *const vars[WM_EMIT_PYODIDE_NVARS] = { "WM_PYODIDE_BUILD", "WM_PYODIDE", "WM_PYODIDE_PYTHON",
		"WM_EMSCRIPTEN", "WM_PYODIDE_RUST", "WM_PYEMSCRIPTEN_PLATFORM_VERSION" };
	const char *v[WM_EMIT_PYODIDE_NVARS] = { wm_catalog_tool(cat, "pyodide-build"), p->pyodide, p->pyodide_python,
		p->emscripten, p->pyodide_rust, p->pyodide_abi };
	for (size_t i = 0; i < WM_EMIT_PYODIDE_NVARS; i++) {
		names[i] = vars[i];
		values[i] = v[i];
	}
}

bool wm_emit_runnable(const struct wm_platform *p, bool cross)
{
	if (cross)
		return false;
	if (p->os != WM_OS_LINUX)
		return true;
	return strcmp(p->family, "manylinux") == 0 &&
		(strcmp(p->arch, "x86_64") == 0 || strcmp(p->arch, "aarch64") == 0);
}

const char *wm_emit_project_dir(struct wm_arena *a, const struct wm_matrix *m)
{
	const char *slash = m->pyproject ? strrchr(m->pyproject, '/') : NULL;
	return slash ? wm_arena_strndup(a, m->pyproject, (size_t)(slash - m->pyproject)) : "";
}

const char *wm_emit_out_dir(struct wm_arena *a, const struct wm_matrix *m)
{
	const char *dir = wm_emit_project_dir(a, m);
	struct wm_buf out = WM_BUF_INIT;
	char *s;
	/* the loader keeps `.`, `..` and empty parts out of project.pyproject: each part is one level */
	if (dir && *dir) {
		wm_buf_puts(&out, "../");
		for (const char *p = dir; *p; p++)
			if (*p == '/')
				wm_buf_puts(&out, "../");
	}
	wm_buf_puts(&out, "dist");
	s = out.oom ? NULL : wm_arena_strdup(a, out.ptr);
	wm_buf_release(&out);
	return s;
}

const char *wm_emit_before_script(struct wm_yb *b, const struct wm_backend *be, const char *provider,
	const char *key)
{
	struct wm_buf out = WM_BUF_INIT;
	for (size_t t = 0; t < be->ntoolkits; t++) {
		const struct wm_node *script = wm_emit_recipe(&be->toolkits[t], provider, WM_OS_LINUX, key);
		if (script && script->type == WM_NODE_SCALAR) {
			wm_buf_puts(&out, wm_emit_recipe_text(b, script->text, &be->toolkits[t]));
		} else {
			for (size_t i = 0; script && i < script->n; i++)
				wm_buf_printf(&out, "%s\n", wm_emit_recipe_text(b, script->items[i]->text, &be->toolkits[t]));
		}
	}
	if (be->before_script_linux) {
		size_t len = strlen(be->before_script_linux);
		wm_buf_puts(&out, be->before_script_linux);
		if (len && be->before_script_linux[len - 1] != '\n')
			wm_buf_putc(&out, '\n');
	}
	return wm_emit_keep(b, &out);
}

int wm_emit_add(struct wm_files *out, const char *path, const char *matrix_file, const char *data, size_t len,
	struct wm_error *err)
{
	int ret = path && (data || len == 0) ? wm_files_add(out, path, matrix_file, data, len) : WM_ENOMEM;
	if (ret == WM_EINVALID)
		wm_error_nopos(err, ret, WM_SEV_ERROR, NULL,
			"the path of a generated file or the matrix file's name holds a control character: "
			"it cannot go into the file's header comment");
	else if (ret < 0)
		wm_error_code(err, ret);
	return ret;
}

int wm_emit_add_buf(struct wm_files *out, const char *path, const char *matrix_file, const struct wm_buf *body,
	struct wm_error *err)
{
	if (body->oom)
		path = NULL;
	return wm_emit_add(out, path, matrix_file, body->ptr ? body->ptr : "", body->len, err);
}

void wm_emit_variant_properties(struct wm_buf *out, const struct wm_backend *b)
{
	for (size_t i = 0; i < b->variant_properties.n; i++) {
		if (i)
			wm_buf_putc(out, ' ');
		for (const char *c = b->variant_properties.items[i]; *c; c++)
			if (*c != ' ')
				wm_buf_putc(out, *c);
	}
}

int wm_emit_check_matrix(const char **out, const struct wm_matrix *m, const char *setting, struct wm_error *err)
{
	const char *slash = strrchr(m->file, '/'), *base = slash ? slash + 1 : m->file, *why = NULL;
	*out = NULL;
	/* check finds wheelmatrix.yaml itself; a matrix read from standard input has no name */
	if (strcmp(base, "wheelmatrix.yaml") == 0 || strcmp(base, "<stdin>") == 0 || strcmp(base, "-") == 0)
		return 0;
	if (!wm_name_repo_path(base, &why) || strspn(base, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			"0123456789._+-") != strlen(base)) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, NULL, "the matrix file's name '%s' cannot "
			"be written into the drift-check job, which runs 'wheelmatrix -f NAME check': name it in letters, "
			"digits, '.', '_', '+' and '-', or set '%s: false'", base, setting);
		return WM_EINVALID;
	}
	*out = base;
	return 0;
}

const char *wm_emit_check_command(struct wm_yb *b, const char *text, const char *matrix)
{
	const char *at = text ? strstr(text, "@matrix@") : NULL;
	if (!at)
		return NULL;
	return wm_arena_printf(b->arena, "%.*s%s%s", (int)(at - text), text, matrix ? " -f \"$WM_MATRIX\"" : "",
		at + strlen("@matrix@"));
}
