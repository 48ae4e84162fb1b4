/*
 * settings.c — build settings (docs/matrix.md, "Build settings"): the keys that say how a wheel is
 * compiled (features, no-default-features, profile, the Rust toolchain, unstable flags, zig,
 * docker options, environment), read where the file says them — a platform's entry, a backend,
 * a backend's `per-platform` entries, an include — and merged per job, in that order.
 *
 * The merge is made once per (backend, matrix platform) and per include, at load: a job reads its
 * build through a pointer (expand.c), so that listing a million jobs costs no merging.  A backend
 * on a platform that neither its entry nor a per-platform entry says anything of shares the
 * backend's own merge.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/map.h"
#include "util/name.h"
#include "util/text.h"
#include "formats/toml.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/loader.h"
#include "model/project.h"
#include "model/python.h"
#include "model/schema.h"
#include "model/settings.h"
#include "model/untrusted.h"

static const char *const keys[] = { "features", "no-default-features", "profile", "rust-toolchain",
	"rustup-components", "unstable-flags", "zig", "docker-options", "env" };
const struct wm_names wm_settings_keys = WM_NAMES(keys);

bool wm_settings_is_key(const char *key)
{
	return wm_schema_is_one_of(key, keys, WM_ARRAY_SIZE(keys));
}

/* ---- one layer ------------------------------------------------------------------- */

void wm_settings_load_features(struct wm_loader *l, const struct wm_node *n, struct wm_strlist *out,
	const struct wm_loc **locs)
{
	const struct wm_node **nodes;
	struct wm_loc *at;
	struct wm_strlist features;
	*locs = NULL;
	if (!wm_schema_strlist(&l->c, n, "'features'", &features, &nodes))
		return;
	if (wm_loader_oom(l, at = wm_arena_array(l->c.arena, features.n + 1, sizeof(*at))))
		return;
	*out = features;
	*locs = at;
	for (size_t i = 0; i < features.n; i++) {
		const char *why;
		at[i] = wm_loader_loc(l, nodes[i]);
		if (!wm_name_feature(features.items[i], &why)) {
			wm_schema_error(&l->c, nodes[i], "invalid Cargo feature '%s': %s", features.items[i], why);
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(features.items[i], features.items[j]) == 0)
				wm_schema_error(&l->c, nodes[i], "feature '%s' is listed twice", features.items[i]);
		if (l->project) {
			const struct wm_project *p = l->project;
			const char *f = features.items[i], *hint = NULL, *slash = strchr(f, '/');
			char did[96] = "";
			if (wm_project_has_feature(p, f, wm_error_full(l->c.err, WM_SEV_ERROR) ? NULL : &hint))
				continue;
			if (hint)
				snprintf(did, sizeof(did), " (did you mean '%s'?)", hint);
			if (strncmp(f, "dep:", 4) == 0)
				wm_schema_error(&l->c, nodes[i], "feature '%s': '%s' is not an optional dependency in %s%s",
					f, f + 4, p->cargo_path, did);
			else if (slash)
				wm_schema_error(&l->c, nodes[i], "feature '%s': '%.*s' is neither a dependency nor a feature "
					"in %s%s", f, (int)(slash - f), f, p->cargo_path, did);
			else
				wm_schema_error(&l->c, nodes[i], "feature '%s' is not in %s [features]%s", f, p->cargo_path, did);
		}
	}
}

/* Reads Cargo.toml at `path` through the loader's reader into `doc`: 0, 1 when there is none, or an error. */
static int read_manifest(struct wm_loader *l, const char *path, struct wm_toml_doc *doc)
{
	char *data = NULL;
	size_t len = 0;
	int ret = l->reader->read(l->reader->ctx, path, &data, &len, l->c.err);
	if (ret != 0)
		return ret;
	ret = wm_toml_parse(doc, path, data, len, l->c.err);
	free(data);
	return ret;
}

/* The directory of `path` with a trailing '/', or "" for a path at the root; in the arena. */
static char *dir_of(struct wm_loader *l, const char *path)
{
	const char *slash = strrchr(path, '/');
	return wm_arena_strndup(l->c.arena, path, slash ? (size_t)(slash - path) + 1 : 0);
}

/*
 * A profile the build names must be one Cargo knows: a built-in one, or a [profile.NAME] of the
 * workspace's root manifest, the only one whose profiles Cargo reads (the crate's own Cargo.toml
 * when it is no member of a workspace above it in the repository).
 */
