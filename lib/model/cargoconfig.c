/*
 * cargoconfig.c — `target-cpu=native` where Cargo would take it for a target the matrix builds:
 * such a wheel runs only on CPUs with every instruction of the machine that built it, and crashes
 * with an illegal instruction on the others.
 *
 * Cargo's rules (https://doc.rust-lang.org/cargo/reference/config.html, "build.rustflags"): its
 * extra rustc flags come from the first of CARGO_ENCODED_RUSTFLAGS, RUSTFLAGS, every matching
 * target.<triple>.rustflags and target.<cfg>.rustflags joined, build.rustflags; an environment
 * variable CARGO_TARGET_<TRIPLE>_RUSTFLAGS or CARGO_BUILD_RUSTFLAGS replaces its key.  The
 * configuration files are `.cargo/config.toml` of the current directory and of each directory
 * above it, `.cargo/config` in its place where both exist (cargo 1.95 warns "both ... exist.
 * Using .../config").  maturin runs cargo in pyproject.toml's directory, the jobs' own too.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/text.h"
#include "formats/toml.h"
#include "model/cargoconfig.h"
#include "model/loader.h"
#include "model/schema.h"

#define NATIVE "target-cpu=native"
#define MAX_FILES 16   /* directories above pyproject.toml looked in */

/* ---- cfg(...) against a target ------------------------------------------------------- */

enum tri { NO, YES, MAYBE };

struct target_props {
	char arch[16], os[16], env[16], abi[16], vendor[16], family[8], width[4], endian[8];
};

static void props_of(const char *triple, struct target_props *t)
{
	char parts[4][32] = { "", "", "", "" };
	size_t n = 0;
	for (const char *p = triple; *p && n < 4;) {
		size_t len = strcspn(p, "-");
		snprintf(parts[n++], sizeof(parts[0]), "%.*s", (int)len, p);
		p += len + (p[len] == '-');
	}
	memset(t, 0, sizeof(*t));
	/* rustc's target_arch of each architecture the catalog builds for */
	snprintf(t->arch, sizeof(t->arch), "%s", strcmp(parts[0], "i686") == 0 ? "x86" :
		strncmp(parts[0], "armv7", 5) == 0 ? "arm" : strcmp(parts[0], "powerpc64le") == 0 ? "powerpc64" :
		strncmp(parts[0], "riscv64", 7) == 0 ? "riscv64" : parts[0]);
	snprintf(t->vendor, sizeof(t->vendor), "%s", parts[1]);
	snprintf(t->os, sizeof(t->os), "%s", strcmp(parts[2], "darwin") == 0 ? "macos" : parts[2]);
	snprintf(t->env, sizeof(t->env), "%s", strncmp(parts[3], "gnu", 3) == 0 ? "gnu" :
		strncmp(parts[3], "musl", 4) == 0 ? "musl" : parts[3]);
	snprintf(t->abi, sizeof(t->abi), "%s", strstr(parts[3], "eabihf") ? "eabihf" : "");
	snprintf(t->family, sizeof(t->family), "%s", strcmp(t->os, "windows") == 0 ? "windows" : "unix");
	snprintf(t->width, sizeof(t->width), "%s", strcmp(t->arch, "x86") == 0 || strcmp(t->arch, "arm") == 0 ? "32" : "64");
	snprintf(t->endian, sizeof(t->endian), "%s", strcmp(t->arch, "s390x") == 0 ? "big" : "little");
}

struct cfg_parser {
	const char *p;
	bool bad;
};

static void skip_space(struct cfg_parser *c)
{
	while (isspace((unsigned char)*c->p))
		c->p++;
}

static size_t ident(struct cfg_parser *c, char *out, size_t size)
{
	size_t n = 0;
	skip_space(c);
	while (isalnum((unsigned char)c->p[n]) || c->p[n] == '_')
		n++;
	snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), c->p);
	c->p += n;
	return n;
}

