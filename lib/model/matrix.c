/*
 * matrix.c — loads wheelmatrix.yaml into a validated model, reporting every problem with its position.
 *
 * Here: the entry points, load_root (which loads the sections in order and runs the checks across
 * them) and the small top-level keys: wheelmatrix, project, distribution, ci, actions, publish.
 * python.c, platforms.c, backends.c and rules.c load the other sections; untrusted.c checks the
 * values that reach the CI files as they are.  loader.h is the state they share.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "util/io.h"
#include "util/name.h"
#include "util/text.h"
#include "formats/pep440.h"
#include "formats/toml.h"
#include "formats/yaml.h"
#include "model/backends.h"
#include "model/cargoconfig.h"
#include "model/catalog.h"
#include "model/expand.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "model/meta.h"
#include "model/platforms.h"
#include "model/project.h"
#include "model/python.h"
#include "model/rules.h"
#include "model/schema.h"
#include "model/settings.h"
#include "model/untrusted.h"
#include "model/variants.h"

/* The matrix and everything it points into: the parsed tree stays alive for the emitters. */
struct matrix_state {
	struct wm_matrix pub;
	struct wm_arena arena;
	struct wm_doc doc;
	struct wm_project *project;
};

/* ---- the small top-level keys -------------------------------------------------- */

static void load_version(struct wm_loader *l)
{
	const struct wm_node *v = wm_yaml_find(l->root, "wheelmatrix");
	if (!v) {
		wm_schema_error(&l->c, l->root, "missing 'wheelmatrix: 1' (the format version) at the top of the file");
		return;
	}
	if (!wm_schema_uint(&l->c, v, "'wheelmatrix' (the format version)", &l->m->format))
		return;
	if (l->m->format != 1)
		wm_schema_error(&l->c, v, "unsupported format version %u: this wheelmatrix reads version 1", l->m->format);
}

/* A path of the matrix file into *out; false (reported) when it is not one. */
static bool load_path(struct wm_loader *l, const struct wm_node *n, const char *what, const char **out)
{
	const char *s, *why;
	if (!wm_schema_string(&l->c, n, what, &s))
		return false;
	/* a name git refuses first (told as what other systems read it as), then the text, at its character */
	if (!wm_name_repo_path_shape(s, &why)) {
		wm_schema_error(&l->c, n, "invalid path '%s': %s", s, why);
		return false;
	}
	if (!wm_untrusted_path(l, n, what))
		return false;
	*out = s;
	return true;
}

/*
 * The maturin the CI pins: tools.maturin when [build-system].requires admits
 * it, else the newest known release it admits; none is an error at the
 * requirement.
 */
static void resolve_maturin(struct wm_loader *l, const struct wm_project *p)
{
	const struct wm_node *releases = wm_catalog_releases(l->cat, "maturin");
	const struct wm_toml_span *sp = &p->maturin_span;
	const char *why;
	int ret;

	if (!p->maturin_specs || !l->m->maturin)
		return;
	if ((ret = wm_pep440_specs_match(p->maturin_specs, l->m->maturin, &why)) == 1)
		return;
	for (size_t i = 0; ret == 0 && releases && i < releases->n; i++)
		if (wm_pep440_specs_match(p->maturin_specs, releases->items[i]->text, &why) == 1) {
			l->m->maturin = releases->items[i]->text;
			return;
		}
	if (ret < 0)
		wm_error_add(l->c.err, WM_EINVALID, WM_SEV_ERROR, p->py_path, p->py.text, p->py.len, sp->line, sp->column,
			(unsigned)(sp->end - sp->start), "cannot read the maturin requirement '%s': %s",
			p->maturin_specs, why);
	else
		wm_error_add(l->c.err, WM_EINVALID, WM_SEV_ERROR, p->py_path, p->py.text, p->py.len, sp->line, sp->column,
			(unsigned)(sp->end - sp->start), "no maturin release that the generated CI can pin satisfies "
			"'maturin%s': wheelmatrix knows maturin %s to %s", p->maturin_specs,
			releases && releases->n ? releases->items[releases->n - 1]->text : "?",
			releases && releases->n ? releases->items[0]->text : "?");
}