static void check_profile(struct wm_loader *l, const struct wm_node *v)
{
	static const char *const builtin[] = { "dev", "release", "test", "bench" };
	const struct wm_project *p = l->project;
	struct wm_toml_doc root;
	const struct wm_toml_value *own;
	const char *root_path = NULL, *member_has = NULL;
	char *dir;
	bool found = false, own_has;

	if (wm_schema_is_one_of(v->text, builtin, WM_ARRAY_SIZE(builtin)) || !p || !p->has_cargo || !l->reader)
		return;
	own = wm_toml_get_path(p->cargo.root, "profile");
	own_has = wm_toml_is_table(own) && wm_toml_table_get(own->table, v->text);
	if (wm_toml_table_get(p->cargo.root, "workspace")) {
		root_path = p->cargo_path;
		found = own_has;
	} else {
		if (own_has)
			member_has = p->cargo_path;
		/* the nearest Cargo.toml above with [workspace] is the root Cargo reads profiles from */
		for (dir = dir_of(l, p->cargo_path); dir && *dir && !root_path;) {
			char *up, *path;
			int ret;
			dir[strlen(dir) - 1] = '\0';
			up = dir_of(l, dir);
			if (!up || !(path = wm_arena_printf(l->c.arena, "%sCargo.toml", up))) {
				wm_loader_oom(l, NULL);
				return;
			}
			memset(&root, 0, sizeof(root));
			ret = read_manifest(l, path, &root);
			if (ret < 0) {
				wm_toml_release(&root);
				return;
			}
			if (ret == 0 && wm_toml_table_get(root.root, "workspace")) {
				const struct wm_toml_value *profiles = wm_toml_table_get(root.root, "profile");
				root_path = path;
				found = wm_toml_is_table(profiles) && wm_toml_table_get(profiles->table, v->text);
			}
			wm_toml_release(&root);
			dir = up;
		}
		if (!root_path) {
			root_path = p->cargo_path;
			found = member_has != NULL;
		}
	}
	if (found)
		return;
	if (member_has)
		wm_schema_error(&l->c, v, "Cargo profile '%s' is defined in %s, a member of the workspace whose root is "
			"%s: Cargo reads profiles from the root's manifest alone, so define [profile.%s] there",
			v->text, member_has, root_path, v->text);
	else
		wm_schema_error(&l->c, v, "Cargo profile '%s' is not defined: Cargo knows dev, release, test and bench, "
			"and the [profile.NAME] tables of %s", v->text, root_path);
}

/* A list whose every item obeys `ok`, else reported with `grammar` (what a valid item is). */
static bool word_list(struct wm_loader *l, const struct wm_node *v, const char *what, bool (*ok)(const char *),
	const char *grammar, struct wm_strlist *out)
{
	const struct wm_node **nodes;
	struct wm_strlist list;
	bool good = true;
	if (!wm_schema_strlist(&l->c, v, what, &list, &nodes))
		return false;
	for (size_t i = 0; i < list.n; i++) {
		if (!ok(list.items[i])) {
			wm_schema_error(&l->c, nodes[i], "invalid %s '%s': %s", what, list.items[i], grammar);
			good = false;
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(list.items[i], list.items[j]) == 0) {
				wm_schema_error(&l->c, nodes[i], "%s '%s' is listed twice", what, list.items[i]);
				good = false;
				break;
			}
	}
	if (good)
		*out = list;
	return good;
}

/*
 * A weak dependency feature (`dep?/feature`) can reach a build only through the variant patch: on
 * maturin's command line, which maturin-action writes into a shell script unquoted, its '?' is a
 * pattern of the shell.
 */
static bool cli_feature(struct wm_loader *l, const char *feature, struct wm_loc at, const char *how)
{
	if (!strchr(feature, '?'))
		return true;
	wm_schema_error_at(&l->c, at.line, at.column, (unsigned)strlen(feature), "feature '%s' cannot go on maturin's "
		"command line, %s: maturin-action writes the arguments into a shell script unquoted, where '?' is a "
		"pattern; give it in a backend's 'features' alone, which reach the build through the variant patch",
		feature, how);
	return false;
}

