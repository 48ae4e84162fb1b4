/*
 * backends.c — the matrix's `backends` section (features, platforms, toolkits, dist, env, setup
 * steps, dependencies, smoke, test) and the checks across backends: toolkits against platforms, the one
 * default, distribution names.
 */
#include <stdio.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/map.h"
#include "util/name.h"
#include "util/text.h"
#include "util/utf8.h"
#include "formats/pep440.h"
#include "formats/yaml.h"
#include "model/backends.h"
#include "model/catalog.h"
#include "model/expr.h"
#include "model/loader.h"
#include "model/platforms.h"
#include "model/project.h"
#include "model/schema.h"
#include "model/settings.h"
#include "model/untrusted.h"
#include "model/variants.h"

static void load_backend_platforms(struct wm_loader *l, struct wm_backend *b, const struct wm_node *n)
{
	const struct wm_node **nodes;
	struct wm_loc *locs;
	if (!wm_schema_strlist(&l->c, n, "'platforms'", &b->platforms, &nodes)) {
		l->backends_ok = false;
		return;
	}
	if (b->platforms.n == 0) {
		wm_schema_error(&l->c, n, "'platforms' is empty: omit it to build backend '%s' on every platform", b->id);
		l->backends_ok = false;
		return;
	}
	locs = wm_arena_array(l->c.arena, b->platforms.n, sizeof(*locs));
	if (wm_loader_oom(l, locs))
		return;
	for (size_t i = 0; i < b->platforms.n; i++) {
		locs[i] = wm_loader_loc(l, nodes[i]);
		if (l->platforms_ok && !wm_platforms_pattern(l, nodes[i], "platform pattern"))
			l->backends_ok = false;
	}
	b->platform_locs = locs;
}

static bool toolkit_declared(const struct wm_backend *b, const struct wm_toolkit *t)
{
	for (size_t i = 0; i < b->ntoolkits; i++)
		if (b->toolkits[i].toolkit == t)
			return true;
	return false;
}

static const char *const toolkit_keys[] = { "version", "archs" };
const struct wm_names wm_backends_toolkit_keys = WM_NAMES(toolkit_keys);

static void load_toolkit_use(struct wm_loader *l, struct wm_backend *b, const struct wm_pair *pair)
{
	const struct wm_toolkit *t = wm_catalog_toolkit(l->cat, pair->key->text);
	const struct wm_node *v = pair->value, *ver = NULL;
	struct wm_toolkit_use *u;

	if (!t) {
		const char *hint = wm_error_full(l->c.err, WM_SEV_ERROR) ? NULL :
			wm_catalog_suggest_toolkit(l->cat, pair->key->text);
		if (hint)
			wm_schema_error(&l->c, pair->key, "unknown toolkit '%s' (did you mean '%s'?)", pair->key->text, hint);
		else
			wm_schema_error(&l->c, pair->key, "unknown toolkit '%s'", pair->key->text);
		return;
	}
	u = &b->toolkits[b->ntoolkits++];
	u->toolkit = t;
	u->version = t->default_version;
	u->features = &b->features;
	u->loc = u->version_loc = wm_loader_loc(l, pair->key);
	if (v->type == WM_NODE_MAP) {
		if (wm_schema_map(&l->c, v, "toolkit options", toolkit_keys, WM_ARRAY_SIZE(toolkit_keys)))
			ver = wm_yaml_find(v, "version");
	} else if (!wm_yaml_is_null(v)) {
		ver = v;
	}
	if (!ver)
		return;
	if (ver->type != WM_NODE_SCALAR || wm_yaml_is_null(ver)) {
		wm_schema_error(&l->c, ver, "a toolkit version must be a string such as \"%s\", not %s",
			t->default_version ? t->default_version : "1.0", wm_yaml_kind(ver));
		return;
	}
	if (t->versions.n == 0) {
		wm_schema_error(&l->c, ver, "%s has no versions to choose from: write {%s: {}}", t->title, t->id);
		return;
	}
	for (size_t i = 0; i < t->versions.n; i++)
		if (strcmp(ver->text, t->versions.items[i]) == 0) {
			wm_schema_warn_number(&l->c, ver);
			u->version = ver->text;
			u->version_loc = wm_loader_loc(l, ver);
			return;
		}
	{
		struct wm_buf known = WM_BUF_INIT;
		for (size_t i = 0; i < t->versions.n; i++)
			wm_buf_printf(&known, "%s%s", i ? ", " : "", t->versions.items[i]);
		wm_schema_error(&l->c, ver, "unknown %s version '%s' (known: %s)", t->title, ver->text,
			known.ptr ? known.ptr : "");
		wm_buf_release(&known);
	}
}

/*
 * A GPU architecture as written: "8.6", 86 or sm_86 (the spellings of CMake, PyTorch and nvcc),
 * into "8.6"; false when it is none of these.
 */
static bool arch_spelling(const char *s, char *out, size_t size)
{
	size_t len;
	if (strncmp(s, "sm_", 3) == 0)
		s += 3;
	len = strlen(s);
	if (len < 2 || len > 4 || strspn(s, "0123456789.") != len || s[0] == '0')
		return false;
	if (strchr(s, '.')) {
		const char *dot = strchr(s, '.');
		/* one digit after the point, and one point: 8.6, 10.0 */
		if (dot == s || dot[1] == '\0' || dot[2] != '\0' || strchr(dot + 1, '.'))
			return false;
		snprintf(out, size, "%s", s);
	} else {
		if (len > 3)
			return false;
		snprintf(out, size, "%.*s.%c", (int)(len - 1), s, s[len - 1]);
	}
	return true;
}

/*
 * `archs:` of a toolkit use: each one a compute capability nvcc of the chosen version builds for
 * (the catalog's `archs.<version>.supported`).  Kept in the catalog's spelling, so that what the
 * recipes export is the catalog's text, never the matrix file's.
 */
