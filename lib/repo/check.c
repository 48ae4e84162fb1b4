/* check.c — `check`: the matrix, the project and every generated file, read from one git source, against each other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "formats/diff.h"
#include "formats/json.h"
#include "formats/pep440.h"
#include "formats/toml.h"
#include "model/meta.h"
#include "model/project.h"
#include "emit/file.h"
#include "init/init.h"
#include "repo/check.h"
#include "repo/repo.h"
#include "repo/variant.h"

struct checker {
	const struct wm_check_options *o;
	const struct wm_matrix *m;
	struct wm_reader src;   /* the files, pyproject.toml without an applied variant patch */
	struct wm_reader git;   /* the source as opened, for wm_repo_source_status */
	struct wm_repo *repo;
	struct wm_reader wt;    /* the working tree, opened when an index check needs it */
	bool wt_failed;         /* ... and it could not be */
	struct wm_error *out;
	struct wm_buf diff;
};

/* A finding: a check error (exit 1), positioned in `file`. */
static void finding(struct checker *c, enum wm_severity sev, const char *file, unsigned line, unsigned column,
	const char *fmt, ...) WM_PRINTF(6, 7);

static void finding(struct checker *c, enum wm_severity sev, const char *file, unsigned line, unsigned column,
	const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	wm_error_vadd(c->out, WM_ESTATE, sev, file, NULL, 0, line, column, 0, fmt, ap);
	va_end(ap);
}

/* The first message of `err`, for a finding that quotes a lower layer's reason. */
static const char *reason(const struct wm_error *err)
{
	return err->ndiags ? err->diags[0].message : "unknown reason";
}

/* ---- lines ------------------------------------------------------------------- */

struct lines {
	const char *p, *end;
};

/* The next line without its line ending (LF or CRLF). */
static bool next_line(struct lines *l, const char **line, size_t *len)
{
	const char *nl;
	if (l->p >= l->end)
		return false;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	*line = l->p;
	*len = (size_t)((nl ? nl : l->end) - l->p);
	if (*len && (*line)[*len - 1] == '\r')
		(*len)--;
	l->p = nl ? nl + 1 : l->end;
	return true;
}

/*
 * The 1-based number of the first line where the two texts differ, line
 * endings aside, and the header's comment lines (whose digest changes with
 * any change) aside too: 1 when only the header differs (it names another
 * matrix file, or is an earlier release's).
 */
static unsigned first_difference(const char *a, size_t alen, const char *b, size_t blen)
{
	struct lines la = { a, a + alen }, lb = { b, b + blen };
	const char *x, *y;
	size_t nx, ny;
	unsigned line = 1;
	for (;; line++) {
		bool hx = next_line(&la, &x, &nx), hy = next_line(&lb, &y, &ny);
		if (hx && hy && line <= 3 && nx && ny && x[0] == '#' && y[0] == '#')
			continue;
		if (!hx && !hy)
			return 1;
		if (!hx || !hy || nx != ny || memcmp(x, y, nx) != 0)
			return line;
	}
}

/* The action and the reference of a `uses: owner/name@ref` line, or false. */
static bool uses_line(const char *line, size_t len, const char **action, size_t *alen, const char **ref,
	size_t *rlen, size_t *column)
{
	const char *p = line, *end = line + len, *at, *v;
	while (p < end && *p == ' ')
		p++;
	if (end - p >= 2 && p[0] == '-' && p[1] == ' ')
		for (p += 2; p < end && *p == ' '; p++)
			;
	if (end - p < 5 || memcmp(p, "uses:", 5) != 0)
		return false;
	for (p += 5; p < end && *p == ' '; p++)
		;
	if (p < end && (*p == '"' || *p == '\''))
		p++;
	v = p;
	while (p < end && *p != ' ' && *p != '"' && *p != '\'')
		p++;
	if (!(at = memchr(v, '@', (size_t)(p - v))))
		return false;
	*action = v;
	*alen = (size_t)(at - v);
	*ref = at + 1;
	*rlen = (size_t)(p - at - 1);
	*column = (size_t)(v - line) + 1;
	return true;
}

/* One action whose reference was bumped: where first, how often. */
struct bump {
	const char *action, *from, *to;
	size_t alen, flen, tlen;
	unsigned line, column, count;
};

/*
 * When the two texts differ only in the references of `uses:` lines (as
 * Dependabot or Renovate bump them), reports each bumped action once and
 * returns true.
 */