static enum tri predicate(const struct target_props *t, const char *key, const char *value)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "target_arch", offsetof(struct target_props, arch) }, { "target_os", offsetof(struct target_props, os) },
		{ "target_env", offsetof(struct target_props, env) }, { "target_abi", offsetof(struct target_props, abi) },
		{ "target_vendor", offsetof(struct target_props, vendor) },
		{ "target_family", offsetof(struct target_props, family) },
		{ "target_pointer_width", offsetof(struct target_props, width) },
		{ "target_endian", offsetof(struct target_props, endian) },
	};
	if (!value) {
		if (strcmp(key, "unix") == 0 || strcmp(key, "windows") == 0)
			return strcmp(t->family, key) == 0 ? YES : NO;
		return MAYBE;  /* debug_assertions, test, ...: not the target's */
	}
	for (size_t i = 0; i < WM_ARRAY_SIZE(keys); i++)
		if (strcmp(key, keys[i].key) == 0)
			return strcmp((const char *)t + keys[i].off, value) == 0 ? YES : NO;
	return MAYBE;  /* target_feature, feature, ...: not known from the triple alone */
}

static enum tri expr(struct cfg_parser *c, const struct target_props *t, int depth);

/* `( expr, expr, ... )` combined by all (`all`), any, or negated (`not`, one expression). */
static enum tri combine(struct cfg_parser *c, const struct target_props *t, const char *op, int depth)
{
	enum tri acc = strcmp(op, "any") == 0 ? NO : YES;
	size_t n = 0;
	skip_space(c);
	if (*c->p++ != '(') {
		c->bad = true;
		return MAYBE;
	}
	skip_space(c);
	while (*c->p && *c->p != ')' && !c->bad) {
		enum tri v = expr(c, t, depth + 1);
		n++;
		if (strcmp(op, "any") == 0)
			acc = acc == YES || v == YES ? YES : acc == MAYBE || v == MAYBE ? MAYBE : NO;
		else if (strcmp(op, "all") == 0)
			acc = acc == NO || v == NO ? NO : acc == MAYBE || v == MAYBE ? MAYBE : YES;
		else
			acc = v == YES ? NO : v == NO ? YES : MAYBE;
		skip_space(c);
		if (*c->p == ',')
			c->p++;
		skip_space(c);
	}
	if (*c->p++ != ')' || (strcmp(op, "not") == 0 && n != 1))
		c->bad = true;
	return acc;
}

static enum tri expr(struct cfg_parser *c, const struct target_props *t, int depth)
{
	char key[32], value[32];
	size_t vlen;
	if (depth > 16 || !ident(c, key, sizeof(key))) {
		c->bad = true;
		return MAYBE;
	}
	skip_space(c);
	if (strcmp(key, "all") == 0 || strcmp(key, "any") == 0 || strcmp(key, "not") == 0)
		return combine(c, t, key, depth);
	if (*c->p != '=')
		return predicate(t, key, NULL);
	c->p++;
	skip_space(c);
	if (*c->p++ != '"') {
		c->bad = true;
		return MAYBE;
	}
	vlen = strcspn(c->p, "\"");
	snprintf(value, sizeof(value), "%.*s", (int)(vlen < sizeof(value) ? vlen : sizeof(value) - 1), c->p);
	c->p += vlen;
	if (*c->p++ != '"') {
		c->bad = true;
		return MAYBE;
	}
	return predicate(t, key, value);
}

bool wm_cargoconfig_cfg_matches(const char *cfg, const char *triple)
{
	struct target_props t;
	struct cfg_parser c = { cfg, false };
	enum tri v;
	props_of(triple, &t);
	skip_space(&c);
	if (strncmp(c.p, "cfg", 3) != 0)
		return false;
	c.p += 3;
	v = combine(&c, &t, "all", 0);
	skip_space(&c);
	/* what cannot be read as a cfg is taken to hold: a warning too many, not one too few */
	return c.bad || *c.p || v != NO;
}

