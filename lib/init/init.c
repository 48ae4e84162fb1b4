/* init.c — a starting wheelmatrix.yaml from the project, its CI and its release: name, abi3, the backends it publishes or its GPU features, what its workflows and release build, its CI providers. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/utf8.h"
#include "util/name.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/matrix.h"
#include "model/project.h"
#include "init/init.h"
#include "init/ci.h"
#include "init/matrix.h"

/* Cargo features that name a GPU backend, and where that backend can be built by default. */
static const struct gpu {
	const char *feature;
	const char *const *platforms;   /* NULL: every matrix platform */
} gpus[] = {
	{ "cuda", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "cublas", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "cudnn", (const char *const[]){ "linux-x86_64", "windows-x86_64", NULL } },
	{ "metal", (const char *const[]){ "macos-*", NULL } },
	{ "mps", (const char *const[]){ "macos-*", NULL } },
	{ "rocm", (const char *const[]){ "linux-x86_64", NULL } },
	{ "hipblas", (const char *const[]){ "linux-x86_64", NULL } },
	{ "clblast", NULL },
	{ "opencl", NULL },
	{ "vulkan", NULL },
};

static const struct gpu *gpu_feature(const char *name)
{
	for (size_t i = 0; i < WM_ARRAY_SIZE(gpus); i++)
		if (strcmp(gpus[i].feature, name) == 0)
			return &gpus[i];
	return NULL;
}

/* ---- reading ----------------------------------------------------------------------------- */

/* The workflows whose builds are a backend's (they name its distribution): not the default backend's. */
static size_t backend_workflows(const struct wm_init_ci *ci, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < ci->nbackends && n < max; i++)
		out[n++] = ci->backends[i].file;
	return n;
}

int wm_init_read(struct wm_init **out, const struct wm_reader *r, const char *pyproject, struct wm_error *err)
{
	struct wm_init *in = calloc(1, sizeof(*in));
	struct wm_workflows_options o = { wm_init_ci_generated, NULL, NULL };
	const char *skip[WM_INIT_MAX_FOUND];
	int ret;

	*out = in;
	if (!in)
		return wm_error_oom(err);
	wm_arena_init(&in->arena);
	if ((ret = wm_project_load(&in->project, r, pyproject, NULL, err)) == 1) {
		wm_error_nopos(err, WM_EREAD, WM_SEV_ERROR, pyproject,
			"no such file: init reads the project's pyproject.toml and Cargo.toml");
		return WM_EREAD;
	}
	if (ret < 0)
		return ret;
	if (!in->project->name) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, in->project->py_path, "no [project].name");
		return WM_EINVALID;
	}
	if ((ret = wm_catalog_load(&in->cat, err)) < 0)
		return ret;
	o.cat = in->cat;
	if ((ret = wm_workflows_read(&in->workflows, r, &o, err)) < 0 || (ret = wm_builds_read(&in->builds, in->workflows)) < 0 ||
			!(in->ci = wm_arena_alloc(&in->arena, sizeof(*in->ci)))) {
		return wm_error_oom(err);
	}
	if (in->workflows->hidden.path) {
		/* a line a review sees as one, which a YAML reader breaks: nothing is taken from such a file */
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, in->workflows->hidden.path, NULL, 0, in->workflows->hidden.line,
			in->workflows->hidden.column, 1, "a raw %s: YAML readers break the line here, while editors and diffs "
			"show one line, so what follows would be read unseen; remove it, and init reads the workflow",
			wm_utf8_break_name(in->workflows->hidden.cp));
		return WM_EINVALID;
	}
	wm_init_ci_scan(in->ci, &in->arena, r, in->project, in->workflows, &in->builds);
	in->takeover.arena = &in->arena;
	in->takeover.cat = in->cat;
	in->takeover.project = in->project;
	wm_init_matrix_read(&in->takeover, in->workflows, &in->builds, skip, backend_workflows(in->ci, skip, WM_ARRAY_SIZE(skip)));
	wm_init_matrix_carry(&in->takeover);
	in->reader = *r;
	return 0;
}

void wm_init_set_release(struct wm_init *in, struct wm_published *wheels, size_t n, const char *version)
{
	in->published = wheels;
	in->npublished = n;
	in->version = version;
	if (version)
		wm_init_matrix_publish(&in->takeover, wheels, n, wm_arena_printf(&in->arena, "%s %s", in->project->name, version));
}