/* Reads pyproject.toml and Cargo.toml, and takes the defaults the matrix file leaves out from them. */
static void read_project(struct wm_loader *l, const struct wm_node *n, bool manifest_given)
{
	struct wm_matrix *m = l->m;
	const struct wm_node *name = wm_yaml_find(n, "name");
	struct wm_project *p = NULL;
	int ret = l->reader ? wm_project_load(&p, l->reader, m->pyproject, manifest_given ? m->manifest : NULL,
		l->c.err) : 1;

	if (ret < 0)
		return;
	if (ret == 1) {
		if (!m->name && !name)
			wm_schema_error(&l->c, n ? n : l->root, "missing 'project.name', and no %s to read it from",
				m->pyproject);
		return;
	}
	l->project = p;
	m->project = p;
	m->manifest = p->cargo_path;
	m->version = p->version;
	resolve_maturin(l, p);
	if (!p->name) {
		if (!m->name)
			wm_error_nopos(l->c.err, WM_EINVALID, WM_SEV_ERROR, p->py_path,
				"no [project].name, and no 'project.name' in the matrix file");
	} else if (!m->name && !name) {
		if (wm_name_distribution(p->name))
			m->name = p->name;
		else
			wm_error_nopos(l->c.err, WM_EINVALID, WM_SEV_ERROR, p->py_path,
				"invalid distribution name '%s' in [project].name", p->name);
	} else if (m->name && strcmp(m->name, p->name) != 0) {
		char *a = wm_arena_alloc(l->c.arena, strlen(m->name) + 1), *b = wm_arena_alloc(l->c.arena, strlen(p->name) + 1);
		if (a && b) {
			wm_name_normalize(a, m->name);
			wm_name_normalize(b, p->name);
			size_t len = strlen(a);
			/* "<name>-<backend>": the name a variant patch gives, left applied */
			bool variant = strncmp(a, b, len) == 0 && b[len] == '-' && wm_yaml_find_pair(wm_yaml_find(l->root, "backends"),
				b + len + 1);
			if (strcmp(a, b) != 0)
				wm_schema_error(&l->c, name, "'project.name' is '%s' but %s names the project '%s': the variants "
					"are renamed from the name pyproject.toml has%s%s%s", m->name, p->py_path, p->name,
					variant ? " (a variant's name: if 'wheelmatrix patch' left it applied, 'wheelmatrix patch " : "",
					variant ? b + len + 1 : "", variant ? " --revert' undoes it)" : "");
		}
	}
	if (!m->module)
		m->module = wm_project_module(l->c.arena, p->module_name, p->lib_name, m->name);
}

static const char *const project_keys[] = { "name", "pyproject", "manifest", "module" };
const struct wm_names wm_matrix_project_keys = WM_NAMES(project_keys);

static void load_project(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	const struct wm_node *v;
	const char *s;
	bool paths_ok = true;

	m->pyproject = "pyproject.toml";
	m->manifest = "Cargo.toml";
	m->maturin = wm_catalog_tool(l->cat, "maturin");
	if (n && !wm_schema_map(&l->c, n, "'project'", project_keys, WM_ARRAY_SIZE(project_keys)))
		return;
	if ((v = wm_yaml_find(n, "name")) && wm_schema_string(&l->c, v, "'project.name'", &s)) {
		if (wm_name_distribution(s))
			m->name = s;
		else
			wm_schema_error(&l->c, v, "invalid distribution name '%s': PEP 508 names are letters, digits, "
				"'.', '-' and '_', beginning and ending with a letter or digit", s);
	}
	if ((v = wm_yaml_find(n, "pyproject")) && !load_path(l, v, "'project.pyproject'", &m->pyproject))
		paths_ok = false;
	if ((v = wm_yaml_find(n, "manifest")) && !load_path(l, v, "'project.manifest'", &m->manifest))
		paths_ok = false;
	if ((v = wm_yaml_find(n, "module")) && wm_schema_string(&l->c, v, "'project.module'", &s)) {
		if (wm_name_module(s))
			m->module = s;
		else
			wm_schema_error(&l->c, v, "invalid module name '%s': Python identifiers separated by '.'", s);
	}
	/* the project's files are not looked for at another path than the one given */
	if (paths_ok)
		read_project(l, n, wm_yaml_find(n, "manifest") != NULL);
	if (!m->module && m->name)
		m->module = wm_project_module(l->c.arena, NULL, NULL, m->name);
}

static const char *const index_keys[] = { "url", "local" };
const struct wm_names wm_matrix_index_keys = WM_NAMES(index_keys);

