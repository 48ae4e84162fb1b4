/*
 * platforms.c — the matrix's `platforms` section: catalog platforms with their overrides (an
 * include's too), and the platform patterns of backends and rules.
 */
#include <stdio.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "util/name.h"
#include "util/text.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/loader.h"
#include "model/platforms.h"
#include "model/schema.h"
#include "model/settings.h"
#include "model/untrusted.h"

static const char *const default_platforms[] = { "linux-x86_64", "linux-aarch64", "macos-x86_64",
	"macos-arm64", "windows-x86_64" };
const struct wm_names wm_platforms_defaults = WM_NAMES(default_platforms);

static bool label_valid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

/*
 * Reports a '$' in a value GitLab expands before it picks a runner or pulls an image: an image
 * of $CI_COMMIT_REF_NAME, or a runner tag of $CI_COMMIT_BRANCH, lets a branch name choose them.
 */
static bool gitlab_literal(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	if (!strchr(n->text, '$'))
		return true;
	wm_schema_error(&l->c, n, "%s cannot hold '$': GitLab expands variables in it, so a branch or tag name "
		"could choose it", what);
	return false;
}

void wm_platforms_unknown(struct wm_loader *l, const struct wm_node *n, const char *id)
{
	const char *hint = wm_error_full(l->c.err, WM_SEV_ERROR) ? NULL : wm_catalog_suggest_platform(l->cat, id);
	if (hint)
		wm_schema_error(&l->c, n, "unknown platform '%s' (did you mean '%s'?)", id, hint);
	else
		wm_schema_error(&l->c, n, "unknown platform '%s': see the platform catalog in docs/matrix.md", id);
}

bool wm_platforms_load_runs_on(struct wm_loader *l, const struct wm_node *o, struct wm_runs_on *out)
{
	const struct wm_node *v;
	const char *s;
	memset(out, 0, sizeof(*out));
	if ((v = wm_yaml_find(o, "runner")) && wm_schema_string(&l->c, v, "'runner'", &s)) {
		if (!*s)
			wm_schema_error(&l->c, v, "a runner label cannot be empty");
		else if (!label_valid(s))
			wm_schema_error(&l->c, v, "invalid runner label '%s': a label has no spaces", s);
		else
			wm_untrusted_expression_free(l, v, "a runner label");
		out->runner = s;
		out->runner_loc = wm_loader_loc(l, v);
	}
	if ((v = wm_yaml_find(o, "tags"))) {
		struct wm_strlist tags;
		const struct wm_node **nodes;
		if (wm_schema_strlist(&l->c, v, "'tags'", &tags, &nodes)) {
			for (size_t i = 0; i < tags.n; i++)
				if (!*tags.items[i])
					wm_schema_error(&l->c, nodes[i], "a runner tag cannot be empty");
				else if (wm_untrusted_expression_free(l, nodes[i], "a runner tag"))
					gitlab_literal(l, nodes[i], "a runner tag");
			out->tags = tags;
			out->tags_given = true;
			out->tags_loc = wm_loader_loc(l, v);
		}
	}
	return out->runner || out->tags_given;
}

const struct wm_platform *wm_platforms_runs_on(struct wm_loader *l, const struct wm_platform *base,
	const struct wm_runs_on *r)
{
	struct wm_platform *p;
	if (!r->runner && !r->tags_given)
		return base;
	if (wm_loader_oom(l, p = wm_arena_alloc(l->c.arena, sizeof(*p))))
		return base;
	*p = *base;
	if (r->runner) {
		p->runner = r->runner;
		p->runner_loc = r->runner_loc;
	}
	if (r->tags_given) {
		p->gitlab_tags = r->tags;
		p->gitlab_hosted = r->tags.n > 0;
	}
	return p;
}