static void load_archs(struct wm_loader *l, struct wm_toolkit_use *u, const struct wm_node *n)
{
	const struct wm_node *data = wm_yaml_find(u->toolkit->recipe, "archs");
	const struct wm_node *supported = wm_yaml_find(wm_yaml_find(data, u->version ? u->version : ""), "supported");
	const char **items;

	if (!n)
		return;
	if (!data) {
		wm_schema_error(&l->c, n, "%s has no GPU architectures to choose: 'archs' applies to CUDA", u->toolkit->title);
		return;
	}
	if (n->type != WM_NODE_SEQ) {
		wm_schema_error(&l->c, n, "'archs' must be a list of compute capabilities such as [\"8.0\", \"9.0\"], not %s",
			wm_yaml_kind(n));
		return;
	}
	if (n->n == 0) {
		wm_schema_error(&l->c, n, "'archs' is empty: omit it to build for %s %s's default architectures",
			u->toolkit->title, u->version);
		return;
	}
	items = wm_arena_array(l->c.arena, n->n, sizeof(*items));
	if (wm_loader_oom(l, items))
		return;
	u->archs.items = items;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *a = n->items[i];
		const char *found = NULL;
		char canon[8];
		if (a->type != WM_NODE_SCALAR || wm_yaml_is_null(a)) {
			wm_schema_error(&l->c, a, "a GPU architecture must be a compute capability such as \"8.6\", not %s",
				wm_yaml_kind(a));
			continue;
		}
		if (!arch_spelling(a->text, canon, sizeof(canon))) {
			wm_schema_error(&l->c, a, "invalid GPU architecture '%s': write a compute capability such as \"8.6\" "
				"(86 and sm_86 are read alike)", a->text);
			continue;
		}
		for (size_t k = 0; supported && k < supported->n && !found; k++)
			if (strcmp(supported->items[k]->text, canon) == 0)
				found = supported->items[k]->text;
		if (!found) {
			struct wm_buf known = WM_BUF_INIT;
			for (size_t k = 0; supported && k < supported->n; k++)
				wm_buf_printf(&known, "%s%s", k ? ", " : "", supported->items[k]->text);
			wm_schema_error(&l->c, a, "%s %s cannot build for architecture %s (its nvcc builds for %s)",
				u->toolkit->title, u->version, canon, known.ptr ? known.ptr : "none");
			wm_buf_release(&known);
			continue;
		}
		for (size_t k = 0; k < u->archs.n; k++)
			if (strcmp(u->archs.items[k], found) == 0) {
				wm_schema_error(&l->c, a, "architecture %s is listed twice", found);
				found = NULL;
				break;
			}
		if (found)
			items[u->archs.n++] = found;
	}
}

static void load_toolkits(struct wm_loader *l, struct wm_backend *b, const struct wm_node *n)
{
	size_t cat_n = wm_catalog_toolkit_count(l->cat);
	size_t declared = n && n->type == WM_NODE_MAP ? n->n : 0;

	if (n && n->type != WM_NODE_MAP && !wm_yaml_is_null(n))
		wm_schema_error(&l->c, n, "'toolkit' must be a mapping of toolkit names to versions, such as "
			"{cuda: \"12.4\"}, not %s", wm_yaml_kind(n));
	b->toolkits = wm_arena_array(l->c.arena, declared + cat_n + 1, sizeof(*b->toolkits));
	if (wm_loader_oom(l, b->toolkits))
		return;
	for (size_t i = 0; i < declared; i++) {
		size_t before = b->ntoolkits;
		load_toolkit_use(l, b, &n->pairs[i]);
		if (b->ntoolkits > before && n->pairs[i].value->type == WM_NODE_MAP)
			load_archs(l, &b->toolkits[before], wm_yaml_find(n->pairs[i].value, "archs"));
	}
	/* a feature such as `cublas` or `candle-core/cuda` needs its toolkit even when none is named */
	for (size_t f = 0; f < b->features.n; f++) {
		const struct wm_toolkit *tk;
		size_t from = 0;
		while ((tk = wm_catalog_feature_toolkit(l->cat, b->features.items[f], &from)) != NULL)
			if (!toolkit_declared(b, tk)) {
				struct wm_toolkit_use *u = &b->toolkits[b->ntoolkits++];
				u->toolkit = tk;
				u->version = tk->default_version;
				u->features = &b->features;
				u->implied = true;
				u->loc = u->version_loc = b->loc;
			}
	}
}

static const char *const providers[] = { "github", "gitlab" };
static const char *const oses[] = { "linux", "macos", "windows" };
const struct wm_names wm_backends_setup_keys = WM_NAMES(providers), wm_backends_setup_os_keys = WM_NAMES(oses);

static void load_setup(struct wm_loader *l, struct wm_backend *b, const struct wm_node *n)
{
	if (!wm_schema_map(&l->c, n, "'setup'", providers, WM_ARRAY_SIZE(providers)))
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *per_os = n->pairs[i].value;
		bool github = strcmp(n->pairs[i].key->text, "github") == 0;
		char what[32];
		snprintf(what, sizeof(what), "'setup.%s'", n->pairs[i].key->text);
		if (!wm_schema_map(&l->c, per_os, what, oses, WM_ARRAY_SIZE(oses)))
			continue;
		for (size_t j = 0; j < per_os->n; j++) {
			const struct wm_node *steps = per_os->pairs[j].value;
			if (steps->type != WM_NODE_SEQ) {
				wm_schema_error(&l->c, steps, "setup steps must be a list, not %s", wm_yaml_kind(steps));
				continue;
			}
			for (size_t k = 0; k < steps->n; k++) {
				if (github)
					wm_untrusted_github_step(l, steps->items[k]);
				else
					wm_untrusted_gitlab_line(l, steps->items[k]);
			}
		}
	}
	b->setup = n;
}