/* ---- the configuration files ---------------------------------------------------------- */

/* A rustflags value: a string, or an array of strings. */
struct source {
	const struct wm_toml_doc *doc;
	const struct wm_toml_value *value;
	const char *key;         /* "build.rustflags", "target.<triple or cfg>.rustflags" */
	const char *target;      /* the triple or the cfg of a target entry; NULL for build */
};

/* A `target-cpu=native` found: where, and the targets it reaches. */
struct hit {
	const struct wm_toml_doc *doc;       /* NULL: the matrix file's environment */
	struct wm_toml_span span;
	const struct wm_env *env;
	const char *key;
	struct wm_buf targets;
	size_t ntargets;
};

struct check {
	struct wm_loader *l;
	struct wm_toml_doc docs[MAX_FILES];
	size_t ndocs;
	struct source *sources;
	size_t nsources, cap;
	struct hit *hits;
	size_t nhits, hcap;
};

static void add_source(struct check *k, const struct wm_toml_doc *doc, const struct wm_toml_value *v, const char *key,
	const char *target)
{
	if (!v || (!wm_toml_is_string(v) && !wm_toml_is_array(v)))
		return;
	if (k->nsources == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 8;
		struct source *s = realloc(k->sources, cap * sizeof(*s));
		if (wm_loader_oom(k->l, s))
			return;
		k->sources = s;
		k->cap = cap;
	}
	k->sources[k->nsources++] = (struct source){ doc, v, key, target };
}

/* The rustflags of one configuration file. */
static void read_sources(struct check *k, const struct wm_toml_doc *doc)
{
	const struct wm_toml_value *targets = wm_toml_table_get(doc->root, "target");
	add_source(k, doc, wm_toml_get_path(doc->root, "build.rustflags"), "build.rustflags", NULL);
	if (!wm_toml_is_table(targets))
		return;
	for (size_t i = 0; i < targets->table->n; i++) {
		const struct wm_toml_entry *e = &targets->table->entries[i];
		char *key;
		if (!wm_toml_is_table(e->value))
			continue;
		key = wm_arena_printf(k->l->c.arena, strncmp(e->key, "cfg(", 4) == 0 ? "target.'%s'.rustflags" :
			"target.%s.rustflags", e->key);
		if (!wm_loader_oom(k->l, key))
			add_source(k, doc, wm_toml_table_get(e->value->table, "rustflags"), key, e->key);
	}
}

/* Reads the configuration file at `path` when it is there: 1 when it is (read or not), 0 when not. */
static int read_config(struct check *k, const char *path)
{
	struct wm_loader *l = k->l;
	struct wm_error scratch;
	char *data = NULL;
	size_t len = 0;
	int ret;

	wm_error_init(&scratch);
	ret = l->reader->read(l->reader->ctx, path, &data, &len, &scratch);
	if (ret == 0) {
		if ((ret = wm_toml_parse(&k->docs[k->ndocs], path, data, len, &scratch)) == 0)
			read_sources(k, &k->docs[k->ndocs++]);
		else
			wm_toml_release(&k->docs[k->ndocs]);
	}
	if (ret < 0) {
		/* Cargo would stop at it too; the matrix's checks go on */
		const struct wm_diag *d = scratch.ndiags ? &scratch.diags[0] : NULL;
		wm_error_add(l->c.err, WM_OK, WM_SEV_WARNING, path, data, data ? len : 0, d ? d->line : 0, d ? d->column : 0, 0,
			"cannot read %s, so its rustflags are not checked for target-cpu=native: %s", path,
			d && d->message ? d->message : "unreadable");
	}
	free(data);
	wm_error_release(&scratch);
	return ret != 1;
}

