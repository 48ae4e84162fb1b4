/* catalog.c — the platform, toolkit and runner catalogs, read from the YAML compiled in from templates/. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "util/map.h"
#include "util/name.h"
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
	const struct wm_node *actions, *tools, *releases, *runtimes, *node_runtimes;
	const char **action_names;
	size_t nactions;
	struct wm_pyo3 *pyo3;      /* templates/pyo3.yaml, newest first */
	size_t npyo3;
	struct wm_cpython *cpython; /* its `cpython` table, in its order */
	size_t ncpython;
	struct wm_runner *runners; /* templates/runners.yaml, in its order */
	size_t nrunners;
	long today;                /* days since 1970-01-01, or 0: retirements are not checked */
	const char *pypy_api[2][100]; /* templates/interpreters.yaml: [installed][3.N's N] */
	const char *graalpy[100];  /* templates/interpreters.yaml: the GraalPy release of 3.N ("25.0") */
	bool graalpy_macos_x86_64[100];  /* templates/interpreters.yaml: a GraalPy 3.N for macOS x86_64 */
	const char *graalpy_macos_x86_64_why;  /* where that list ends: "GraalPy for macOS x86_64 ends with ..." */
	struct wm_doc docs[6];     /* the parsed catalogs: entries point into them */
};

static const char *const os_names[WM_OS_COUNT] = { "linux", "macos", "windows", "emscripten" };

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

/*
 * An Emscripten platform's Pyodide release: `pyodide: {release, python, abi-version, emscripten,
 * rust-toolchain}`, each a plain version (the PyEmscripten platform version two numbers joined by
 * '_', as in its tag).
 */
static void read_pyodide(struct wm_arena *a, struct wm_schema *c, const struct wm_node *e, struct wm_platform *p)
{
	static const char *const keys[] = { "release", "python", "abi-version", "emscripten", "rust-toolchain" };
	const struct wm_node *n = wm_yaml_find(e, "pyodide");
	const char *py, *abi;
	size_t year;
	if (!n) {
		wm_schema_error(c, e, "catalog entry lacks 'pyodide'");
		return;
	}
	if (!wm_schema_map(c, n, "'pyodide'", keys, WM_ARRAY_SIZE(keys)))
		return;
	p->pyodide = need(c, n, "release");
	py = p->pyodide_python = need(c, n, "python");
	p->pyodide_abi = need(c, n, "abi-version");
	p->emscripten = need(c, n, "emscripten");
	p->pyodide_rust = need(c, n, "rust-toolchain");
	if (py && (strncmp(py, "3.", 2) != 0 || (p->pyodide_minor = (unsigned)atoi(py + 2)) == 0))
		wm_schema_error(c, wm_yaml_find(n, "python"), "'python' is a CPython version such as \"3.14.2\"");
	else if (py) {
		p->pyodide_interpreter = wm_arena_printf(a, "python3.%u", p->pyodide_minor);
		p->pyodide_python_tag = wm_arena_printf(a, "cp3%u", p->pyodide_minor);
	}
	/* PEP 783's pyemscripten_[0-9]+_[0-9]+_wasm32 */
	abi = p->pyodide_abi;
	year = abi ? strspn(abi, "0123456789") : 0;
	if (abi && (year == 0 || abi[year] != '_' || abi[year + 1] == '\0' ||
			strspn(abi + year + 1, "0123456789") != strlen(abi + year + 1)))
		wm_schema_error(c, wm_yaml_find(n, "abi-version"), "'abi-version' is a PyEmscripten platform version such as \"2026_0\"");
}

static void read_platform(struct wm_catalog *cat, struct wm_schema *c, const struct wm_pair *pair,
	struct wm_platform *p)
{
	static const char *const keys[] = { "os", "arch", "family", "wheel-arch", "wheel-tag", "target",
		"manylinux", "deployment-target", "deployment-target-arm64", "runner", "cross", "container", "python-min",
		"python-min-why", "gitlab", "aliases", "pyodide" };
	static const char *const gitlab_keys[] = { "tags", "image", "hosted", "cross" };
	const struct wm_node *e = pair->value, *gl;
	const char *os, *why;