static void load_dependencies(struct wm_loader *l, struct wm_backend *b, const struct wm_node *n)
{
	const struct wm_node **nodes;
	if (!wm_schema_strlist(&l->c, n, "'dependencies'", &b->dependencies, &nodes))
		return;
	for (size_t i = 0; i < b->dependencies.n; i++) {
		const char *why;
		if (!wm_name_requirement(b->dependencies.items[i], &why))
			wm_schema_error(&l->c, nodes[i], "invalid requirement '%s': %s", b->dependencies.items[i], why);
	}
}

/* ---- test: the matrix's and a backend's ------------------------------------------------ */

/*
 * Reports a character of scalar n that does not show as itself (a control, a format character,
 * a line break): the value reaches a script of the CI files through an environment variable,
 * where a reader of the file could not see it.
 */
static bool test_visible(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	uint32_t cp;
	size_t len, at = wm_utf8_find_hidden(n->text, n->len, &cp, &len);
	if (at == n->len)
		return true;
	wm_schema_error(&l->c, n, "%s holds U+%04X, a character that does not show as itself: write it on one "
		"line, in visible characters", what, (unsigned)cp);
	return false;
}

/* A scalar of `test:` that reaches the CI files as it is: visible, and no GitHub expression. */
static bool test_literal(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	return test_visible(l, n, what) && wm_untrusted_expression_free(l, n, what);
}

/* A list of `test:` into *out, each item checked by `check` (NULL: only test_literal); every bad item reported. */
static void test_list(struct wm_loader *l, const struct wm_node *n, const char *what, struct wm_strlist *out,
	bool (*check)(struct wm_loader *, const struct wm_node *, const char *))
{
	const struct wm_node **nodes;
	struct wm_strlist list;
	bool ok = true;
	if (!wm_schema_strlist(&l->c, n, what, &list, &nodes))
		return;
	for (size_t i = 0; i < list.n; i++) {
		if (!*list.items[i]) {
			wm_schema_error(&l->c, nodes[i], "%s cannot hold an empty string", what);
			ok = false;
		} else if (!test_literal(l, nodes[i], what) || (check && !check(l, nodes[i], what))) {
			ok = false;
		}
	}
	if (ok)
		*out = list;
}

static bool test_requirement(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	const char *why;
	(void)what;
	if (wm_name_requirement(n->text, &why))
		return true;
	wm_schema_error(&l->c, n, "invalid requirement '%s': %s", n->text, why);
	return false;
}

static bool test_extra(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	(void)what;
	if (wm_name_distribution(n->text))
		return true;
	wm_schema_error(&l->c, n, "invalid extra '%s': an extra's name is letters, digits, '.', '-' and '_', "
		"beginning and ending with a letter or digit (PEP 685)", n->text);
	return false;
}

static bool test_source(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	const char *why;
	if (!wm_name_repo_path_shape(n->text, &why)) {
		wm_schema_error(&l->c, n, "invalid path '%s': %s", n->text, why);
		return false;
	}
	return wm_untrusted_path(l, n, what);
}

static bool test_runner(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	(void)what;
	if (!strpbrk(n->text, " \t"))
		return true;
	wm_schema_error(&l->c, n, "invalid runner label '%s': a label has no spaces", n->text);
	return false;
}

/* GitLab expands variables in a runner tag before it picks the runner (platforms.c says the same). */
static bool test_tag(struct wm_loader *l, const struct wm_node *n, const char *what)
{
	(void)what;
	if (!strchr(n->text, '$'))
		return true;
	wm_schema_error(&l->c, n, "invalid runner tag '%s': a runner tag cannot hold '$': GitLab expands variables "
		"in it, so a branch or tag name could choose it", n->text);
	return false;
}

static const char *const test_keys[] = { "command", "requires", "extras", "sources", "skip" };
static const char *const backend_test_keys[] = { "command", "requires", "extras", "sources", "skip", "runner",
	"tags" };
const struct wm_names wm_backends_test_keys = WM_NAMES(test_keys),
	wm_backends_backend_test_keys = WM_NAMES(backend_test_keys);

void wm_backends_load_test(struct wm_loader *l, const struct wm_node *n, const struct wm_test *base, bool backend,
	const struct wm_test **out)
{
	struct wm_test *t = wm_arena_alloc(l->c.arena, sizeof(*t));
	const char *what = backend ? "a backend's 'test'" : "'test'";
	const struct wm_node *v;

	*out = NULL;
	if (wm_loader_oom(l, t))
		return;
	if (base)
		*t = *base;
	t->loc = wm_loader_loc(l, n);
	if (!(backend ? wm_schema_map(&l->c, n, what, backend_test_keys, WM_ARRAY_SIZE(backend_test_keys)) :
			wm_schema_map(&l->c, n, what, test_keys, WM_ARRAY_SIZE(test_keys))))
		return;
	if ((v = wm_yaml_find(n, "command")) && wm_schema_string(&l->c, v, "'test.command'", &t->command)) {
		if (!*t->command)
			wm_schema_error(&l->c, v, "'test.command' cannot be empty");
		else
			test_literal(l, v, "'test.command'");
	}
	if ((v = wm_yaml_find(n, "requires")))
		test_list(l, v, "'test.requires'", &t->requires, test_requirement);
	if ((v = wm_yaml_find(n, "extras")))
		test_list(l, v, "'test.extras'", &t->extras, test_extra);
	if ((v = wm_yaml_find(n, "sources")))
		test_list(l, v, "'test.sources'", &t->sources, test_source);
	if ((v = wm_yaml_find(n, "skip")))
		test_list(l, v, "'test.skip'", &t->skip, NULL);
	/* a runner is one label or a list of them, as runs-on takes it */
	if ((v = wm_yaml_find(n, "runner")) && v->type == WM_NODE_SCALAR) {
		const char **one = wm_arena_array(l->c.arena, 1, sizeof(*one));
		if (wm_loader_oom(l, one))
			return;
		if (!*v->text)
			wm_schema_error(&l->c, v, "a runner label cannot be empty");
		else if (test_literal(l, v, "'test.runner'") && test_runner(l, v, NULL)) {
			one[0] = v->text;
			t->runner = (struct wm_strlist){ one, 1 };
		}
	} else if (v) {
		test_list(l, v, "'test.runner'", &t->runner, test_runner);
	}
	if ((v = wm_yaml_find(n, "tags")))
		test_list(l, v, "'test.tags'", &t->tags, test_tag);
	if (!t->command) {
		wm_schema_error(&l->c, n, "%s has no 'command': say how the tests run, such as 'pytest {project}/tests'",
			what);
		return;
	}
	*out = t;
}