static void read_configs(struct check *k)
{
	const char *pyproject = k->l->m->pyproject ? k->l->m->pyproject : "pyproject.toml";
	size_t dir = strrchr(pyproject, '/') ? (size_t)(strrchr(pyproject, '/') - pyproject) + 1 : 0;
	for (;;) {
		char *legacy = wm_arena_printf(k->l->c.arena, "%.*s.cargo/config", (int)dir, pyproject);
		char *modern = wm_arena_printf(k->l->c.arena, "%.*s.cargo/config.toml", (int)dir, pyproject);
		if (wm_loader_oom(k->l, legacy) || wm_loader_oom(k->l, modern) || k->ndocs == MAX_FILES)
			return;
		if (read_config(k, legacy) == 0)
			read_config(k, modern);
		if (dir == 0)
			return;
		/* the directory above: drop the last component and its '/' */
		for (dir--; dir > 0 && pyproject[dir - 1] != '/'; dir--)
			;
	}
}

/* ---- the jobs ------------------------------------------------------------------------- */

static struct hit *hit_of(struct check *k, const struct wm_toml_doc *doc, const struct wm_toml_span *span,
	const struct wm_env *env, const char *key)
{
	for (size_t i = 0; i < k->nhits; i++)
		if (k->hits[i].doc == doc && (doc ? k->hits[i].span.start == span->start :
				k->hits[i].env->loc.line == env->loc.line && k->hits[i].env->loc.column == env->loc.column))
			return &k->hits[i];
	if (k->nhits == k->hcap) {
		size_t cap = k->hcap ? 2 * k->hcap : 4;
		struct hit *h = realloc(k->hits, cap * sizeof(*h));
		if (wm_loader_oom(k->l, h))
			return NULL;
		k->hits = h;
		k->hcap = cap;
	}
	k->hits[k->nhits] = (struct hit){ .doc = doc, .env = env, .key = key, .targets = WM_BUF_INIT };
	if (span)
		k->hits[k->nhits].span = *span;
	return &k->hits[k->nhits++];
}

static void note_target(struct hit *h, const char *triple)
{
	const char *s = h->targets.ptr;
	size_t n = strlen(triple);
	/* each target once: the list is ", "-separated */
	for (; s && (s = strstr(s, triple)) != NULL; s += n)
		if ((s == h->targets.ptr || s[-1] == ' ') && (s[n] == ',' || s[n] == '\0'))
			return;
	wm_buf_printf(&h->targets, "%s%s", h->ntargets++ ? ", " : "", triple);
}

/* Records each `target-cpu=native` of a configuration value as reaching `triple`. */
static void check_value(struct check *k, const struct source *s, const char *triple)
{
	const struct wm_toml_value *v = s->value;
	size_t n = wm_toml_is_array(v) ? v->array.n : 1;
	for (size_t i = 0; i < n; i++) {
		const struct wm_toml_value *item = wm_toml_is_array(v) ? v->array.items[i] : v;
		struct hit *h;
		if (!wm_toml_is_string(item) || !strstr(item->str, NATIVE))
			continue;
		if ((h = hit_of(k, s->doc, &item->span, NULL, s->key)) != NULL)
			note_target(h, triple);
	}
}

static const struct wm_env *env_of(const struct wm_build *b, const char *name)
{
	for (size_t i = 0; b && i < b->nenv; i++)
		if (strcmp(b->env[i].name, name) == 0)
			return &b->env[i];
	return NULL;
}

static void check_env(struct check *k, const struct wm_env *e, const char *triple)
{
	struct hit *h;
	if (e && strstr(e->value, NATIVE) && (h = hit_of(k, NULL, NULL, e, e->name)) != NULL)
		note_target(h, triple);
}