struct wm_platform *wm_platforms_apply_overrides(struct wm_loader *l, const struct wm_platform *base,
	const struct wm_node *o)
{
	struct wm_runs_on runs_on;
	struct wm_platform *p = wm_arena_alloc(l->c.arena, sizeof(*p));
	const struct wm_node *v;
	const char *s, *why;

	if (wm_loader_oom(l, p))
		return NULL;
	*p = *base;
	if (!o)
		return p;
	if (wm_platforms_load_runs_on(l, o, &runs_on)) {
		if (runs_on.runner) {
			p->runner = runs_on.runner;
			p->runner_loc = runs_on.runner_loc;
		}
		if (runs_on.tags_given) {
			p->gitlab_tags = runs_on.tags;
			p->gitlab_hosted = runs_on.tags.n > 0;
		}
	}
	if ((v = wm_yaml_find(o, "image")) && wm_schema_string(&l->c, v, "'image'", &s)) {
		if (!label_valid(s))
			wm_schema_error(&l->c, v, "invalid image '%s': an image reference has no spaces", s);
		else if (wm_untrusted_expression_free(l, v, "an image"))
			gitlab_literal(l, v, "an image");
		p->gitlab_image = s;
	}
	if ((v = wm_yaml_find(o, "manylinux")) && wm_schema_string(&l->c, v, "'manylinux'", &s)) {
		if (!wm_catalog_level_valid(p, s, &why)) {
			wm_schema_error(&l->c, v, "invalid level '%s' for %s: %s", s, p->id, why);
		} else {
			p->manylinux = s;
			p->platform_tag = wm_catalog_platform_tag(l->c.arena, p);
			wm_loader_oom(l, p->platform_tag);
		}
	}
	if ((v = wm_yaml_find(o, "deployment-target")) && wm_schema_string(&l->c, v, "'deployment-target'", &s)) {
		unsigned major, minor;
		if (p->os != WM_OS_MACOS)
			wm_schema_error(&l->c, v, "'deployment-target' applies to macOS platforms only: it is the "
				"MACOSX_DEPLOYMENT_TARGET of %s's build", p->id);
		else if (!wm_catalog_macos_version(s, &major, &minor))
			wm_schema_error(&l->c, v, "invalid macOS deployment target '%s': a version such as \"10.15\", "
				"\"11.0\" or \"15.0\"", s);
		else {
			p->deployment_target = s;
			p->platform_tag = wm_catalog_platform_tag(l->c.arena, p);
			wm_loader_oom(l, p->platform_tag);
		}
	}
	if ((v = wm_yaml_find(o, "container")) && wm_schema_string(&l->c, v, "'container'", &s)) {
		/* `off`: maturin-action builds on the runner itself */
		if (p->os != WM_OS_LINUX)
			wm_schema_error(&l->c, v, "'container' applies to Linux platforms only: %s builds on the runner itself",
				p->id);
		else if (!label_valid(s))
			wm_schema_error(&l->c, v, "invalid container image '%s': an image reference has no spaces", s);
		else
			wm_untrusted_expression_free(l, v, "a container image");
		p->container = s;
	}
	if ((v = wm_yaml_find(o, "cross")) && wm_schema_bool(&l->c, v, "'cross'", &p->cross) && p->cross && !base->cross &&
			!wm_yaml_find(o, "runner")) {
		/* cross-built on the usual runner of the OS: x86_64 Linux and Windows, Apple silicon */
		static const char *const runners[] = { "ubuntu-24.04", "macos-15", "windows-2022", "ubuntu-24.04" };
		p->runner = runners[p->os];
		p->runner_loc = wm_loader_loc(l, v);
	}
	if ((v = wm_yaml_find(o, "target")) && wm_schema_string(&l->c, v, "'target'", &s)) {
		if (!wm_name_target(s))
			wm_schema_error(&l->c, v, "invalid Rust target '%s': a target triple such as x86_64-unknown-linux-gnu", s);
		p->target = s;
	}
	return p;
}

static const char *const override_keys[] = { "runner", "image", "tags", "manylinux", "deployment-target", "container", "cross", "target",
	"features", "no-default-features", "profile", "rust-toolchain", "rustup-components", "unstable-flags", "zig",
	"docker-options", "env" };
const struct wm_names wm_platforms_override_keys = WM_NAMES(override_keys);

/*
 * `image` with its manylinux or musllinux level `from` written as `to`, where that image is
 * published: pypa's (quay.io/pypa/manylinux_2_28_x86_64 as manylinux2014_x86_64, manylinux_2_34,
 * musllinux_1_1; pypa/manylinux's README.rst) and rust-cross's manylinux2014-cross and
 * manylinux_2_28-cross (maturin-action's DEFAULT_CONTAINERS, PyO3/maturin-action@v1.51.0
 * src/index.ts); NULL otherwise.
 */