/* A per-platform entry's keys: where the backend's jobs run there, and the build settings. */
static const char *per_platform_keys[16] = { "runner", "tags" };
static size_t nper_platform_keys;

const struct wm_names *wm_backends_per_platform_keys(void)
{
	static struct wm_names names;
	if (!nper_platform_keys) {
		nper_platform_keys = 2;
		for (size_t i = 0; i < wm_settings_keys.n && nper_platform_keys < WM_ARRAY_SIZE(per_platform_keys); i++)
			per_platform_keys[nper_platform_keys++] = wm_settings_keys.names[i];
	}
	names.names = per_platform_keys;
	names.n = nper_platform_keys;
	return &names;
}

/* A backend's `per-platform` mapping: patterns of the matrix's platforms to build settings. */
static void load_per_platform(struct wm_loader *l, struct wm_backend *b, const struct wm_node *n)
{
	struct wm_per_platform *pp;
	const struct wm_names *keys = wm_backends_per_platform_keys();
	if (n->type != WM_NODE_MAP) {
		wm_schema_error(&l->c, n, "'per-platform' must be a mapping of platform patterns to build settings, such "
			"as {\"macos-*\": {features: [metal]}}, not %s", wm_yaml_kind(n));
		return;
	}
	if (wm_loader_oom(l, pp = wm_arena_array(l->c.arena, n->n + 1, sizeof(*pp))))
		return;
	b->per_platform = pp;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *k = n->pairs[i].key, *v = n->pairs[i].value;
		char what[160];
		snprintf(what, sizeof(what), "backend '%s' on '%s'", b->id, k->text);
		if (l->platforms_ok && !wm_platforms_pattern(l, k, "platform pattern"))
			continue;
		if (wm_yaml_is_null(v) || (v->type == WM_NODE_MAP && v->n == 0)) {
			wm_schema_error(&l->c, k, "'%s' under 'per-platform' says nothing: give it build settings, or leave "
				"it out", k->text);
			continue;
		}
		if (!wm_schema_map(&l->c, v, "a per-platform entry", keys->names, keys->n))
			continue;
		bool runs_on = wm_platforms_load_runs_on(l, v, &pp[b->nper_platform].runs_on);
		pp[b->nper_platform].pattern = k->text;
		pp[b->nper_platform].loc = wm_loader_loc(l, k);
		pp[b->nper_platform].settings = wm_settings_load(l, v, WM_SETTINGS_PER_PLATFORM,
			wm_arena_strdup(l->c.arena, what), NULL, NULL, NULL, 0);
		if (pp[b->nper_platform].settings || runs_on)
			b->nper_platform++;
	}
}

static const char *const backend_keys[] = { "features", "platforms", "toolkit", "dist", "default", "env",
	"setup", "before-script-linux", "dependencies", "smoke", "variant", "test", "no-default-features", "profile",
	"rust-toolchain", "rustup-components", "unstable-flags", "zig", "docker-options", "per-platform", "runner",
	"tags" };
const struct wm_names wm_backends_keys = WM_NAMES(backend_keys);

static bool is_backend_key(const char *s)
{
	return wm_schema_is_one_of(s, backend_keys, WM_ARRAY_SIZE(backend_keys));
}

/*
 * A backend's key among the backends, with a value no backend has (a backend
 * `platforms` that is a list): a key of the backend above, indented too
 * little.  Says so, and returns true.
 */
static bool key_as_backend(struct wm_loader *l, size_t i, const struct wm_pair *pair)
{
	const struct wm_node *n = pair->value, *above = NULL;
	if (!is_backend_key(pair->key->text) || wm_yaml_is_null(n))
		return false;
	if (n->type == WM_NODE_MAP) {
		size_t k;
		for (k = 0; k < n->n && is_backend_key(n->pairs[k].key->text); k++)
			;
		if (k == n->n)
			return false;  /* a backend that happens to be called so */
	}
	while (i-- > 0 && !above)
		if (!is_backend_key(l->backend_nodes[i]->text))
			above = l->backend_nodes[i];
	if (above)
		wm_schema_error(&l->c, pair->key, "'%s' is a key of a backend, not a backend: is it indented too little? "
			"indent it under the backend it belongs to ('%s', line %u)", pair->key->text, above->text, above->line);
	else
		wm_schema_error(&l->c, pair->key, "'%s' is a key of a backend, not a backend: is it indented too little? "
			"a backend's keys go under its id (backends: {cuda: {%s: ...}})", pair->key->text, pair->key->text);
	return true;
}