static bool only_uses_bumped(struct checker *c, const struct wm_file *f, const char *got, size_t len)
{
	struct lines la = { f->data, f->data + f->len }, lb = { got, got + len };
	struct bump bumps[32];
	size_t nbumps = 0;
	const char *x, *y;
	size_t nx, ny;
	unsigned line = 0;

	for (;;) {
		bool hx = next_line(&la, &x, &nx), hy = next_line(&lb, &y, &ny);
		struct bump b;
		size_t i, c1, al2, rl2;
		const char *a2, *r2;
		line++;
		if (!hx && !hy)
			break;
		if (hx != hy)
			return false;
		if (nx == ny && memcmp(x, y, nx) == 0)
			continue;
		if (!uses_line(x, nx, &b.action, &b.alen, &b.from, &b.flen, &c1) ||
		    !uses_line(y, ny, &a2, &al2, &r2, &rl2, &c1) || al2 != b.alen || memcmp(a2, b.action, al2) != 0)
			return false;
		b.to = r2, b.tlen = rl2, b.line = line, b.column = (unsigned)c1, b.count = 1;
		for (i = 0; i < nbumps; i++)
			if (bumps[i].alen == b.alen && memcmp(bumps[i].action, b.action, b.alen) == 0 &&
			    bumps[i].tlen == b.tlen && memcmp(bumps[i].to, b.to, b.tlen) == 0)
				break;
		if (i < nbumps)
			bumps[i].count++;
		else if (nbumps < sizeof(bumps) / sizeof(bumps[0]))
			bumps[nbumps++] = b;
		else
			return false;
	}
	for (size_t i = 0; i < nbumps; i++) {
		const struct bump *b = &bumps[i];
		char places[32] = "";
		if (b->count > 1)
			snprintf(places, sizeof(places), ", %u places", b->count);
		finding(c, WM_SEV_ERROR, f->path, b->line, b->column,
			"action reference bumped by hand: '%.*s@%.*s' (generated: '%.*s@%.*s'%s); pin it in the "
			"'actions:' table of %s and run 'wheelmatrix generate'", (int)b->alen, b->action, (int)b->tlen, b->to,
			(int)b->alen, b->action, (int)b->flen, b->from, places, c->o->matrix);
		for (size_t k = 0; k < c->m->nactions; k++)
			if (strlen(c->m->actions[k].action) == b->alen && memcmp(c->m->actions[k].action, b->action, b->alen) == 0)
				finding(c, WM_SEV_NOTE, c->o->matrix, c->m->actions[k].loc.line, c->m->actions[k].loc.column,
					"'%s' is pinned to '%s' here", c->m->actions[k].action, c->m->actions[k].ref);
	}
	return nbumps > 0;
}

/* ---- the generated files ---------------------------------------------------------- */

/* Where the matrix asks for file `f`: its ci.* key or its backend, for a missing file. */
static const struct wm_loc *asked_at(const struct wm_matrix *m, const struct wm_file *f)
{
	if (m->github.enabled && strcmp(f->path, m->github.path) == 0)
		return &m->github.loc;
	if (m->gitlab.enabled && strcmp(f->path, m->gitlab.path) == 0)
		return &m->gitlab.loc;
	for (size_t i = 0; i < m->nbackends; i++) {
		char path[128];
		snprintf(path, sizeof(path), WM_PATCH_PATH, m->backends[i]->id);
		if (strcmp(f->path, path) == 0)
			return &m->backends[i]->loc;
	}
	return NULL;
}

/*
 * Each maturin pin of a committed CI file (`maturin-version: "X"` on
 * GitHub, `WM_MATURIN: "X"` on GitLab) that the project's
 * [build-system].requires does not admit.
 */
static void check_maturin_pins(struct checker *c, const char *path, const char *text, size_t len)
{
	static const char *const keys[] = { "maturin-version:", "WM_MATURIN:" };
	const struct wm_project *p = c->m->project;
	struct lines l = { text, text + len };
	const char *line, *why;
	size_t n;
	unsigned no = 0;

	if (!p || !p->maturin_specs)
		return;
	while (next_line(&l, &line, &n)) {
		no++;
		for (size_t k = 0; k < WM_ARRAY_SIZE(keys); k++) {
			const char *s = line, *end = line + n;
			char version[32];
			size_t vlen = 0;
			while (s < end && *s == ' ')
				s++;
			if ((size_t)(end - s) < strlen(keys[k]) || strncmp(s, keys[k], strlen(keys[k])) != 0)
				continue;
			for (s += strlen(keys[k]); s < end && (*s == ' ' || *s == '"' || *s == '\''); s++)
				;
			while (s < end && vlen + 1 < sizeof(version) && *s != '"' && *s != '\'' && *s != ' ')
				version[vlen++] = *s++;
			version[vlen] = '\0';
			if (wm_pep440_specs_match(p->maturin_specs, version, &why) == 0)
				finding(c, WM_SEV_ERROR, path, no, 1, "pins maturin %s, which %s's [build-system].requires "
					"('maturin%s') does not admit: run 'wheelmatrix generate' (it pins %s)", version,
					p->py_path, p->maturin_specs, c->m->maturin);
		}
	}
}

static bool ci_file(const struct wm_matrix *m, const char *path)
{
	return (m->github.enabled && strcmp(path, m->github.path) == 0) ||
		(m->gitlab.enabled && strcmp(path, m->gitlab.path) == 0);
}

/* Adds the diff that turns `got` (NULL: missing) into `f` to the checker's. */
static int add_diff(struct checker *c, const struct wm_file *f, const char *got, size_t len)
{
	char *diff;
	size_t difflen;
	int ret = wm_file_diff(&diff, &difflen, f, got, len);
	if (ret == 0)
		wm_buf_add(&c->diff, diff, difflen);
	free(diff);
	return ret;
}

/*
 * 1 when the index is being checked and the working tree holds `f` as
 * generated: `generate` ran, and only the matrix was staged.  A working
 * tree that cannot be read only leaves the finding as it was (0).
 */
