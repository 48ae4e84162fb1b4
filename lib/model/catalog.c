/* catalog.c — the platform and toolkit catalogs, read from the YAML compiled in from templates/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "util/map.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/schema.h"

struct wm_catalog {
	struct wm_arena arena;
	struct wm_platform *platforms;
	size_t nplatforms;
	struct wm_toolkit *toolkits;
	size_t ntoolkits;
	struct wm_map by_id;       /* platform id -> platform */
	struct wm_map toolkit_by_id;
	const char **ids;          /* platform ids, for suggestions */
	const char **alias_names;  /* every alias ... */
	const char **alias_ids;    /* ... and the id it stands for */
	size_t naliases;
	const char **toolkit_ids;
	const struct wm_node *actions, *tools, *releases;
	const char **action_names;
	size_t nactions;
	struct wm_doc docs[3];     /* the parsed catalogs: entries point into them */
};

static const char *const os_names[WM_OS_COUNT] = { "linux", "macos", "windows" };

const char *wm_catalog_os_name(enum wm_os os)
{
	return (unsigned)os < WM_ARRAY_SIZE(os_names) ? os_names[os] : "?";
}

static bool parse_os(const char *s, enum wm_os *out)
{
	for (int os = 0; os < WM_OS_COUNT; os++)
		if (strcmp(s, wm_catalog_os_name((enum wm_os)os)) == 0) {
			*out = (enum wm_os)os;
			return true;
		}
	return false;
}

/* Reads a required string key of a catalog entry. */
static const char *need(struct wm_schema *c, const struct wm_node *entry, const char *key)
{
	const struct wm_node *v = wm_yaml_find(entry, key);
	const char *s = NULL;
	if (!v) {
		wm_schema_error(c, entry, "catalog entry lacks '%s'", key);
		return NULL;
	}
	wm_schema_string(c, v, key, &s);
	return s;
}

static const char *opt_string(struct wm_schema *c, const struct wm_node *entry, const char *key)
{
	const struct wm_node *v = wm_yaml_find(entry, key);
	const char *s = NULL;
	if (v)
		wm_schema_string(c, v, key, &s);
	return s;
}

static bool opt_bool(struct wm_schema *c, const struct wm_node *entry, const char *key, bool dflt)
{
	const struct wm_node *v = wm_yaml_find(entry, key);
	bool b = dflt;
	if (v)
		wm_schema_bool(c, v, key, &b);
	return b;
}

static void opt_list(struct wm_schema *c, const struct wm_node *entry, const char *key, struct wm_strlist *out)
{
	const struct wm_node *v = wm_yaml_find(entry, key);
	memset(out, 0, sizeof(*out));
	if (v)
		wm_schema_strlist(c, v, key, out, NULL);
}

static void read_platform(struct wm_catalog *cat, struct wm_schema *c, const struct wm_pair *pair,
	struct wm_platform *p)
{
	static const char *const keys[] = { "os", "arch", "family", "wheel-arch", "wheel-tag", "target",
		"manylinux", "runner", "cross", "container", "python-min", "python-min-why", "gitlab", "aliases" };
	static const char *const gitlab_keys[] = { "tags", "image", "hosted", "cross" };
	const struct wm_node *e = pair->value, *gl;
	const char *os, *why;

