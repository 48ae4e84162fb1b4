/* find.c — where the project is when the root holds none: what the workflows, the uv workspace and the tracked pyproject.toml files say. */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/name.h"
#include "util/text.h"
#include "formats/toml.h"
#include "formats/yaml.h"
#include "init/init.h"
#include "init/ci.h"
#include "workflow/builds.h"
#include "workflow/workflows.h"
#include "init/find.h"

#define MAX_READ 64        /* pyproject.toml files read to see whether maturin builds them: init stays fast in a large repository */
#define MAX_CANDIDATES 16

struct finder {
	struct wm_init_found *out;
	const struct wm_reader *r;
	struct wm_error *err;
	size_t nread;
	bool oom;
};

/* 1 when `path` is a pyproject.toml maturin builds (build-backend = "maturin"), 0 when not or unreadable. */
static int maturin_pyproject(struct finder *f, const char *path)
{
	struct wm_error quiet;
	struct wm_toml_doc doc;
	const struct wm_toml_value *backend;
	char *text = NULL;
	size_t len = 0;
	int ret = 0;

	if (f->nread >= MAX_READ)
		return 0;
	f->nread++;
	wm_error_init(&quiet);
	memset(&doc, 0, sizeof(doc));
	if (f->r->read(f->r->ctx, path, &text, &len, &quiet) == 0 && wm_toml_parse(&doc, path, text, len, &quiet) == 0) {
		backend = wm_toml_get_path(doc.root, "build-system.build-backend");
		ret = wm_toml_is_string(backend) && strcmp(backend->str, "maturin") == 0;
	}
	wm_toml_release(&doc);
	free(text);
	wm_error_release(&quiet);
	return ret;
}

/* `path`, when maturin builds it, as a candidate, and why (the reasons of one path are joined). */
static bool propose(struct finder *f, const char *path, bool evidence, const char *fmt, ...) WM_PRINTF(4, 5);
static bool propose(struct finder *f, const char *path, bool evidence, const char *fmt, ...)
{
	struct wm_init_found *o = f->out;
	struct wm_buf why = WM_BUF_INIT;
	struct wm_init_candidate *c = NULL;
	va_list ap;

	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->items[i].pyproject, path) == 0)
			c = &o->items[i];
	if (!c && (o->n >= MAX_CANDIDATES || !maturin_pyproject(f, path)))
		return false;
	va_start(ap, fmt);
	if (c && c->why)
		wm_buf_printf(&why, "%s; ", c->why);
	wm_buf_vprintf(&why, fmt, ap);
	va_end(ap);
	if (!c) {
		c = &o->items[o->n++];
		if (!(c->pyproject = wm_arena_strdup(&o->arena, path)))
			f->oom = true;
	}
	c->evidence |= evidence;
	if (!(c->why = why.oom ? NULL : wm_arena_strndup(&o->arena, why.ptr, why.len)))
		f->oom = true;
	wm_buf_release(&why);
	return true;
}

/* A path from a workflow: untrusted data, taken only as a plain relative path inside the repository. */
static bool plain(struct finder *f, const char *file, const struct wm_node *n, const char *what)
{
	struct wm_path_fault fault;
	const char *why = NULL;
	if (!wm_name_path_text(n->text, n->len, &fault))
		why = fault.why;
	else if (!wm_name_repo_path(n->text, &why) && !why)
		why = "not a path inside the repository";
	if (!why)
		return true;
	wm_error_add(f->err, WM_OK, WM_SEV_NOTE, file, NULL, 0, n->line, n->column, 0,
		"%s ignored: %s (init reads plain relative paths inside the repository only)", what, why);
	return false;
}

/* `dir/leaf`, or leaf for the root ("" or "."). */
static char *join(struct finder *f, const char *dir, size_t n, const char *leaf)
{
	char *s = n == 0 || (n == 1 && dir[0] == '.') ? wm_arena_strdup(&f->out->arena, leaf) :
		wm_arena_printf(&f->out->arena, "%.*s/%s", (int)n, dir, leaf);
	f->oom |= !s;
	return s;
}

/*
 * A manifest's project, as maturin finds the pyproject.toml from `--manifest-path`: beside the
 * manifest, else, for maturin's src layout (rust/Cargo.toml, model/project.c), in the parent.
 */
static void manifest_project(struct finder *f, const char *file, unsigned line, const char *manifest,
	const char *base)
{
	const char *slash;
	size_t n;
	char *m = base ? wm_arena_printf(&f->out->arena, "%s/%s", base, manifest) : (char *)manifest, *py;
	if (!m) {
		f->oom = true;
		return;
	}
	slash = strrchr(m, '/');
	n = slash ? (size_t)(slash - m) : 0;
	if ((py = join(f, m, n, "pyproject.toml")) &&
			propose(f, py, true, "%s:%u: --manifest-path %s", file, line, m))
		return;
	if (n >= 4 && strncmp(m + n - 4, "rust", 4) == 0 && (n == 4 || m[n - 5] == '/') &&
			(py = join(f, m, n > 4 ? n - 5 : 0, "pyproject.toml")))
		propose(f, py, true, "%s:%u: --manifest-path %s (maturin's src layout)", file, line, m);
}