	p->id = p->catalog_id = pair->key->text;
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
	} else if (p->os == WM_OS_MACOS) {
		unsigned major, minor;
		p->deployment_default = need(c, e, "deployment-target");
		p->deployment_arm64 = opt_string(c, e, "deployment-target-arm64");
		if (p->deployment_default && !wm_catalog_macos_version(p->deployment_default, &major, &minor))
			wm_schema_error(c, wm_yaml_find(e, "deployment-target"), "a macOS version such as \"11.0\"");
	} else if (p->os == WM_OS_EMSCRIPTEN) {
		read_pyodide(&cat->arena, c, e, p);
		if (p->pyodide_abi)
			p->platform_tag = wm_catalog_platform_tag(&cat->arena, p);
	} else {
		p->platform_tag = need(c, e, "wheel-tag");
	}
	if ((p->family && p->wheel_arch && p->manylinux) || p->deployment_default)
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

/* `installers`: per OS, the installer's action, its pinned ref and the full releases it lists. */
static void read_installers(struct wm_schema *c, const struct wm_node *n, struct wm_toolkit *t)
{
	static const char *const oses[] = { "linux", "macos", "windows" };
	static const char *const keys[] = { "action", "ref", "versions" };
	if (!wm_schema_map(c, n, "'installers'", oses, WM_ARRAY_SIZE(oses)))
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *e = n->pairs[i].value;
		struct wm_toolkit_installer *in;
		enum wm_os os;
		if (!parse_os(n->pairs[i].key->text, &os) ||
				!wm_schema_map(c, e, "an installer", keys, WM_ARRAY_SIZE(keys)))
			continue;
		in = &t->installers[os];
		in->action = need(c, e, "action");
		in->ref = need(c, e, "ref");
		opt_list(c, e, "versions", &in->versions);
		if (in->versions.n == 0)
			wm_schema_error(c, e, "installer '%s' lists no versions", in->action ? in->action : "?");
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
		"features", "smoke", "smoke-libraries", "installable", "full-versions", "installers", "repair-exclude",
		"packages", "images", "el7-versions", "archs", "github", "gitlab" };
	const struct wm_node *in;
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
	if ((in = wm_yaml_find(e, "installers")) != NULL)
		read_installers(c, in, t);
}

const char *wm_catalog_toolkit_full(const struct wm_toolkit *t, const char *version)
{
	const struct wm_node *full = wm_yaml_find(t->recipe, "full-versions");
	const struct wm_node *v = full && full->type == WM_NODE_MAP ? wm_yaml_find(full, version) : NULL;
	return v && v->type == WM_NODE_SCALAR ? v->text : version;
}

bool wm_catalog_toolkit_installs(const struct wm_toolkit *t, enum wm_os os, const char *version)
{
	const struct wm_toolkit_installer *in = (unsigned)os < WM_OS_COUNT ? &t->installers[os] : NULL;
	const char *full;
	if (!in || !in->versions.n || !version)
		return true;
	full = wm_catalog_toolkit_full(t, version);
	for (size_t i = 0; i < in->versions.n; i++)
		if (strcmp(in->versions.items[i], full) == 0)
			return true;
	return false;
}

/*
 * An installer's list is true of the release it was read from: the ref must be
 * the one actions.yaml pins, and the toolkit's default must be in every list,
 * since a backend that names no version gets it on every platform.
 */