	p->id = pair->key->text;
	p->loc = wm_schema_loc(c, pair->key);
	if (!wm_schema_map(c, e, "a platform entry", keys, WM_ARRAY_SIZE(keys)))
		return;
	os = need(c, e, "os");
	if (os && !parse_os(os, &p->os))
		wm_schema_error(c, wm_yaml_find(e, "os"), "unknown os '%s'", os);
	p->arch = need(c, e, "arch");
	p->family = need(c, e, "family");
	p->target = need(c, e, "target");
	p->runner = need(c, e, "runner");
	p->container = opt_string(c, e, "container");
	p->cross = opt_bool(c, e, "cross", false);
	{
		const char *min = opt_string(c, e, "python-min");
		if (min && (strncmp(min, "3.", 2) != 0 || (p->python_min = (unsigned)atoi(min + 2)) == 0))
			wm_schema_error(c, wm_yaml_find(e, "python-min"), "'python-min' is a version such as \"3.11\"");
		p->python_min_why = opt_string(c, e, "python-min-why");
	}
	if (p->os == WM_OS_LINUX) {
		p->wheel_arch = need(c, e, "wheel-arch");
		p->manylinux = need(c, e, "manylinux");
		if (p->manylinux && !wm_catalog_level_valid(p, p->manylinux, &why))
			wm_schema_error(c, wm_yaml_find(e, "manylinux"), "%s", why);
	} else {
		p->platform_tag = need(c, e, "wheel-tag");
	}
	if (p->family && p->wheel_arch && p->manylinux)
		p->platform_tag = wm_catalog_platform_tag(&cat->arena, p);
	gl = wm_yaml_find(e, "gitlab");
	p->gitlab_hosted = true;
	if (gl && wm_schema_map(c, gl, "'gitlab'", gitlab_keys, WM_ARRAY_SIZE(gitlab_keys))) {
		p->gitlab_image = opt_string(c, gl, "image");
		opt_list(c, gl, "tags", &p->gitlab_tags);
		p->gitlab_hosted = opt_bool(c, gl, "hosted", true);
		p->gitlab_cross = opt_bool(c, gl, "cross", p->cross);
	}
}

/*
 * `smoke`: true, false, or the operating systems where the module imports
 * without the hardware.  An OS whose repair leaves libraries out needs
 * `smoke-libraries` there: the directories the build takes them from for the
 * import test (a driver stub among them).
 */
static void read_smoke(struct wm_schema *c, const struct wm_node *e, struct wm_toolkit *t)
{
	const struct wm_node *v = wm_yaml_find(e, "smoke"), *libs = wm_yaml_find(e, "smoke-libraries");
	const struct wm_node *exclude = wm_yaml_find(e, "repair-exclude");
	bool all = false;

	t->smoke_os = 0;
	if (v && v->type == WM_NODE_SEQ) {
		for (size_t i = 0; i < v->n; i++) {
			enum wm_os os;
			if (v->items[i]->type != WM_NODE_SCALAR || !parse_os(v->items[i]->text, &os))
				wm_schema_error(c, v->items[i], "'smoke' lists operating systems: linux, macos, windows");
			else
				t->smoke_os |= 1u << os;
		}
	} else if (v && wm_schema_bool(c, v, "smoke", &all) && all) {
		t->smoke_os = (1u << WM_OS_COUNT) - 1;
	}
	for (int os = 0; os < WM_OS_COUNT; os++) {
		const char *name = wm_catalog_os_name((enum wm_os)os);
		if ((t->smoke_os >> os & 1) && wm_yaml_find(exclude, name) && !wm_yaml_find(libs, name))
			wm_schema_error(c, v, "toolkit '%s' is import-tested on %s, where its wheels leave libraries out, "
				"but has no 'smoke-libraries' for %s", t->id, name, name);
	}
	if (libs && wm_schema_map(c, libs, "'smoke-libraries'", os_names, WM_OS_COUNT))
		for (size_t i = 0; i < libs->n; i++) {
			enum wm_os os;
			struct wm_strlist dirs;
			if (parse_os(libs->pairs[i].key->text, &os) &&
					wm_schema_strlist(c, libs->pairs[i].value, "'smoke-libraries'", &dirs, NULL) &&
					!(t->smoke_os >> os & 1))
				wm_schema_error(c, libs->pairs[i].key, "toolkit '%s' has 'smoke-libraries' for %s but is not "
					"import-tested there ('smoke')", t->id, libs->pairs[i].key->text);
		}
}

static void read_toolkit(struct wm_schema *c, const struct wm_pair *pair, struct wm_toolkit *t)
{
	static const char *const keys[] = { "title", "versions", "default", "platforms", "platforms-text",
		"features", "smoke", "smoke-libraries", "installable", "full-versions", "repair-exclude", "github",
		"gitlab" };
	const struct wm_node *e = pair->value;
	t->id = pair->key->text;
	t->recipe = e;
	if (!wm_schema_map(c, e, "a toolkit entry", keys, WM_ARRAY_SIZE(keys)))
		return;
	t->title = need(c, e, "title");
	opt_list(c, e, "versions", &t->versions);
	t->default_version = opt_string(c, e, "default");
	opt_list(c, e, "platforms", &t->platforms);
	t->platforms_text = need(c, e, "platforms-text");
	opt_list(c, e, "features", &t->features);
	read_smoke(c, e, t);
	t->installable = opt_bool(c, e, "installable", true);
	if (t->versions.n && !t->default_version)
		wm_schema_error(c, e, "toolkit '%s' has versions but no default", t->id);
}