/* distribution.index: where the backends' indexes are, and whether their versions carry a label. */
static void load_index(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	const struct wm_node *v;
	const char *s, *why;
	size_t len;

	m->index_loc = wm_loader_loc(l, n);
	m->index_local = m->strategy == WM_STRATEGY_INDEX;
	if (!wm_schema_map(&l->c, n, "'distribution.index'", index_keys, WM_ARRAY_SIZE(index_keys)))
		return;
	if ((v = wm_yaml_find(n, "local"))) {
		if (m->strategy == WM_STRATEGY_INDEX)
			wm_schema_bool(&l->c, v, "'distribution.index.local'", &m->index_local);
		else
			wm_schema_error(&l->c, v, "'distribution.index.local' belongs to strategy 'index': under "
				"'variants' every variant has the project's version, told apart by its variant label");
	}
	if (!(v = wm_yaml_find(n, "url"))) {
		if (m->strategy == WM_STRATEGY_INDEX)
			wm_schema_error(&l->c, n, "'distribution.index' needs a 'url': the base URL the backends' indexes "
				"are served under (<url>/<backend>/)");
		else
			wm_schema_error(&l->c, n, "'distribution.index' needs a 'url': the simple index that serves "
				"every variant (<url>/<project>/)");
		return;
	}
	if (!wm_schema_string(&l->c, v, "'distribution.index.url'", &s))
		return;
	if (!wm_name_index_url(s, &why)) {
		struct wm_buf shown = WM_BUF_INIT;
		wm_text_url(&shown, s, strlen(s));
		/* a password or query in the URL is shown nowhere: not in the message, and no source line quoted */
		if (!shown.ptr || strcmp(shown.ptr, s) != 0)
			wm_error_add(l->c.err, WM_EINVALID, WM_SEV_ERROR, l->c.doc->file, NULL, 0, v->line, v->column, 0,
				"invalid index URL '%s': %s", shown.ptr ? shown.ptr : "", why);
		else
			wm_schema_error(&l->c, v, "invalid index URL '%s': %s", shown.ptr ? shown.ptr : "", why);
		wm_loader_oom(l, shown.oom ? NULL : "");
		wm_buf_release(&shown);
		return;
	}
	/* the indexes are <url>/<backend>/: no final '/' of its own */
	for (len = strlen(s); len > 0 && s[len - 1] == '/'; len--)
		;
	m->index_url = wm_arena_strndup(l->c.arena, s, len);
	wm_loader_oom(l, m->index_url);
}

static const char *const distribution_keys[] = { "strategy", "index", "providers" };
const struct wm_names wm_matrix_distribution_keys = WM_NAMES(distribution_keys);
static const char *const strategies[] = { "rename", "meta", "index", "variants" };
const struct wm_names wm_matrix_strategies = WM_NAMES(strategies);

static void load_distribution(struct wm_loader *l, const struct wm_node *n)
{
	const struct wm_node *v, *index = wm_yaml_find(n, "index"), *providers = wm_yaml_find(n, "providers");
	const char *s;
	if (!wm_schema_map(&l->c, n, "'distribution'", distribution_keys, WM_ARRAY_SIZE(distribution_keys)))
		return;
	if (providers)
		wm_variants_load_providers(l, providers);
	if (!(v = wm_yaml_find(n, "strategy")) || !wm_schema_string(&l->c, v, "'distribution.strategy'", &s))
		return;
	if (strcmp(s, "rename") == 0) {
		l->m->strategy = WM_STRATEGY_RENAME;
	} else if (strcmp(s, "meta") == 0) {
		l->m->strategy = WM_STRATEGY_META;
		if (wm_loader_bindings_bin(l))
			wm_schema_error(&l->c, v, "strategy 'meta' dispatches between backends' modules at import, and %s "
				"sets bindings = \"bin\" (a program, no module): use 'rename'", l->project->py_path);
	} else if (strcmp(s, "index") == 0) {
		l->m->strategy = WM_STRATEGY_INDEX;
		if (!index)
			wm_schema_error(&l->c, v, "strategy 'index' needs 'distribution.index' with the 'url' its "
				"backends' indexes are served under");
		else
			load_index(l, index);
		return;
	} else if (strcmp(s, "variants") == 0) {
		l->m->strategy = WM_STRATEGY_VARIANTS;
		if (wm_loader_bindings_bin(l))
			wm_schema_error(&l->c, v, "strategy 'variants' needs wheels an installer can tell apart by their "
				"variant properties, and %s sets bindings = \"bin\": use 'rename'", l->project->py_path);
		if (!index)
			wm_schema_error(&l->c, v, "strategy 'variants' needs 'distribution.index' with the 'url' of the "
				"index that serves every variant (PyPI does not serve variant wheels yet)");
		else
			load_index(l, index);
		return;
	} else {
		const char *hint = wm_text_suggest(s, strategies, WM_ARRAY_SIZE(strategies));
		if (hint)
			wm_schema_error(&l->c, v, "unknown distribution strategy '%s' (did you mean '%s'?)", s, hint);
		else
			wm_schema_error(&l->c, v, "unknown distribution strategy '%s': use 'rename', 'meta', 'index' or "
				"'variants'", s);
		return;
	}
	if (index)
		wm_schema_error(&l->c, index, "'distribution.index' belongs to strategies 'index' and 'variants', not "
			"'%s'", s);
}