/* ---- the matrix --------------------------------------------------------------------------- */

/* A flow list of strings under `key` of `map`. */
static void add_flow_list(struct wm_yb *b, struct wm_y *map, const char *key, const char *const *items, size_t n)
{
	struct wm_y *list = wm_yaml_set(b, map, key, wm_yaml_seq(b));
	if (list)
		list->style = WM_Y_FLOW;
	for (size_t i = 0; i < n; i++)
		wm_yaml_push(b, list, wm_yaml_str(b, items[i]));
}

static bool on_os(const char *platform, unsigned oses)
{
	static const char *const prefix[WM_OS_COUNT] = { [WM_OS_LINUX] = "linux-", [WM_OS_MACOS] = "macos-",
		[WM_OS_WINDOWS] = "windows-", [WM_OS_EMSCRIPTEN] = "pyodide-" };
	for (size_t os = 0; os < WM_OS_COUNT; os++)
		if ((oses & (1u << os)) && (strncmp(platform, prefix[os], strlen(prefix[os])) == 0 ||
				(os == WM_OS_LINUX && strncmp(platform, "musllinux-", 10) == 0)))
			return true;
	return false;
}

/* Whether every toolkit a backend's features imply (CUDA for `cuda`) can be built on platform `id`. */
static bool toolkits_build(const struct wm_catalog *cat, const char *const *features, size_t nfeatures, const char *id)
{
	for (size_t t = 0; t < wm_catalog_toolkit_count(cat); t++) {
		const struct wm_toolkit *tk = wm_catalog_toolkit_at(cat, t);
		bool implied = false, there = false;
		for (size_t f = 0; f < nfeatures && !implied; f++)
			for (size_t k = 0; k < tk->features.n && !implied; k++)
				implied = !strcmp(tk->features.items[k], wm_name_feature_leaf(features[f]));
		for (size_t k = 0; k < tk->platforms.n && !there; k++)
			there = !strcmp(tk->platforms.items[k], id);
		if (implied && !there)
			return false;
	}
	return true;
}

/*
 * The platforms of the list a backend's toolkits can be built on: each pattern kept when every
 * platform it names can build them, else the platforms it names that can; the matrix then loads
 * (no CUDA backend on macOS).
 */
static size_t fit_toolkits(const struct wm_catalog *cat, const char *const *features, size_t nfeatures,
	const char **list, size_t n, size_t max)
{
	const char *in[16];
	size_t kept = 0;
	memcpy(in, list, n * sizeof(*in));
	for (size_t i = 0; i < n; i++) {
		bool all = true;
		for (size_t k = 0; k < wm_catalog_platform_count(cat); k++) {
			const char *id = wm_catalog_platform_at(cat, k)->id;
			all &= fnmatch(in[i], id, 0) != 0 || toolkits_build(cat, features, nfeatures, id);
		}
		if (all) {
			list[kept++] = in[i];
			continue;
		}
		for (size_t k = 0; k < wm_catalog_platform_count(cat) && kept < max; k++) {
			const char *id = wm_catalog_platform_at(cat, k)->id;
			if (!fnmatch(in[i], id, 0) && toolkits_build(cat, features, nfeatures, id))
				list[kept++] = id;
		}
	}
	return kept;
}

/*
 * A backend built with `features`, on the platforms the table gives its first GPU feature, narrowed
 * to the operating systems its workflow builds on (`oses`, 0 when not known: llm-rs builds OpenCL
 * on Linux and Windows only) and to those its toolkits build on.
 */