static int check_installers(struct wm_catalog *cat, struct wm_error *err)
{
	struct wm_schema c = { &cat->docs[1], err, &cat->arena };
	for (size_t i = 0; i < cat->ntoolkits; i++) {
		const struct wm_toolkit *t = &cat->toolkits[i];
		const struct wm_node *e = cat->docs[1].root->pairs[i].value, *ins = wm_yaml_find(e, "installers");
		for (int os = 0; os < WM_OS_COUNT; os++) {
			const struct wm_toolkit_installer *in = &t->installers[os];
			const char *pin;
			if (!in->action || !in->ref)
				continue;
			pin = wm_catalog_action(cat, in->action);
			if (!pin || strcmp(pin, in->ref) != 0)
				wm_schema_error(&c, ins, "toolkit '%s': the %s installer's list was read from %s %s, but "
					"templates/actions.yaml pins %s: read the list of that release again", t->id,
					wm_catalog_os_name((enum wm_os)os), in->action, in->ref, pin ? pin : "nothing");
			if (t->default_version && !wm_catalog_toolkit_installs(t, (enum wm_os)os, t->default_version))
				wm_schema_error(&c, ins, "toolkit '%s': the default %s (%s) is not in the %s installer's list",
					t->id, t->default_version, wm_catalog_toolkit_full(t, t->default_version),
					wm_catalog_os_name((enum wm_os)os));
		}
	}
	return err->code;
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
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, path, "not compiled in");
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
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, "not a mapping");
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
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, "not a mapping");
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
	static const char *const keys[] = { "actions", "tools", "releases", "node-runtimes", "runtimes" };
	struct wm_schema c = { doc, err, &cat->arena };
	const struct wm_node *root = doc->root;
	if (!root || !wm_schema_map(&c, root, "the actions table", keys, WM_ARRAY_SIZE(keys)) ||
			!(cat->actions = wm_yaml_find(root, "actions")) || cat->actions->type != WM_NODE_MAP ||
			!(cat->tools = wm_yaml_find(root, "tools")) || cat->tools->type != WM_NODE_MAP ||
			!(cat->releases = wm_yaml_find(root, "releases")) || cat->releases->type != WM_NODE_MAP) {
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, "malformed actions table");
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
	cat->runtimes = wm_yaml_find(root, "runtimes");
	cat->node_runtimes = wm_yaml_find(root, "node-runtimes");
	if (!cat->runtimes || cat->runtimes->type != WM_NODE_MAP || !cat->node_runtimes ||
			cat->node_runtimes->type != WM_NODE_SEQ) {
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, "malformed actions table: "
			"no runtimes or node-runtimes");
		return WM_EINTERNAL;
	}
	/* every action the workflow uses by default runs on a runtime the runners have */
	for (size_t i = 0; i < cat->nactions; i++) {
		const char *name = cat->action_names[i], *ref = wm_catalog_action(cat, name), *why = NULL;
		if (!wm_catalog_action_runtime(cat, &cat->arena, name, ref, &why))
			wm_schema_error(&c, cat->actions->pairs[i].value, "action %s@%s has no runtime in 'runtimes': read "
				"runs.using of its action.yml", name, ref);
		else if (why)
			wm_schema_error(&c, cat->actions->pairs[i].value, "action %s@%s %s", name, ref, why);
	}
	return err->code;
}

/* The entry of action@ref in `runtimes`: the ref itself, else the major of a version tag ("v4.6.2": v4). */
static const struct wm_node *runtime_entry(const struct wm_catalog *cat, const char *action, const char *ref)
{
	const struct wm_node *table = cat->runtimes ? wm_yaml_find(cat->runtimes, action) : NULL, *v;
	char major[32];
	size_t n;
	if (!table || table->type != WM_NODE_MAP || !ref)
		return NULL;
	if ((v = wm_yaml_find(table, ref)) != NULL)
		return v;
	n = strspn(ref + (ref[0] == 'v'), "0123456789") + (ref[0] == 'v');
	if (ref[0] != 'v' || n < 2 || n >= sizeof(major) || ref[n] != '.')
		return NULL;
	memcpy(major, ref, n);
	major[n] = '\0';
	return wm_yaml_find(table, major);
}

bool wm_catalog_node_runtime_ok(const struct wm_catalog *cat, const char *using)
{
	if (strncmp(using, "node", 4) != 0)
		return true;
	for (size_t i = 0; i < cat->node_runtimes->n; i++)
		if (strcmp(cat->node_runtimes->items[i]->text, using) == 0)
			return true;
	return false;
}

static const char *runtime_of(const struct wm_catalog *cat, struct wm_arena *a, const char *action, const char *ref,
	const char **why, unsigned depth)
{
	const struct wm_node *v = runtime_entry(cat, action, ref);
	if (!v || depth > 4)
		return NULL;
	if (v->type == WM_NODE_SCALAR) {
		if (!wm_catalog_node_runtime_ok(cat, v->text) && !*why)
			*why = wm_arena_printf(a, "runs on %s", v->text);
		return v->text;
	}
	if (v->type != WM_NODE_SEQ || v->n == 0)
		return NULL;
	/* composite: the actions its steps use, each at the runtime its own entry says */
	for (size_t i = 1; i < v->n; i++) {
		const char *use = v->items[i]->text, *at = strchr(use, '@'), *inner_why = NULL, *inner;
		char *name;
		if (!at)
			continue;
		if (!(name = wm_arena_strndup(a, use, (size_t)(at - use))))
			return NULL;
		inner = runtime_of(cat, a, name, at + 1, &inner_why, depth + 1);
		(void)inner;
		if (inner_why && !*why)
			*why = wm_arena_printf(a, "runs %s in a step, which %s", use, inner_why);
	}
	return v->items[0]->text;
}

const char *wm_catalog_action_runtime(const struct wm_catalog *cat, struct wm_arena *a, const char *action,
	const char *ref, const char **why)
{
	const char *using;
	*why = NULL;
	using = runtime_of(cat, a, action, ref, why, 0);
	if (*why)
		*why = wm_arena_printf(a, "%s, which GitHub's runners no longer have (their Node is %s)", *why,
			cat->node_runtimes->items[0]->text);
	return using;
}