bool wm_matrix_output_excludes(const struct wm_output *o, const struct wm_platform *p)
{
	for (size_t i = 0; i < o->exclude_platforms.n; i++)
		if (wm_text_glob_match(o->exclude_platforms.items[i], p->id))
			return true;
	return false;
}

/*
 * ci.gitlab.exclude-platforms: platforms of the matrix GitLab does not build (windows-arm64 has no
 * hosted runner there), while GitHub's workflow keeps them. Patterns, as a backend's platforms.
 */
static void load_exclude_platforms(struct wm_loader *l, const struct wm_node *n, struct wm_output *out)
{
	const struct wm_node **nodes;
	size_t left = 0;
	bool ok = true;
	if (!wm_schema_strlist(&l->c, n, "'ci.gitlab.exclude-platforms'", &out->exclude_platforms, &nodes) ||
			!l->platforms_ok)
		return;
	for (size_t i = 0; i < out->exclude_platforms.n; i++)
		ok &= wm_platforms_pattern(l, nodes[i], "platform pattern");
	if (!ok)
		return;
	for (size_t i = 0; i < l->m->nplatforms; i++)
		left += !wm_matrix_output_excludes(out, l->m->platforms[i]);
	if (l->m->nplatforms && !left)
		wm_schema_error(&l->c, n, "'ci.gitlab.exclude-platforms' leaves GitLab no platform: leave GitLab out of "
			"'ci' instead");
}

/* GitHub hosts every platform of the catalog: only GitLab leaves some out */
static const char *const github_keys[] = { "path", "check", "triggers" };
static const char *const trigger_keys[] = { "branches", "tags", "pull-requests" };
const struct wm_names wm_matrix_trigger_keys = WM_NAMES(trigger_keys);

/* A branch or tag filter as GitHub reads it, with nothing an expression or YAML could take apart. */
static bool ref_filter_ok(const char *s)
{
	if (!*s || strlen(s) > 255)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._/-*?+![]", *s))
			return false;
	return true;
}

/* A list of branch or tag filters at `n`; false after an error. */
static bool load_filters(struct wm_loader *l, const struct wm_node *n, const char *what, struct wm_strlist *out)
{
	const struct wm_node **nodes;
	bool ok = true;
	if (!wm_schema_strlist(&l->c, n, what, out, &nodes))
		return false;
	for (size_t i = 0; i < out->n; i++)
		if (!ref_filter_ok(out->items[i])) {
			wm_schema_error(&l->c, nodes[i], "'%s' is not a branch or tag filter of %s: letters, digits and "
				"._/-*?+![] only (GitHub's filter patterns)", out->items[i], what);
			ok = false;
		}
	return ok;
}

static void load_triggers(struct wm_loader *l, const struct wm_node *n, struct wm_output *out)
{
	const struct wm_node *v;
	if (!wm_schema_map(&l->c, n, "'ci.github.triggers'", trigger_keys, WM_ARRAY_SIZE(trigger_keys)))
		return;
	if ((v = wm_yaml_find(n, "branches")))
		out->has_branches = load_filters(l, v, "'ci.github.triggers.branches'", &out->branches);
	if ((v = wm_yaml_find(n, "tags")) && (out->has_tags = load_filters(l, v, "'ci.github.triggers.tags'",
			&out->tags)) && out->tags.n == 0) {
		wm_schema_error(&l->c, v, "'ci.github.triggers.tags' needs at least one pattern: the publish jobs run on "
			"a tag push");
		out->has_tags = false;
	}
	if ((v = wm_yaml_find(n, "pull-requests"))) {
		if (v->type == WM_NODE_SEQ)
			out->has_pull_requests = out->pull_requests = load_filters(l, v, "'ci.github.triggers.pull-requests'",
				&out->pr_branches);
		else
			out->has_pull_requests = wm_schema_bool(&l->c, v, "'ci.github.triggers.pull-requests'",
				&out->pull_requests);
	}
}

static const char *const gitlab_keys[] = { "path", "exclude-platforms", "check" };
const struct wm_names wm_matrix_github_keys = WM_NAMES(github_keys), wm_matrix_gitlab_keys = WM_NAMES(gitlab_keys);