static void add_backend(struct wm_yb *b, const struct wm_catalog *cat, struct wm_y *backends, const char *id,
	const char *const *features, size_t nfeatures, unsigned oses)
{
	static const char *const every[] = { "linux-*", "musllinux-*", "macos-*", "windows-*", NULL };
	const char *const *table = NULL;
	struct wm_y *be = wm_yaml_set(b, backends, id, wm_yaml_map(b));
	const char *list[16];
	size_t n = 0, fitted;
	add_flow_list(b, be, "features", features, nfeatures);
	for (size_t i = 0; i < nfeatures && !table; i++) {
		const struct gpu *g = gpu_feature(wm_name_feature_leaf(features[i]));
		table = g ? g->platforms : NULL;
	}
	/* every OS a workflow's runner can be (Pyodide's builds run on Linux) */
	if (oses == (1u << WM_OS_LINUX | 1u << WM_OS_MACOS | 1u << WM_OS_WINDOWS))
		oses = 0;
	for (const char *const *s = table ? table : every; *s && n < 8; s++)
		if (!oses || on_os(*s, oses))
			list[n++] = *s;
	/* the workflow and the table disagree (a cross build?): the table wins */
	if (!n)
		for (const char *const *s = table; s && *s && n < 8; s++)
			list[n++] = *s;
	{
		const char *before[16];
		memcpy(before, list, n * sizeof(*list));
		fitted = fit_toolkits(cat, features, nfeatures, list, n, WM_ARRAY_SIZE(list));
		/* every platform, all kept: no `platforms`; else the ones its toolkits build on */
		if (fitted && (table || oses || fitted != n || memcmp(list, before, n * sizeof(*list)) != 0))
			add_flow_list(b, be, "platforms", list, fitted);
	}
}

static bool published_feature(const struct wm_init_ci *ci, const char *feature)
{
	for (size_t i = 0; i < ci->nbackends; i++)
		for (size_t k = 0; k < ci->backends[i].nfeatures; k++)
			if (strcmp(ci->backends[i].features[k], feature) == 0)
				return true;
	return false;
}

/*
 * The backends: first those the project publishes already, named as their distributions are;
 * then one per GPU-looking Cargo feature none of them builds, named after it; then the default.
 */
static void add_backends(struct wm_yb *b, struct wm_y *root, const struct wm_init *in)
{
	const struct wm_project *p = in->project;
	const struct wm_init_ci *ci = in->ci;
	struct wm_y *backends = wm_yaml_set(b, root, "backends", wm_yaml_map(b)), *cpu;
	for (size_t i = 0; i < ci->nbackends; i++)
		add_backend(b, in->cat, backends, ci->backends[i].id, ci->backends[i].features, ci->backends[i].nfeatures,
			ci->backends[i].oses);
	for (size_t i = 0; i < p->nfeatures; i++) {
		const char *f = p->features[i];
		if (gpu_feature(f) && wm_name_backend_id(f) && !wm_yaml_get(backends, f) && !published_feature(ci, f))
			add_backend(b, in->cat, backends, f, &p->features[i], 1, 0);
	}
	cpu = wm_yaml_set(b, backends, wm_yaml_get(backends, "cpu") ? "base" : "cpu", wm_yaml_map(b));
	if (cpu)
		cpu->style = WM_Y_FLOW;
	wm_yaml_set(b, cpu, "default", wm_yaml_bool(b, true));
}

/*
 * Each backend's `platforms` narrowed to the matrix's: an id written out (where a toolkit builds
 * on some of a glob's platforms only) that the matrix has no platform of is left out, since the
 * loader refuses it; a list left with none keeps what it had, for the loader to name.
 */
/* Whether a backend's platform entry `id` may stay: a glob, or an id of the matrix's `top` (a list, or a map of ids). */
static bool in_matrix(const struct wm_y *top, const char *id)
{
	size_t step = top->type == WM_NODE_MAP ? 2 : 1;
	if (strpbrk(id, "*?["))
		return true;
	for (size_t t = 0; t < top->n; t += step)
		if (top->items[t]->text && !strcmp(top->items[t]->text, id))
			return true;
	return false;
}

static void fit_platforms(struct wm_y *root)
{
	struct wm_y *top = wm_yaml_get(root, "platforms"), *backends = wm_yaml_get(root, "backends");
	for (size_t i = 1; top && backends && i < backends->n; i += 2) {
		struct wm_y *list = wm_yaml_get(backends->items[i], "platforms");
		size_t kept = 0;
		if (!list || list->type != WM_NODE_SEQ)
			continue;
		for (size_t k = 0; k < list->n; k++)
			kept += in_matrix(top, list->items[k]->text);
		if (!kept)
			continue;
		kept = 0;
		for (size_t k = 0; k < list->n; k++)
			if (in_matrix(top, list->items[k]->text))
				list->items[kept++] = list->items[k];
		list->n = kept;
	}
}

/*
 * `ci`: the providers the repository uses. A .gitlab-ci.yml of the project's own is left alone,
 * as generate would replace it; with no CI at all, both.
 */