static const char *level_image(struct wm_arena *a, const char *image, const char *family, const char *from,
	const char *to)
{
	static const char *const pypa[] = { "2014", "2_17", "2_28", "2_34", "1_1", "1_2" };
	static const char *const cross[] = { "2014", "2_17", "2_28" };
	bool is_pypa = image && strncmp(image, "quay.io/pypa/", 13) == 0, known = false;
	char old[32], new[32];
	const char *at;
	for (size_t i = 0; i < (is_pypa ? WM_ARRAY_SIZE(pypa) : WM_ARRAY_SIZE(cross)); i++)
		known = known || strcmp(to, is_pypa ? pypa[i] : cross[i]) == 0;
	if (!known)
		return NULL;
	snprintf(old, sizeof(old), strcmp(from, "2014") == 0 ? "%s%s" : "%s_%s", family, from);
	snprintf(new, sizeof(new), strcmp(to, "2014") == 0 || strcmp(to, "2_17") == 0 ? "%s2014" : "%s_%s", family, to);
	if (!image || !(at = strstr(image, old)))
		return NULL;
	return wm_arena_printf(a, "%.*s%s%s", (int)(at - image), image, new, at + strlen(old));
}

const struct wm_platform *wm_platforms_find(struct wm_loader *l, const char *id)
{
	const struct wm_platform *base;
	struct wm_platform *p;
	const char *dash = strrchr(id, '-'), *why;
	char *base_id;
	for (size_t i = 0; i < l->m->nplatforms; i++)
		if (strcmp(l->m->platforms[i]->id, id) == 0)
			return l->m->platforms[i];
	if ((base = wm_catalog_platform(l->cat, id)) != NULL)
		return base;
	/* <catalog id>-<level>: the catalog's platform at another manylinux or musllinux level */
	if (!dash || !(base_id = wm_arena_strndup(l->c.arena, id, (size_t)(dash - id))) ||
			!(base = wm_catalog_platform(l->cat, base_id)) || strcmp(base->id, base_id) != 0 ||
			base->os != WM_OS_LINUX || !wm_catalog_level_valid(base, dash + 1, &why) ||
			!(p = wm_arena_alloc(l->c.arena, sizeof(*p))))
		return NULL;
	*p = *base;
	p->id = wm_arena_strdup(l->c.arena, id);
	p->manylinux = p->id + (dash - id) + 1;
	p->platform_tag = wm_catalog_platform_tag(l->c.arena, p);
	/* GitLab's job: the same images at that level, where the catalog's names its level */
	if (base->gitlab_image)
		p->gitlab_image = level_image(l->c.arena, base->gitlab_image, base->family, base->manylinux, p->manylinux);
	if (!p->gitlab_image)
		p->gitlab_hosted = false;
	if (wm_loader_oom(l, p->id) || wm_loader_oom(l, p->platform_tag))
		return NULL;
	return p;
}

static void add_platform(struct wm_loader *l, const struct wm_node *key, const struct wm_node *o)
{
	struct wm_matrix *m = l->m;
	const struct wm_platform *base;
	struct wm_platform *p;

	if (key->type != WM_NODE_SCALAR || wm_yaml_is_null(key)) {
		wm_schema_error(&l->c, key, "a platform must be a platform id, not %s", wm_yaml_kind(key));
		l->platforms_ok = false;
		return;
	}
	for (size_t i = 0; i < m->nplatforms; i++)
		if (strcmp(m->platforms[i]->id, key->text) == 0) {
			wm_schema_error(&l->c, key, "platform '%s' is listed twice (first at line %u)", key->text,
				l->platform_nodes[i]->line);
			return;
		}
	if ((base = wm_platforms_find(l, key->text)) == NULL) {
		const char *dash = strrchr(key->text, '-'), *why = NULL;
		const struct wm_platform *cat = dash ? wm_catalog_platform(l->cat,
			wm_arena_strndup(l->c.arena, key->text, (size_t)(dash - key->text))) : NULL;
		if (cat && cat->os == WM_OS_LINUX && !wm_catalog_level_valid(cat, dash + 1, &why))
			wm_schema_error(&l->c, key, "invalid level '%s' for %s: %s", dash + 1, cat->id, why);
		else
			wm_platforms_unknown(l, key, key->text);
		l->platforms_ok = false;
		return;
	}
	if (o && wm_yaml_is_null(o))
		o = NULL;
	if (o) {
		char what[96];
		snprintf(what, sizeof(what), "the overrides of '%s'", key->text);
		if (!wm_schema_map(&l->c, o, what, override_keys, WM_ARRAY_SIZE(override_keys)))
			o = NULL;
	}
	if ((p = wm_platforms_apply_overrides(l, base, o)) == NULL)
		return;
	p->loc = wm_loader_loc(l, key);
	if (o) {
		char *what = wm_arena_printf(l->c.arena, "platform '%s'", p->id);
		if (!wm_loader_oom(l, what))
			p->settings = wm_settings_load(l, o, WM_SETTINGS_PLATFORM, what, NULL, NULL, NULL, 0);
	}
	l->platform_nodes[m->nplatforms] = key;
	m->platforms[m->nplatforms++] = p;
}