struct wm_settings *wm_settings_load(struct wm_loader *l, const struct wm_node *n, enum wm_settings_place place,
	const char *what, const struct wm_strlist *features, const struct wm_loc *feature_locs,
	const struct wm_env *env, size_t nenv)
{
	struct wm_settings *s;
	const struct wm_node *v;
	bool any = (features && features->n) || nenv;
	bool b;

	for (size_t i = 0; n && n->type == WM_NODE_MAP && i < n->n; i++)
		if (wm_settings_is_key(n->pairs[i].key->text) && (strcmp(n->pairs[i].key->text, "features") != 0 || !features) &&
				(strcmp(n->pairs[i].key->text, "env") != 0 || !env))
			any = true;
	if (!any)
		return NULL;
	if (wm_loader_oom(l, s = wm_arena_alloc(l->c.arena, sizeof(*s))))
		return NULL;
	s->what = what;
	s->loc = wm_loader_loc(l, n);
	s->no_default_features = s->zig = -1;
	if (features) {
		s->features = *features;
		s->feature_locs = feature_locs;
	} else if ((v = wm_yaml_find(n, "features"))) {
		wm_settings_load_features(l, v, &s->features, &s->feature_locs);
		for (size_t i = 0; i < s->features.n; i++)
			cli_feature(l, s->features.items[i], s->feature_locs[i], place == WM_SETTINGS_PLATFORM ?
				"where a platform's features go" : place == WM_SETTINGS_INCLUDE ? "where an include's features go" :
				"where a per-platform entry's features go");
	}
	if ((v = wm_yaml_find(n, "no-default-features")) && wm_schema_bool(&l->c, v, "'no-default-features'", &b))
		s->no_default_features = b;
	if ((v = wm_yaml_find(n, "profile")) && wm_schema_string(&l->c, v, "'profile'", &s->profile)) {
		if (!wm_name_cargo_profile(s->profile)) {
			wm_schema_error(&l->c, v, "invalid Cargo profile '%s': a profile's name is letters, digits, '-' and '_' "
				"(Cargo's rule), such as 'release' or 'dist'", s->profile);
			s->profile = NULL;
		} else {
			check_profile(l, v);
		}
	}
	if ((v = wm_yaml_find(n, "rust-toolchain")) && wm_schema_string(&l->c, v, "'rust-toolchain'", &s->rust_toolchain)) {
		s->toolchain_loc = wm_loader_loc(l, v);
		if (!wm_name_rust_toolchain(s->rust_toolchain)) {
			wm_schema_error(&l->c, v, "invalid Rust toolchain '%s': a rustup toolchain is stable, beta, nightly or "
				"a release such as 1.85.0, with an optional date and host (nightly-2026-01-15)", s->rust_toolchain);
			s->rust_toolchain = NULL;
		}
	}
	if ((v = wm_yaml_find(n, "rustup-components")))
		word_list(l, v, "rustup component", wm_name_rustup_component, "a rustup component is lower-case letters, "
			"digits, '_', '.' and '-', such as rust-src or llvm-tools-preview", &s->rustup_components);
	if ((v = wm_yaml_find(n, "unstable-flags"))) {
		s->unstable_loc = wm_loader_loc(l, v);
		word_list(l, v, "unstable flag", wm_name_unstable_flag, "a Cargo -Z flag such as build-std or "
			"build-std=std,panic_abort (without '-Z')", &s->unstable_flags);
	}
	if ((v = wm_yaml_find(n, "zig")) && wm_schema_bool(&l->c, v, "'zig'", &b)) {
		s->zig = b;
		s->zig_loc = wm_loader_loc(l, v);
	}
	if ((v = wm_yaml_find(n, "docker-options"))) {
		s->docker_loc = wm_loader_loc(l, v);
		word_list(l, v, "docker option", wm_name_docker_option, "each word of 'docker run' options is letters, "
			"digits and _=:,./@+- (write --shm-size=2g as one word, or --volume and /data:/data as two)",
			&s->docker_options);
	}
	if (env) {
		s->env = env;
		s->nenv = nenv;
	} else if ((v = wm_yaml_find(n, "env"))) {
		struct wm_env *e;
		wm_untrusted_load_env(l, v, &e, &s->nenv);
		s->env = e;
	}
	return s;
}

/* ---- the merge ------------------------------------------------------------------- */

/* A feature of [tool.maturin].features that maturin enables always, with where it is written. */
struct plain {
	const char *name;
	struct wm_toml_span span;
};

struct merge {
	struct wm_loader *l;
	struct plain *plain;        /* [tool.maturin].features' plain entries */
	size_t nplain;
	bool plain_checked;         /* reported, when one cannot go on the command line */
	struct wm_map reported;     /* "line:column" of what was reported across layers */
};

/* Reports once per position: true the first time. */
static bool first_report(struct merge *mg, struct wm_loc at)
{
	char key[32];
	int n = snprintf(key, sizeof(key), "%u:%u", at.line, at.column);
	if (wm_map_get(&mg->reported, key, (size_t)n))
		return false;
	if (wm_map_put(&mg->reported, key, (size_t)n, (void *)1) < 0)
		wm_loader_oom(mg->l, NULL);
	return true;
}

/*
 * The plain entries of [tool.maturin].features: strings, and tables with a `feature` and no
 * condition (maturin's FeatureSpec takes those as plain too; PyO3/maturin src/pyproject_toml.rs,
 * FeatureSpec::split).  The conditional ones maturin adds itself, whatever --features says.
 */