static void add_ci(struct wm_yb *b, struct wm_y *root, const struct wm_init_ci *ci)
{
	struct wm_y *map = wm_yaml_set(b, root, "ci", wm_yaml_map(b));
	bool github = ci->github || !ci->gitlab;
	if (github)
		wm_yaml_set(b, map, "github", wm_yaml_map(b));
	if (ci->gitlab || (!ci->github && !ci->gitlab_own))
		wm_yaml_set(b, map, "gitlab", wm_yaml_map(b));
}

/* Whether the workflow `path` is one that builds wheels in a release (ci.c's). */
static bool built(const struct wm_init_ci *ci, const char *path)
{
	for (size_t i = 0; i < ci->nbuilt; i++)
		if (!strcmp(ci->built[i].path, path))
			return true;
	return false;
}

/*
 * The deployment environment the workflows that build wheels upload to an index from, on a tag
 * push or a release (PyPI's trusted publisher may require it): its name when every such upload
 * names the same one, else NULL.  *other is an upload whose environment differs from the first's,
 * or is not known, or one the matrix cannot name (then the name is NULL too).
 */
static const char *upload_environment(const struct wm_init *in, const struct wm_upload **first,
	const struct wm_upload **other)
{
	const char *name = NULL;
	*first = *other = NULL;
	for (size_t i = 0; i < in->builds.nuploads && !*other; i++) {
		const struct wm_upload *u = &in->builds.uploads[i];
		if (!u->index || !u->events || !built(in->ci, u->run->file))
			continue;
		if (!*first) {
			*first = u;
			name = u->environment;
			if (u->environment_unknown || (name && !wm_matrix_environment_valid(name)))
				*other = u;
		} else if (u->environment_unknown || !name != !u->environment || (name && strcmp(name, u->environment)))
			*other = u;
	}
	return *other ? NULL : name;
}

/* `publish`: the environment of the uploads the matrix replaces, when it is not the default's. */
static void add_publish(struct wm_yb *b, struct wm_y *root, const struct wm_init *in)
{
	const struct wm_upload *first, *other;
	const char *name = upload_environment(in, &first, &other);
	struct wm_y *publish, *pypi;
	if (!name || !strcmp(name, "pypi"))
		return;
	publish = wm_yaml_set(b, root, "publish", wm_yaml_map(b));
	pypi = wm_yaml_set(b, publish, "pypi", wm_yaml_map(b));
	wm_yaml_set(b, pypi, "environment", wm_yaml_str(b, name));
}

int wm_init_render_body(struct wm_init *in, struct wm_error *err)
{
	static const char *const platforms[] = { "linux-x86_64", "linux-aarch64", "macos-x86_64", "macos-arm64",
		"windows-x86_64" };
	const struct wm_project *p = in->project;
	struct wm_buf out = WM_BUF_INIT;
	struct wm_yb b = { &in->arena, false };
	struct wm_y *root, *project, *one;
	int ret;

	free(in->body);
	in->body = NULL;
	root = wm_yaml_map(&b);
	if ((one = wm_yaml_str(&b, "1")) != NULL)
		one->typed = true;  /* the format version is a number */
	wm_yaml_set(&b, root, "wheelmatrix", one);
	project = wm_yaml_set(&b, root, "project", wm_yaml_map(&b));
	wm_yaml_set(&b, project, "name", wm_yaml_str(&b, p->name));
	wm_yaml_set(&b, project, "module", wm_yaml_str(&b, wm_project_module(&in->arena, p->module_name, p->lib_name, p->name)));
	if (strcmp(p->py_path, "pyproject.toml") != 0)
		wm_yaml_set(&b, project, "pyproject", wm_yaml_str(&b, p->py_path));
	if (p->abi3) {
		struct wm_y *python = wm_yaml_set(&b, root, "python", wm_yaml_map(&b));
		wm_yaml_set(&b, python, "abi3", wm_yaml_strf(&b, "3.%u", wm_project_abi3_minor(p)));
	}
	add_flow_list(&b, root, "platforms", platforms, WM_ARRAY_SIZE(platforms));
	add_backends(&b, root, in);
	wm_init_matrix_write(&in->takeover, &b, root);
	fit_platforms(root);
	add_publish(&b, root, in);
	add_ci(&b, root, in->ci);
	if (b.oom || !root) {
		wm_error_nopos(err, WM_ENOMEM, WM_SEV_ERROR, NULL, "out of memory");
		return WM_ENOMEM;
	}
	if ((ret = wm_yaml_emit(&out, root, err)) < 0 || out.oom) {
		wm_buf_release(&out);
		return ret < 0 ? ret : WM_ENOMEM;
	}
	in->body_len = out.len;
	in->body = wm_buf_detach(&out);
	return in->body ? 0 : WM_ENOMEM;
}

