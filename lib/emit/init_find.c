/* init_find.c — where the project is when the root holds none: what the workflows, the uv workspace and the tracked pyproject.toml files say. */
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
#include "emit/init.h"

#define MAX_WORKFLOWS 256  /* workflow files read */
#define MAX_READ 64        /* pyproject.toml files read to see whether maturin builds them: init stays fast in a large repository */
#define MAX_CANDIDATES 16
/* a workflow larger or deeper is passed over (as init.c reads them) */
static const struct wm_yaml_limits limits = { 1u << 20, 64, 200000, 2u << 20 };

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
static void manifest_project(struct finder *f, const char *file, const struct wm_node *at, const char *manifest,
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
			propose(f, py, true, "%s:%u: --manifest-path %s", file, at->line, m))
		return;
	if (n >= 4 && strncmp(m + n - 4, "rust", 4) == 0 && (n == 4 || m[n - 5] == '/') &&
			(py = join(f, m, n > 4 ? n - 5 : 0, "pyproject.toml")))
		propose(f, py, true, "%s:%u: --manifest-path %s (maturin's src layout)", file, at->line, m);
}

/* The `--manifest-path PATH`, `--manifest-path=PATH`, `-m PATH` of a maturin command line or action's args. */
static void scan_args(struct finder *f, const char *file, const struct wm_node *n, const char *text, const char *base,
	bool need_maturin)
{
	const char *p = text;
	bool maturin = !need_maturin;
	while (*p) {
		const char *s, *e;
		while (*p == ' ' || *p == '\t' || (*p == '\\' && p[1] == '\n'))
			p += *p == '\\' ? 2 : 1;
		/* a new command line (not one continued with a backslash) */
		if (*p == '\n') {
			maturin = !need_maturin;
			p++;
			continue;
		}
		s = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		e = p;
		if (e - s == 7 && strncmp(s, "maturin", 7) == 0)
			maturin = true;
		if (!maturin || s == e)
			continue;
		const char *value = NULL, *vend = NULL;
		if ((e - s == 15 && strncmp(s, "--manifest-path", 15) == 0) || (e - s == 2 && strncmp(s, "-m", 2) == 0)) {
			while (*p == ' ' || *p == '\t')
				p++;
			value = p;
			while (*p && *p != ' ' && *p != '\t' && *p != '\n')
				p++;
			vend = p;
		} else if (e - s > 16 && strncmp(s, "--manifest-path=", 16) == 0) {
			value = s + 16;
			vend = e;
		}
		/* a shell's quotes around the whole path */
		if (value && vend - value >= 2 && (*value == '"' || *value == '\'') && vend[-1] == *value)
			value++, vend--;
		if (value && vend > value) {
			struct wm_node v = *n;
			char *m = wm_arena_strndup(&f->out->arena, value, (size_t)(vend - value));
			if (!m) {
				f->oom = true;
				return;
			}
			v.text = m;
			v.len = strlen(m);
			/* the line of a block script's: the block starts on the line after its key */
			if (strchr(text, '\n')) {
				v.line = n->line + 1;
				v.column = 0;
				for (const char *c = text; c < value; c++)
					v.line += *c == '\n';
			}
			if (plain(f, file, &v, "--manifest-path"))
				manifest_project(f, file, &v, m, base);
		}
	}
}

/*
 * The working directory of a job's `run:` steps without their own: the job's
 * defaults.run.working-directory, else the workflow's (GitHub applies them to `run:` steps
 * only, never to an action's).
 */
static const struct wm_node *run_directory(const struct wm_node *job, const struct wm_node *root)
{
	const struct wm_node *wd = wm_yaml_find(wm_yaml_find(wm_yaml_find(job, "defaults"), "run"), "working-directory");
	return wd ? wd : wm_yaml_find(wm_yaml_find(wm_yaml_find(root, "defaults"), "run"), "working-directory");
}

/* A command line of maturin's that builds the project of its working directory. */
static bool builds_here(const char *run)
{
	static const char *const commands[] = { "maturin build", "maturin sdist", "maturin publish", "maturin develop" };
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strstr(run, commands[i]))
			return true;
	return false;
}