static void read_plain(struct merge *mg)
{
	const struct wm_project *p = mg->l->project;
	const struct wm_toml_value *f = p ? wm_toml_get_path(p->py.root, "tool.maturin.features") : NULL;
	if (!wm_toml_is_array(f))
		return;
	if (wm_loader_oom(mg->l, mg->plain = wm_arena_array(mg->l->c.arena, f->array.n + 1, sizeof(*mg->plain))))
		return;
	for (size_t i = 0; i < f->array.n; i++) {
		const struct wm_toml_value *item = f->array.items[i], *name = item;
		if (wm_toml_is_table(item)) {
			name = wm_toml_table_get(item->table, "feature");
			if (wm_toml_table_get(item->table, "python-version") ||
					wm_toml_table_get(item->table, "python-implementation"))
				continue;
		}
		if (!wm_toml_is_string(name) || strlen(name->str) != name->len)
			continue;
		mg->plain[mg->nplain].name = name->str;
		mg->plain[mg->nplain++].span = name->span;
	}
}

/*
 * [tool.maturin].features on maturin's command line: each must be a Cargo feature without '?', as
 * pyproject.toml is the repository's as much as the matrix file is.
 */
static void check_plain(struct merge *mg)
{
	const struct wm_project *p = mg->l->project;
	if (mg->plain_checked)
		return;
	mg->plain_checked = true;
	for (size_t i = 0; i < mg->nplain; i++) {
		const char *why = "'?' is a pattern of the shell", *f = mg->plain[i].name;
		if (wm_name_feature(f, &why) && !strchr(f, '?'))
			continue;
		wm_toml_fail(&p->py, mg->l->c.err, WM_EINVALID, &mg->plain[i].span, "feature '%s' of [tool.maturin].features "
			"cannot go on maturin's command line, where the features a platform or a per-platform entry adds take "
			"the whole list (maturin's --features replaces [tool.maturin].features): %s", f, why);
	}
}

static bool has(const struct wm_strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i], s) == 0)
			return true;
	return false;
}

/* The layers of one job, in order: platform, backend, per-platform entries, include. */
struct layers {
	const struct wm_settings *items[64];
	size_t n;
	bool overflow;
};

static void add_layer(struct layers *ls, const struct wm_settings *s)
{
	if (!s)
		return;
	if (ls->n == WM_ARRAY_SIZE(ls->items)) {
		ls->overflow = true;
		return;
	}
	ls->items[ls->n++] = s;
}

/* Appends `s` to `out` (of capacity enough) unless it is there. */
static void add_unique(struct wm_strlist *out, const char *s)
{
	if (!has(out, s))
		out->items[out->n++] = s;
}

static size_t count_items(const struct layers *ls, size_t off)
{
	size_t n = 0;
	for (size_t i = 0; i < ls->n; i++)
		n += ((const struct wm_strlist *)(const void *)((const char *)ls->items[i] + off))->n;
	return n;
}

/* The union of one list field over the layers, in order. */
static bool merge_list(struct wm_loader *l, const struct layers *ls, size_t off, struct wm_strlist *out)
{
	size_t n = count_items(ls, off);
	memset(out, 0, sizeof(*out));
	if (!n)
		return true;
	if (wm_loader_oom(l, out->items = wm_arena_array(l->c.arena, n, sizeof(char *))))
		return false;
	for (size_t i = 0; i < ls->n; i++) {
		const struct wm_strlist *from = (const struct wm_strlist *)(const void *)((const char *)ls->items[i] + off);
		for (size_t k = 0; k < from->n; k++)
			add_unique(out, from->items[k]);
	}
	return true;
}

static bool merge_env(struct wm_loader *l, const struct layers *ls, struct wm_build *b)
{
	size_t cap = 0;
	struct wm_env *env;
	for (size_t i = 0; i < ls->n; i++)
		cap += ls->items[i]->nenv;
	if (!cap)
		return true;
	if (wm_loader_oom(l, env = wm_arena_array(l->c.arena, cap, sizeof(*env))))
		return false;
	for (size_t i = 0; i < ls->n; i++)
		for (size_t k = 0; k < ls->items[i]->nenv; k++) {
			const struct wm_env *e = &ls->items[i]->env[k];
			size_t j;
			for (j = 0; j < b->nenv && strcmp(env[j].name, e->name) != 0; j++)
				;
			env[j] = *e;
			if (j == b->nenv)
				b->nenv++;
		}
	b->env = env;
	return true;
}