void wm_platforms_load(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	size_t cap = n && (n->type == WM_NODE_SEQ || n->type == WM_NODE_MAP) ? n->n : WM_ARRAY_SIZE(default_platforms);

	l->platforms_ok = true;
	m->platforms = wm_arena_array(l->c.arena, cap + 1, sizeof(*m->platforms));
	l->platform_nodes = wm_arena_array(l->c.arena, cap + 1, sizeof(*l->platform_nodes));
	if (wm_loader_oom(l, m->platforms) || wm_loader_oom(l, l->platform_nodes))
		return;
	if (!n || wm_yaml_is_null(n)) {
		for (size_t i = 0; i < WM_ARRAY_SIZE(default_platforms); i++) {
			const struct wm_platform *p = wm_catalog_platform(l->cat, default_platforms[i]);
			if (p)
				m->platforms[m->nplatforms++] = p;
		}
		return;
	}
	if (n->type == WM_NODE_SEQ) {
		for (size_t i = 0; i < n->n; i++)
			add_platform(l, n->items[i], NULL);
	} else if (n->type == WM_NODE_MAP) {
		for (size_t i = 0; i < n->n; i++)
			add_platform(l, n->pairs[i].key, n->pairs[i].value);
	} else {
		wm_schema_error(&l->c, n, "'platforms' must be a list of platform ids or a mapping of ids to "
			"overrides, not %s", wm_yaml_kind(n));
		l->platforms_ok = false;
		return;
	}
	if (n->n == 0) {
		wm_schema_error(&l->c, n, "'platforms' is empty: list at least one platform");
		l->platforms_ok = false;
	}
}

bool wm_platforms_pattern(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	const struct wm_matrix *m = l->m;
	const char *s = n->text;
	if (wm_text_is_glob(s)) {
		for (size_t i = 0; i < m->nplatforms; i++)
			if (wm_text_glob_match(s, m->platforms[i]->id))
				return true;
		wm_schema_error(&l->c, n, "%s '%s' matches none of the matrix's platforms", what, s);
		return false;
	}
	for (size_t i = 0; i < m->nplatforms; i++)
		if (strcmp(s, m->platforms[i]->id) == 0)
			return true;
	if (wm_platforms_find(l, s))
		wm_schema_error(&l->c, n, "platform '%s' is not one of the matrix's 'platforms'", s);
	else
		wm_platforms_unknown(l, n, s);
	return false;
}

/*
 * One runner label a job runs on, against the catalog's retirement dates: a warning from 90
 * days before the day GitHub announced, an error from that day on (a job on a retired label
 * never starts); a warning for a label the catalog lacks that looks like GitHub's (ubuntu-*,
 * macos-*, windows-*), where a self-hosted runner's label is not checked.  `line`/`column`: where the label comes from, its `runner:` value or, for the
 * catalog's label, the platform's entry; `id`: that platform, when the label is the catalog's.
 */