/* "3.N" into N; 0 when it is not one. */
static unsigned python_minor(const char *s)
{
	char *end;
	unsigned long n;
	if (!s || strncmp(s, "3.", 2) != 0 || !(s[2] >= '1' && s[2] <= '9'))
		return 0;
	n = strtoul(s + 2, &end, 10);
	return *end || n > 99 ? 0 : (unsigned)n;
}

/* A day YYYY-MM-DD, or a month YYYY-MM read as its first day. */
static bool day_or_month(const char *s, long *days)
{
	char day[11];
	if (strlen(s) == 7) {
		snprintf(day, sizeof(day), "%s-01", s);
		s = day;
	}
	return wm_catalog_date(s, days);
}

/* `cpython`: each series' first release and end of life. */
static int load_cpython(struct wm_catalog *cat, struct wm_schema *c, const struct wm_node *t, struct wm_error *err)
{
	static const char *const keys[] = { "released", "end-of-life" };
	if (!t || t->type != WM_NODE_MAP) {
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, c->doc->file, "no cpython table");
		return WM_EINTERNAL;
	}
	if (!(cat->cpython = wm_arena_array(&cat->arena, t->n + 1, sizeof(*cat->cpython))))
		return WM_ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct wm_node *e = t->pairs[i].value;
		struct wm_cpython *v = &cat->cpython[cat->ncpython];
		v->series = t->pairs[i].key->text;
		if (!(v->minor = python_minor(v->series)) || !wm_schema_map(c, e, "a CPython series", keys, WM_ARRAY_SIZE(keys)))
			continue;
		v->released = need(c, e, "released");
		v->end_of_life = need(c, e, "end-of-life");
		if (!v->released || !v->end_of_life || !day_or_month(v->released, &v->released_day) ||
				!day_or_month(v->end_of_life, &v->end_of_life_day))
			wm_schema_error(c, e, "CPython %s: 'released' and 'end-of-life' are YYYY-MM-DD or YYYY-MM", v->series);
		else
			cat->ncpython++;
	}
	return err->code;
}

const struct wm_cpython *wm_catalog_cpython(const struct wm_catalog *cat, unsigned minor)
{
	for (size_t i = 0; i < cat->ncpython; i++)
		if (cat->cpython[i].minor == minor)
			return &cat->cpython[i];
	return NULL;
}

size_t wm_catalog_cpython_count(const struct wm_catalog *cat)
{
	return cat->ncpython;
}

const struct wm_cpython *wm_catalog_cpython_at(const struct wm_catalog *cat, size_t i)
{
	return i < cat->ncpython ? &cat->cpython[i] : NULL;
}

static int load_pyo3(struct wm_catalog *cat, struct wm_doc *doc, struct wm_error *err)
{
	static const char *const top[] = { "pyo3", "cpython" };
	static const char *const keys[] = { "crate", "python", "free-threaded", "abi3", "abi3t", "pypy" };
	struct wm_schema c = { doc, err, &cat->arena };
	const struct wm_node *root = doc->root, *t;
	if (!root || !wm_schema_map(&c, root, "the PyO3 table", top, WM_ARRAY_SIZE(top)) ||
			!(t = wm_yaml_find(root, "pyo3")) || t->type != WM_NODE_MAP) {
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, "malformed PyO3 table");
		return WM_EINTERNAL;
	}
	if (!(cat->pyo3 = wm_arena_array(&cat->arena, t->n + 1, sizeof(*cat->pyo3))))
		return WM_ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct wm_node *e = t->pairs[i].value, *range, *ft, *pypy;
		struct wm_pyo3 *r = &cat->pyo3[cat->npyo3];
		char *end;
		r->series = t->pairs[i].key->text;
		r->major = (unsigned)strtoul(r->series, &end, 10);
		r->minor = *end == '.' ? (unsigned)strtoul(end + 1, &end, 10) : 0;
		if (*end || !wm_schema_map(&c, e, "a PyO3 series", keys, WM_ARRAY_SIZE(keys))) {
			wm_schema_error(&c, t->pairs[i].key, "a PyO3 series is MAJOR.MINOR");
			continue;
		}
		r->crate = need(&c, e, "crate");
		range = wm_yaml_find(e, "python");
		ft = wm_yaml_find(e, "free-threaded");
		if (range && range->type == WM_NODE_SEQ && range->n == 2) {
			r->py_min = python_minor(range->items[0]->text);
			r->py_max = python_minor(range->items[1]->text);
		}
		pypy = wm_yaml_find(e, "pypy");
		if (pypy && pypy->type == WM_NODE_SEQ && pypy->n == 2) {
			r->pypy_min = python_minor(pypy->items[0]->text);
			r->pypy_max = python_minor(pypy->items[1]->text);
		}
		if (!r->pypy_min || r->pypy_max < r->pypy_min)
			wm_schema_error(&c, e, "PyO3 %s: 'pypy' is [oldest, newest]", r->series);
		r->abi3_min = python_minor(need(&c, e, "abi3"));
		{
			const struct wm_node *t = wm_yaml_find(e, "abi3t");
			r->abi3t_min = t && !wm_yaml_is_null(t) ? python_minor(opt_string(&c, e, "abi3t")) : 0;
		}
		if (ft && !wm_yaml_is_null(ft) && !(r->ft_min = python_minor(ft->text)))
			wm_schema_error(&c, ft, "'free-threaded' is a version such as \"3.14\", or null");
		if (!r->py_min || r->py_max < r->py_min || !r->abi3_min)
			wm_schema_error(&c, e, "PyO3 %s: 'python' is [oldest, newest] and 'abi3' a version", r->series);
		if (i && (r->major > r[-1].major || (r->major == r[-1].major && r->minor >= r[-1].minor)))
			wm_schema_error(&c, t->pairs[i].key, "the PyO3 series are listed newest first");
		cat->npyo3++;
	}
	return load_cpython(cat, &c, wm_yaml_find(root, "cpython"), err);
}

