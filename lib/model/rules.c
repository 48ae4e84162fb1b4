/* rules.c — the matrix's `exclude` and `include` rules, against its backends, platforms and Python versions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/error.h"
#include "util/text.h"
#include "formats/yaml.h"
#include "model/backends.h"
#include "model/loader.h"
#include "model/platforms.h"
#include "model/python.h"
#include "model/rules.h"
#include "model/schema.h"
#include "model/settings.h"
#include "model/untrusted.h"

static const struct wm_backend *find_backend(const struct wm_matrix *m, const char *id)
{
	for (size_t i = 0; i < m->nbackends; i++)
		if (strcmp(m->backends[i]->id, id) == 0)
			return m->backends[i];
	return NULL;
}

static void unknown_backend(struct wm_loader *l, const struct wm_node *n)
{
	const struct wm_matrix *m = l->m;
	const char **ids = malloc((m->nbackends + 1) * sizeof(*ids));
	const char *hint = NULL;
	if (ids && !wm_error_full(l->c.err, WM_SEV_ERROR)) {
		for (size_t i = 0; i < m->nbackends; i++)
			ids[i] = m->backends[i]->id;
		hint = wm_text_suggest(n->text, ids, m->nbackends);
	}
	if (hint)
		wm_schema_error(&l->c, n, "unknown backend '%s' (did you mean '%s'?)", n->text, hint);
	else
		wm_schema_error(&l->c, n, "unknown backend '%s': it is not under 'backends'", n->text);
	free(ids);
}

static bool rule_backend(struct wm_loader *l, const struct wm_node *n, bool glob_ok)
{
	const struct wm_matrix *m = l->m;
	if (wm_text_is_glob(n->text)) {
		if (!glob_ok) {
			wm_schema_error(&l->c, n, "an include names one job: write a backend id, not a pattern");
			return false;
		}
		for (size_t i = 0; i < m->nbackends; i++)
			if (wm_text_glob_match(n->text, m->backends[i]->id))
				return true;
		wm_schema_error(&l->c, n, "backend pattern '%s' matches none of the backends", n->text);
		return false;
	}
	if (find_backend(m, n->text))
		return true;
	unknown_backend(l, n);
	return false;
}

static bool rule_python(struct wm_loader *l, const struct wm_node *n)
{
	const struct wm_matrix *m = l->m;
	unsigned minor;
	bool ft, pp, gp;
	for (size_t i = 0; i < m->npythons; i++)
		if (wm_text_glob_match(n->text, m->pythons[i]->version))
			return true;
	if (wm_text_is_glob(n->text)) {
		wm_schema_error(&l->c, n, "Python pattern '%s' matches none of the matrix's versions", n->text);
		return false;
	}
	if (strcmp(n->text, "abi3") == 0)
		wm_schema_error(&l->c, n, "this matrix has no abi3 build: set 'python.abi3' first");
	else if (wm_python_parse_version(l, n, "versions", WM_PYTHON_MIN, true, &minor, &ft, &pp, &gp))
		wm_schema_error(&l->c, n, "Python %s is not one of the matrix's versions", n->text);
	return false;
}

static const char *const rule_keys[] = { "backend", "platform", "python" };
const struct wm_names wm_rules_exclude_keys = WM_NAMES(rule_keys);
static const char *const include_keys[] = { "backend", "platform", "python", "env", "runner", "image", "tags",
	"manylinux", "deployment-target", "container", "cross", "target", "features", "no-default-features", "profile", "rust-toolchain",
	"rustup-components", "unstable-flags", "zig", "docker-options" };
const struct wm_names wm_rules_include_keys = WM_NAMES(include_keys);

static bool rule_field(struct wm_loader *l, const struct wm_node *rule, const char *key, const char **out,
	const struct wm_node **node)
{
	const struct wm_node *v = wm_yaml_find(rule, key);
	char what[16];
	*out = NULL;
	*node = v;
	if (!v)
		return true;
	snprintf(what, sizeof(what), "'%s'", key);
	return wm_schema_string(&l->c, v, what, out);
}

void wm_rules_load_excludes(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	if (n->type != WM_NODE_SEQ) {
		wm_schema_error(&l->c, n, "'exclude' must be a list of rules such as {backend: cuda, python: \"3.14t\"}, "
			"not %s", wm_yaml_kind(n));
		return;
	}
	m->excludes = wm_arena_array(l->c.arena, n->n + 1, sizeof(*m->excludes));
	if (wm_loader_oom(l, m->excludes))
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *r = n->items[i], *bn, *pn, *yn;
		struct wm_rule *rule = &m->excludes[m->nexcludes];
		bool ok = true;
		memset(rule, 0, sizeof(*rule));
		if (!wm_schema_map(&l->c, r, "an exclude rule", rule_keys, WM_ARRAY_SIZE(rule_keys)))
			continue;
		if (r->n == 0) {
			wm_schema_error(&l->c, r, "an empty exclude rule would remove every job: give 'backend', "
				"'platform' or 'python'");
			continue;
		}
		ok &= rule_field(l, r, "backend", &rule->backend, &bn);
		ok &= rule_field(l, r, "platform", &rule->platform, &pn);
		ok &= rule_field(l, r, "python", &rule->python, &yn);
		if (!ok)
			continue;
		if (rule->backend && l->backends_ok && !rule_backend(l, bn, true))
			ok = false;
		if (rule->platform && l->platforms_ok && !wm_platforms_pattern(l, pn, "platform pattern"))
			ok = false;
		if (rule->python && l->python_ok && !rule_python(l, yn))
			ok = false;
		if (!ok)
			continue;
		rule->index = m->nexcludes++;
		rule->loc = wm_loader_loc(l, r);
	}
}

static struct wm_python *include_python(struct wm_loader *l, const struct wm_node *n)
{
	const struct wm_matrix *m = l->m;
	struct wm_python *py;
	unsigned minor;
	bool ft, pp, gp;
	for (size_t i = 0; i < m->npythons; i++)
		if (strcmp(n->text, m->pythons[i]->version) == 0)
			return (struct wm_python *)m->pythons[i];
	if (strcmp(n->text, "abi3") == 0) {
		wm_schema_error(&l->c, n, "this matrix has no abi3 build: set 'python.abi3' first");
		return NULL;
	}
	if (!wm_python_parse_version(l, n, "versions", WM_PYTHON_MIN, true, &minor, &ft, &pp, &gp))
		return NULL;
	if ((py = gp ? wm_python_make_graalpy(l, n->text, minor) : pp ? wm_python_make_pypy(l, n->text, minor) :
			wm_python_make(l, n->text, minor, ft)) != NULL)
		py->loc = wm_loader_loc(l, n);
	return py;
}

static void load_include(struct wm_loader *l, const struct wm_node *r)
{
	struct wm_matrix *m = l->m;
	struct wm_rule *rule = &m->includes[m->nincludes];
	const struct wm_node *bn, *pn, *yn, *v;
	const struct wm_platform *base = NULL;
	bool ok = true;

	memset(rule, 0, sizeof(*rule));
	if (!wm_schema_map(&l->c, r, "an include rule", include_keys, WM_ARRAY_SIZE(include_keys)))
		return;
	ok &= rule_field(l, r, "backend", &rule->backend, &bn);
	ok &= rule_field(l, r, "platform", &rule->platform, &pn);
	ok &= rule_field(l, r, "python", &rule->python, &yn);
	if (!ok)
		return;
	if (!bn || !pn || !yn) {
		wm_schema_error(&l->c, r, "an include rule names one whole job: it needs %s%s%s%s%s",
			bn ? "" : "'backend'", !bn && (!pn || !yn) ? (!pn && !yn ? ", " : " and ") : "",
			pn ? "" : "'platform'", !pn && !yn ? " and " : "", yn ? "" : "'python'");
		return;
	}
	if (l->backends_ok && rule_backend(l, bn, false))
		rule->include_backend = find_backend(m, rule->backend);
	if (wm_text_is_glob(rule->platform))
		wm_schema_error(&l->c, pn, "an include names one job: write a platform id, not a pattern");
	else if ((base = wm_platforms_find(l, rule->platform)) == NULL)
		wm_platforms_unknown(l, pn, rule->platform);
	for (size_t i = 0; base && i < m->nplatforms; i++)
		if (strcmp(m->platforms[i]->id, base->id) == 0)
			base = m->platforms[i];  /* the matrix's overrides first */
	if (base)
		rule->include_platform = wm_platforms_apply_overrides(l, base, r);
	if (wm_text_is_glob(rule->python))
		wm_schema_error(&l->c, yn, "an include names one job: write a Python version, not a pattern");
	else
		rule->include_python = include_python(l, yn);
	if ((v = wm_yaml_find(r, "env")))
		wm_untrusted_load_env(l, v, &rule->env, &rule->nenv);
	{
		char *what = wm_arena_printf(l->c.arena, "the include at line %u", r->line);
		if (!wm_loader_oom(l, what))
			rule->settings = wm_settings_load(l, r, WM_SETTINGS_INCLUDE, what, NULL, NULL, rule->env, rule->nenv);
	}
	if (!rule->include_backend || !rule->include_platform || !rule->include_python)
		return;
	/* its backend's abi3 wheel: the minimum its features set */
	if (rule->include_python->abi3 && rule->include_backend->abi3)
		rule->include_python = (struct wm_python *)rule->include_backend->abi3;
	{
		/* a CPython version of a backend whose build is abi3 (as the crate says) is its abi3 wheel again */
		const struct wm_python *py = rule->include_python;
		if (rule->include_backend->abi3 && l->project && l->project->has_cargo && !py->abi3 && !py->abi3t && !py->freethreaded && !py->pypy &&
				!py->graalpy && !py->bin) {
			wm_schema_error(&l->c, yn, "backend '%s' builds one abi3 wheel for CPython 3.%u and later: an include "
				"of Python %s would build that wheel again; include python: abi3", rule->include_backend->id,
				rule->include_backend->abi3->minor, py->version);
			return;
		}
	}
	rule->loc = wm_loader_loc(l, r);
	if (!wm_backends_check_toolkit_platform(l, rule->include_backend, rule->include_platform, rule->loc))
		return;
	rule->index = m->nincludes++;
}

void wm_rules_load_includes(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	if (n->type != WM_NODE_SEQ) {
		wm_schema_error(&l->c, n, "'include' must be a list of jobs such as {backend: cpu, platform: linux-x86_64, "
			"python: \"3.8\"}, not %s", wm_yaml_kind(n));
		return;
	}
	m->includes = wm_arena_array(l->c.arena, n->n + 1, sizeof(*m->includes));
	if (wm_loader_oom(l, m->includes))
		return;
	for (size_t i = 0; i < n->n; i++)
		load_include(l, n->items[i]);
}