static void check_runner(struct wm_loader *l, const char *label, unsigned line, unsigned column, unsigned span,
	const char *id)
{
	const struct wm_runner *r = wm_catalog_runner(l->cat, label);
	long today = wm_catalog_today(l->cat), days;
	char whose[96] = "";

	if (!r && !id && wm_catalog_runner_hosted_like(label)) {
		/* a label GitHub might host that the catalog lacks: misspelt, or newer than the catalog */
		const char *near = wm_catalog_suggest_runner(l->cat, label);
		wm_schema_warning_at(&l->c, line, column, span, "runner '%s' looks like a GitHub-hosted label, but "
			"wheelmatrix does not know it%s%s%s: its retirement is not checked, and a label no runner has "
			"leaves the jobs queued", label, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		return;
	}
	if (!today || !r || !r->retires_text)
		return;
	if ((days = r->retires - today) > 90)
		return;
	if (id)
		snprintf(whose, sizeof(whose), " (the catalog's runner for %s)", id);
	if (days <= 0)
		wm_schema_error_at(&l->c, line, column, span, "runner '%s'%s was retired on %s, as GitHub announced: "
			"its jobs no longer start; set 'runner: %s'", label, whose, r->retires_text, r->instead);
	else
		wm_schema_warning_at(&l->c, line, column, span, "runner '%s'%s retires on %s, in %ld %s, as GitHub "
			"announced: set 'runner: %s'", label, whose, r->retires_text, days, days == 1 ? "day" : "days",
			r->instead);
}

static void check_platform_runner(struct wm_loader *l, const struct wm_platform *p, const struct wm_loc *entry)
{
	if (p->runner_loc.line)
		check_runner(l, p->runner, p->runner_loc.line, p->runner_loc.column, (unsigned)strlen(p->runner), NULL);
	else
		check_runner(l, p->runner, entry->line, entry->column, entry->line ? (unsigned)strlen(p->id) : 0, p->id);
}

void wm_platforms_check_runners(struct wm_loader *l)
{
	const struct wm_matrix *m = l->m;
	/* the default platforms, for a file without `platforms:`, are the file's first line's */
	const struct wm_loc first = { m->file, l->root ? l->root->line : 1, l->root ? l->root->column : 1 };

	for (size_t i = 0; i < m->nplatforms; i++)
		check_platform_runner(l, m->platforms[i], l->platform_nodes[i] ? &m->platforms[i]->loc : &first);
	/* an include's platform: reported there only when the include chose another label than the platform's */
	for (size_t i = 0; i < m->nincludes; i++) {
		const struct wm_platform *p = m->includes[i].include_platform, *listed = NULL;
		if (!p)
			continue;
		for (size_t j = 0; j < m->nplatforms; j++)
			if (strcmp(m->platforms[j]->id, p->id) == 0)
				listed = m->platforms[j];
		if (listed && strcmp(listed->runner, p->runner) == 0)
			continue;
		check_platform_runner(l, p, &m->includes[i].loc);
	}
	/* a backend's runner: once where it is written, however many platforms it applies to */
	for (size_t c = 0; m->runs_on && c < m->nbackends * m->nplatforms; c++) {
		const struct wm_platform *p = m->runs_on[c];
		bool again = false;
		if (!p || p->runner == m->platforms[c % m->nplatforms]->runner)
			continue;
		for (size_t k = 0; k < c && !again; k++)
			again = m->runs_on[k] && m->runs_on[k]->runner_loc.line == p->runner_loc.line &&
				m->runs_on[k]->runner_loc.column == p->runner_loc.column;
		if (!again)
			check_runner(l, p->runner, p->runner_loc.line, p->runner_loc.column, (unsigned)strlen(p->runner), NULL);
	}
}

/*
 * Where PyPy is built: on Linux, every target, by maturin from its own tables of PyPy's
 * configuration when the image has no such interpreter (python.h: cross images, musllinux,
 * i686, a project's own container); PyPy itself ships for macOS x86_64 and arm64 and 64-bit
 * Windows only (what actions/setup-python and uv install), and maturin builds for Windows
 * only with the interpreter.
 */
const char *wm_platforms_pypy_missing(const struct wm_platform *pl)
{
	if (pl->os == WM_OS_LINUX)
		return NULL;
	if (pl->os == WM_OS_EMSCRIPTEN)
		return "Pyodide is a build of CPython";
	if (pl->os == WM_OS_MACOS)
		return strcmp(pl->arch, "x86_64") != 0 && strcmp(pl->arch, "arm64") != 0 ?
			"PyPy ships for macOS x86_64 and arm64, one architecture each" : NULL;
	return strcmp(pl->arch, "x86_64") != 0 ? "PyPy ships for 64-bit x86 Windows only" : NULL;
}