/*
 * The YAML templates were parsed when the program was built, by the same
 * reader (templates/yamltree.c): `doc` gets that tree, read-only, and the
 * text for diagnostics, without parsing it again at every start.
 */
int wm_catalog_template_parse(struct wm_doc *doc, const char *name, struct wm_error *err)
{
	static const struct wm_yaml_limits limits = WM_TEMPLATE_LIMITS;
	const struct wm_template *t = wm_template_get(name);
	const struct wm_template_tree *tree = wm_template_tree(name);
	char path[64];
	snprintf(path, sizeof(path), "templates/%s", name);
	if (!t) {
		wm_error_add(err, WM_EINTERNAL, WM_SEV_ERROR, path, NULL, 0, 0, 0, 0, "not compiled in");
		return WM_EINTERNAL;
	}
	if (!tree)
		return wm_yaml_parse(doc, path, t->data, t->len, &limits, err);
	memset(doc, 0, sizeof(*doc));
	wm_arena_init(&doc->arena);
	doc->file = tree->file;
	doc->text = t->data;
	doc->len = t->len;
	doc->root = tree->root;
	return 0;
}

static int load_platforms(struct wm_catalog *cat, struct wm_doc *doc, struct wm_error *err)
{
	struct wm_schema c = { doc, err, &cat->arena };
	const struct wm_node *root = doc->root;
	size_t nalias = 0;
	if (!root || root->type != WM_NODE_MAP) {
		wm_error_add(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, NULL, 0, 0, 0, 0, "not a mapping");
		return WM_EINTERNAL;
	}
	cat->nplatforms = root->n;
	cat->platforms = wm_arena_array(&cat->arena, root->n, sizeof(*cat->platforms));
	cat->ids = wm_arena_array(&cat->arena, root->n, sizeof(*cat->ids));
	for (size_t i = 0; i < root->n; i++) {
		const struct wm_node *a = wm_yaml_find(root->pairs[i].value, "aliases");
		nalias += a && a->type == WM_NODE_SEQ ? a->n : 0;
	}
	cat->alias_names = wm_arena_array(&cat->arena, nalias + 1, sizeof(char *));
	cat->alias_ids = wm_arena_array(&cat->arena, nalias + 1, sizeof(char *));
	if (!cat->platforms || !cat->ids || !cat->alias_names || !cat->alias_ids)
		return WM_ENOMEM;
	for (size_t i = 0; i < root->n; i++) {
		struct wm_platform *p = &cat->platforms[i];
		struct wm_strlist aliases;
		read_platform(cat, &c, &root->pairs[i], p);
		cat->ids[i] = p->id;
		if (wm_map_put(&cat->by_id, p->id, strlen(p->id), p) < 0)
			return WM_ENOMEM;
		opt_list(&c, root->pairs[i].value, "aliases", &aliases);
		for (size_t j = 0; j < aliases.n; j++) {
			cat->alias_names[cat->naliases] = aliases.items[j];
			cat->alias_ids[cat->naliases++] = p->id;
		}
	}
	return err->code;
}

static int load_toolkits(struct wm_catalog *cat, struct wm_doc *doc, struct wm_error *err)
{
	struct wm_schema c = { doc, err, &cat->arena };
	const struct wm_node *root = doc->root;
	if (!root || root->type != WM_NODE_MAP) {
		wm_error_add(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, NULL, 0, 0, 0, 0, "not a mapping");
		return WM_EINTERNAL;
	}
	cat->ntoolkits = root->n;
	cat->toolkits = wm_arena_array(&cat->arena, root->n, sizeof(*cat->toolkits));
	cat->toolkit_ids = wm_arena_array(&cat->arena, root->n, sizeof(char *));
	if (!cat->toolkits || !cat->toolkit_ids)
		return WM_ENOMEM;
	for (size_t i = 0; i < root->n; i++) {
		struct wm_toolkit *t = &cat->toolkits[i];
		read_toolkit(&c, &root->pairs[i], t);
		cat->toolkit_ids[i] = t->id;
		for (size_t j = 0; j < t->platforms.n; j++)
			if (!wm_map_get(&cat->by_id, t->platforms.items[j], strlen(t->platforms.items[j])))
				wm_schema_error(&c, root->pairs[i].value, "toolkit '%s' names unknown platform '%s'",
					t->id, t->platforms.items[j]);
		if (wm_map_put(&cat->toolkit_by_id, t->id, strlen(t->id), t) < 0)
			return WM_ENOMEM;
	}
	return err->code;
}