static void load_output(struct wm_loader *l, const struct wm_node *n, const char *provider, struct wm_output *out)
{
	const bool gitlab = strcmp(provider, "gitlab") == 0;
	const struct wm_names *keys = gitlab ? &wm_matrix_gitlab_keys : &wm_matrix_github_keys;
	const struct wm_node *v;
	char what[32];
	out->enabled = true;
	out->check = true;
	out->loc = wm_loader_loc(l, n);
	if (wm_yaml_is_null(n))
		return;
	snprintf(what, sizeof(what), "'ci.%s'", provider);
	if (!wm_schema_map(&l->c, n, what, keys->names, keys->n))
		return;
	if ((v = wm_yaml_find(n, "path"))) {
		snprintf(what, sizeof(what), "'ci.%s.path'", provider);
		load_path(l, v, what, &out->path);
	}
	if (gitlab && (v = wm_yaml_find(n, "exclude-platforms")))
		load_exclude_platforms(l, v, out);
	if ((v = wm_yaml_find(n, "check")) && !wm_yaml_is_null(v)) {
		snprintf(what, sizeof(what), "'ci.%s.check'", provider);
		wm_schema_bool(&l->c, v, what, &out->check);
	}
	if (!gitlab && (v = wm_yaml_find(n, "triggers")))
		load_triggers(l, v, out);
}

static const char *const ci_keys[] = { "github", "gitlab" };
const struct wm_names wm_matrix_ci_keys = WM_NAMES(ci_keys);

static void load_ci(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	const struct wm_node *v;
	m->github.path = ".github/workflows/wheels.yml";
	m->gitlab.path = ".gitlab-ci.yml";
	if (!n) {
		m->github.enabled = m->gitlab.enabled = true;
		m->github.check = m->gitlab.check = true;
		return;
	}
	if (!wm_schema_map(&l->c, n, "'ci'", ci_keys, WM_ARRAY_SIZE(ci_keys)))
		return;
	if ((v = wm_yaml_find(n, "github")))
		load_output(l, v, "github", &m->github);
	if ((v = wm_yaml_find(n, "gitlab")))
		load_output(l, v, "gitlab", &m->gitlab);
	if (m->github.enabled && m->gitlab.enabled && strcmp(m->github.path, m->gitlab.path) == 0)
		wm_schema_error(&l->c, wm_yaml_find(wm_yaml_find(n, "gitlab"), "path"),
			"'ci.gitlab.path' is the same file as 'ci.github.path'");
}

static bool action_name_valid(const char *s)
{
	const char *slash = strchr(s, '/');
	if (!slash || slash == s || !slash[1])
		return false;
	for (const char *p = s; *p; p++)
		if (!(wm_loader_ident_char(*p) || *p == '.' || *p == '/'))
			return false;
	return true;
}

/*
 * An action's reference as `uses: owner/name@REF` takes it: a tag, branch or commit SHA in git's
 * ref-name characters, so that it cannot carry an expression, another `@`, a fragment, or `..`
 * out of the action's repository.
 */
static bool action_ref_valid(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 255 || !isalnum((unsigned char)s[0]) || s[n - 1] == '/' || s[n - 1] == '.' ||
			strstr(s, "..") || strstr(s, "//") || strstr(s, "/.") ||
			(n >= 5 && strcmp(s + n - 5, ".lock") == 0))
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-+/", *p))
			return false;
	return true;
}

static bool is_sha(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n == 40 && !s[n];
}

/*
 * The tag a commit SHA was pinned at: `pin` writes it as the comment after
 * the value.  Only a comment that reads as a reference is one (any other is
 * the user's own and not written into the workflow); the grammar keeps it
 * from ending the line or the comment it is written into.
 */
static const char *pin_tag(struct wm_loader *l, const struct wm_node *v, const char *ref)
{
	const char *text;
	size_t len;
	char *tag;

	if (!is_sha(ref) || !wm_yaml_trailing_comment(l->c.doc, v, &text, &len) || len == 0 || len > 255)
		return NULL;
	tag = wm_arena_strndup(l->c.arena, text, len);
	return tag && action_ref_valid(tag) ? tag : NULL;
}