/* ---- what was replaced, and what was lost ----------------------------------------------- */

/* Whether a published wheel that the matrix does not build is the workflow's. */
static bool loses(const struct wm_init *in, const char *path)
{
	for (size_t i = 0; in->judged && i < in->npublished; i++)
		if (!in->verdicts[i].reproduced && in->verdicts[i].workflow && !strcmp(in->verdicts[i].workflow, path))
			return true;
	return false;
}

/* Whether the reader left part of a workflow unread (its notes say what). */
static bool partial(const struct wm_init *in, const char *path)
{
	for (size_t i = 0; i < in->workflows->nfiles; i++)
		if (!strcmp(in->workflows->files[i].path, path))
			return in->workflows->files[i].partial;
	return false;
}

bool wm_init_replaced(const struct wm_init *in, const char *path)
{
	return !wm_init_matrix_keeps(&in->takeover, path) && !loses(in, path) && !partial(in, path);
}

/* A name a comment of the matrix file may quote: nothing a YAML comment would read otherwise. */
static bool plain_name(const char *s)
{
	size_t n = 0;
	for (; *s; s++, n++)
		if (!isalnum((unsigned char)*s) && !strchr("._-+", *s))
			return false;
	return n && n <= 200;
}

/* The judgement, in the header: what the release has, how much the matrix builds, what it does not. */
static void header_release(struct wm_buf *out, const struct wm_init *in)
{
	if (in->offline) {
		wm_buf_puts(out, "#\n# Not judged against a package index (init --offline): compare with a release with "
			"`wheelmatrix init --force`.\n");
		return;
	}
	if (!in->index)
		return;
	if (in->absent || !in->version) {
		wm_buf_printf(out, "#\n# %s has no release on %s yet.\n", in->project->name, in->index);
		return;
	}
	wm_buf_printf(out, "#\n# Judged against %s: %zu wheel%s of %s %s, %zu reproduced, %zu not.\n", in->index,
		in->npublished, in->npublished == 1 ? "" : "s", in->project->name, in->version, in->reproduced,
		in->npublished - in->reproduced);
	if (in->reproduced == in->npublished)
		return;
	wm_buf_puts(out, "# The released wheels this matrix does not build (`wheelmatrix check` keeps the workflows\n"
		"# that build them until it does):\n");
	for (size_t i = 0; i < in->npublished; i++) {
		const struct wm_init_verdict *v = &in->verdicts[i];
		if (v->reproduced)
			continue;
		wm_buf_printf(out, "#   lost: %s", plain_name(in->published[i].filename) ? in->published[i].filename :
			"(a file name not shown)");
		wm_buf_printf(out, " (%s)", v->workflow ? v->workflow : "no workflow init reads");
		if (v->why)
			wm_buf_printf(out, ": %s", v->why);
		wm_buf_putc(out, '\n');
	}
}