static int load_actions(struct wm_catalog *cat, struct wm_doc *doc, struct wm_error *err)
{
	static const char *const keys[] = { "actions", "tools", "releases" };
	struct wm_schema c = { doc, err, &cat->arena };
	const struct wm_node *root = doc->root;
	if (!root || !wm_schema_map(&c, root, "the actions table", keys, WM_ARRAY_SIZE(keys)) ||
			!(cat->actions = wm_yaml_find(root, "actions")) || cat->actions->type != WM_NODE_MAP ||
			!(cat->tools = wm_yaml_find(root, "tools")) || cat->tools->type != WM_NODE_MAP ||
			!(cat->releases = wm_yaml_find(root, "releases")) || cat->releases->type != WM_NODE_MAP) {
		wm_error_add(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, NULL, 0, 0, 0, 0, "malformed actions table");
		return WM_EINTERNAL;
	}
	cat->action_names = wm_arena_array(&cat->arena, cat->actions->n + 1, sizeof(char *));
	if (!cat->action_names)
		return WM_ENOMEM;
	for (size_t i = 0; i < cat->actions->n; i++) {
		const char *ref;
		if (!wm_schema_string(&c, cat->actions->pairs[i].value, "an action reference", &ref))
			return WM_EINTERNAL;
		cat->action_names[cat->nactions++] = cat->actions->pairs[i].key->text;
	}
	return err->code;
}

const char *wm_catalog_action(const struct wm_catalog *cat, const char *name)
{
	const struct wm_node *v = wm_yaml_find(cat->actions, name);
	return v ? v->text : NULL;
}

size_t wm_catalog_action_count(const struct wm_catalog *cat)
{
	return cat->nactions;
}

const char *wm_catalog_action_name(const struct wm_catalog *cat, size_t i)
{
	return i < cat->nactions ? cat->action_names[i] : NULL;
}

const char *wm_catalog_suggest_action(const struct wm_catalog *cat, const char *word)
{
	return wm_text_suggest(word, cat->action_names, cat->nactions);
}

const char *wm_catalog_tool(const struct wm_catalog *cat, const char *name)
{
	const struct wm_node *v = wm_yaml_find(cat->tools, name);
	return v ? v->text : NULL;
}

const struct wm_node *wm_catalog_releases(const struct wm_catalog *cat, const char *name)
{
	const struct wm_node *v = wm_yaml_find(cat->releases, name);
	return v && v->type == WM_NODE_SEQ ? v : NULL;
}

int wm_catalog_load(struct wm_catalog **out, struct wm_error *err)
{
	struct wm_catalog *cat = calloc(1, sizeof(*cat));
	int ret;

	*out = NULL;
	if (!cat) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
	wm_arena_init(&cat->arena);
	wm_map_init(&cat->by_id);
	wm_map_init(&cat->toolkit_by_id);
	if ((ret = wm_catalog_template_parse(&cat->docs[0], "platforms.yaml", err)) < 0 ||
	    (ret = load_platforms(cat, &cat->docs[0], err)) < 0 ||
	    (ret = wm_catalog_template_parse(&cat->docs[1], "toolkits.yaml", err)) < 0 ||
	    (ret = load_toolkits(cat, &cat->docs[1], err)) < 0 ||
	    (ret = wm_catalog_template_parse(&cat->docs[2], "actions.yaml", err)) < 0 ||
	    (ret = load_actions(cat, &cat->docs[2], err)) < 0) {
		wm_error_code(err, ret);
		wm_catalog_free(cat);
		return ret;
	}
	*out = cat;
	return 0;
}