/* maturin's arguments for the build (struct wm_build). */
static bool make_args(struct merge *mg, struct wm_build *b, const struct wm_backend *be)
{
	static const char *release[] = { "--release" };
	struct wm_loader *l = mg->l;
	const char **w;
	struct wm_buf text = WM_BUF_INIT;
	size_t n = 0;

	/* maturin build --release, as ever: shared by every such build */
	if (!b->profile && !b->cli_features && b->default_features && !b->zig && !b->unstable_flags.n) {
		b->args.items = release;
		b->args.n = 1;
		b->args_text = release[0];
		return true;
	}
	if (wm_loader_oom(l, w = wm_arena_array(l->c.arena, 8 + 2 * b->unstable_flags.n, sizeof(*w))))
		return false;
	if (b->profile) {
		w[n++] = "--profile";
		w[n++] = b->profile;
	} else {
		w[n++] = "--release";
	}
	if (b->cli_features) {
		struct wm_buf list = WM_BUF_INIT;
		struct wm_strlist seen = { NULL, 0 };
		if (wm_loader_oom(l, seen.items = wm_arena_array(l->c.arena, mg->nplain + be->features.n + b->features.n + 1,
				sizeof(char *))))
			return false;
		for (size_t i = 0; i < mg->nplain; i++)
			add_unique(&seen, mg->plain[i].name);
		for (size_t i = 0; i < be->features.n; i++)
			add_unique(&seen, be->features.items[i]);
		for (size_t i = 0; i < b->features.n; i++)
			add_unique(&seen, b->features.items[i]);
		for (size_t i = 0; i < seen.n; i++)
			wm_buf_printf(&list, "%s%s", i ? "," : "", seen.items[i]);
		w[n++] = "--features";
		if (list.oom || wm_loader_oom(l, w[n++] = wm_arena_strdup(l->c.arena, list.ptr ? list.ptr : ""))) {
			wm_buf_release(&list);
			return false;
		}
		wm_buf_release(&list);
	}
	if (!b->default_features)
		w[n++] = "--no-default-features";
	if (b->zig)
		w[n++] = "--zig";
	for (size_t i = 0; i < b->unstable_flags.n; i++) {
		w[n++] = "-Z";
		w[n++] = b->unstable_flags.items[i];
	}
	b->args.items = w;
	b->args.n = n;
	for (size_t i = 0; i < n; i++)
		wm_buf_printf(&text, "%s%s", i ? " " : "", w[i]);
	if (text.oom || wm_loader_oom(l, b->args_text = wm_arena_strdup(l->c.arena, text.ptr)))
		b->args_text = "--release";
	wm_buf_release(&text);
	return true;
}

/*
 * The settings of backend `be` on platform `p` from `ls`: scalars from the last layer that says
 * them, lists and environments added up.  `linux` marks the layers as applying to a Linux job.
 */
static const struct wm_build *merge_one(struct merge *mg, const struct layers *ls, const struct wm_backend *be,
	const struct wm_platform *p)
{
	struct wm_loader *l = mg->l;
	struct wm_build *b = wm_arena_alloc(l->c.arena, sizeof(*b));
	bool linux = p->os == WM_OS_LINUX;

	if (wm_loader_oom(l, b))
		return NULL;
	b->default_features = true;
	for (size_t i = 0; i < ls->n; i++) {
		const struct wm_settings *s = ls->items[i];
		if (s->no_default_features >= 0)
			b->default_features = !s->no_default_features;
		if (s->profile)
			b->profile = s->profile;
		if (s->rust_toolchain)
			b->rust_toolchain = s->rust_toolchain;
		if (s->zig >= 0)
			b->zig = s->zig && linux;
		if (linux)
			((struct wm_settings *)(uintptr_t)s)->on_linux = true;
	}
	if (ls->n == 1) {
		/* one layer (a backend alone, mostly): its lists are the merge, nothing to copy */
		const struct wm_settings *s = ls->items[0];
		b->features = s->features;
		b->rustup_components = s->rustup_components;
		b->unstable_flags = s->unstable_flags;
		b->env = s->env;
		b->nenv = s->nenv;
		if (linux)
			b->docker_options = s->docker_options;
	} else if (!merge_list(l, ls, offsetof(struct wm_settings, features), &b->features) ||
			!merge_list(l, ls, offsetof(struct wm_settings, rustup_components), &b->rustup_components) ||
			!merge_list(l, ls, offsetof(struct wm_settings, unstable_flags), &b->unstable_flags) ||
			!merge_env(l, ls, b) ||
			(linux && !merge_list(l, ls, offsetof(struct wm_settings, docker_options), &b->docker_options))) {
		return NULL;
	}
	/* features of a layer but the backend's, not already in [tool.maturin].features or the backend's */
	for (size_t i = 0; i < b->features.n && !b->cli_features; i++) {
		bool known = has(&be->features, b->features.items[i]);
		for (size_t k = 0; k < mg->nplain && !known; k++)
			known = strcmp(mg->plain[k].name, b->features.items[i]) == 0;
		b->cli_features = !known;
	}
	if (!make_args(mg, b, be))
		return NULL;
	return b;
}

/*
 * A backend whose toolkit leaves libraries out of the Linux wheel's repair builds in wheelmatrix's
 * own container step on GitHub (lib/emit/github.c), not through maturin-action.
 */
static bool repaired_in_container(const struct wm_backend *be)
{
	for (size_t t = 0; t < be->ntoolkits; t++)
		if (wm_yaml_find(wm_yaml_find(be->toolkits[t].toolkit->recipe, "repair-exclude"), "linux"))
			return true;
	return false;
}

