/*
 * variants.c — strategy `variants` (wheel variants, PEP 817/825 drafts): the provider
 * plugins of `distribution.providers`, each backend's `variant:` (its properties and label),
 * and the checks across backends.  The properties follow PEP 825's grammar
 * (`namespace :: feature :: value`), which also keeps them safe to pass on to a shell.
 */
#include <stdio.h>
#include <string.h>
#include "util/arena.h"
#include "util/map.h"
#include "util/name.h"
#include "formats/yaml.h"
#include "model/loader.h"
#include "model/schema.h"
#include "model/variants.h"

/* [a-z0-9_]+, and '.' too in values and labels */
static bool token_valid(const char *s, size_t len, bool dot)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (dot && c == '.')))
			return false;
	}
	return true;
}

bool wm_variants_label_valid(const char *s)
{
	return token_valid(s, strlen(s), true) && strcmp(s, "null") != 0;
}

/* A module path and an optional attribute: `pkg.mod` or `pkg.mod:Class`, ASCII word characters and '.'. */
static bool plugin_api_valid(const char *s)
{
	const char *colon = strchr(s, ':');
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (p == colon)
			continue;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
			return false;
	}
	return *s && s != colon && (!colon || (colon[1] && !strchr(colon + 1, ':')));
}

/*
 * `namespace :: feature :: value` (blanks around `::` optional) into its
 * three parts; *why says what is wrong when it is not one.
 */
static bool property_split(const char *s, const char *part[3], size_t len[3], const char **why)
{
	static const char *const names[] = { "its namespace must be [a-z0-9_]+", "its feature must be [a-z0-9_]+",
		"its value must be [a-z0-9_.]+" };
	const char *p = s;
	for (int i = 0; i < 3; i++) {
		const char *end;
		while (*p == ' ')
			p++;
		end = i < 2 ? strstr(p, "::") : p + strlen(p);
		if (!end) {
			*why = "a property is 'namespace :: feature :: value'";
			return false;
		}
		part[i] = p;
		len[i] = (size_t)(end - p);
		while (len[i] > 0 && p[len[i] - 1] == ' ')
			len[i]--;
		if (!token_valid(part[i], len[i], i == 2)) {
			*why = names[i];
			return false;
		}
		p = i < 2 ? end + 2 : end;
	}
	return true;
}

static const char *const provider_keys[] = { "requires", "plugin-api", "optional" };
const struct wm_names wm_variants_provider_keys = WM_NAMES(provider_keys);
static const char *const variant_keys[] = { "properties", "label" };
const struct wm_names wm_variants_keys = WM_NAMES(variant_keys);

static void load_provider(struct wm_loader *l, struct wm_provider *pr, const struct wm_pair *pair)
{
	const struct wm_node *n = pair->value, *v, **nodes;
	char what[96];

	pr->ns = pair->key->text;
	pr->loc = wm_loader_loc(l, pair->key);
	if (!token_valid(pr->ns, strlen(pr->ns), false))
		wm_schema_error(&l->c, pair->key, "invalid variant namespace '%s': a namespace is [a-z0-9_]+", pr->ns);
	snprintf(what, sizeof(what), "provider '%.40s'", pr->ns);
	if (!wm_schema_map(&l->c, n, what, provider_keys, WM_ARRAY_SIZE(provider_keys)))
		return;
	if (!(v = wm_yaml_find(n, "requires"))) {
		wm_schema_error(&l->c, n, "provider '%s' needs 'requires': the requirements that install its plugin "
			"(for example [\"%s-variant-provider>=0.1,<1\"])", pr->ns, pr->ns);
	} else if (wm_schema_strlist(&l->c, v, "'requires'", &pr->requires, &nodes)) {
		if (pr->requires.n == 0)
			wm_schema_error(&l->c, v, "provider '%s': 'requires' is empty", pr->ns);
		for (size_t i = 0; i < pr->requires.n; i++) {
			const char *why;
			if (!wm_name_requirement(pr->requires.items[i], &why))
				wm_schema_error(&l->c, nodes[i], "invalid requirement '%s': %s", pr->requires.items[i], why);
		}
	}
	if ((v = wm_yaml_find(n, "plugin-api")) && wm_schema_string(&l->c, v, "'plugin-api'", &pr->plugin_api) &&
			!plugin_api_valid(pr->plugin_api)) {
		wm_schema_error(&l->c, v, "invalid 'plugin-api' '%s': a module, and optionally ':' and an attribute "
			"(\"pkg.plugin:Plugin\")", pr->plugin_api);
		pr->plugin_api = NULL;
	}
	if ((v = wm_yaml_find(n, "optional")))
		wm_schema_bool(&l->c, v, "'optional'", &pr->optional);
}