size_t wm_catalog_pyo3_count(const struct wm_catalog *cat)
{
	return cat->npyo3;
}

const struct wm_pyo3 *wm_catalog_pyo3_at(const struct wm_catalog *cat, size_t i)
{
	return i < cat->npyo3 ? &cat->pyo3[i] : NULL;
}

const struct wm_pyo3 *wm_catalog_pyo3(const struct wm_catalog *cat, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < cat->npyo3; i++)
		if (cat->pyo3[i].major == major && cat->pyo3[i].minor == minor)
			return &cat->pyo3[i];
	return NULL;
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

bool wm_catalog_date(const char *s, long *days)
{
	static const unsigned char mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	long y, m, d, era, yoe, doy;
	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : s[i] < '0' || s[i] > '9')
			return false;
	if (s[10])
		return false;
	y = strtol(s, NULL, 10), m = strtol(s + 5, NULL, 10), d = strtol(s + 8, NULL, 10);
	if (y < 1970 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] ||
			(m == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
		return false;
	/* the proleptic Gregorian calendar, counted from 1 March so that the leap day comes last */
	y -= m <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	*days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
	return true;
}

static int load_runners(struct wm_catalog *cat, struct wm_doc *doc, struct wm_error *err)
{
	static const char *const keys[] = { "retires", "instead", "available" };
	struct wm_schema c = { doc, err, &cat->arena };
	const struct wm_node *root = doc->root;
	if (!root || root->type != WM_NODE_MAP) {
		wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, "not a mapping");
		return WM_EINTERNAL;
	}
	if (!(cat->runners = wm_arena_array(&cat->arena, root->n + 1, sizeof(*cat->runners))))
		return WM_ENOMEM;
	for (size_t i = 0; i < root->n; i++) {
		const struct wm_node *e = root->pairs[i].value;
		struct wm_runner *r = &cat->runners[cat->nrunners++];
		r->label = root->pairs[i].key->text;
		if (!wm_schema_map(&c, e, "a runner label", keys, WM_ARRAY_SIZE(keys)))
			continue;
		r->retires_text = opt_string(&c, e, "retires");
		r->instead = opt_string(&c, e, "instead");
		{
			const char *since = opt_string(&c, e, "available");
			long day;
			if (since && !wm_catalog_date(since, &day))
				wm_schema_error(&c, wm_yaml_find(e, "available"), "'%s' is not a date (YYYY-MM-DD)", since);
		}
		if (r->retires_text && !wm_catalog_date(r->retires_text, &r->retires))
			wm_schema_error(&c, wm_yaml_find(e, "retires"), "'%s' is not a date (YYYY-MM-DD)", r->retires_text);
		if (!r->retires_text != !r->instead)
			wm_schema_error(&c, e, "runner '%s' gives 'retires' and 'instead' together or neither", r->label);
	}
	/* a platform's default label is one this table knows, so that its retirement is seen */
	for (size_t i = 0; i < cat->nplatforms; i++)
		if (!wm_catalog_runner(cat, cat->platforms[i].runner))
			wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file,
				"platform '%s' runs on '%s', which is not listed", cat->platforms[i].id, cat->platforms[i].runner);
	return err->code;
}