void wm_catalog_free(struct wm_catalog *cat)
{
	if (!cat)
		return;
	wm_yaml_release(&cat->docs[0]);
	wm_yaml_release(&cat->docs[1]);
	wm_yaml_release(&cat->docs[2]);
	wm_map_release(&cat->by_id);
	wm_map_release(&cat->toolkit_by_id);
	wm_arena_release(&cat->arena);
	free(cat);
}

size_t wm_catalog_platform_count(const struct wm_catalog *cat)
{
	return cat->nplatforms;
}

const struct wm_platform *wm_catalog_platform_at(const struct wm_catalog *cat, size_t i)
{
	return i < cat->nplatforms ? &cat->platforms[i] : NULL;
}

const struct wm_platform *wm_catalog_platform(const struct wm_catalog *cat, const char *id)
{
	return wm_map_get(&cat->by_id, id, strlen(id));
}

size_t wm_catalog_toolkit_count(const struct wm_catalog *cat)
{
	return cat->ntoolkits;
}

const struct wm_toolkit *wm_catalog_toolkit_at(const struct wm_catalog *cat, size_t i)
{
	return i < cat->ntoolkits ? &cat->toolkits[i] : NULL;
}

const struct wm_toolkit *wm_catalog_toolkit(const struct wm_catalog *cat, const char *id)
{
	return wm_map_get(&cat->toolkit_by_id, id, strlen(id));
}

const char *wm_catalog_suggest_platform(const struct wm_catalog *cat, const char *word)
{
	const char *s;
	for (size_t i = 0; i < cat->naliases; i++)
		if (strcmp(word, cat->alias_names[i]) == 0)
			return cat->alias_ids[i];
	if ((s = wm_text_suggest(word, cat->ids, cat->nplatforms)) != NULL)
		return s;
	s = wm_text_suggest(word, cat->alias_names, cat->naliases);
	for (size_t i = 0; s && i < cat->naliases; i++)
		if (cat->alias_names[i] == s)
			return cat->alias_ids[i];
	return NULL;
}

const char *wm_catalog_suggest_toolkit(const struct wm_catalog *cat, const char *word)
{
	return wm_text_suggest(word, cat->toolkit_ids, cat->ntoolkits);
}

/* PEP 600 form of a manylinux level: the legacy names 2014, 2010 and 1 are glibc 2.17, 2.12 and 2.5. */
static const char *pep600(const char *level)
{
	if (strcmp(level, "2014") == 0)
		return "2_17";
	if (strcmp(level, "2010") == 0)
		return "2_12";
	if (strcmp(level, "1") == 0)
		return "2_5";
	return level;
}

static bool two_numbers(const char *s, unsigned *major, unsigned *minor)
{
	char *end;
	unsigned long a, b;
	if (!(*s >= '0' && *s <= '9'))
		return false;
	a = strtoul(s, &end, 10);
	if (*end != '_' || !(end[1] >= '0' && end[1] <= '9'))
		return false;
	b = strtoul(end + 1, &end, 10);
	if (*end || a > 99 || b > 99)
		return false;
	*major = (unsigned)a;
	*minor = (unsigned)b;
	return true;
}

bool wm_catalog_level_valid(const struct wm_platform *p, const char *level, const char **why)
{
	unsigned major, minor;
	if (p->os != WM_OS_LINUX) {
		*why = "'manylinux' applies to Linux platforms only";
		return false;
	}
	if (strcmp(p->family, "musllinux") == 0) {
		if (two_numbers(level, &major, &minor) && major == 1 && minor >= 1)
			return true;
		*why = "a musllinux level is 1_1 or 1_2 (musl 1.1 or 1.2)";
		return false;
	}
	if (two_numbers(pep600(level), &major, &minor) && major == 2 && minor >= 17)
		return true;
	*why = "a manylinux level is 2_17 or later (2014, 2_28, 2_34, ...): Rust needs glibc 2.17";
	return false;
}

const char *wm_catalog_platform_tag(struct wm_arena *a, const struct wm_platform *p)
{
	if (!p->manylinux || !p->wheel_arch)
		return p->platform_tag;
	return wm_arena_printf(a, "%s_%s_%s", p->family, pep600(p->manylinux), p->wheel_arch);
}