static void load_actions(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	if (n->type != WM_NODE_MAP) {
		wm_schema_error(&l->c, n, "'actions' must be a mapping of actions to references, such as "
			"{actions/checkout: <commit sha>}, not %s", wm_yaml_kind(n));
		return;
	}
	m->actions = wm_arena_array(l->c.arena, n->n + 1, sizeof(*m->actions));
	if (wm_loader_oom(l, m->actions))
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *k = n->pairs[i].key, *v = n->pairs[i].value;
		const char *ref;
		if (!action_name_valid(k->text)) {
			wm_schema_error(&l->c, k, "invalid action '%s': write owner/name, such as actions/checkout", k->text);
			continue;
		}
		if (!wm_catalog_action(l->cat, k->text)) {
			const char *hint = wm_error_full(l->c.err, WM_SEV_ERROR) ? NULL :
				wm_catalog_suggest_action(l->cat, k->text);
			if (hint)
				wm_schema_error(&l->c, k, "unknown action '%s' (did you mean '%s'?)", k->text, hint);
			else
				wm_schema_error(&l->c, k, "action '%s' is not used by the generated CI", k->text);
			continue;
		}
		if (!wm_schema_string(&l->c, v, "an action reference", &ref))
			continue;
		if (!action_ref_valid(ref)) {
			wm_schema_error(&l->c, v, "invalid reference '%s' for %s: a tag, branch or full commit SHA, in "
				"letters, digits, '.', '_', '-', '+' and '/' (no '..', '@', '#' or expression)", ref, k->text);
			continue;
		}
		m->actions[m->nactions].action = k->text;
		m->actions[m->nactions].ref = ref;
		m->actions[m->nactions].tag = pin_tag(l, v, ref);
		m->actions[m->nactions++].loc = wm_loader_loc(l, k);
		{
			/* a reference whose runtime the runners no longer have: the job would fail at that step */
			const char *tag = m->actions[m->nactions - 1].tag, *why = NULL;
			if (wm_catalog_action_runtime(l->cat, l->c.arena, k->text, tag ? tag : ref, &why) && why)
				wm_schema_error(&l->c, v, "%s %s %s: use %s, the reference wheelmatrix pins, or a later one",
					k->text, tag ? tag : ref, why, wm_catalog_action(l->cat, k->text));
		}
	}
}

bool wm_matrix_environment_valid(const char *s)
{
	size_t n = 0;
	for (; *s; s++, n++)
		if (!(wm_loader_ident_char(*s) || *s == '.' || *s == ' '))
			return false;
	return n <= 255;
}

static const char *const publish_keys[] = { "pypi", "github-release" };
static const char *const pypi_keys[] = { "trusted", "environment" };
const struct wm_names wm_matrix_publish_keys = WM_NAMES(publish_keys), wm_matrix_pypi_keys = WM_NAMES(pypi_keys);

static void load_publish(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	const struct wm_node *p, *v;
	m->trusted = true;
	m->environment = "pypi";
	m->github_release = false;
	if (!n || !wm_schema_map(&l->c, n, "'publish'", publish_keys, WM_ARRAY_SIZE(publish_keys)))
		return;
	if ((v = wm_yaml_find(n, "github-release")) && !wm_yaml_is_null(v))
		wm_schema_bool(&l->c, v, "'publish.github-release'", &m->github_release);
	if (!(p = wm_yaml_find(n, "pypi")) || wm_yaml_is_null(p))
		return;
	if (!wm_schema_map(&l->c, p, "'publish.pypi'", pypi_keys, WM_ARRAY_SIZE(pypi_keys)))
		return;
	if ((v = wm_yaml_find(p, "trusted")))
		wm_schema_bool(&l->c, v, "'publish.pypi.trusted'", &m->trusted);
	if ((v = wm_yaml_find(p, "environment")) && wm_schema_string(&l->c, v, "'publish.pypi.environment'",
			&m->environment)) {
		if (!*m->environment)
			wm_schema_error(&l->c, v, "'publish.pypi.environment' cannot be empty");
		else if (wm_untrusted_expression_free(l, v, "'publish.pypi.environment'") && !wm_matrix_environment_valid(m->environment))
			wm_schema_error(&l->c, v, "invalid environment name '%s': letters, digits, ' ', '-', '_' and '.', "
				"at most 255 characters", m->environment);
	}
}

/* A key's value, NULL when the key is absent or its value null: `exclude:` with nothing after it. */
static const struct wm_node *present(const struct wm_node *map, const char *key)
{
	const struct wm_node *v = wm_yaml_find(map, key);
	return v && wm_yaml_is_null(v) ? NULL : v;
}

/*
 * A GitHub expression in an environment value means nothing to GitLab, which
 * gets its text as written: warns at each one when the GitLab file is written.
 */
static void warn_gitlab_env(struct wm_loader *l, const struct wm_node *owner)
{
	const struct wm_node *env;
	if (owner->type != WM_NODE_MAP || !(env = wm_yaml_find(owner, "env")) || env->type != WM_NODE_MAP)
		return;
	for (size_t k = 0; k < env->n; k++) {
		const struct wm_node *v = env->pairs[k].value;
		if (v->type == WM_NODE_SCALAR && strstr(v->text, "${{"))
			wm_schema_warning(&l->c, v, "the value of %s holds a GitHub expression: the GitLab jobs get its "
				"text as written, not its value; define %s as a CI/CD variable of the GitLab project "
				"instead", env->pairs[k].key->text, env->pairs[k].key->text);
	}
}