const struct wm_runner *wm_catalog_runner(const struct wm_catalog *cat, const char *label)
{
	for (size_t i = 0; label && i < cat->nrunners; i++)
		if (strcmp(cat->runners[i].label, label) == 0)
			return &cat->runners[i];
	return NULL;
}

bool wm_catalog_runner_hosted_like(const char *label)
{
	static const char *const prefixes[] = { "ubuntu-", "macos-", "windows-" };
	for (size_t i = 0; label && i < WM_ARRAY_SIZE(prefixes); i++)
		if (strncmp(label, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

const char *wm_catalog_suggest_runner(const struct wm_catalog *cat, const char *word)
{
	const char *labels[64];
	size_t n = 0;
	for (size_t i = 0; i < cat->nrunners && n < WM_ARRAY_SIZE(labels); i++)
		labels[n++] = cat->runners[i].label;
	return wm_text_suggest(word, labels, n);
}

size_t wm_catalog_runner_count(const struct wm_catalog *cat)
{
	return cat->nrunners;
}

const struct wm_runner *wm_catalog_runner_at(const struct wm_catalog *cat, size_t i)
{
	return &cat->runners[i];
}

void wm_catalog_set_today(struct wm_catalog *cat, long days)
{
	cat->today = days;
}

long wm_catalog_today(const struct wm_catalog *cat)
{
	return cat->today;
}

/* templates/interpreters.yaml: `tables` and `installed`, each Python version's C API version. */
static int load_pypy(struct wm_catalog *cat, struct wm_doc *doc, struct wm_error *err)
{
	static const char *const top[] = { "pypy", "graalpy", "graalpy-macos-x86_64" },
		*const rows[] = { "tables", "installed" };
	struct wm_schema c = { doc, err, &cat->arena };
	const struct wm_node *root = doc->root, *t;
	unsigned last = 0;
	if (!root || !wm_schema_map(&c, root, "the PyPy table", top, WM_ARRAY_SIZE(top)) ||
			!(t = wm_yaml_find(root, "pypy")) || !wm_schema_map(&c, t, "the PyPy table", rows, WM_ARRAY_SIZE(rows)))
		goto bad;
	for (int k = 0; k < 2; k++) {
		const struct wm_node *row = wm_yaml_find(t, rows[k]);
		if (!row || row->type != WM_NODE_MAP)
			goto bad;
		for (size_t i = 0; i < row->n; i++) {
			unsigned minor = python_minor(row->pairs[i].key->text);
			const char *api = row->pairs[i].value->text;
			if (!minor || minor >= 100 || !api || strlen(api) != 2 || !isdigit((unsigned char)api[0]) ||
					!isdigit((unsigned char)api[1]))
				goto bad;
			cat->pypy_api[k][minor] = api;
		}
	}
	if ((t = wm_yaml_find(root, "graalpy")) && t->type == WM_NODE_MAP)
		for (size_t i = 0; i < t->n; i++) {
			unsigned minor = python_minor(t->pairs[i].key->text), major, gminor;
			if (!minor || minor >= 100 || !wm_catalog_macos_version(t->pairs[i].value->text, &major, &gminor))
				goto bad;
			cat->graalpy[minor] = t->pairs[i].value->text;
		}
	if ((t = wm_yaml_find(root, "graalpy-macos-x86_64")) && t->type == WM_NODE_SEQ)
		for (size_t i = 0; i < t->n; i++) {
			unsigned minor = t->items[i]->text ? python_minor(t->items[i]->text) : 0;
			if (!minor || minor >= 100 || !cat->graalpy[minor])
				goto bad;
			cat->graalpy_macos_x86_64[minor] = true;
			last = minor > last ? minor : last;
		}
	cat->graalpy_macos_x86_64_why = !last ? "GraalPy is not built for macOS x86_64" :
		wm_arena_printf(&cat->arena, "GraalPy for macOS x86_64 ends with GraalPy %s, of Python 3.%u",
			cat->graalpy[last], last);
	if (!cat->graalpy_macos_x86_64_why)
		return wm_error_oom(err);
	return 0;
bad:
	wm_error_nopos(err, WM_EINTERNAL, WM_SEV_ERROR, doc->file, "malformed PyPy table");
	return WM_EINTERNAL;
}

const char *wm_catalog_pypy_api(const struct wm_catalog *cat, unsigned minor, enum wm_os os)
{
	return minor < 100 ? cat->pypy_api[os != WM_OS_LINUX][minor] : NULL;
}

const char *wm_catalog_graalpy(const struct wm_catalog *cat, unsigned minor)
{
	return minor < 100 ? cat->graalpy[minor] : NULL;
}

const char *wm_catalog_graalpy_refused(const struct wm_catalog *cat, const struct wm_platform *p, unsigned minor)
{
	if (p->os == WM_OS_WINDOWS)
		return "maturin has no GraalPy configuration for Windows and setup-python's GraalPy is not tested there";
	if (p->os == WM_OS_MACOS && strcmp(p->arch, "universal2") == 0)
		return "a GraalPy build is of one architecture, so build it for macos-x86_64 and macos-arm64";
	if (p->os == WM_OS_MACOS && strcmp(p->arch, "x86_64") == 0 && (minor >= 100 || !cat->graalpy_macos_x86_64[minor]))
		return cat->graalpy_macos_x86_64_why;
	if (p->os == WM_OS_MACOS)
		return NULL;
	if (p->os != WM_OS_LINUX)
		return "GraalPy ships for Linux and macOS only";
	if (strcmp(p->family, "manylinux") != 0)
		return "GraalPy ships for glibc Linux, not musl";
	if (strcmp(p->arch, "x86_64") != 0 && strcmp(p->arch, "aarch64") != 0)
		return "GraalPy ships for x86_64 and aarch64 only";
	return NULL;
}

int wm_catalog_load(struct wm_catalog **out, struct wm_error *err)
{
	struct wm_catalog *cat = calloc(1, sizeof(*cat));
	int ret;

	*out = NULL;
	if (!cat)
		return wm_error_oom(err);
	wm_arena_init(&cat->arena);
	wm_map_init(&cat->by_id);
	wm_map_init(&cat->toolkit_by_id);
	if ((ret = wm_catalog_template_parse(&cat->docs[0], "platforms.yaml", err)) < 0 ||
	    (ret = load_platforms(cat, &cat->docs[0], err)) < 0 ||
	    (ret = wm_catalog_template_parse(&cat->docs[1], "toolkits.yaml", err)) < 0 ||
	    (ret = load_toolkits(cat, &cat->docs[1], err)) < 0 ||
	    (ret = wm_catalog_template_parse(&cat->docs[2], "actions.yaml", err)) < 0 ||
	    (ret = load_actions(cat, &cat->docs[2], err)) < 0 ||
	    (ret = check_installers(cat, err)) < 0 ||
	    (ret = wm_catalog_template_parse(&cat->docs[3], "pyo3.yaml", err)) < 0 ||
	    (ret = load_pyo3(cat, &cat->docs[3], err)) < 0 ||
	    (ret = wm_catalog_template_parse(&cat->docs[4], "runners.yaml", err)) < 0 ||
	    (ret = load_runners(cat, &cat->docs[4], err)) < 0 ||
	    (ret = wm_catalog_template_parse(&cat->docs[5], "interpreters.yaml", err)) < 0 ||
	    (ret = load_pypy(cat, &cat->docs[5], err)) < 0) {
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
	wm_yaml_release(&cat->docs[3]);
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

bool wm_catalog_macos_version(const char *s, unsigned *major, unsigned *minor)
{
	char *end;
	unsigned long a, b;
	if (!s || !(*s >= '1' && *s <= '9'))
		return false;
	a = strtoul(s, &end, 10);
	if (*end != '.' || !(end[1] >= '0' && end[1] <= '9'))
		return false;
	b = strtoul(end + 1, &end, 10);
	if (*end || a < 10 || a > 99 || b > 99)
		return false;
	*major = (unsigned)a;
	*minor = (unsigned)b;
	return true;
}

/*
 * The macOS version in a tag, as maturin 1.16.0 takes it (src/target/platform_tag.rs,
 * macosx_deployment_target): MACOSX_DEPLOYMENT_TARGET when it is above rustc's default, else the
 * default; from macOS 11 on only the major version ("pip only supports (major, 0)").
 */
static const char *macos_tag_version(struct wm_arena *a, const char *deflt, const char *given)
{
	unsigned dmaj = 10, dmin = 12, gmaj, gmin;
	wm_catalog_macos_version(deflt, &dmaj, &dmin);
	if (given && wm_catalog_macos_version(given, &gmaj, &gmin) && (gmaj > dmaj || (gmaj == dmaj && gmin > dmin))) {
		dmaj = gmaj;
		dmin = gmin;
	}
	return wm_arena_printf(a, "%u_%u", dmaj, dmaj >= 11 ? 0 : dmin);
}

/*
 * Linux: <family>_<level>_<arch>, with the level's legacy alias where PyPI allows one
 * (manylinux2014 for 2_17 on x86_64, i686, aarch64, armv7l, ppc64, ppc64le and s390x: maturin
 * 1.16.0 src/target/legacy_py.rs, ALLOWED_PLATFORMS), the set sorted as maturin writes it
 * (src/target/wheel_tag.rs: a BTreeSet).  macOS: macosx_<version>_<arch>, and for universal2
 * the three tags maturin writes (src/target/platform_tag.rs, get_platform_tag).
 */
const char *wm_catalog_platform_tag(struct wm_arena *a, const struct wm_platform *p)
{
	static const char *const aliased[] = { "x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x" };
	/* PEP 783: pyemscripten_<year>_<patch>_wasm32 (maturin 1.16.0 src/target/platform_tag.rs, emscripten_platform_tag) */
	if (p->os == WM_OS_EMSCRIPTEN)
		return p->pyodide_abi ? wm_arena_printf(a, "pyemscripten_%s_wasm32", p->pyodide_abi) : NULL;
	if (p->os == WM_OS_MACOS && p->deployment_default) {
		const char *x86 = macos_tag_version(a, p->deployment_default, p->deployment_target);
		const char *arm = p->deployment_arm64 ? macos_tag_version(a, p->deployment_arm64, p->deployment_target) : NULL;
		if (!x86 || (p->deployment_arm64 && !arm))
			return NULL;
		if (arm)
			return wm_arena_printf(a, "macosx_%s_universal2.macosx_%s_x86_64.macosx_%s_arm64", x86, x86, arm);
		return wm_arena_printf(a, "macosx_%s_%s", x86, strcmp(p->arch, "x86_64") == 0 ? "x86_64" : "arm64");
	}
	if (!p->manylinux || !p->wheel_arch)
		return p->platform_tag;
	if (strcmp(p->family, "manylinux") == 0 && strcmp(pep600(p->manylinux), "2_17") == 0)
		for (size_t i = 0; i < WM_ARRAY_SIZE(aliased); i++)
			if (strcmp(p->wheel_arch, aliased[i]) == 0)
				return wm_arena_printf(a, "manylinux2014_%s.manylinux_2_17_%s", p->wheel_arch, p->wheel_arch);
	return wm_arena_printf(a, "%s_%s_%s", p->family, pep600(p->manylinux), p->wheel_arch);
}

const struct wm_toolkit *wm_catalog_feature_toolkit(const struct wm_catalog *cat, const char *feature, size_t *from)
{
	const char *leaf = wm_name_feature_leaf(feature);
	for (size_t t = *from; t < cat->ntoolkits; t++) {
		const struct wm_toolkit *tk = &cat->toolkits[t];
		for (size_t k = 0; k < tk->features.n; k++)
			if (strcmp(leaf, tk->features.items[k]) == 0) {
				*from = t + 1;
				return tk;
			}
	}
	*from = cat->ntoolkits;
	return NULL;
}

/* A tag as PEP 600 names it: manylinux2014_x86_64 is manylinux_2_17_x86_64 (2010: 2_12, 1: 2_5). */
static void canonical_tag(char *out, size_t size, const char *tag, size_t n)
{
	static const struct { const char *legacy, *level; } names[] = {
		{ "manylinux2014_", "2_17" }, { "manylinux2010_", "2_12" }, { "manylinux1_", "2_5" },
	};
	for (size_t i = 0; i < WM_ARRAY_SIZE(names); i++) {
		size_t k = strlen(names[i].legacy);
		if (n > k && !strncmp(tag, names[i].legacy, k)) {
			snprintf(out, size, "manylinux_%s_%.*s", names[i].level, (int)(n - k), tag + k);
			return;
		}
	}
	snprintf(out, size, "%.*s", (int)n, tag);
}

/* Whether the one tag tag[0..len) is in set. */
static bool one_tag_in(const char *set, const char *tag, size_t len)
{
	char want[128];
	canonical_tag(want, sizeof(want), tag, len);
	for (const char *p = set; *p;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		char have[128];
		canonical_tag(have, sizeof(have), p, n);
		if (!strcmp(have, want))
			return true;
		p += n + (dot != NULL);
	}
	return false;
}

bool wm_catalog_tag_in(const char *set, const char *tag)
{
	/* a compressed tag (manylinux2014_x86_64.manylinux_2_17_x86_64): each of its tags */
	for (const char *p = tag;;) {
		size_t n = strcspn(p, ".");
		if (!one_tag_in(set, p, n))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}