/* Where the flags of a build for `triple` with build settings `b` come from, each source checked. */
static void check_target(struct check *k, const struct wm_build *b, const char *triple)
{
	const struct wm_env *e;
	char name[96];
	bool target = false;

	if ((e = env_of(b, "CARGO_ENCODED_RUSTFLAGS")) || (e = env_of(b, "RUSTFLAGS"))) {
		check_env(k, e, triple);
		return;
	}
	snprintf(name, sizeof(name), "CARGO_TARGET_%s_RUSTFLAGS", triple);
	for (char *c = name; *c; c++)
		*c = *c == '-' || *c == '.' ? '_' : (char)toupper((unsigned char)*c);
	if ((e = env_of(b, name))) {
		check_env(k, e, triple);
		target = true;
	}
	for (size_t i = 0; i < k->nsources; i++) {
		const struct source *s = &k->sources[i];
		if (!s->target)
			continue;
		if (strncmp(s->target, "cfg(", 4) == 0 ? !wm_cargoconfig_cfg_matches(s->target, triple) :
				strcmp(s->target, triple) != 0 || e)
			continue;
		check_value(k, s, triple);
		target = true;
	}
	if (target)
		return;
	if ((e = env_of(b, "CARGO_BUILD_RUSTFLAGS"))) {
		check_env(k, e, triple);
		return;
	}
	for (size_t i = 0; i < k->nsources; i++)
		if (!k->sources[i].target)
			check_value(k, &k->sources[i], triple);
}

static void check_build(struct check *k, const struct wm_build *b, const struct wm_platform *p)
{
	/* a universal2 wheel holds both architectures' builds */
	if (strcmp(p->target, "universal2-apple-darwin") == 0) {
		check_target(k, b, "x86_64-apple-darwin");
		check_target(k, b, "aarch64-apple-darwin");
	} else {
		check_target(k, b, p->target);
	}
}

static void report(struct check *k)
{
	struct wm_loader *l = k->l;
	for (size_t i = 0; i < k->nhits; i++) {
		struct hit *h = &k->hits[i];
		const char *targets = h->targets.ptr ? h->targets.ptr : "";
		if (h->doc)
			wm_error_add(l->c.err, WM_OK, WM_SEV_WARNING, h->doc->file, h->doc->text, h->doc->len, h->span.line,
				h->span.column, (unsigned)(h->span.end - h->span.start), "%s in %s compiles for the CPU of the "
				"machine that builds: the wheels for %s would crash with illegal instructions on users' machines "
				"without all of its instructions; name a baseline CPU (target-cpu=x86-64-v2 on x86_64, for one) "
				"or leave it out of the wheels' builds", NATIVE, h->key, targets);
		else
			wm_schema_warning_at(&l->c, h->env->loc.line, h->env->loc.column, 1, "%s in %s compiles for the CPU "
				"of the machine that builds: the wheels for %s would crash with illegal instructions on users' "
				"machines without all of its instructions; name a baseline CPU (target-cpu=x86-64-v2 on x86_64, for "
				"one)", NATIVE, h->key, targets);
		wm_buf_release(&h->targets);
	}
}

void wm_cargoconfig_check(struct wm_loader *l)
{
	const struct wm_matrix *m = l->m;
	struct check k = { .l = l };

	if (!m->builds)
		return;
	if (l->reader && l->project)
		read_configs(&k);
	for (size_t b = 0; b < m->nbackends; b++)
		for (size_t p = 0; p < m->nplatforms; p++) {
			const struct wm_build *bd = m->builds[b * m->nplatforms + p];
			/* nothing to look at: no file, no variable */
			if (!bd || (!k.nsources && !bd->nenv))
				continue;
			check_build(&k, bd, m->platforms[p]);
		}
	for (size_t r = 0; r < m->nincludes; r++)
		if (m->includes[r].build && m->includes[r].include_platform)
			check_build(&k, m->includes[r].build, m->includes[r].include_platform);
	report(&k);
	for (size_t i = 0; i < k.ndocs; i++)
		wm_toml_release(&k.docs[i]);
	free(k.sources);
	free(k.hits);
}