/* A backend's id must be a name that fits job ids and import names; says so, with the fix when one is near. */
static void check_backend_id(struct wm_loader *l, const struct wm_pair *pair)
{
	const char *id = pair->key->text;
	char fixed[64];
	size_t k = 0;

	if (wm_name_backend_id(id))
		return;
	for (const char *p = id; *p && k < sizeof(fixed) - 1; p++)
		fixed[k++] = *p == '-' || *p == '.' ? '_' : (*p >= 'A' && *p <= 'Z' ? (char)(*p + 32) : *p);
	fixed[k] = '\0';
	if (strlen(id) < sizeof(fixed) && wm_name_backend_id(fixed))
		wm_schema_error(&l->c, pair->key, "invalid backend id '%s': a backend id is [a-z][a-z0-9_]* "
			"(it appears in job ids and import names) (did you mean '%s'?)", id, fixed);
	else
		wm_schema_error(&l->c, pair->key, "invalid backend id '%s': a backend id is [a-z][a-z0-9_]*, at "
			"most 32 characters (it appears in job ids and import names)", id);
	l->backends_ok = false;
}

/* A backend's `dist`: the distribution its wheels are published as. */
static void load_dist(struct wm_loader *l, struct wm_backend *b, size_t i, const struct wm_node *v)
{
	if (!wm_schema_string(&l->c, v, "'dist'", &b->dist))
		return;
	l->dist_nodes[i] = v;
	b->dist_explicit = true;
	if (!wm_name_distribution(b->dist)) {
		wm_schema_error(&l->c, v, "invalid distribution name '%s': PEP 508 names are letters, digits, "
			"'.', '-' and '_', beginning and ending with a letter or digit", b->dist);
		b->dist = NULL;
	}
}

/* A backend's `before-script-linux`: a script run in the build container, reading no untrusted context. */
static void load_before_script(struct wm_loader *l, struct wm_backend *b, const struct wm_node *v)
{
	struct wm_expr_fault f;

	if (wm_schema_string(&l->c, v, "'before-script-linux'", &b->before_script_linux) &&
			!wm_expr_check(v->text, wm_expr_setup_allowed, wm_expr_setup_nallowed, &f))
		wm_untrusted_expr_error(l, v, &f, "'before-script-linux'", "set the value in the backend's 'env:' and use "
			"the variable");
}

/*
 * Where a backend's wheels are imported after the build: by default where every toolkit it uses
 * imports without the hardware; `smoke:` says everywhere or nowhere; a bindings = "bin" project
 * has nothing to import.
 */
static void load_smoke(struct wm_loader *l, struct wm_backend *b, const struct wm_node *n)
{
	const struct wm_node *v = n ? wm_yaml_find(n, "smoke") : NULL;

	b->smoke_os = (1u << WM_OS_COUNT) - 1;
	for (size_t t = 0; t < b->ntoolkits; t++)
		b->smoke_os &= b->toolkits[t].toolkit->smoke_os;
	b->smoke = b->smoke_os != 0;
	if (v && wm_schema_bool(&l->c, v, "'smoke'", &b->smoke))
		b->smoke_os = b->smoke ? (1u << WM_OS_COUNT) - 1 : 0;
	if (wm_loader_bindings_bin(l)) {
		/* a program, not a module: nothing to import */
		if (b->smoke && v)
			wm_schema_error(&l->c, v, "a bindings = \"bin\" project has no module to import: 'smoke' must be false");
		b->smoke = false;
		b->smoke_os = 0;
	}
}

/* The keys of a backend's mapping n, each to its reader. */
static void load_backend_keys(struct wm_loader *l, struct wm_backend *b, size_t i, const struct wm_node *n)
{
	const struct wm_node *v;
	char *what;

	if ((v = wm_yaml_find(n, "features")))
		wm_settings_load_features(l, v, &b->features, &b->feature_locs);
	if ((v = wm_yaml_find(n, "platforms"))) {
		l->platforms_nodes[i] = v;
		load_backend_platforms(l, b, v);
	}
	load_toolkits(l, b, wm_yaml_find(n, "toolkit"));
	if ((v = wm_yaml_find(n, "dist")))
		load_dist(l, b, i, v);
	if ((v = wm_yaml_find(n, "default")))
		wm_schema_bool(&l->c, v, "'default'", &b->is_default);
	if ((v = wm_yaml_find(n, "env")))
		wm_untrusted_load_env(l, v, &b->env, &b->nenv);
	if ((v = wm_yaml_find(n, "setup")))
		load_setup(l, b, v);
	if ((v = wm_yaml_find(n, "before-script-linux")))
		load_before_script(l, b, v);
	if ((v = wm_yaml_find(n, "dependencies")))
		load_dependencies(l, b, v);
	if ((v = wm_yaml_find(n, "variant")))
		wm_variants_load_backend(l, b, v);
	what = wm_arena_printf(l->c.arena, "backend '%s'", b->id);
	if (!wm_loader_oom(l, what))
		b->settings = wm_settings_load(l, n, WM_SETTINGS_BACKEND, what, &b->features, b->feature_locs, b->env,
			b->nenv);
	if ((v = wm_yaml_find(n, "per-platform")))
		load_per_platform(l, b, v);
	wm_platforms_load_runs_on(l, n, &b->runs_on);
}

static void load_backend(struct wm_loader *l, size_t i, const struct wm_pair *pair)
{
	struct wm_backend *b = wm_arena_alloc(l->c.arena, sizeof(*b));
	const struct wm_node *n = pair->value, *v;
	const char *id = pair->key->text;

	if (wm_loader_oom(l, b))
		return;
	l->m->backends[i] = b;
	l->backend_nodes[i] = pair->key;
	b->id = id;
	b->index = i;
	b->loc = wm_loader_loc(l, pair->key);
	if (key_as_backend(l, i, pair) || wm_schema_missing_colon(&l->c, pair->key, n)) {
		l->backends_ok = false;
		return;
	}
	check_backend_id(l, pair);
	if (wm_yaml_is_null(n))
		n = NULL;
	if (n) {
		char what[64];
		snprintf(what, sizeof(what), "backend '%s'", id);
		if (!wm_schema_map(&l->c, n, what, backend_keys, WM_ARRAY_SIZE(backend_keys))) {
			l->backends_ok = false;
			n = NULL;
		}
	}
	if (n)
		load_backend_keys(l, b, i, n);
	else
		load_toolkits(l, b, NULL);
	b->test = l->m->test;
	if (n && (v = wm_yaml_find(n, "test")) && !wm_yaml_is_null(v))
		wm_backends_load_test(l, v, l->m->test, true, &b->test);
	load_smoke(l, b, n);
}