static void check_gitlab_env(struct wm_loader *l)
{
	const struct wm_node *backends = wm_yaml_find(l->root, "backends"), *includes = present(l->root, "include");
	const struct wm_node *platforms = wm_yaml_find(l->root, "platforms");
	if (!l->m->gitlab.enabled)
		return;
	if (platforms && platforms->type == WM_NODE_MAP)
		for (size_t i = 0; i < platforms->n; i++)
			warn_gitlab_env(l, platforms->pairs[i].value);
	if (backends && backends->type == WM_NODE_MAP)
		for (size_t i = 0; i < backends->n; i++) {
			const struct wm_node *per = wm_yaml_find(backends->pairs[i].value, "per-platform");
			warn_gitlab_env(l, backends->pairs[i].value);
			for (size_t k = 0; per && per->type == WM_NODE_MAP && k < per->n; k++)
				warn_gitlab_env(l, per->pairs[k].value);
		}
	if (includes && includes->type == WM_NODE_SEQ)
		for (size_t i = 0; i < includes->n; i++)
			warn_gitlab_env(l, includes->items[i]);
}

/* ---- the whole file, and the entry points -------------------------------------- */

static const char *const top_keys[] = { "wheelmatrix", "project", "python", "platforms", "backends",
	"exclude", "include", "distribution", "ci", "actions", "publish", "test", "dropped" };
const struct wm_names wm_matrix_keys = WM_NAMES(top_keys);

/* The sections whose keys, written at the top, are said to be indented too little. */
static const struct wm_schema_inner top_inner[] = {
	{ "'project'", &wm_matrix_project_keys }, { "'python'", &wm_python_keys },
	{ "'distribution'", &wm_matrix_distribution_keys }, { "'ci'", &wm_matrix_ci_keys },
	{ "'publish'", &wm_matrix_publish_keys }, { "a backend", &wm_backends_keys },
	{ "'test'", &wm_backends_test_keys },
};

/* The reader learns the backends' ids before the project is read through it (wm_reader.backends). */
static void tell_backends(struct wm_loader *l)
{
	const struct wm_node *b = present(l->root, "backends");
	const char **ids = NULL, *implied = "cpu";
	size_t n = 0;

	if (!l->reader || !l->reader->backends)
		return;
	if (b && b->type == WM_NODE_MAP && !(ids = calloc(b->n + 1, sizeof(*ids)))) {
		wm_error_code(l->c.err, WM_ENOMEM);
		return;
	}
	for (size_t i = 0; ids && i < b->n; i++)
		if (b->pairs[i].key->type == WM_NODE_SCALAR && wm_name_backend_id(b->pairs[i].key->text))
			ids[n++] = b->pairs[i].key->text;
	if (l->reader->backends(l->reader->ctx, b ? ids : &implied, b ? n : 1) < 0)
		wm_error_code(l->c.err, WM_ENOMEM);
	free(ids);
}

static void load_root(struct wm_loader *l)
{
	const struct wm_node *r = l->root, *v;
	size_t errors;

	if (!wm_schema_map_inner(&l->c, r, "the matrix", top_keys, WM_ARRAY_SIZE(top_keys), top_inner,
			WM_ARRAY_SIZE(top_inner)))
		return;
	tell_backends(l);
	load_version(l);
	load_project(l, present(r, "project"));
	errors = l->c.err->nerrors;
	wm_python_load(l, wm_yaml_find(r, "python"));
	l->python_ok = l->c.err->nerrors == errors;
	wm_platforms_load(l, wm_yaml_find(r, "platforms"));
	if ((v = present(r, "distribution")))
		load_distribution(l, v);
	/* before the backends, whose own `test:` goes over it */
	if ((v = present(r, "test")))
		wm_backends_load_test(l, v, NULL, false, &l->m->test);
	wm_backends_load(l, wm_yaml_find(r, "backends"));
	if (l->platforms_ok && l->backends_ok)
		wm_backends_runs_on(l);
	wm_python_backends(l);
	if ((v = present(r, "exclude")))
		wm_rules_load_excludes(l, v);
	if ((v = present(r, "include")))
		wm_rules_load_includes(l, v);
	if ((v = present(r, "dropped")))
		wm_rules_load_drops(l, v);
	load_ci(l, present(r, "ci"));
	/* the runner labels are GitHub's: a GitLab-only matrix runs on none of them */
	if (l->platforms_ok && l->m->github.enabled)
		wm_platforms_check_runners(l);
	check_gitlab_env(l);
	if ((v = present(r, "actions")))
		load_actions(l, v);
	load_publish(l, present(r, "publish"));
	if (l->platforms_ok && l->backends_ok)
		wm_backends_check_toolkits(l);
	wm_backends_check_defaults(l);
	if (l->m->name)
		wm_backends_check_distributions(l);
	if (l->backends_ok)
		wm_variants_check(l);
	wm_settings_merge(l);
	wm_cargoconfig_check(l);
}