/*
 * Reports what holds only for a job's merge: a feature of a layer beside the backend's that needs a
 * toolkit (one the OS ships, on a platform it supports; an installable one belongs in a backend's
 * features, whose recipe installs it); zig on a target it cannot build; unstable flags with a
 * toolchain that is not nightly; the backend's features on the command line.
 */
/*
 * pyo3's abi3 as this job's build enables it against the backend's own: a backend's abi3 wheel (its
 * name, its one job per platform) is one choice for all its platforms, so a platform's features or
 * no-default-features may not turn it on, off or to another minimum there.
 */
static void check_abi3(struct merge *mg, const struct layers *ls, const struct wm_build *b, const struct wm_backend *be,
	const struct wm_platform *p)
{
	struct wm_loader *l = mg->l;
	struct wm_build_features own = { &be->features, wm_python_backend_no_default(be) }, job = { &b->features, !b->default_features };
	struct wm_abi3 a, j;
	if (!l->project || !l->project->has_cargo || !l->python_ok || wm_loader_bindings_bin(l))
		return;
	wm_project_abi3(l->project, &own, &a);
	wm_project_abi3(l->project, &job, &j);
	if (a.abi3 == j.abi3 && a.minor == j.minor && a.abi3t == j.abi3t)
		return;
	for (size_t i = 0; i < ls->n; i++) {
		const struct wm_settings *s = ls->items[i];
		struct wm_loc at = s->loc;
		if (s == be->settings || (!s->features.n && s->no_default_features < 0))
			continue;
		if (s->features.n)
			at = s->feature_locs[0];
		if (first_report(mg, at))
			wm_schema_error_at(&l->c, at.line, at.column, 1, "the features of %s turn pyo3's %s %s for backend "
				"'%s' on %s, and not on its other platforms: a backend's abi3 wheel is one choice for all its "
				"platforms; give these settings a backend of their own", s->what, a.abi3t != j.abi3t ? "abi3t" : "abi3",
				a.abi3 != j.abi3 || a.abi3t != j.abi3t ? (j.abi3 || j.abi3t ? "on" : "off") : "to another minimum",
				be->id, p->id);
		return;
	}
}

static void check_job(struct merge *mg, const struct layers *ls, const struct wm_build *b, const struct wm_backend *be,
	const struct wm_platform *p)
{
	struct wm_loader *l = mg->l;
	check_abi3(mg, ls, b, be, p);
	for (size_t i = 0; i < ls->n; i++) {
		const struct wm_settings *s = ls->items[i];
		if (s->zig == 1 && p->os == WM_OS_LINUX && strncmp(p->target, "s390x", 5) == 0 && first_report(mg, s->zig_loc))
			wm_schema_error_at(&l->c, s->zig_loc.line, s->zig_loc.column, 1, "'zig' for %s, whose target %s zig "
				"cannot build (maturin-action drops --zig there): leave it out on %s", s->what, p->target, p->id);
		/* the backend's own features: wm_backends_check_toolkits */
		for (size_t f = 0; s != be->settings && f < s->features.n; f++) {
			size_t from = 0;
			const struct wm_toolkit *tk;
			while ((tk = wm_catalog_feature_toolkit(l->cat, s->features.items[f], &from)) != NULL) {
				bool on = false;
				for (size_t k = 0; k < tk->platforms.n && !on; k++)
					on = strcmp(tk->platforms.items[k], p->id) == 0;
				if (tk->installable) {
					if (first_report(mg, s->feature_locs[f]))
						wm_schema_error_at(&l->c, s->feature_locs[f].line, s->feature_locs[f].column,
							(unsigned)strlen(s->features.items[f]), "feature '%s' of %s needs %s, which the CI "
							"installs per backend: give the feature in a backend's 'features' (a backend of its "
							"own, built on %s)", s->features.items[f], s->what, tk->title, tk->platforms_text);
				} else if (!on && first_report(mg, s->feature_locs[f])) {
					wm_schema_error_at(&l->c, s->feature_locs[f].line, s->feature_locs[f].column,
						(unsigned)strlen(s->features.items[f]), "feature '%s' of %s needs %s, which cannot be "
						"built on %s: %s builds on %s only", s->features.items[f], s->what, tk->title, p->id,
						tk->title, tk->platforms_text);
				}
			}
		}
	}
	if (b->unstable_flags.n && b->rust_toolchain && strncmp(b->rust_toolchain, "nightly", 7) != 0) {
		for (size_t i = 0; i < ls->n; i++)
			if (ls->items[i]->unstable_flags.n && first_report(mg, ls->items[i]->unstable_loc))
				wm_schema_error_at(&l->c, ls->items[i]->unstable_loc.line, ls->items[i]->unstable_loc.column, 1,
					"the unstable flags of %s need a nightly Rust, and %s builds with '%s': set 'rust-toolchain: "
					"nightly' (or a dated nightly)", ls->items[i]->what, p->id, b->rust_toolchain);
	}
	if (b->cli_features) {
		check_plain(mg);
		for (size_t i = 0; i < be->features.n; i++)
			if (strchr(be->features.items[i], '?') && first_report(mg, be->feature_locs[i]))
				cli_feature(l, be->features.items[i], be->feature_locs[i], "where the features a platform or a "
					"per-platform entry adds take the backend's with them");
	}
	/* maturin-action builds with zig on the runner: docker options are left unused there (GitLab never has any) */
	if (b->zig && b->docker_options.n && !repaired_in_container(be)) {
		for (size_t i = 0; i < ls->n; i++)
			if (ls->items[i]->docker_options.n && first_report(mg, ls->items[i]->docker_loc))
				wm_schema_warning_at(&l->c, ls->items[i]->docker_loc.line, ls->items[i]->docker_loc.column, 1,
					"the docker options of %s do not reach the build of backend '%s' on %s: with zig, maturin-action "
					"builds on the runner, not in a container", ls->items[i]->what, be->id, p->id);
	}
	if (p->os == WM_OS_LINUX && p->container && strcmp(p->container, "off") == 0 && b->docker_options.n) {
		for (size_t i = 0; i < ls->n; i++)
			if (ls->items[i]->docker_options.n && first_report(mg, ls->items[i]->docker_loc))
				wm_schema_error_at(&l->c, ls->items[i]->docker_loc.line, ls->items[i]->docker_loc.column, 1,
					"the docker options of %s apply to the build container, and %s builds with 'container: off', "
					"on the runner itself", ls->items[i]->what, p->id);
	}
}