void wm_backends_load(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	size_t count = n && n->type == WM_NODE_MAP ? n->n : 1;

	l->backends_ok = true;
	m->backends = wm_arena_array(l->c.arena, count, sizeof(*m->backends));
	l->backend_nodes = wm_arena_array(l->c.arena, count, sizeof(*l->backend_nodes));
	l->dist_nodes = wm_arena_array(l->c.arena, count, sizeof(*l->dist_nodes));
	l->platforms_nodes = wm_arena_array(l->c.arena, count, sizeof(*l->platforms_nodes));
	l->variant_nodes = wm_arena_array(l->c.arena, count, sizeof(*l->variant_nodes));
	if (wm_loader_oom(l, m->backends) || wm_loader_oom(l, l->backend_nodes) || wm_loader_oom(l, l->dist_nodes) ||
			wm_loader_oom(l, l->platforms_nodes) || wm_loader_oom(l, l->variant_nodes))
		return;
	if (!n || wm_yaml_is_null(n)) {
		/* no backends: one plain build under the base name */
		struct wm_backend *b = wm_arena_alloc(l->c.arena, sizeof(*b));
		if (wm_loader_oom(l, b))
			return;
		b->id = "cpu";
		b->is_default = true;
		b->smoke = !wm_loader_bindings_bin(l);
		b->smoke_os = b->smoke ? (1u << WM_OS_COUNT) - 1 : 0;
		b->test = m->test;
		b->loc = wm_loader_loc(l, l->root);
		m->backends[m->nbackends++] = b;
		return;
	}
	if (n->type != WM_NODE_MAP) {
		wm_schema_error(&l->c, n, "'backends' must be a mapping of backend ids to settings, not %s", wm_yaml_kind(n));
		l->backends_ok = false;
		return;
	}
	if (n->n == 0) {
		wm_schema_error(&l->c, n, "'backends' is empty: omit it for a single plain build, or name the backends");
		l->backends_ok = false;
		return;
	}
	for (size_t i = 0; i < n->n; i++)
		load_backend(l, i, &n->pairs[i]);
	m->nbackends = n->n;
}

/* Where a backend is said to build on `p`: the first pattern of its `platforms:` matching it. */
static struct wm_loc backend_platform_loc(const struct wm_backend *b, const char *platform)
{
	for (size_t i = 0; i < b->platforms.n; i++)
		if (wm_text_glob_match(b->platforms.items[i], platform))
			return b->platform_locs[i];
	return b->loc;
}

/*
 * A version the toolkit has, on a platform it builds on, that the installer its recipe uses
 * there cannot install: said at the version, with the installer's releases of that version's
 * series and the toolkit's versions it does install.
 */
static void check_installer(struct wm_loader *l, const struct wm_backend *b, const struct wm_toolkit_use *u,
	const struct wm_platform *p)
{
	const struct wm_toolkit *tk = u->toolkit;
	const struct wm_toolkit_installer *in = &tk->installers[p->os];
	const char *full = wm_catalog_toolkit_full(tk, u->version);
	size_t series = strlen(u->version);
	struct wm_buf same = WM_BUF_INIT, versions = WM_BUF_INIT;

	for (size_t i = 0; i < in->versions.n; i++)
		if (strncmp(in->versions.items[i], u->version, series) == 0 && in->versions.items[i][series] == '.')
			wm_buf_printf(&same, "%s%s", same.len ? ", " : "", in->versions.items[i]);
	for (size_t i = 0; i < tk->versions.n; i++)
		if (wm_catalog_toolkit_installs(tk, p->os, tk->versions.items[i]))
			wm_buf_printf(&versions, "%s%s", versions.len ? ", " : "", tk->versions.items[i]);
	if (same.oom || versions.oom)
		wm_loader_oom(l, NULL);
	else
		wm_schema_error_at(&l->c, u->version_loc.line, u->version_loc.column, 1, "backend '%s' uses %s %s "
			"(%s), which %s %s, the installer on %s, cannot install: it has %s%s; of %s's versions it installs %s",
			b->id, tk->title, u->version, full, in->action, in->ref, p->id,
			same.len ? "" : "no ", same.len ? same.ptr : u->version, tk->title,
			versions.len ? versions.ptr : "none");
	wm_buf_release(&same);
	wm_buf_release(&versions);
}

/*
 * A manylinux2014 (glibc 2.17) build installs the toolkit from NVIDIA's rhel7 repository, which has
 * only the versions of the catalog's `el7-versions`.
 */
static bool check_el7(struct wm_loader *l, const struct wm_backend *b, const struct wm_toolkit_use *u,
	const struct wm_platform *p, struct wm_loc at)
{
	const struct wm_node *el7 = wm_yaml_find(u->toolkit->recipe, "el7-versions");
	struct wm_buf known = WM_BUF_INIT;
	if (!el7 || !u->version || p->os != WM_OS_LINUX || !p->manylinux ||
			(strcmp(p->manylinux, "2014") != 0 && strcmp(p->manylinux, "2_17") != 0))
		return true;
	for (size_t i = 0; i < el7->n; i++)
		if (strcmp(el7->items[i]->text, u->version) == 0)
			return true;
	for (size_t i = 0; i < el7->n; i++)
		wm_buf_printf(&known, "%s%s", i ? ", " : "", el7->items[i]->text);
	wm_schema_error_at(&l->c, u->implied ? at.line : u->loc.line, u->implied ? at.column : u->loc.column, 1,
		"backend '%s' uses %s %s on %s at manylinux level %s, whose images are EL7: NVIDIA's rhel7 "
		"repository has %s %s only; choose one of them, or level 2_28", b->id, u->toolkit->title, u->version,
		p->id, p->manylinux, u->toolkit->title, known.ptr ? known.ptr : "none");
	wm_buf_release(&known);
	return false;
}