int wm_matrix_load(struct wm_matrix **out, const struct wm_catalog *cat,
	const char *name, const char *text, size_t len, struct wm_error *err)
{
	return wm_matrix_load_project(out, cat, name, text, len, NULL, err);
}

int wm_matrix_load_project(struct wm_matrix **out, const struct wm_catalog *cat,
	const char *name, const char *text, size_t len, const struct wm_reader *r, struct wm_error *err)
{
	static const struct wm_yaml_limits limits = { WM_MATRIX_MAX_BYTES, WM_MATRIX_MAX_DEPTH, WM_MATRIX_MAX_NODES,
		WM_MATRIX_MAX_TEXT };
	struct matrix_state *st = calloc(1, sizeof(*st));
	struct wm_loader l;
	int ret;

	*out = NULL;
	if (!st)
		return wm_error_oom(err);
	wm_arena_init(&st->arena);
	st->pub.arena = &st->arena;
	if ((ret = wm_yaml_parse(&st->doc, name, text, len, &limits, err)) < 0)
		goto fail;
	st->pub.file = st->doc.file;
	memset(&l, 0, sizeof(l));
	l.c.doc = &st->doc;
	l.c.err = err;
	l.c.arena = &st->arena;
	l.cat = cat;
	l.reader = r;
	l.m = &st->pub;
	l.root = st->doc.root;
	if (!l.root) {
		wm_error_nopos(err, WM_EINVALID, WM_SEV_ERROR, name,
			"the file is empty: a matrix starts with 'wheelmatrix: 1'");
		ret = WM_EINVALID;
		goto fail;
	}
	if (l.root->type != WM_NODE_MAP) {
		wm_schema_error(&l.c, l.root, "the matrix must be a mapping of keys such as 'wheelmatrix' and "
			"'backends', not %s", wm_yaml_kind(l.root));
		ret = WM_EINVALID;
		goto fail;
	}
	load_root(&l);
	st->project = l.project;
	if (!err->code)
		wm_expand_prepare(&st->pub, cat, &l.c);
	if (!err->code && st->pub.strategy == WM_STRATEGY_META && l.project)
		wm_meta_scan(&st->pub.meta, &st->arena, &st->pub, r, err);
	if (err->code) {
		ret = err->code;
		goto fail;
	}
	*out = &st->pub;
	return 0;
fail:
	wm_error_code(err, ret < 0 ? (enum wm_err)ret : WM_EINVALID);
	wm_error_sort(err);
	wm_matrix_free(&st->pub);
	return ret < 0 ? ret : WM_EINVALID;
}

int wm_matrix_load_path(struct wm_matrix **out, const struct wm_catalog *cat, const char *path,
	const struct wm_reader *r, struct wm_error *err)
{
	char *text = NULL, *root = NULL;
	size_t len = 0;
	struct wm_reader tree;
	int ret;

	*out = NULL;
	if ((ret = wm_io_read(&text, &len, path, WM_MATRIX_MAX_BYTES, err)) < 0)
		return ret;
	if (!r) {
		/* the repository root is the matrix file's directory */
		if (!(root = wm_io_path_dir(path))) {
			free(text);
			return wm_error_oom(err);
		}
		wm_io_tree_reader(&tree, root);
		r = &tree;
	}
	ret = wm_matrix_load_project(out, cat, strcmp(path, "-") == 0 ? "<stdin>" : path, text, len, r, err);
	free(root);
	free(text);
	return ret;
}

int wm_matrix_load_file(struct wm_matrix **out, const struct wm_catalog *cat,
	const char *path, struct wm_error *err)
{
	return wm_matrix_load_path(out, cat, path, NULL, err);
}

void wm_matrix_free(struct wm_matrix *m)
{
	struct matrix_state *st = (struct matrix_state *)m;
	if (!st)
		return;
	wm_project_free(st->project);
	wm_yaml_release(&st->doc);
	wm_arena_release(&st->arena);
	free(st);
}

const struct wm_doc *wm_matrix_doc(const struct wm_matrix *m)
{
	return &((const struct matrix_state *)(const void *)m)->doc;
}