/* A job's steps: maturin-action's working-directory and args, and maturin's command lines. */
static void scan_steps(struct finder *f, const char *file, const struct wm_node *job, const struct wm_node *root)
{
	const struct wm_node *steps = wm_yaml_find(job, "steps");
	for (size_t i = 0; steps && steps->type == WM_NODE_SEQ && i < steps->n; i++) {
		const struct wm_node *step = steps->items[i], *uses, *with, *wd, *args, *run;
		const char *base = NULL;
		if (!step || step->type != WM_NODE_MAP)
			continue;
		uses = wm_yaml_find(step, "uses");
		with = wm_yaml_find(step, "with");
		run = wm_yaml_find(step, "run");
		if (uses && uses->type == WM_NODE_SCALAR && strstr(uses->text, "maturin-action")) {
			wd = wm_yaml_find(with, "working-directory");
			if (wd && wd->type == WM_NODE_SCALAR && plain(f, file, wd, "working-directory")) {
				char *py = join(f, wd->text, wd->len, "pyproject.toml");
				base = wd->text;
				if (py)
					propose(f, py, true, "%s:%u: maturin-action's working-directory: %s", file, wd->line, wd->text);
			}
			args = wm_yaml_find(with, "args");
			if (args && args->type == WM_NODE_SCALAR)
				scan_args(f, file, args, args->text, base, false);
		} else if (run && run->type == WM_NODE_SCALAR && strstr(run->text, "maturin")) {
			bool own = (wd = wm_yaml_find(step, "working-directory")) != NULL;
			if (!own)
				wd = run_directory(job, root);
			if (wd && wd->type == WM_NODE_SCALAR && plain(f, file, wd, "working-directory")) {
				char *py = builds_here(run->text) ? join(f, wd->text, wd->len, "pyproject.toml") : NULL;
				base = wd->text;
				if (py)
					propose(f, py, true, "%s:%u: the working directory of maturin's command line%s: %s", file,
						wd->line, own ? "" : " (defaults.run)", wd->text);
			}
			scan_args(f, file, run, run->text, base, true);
		}
	}
}

/* The workflows of .github/workflows/: a name with a control character is skipped, with a note. */
static void scan_workflows(struct finder *f)
{
	struct wm_paths paths = { NULL, 0, 0 };
	struct wm_error quiet;

	wm_error_init(&quiet);
	if (!f->r->list || f->r->list(f->r->ctx, ".github/workflows", &paths, &quiet) != 0)
		goto out;
	for (size_t i = 0; i < paths.n && i < MAX_WORKFLOWS && !f->oom; i++) {
		const char *name = paths.items[i];
		struct wm_path_fault fault;
		struct wm_doc doc;
		const struct wm_node *jobs;
		char *path, *text = NULL;
		size_t len = 0, n = strlen(name);
		if (strchr(name, '/') || !((n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
				(n > 5 && strcmp(name + n - 5, ".yaml") == 0)))
			continue;
		if (!wm_name_path_text(name, n, &fault)) {
			wm_error_add(f->err, WM_OK, WM_SEV_NOTE, ".github/workflows", NULL, 0, 0, 0, 0,
				"skipped a workflow whose name has %s: init reads plain file names only", fault.why);
			continue;
		}
		if (!(path = wm_arena_printf(&f->out->arena, ".github/workflows/%s", name))) {
			f->oom = true;
			break;
		}
		memset(&doc, 0, sizeof(doc));
		if (f->r->read(f->r->ctx, path, &text, &len, &quiet) == 0 && len <= limits.max_bytes && strstr(text ? text : "", "maturin") &&
				wm_yaml_parse(&doc, path, text, len, &limits, &quiet) == 0 && doc.root &&
				doc.root->type == WM_NODE_MAP && (jobs = wm_yaml_find(doc.root, "jobs")) && jobs->type == WM_NODE_MAP)
			for (size_t j = 0; j < jobs->n; j++)
				if (jobs->pairs[j].value && jobs->pairs[j].value->type == WM_NODE_MAP)
					scan_steps(f, path, jobs->pairs[j].value, doc.root);
		wm_yaml_release(&doc);
		free(text);
	}
out:
	wm_io_paths_free(&paths);
	wm_error_release(&quiet);
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