/* The header: what the matrix replaces, in comments, since generate will not remove those files. */
static void header(struct wm_buf *out, const struct wm_init *in)
{
	const struct wm_init_ci *ci = in->ci;
	const struct wm_takeover *t = &in->takeover;
	bool any_kept = false, any_replaced = false;
	/* first: the line YAML editors read the schema from (docs/init.md) */
	wm_buf_puts(out, "# yaml-language-server: $schema=" WM_INIT_SCHEMA_URL "\n");
	wm_buf_puts(out, "# wheelmatrix.yaml: the build matrix of this project, written by `wheelmatrix init`.\n"
		"# Edit it freely; docs/matrix.md in wheelmatrix describes every key.\n");
	header_release(out, in);
	for (size_t i = 0; i < ci->nbuilt; i++) {
		any_kept |= !wm_init_replaced(in, ci->built[i].path);
		any_replaced |= wm_init_replaced(in, ci->built[i].path);
	}
	for (int kept = 0; kept < 2; kept++) {
		if (kept ? !any_kept : !any_replaced)
			continue;
		wm_buf_puts(out, kept ? "#\n# These workflows build wheels this matrix does not (the drops below, the wheels "
			"lost above),\n# so the workflow `generate` writes does not replace them yet:\n" :
			"#\n# The workflow `generate` writes, .github/workflows/wheels.yml, replaces these, which build\n"
			"# the wheels today (remove them once it runs):\n");
		for (size_t i = 0; i < ci->nbuilt; i++) {
			if (wm_init_replaced(in, ci->built[i].path) == (bool)kept)
				continue;
			wm_buf_printf(out, "#   %s", ci->built[i].path);
			if (ci->built[i].backends)
				wm_buf_printf(out, " (%s)", ci->built[i].backends);
			wm_buf_putc(out, '\n');
		}
	}
	for (size_t i = 0; i < t->ndrops; i++)
		wm_buf_printf(out, "# drops %s (%s)\n", t->drops[i].what, t->drops[i].file ? t->drops[i].file : "the release");
	if (t->more_drops)
		wm_buf_puts(out, "# drops more than these: read the workflows\n");
}

int wm_init_render(char **out, size_t *len, struct wm_init *in, struct wm_error *err)
{
	struct wm_buf buf = WM_BUF_INIT;
	int ret;
	*out = NULL;
	*len = 0;
	if (!in->body && (ret = wm_init_render_body(in, err)) < 0)
		return ret;
	header(&buf, in);
	wm_buf_add(&buf, in->body, in->body_len);
	if (buf.oom) {
		wm_buf_release(&buf);
		return wm_error_oom(err);
	}
	*len = buf.len;
	*out = wm_buf_detach(&buf);
	return *out ? 0 : WM_ENOMEM;
}

/* ---- notes ------------------------------------------------------------------------------ */

static void workflow_notes(const struct wm_init *in, struct wm_error *err)
{
	const struct wm_init_ci *ci = in->ci;
	for (size_t i = 0; i < ci->nbuilt; i++) {
		const struct wm_init_built *x = &ci->built[i];
		struct wm_buf what = WM_BUF_INIT;
		if (x->backends)
			wm_buf_printf(&what, " (%s)", x->backends);
		if (x->publisher)
			wm_buf_printf(&what, " and uploads them to an index on %s (%s)", x->event, x->publisher);
		if (!wm_init_replaced(in, x->path) && partial(in, x->path) && !wm_init_matrix_keeps(&in->takeover, x->path) &&
				!loses(in, x->path))
			wm_error_nopos(err, WM_OK, WM_SEV_NOTE, x->path,
				"builds wheels%s: init did not read all it runs (the notes above say what), so keep it until you "
				"know the matrix builds what it builds%s", what.ptr && !what.oom ? what.ptr : "",
				x->publisher ? " ('wheelmatrix check' reports the two publishers until then)" : "");
		else if (!wm_init_replaced(in, x->path))
			wm_error_nopos(err, WM_OK, WM_SEV_NOTE, x->path,
				"builds wheels%s: the matrix does not build all it builds (the notes 'drops ...'%s), so keep it "
				"until those are built another way%s", what.ptr && !what.oom ? what.ptr : "",
				loses(in, x->path) ? " and the released wheels the summary names" : "",
				x->publisher ? " ('wheelmatrix check' reports the two publishers until then)" : "");
		else
			wm_error_nopos(err, WM_OK, WM_SEV_NOTE, x->path,
				"builds wheels%s: the workflow generate writes, .github/workflows/wheels.yml, replaces it; "
				"remove it once that runs%s", what.ptr && !what.oom ? what.ptr : "",
				x->publisher ? " ('wheelmatrix check' reports the two publishers until then)" : "");
		wm_buf_release(&what);
	}
}

/* Where an upload's environment is said: its job's `environment:`, or the upload when the job has none. */
struct place {
	const char *file;
	unsigned line, column;
};

static struct place environment_place(const struct wm_upload *u)
{
	if (u->environment_file)
		return (struct place){ u->environment_file, u->environment_line, u->environment_column };
	return (struct place){ u->file, u->line, u->column };
}