void wm_variants_load_providers(struct wm_loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;

	l->providers_node = n;
	if (n->type != WM_NODE_MAP) {
		wm_schema_error(&l->c, n, "'distribution.providers' must be a mapping of variant namespaces to their "
			"provider plugins, not %s", wm_yaml_kind(n));
		return;
	}
	if (n->n == 0) {
		wm_schema_error(&l->c, n, "'distribution.providers' is empty: each namespace the backends' variant "
			"properties use needs its provider");
		return;
	}
	m->providers = wm_arena_array(l->c.arena, n->n, sizeof(*m->providers));
	if (wm_loader_oom(l, m->providers))
		return;
	for (size_t i = 0; i < n->n; i++)
		load_provider(l, &m->providers[i], &n->pairs[i]);
	m->nproviders = n->n;
}

void wm_variants_load_backend(struct wm_loader *l, struct wm_backend *b, const struct wm_node *n)
{
	const struct wm_node *v, **nodes;

	l->variant_nodes[b->index] = n;
	if (!wm_schema_map(&l->c, n, "'variant'", variant_keys, WM_ARRAY_SIZE(variant_keys)))
		return;
	if ((v = wm_yaml_find(n, "label")) && wm_schema_string(&l->c, v, "'variant.label'", &b->variant_label) &&
			!wm_variants_label_valid(b->variant_label)) {
		if (strcmp(b->variant_label, "null") == 0)
			wm_schema_error(&l->c, v, "the variant label 'null' is the null variant's, which is the default "
				"backend");
		else
			wm_schema_error(&l->c, v, "invalid variant label '%s': PEP 825 labels are [0-9a-z_.]+",
				b->variant_label);
		b->variant_label = NULL;
	}
	if (!(v = wm_yaml_find(n, "properties")) ||
			!wm_schema_strlist(&l->c, v, "'variant.properties'", &b->variant_properties, &nodes))
		return;
	for (size_t i = 0; i < b->variant_properties.n; i++) {
		const char *part[3], *why;
		size_t len[3];
		char *canon;
		if (!property_split(b->variant_properties.items[i], part, len, &why)) {
			wm_schema_error(&l->c, nodes[i], "invalid variant property '%s': %s (PEP 825)",
				b->variant_properties.items[i], why);
			continue;
		}
		canon = wm_arena_printf(l->c.arena, "%.*s :: %.*s :: %.*s", (int)len[0], part[0], (int)len[1], part[1],
			(int)len[2], part[2]);
		if (wm_loader_oom(l, canon))
			return;
		b->variant_properties.items[i] = canon;
		for (size_t j = 0; j < i; j++)
			if (strcmp(canon, b->variant_properties.items[j]) == 0)
				wm_schema_error(&l->c, nodes[i], "variant property '%s' is listed twice", canon);
	}
}

static const struct wm_provider *provider_of(const struct wm_matrix *m, const char *property)
{
	size_t len = strcspn(property, " ");
	for (size_t i = 0; i < m->nproviders; i++)
		if (strlen(m->providers[i].ns) == len && strncmp(m->providers[i].ns, property, len) == 0)
			return &m->providers[i];
	return NULL;
}

/* Whether two backends' property lists are the same set. */
static bool same_properties(const struct wm_strlist *a, const struct wm_strlist *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		bool found = false;
		for (size_t j = 0; j < b->n && !found; j++)
			found = strcmp(a->items[i], b->items[j]) == 0;
		if (!found)
			return false;
	}
	return true;
}

/* Under another strategy: `variant:` and `providers` belong to strategy variants. */
static void check_absent(struct wm_loader *l)
{
	const struct wm_matrix *m = l->m;
	for (size_t i = 0; i < m->nbackends; i++)
		if (l->variant_nodes && l->variant_nodes[i])
			wm_schema_error(&l->c, l->variant_nodes[i], "'variant' belongs to strategy 'variants' "
				"('distribution: {strategy: variants}')");
	if (l->providers_node)
		wm_schema_error(&l->c, l->providers_node, "'distribution.providers' belongs to strategy 'variants'");
}