/* A directory path of a build, as the note and the candidate's reason name it. */
struct place {
	const char *file;
	const struct wm_node *at;
	const char *what;
};

/* A path from the workflows, given as a value: plain, else a note at its position; NULL when not known (noted). */
static const char *plain_value(struct finder *f, const struct place *pl, const char *value, const char *unknown)
{
	struct wm_node n;
	if (!pl->at)
		return NULL;
	if (!value) {
		if (unknown)
			wm_error_add(f->err, WM_OK, WM_SEV_NOTE, pl->file, NULL, 0, pl->at->line, pl->at->column, 0,
				"%s ignored: it depends on %s, not known before the job runs", pl->what, unknown);
		return NULL;
	}
	n = *pl->at;
	n.text = value;
	n.len = strlen(value);
	return plain(f, pl->file, &n, pl->what) ? value : NULL;
}

/* The node of `with.<key>` of a step, or the step's own node. */
static const struct wm_node *with_node(const struct wm_wf_step *s, const char *key)
{
	const struct wm_node *n = wm_yaml_find(wm_yaml_find(s->node, "with"), key);
	return n ? n : s->node;
}

/* What one build of the workflows says of the project: its working directory, its manifest. */
static void scan_build(struct finder *f, struct wm_workflows *w, const struct wm_wf_build *b)
{
	const struct wm_wf_step *s = b->step;
	const char *wd = NULL, *manifest;
	bool action = b->kind == WM_BUILD_ACTION, own = false;
	unsigned line = b->line;
	struct place where;
	if (action) {
		const char *unknown = NULL;
		struct wm_val v;
		wm_workflows_with(&v, w, s, "working-directory");
		if (v.kind == WM_VAL_UNKNOWN)
			unknown = v.why ? v.why : "a value";
		where = (struct place){ s->file, wm_yaml_find(wm_yaml_find(s->node, "with"), "working-directory"),
			"working-directory" };
		wd = plain_value(f, &where, b->working_directory, unknown);
		if (wd && where.at) {
			char *py = join(f, wd, strlen(wd), "pyproject.toml");
			if (py)
				propose(f, py, true, "%s:%u: maturin-action's working-directory: %s", s->file, where.at->line, wd);
		}
		where = (struct place){ s->file, with_node(s, "args"), "--manifest-path" };
		line = where.at->line;
	} else if (s->working_directory) {
		struct wm_val v;
		const char *unknown = NULL;
		wm_workflows_value(&v, w, s, s->working_directory);
		if (v.kind == WM_VAL_UNKNOWN)
			unknown = v.why ? v.why : "a value";
		own = s->working_directory == wm_yaml_find(s->node, "working-directory");
		where = (struct place){ s->file, s->working_directory, "working-directory" };
		wd = plain_value(f, &where, b->working_directory, unknown);
		if (wd && !b->args.manifest && !b->args.manifest_unknown && (b->kind != WM_BUILD_PEP517 || !b->project)) {
			char *py = join(f, wd, strlen(wd), "pyproject.toml");
			if (py)
				propose(f, py, true, "%s:%u: the working directory of maturin's command line%s: %s", s->file,
					s->working_directory->line, own ? "" : " (defaults.run)", wd);
		}
		where = (struct place){ s->file, wm_yaml_find(s->node, "run"), "--manifest-path" };
	} else {
		where = (struct place){ s->file, wm_yaml_find(s->node, "run"), "--manifest-path" };
	}
	if (!action && where.at) {
		/* the script's command line: its own line in a block */
		struct wm_node *at = wm_arena_alloc(&f->out->arena, sizeof(*at));
		if (!at) {
			f->oom = true;
			return;
		}
		*at = *where.at;
		at->line = b->line;
		at->column = b->column;
		where.at = at;
		line = b->line;
	}
	manifest = plain_value(f, &where, b->args.manifest, b->args.manifest_unknown);
	if (manifest)
		manifest_project(f, s->file, line, manifest, wd);
}