static int regenerated_unstaged(struct checker *c, const struct wm_file *f)
{
	struct wm_error quiet;
	char *text = NULL;
	size_t len = 0;
	int ret = 0;

	if (c->o->source != WM_SOURCE_INDEX || !c->repo || c->wt_failed)
		return 0;
	wm_error_init(&quiet);
	if (!c->wt.ctx && wm_repo_source_open(&c->wt, c->repo, WM_SOURCE_WORKTREE, NULL, c->o->root, &quiet) < 0)
		c->wt_failed = true;
	else if (c->wt.read(c->wt.ctx, f->path, &text, &len, &quiet) == 0)
		ret = wm_file_compare(f, text, len) == WM_FILE_CURRENT;
	if (quiet.code == WM_ENOMEM)
		ret = WM_ENOMEM;
	wm_error_release(&quiet);
	free(text);
	if (ret < 0)
		wm_error_code(c->out, ret);
	return ret;
}

static int check_file(struct checker *c, const struct wm_file *f)
{
	struct wm_repo_status st;
	enum wm_file_state state;
	char *got = NULL;
	size_t len = 0;
	unsigned line;
	int ret;

	if ((ret = c->src.read(c->src.ctx, f->path, &got, &len, c->out)) < 0)
		return ret;
	state = wm_file_compare(f, ret == 1 ? NULL : got, len);
	switch (state) {
	case WM_FILE_MISSING: {
		const struct wm_loc *at = asked_at(c->m, f);
		finding(c, WM_SEV_ERROR, at ? c->o->matrix : f->path, at ? at->line : 0, at ? at->column : 0,
			"'%s' is missing%s: run 'wheelmatrix generate'%s", f->path,
			c->o->source == WM_SOURCE_INDEX ? " from the index" : c->o->source == WM_SOURCE_REV ? " from the commit" : "",
			c->o->source == WM_SOURCE_WORKTREE ? " and add it" : " and 'git add' it");
		break;
	}
	case WM_FILE_CURRENT:
		break;
	case WM_FILE_STALE:
		line = first_difference(f->data, f->len, got, len);
		if ((ret = regenerated_unstaged(c, f)) < 0)
			goto out;
		if (ret == 1)
			finding(c, WM_SEV_ERROR, f->path, line, 1, "out of date in the index, but regenerated in the "
				"working tree and not staged: stage it ('git add %s')", f->path);
		else
			finding(c, WM_SEV_ERROR, f->path, line, 1, "out of date (the matrix or the project changed): "
				"run 'wheelmatrix generate'");
		break;
	case WM_FILE_EDITED:
		if (only_uses_bumped(c, f, got, len))
			break;
		line = first_difference(f->data, f->len, got, len);
		finding(c, WM_SEV_ERROR, f->path, line, 1, "edited by hand since it was generated: move the change "
			"into %s and run 'wheelmatrix generate' (--force drops the edit)", c->o->matrix);
		break;
	case WM_FILE_FOREIGN:
		finding(c, WM_SEV_ERROR, f->path, 1, 1, "not written by wheelmatrix (it has no wheelmatrix header): "
			"remove it, or run 'wheelmatrix generate --force' to replace it");
		break;
	}
	if ((state == WM_FILE_STALE || state == WM_FILE_EDITED) && ci_file(c->m, f->path))
		check_maturin_pins(c, f->path, got, len);
	if (c->o->diff && state != WM_FILE_CURRENT && (ret = add_diff(c, f, state == WM_FILE_MISSING ? NULL : got, len)) < 0)
		goto out;
	if (state == WM_FILE_MISSING && c->o->source != WM_SOURCE_WORKTREE) {
		ret = 0;
		goto out;
	}
	if ((ret = wm_repo_source_status(&st, &c->git, f->path, c->out)) < 0)
		goto out;
	if (st.ignored)
		finding(c, WM_SEV_ERROR, f->path, 0, 0, "ignored by git (.gitignore or .git/info/exclude): CI would "
			"not see it; stop ignoring it");
	else if (!st.tracked && state != WM_FILE_MISSING)
		finding(c, WM_SEV_ERROR, f->path, 0, 0, "not tracked by git: 'git add' it");
	ret = 0;
out:
	free(got);
	return ret;
}

/* ---- the variant patches, applied to that source's pyproject.toml ---------------- */

static bool has_string(const struct wm_toml_value *array, const char *s)
{
	for (size_t i = 0; wm_toml_is_array(array) && i < array->array.n; i++)
		if (wm_toml_is_string(array->array.items[i]) && strcmp(array->array.items[i]->str, s) == 0)
			return true;
	return false;
}