bool wm_backends_check_toolkit_platform(struct wm_loader *l, const struct wm_backend *b, const struct wm_platform *p,
	struct wm_loc at)
{
	bool ok = true;
	for (size_t t = 0; t < b->ntoolkits; t++) {
		const struct wm_toolkit_use *u = &b->toolkits[t];
		const struct wm_toolkit *tk = u->toolkit;
		bool found = false;
		char implied[96] = "";
		for (size_t k = 0; k < tk->platforms.n && !found; k++)
			found = strcmp(tk->platforms.items[k], p->catalog_id) == 0;
		if (found && !wm_catalog_toolkit_installs(tk, p->os, u->version)) {
			check_installer(l, b, u, p);
			ok = false;
			continue;
		}
		if (found) {
			ok = check_el7(l, b, u, p, at) && ok;
			continue;
		}
		size_t feature = b->features.n;
		if (u->implied)
			for (size_t f = 0; f < b->features.n; f++)
				for (size_t k = 0; k < tk->features.n; k++)
					if (!implied[0] && strcmp(wm_name_feature_leaf(b->features.items[f]), tk->features.items[k]) == 0) {
						snprintf(implied, sizeof(implied), " (feature '%s')", b->features.items[f]);
						feature = f;
					}
		wm_schema_error_at(&l->c, at.line, at.column, 1, "backend '%s' uses %s%s, which cannot be built on %s: "
			"%s builds on %s only", b->id, tk->title, implied, p->id, tk->title, tk->platforms_text);
		if (feature < b->features.n && b->feature_locs)
			wm_schema_note_at(&l->c, b->feature_locs[feature].line, b->feature_locs[feature].column,
				(unsigned)strlen(b->features.items[feature]), "feature '%s' needs %s: build it on %s, or in a "
				"per-platform entry of the platforms %s builds on", b->features.items[feature], tk->title,
				tk->platforms_text, tk->title);
		ok = false;
	}
	return ok;
}

void wm_backends_check_toolkits(struct wm_loader *l)
{
	const struct wm_matrix *m = l->m;
	for (size_t i = 0; i < m->nbackends; i++) {
		const struct wm_backend *b = m->backends[i];
		for (size_t p = 0; p < m->nplatforms; p++)
			if (wm_loader_builds_on(b, m->platforms[p]->id))
				wm_backends_check_toolkit_platform(l, b, m->platforms[p], backend_platform_loc(b, m->platforms[p]->id));
	}
}

void wm_backends_check_defaults(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	for (size_t i = 0; i < m->nbackends; i++) {
		struct wm_backend *b = m->backends[i];
		if (!b->is_default)
			continue;
		if (m->default_backend) {
			wm_schema_error(&l->c, l->backend_nodes[i], "backends '%s' and '%s' are both 'default': at most "
				"one backend is the base build", m->default_backend->id, b->id);
			wm_schema_note(&l->c, l->backend_nodes[m->default_backend->index], "'%s' is the default here",
				m->default_backend->id);
			continue;
		}
		m->default_backend = b;
	}
}

/*
 * Strategy index: every backend keeps the project's name; with local labels,
 * each backend but the default builds <version>+<label>, the label being its
 * id as PEP 440 writes it (`_` becomes `.`).
 */
static void check_index_versions(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	for (size_t i = 0; i < m->nbackends; i++) {
		struct wm_backend *b = m->backends[i];
		char *label;
		if (b->dist_explicit) {
			if (b->dist)
				wm_schema_error(&l->c, l->dist_nodes[i], "under strategy 'index' every backend keeps the "
					"project's name '%s' and is told apart by its index: remove 'dist'", m->name);
			continue;
		}
		b->dist = m->name;
		if (!m->index_local || b->is_default)
			continue;
		if (wm_loader_oom(l, label = wm_arena_strdup(l->c.arena, b->id)))
			return;
		for (char *c = label; *c; c++)
			if (*c == '_')
				*c = '.';
		b->local = label;
	}
	if (m->index_local && !m->version && m->project)
		wm_schema_error_at(&l->c, m->index_loc.line, m->index_loc.column, 1, "local version labels need the "
			"project's version, and neither %s nor its Cargo.toml gives one: set [project].version, or "
			"'local: false'", m->project->py_path);
	if (m->index_local && m->version) {
		struct wm_buf v = WM_BUF_INIT;
		const char *why;
		if (wm_pep440(&v, m->version, &why) == WM_EINVALID)
			wm_schema_error_at(&l->c, m->index_loc.line, m->index_loc.column, 1, "local version labels need "
				"a PEP 440 version, and the project's '%s' is not one: %s", m->version, why);
		else if (v.oom)
			wm_loader_oom(l, NULL);
		else if (strchr(v.ptr, '+'))
			wm_schema_error_at(&l->c, m->index_loc.line, m->index_loc.column, 1, "the project's version '%s' "
				"has a local label already: a backend's label cannot be added ('local: false' keeps the "
				"version as it is)", m->version);
		wm_buf_release(&v);
	}
}