/* The layers of backend `be` on platform `p` (an include's copy too), with the include's last. */
static void gather(struct layers *ls, const struct wm_backend *be, const struct wm_platform *p, const struct wm_rule *inc)
{
	ls->n = 0;
	ls->overflow = false;
	add_layer(ls, p->settings);
	add_layer(ls, be->settings);
	for (size_t i = 0; i < be->nper_platform; i++)
		if (wm_text_glob_match(be->per_platform[i].pattern, p->id))
			add_layer(ls, be->per_platform[i].settings);
	if (inc)
		add_layer(ls, inc->settings);
}

/* Linux-only settings of a layer that no Linux job takes (a platform's: of a platform that is not Linux). */
static void check_linux_only(struct wm_loader *l, const struct wm_settings *s)
{
	if (!s || s->on_linux)
		return;
	/* "it builds on no Linux platform": the layer's platform, backend or pattern */
	if (s->zig == 1)
		wm_schema_error_at(&l->c, s->zig_loc.line, s->zig_loc.column, 1, "'zig' of %s applies to Linux builds "
			"(maturin's --zig makes manylinux wheels with zig's linker), and it builds on no Linux platform", s->what);
	if (s->docker_options.n)
		wm_schema_error_at(&l->c, s->docker_loc.line, s->docker_loc.column, 1, "'docker-options' of %s apply to "
			"the Linux build container on GitHub, and it builds on no Linux platform", s->what);
}

/* A backend's per-platform pattern must name a platform the backend is built on. */
static void check_per_platform(struct wm_loader *l, const struct wm_backend *be)
{
	const struct wm_matrix *m = l->m;
	for (size_t i = 0; i < be->nper_platform; i++) {
		const struct wm_per_platform *pp = &be->per_platform[i];
		bool any = false;
		for (size_t p = 0; p < m->nplatforms && !any; p++)
			any = wm_text_glob_match(pp->pattern, m->platforms[p]->id) && wm_loader_builds_on(be, m->platforms[p]->id);
		for (size_t r = 0; r < m->nincludes && !any; r++)
			any = m->includes[r].include_backend == be && m->includes[r].include_platform &&
				wm_text_glob_match(pp->pattern, m->includes[r].include_platform->id);
		if (!any)
			wm_schema_error_at(&l->c, pp->loc.line, pp->loc.column, (unsigned)strlen(pp->pattern), "per-platform "
				"pattern '%s' matches none of the platforms backend '%s' is built on", pp->pattern, be->id);
	}
}

/* Where the file sets `container` of matrix platform `p`, or its entry, or the backend. */
static struct wm_loc container_loc(struct wm_loader *l, size_t p, const struct wm_backend *be)
{
	const struct wm_node *key = l->platform_nodes[p], *all = wm_yaml_find(l->root, "platforms"), *v = NULL;
	if (key && all && all->type == WM_NODE_MAP)
		v = wm_yaml_find(wm_yaml_find(all, key->text), "container");
	return v ? wm_loader_loc(l, v) : key ? wm_loader_loc(l, key) : be->loc;
}