/* What the patched file says: the name, the backend's features, the import name. */
static void check_patched(struct checker *c, const char *path, const struct wm_backend *b,
	const struct wm_toml_doc *doc)
{
	const struct wm_project *p = c->m->project;
	const struct wm_toml_value *name = wm_toml_get_path(doc->root, "project.name");
	const struct wm_toml_value *features = wm_toml_get_path(doc->root, "tool.maturin.features");
	const struct wm_toml_value *module = wm_toml_get_path(doc->root, "tool.maturin.module-name");
	const char *import, *want;
	struct wm_arena a;

	if (!wm_toml_is_string(name) || strcmp(name->str, b->dist) != 0)
		finding(c, WM_SEV_ERROR, path, 1, 1, "the patched %s names the project '%s', not '%s': run "
			"'wheelmatrix generate'", c->m->pyproject, wm_toml_is_string(name) ? name->str : "", b->dist);
	for (size_t i = 0; i < b->features.n; i++)
		if (!has_string(features, b->features.items[i]))
			finding(c, WM_SEV_ERROR, path, 1, 1, "the patched %s lacks feature '%s' of backend '%s' in "
				"[tool.maturin].features: run 'wheelmatrix generate'", c->m->pyproject, b->features.items[i], b->id);
	wm_arena_init(&a);
	import = wm_project_module(&a, wm_toml_is_string(module) ? module->str : NULL, p->lib_name,
		wm_toml_is_string(name) ? name->str : b->dist);
	/* the native module the unpatched project builds (module-name may be dotted: llm_rs.llm_rs) */
	want = c->m->meta ? wm_meta_module_name(&a, c->m, b) :
		wm_project_module(&a, p->module_name, p->lib_name, p->name ? p->name : c->m->name);
	if (import && want && strcmp(import, want) != 0)
		finding(c, WM_SEV_ERROR, path, 1, 1, "the patched %s builds module '%s', not '%s': the import name "
			"would change; run 'wheelmatrix generate'", c->m->pyproject, import, want);
	if (c->m->meta) {
		const struct wm_toml_value *src = wm_toml_get_path(doc->root, "tool.maturin.python-source");
		const char *dir = wm_meta_python_source(&a, b);
		if (dir && (!wm_toml_is_string(src) || strcmp(src->str, dir) != 0))
			finding(c, WM_SEV_ERROR, path, 1, 1, "the patched %s takes its Python sources from '%s', not "
				"'%s': maturin would not put the native module into %s; run 'wheelmatrix generate'",
				c->m->pyproject, wm_toml_is_string(src) ? src->str : ".", dir, wm_meta_import(&a, c->m, b));
	}
	wm_arena_release(&a);
}

static int check_patch(struct checker *c, const struct wm_backend *b)
{
	const struct wm_project *p = c->m->project;
	struct wm_buf post = WM_BUF_INIT;
	struct wm_diff_file shape;
	struct wm_diff_problem problem;
	struct wm_error why;
	struct wm_toml_doc doc;
	char path[128], *patch = NULL;
	size_t len = 0;
	int ret;

	wm_error_init(&why);
	memset(&doc, 0, sizeof(doc));
	snprintf(path, sizeof(path), WM_PATCH_PATH, b->id);
	if ((ret = c->src.read(c->src.ctx, path, &patch, &len, c->out)) != 0) {
		ret = ret < 0 ? ret : 0;  /* a missing patch is already reported */
		goto out;
	}
	/* read only when it has the shape generate writes, and applied only exactly where its hunks say */
	if ((ret = wm_diff_check(&shape, patch, len, &problem)) < 0)
		goto out;
	if (ret == 1) {
		finding(c, WM_SEV_ERROR, path, problem.line ? problem.line : 1, 1, "not a patch of the shape 'wheelmatrix "
			"generate' writes (%s): nothing reads it further; run 'wheelmatrix generate'", problem.why);
		ret = 0;
		goto out;
	}
	if ((ret = wm_diff_apply(&post, patch, len, p->py_path, p->py.text, p->py.len)) < 0)
		goto out;
	if (ret == 1) {
		finding(c, WM_SEV_ERROR, path, 1, 1, "does not apply to %s exactly where its hunks say: run "
			"'wheelmatrix generate'", p->py_path);
		ret = 0;
		goto out;
	}
	if ((ret = wm_toml_parse(&doc, p->py_path, post.ptr ? post.ptr : "", post.len, &why)) < 0) {
		if (ret == WM_ENOMEM)
			goto out;
		finding(c, WM_SEV_ERROR, path, 1, 1, "makes %s invalid TOML (line %u: %s): run 'wheelmatrix generate'",
			p->py_path, why.ndiags ? why.diags[0].line : 0, reason(&why));
		ret = 0;
		goto out;
	}
	check_patched(c, path, b, &doc);
	ret = 0;
out:
	if (ret == WM_ENOMEM)
		wm_error_code(c->out, ret);
	wm_toml_release(&doc);
	wm_error_release(&why);
	wm_buf_release(&post);
	free(patch);
	return ret;
}

/*
 * A patch file that no backend of the matrix has (a backend removed since, or one planted): the
 * commands never read it, but the file would seem to say how a backend builds.
 */
static int check_stray_patches(struct checker *c, const struct wm_files *files)
{
	static const char dir[] = ".wheelmatrix/patches";
	struct wm_paths names = { 0 };
	struct wm_error quiet;
	int ret;

	if (!c->git.list)
		return 0;
	wm_error_init(&quiet);  /* none, or a directory that cannot be listed: no stray patch seen */
	ret = c->git.list(c->git.ctx, dir, &names, &quiet);
	wm_error_release(&quiet);
	if (ret == WM_ENOMEM) {
		wm_error_code(c->out, ret);
		return ret;
	}
	for (size_t i = 0; ret == 0 && i < names.n; i++) {
		const char *name = names.items[i];
		size_t n = strlen(name), k;
		bool generated = false, backend = false;
		char path[256];

		if (n <= 6 || strcmp(name + n - 6, ".patch") != 0 || strchr(name, '/') || n + sizeof(dir) >= sizeof(path))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		for (k = 0; k < files->n && !generated; k++)
			generated = strcmp(files->items[k].path, path) == 0;
		for (k = 0; k < c->m->nbackends && !backend; k++)
			backend = strlen(c->m->backends[k]->id) == n - 6 && memcmp(c->m->backends[k]->id, name, n - 6) == 0;
		if (generated)
			continue;
		if (backend)
			finding(c, WM_SEV_ERROR, path, 0, 0, "no backend of the matrix has this patch: backend '%.*s' builds "
				"%s as it is; remove it", (int)(n - 6), name, c->m->pyproject);
		else
			finding(c, WM_SEV_ERROR, path, 0, 0, "no backend of the matrix has this patch: there is no backend "
				"'%.*s'; remove it", (int)(n - 6), name);
	}
	wm_io_paths_free(&names);
	return 0;
}