void wm_backends_check_distributions(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	struct wm_map seen;
	char *base_norm = NULL;

	if (m->strategy == WM_STRATEGY_INDEX) {
		check_index_versions(l);
		return;
	}
	if (m->strategy == WM_STRATEGY_VARIANTS)
		return;  /* variants.c: every backend keeps the project's name */
	for (size_t i = 0; i < m->nbackends; i++) {
		struct wm_backend *b = m->backends[i];
		const struct wm_node *at = l->dist_nodes[i];
		if (b->dist_explicit && !b->dist)
			continue;
		if (!b->dist_explicit)
			b->dist = b->is_default && m->strategy == WM_STRATEGY_RENAME ? m->name :
				wm_arena_printf(l->c.arena, "%s-%s", m->name, b->id);
		else if (b->is_default && m->strategy == WM_STRATEGY_RENAME && strcmp(b->dist, m->name) != 0)
			wm_schema_error(&l->c, at, "the default backend keeps the base name '%s' under strategy "
				"'rename': remove 'dist' or make another backend the default", m->name);
		wm_loader_oom(l, b->dist);
	}
	if (m->strategy == WM_STRATEGY_META && m->name) {
		base_norm = wm_arena_alloc(l->c.arena, strlen(m->name) + 1);
		if (wm_loader_oom(l, base_norm))
			return;
		wm_name_normalize(base_norm, m->name);
	}
	wm_map_init(&seen);
	for (size_t i = 0; i < m->nbackends; i++) {
		struct wm_backend *b = m->backends[i];
		const struct wm_node *at = l->dist_nodes[i] ? l->dist_nodes[i] : l->backend_nodes[i];
		const struct wm_backend *other;
		char *norm;
		if (!b->dist)
			continue;
		if ((norm = wm_arena_alloc(l->c.arena, strlen(b->dist) + 1)) == NULL) {
			wm_loader_oom(l, NULL);
			break;
		}
		wm_name_normalize(norm, b->dist);
		if (base_norm && strcmp(norm, base_norm) == 0) {
			wm_schema_error(&l->c, at, "distribution '%s' of backend '%s' collides with the meta package '%s' "
				"(both normalise to '%s'): under strategy 'meta' the base name belongs to the meta package",
				b->dist, b->id, m->name, norm);
			continue;
		}
		if ((other = wm_map_get(&seen, norm, strlen(norm))) != NULL) {
			wm_schema_error(&l->c, at, "distribution '%s' of backend '%s' collides with '%s' of backend '%s' "
				"(both normalise to '%s')", b->dist, b->id, other->dist, other->id, norm);
			wm_schema_note(&l->c, l->dist_nodes[other->index] ? l->dist_nodes[other->index] :
				l->backend_nodes[other->index], "backend '%s' is defined here", other->id);
			continue;
		}
		if (wm_map_put(&seen, norm, strlen(norm), b) < 0)
			wm_loader_oom(l, NULL);
	}
	wm_map_release(&seen);
}

/*
 * Where a backend's jobs run on a platform: its per-platform entries' runner and tags (the last
 * entry that matches and says), else its own, else the platform's.  A backend's own runner label
 * names one OS's runner: on platforms of more than one OS it is an error, which per-platform says.
 */
static struct wm_runs_on backend_runs_on(const struct wm_backend *b, const struct wm_platform *p)
{
	struct wm_runs_on r = b->runs_on;
	for (size_t i = 0; i < b->nper_platform; i++) {
		const struct wm_runs_on *e = &b->per_platform[i].runs_on;
		if (!wm_text_glob_match(b->per_platform[i].pattern, p->id))
			continue;
		if (e->runner) {
			r.runner = e->runner;
			r.runner_loc = e->runner_loc;
		}
		if (e->tags_given) {
			r.tags = e->tags;
			r.tags_given = true;
			r.tags_loc = e->tags_loc;
		}
	}
	return r;
}

static bool builds_on(const struct wm_backend *b, const struct wm_platform *p)
{
	if (!b->platforms.n)
		return true;
	for (size_t i = 0; i < b->platforms.n; i++)
		if (wm_text_glob_match(b->platforms.items[i], p->id))
			return true;
	return false;
}

void wm_backends_runs_on(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	const struct wm_platform **cells = NULL;
	for (size_t b = 0; b < m->nbackends; b++) {
		const struct wm_backend *be = m->backends[b];
		int os = -1;
		const char *first = NULL;
		for (size_t p = 0; p < m->nplatforms; p++) {
			const struct wm_platform *pl = m->platforms[p];
			struct wm_runs_on r;
			if (!builds_on(be, pl))
				continue;
			r = backend_runs_on(be, pl);
			if (be->runs_on.runner && r.runner == be->runs_on.runner) {
				/* Pyodide's builds run on Linux runners */
				enum wm_os runner_os = pl->os == WM_OS_EMSCRIPTEN ? WM_OS_LINUX : pl->os;
				if (os >= 0 && (enum wm_os)os != runner_os) {
					wm_schema_error_at(&l->c, be->runs_on.runner_loc.line, be->runs_on.runner_loc.column,
						(unsigned)strlen(be->runs_on.runner), "backend '%s' runs on '%s' on every platform it "
						"builds on, which are of more than one OS (%s and %s): a runner label is one OS's; give "
						"each OS's platforms their runner under 'per-platform' instead", be->id,
						be->runs_on.runner, first, pl->id);
					os = -2;
				} else if (os == -1) {
					os = (int)runner_os;
					first = pl->id;
				}
			}
			if (!r.runner && !r.tags_given)
				continue;
			if (!cells && wm_loader_oom(l, cells = wm_arena_array(l->c.arena, m->nbackends * m->nplatforms + 1,
					sizeof(*cells))))
				return;
			cells[b * m->nplatforms + p] = wm_platforms_runs_on(l, pl, &r);
		}
	}
	m->runs_on = cells;
}