/* "the environment 'NAME'" or "no environment", as three pieces for "%s%s%s". */
#define ENVIRONMENT_SHOWN(u) (u)->environment ? "the environment '" : "no environment", \
	(u)->environment ? (u)->environment : "", (u)->environment ? "'" : ""

/* The uploads' environments when the matrix cannot carry them: the trusted publisher may name one. */
static void environment_note(const struct wm_init *in, struct wm_error *err)
{
	const struct wm_upload *first, *other;
	struct place at, where;
	upload_environment(in, &first, &other);
	if (!other)
		return;
	at = environment_place(other);
	where = environment_place(first);
	if (other->environment_unknown)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, at.file, NULL, 0, at.line, at.column, 0,
			"uploads from %s: the matrix publishes from the environment 'pypi'; if PyPI's trusted publisher "
			"names another, write it as publish.pypi.environment", other->environment_unknown);
	else if (other == first)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, at.file, NULL, 0, at.line, at.column, 0,
			"uploads from the environment '%s', a name publish.pypi.environment cannot hold: the matrix "
			"publishes from 'pypi'", other->environment);
	else
		wm_error_add(err, WM_OK, WM_SEV_NOTE, at.file, NULL, 0, at.line, at.column, 0,
			"uploads from %s%s%s, and %s:%u:%u from %s%s%s: the matrix publishes every distribution from one "
			"environment, 'pypi'; write the one PyPI's trusted publisher names as publish.pypi.environment",
			ENVIRONMENT_SHOWN(other), where.file, where.line, where.column, ENVIRONMENT_SHOWN(first));
}

void wm_init_notes(const struct wm_init *in, struct wm_error *err)
{
	const struct wm_init_ci *ci = in->ci;
	const struct wm_takeover *t = &in->takeover;
	const struct wm_workflows *w = in->workflows;
	for (size_t i = 0; i < w->nnotes; i++)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, w->notes[i].file, NULL, 0, w->notes[i].line, w->notes[i].column, 0, "%s",
			w->notes[i].text);
	workflow_notes(in, err);
	environment_note(in, err);
	for (size_t i = 0; i < ci->ntests; i++)
		wm_error_nopos(err, WM_OK, WM_SEV_NOTE, ci->tests[i], "builds wheels but releases none (no upload "
			"to an index or a GitHub release on a tag push or a release): not a workflow the matrix replaces");
	for (size_t i = 0; i < t->ndrops; i++)
		wm_error_nopos(err, WM_OK, WM_SEV_NOTE, t->drops[i].file, "drops %s", t->drops[i].what);
	if (t->more_drops)
		wm_error_nopos(err, WM_OK, WM_SEV_NOTE, NULL, "drops more than these: read the workflows");
	/* the scan of .github/ counted the workflows' too */
	if (ci->unplain)
		wm_error_nopos(err, WM_OK, WM_SEV_NOTE, NULL,
			"%zu file%s of the CI not read: a name with characters other than letters, digits and ._-/",
			ci->unplain, ci->unplain == 1 ? "" : "s");
	/* a script's distributions: a workflow's are in its note above */
	for (size_t i = 0; i < ci->nbackends; i++)
		if (!built(ci, ci->backends[i].file))
			wm_error_nopos(err, WM_OK, WM_SEV_NOTE, ci->backends[i].file,
				"publishes %s: backend '%s' keeps that name", ci->backends[i].dist, ci->backends[i].id);
	if (ci->gitlab_own)
		wm_error_nopos(err, WM_OK, WM_SEV_WARNING, ".gitlab-ci.yml",
			"the project's own pipeline, not written by wheelmatrix: 'ci' leaves GitLab out (ci: {github: {}}), "
			"since generate would replace this file; to build on GitLab too, give 'ci.gitlab' another path and "
			"include that file from .gitlab-ci.yml, rather than generate --force");
	if (!ci->github && !ci->gitlab && !ci->gitlab_own)
		wm_error_nopos(err, WM_OK, WM_SEV_NOTE, NULL,
			"no .github/ and no .gitlab-ci.yml: 'ci' names both providers; leave out the one the project "
			"does not use");
}

void wm_init_free(struct wm_init *in)
{
	if (!in)
		return;
	wm_workflows_free(in->workflows);
	wm_catalog_free(in->cat);
	wm_project_free(in->project);
	free(in->body);
	wm_arena_release(&in->arena);
	free(in);
}