/* ---- the meta package's pins ----------------------------------------------------- */

/* The version pinned by `req` ("name[x] == 1.0 ; marker") when it names `dist`, else NULL (arena). */
static const char *pin_of(struct wm_arena *a, const char *req, const char *dist)
{
	char want[256], got[256];
	size_t n = strspn(req, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
	const char *s = req + n, *v;
	if (n == 0 || n >= sizeof(got) || strlen(dist) >= sizeof(want))
		return NULL;
	memcpy(got, req, n);
	got[n] = '\0';
	wm_name_normalize(got, got);
	wm_name_normalize(want, dist);
	if (strcmp(got, want) != 0)
		return NULL;
	s += strspn(s, " \t");
	if (*s == '[' && (s = strchr(s, ']')))
		s++;
	if (!s)
		return "";
	s += strspn(s, " \t");
	if (strncmp(s, "==", 2) != 0 || s[2] == '=')
		return "";
	s += 2;
	s += strspn(s, " \t");
	v = s;
	n = strcspn(v, " \t;,");
	return wm_arena_strndup(a, v, n);
}

/* Finds `dist`'s pin in the array `list`; reports a missing or wrong one. */
static void check_pin(struct checker *c, struct wm_arena *a, const char *path, const struct wm_toml_value *list,
	const struct wm_toml_value *where, const char *what, const struct wm_backend *b)
{
	const char *version = c->m->meta->version;
	for (size_t i = 0; wm_toml_is_array(list) && i < list->array.n; i++) {
		const struct wm_toml_value *v = list->array.items[i];
		const char *pin = wm_toml_is_string(v) ? pin_of(a, v->str, b->dist) : NULL;
		if (!pin)
			continue;
		if (!*pin || !wm_pep440_equal(pin, version))
			finding(c, WM_SEV_ERROR, path, v->span.line, v->span.column, "%s requires '%s', but the "
				"project's version is %s: the meta package must pin %s==%s; run 'wheelmatrix generate'",
				what, v->str, version, b->dist, version);
		return;
	}
	finding(c, WM_SEV_ERROR, path, where ? where->span.line : 1, where ? where->span.column : 1,
		"%s does not require %s: pip would not install backend '%s'; run 'wheelmatrix generate'",
		what, b->dist, b->id);
}

/* The meta package's version and pins are the project's version; every backend has its extra. */
static int check_meta(struct checker *c)
{
	static const char path[] = ".wheelmatrix/meta/pyproject.toml";
	const struct wm_matrix *m = c->m;
	const struct wm_toml_value *version, *deps, *extras;
	struct wm_toml_doc doc;
	struct wm_error why;
	struct wm_arena a;
	char *text = NULL;
	size_t len = 0;
	int ret;

	memset(&doc, 0, sizeof(doc));
	wm_error_init(&why);
	wm_arena_init(&a);
	if ((ret = c->src.read(c->src.ctx, path, &text, &len, c->out)) != 0) {
		ret = ret < 0 ? ret : 0;  /* a missing file is already reported */
		goto out;
	}
	if ((ret = wm_toml_parse(&doc, path, text, len, &why)) < 0) {
		if (ret != WM_ENOMEM) {
			finding(c, WM_SEV_ERROR, path, why.ndiags ? why.diags[0].line : 1, why.ndiags ? why.diags[0].column : 1,
				"not valid TOML (%s): run 'wheelmatrix generate'", reason(&why));
			ret = 0;
		}
		goto out;
	}
	version = wm_toml_get_path(doc.root, "project.version");
	if (!wm_toml_is_string(version) || !wm_pep440_equal(version->str, m->meta->version))
		finding(c, WM_SEV_ERROR, path, version ? version->span.line : 1, version ? version->span.column : 1,
			"the meta package's version is '%s', but the project's is %s (%s): run 'wheelmatrix generate'",
			wm_toml_is_string(version) ? version->str : "", m->meta->version,
			m->project->version_file ? m->project->version_file : m->project->py_path);
	deps = wm_toml_get_path(doc.root, "project.dependencies");
	extras = wm_toml_get_path(doc.root, "project.optional-dependencies");
	if (m->default_backend)
		check_pin(c, &a, path, deps, deps, "[project].dependencies", m->default_backend);
	for (size_t i = 0; i < m->nbackends; i++) {
		const struct wm_backend *b = m->backends[i];
		const struct wm_toml_value *extra = wm_toml_is_table(extras) ? wm_toml_table_get(extras->table, b->id) : NULL;
		char *what = wm_arena_printf(&a, "the extra '%s'", b->id);
		if (!extra)
			finding(c, WM_SEV_ERROR, path, extras ? extras->span.line : 1, extras ? extras->span.column : 1,
				"no extra '%s': 'pip install \"%s[%s]\"' would not install %s; run 'wheelmatrix generate'",
				b->id, m->name, b->id, b->dist);
		else if (what)
			check_pin(c, &a, path, extra, extra, what, b);
	}
	ret = 0;
out:
	if (ret == WM_ENOMEM)
		wm_error_code(c->out, ret);
	wm_arena_release(&a);
	wm_toml_release(&doc);
	wm_error_release(&why);
	free(text);
	return ret;
}

/* ---- a variant's pyproject.toml where the project's belongs ----------------------------- */

/* pyproject.toml holds the patch of `backend`: a commit would publish the variant as the project. */
static void patch_applied(struct checker *c, const char *backend)
{
	const char *py = c->m->pyproject;
	switch (c->o->source) {
	case WM_SOURCE_WORKTREE:
		finding(c, WM_SEV_ERROR, py, 0, 0, "has the patch of backend '%s' applied (wheelmatrix patch), which "
			"'git commit -a' would commit: run 'wheelmatrix patch %s --revert' (the other findings are the "
			"project's without it)", backend, backend);
		break;
	case WM_SOURCE_INDEX:
		finding(c, WM_SEV_ERROR, py, 0, 0, "is staged with the patch of backend '%s' applied (wheelmatrix "
			"patch): the commit would make the variant the project; run 'wheelmatrix patch %s --revert' and "
			"'git add %s'", backend, backend, py);
		break;
	case WM_SOURCE_REV:
		finding(c, WM_SEV_ERROR, py, 0, 0, "is committed with the patch of backend '%s' applied (wheelmatrix "
			"patch): the project is that variant; run 'wheelmatrix patch %s --revert' and commit %s",
			backend, backend, py);
		break;
	}
}

/* ---- the project's own workflows that still publish what the matrix publishes ------------ */

/* Appends `name` to the list `out` ("a", "a and b", "a, b and c"), given how many it will hold. */
static void list_name(struct wm_buf *out, const char *name, size_t i, size_t n)
{
	wm_buf_printf(out, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ", name);
}

/* The jobs of a workflow the generated one does not replace, as a list ("'test', 'docs'"), or NULL when none. */
static char *others(const struct wm_init_workflow *w)
{
	struct wm_buf b = WM_BUF_INIT;
	size_t n = 0;
	for (size_t i = 0; i < w->njobs; i++)
		n += !w->jobs[i].replaced;
	for (size_t i = 0, k = 0; i < w->njobs; i++)
		if (!w->jobs[i].replaced) {
			wm_buf_printf(&b, "%s'%s'", k == 0 ? "" : k + 1 == n ? " and " : ", ", w->jobs[i].id);
			k++;
		}
	if (!b.len || b.oom) {
		wm_buf_release(&b);
		return NULL;
	}
	return wm_buf_detach(&b);
}

/* The wheels a workflow builds that the matrix does not: "N: a; b; ..." (at most 8 named). */
static char *lost_list(const struct wm_init_workflow *w)
{
	struct wm_buf b = WM_BUF_INIT;
	wm_buf_printf(&b, "%zu: ", w->nlost);
	for (size_t i = 0; i < w->nlost && i < 8; i++)
		wm_buf_printf(&b, "%s%s", i ? "; " : "", w->lost[i]);
	if (w->nlost > 8)
		wm_buf_puts(&b, "; ...");
	if (b.oom) {
		wm_buf_release(&b);
		return NULL;
	}
	return wm_buf_detach(&b);
}

/*
 * What to do with a workflow that uploads what the generated one uploads: remove it when the
 * generated workflow replaces every job of it; else remove its publishing job when nothing it
 * builds is lost; else keep it, and stop it publishing, until the matrix builds what it builds.
 */
static void publisher_finding(struct checker *c, const struct wm_init_workflow *w, const char *both,
	const char *generated)
{
	char *rest = others(w), *lost = w->nlost ? lost_list(w) : NULL;
	bool github = c->m->github.enabled;
	if (w->nlost)
		finding(c, WM_SEV_ERROR, w->path, w->line, w->column, "job '%s' uploads %s to an index on %s (%s), as %s "
			"does: two publishers of the same files; but this workflow builds wheels the matrix does not (%s), so "
			"keep it until the matrix builds them, and stop job '%s' publishing what %s publishes", w->job, both,
			w->event, w->publisher, generated, lost ? lost : "", w->job, generated);
	else if (w->partial)
		finding(c, WM_SEV_ERROR, w->path, w->line, w->column, "job '%s' uploads %s to an index on %s (%s), as %s "
			"does: two publishers of the same files; but part of this workflow is not read (a bound, or a file "
			"that cannot be read: 'wheelmatrix init --force' names it), so keep it until you know the matrix "
			"builds what it builds, and stop job '%s' publishing what %s publishes", w->job, both, w->event,
			w->publisher, generated, w->job, generated);
	else if (!rest)
		finding(c, WM_SEV_ERROR, w->path, w->line, w->column, "job '%s' uploads %s to an index on %s (%s), as %s "
			"does: two publishers of the same files; remove this workflow%s ('git rm %s'), or stop job '%s' "
			"publishing", w->job, both, w->event, w->publisher, generated,
			github ? ", whose every job that one replaces" : "", w->path, w->job);
	else
		finding(c, WM_SEV_ERROR, w->path, w->line, w->column, "job '%s' uploads %s to an index on %s (%s), as %s "
			"does: two publishers of the same files; remove the jobs %s replaces from this workflow, which "
			"has others (%s), or stop job '%s' publishing", w->job, both, w->event, w->publisher, generated,
			generated, rest, w->job);
	free(rest);
	free(lost);
}

/*
 * Each workflow of the project's own that still uploads a distribution of the matrix to an index
 * on a tag push or a release: the generated CI uploads it too, and the second upload of a file
 * fails (or, with --skip-existing, keeps whichever came first).  One that builds another project
 * (its CLI, its pure-Python package) publishes something else.  The advice never destroys: what
 * the workflow builds that the matrix does not (read again from its builds, and the wheels init
 * recorded as lost in the matrix file's header) keeps it.
 */
static int check_replaced(struct checker *c, const char *text, size_t len)
{
	const struct wm_matrix *m = c->m;
	const char *name = m->project && m->project->name ? m->project->name : m->name;
	const char *generated = m->github.enabled ? m->github.path : m->gitlab.enabled ? m->gitlab.path : NULL;
	struct wm_init_workflows found;
	const char **ours = NULL, **shared;
	size_t nours = 0;
	int ret;

	memset(&found, 0, sizeof(found));
	if (!generated)
		return 0;
	/* ours, then room for the ones a workflow shares with them */
	if (!(ours = calloc(2 * (m->nbackends + 1), sizeof(*ours))))
		return wm_error_oom(c->out);
	/* what the generated CI uploads: every backend's distribution, and the meta package */
	for (size_t i = 0; i < m->nbackends; i++)
		ours[nours++] = m->backends[i]->dist;
	if (m->meta)
		ours[nours++] = m->name;
	shared = ours + m->nbackends + 1;
	if ((ret = wm_init_ci_workflows(&found, &c->src, name, m->project, ours, nours,
			m->github.enabled ? m->github.path : NULL, m, text, len, c->out)) < 0)
		goto out;
	for (size_t i = 0; i < found.n; i++) {
		const struct wm_init_workflow *w = &found.items[i];
		struct wm_buf both = WM_BUF_INIT;
		size_t nshared = 0;
		if (!w->publisher || ci_file(m, w->path) || w->others)
			continue;  /* a generated file at that path is checked as one; another project's is not ours */
		for (size_t k = 0; k < nours; k++) {
			char a[256], b[256];
			bool seen = false;
			for (size_t d = 0; d < w->ndists && !seen; d++) {
				if (strlen(ours[k]) >= sizeof(a) || strlen(w->dists[d]) >= sizeof(b))
					continue;
				wm_name_normalize(a, ours[k]);
				wm_name_normalize(b, w->dists[d]);
				seen = strcmp(a, b) == 0;
			}
			for (size_t s = 0; s < nshared && seen; s++)
				seen = strcmp(shared[s], ours[k]) != 0;
			if (seen)
				shared[nshared++] = ours[k];
		}
		for (size_t s = 0; s < nshared; s++)
			list_name(&both, shared[s], s, nshared);
		if (both.oom) {
			wm_buf_release(&both);
			wm_error_code(c->out, ret = WM_ENOMEM);
			goto out;
		}
		if (nshared)
			publisher_finding(c, w, both.ptr, generated);
		wm_buf_release(&both);
	}
	ret = 0;
out:
	wm_init_ci_workflows_release(&found);
	free(ours);
	return ret;
}

/* ---- the whole check ----------------------------------------------------------------- */

static const char *source_name(const struct wm_check_options *o)
{
	return o->source == WM_SOURCE_INDEX ? "the index" : o->source == WM_SOURCE_REV ? "the commit" :
		"the working tree";
}

int wm_check(struct wm_error *findings, char **diff, size_t *difflen, const struct wm_catalog *cat,
	const struct wm_check_options *opts)
{
	struct checker c = { .o = opts, .out = findings, .diff = WM_BUF_INIT };
	struct wm_reader raw = { 0 };
	struct wm_repo *repo = NULL;
	struct wm_matrix *m = NULL;
	struct wm_files files;
	char *text = NULL;
	size_t len = 0;
	int ret;

	*diff = NULL;
	*difflen = 0;
	wm_files_init(&files);
	if ((ret = wm_repo_discover(&repo, opts->root, findings)) != 0) {
		if (ret == 1) {
			wm_error_nopos(findings, WM_EIO, WM_SEV_ERROR, NULL,
				"not a git repository (or any parent): %s", opts->root);
			ret = WM_EIO;
		}
		goto out;
	}
	if ((ret = wm_repo_source_open(&raw, repo, opts->source, opts->rev, opts->root, findings)) < 0)
		goto out;
	c.src = c.git = raw;
	c.repo = repo;
	/*
	 * `wheelmatrix patch BACKEND` before a local build leaves pyproject.toml as that variant, which
	 * `git commit -a` then commits: the project is checked as it is without the patch (what CI
	 * patches), and the patch applied is an error in every source.
	 */
	if ((ret = wm_variant_reader(&c.src, &raw)) < 0) {
		c.src = raw;
		wm_error_code(findings, ret);
		goto out;
	}
	if ((ret = c.src.read(c.src.ctx, opts->matrix, &text, &len, findings)) != 0) {
		if (ret == 1 && opts->source == WM_SOURCE_INDEX) {
			/* a new project: the matrix file is written but not yet added */
			bool here = strcmp(opts->root, ".") == 0;
			wm_error_nopos(findings, WM_EREAD, WM_SEV_ERROR, NULL,
				"'%s' is not in the index: add it first ('git add %s%s%s')", opts->matrix,
				here ? "" : opts->root, here ? "" : "/", opts->matrix);
			ret = WM_EREAD;
		} else if (ret == 1) {
			wm_error_nopos(findings, WM_EREAD, WM_SEV_ERROR, NULL,
				"'%s' is not in %s%s", opts->matrix, source_name(opts),
				opts->source == WM_SOURCE_WORKTREE ? ": 'wheelmatrix init' writes one" : "");
			ret = WM_EREAD;
		}
		goto out;
	}
	if ((ret = wm_matrix_load_project(&m, cat, opts->matrix, text, len, &c.src, findings)) < 0 ||
	    (ret = wm_variant_reader_verify(&c.src, m, findings)) < 0 ||
	    (ret = wm_generate(&files, m, cat, opts->matrix, findings)) < 0)
		goto out;
	c.m = m;
	for (size_t i = 0; i < files.n; i++) {
		if ((ret = check_file(&c, &files.items[i])) < 0)
			goto out;
		if (opts->checked && (ret = wm_io_paths_add(opts->checked, files.items[i].path,
				strlen(files.items[i].path))) < 0) {
			wm_error_code(findings, ret);
			goto out;
		}
	}
	for (size_t i = 0; m->project && i < m->nbackends; i++)
		if ((ret = check_patch(&c, m->backends[i])) < 0)
			goto out;
	if (m->project && (ret = check_stray_patches(&c, &files)) < 0)
		goto out;
	if (m->meta && (ret = check_meta(&c)) < 0)
		goto out;
	if ((ret = check_replaced(&c, text, len)) < 0)
		goto out;
	if (c.src.ctx != raw.ctx && wm_variant_reader_applied(&c.src))
		patch_applied(&c, wm_variant_reader_applied(&c.src));
	if (c.diff.oom) {
		ret = WM_ENOMEM;
		wm_error_code(findings, ret);
		goto out;
	}
	if (c.diff.len) {
		*difflen = c.diff.len;
		*diff = wm_buf_detach(&c.diff);
	}
	ret = 0;
out:
	wm_error_sort(findings);
	wm_buf_release(&c.diff);
	wm_files_release(&files);
	wm_matrix_free(m);
	free(text);
	if (c.src.ctx != raw.ctx)
		wm_variant_reader_free(&c.src);
	wm_repo_source_close(&raw);
	if (c.wt.ctx)
		wm_repo_source_close(&c.wt);
	wm_repo_free(repo);
	return ret;
}

/* ---- the findings as JSON ------------------------------------------------------- */

static struct wm_json *diag_json(const struct wm_diag *d)
{
	static const char *const severities[] = { "error", "warning", "note" };
	struct wm_json *o = wm_json_object();
	if (!o)
		return NULL;
	if (wm_json_set(o, "file", wm_json_string(d->file)) ||
	    wm_json_set(o, "line", wm_json_int(d->line)) ||
	    wm_json_set(o, "column", wm_json_int(d->column)) ||
	    wm_json_set(o, "severity", wm_json_string(severities[d->severity])) ||
	    wm_json_set(o, "message", wm_json_string(d->message))) {
		wm_json_free(o);
		return NULL;
	}
	return o;
}

int wm_check_json(char **out, const struct wm_error *findings, const char *diff)
{
	struct wm_json *root = wm_json_object(), *list = wm_json_array();
	struct wm_buf text = WM_BUF_INIT;
	size_t warnings = 0;
	int ret = WM_ENOMEM;

	*out = NULL;
	if (!root || !list)
		goto out;
	for (size_t i = 0; i < findings->ndiags; i++) {
		struct wm_json *d = diag_json(&findings->diags[i]);
		if (wm_json_push(list, d) < 0)
			goto out;
		warnings += findings->diags[i].severity == WM_SEV_WARNING;
	}
	if (wm_json_set(root, "ok", wm_json_bool(findings->nerrors == 0)) ||
	    wm_json_set(root, "errors", wm_json_int((int64_t)findings->nerrors)) ||
	    wm_json_set(root, "warnings", wm_json_int((int64_t)warnings)))
		goto out;
	ret = wm_json_set(root, "findings", list);
	list = NULL;
	if (ret < 0 || (diff && wm_json_set(root, "diff", wm_json_string(diff)) < 0) ||
	    wm_json_append(&text, root, WM_JSON_INDENT) < 0) {
		ret = WM_ENOMEM;
		goto out;
	}
	ret = (*out = wm_buf_detach(&text)) ? 0 : WM_ENOMEM;
out:
	wm_buf_release(&text);
	wm_json_free(list);
	wm_json_free(root);
	return ret;
}