void wm_variants_check(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	bool *used;

	if (m->strategy != WM_STRATEGY_VARIANTS) {
		check_absent(l);
		return;
	}
	if (!m->default_backend)
		wm_schema_error_at(&l->c, m->index_loc.line, m->index_loc.column, 1, "strategy 'variants' needs a "
			"default backend: it is the null variant, which installers without variant support and PyPI get "
			"(set 'default: true' on one backend)");
	used = wm_arena_array(l->c.arena, m->nproviders + 1, sizeof(*used));
	if (wm_loader_oom(l, used))
		return;
	for (size_t i = 0; i < m->nbackends; i++) {
		struct wm_backend *b = m->backends[i];
		const struct wm_node *at = l->variant_nodes[i] ? l->variant_nodes[i] : l->backend_nodes[i];
		if (b->dist_explicit) {
			if (b->dist)
				wm_schema_error(&l->c, l->dist_nodes[i], "under strategy 'variants' every backend keeps the "
					"project's name '%s' and is told apart by its variant label: remove 'dist'", m->name);
			continue;
		}
		b->dist = m->name;
		if (b->is_default) {
			if (l->variant_nodes[i])
				wm_schema_error(&l->c, l->variant_nodes[i], "the default backend '%s' is the null variant, which "
					"has no properties and the label 'null': remove its 'variant'", b->id);
			b->variant_label = "null";
			continue;
		}
		if (!b->variant_label)
			b->variant_label = b->id;
		if (b->variant_properties.n == 0)
			wm_schema_error(&l->c, at, "backend '%s' needs 'variant: {properties: [...]}' under strategy "
				"'variants': the properties (\"nvidia :: cuda_version_lower_bound :: 12.4\") an installer "
				"chooses it by", b->id);
		for (size_t p = 0; p < b->variant_properties.n; p++) {
			const struct wm_provider *pr = provider_of(m, b->variant_properties.items[p]);
			const char *part[3], *why;
			size_t len[3];
			if (pr) {
				used[pr - m->providers] = true;
			} else if (l->providers_node && property_split(b->variant_properties.items[p], part, len, &why)) {
				/* (a property that does not parse was reported) */
				wm_schema_error(&l->c, at, "backend '%s': the namespace of '%s' has no provider in "
					"'distribution.providers'", b->id, b->variant_properties.items[p]);
			}
		}
		for (size_t j = 0; j < i; j++) {
			const struct wm_backend *o = m->backends[j];
			if (o->is_default || !o->variant_label)
				continue;
			if (strcmp(o->variant_label, b->variant_label) == 0)
				wm_schema_error(&l->c, at, "backends '%s' and '%s' have the same variant label '%s'", o->id,
					b->id, b->variant_label);
			else if (b->variant_properties.n && same_properties(&o->variant_properties, &b->variant_properties))
				wm_schema_error(&l->c, at, "backends '%s' and '%s' have the same variant properties: an installer "
					"could not choose between them", o->id, b->id);
		}
	}
	for (size_t i = 0; i < m->nproviders; i++)
		if (!used[i] && token_valid(m->providers[i].ns, strlen(m->providers[i].ns), false)) {
			const struct wm_node *key = NULL;
			for (size_t k = 0; l->providers_node && k < l->providers_node->n; k++)
				if (strcmp(l->providers_node->pairs[k].key->text, m->providers[i].ns) == 0)
					key = l->providers_node->pairs[k].key;
			wm_schema_error(&l->c, key ? key : l->providers_node, "provider '%s' serves no backend's variant "
				"properties: remove it, or use its namespace", m->providers[i].ns);
		}
	if (!l->providers_node) {
		bool any = false;
		for (size_t i = 0; i < m->nbackends; i++)
			any = any || m->backends[i]->variant_properties.n;
		if (any)
			wm_schema_error_at(&l->c, m->index_loc.line, m->index_loc.column, 1, "strategy 'variants' needs "
				"'distribution.providers': the provider plugin of each namespace the variant properties use");
	}
}