/* The project the workflows' builds build (every workflow, released or not). */
static void scan_workflows(struct finder *f)
{
	struct wm_workflows_options o = { wm_init_ci_generated, NULL, NULL };
	struct wm_workflows *w = NULL;
	struct wm_builds b;
	if (wm_workflows_read(&w, f->r, &o, f->err) < 0 || wm_builds_read(&b, w) < 0) {
		f->oom = true;
		wm_workflows_free(w);
		return;
	}
	if (w->unplain)
		wm_error_add(f->err, WM_OK, WM_SEV_NOTE, ".github/workflows", NULL, 0, 0, 0, 0,
			"skipped %zu workflow%s whose name has characters other than letters, digits and ._-: init reads plain "
			"file names only", w->unplain, w->unplain == 1 ? "" : "s");
	for (size_t i = 0; i < b.n && !f->oom; i++)
		scan_build(f, w, &b.items[i]);
	wm_workflows_free(w);
}

/* [tool.uv.workspace].members of the root pyproject.toml: globs matched against the tracked pyproject.toml files. */
static void scan_uv(struct finder *f, const struct wm_toml_doc *root, const char *const *tracked, size_t ntracked)
{
	const struct wm_toml_value *members = wm_toml_get_path(root->root, "tool.uv.workspace.members");
	if (!wm_toml_is_array(members))
		return;
	for (size_t i = 0; i < members->array.n && !f->oom; i++) {
		const struct wm_toml_value *m = members->array.items[i];
		if (!wm_toml_is_string(m) || !wm_name_path_text(m->str, m->len, &(struct wm_path_fault){ 0 }))
			continue;
		if (!strpbrk(m->str, "*?[")) {
			char *py = wm_name_repo_path(m->str, &(const char *){ NULL }) ? join(f, m->str, m->len, "pyproject.toml") : NULL;
			if (py)
				propose(f, py, true, "pyproject.toml: a member of the uv workspace (%s)", m->str);
			continue;
		}
		for (size_t k = 0; k < ntracked; k++) {
			const char *slash = strrchr(tracked[k], '/');
			char *dir;
			if (!slash || !(dir = wm_arena_strndup(&f->out->arena, tracked[k], (size_t)(slash - tracked[k])))) {
				f->oom |= slash != NULL;
				continue;
			}
			if (fnmatch(m->str, dir, FNM_PATHNAME) == 0)
				propose(f, tracked[k], true, "pyproject.toml: a member of the uv workspace (%s)", m->str);
		}
	}
}

int wm_init_find(struct wm_init_found *out, const struct wm_reader *r, const char *const *tracked, size_t ntracked,
	size_t total, struct wm_error *err)
{
	struct finder f = { out, r, err, 0, false };
	struct wm_toml_doc root;
	struct wm_error quiet;
	const struct wm_toml_value *backend = NULL;
	char *text = NULL;
	size_t len = 0, kept = 0;
	int got;

	memset(out, 0, sizeof(*out));
	wm_arena_init(&out->arena);
	memset(&root, 0, sizeof(root));
	wm_error_init(&quiet);
	if (!(out->items = wm_arena_array(&out->arena, MAX_CANDIDATES, sizeof(*out->items)))) {
		f.oom = true;
		goto out;
	}
	got = r->read(r->ctx, "pyproject.toml", &text, &len, &quiet) == 0 &&
		wm_toml_parse(&root, "pyproject.toml", text, len, &quiet) == 0;
	if (got)
		backend = wm_toml_get_path(root.root, "build-system.build-backend");
	/* the root is the project: nothing to look for */
	if (got && wm_toml_is_string(backend) && strcmp(backend->str, "maturin") == 0)
		goto out;
	/* where the repository says the project is: its workflows, its uv workspace; then whatever maturin builds */
	scan_workflows(&f);
	if (got)
		scan_uv(&f, &root, tracked, ntracked);
	for (size_t i = 0; i < out->n; i++)
		kept += out->items[i].evidence;
	if (!kept)
		for (size_t k = 0; k < ntracked && !f.oom; k++)
			if (strcmp(tracked[k], "pyproject.toml") != 0)
				propose(&f, tracked[k], false, "a tracked pyproject.toml that maturin builds");
	/* the files the repository points at win over those that are only there (tests, examples) */
	if (kept) {
		size_t n = 0;
		for (size_t i = 0; i < out->n; i++)
			if (out->items[i].evidence)
				out->items[n++] = out->items[i];
		out->n = n;
	}
	out->missing = !got || (backend && !(wm_toml_is_string(backend) && strcmp(backend->str, "maturin") == 0)) ||
		!wm_toml_table_get(root.root, "project");
	if ((total > ntracked || f.nread >= MAX_READ) && !out->n)
		wm_error_add(err, WM_OK, WM_SEV_NOTE, NULL, NULL, 0, 0, 0, 0,
			"%zu tracked pyproject.toml files: init read the %zu shallowest", total, f.nread);
out:
	wm_toml_release(&root);
	free(text);
	wm_error_release(&quiet);
	if (f.oom) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	return 0;
}

void wm_init_find_release(struct wm_init_found *f)
{
	if (!f)
		return;
	wm_arena_release(&f->arena);
	memset(f, 0, sizeof(*f));
}

