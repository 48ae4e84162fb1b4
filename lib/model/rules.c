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
		if (strcmp(m->platforms[i]->id, base->id) == 0) {
			base = m->platforms[i];  /* the matrix's overrides first, then the backend's runner there */
			if (rule->include_backend && m->runs_on && m->runs_on[rule->include_backend->index * m->nplatforms + i])
				base = m->runs_on[rule->include_backend->index * m->nplatforms + i];
		}
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

/* ---- dropped: planned drops --------------------------------------------------------- */

static const char *const drop_keys[] = { "python", "platform", "backend", "reason" };
const struct wm_names wm_rules_drop_keys = WM_NAMES(drop_keys);

/*
 * A Python entry of a wheel a release may have had (index/plan.c names a dropped wheel's so):
 * 3.N, 3.Nt, pp3.N, abi3 or py3, N of one or two digits.  A version this tool builds for no more
 * (3.7) is as good as any: it is what a drop is about.
 */
static bool drop_python_entry(const char *s)
{
	bool pp = strncmp(s, "pp", 2) == 0;
	size_t n;
	if (strcmp(s, "abi3") == 0 || strcmp(s, "py3") == 0)
		return true;
	if (pp)
		s += 2;
	if (s[0] != '3' || s[1] != '.' || !(n = strspn(s + 2, "0123456789")) || n > 2)
		return false;
	s += 2 + n;
	return !*s || (!pp && s[0] == 't' && !s[1]);
}

/* A literal entry of that grammar, or a glob that matches one. */
static bool drop_python(struct wm_loader *l, const struct wm_node *n)
{
	char entry[16];
	if (!wm_text_is_glob(n->text)) {
		if (drop_python_entry(n->text))
			return true;
		wm_schema_error(&l->c, n, "invalid Python '%s' in a planned drop: a version such as \"3.8\" or \"3.13t\", "
			"PyPy's \"pp3.10\", \"abi3\" or \"py3\", or a glob of them", n->text);
		return false;
	}
	for (unsigned minor = 0; minor < 100; minor++)
		for (int kind = 0; kind < 3; kind++) {
			snprintf(entry, sizeof(entry), kind == 2 ? "pp3.%u" : kind ? "3.%ut" : "3.%u", minor);
			if (wm_text_glob_match(n->text, entry))
				return true;
		}
	if (wm_text_glob_match(n->text, "abi3") || wm_text_glob_match(n->text, "py3"))
		return true;
	wm_schema_error(&l->c, n, "Python pattern '%s' matches no Python version", n->text);
	return false;
}

/*
 * A catalog platform id (pattern), whose platforms' wheel tags go into drop->platform_tags; else
 * a wheel platform tag (pattern): tags are lower-case letters, digits, '_' and '.', never '-'.
 */
static bool drop_platform(struct wm_loader *l, const struct wm_node *n, struct wm_drop *drop)
{
	const char *s = n->text;
	size_t count = 0, ncat = wm_catalog_platform_count(l->cat);
	for (size_t i = 0; i < ncat; i++)
		count += wm_text_glob_match(s, wm_catalog_platform_at(l->cat, i)->id);
	if (count) {
		drop->platform_tags.items = wm_arena_array(l->c.arena, count, sizeof(*drop->platform_tags.items));
		if (wm_loader_oom(l, drop->platform_tags.items))
			return false;
		for (size_t i = 0; i < ncat; i++) {
			const struct wm_platform *p = wm_catalog_platform_at(l->cat, i);
			if (wm_text_glob_match(s, p->id))
				drop->platform_tags.items[drop->platform_tags.n++] = p->platform_tag;
		}
		return true;
	}
	if (strchr(s, '-')) {
		if (wm_text_is_glob(s))
			wm_schema_error(&l->c, n, "platform pattern '%s' matches no platform of the catalog", s);
		else
			wm_platforms_unknown(l, n, s);
		return false;
	}
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.*?[]!") == strlen(s))
		return true;
	wm_schema_error(&l->c, n, "invalid platform '%s' in a planned drop: a platform id of the catalog "
		"(linux-i686, \"windows-*\") or a wheel's platform tag (manylinux_2_17_i686, \"musllinux_*\")", s);
	return false;
}

static void load_drop(struct wm_loader *l, const struct wm_node *r)
{
	struct wm_matrix *m = l->m;
	struct wm_drop *drop = &m->drops[m->ndrops];
	const struct wm_node *bn, *pn, *yn, *rn;
	bool ok = true;

	memset(drop, 0, sizeof(*drop));
	if (!wm_schema_map(&l->c, r, "a planned drop", drop_keys, WM_ARRAY_SIZE(drop_keys)))
		return;
	ok &= rule_field(l, r, "backend", &drop->backend, &bn);
	ok &= rule_field(l, r, "platform", &drop->platform, &pn);
	ok &= rule_field(l, r, "python", &drop->python, &yn);
	ok &= rule_field(l, r, "reason", &drop->reason, &rn);
	if (!ok)
		return;
	if (!bn && !pn && !yn) {
		wm_schema_error(&l->c, r, "a planned drop names the wheels it drops: give 'python', 'platform' or "
			"'backend'");
		ok = false;
	}
	if (!rn)
		wm_schema_error(&l->c, r, "a planned drop needs a 'reason', which 'wheelmatrix plan' prints beside "
			"each wheel it drops");
	else if (!drop->reason[strspn(drop->reason, " \t\r\n")])
		wm_schema_error(&l->c, rn, "the 'reason' of a planned drop cannot be blank");
	if (!rn || !drop->reason[strspn(drop->reason, " \t\r\n")])
		ok = false;
	if (bn && l->backends_ok && !rule_backend(l, bn, true))
		ok = false;
	if (pn && !drop_platform(l, pn, drop))
		ok = false;
	if (yn && !drop_python(l, yn))
		ok = false;
	if (!ok)
		return;
	drop->loc = wm_loader_loc(l, r);
	m->ndrops++;
}

void wm_rules_load_drops(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	if (n->type != WM_NODE_SEQ) {
		wm_schema_error(&l->c, n, "'dropped' must be a list of planned drops such as {python: \"3.8\", reason: "
			"\"end of life\"}, not %s", wm_yaml_kind(n));
		return;
	}
	m->drops = wm_arena_array(l->c.arena, n->n + 1, sizeof(*m->drops));
	if (wm_loader_oom(l, m->drops))
		return;
	for (size_t i = 0; i < n->n; i++)
		load_drop(l, n->items[i]);
}