/*
 * A backend whose toolkit leaves libraries out of the Linux wheel's repair builds in wheelmatrix's
 * own container step on GitHub (lib/emit/github.c): `container: off` cannot take it out of it.
 */
static void check_container_off(struct merge *mg, const struct wm_backend *be, const struct wm_platform *p,
	struct wm_loc at)
{
	struct wm_loader *l = mg->l;
	if (p->os != WM_OS_LINUX || !p->container || strcmp(p->container, "off") != 0 || !repaired_in_container(be) ||
			!first_report(mg, at))
		return;
	wm_schema_error_at(&l->c, at.line, at.column, 1, "%s builds with 'container: off', and backend '%s' uses a "
		"toolkit whose Linux wheels are built and repaired in the manylinux container (the repair leaves the "
		"toolkit's libraries out): build it in a container on %s", p->id, be->id, p->id);
}

void wm_settings_merge(struct wm_loader *l)
{
	struct wm_matrix *m = l->m;
	struct merge mg = { .l = l };
	struct layers ls;
	const struct wm_build **base;  /* per backend, off Linux and on Linux: the backend's layer alone */

	if (!l->platforms_ok || !l->backends_ok)
		return;
	wm_map_init(&mg.reported);
	read_plain(&mg);
	m->builds = wm_arena_array(l->c.arena, m->nbackends * m->nplatforms + 1, sizeof(*m->builds));
	base = wm_arena_array(l->c.arena, 2 * m->nbackends + 1, sizeof(*base));
	if (wm_loader_oom(l, m->builds) || wm_loader_oom(l, base))
		goto out;
	for (size_t b = 0; b < m->nbackends; b++) {
		const struct wm_backend *be = m->backends[b];
		check_per_platform(l, be);
		for (size_t p = 0; p < m->nplatforms; p++) {
			const struct wm_platform *pl = m->platforms[p];
			/* off Linux and on Linux apart only where zig or docker options make them differ */
			bool split = be->settings && (be->settings->zig == 1 || be->settings->docker_options.n);
			const struct wm_build **shared = &base[2 * b + (split && pl->os == WM_OS_LINUX)], *one;
			bool alone;
			if (!wm_loader_builds_on(be, pl->id))
				continue;
			gather(&ls, be, pl, NULL);
			if (ls.overflow) {
				wm_schema_error_at(&l->c, be->loc.line, be->loc.column, 1, "backend '%s' has more than %zu "
					"per-platform entries matching %s", be->id, WM_ARRAY_SIZE(ls.items) - 3, pl->id);
				continue;
			}
			check_container_off(&mg, be, pl, container_loc(l, p, be));
			/* the backend alone: one merge shared by the platforms that add nothing (Linux's apart) */
			alone = ls.n == (be->settings ? 1u : 0u);
			one = alone && *shared ? *shared : merge_one(&mg, &ls, be, pl);
			if (!one)
				break;
			if (alone)
				*shared = one;
			m->builds[b * m->nplatforms + p] = one;
			check_job(&mg, &ls, one, be, pl);
		}
	}
	for (size_t r = 0; r < m->nincludes; r++) {
		struct wm_rule *rule = &m->includes[r];
		if (!rule->include_backend || !rule->include_platform)
			continue;
		gather(&ls, rule->include_backend, rule->include_platform, rule);
		if (ls.overflow)
			continue;
		check_container_off(&mg, rule->include_backend, rule->include_platform, rule->loc);
		if ((rule->build = merge_one(&mg, &ls, rule->include_backend, rule->include_platform)) != NULL)
			check_job(&mg, &ls, rule->build, rule->include_backend, rule->include_platform);
	}
	/* a platform's own: whether it is a Linux one, built on or not */
	for (size_t p = 0; p < m->nplatforms; p++)
		if (m->platforms[p]->os != WM_OS_LINUX)
			check_linux_only(l, m->platforms[p]->settings);
	for (size_t b = 0; b < m->nbackends; b++) {
		check_linux_only(l, m->backends[b]->settings);
		for (size_t i = 0; i < m->backends[b]->nper_platform; i++)
			check_linux_only(l, m->backends[b]->per_platform[i].settings);
	}
	for (size_t r = 0; r < m->nincludes; r++)
		check_linux_only(l, m->includes[r].settings);
out:
	wm_map_release(&mg.reported);
}

const struct wm_build *wm_settings_build(const struct wm_matrix *m, const struct wm_backend *b,
	const struct wm_platform *p)
{
	if (!m->builds || b->index >= m->nbackends || m->backends[b->index] != b)
		return NULL;
	for (size_t i = 0; i < m->nplatforms; i++)
		if (m->platforms[i] == p || strcmp(m->platforms[i]->id, p->id) == 0)
			return m->builds[b->index * m->nplatforms + i];
	return NULL;
}
