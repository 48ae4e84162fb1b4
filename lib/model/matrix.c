/* matrix.c — loads wheelmatrix.yaml into a validated model, reporting every problem with its position. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/io.h"
#include "util/map.h"
#include "util/name.h"
#include "util/text.h"
#include "formats/pep440.h"
#include "formats/toml.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/expand.h"
#include "model/expr.h"
#include "model/matrix.h"
#include "model/meta.h"
#include "model/project.h"
#include "model/schema.h"

/* The matrix and everything it points into: the parsed tree stays alive for the emitters. */
struct matrix_state {
	struct wm_matrix pub;
	struct wm_arena arena;
	struct wm_doc doc;
	struct wm_project *project;
};

struct loader {
	struct wm_schema c;
	const struct wm_catalog *cat;
	struct wm_matrix *m;
	const struct wm_node *root;
	const struct wm_node *abi3_node;
	const struct wm_node **backend_nodes;  /* each backend's key */
	const struct wm_node **dist_nodes;     /* each backend's `dist:` value, or NULL */
	const struct wm_node **platforms_nodes; /* each backend's `platforms:` value, or NULL */
	const struct wm_node **python_nodes;   /* each axis entry's node (NULL for defaults) */
	const struct wm_node **platform_nodes; /* each matrix platform's node */
	bool platforms_ok, backends_ok, python_ok;
	const struct wm_reader *reader;     /* the project's files, or NULL */
	struct wm_project *project;         /* read through it, or NULL */
};

#define WM_PYTHON_MIN 8     /* oldest CPython wheelmatrix builds for */
#define WM_PYTHON_MAX 15    /* newest it knows */
#define WM_FT_MIN 13        /* first free-threaded CPython */

static const char *const default_versions[] = { "3.10", "3.11", "3.12", "3.13", "3.14" };
static const char *const default_platforms[] = { "linux-x86_64", "linux-aarch64", "macos-x86_64",
	"macos-arm64", "windows-x86_64" };

static bool oom(struct loader *l, const void *p)
{
	if (!p)
		wm_error_code(l->c.err, WM_ENOMEM);
	return p == NULL;
}

static struct wm_loc loc_of(struct loader *l, const struct wm_node *n)
{
	return wm_schema_loc(&l->c, n);
}

/* ---- python ---------------------------------------------------------------- */

static struct wm_python *make_python(struct loader *l, const char *version, unsigned minor, bool ft)
{
	struct wm_arena *a = l->c.arena;
	struct wm_python *py = wm_arena_alloc(a, sizeof(*py));
	if (oom(l, py))
		return NULL;
	py->version = version;
	py->minor = minor;
	py->freethreaded = ft;
	py->python_tag = wm_arena_printf(a, "cp3%u", minor);
	py->abi_tag = wm_arena_printf(a, "cp3%u%s", minor, ft ? "t" : "");
	py->tag = py->abi_tag;
	py->interpreter = wm_arena_printf(a, "python3.%u%s", minor, ft ? "t" : "");
	if (oom(l, py->python_tag) || oom(l, py->abi_tag) || oom(l, py->interpreter))
		return NULL;
	return py;
}

/*
 * Parses "3.N" or "3.Nt"; reports and returns false when the text is not a
 * version we build.  `lowest` is the oldest minor accepted (abi3 goes lower).
 */
static bool parse_version(struct loader *l, const struct wm_node *n, const char *what,
	unsigned lowest, bool allow_ft, unsigned *minor, bool *ft)
{
	const char *s = n->text, *p;
	unsigned major = 0, mi = 0;
	size_t digits = 0;

	for (p = s; *p >= '0' && *p <= '9' && major < 1000; p++)
		major = major * 10 + (unsigned)(*p - '0');
	if (p == s || *p != '.')
		goto grammar;
	for (p++; *p >= '0' && *p <= '9' && mi < 1000; p++, digits++)
		mi = mi * 10 + (unsigned)(*p - '0');
	if (digits == 0 || (digits > 1 && p[-(long)digits] == '0'))
		goto grammar;
	*ft = *p == 't';
	if (*ft)
		p++;
	if (*p)
		goto grammar;
	if (major != 3 || mi < lowest) {
		wm_schema_error(&l->c, n, "Python %u.%u is not supported: %s start%s at 3.%u%s", major, mi, what,
			strcmp(what, "versions") == 0 ? "" : "s", lowest,
			major == 3 && mi == 1 ? " (did you mean '3.10'?)" : "");
		return false;
	}
	if (mi > WM_PYTHON_MAX) {
		wm_schema_error(&l->c, n, "Python 3.%u is not known: the newest version is 3.%u", mi, WM_PYTHON_MAX);
		return false;
	}
	if (*ft && !allow_ft) {
		wm_schema_error(&l->c, n, "%s has no free-threaded form: write '3.%u'", what, mi);
		return false;
	}
	if (*ft && mi < WM_FT_MIN) {
		wm_schema_error(&l->c, n, "Python 3.%u has no free-threaded build: free-threaded versions start at 3.%ut",
			mi, WM_FT_MIN);
		return false;
	}
	*minor = mi;
	return true;
grammar:
	wm_schema_error(&l->c, n, "invalid Python version '%s': write 3.N such as \"3.12\", or 3.Nt for a "
		"free-threaded build such as \"3.13t\"", s);
	return false;
}

static int cmp_python(const void *pa, const void *pb)
{
	const struct wm_python *a = *(const struct wm_python *const *)pa, *b = *(const struct wm_python *const *)pb;
	if (a->abi3 != b->abi3)
		return a->abi3 ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	return (int)a->freethreaded - (int)b->freethreaded;
}

static void load_abi3(struct loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	const struct wm_project *p = l->project;
	struct wm_python *py;
	unsigned minor;
	bool ft;

	if (!wm_schema_string(&l->c, n, "'python.abi3'", &m->abi3))
		return;
	if (!parse_version(l, n, "'python.abi3'", 7, false, &minor, &ft)) {
		m->abi3 = NULL;
		return;
	}
	if (p && p->abi3 && p->abi3_minor && p->abi3_minor != minor) {
		/* maturin tags the wheel with pyo3's minimum: any other name is a file that never exists */
		wm_schema_error(&l->c, n, "'python.abi3' is \"%s\", but the crate builds its abi3 wheel for CPython 3.%u "
			"and later (cp3%u-abi3): write \"3.%u\", or change pyo3's feature", m->abi3, p->abi3_minor,
			p->abi3_minor, p->abi3_minor);
		wm_error_add(l->c.err, WM_EINVALID, WM_SEV_NOTE, p->abi3_file, p->abi3_doc->text, p->abi3_doc->len,
			p->abi3_span.line, p->abi3_span.column, (unsigned)(p->abi3_span.end - p->abi3_span.start),
			"pyo3's feature '%s' sets the minimum", p->abi3_feature);
		m->abi3 = NULL;
		return;
	}
	l->abi3_node = n;
	py = make_python(l, "abi3", minor, false);
	if (!py)
		return;
	py->abi3 = true;
	py->abi_tag = "abi3";
	py->tag = "abi3";
	/*
	 * Any interpreter at or above the minimum builds the same abi3 wheel: take one that every
	 * runner and build image provides (macOS and Windows on arm64 have no 3.8 or 3.9).  A crate
	 * with plain "abi3" and no abi3-py3X takes its minimum from the interpreter: build with the
	 * minimum itself.
	 */
	py->interpreter = wm_arena_printf(l->c.arena, "python3.%u",
		minor < WM_ABI3_BUILD && !(p && p->abi3 && !p->abi3_minor) ? WM_ABI3_BUILD : minor);
	py->loc = loc_of(l, n);
	m->pythons[m->npythons] = py;
	l->python_nodes[m->npythons++] = n;
}

static bool bindings_bin(const struct loader *l)
{
	return l->project && l->project->bindings && strcmp(l->project->bindings, "bin") == 0;
}

/*
 * A `bindings = "bin"` project: its wheels carry a program, not a module,
 * one py3-none wheel per platform for every Python, built by any interpreter.
 */
static void load_bin(struct loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	struct wm_python *py;

	if (n && !wm_yaml_is_null(n)) {
		wm_schema_error(&l->c, n, "'python' does not apply: %s sets bindings = \"bin\", whose wheels hold a "
			"program for every Python (one py3-none wheel per platform); remove it", l->project->py_path);
		return;
	}
	m->pythons = wm_arena_array(l->c.arena, 2, sizeof(*m->pythons));
	l->python_nodes = wm_arena_array(l->c.arena, 2, sizeof(*l->python_nodes));
	if (oom(l, m->pythons) || oom(l, l->python_nodes) || !(py = make_python(l, "py3", WM_ABI3_BUILD, false)))
		return;
	py->bin = true;
	py->python_tag = py->tag = "py3";
	py->abi_tag = "none";
	m->pythons[m->npythons++] = py;
}

static void load_python(struct loader *l, const struct wm_node *n)
{
	static const char *const keys[] = { "versions", "abi3" };
	struct wm_matrix *m = l->m;
	const struct wm_node *versions = n ? wm_yaml_find(n, "versions") : NULL;
	const struct wm_node *abi3 = n ? wm_yaml_find(n, "abi3") : NULL;
	size_t nversions = versions && versions->type == WM_NODE_SEQ ? versions->n : 0;
	size_t start;

	if (bindings_bin(l)) {
		load_bin(l, n);
		return;
	}
	if (n && !wm_yaml_is_null(n) && !wm_schema_map(&l->c, n, "'python'", keys, WM_ARRAY_SIZE(keys)))
		return;
	if (n && wm_yaml_is_null(n))
		n = NULL;
	if (!versions && !abi3)
		nversions = WM_ARRAY_SIZE(default_versions);
	m->pythons = wm_arena_array(l->c.arena, nversions + 2, sizeof(*m->pythons));
	l->python_nodes = wm_arena_array(l->c.arena, nversions + 2, sizeof(*l->python_nodes));
	if (oom(l, m->pythons) || oom(l, l->python_nodes))
		return;
	if (abi3)
		load_abi3(l, abi3);
	start = m->npythons;
	if (!abi3 && l->project && l->project->abi3) {
		/* an abi3 crate: one wheel per platform, from pyo3's minimum (free-threaded ones beside it) */
		unsigned minor = wm_project_abi3_minor(l->project);
		struct wm_python *py = make_python(l, "abi3", minor, false);
		if (!py)
			return;
		py->abi3 = true;
		py->abi_tag = py->tag = "abi3";
		py->interpreter = wm_arena_printf(l->c.arena, "python3.%u", minor < WM_ABI3_BUILD ? WM_ABI3_BUILD : minor);
		m->abi3 = wm_arena_printf(l->c.arena, "3.%u", minor);
		m->pythons[m->npythons++] = py;
		start = m->npythons;
		if (!versions)
			return;
	}
	if (!versions && !abi3) {
		/* the supported CPython releases, from the lowest that requires-python admits */
		unsigned lowest = l->project && l->project->min_minor > 10 ? l->project->min_minor : 10;
		for (size_t i = 0; i < WM_ARRAY_SIZE(default_versions); i++) {
			struct wm_python *py;
			if (10 + (unsigned)i < lowest)
				continue;
			if (!(py = make_python(l, default_versions[i], 10 + (unsigned)i, false)))
				return;
			m->pythons[m->npythons++] = py;
		}
		return;
	}
	if (versions) {
		struct wm_strlist list;
		const struct wm_node **nodes;
		if (!wm_schema_strlist(&l->c, versions, "'python.versions'", &list, &nodes))
			return;
		if (list.n == 0 && !abi3) {
			wm_schema_error(&l->c, versions, "'python.versions' is empty: list at least one version, or set 'abi3'");
			return;
		}
		for (size_t i = 0; i < list.n; i++) {
			struct wm_python *py;
			unsigned minor;
			bool ft, dup = false;
			if (!parse_version(l, nodes[i], "versions", WM_PYTHON_MIN, true, &minor, &ft))
				continue;
			for (size_t j = start; j < m->npythons; j++)
				if (m->pythons[j]->minor == minor && m->pythons[j]->freethreaded == ft) {
					wm_schema_error(&l->c, nodes[i], "Python %s is listed twice (first at line %u, column %u)",
						list.items[i], l->python_nodes[j]->line, l->python_nodes[j]->column);
					dup = true;
				}
			if (dup)
				continue;
			if (!abi3 && !ft && l->project && l->project->abi3) {
				const struct wm_project *p = l->project;
				wm_schema_error(&l->c, nodes[i], "'%s' cannot be listed: the crate builds one abi3 wheel for "
					"CPython %s and later; list only free-threaded versions (\"3.13t\"), or none",
					list.items[i], m->abi3);
				wm_error_add(l->c.err, WM_EINVALID, WM_SEV_NOTE, p->abi3_file, p->abi3_doc->text,
					p->abi3_doc->len, p->abi3_span.line, p->abi3_span.column,
					(unsigned)(p->abi3_span.end - p->abi3_span.start),
					"pyo3's feature '%s' makes it abi3", p->abi3_feature);
				continue;
			}
			if (abi3 && l->abi3_node && !ft) {
				wm_schema_error(&l->c, nodes[i], "'%s' cannot be listed with 'abi3': the abi3 wheel already "
					"covers CPython %s and later; list only free-threaded versions (\"3.13t\") beside it",
					list.items[i], m->abi3);
				wm_schema_note(&l->c, l->abi3_node, "'abi3' is set here");
				continue;
			}
			if ((py = make_python(l, list.items[i], minor, ft)) == NULL)
				return;
			py->loc = loc_of(l, nodes[i]);
			m->pythons[m->npythons] = py;
			l->python_nodes[m->npythons++] = nodes[i];
		}
	}
	qsort(m->pythons, m->npythons, sizeof(*m->pythons), cmp_python);
}

/* ---- platforms --------------------------------------------------------------- */

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
 * Reports a GitHub expression in a value that the CI files use as it is: a
 * runner label, an image, a tag, an environment name.  `${{` there would be
 * evaluated (or fail to parse) when the workflow runs.
 */
static bool expression_free(struct loader *l, const struct wm_node *n, const char *what)
{
	if (!strstr(n->text, "${{"))
		return true;
	wm_schema_error(&l->c, n, "%s cannot hold a GitHub expression ('${{'): it is written into the CI files "
		"as it is", what);
	return false;
}

/*
 * Reports a '$' in a value GitLab expands before it picks a runner or pulls an image: an image
 * of $CI_COMMIT_REF_NAME, or a runner tag of $CI_COMMIT_BRANCH, lets a branch name choose them.
 */
static bool gitlab_literal(struct loader *l, const struct wm_node *n, const char *what)
{
	if (!strchr(n->text, '$'))
		return true;
	wm_schema_error(&l->c, n, "%s cannot hold '$': GitLab expands variables in it, so a branch or tag name "
		"could choose it", what);
	return false;
}

static void unknown_platform(struct loader *l, const struct wm_node *n, const char *id)
{
	const char *hint = wm_catalog_suggest_platform(l->cat, id);
	if (hint)
		wm_schema_error(&l->c, n, "unknown platform '%s' (did you mean '%s'?)", id, hint);
	else
		wm_schema_error(&l->c, n, "unknown platform '%s': see the platform catalog in docs/matrix.md", id);
}

/*
 * Applies the overrides in mapping `o` to a copy of `p`.  Shared by `platforms:`
 * entries and `include` rules, whose other keys the caller has checked.
 */
static struct wm_platform *apply_overrides(struct loader *l, const struct wm_platform *base, const struct wm_node *o)
{
	struct wm_platform *p = wm_arena_alloc(l->c.arena, sizeof(*p));
	const struct wm_node *v;
	const char *s, *why;

	if (oom(l, p))
		return NULL;
	*p = *base;
	if (!o)
		return p;
	if ((v = wm_yaml_find(o, "runner")) && wm_schema_string(&l->c, v, "'runner'", &s)) {
		if (!*s)
			wm_schema_error(&l->c, v, "a runner label cannot be empty");
		else if (!label_valid(s))
			wm_schema_error(&l->c, v, "invalid runner label '%s': a label has no spaces", s);
		else
			expression_free(l, v, "a runner label");
		p->runner = s;
	}
	if ((v = wm_yaml_find(o, "image")) && wm_schema_string(&l->c, v, "'image'", &s)) {
		if (!label_valid(s))
			wm_schema_error(&l->c, v, "invalid image '%s': an image reference has no spaces", s);
		else if (expression_free(l, v, "an image"))
			gitlab_literal(l, v, "an image");
		p->gitlab_image = s;
	}
	if ((v = wm_yaml_find(o, "tags"))) {
		struct wm_strlist tags;
		const struct wm_node **nodes;
		if (wm_schema_strlist(&l->c, v, "'tags'", &tags, &nodes)) {
			for (size_t i = 0; i < tags.n; i++)
				if (!*tags.items[i])
					wm_schema_error(&l->c, nodes[i], "a runner tag cannot be empty");
				else if (expression_free(l, nodes[i], "a runner tag"))
					gitlab_literal(l, nodes[i], "a runner tag");
			p->gitlab_tags = tags;
			p->gitlab_hosted = tags.n > 0;
		}
	}
	if ((v = wm_yaml_find(o, "manylinux")) && wm_schema_string(&l->c, v, "'manylinux'", &s)) {
		if (!wm_catalog_level_valid(p, s, &why)) {
			wm_schema_error(&l->c, v, "invalid level '%s' for %s: %s", s, p->id, why);
		} else {
			p->manylinux = s;
			p->platform_tag = wm_catalog_platform_tag(l->c.arena, p);
			oom(l, p->platform_tag);
		}
	}
	if ((v = wm_yaml_find(o, "container")) && wm_schema_string(&l->c, v, "'container'", &s)) {
		if (p->os != WM_OS_LINUX)
			wm_schema_error(&l->c, v, "'container' applies to Linux platforms only: %s builds on the runner itself",
				p->id);
		else if (!label_valid(s))
			wm_schema_error(&l->c, v, "invalid container image '%s': an image reference has no spaces", s);
		else
			expression_free(l, v, "a container image");
		p->container = s;
	}
	if ((v = wm_yaml_find(o, "cross")) && wm_schema_bool(&l->c, v, "'cross'", &p->cross) && p->cross && !base->cross &&
			!wm_yaml_find(o, "runner")) {
		/* cross-built on the usual runner of the OS: x86_64 Linux and Windows, Apple silicon */
		static const char *const runners[] = { "ubuntu-24.04", "macos-15", "windows-2022" };
		p->runner = runners[p->os];
	}
	if ((v = wm_yaml_find(o, "target")) && wm_schema_string(&l->c, v, "'target'", &s)) {
		if (!wm_name_target(s))
			wm_schema_error(&l->c, v, "invalid Rust target '%s': a target triple such as x86_64-unknown-linux-gnu", s);
		p->target = s;
	}
	return p;
}

static const char *const override_keys[] = { "runner", "image", "tags", "manylinux", "container", "cross", "target" };

static void add_platform(struct loader *l, const struct wm_node *key, const struct wm_node *o)
{
	struct wm_matrix *m = l->m;
	const struct wm_platform *base;
	struct wm_platform *p;

	if (key->type != WM_NODE_SCALAR || wm_yaml_is_null(key)) {
		wm_schema_error(&l->c, key, "a platform must be a platform id, not %s", wm_yaml_kind(key));
		l->platforms_ok = false;
		return;
	}
	if ((base = wm_catalog_platform(l->cat, key->text)) == NULL) {
		unknown_platform(l, key, key->text);
		l->platforms_ok = false;
		return;
	}
	for (size_t i = 0; i < m->nplatforms; i++)
		if (strcmp(m->platforms[i]->id, key->text) == 0) {
			wm_schema_error(&l->c, key, "platform '%s' is listed twice (first at line %u)", key->text,
				l->platform_nodes[i]->line);
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
	if ((p = apply_overrides(l, base, o)) == NULL)
		return;
	p->loc = loc_of(l, key);
	l->platform_nodes[m->nplatforms] = key;
	m->platforms[m->nplatforms++] = p;
}

static void load_platforms(struct loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	size_t cap = n && (n->type == WM_NODE_SEQ || n->type == WM_NODE_MAP) ? n->n : WM_ARRAY_SIZE(default_platforms);

	l->platforms_ok = true;
	m->platforms = wm_arena_array(l->c.arena, cap + 1, sizeof(*m->platforms));
	l->platform_nodes = wm_arena_array(l->c.arena, cap + 1, sizeof(*l->platform_nodes));
	if (oom(l, m->platforms) || oom(l, l->platform_nodes))
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

/* The matrix platform a pattern names, or reports why none. */
static bool platform_pattern(struct loader *l, const struct wm_node *n, const char *what)
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
	if (wm_catalog_platform(l->cat, s))
		wm_schema_error(&l->c, n, "platform '%s' is not one of the matrix's 'platforms'", s);
	else
		unknown_platform(l, n, s);
	return false;
}

/* ---- backends ---------------------------------------------------------------- */

static void load_features(struct loader *l, struct wm_backend *b, const struct wm_node *n)
{
	const struct wm_node **nodes;
	if (!wm_schema_strlist(&l->c, n, "'features'", &b->features, &nodes))
		return;
	for (size_t i = 0; i < b->features.n; i++) {
		const char *why;
		if (!wm_name_feature(b->features.items[i], &why)) {
			wm_schema_error(&l->c, nodes[i], "invalid Cargo feature '%s': %s", b->features.items[i], why);
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (strcmp(b->features.items[i], b->features.items[j]) == 0)
				wm_schema_error(&l->c, nodes[i], "feature '%s' is listed twice", b->features.items[i]);
		if (l->project) {
			const struct wm_project *p = l->project;
			const char *f = b->features.items[i], *hint, *slash = strchr(f, '/');
			char did[96] = "";
			if (wm_project_has_feature(p, f, &hint))
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

static void load_backend_platforms(struct loader *l, struct wm_backend *b, const struct wm_node *n)
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
	if (oom(l, locs))
		return;
	for (size_t i = 0; i < b->platforms.n; i++) {
		locs[i] = loc_of(l, nodes[i]);
		if (l->platforms_ok && !platform_pattern(l, nodes[i], "platform pattern"))
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

static void load_toolkit_use(struct loader *l, struct wm_backend *b, const struct wm_pair *pair)
{
	const struct wm_toolkit *t = wm_catalog_toolkit(l->cat, pair->key->text);
	const struct wm_node *v = pair->value, *ver = NULL;
	struct wm_toolkit_use *u;

	if (!t) {
		const char *hint = wm_catalog_suggest_toolkit(l->cat, pair->key->text);
		if (hint)
			wm_schema_error(&l->c, pair->key, "unknown toolkit '%s' (did you mean '%s'?)", pair->key->text, hint);
		else
			wm_schema_error(&l->c, pair->key, "unknown toolkit '%s'", pair->key->text);
		return;
	}
	u = &b->toolkits[b->ntoolkits++];
	u->toolkit = t;
	u->version = t->default_version;
	u->loc = loc_of(l, pair->key);
	if (v->type == WM_NODE_MAP) {
		static const char *const keys[] = { "version" };
		if (wm_schema_map(&l->c, v, "toolkit options", keys, WM_ARRAY_SIZE(keys)))
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
			u->version = ver->text;
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

static void load_toolkits(struct loader *l, struct wm_backend *b, const struct wm_node *n)
{
	size_t cat_n = wm_catalog_toolkit_count(l->cat);
	size_t declared = n && n->type == WM_NODE_MAP ? n->n : 0;

	if (n && n->type != WM_NODE_MAP && !wm_yaml_is_null(n))
		wm_schema_error(&l->c, n, "'toolkit' must be a mapping of toolkit names to versions, such as "
			"{cuda: \"12.4\"}, not %s", wm_yaml_kind(n));
	b->toolkits = wm_arena_array(l->c.arena, declared + cat_n + 1, sizeof(*b->toolkits));
	if (oom(l, b->toolkits))
		return;
	for (size_t i = 0; i < declared; i++)
		load_toolkit_use(l, b, &n->pairs[i]);
	/* a feature such as `cublas` or `candle-core/cuda` needs its toolkit even when none is named */
	for (size_t f = 0; f < b->features.n; f++) {
		const char *leaf = wm_name_feature_leaf(b->features.items[f]);
		for (size_t t = 0; t < cat_n; t++) {
			const struct wm_toolkit *tk = wm_catalog_toolkit_at(l->cat, t);
			for (size_t k = 0; k < tk->features.n; k++)
				if (strcmp(leaf, tk->features.items[k]) == 0 && !toolkit_declared(b, tk)) {
					struct wm_toolkit_use *u = &b->toolkits[b->ntoolkits++];
					u->toolkit = tk;
					u->version = tk->default_version;
					u->implied = true;
					u->loc = b->loc;
				}
		}
	}
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/*
 * Reports the expression fault `f` in scalar `n`, at the fault's own column
 * when `n` is a one-line plain scalar, else at the scalar; `where` names
 * the place ("a setup step").
 */
static void expr_error(struct loader *l, const struct wm_node *n, const struct wm_expr_fault *f, const char *where,
	const char *hint)
{
	unsigned line = n->line, column = n->column, span = (unsigned)f->len;
	if (n->style == WM_PLAIN && n->end_line == n->line && f->at >= n->text &&
			(size_t)(f->at - n->text) < n->len)
		column += (unsigned)(f->at - n->text);
	if (span > 60)
		span = 60;
	wm_schema_error_at(&l->c, line, column, span ? span : 1, "the expression in %s %s '%.*s': GitHub evaluates "
		"it before the step runs, so it may read only contexts nobody outside the repository chooses, "
		"such as runner.os, github.sha and secrets.NAME (see 'Expressions' in docs/matrix.md); %s",
		where, f->why, (int)(f->len > 80 ? 80 : f->len), f->at, hint);
}

/*
 * The first `${{ ... }}` of an environment value that is not a plain
 * `secrets.NAME` or `vars.NAME` (or is not closed), its length in *len;
 * NULL when every expression is one of those.
 */
static const char *env_expression(const char *s, size_t *len)
{
	const char *open = s;
	while ((open = strstr(open, "${{")) != NULL) {
		const char *p = open + 3, *close = strstr(p, "}}"), *id;
		while (*p == ' ')
			p++;
		if (strncmp(p, "secrets.", 8) == 0)
			p += 8;
		else if (strncmp(p, "vars.", 5) == 0)
			p += 5;
		else
			p = NULL;
		for (id = p; p && ident_char(*p); p++)
			;
		while (p && *p == ' ')
			p++;
		if (!close || !p || p == id || p != close) {
			*len = close ? (size_t)(close + 2 - open) : strlen(open);
			return open;
		}
		open = close + 2;
	}
	return NULL;
}

/*
 * Why an environment variable name is not the matrix file's to set, or NULL: the generated jobs'
 * own WM_* variables (a value there would replace the job's, and reach its scripts), the CI
 * providers' names, and the names that make a shell, the dynamic linker or Python run other code.
 */
static const char *env_reserved(const char *name)
{
	static const char *const prefixes[][2] = {
		{ "WM_", "the generated jobs set WM_* variables themselves" },
		{ "GITHUB_", "GitHub sets GITHUB_* variables" },
		{ "RUNNER_", "GitHub sets RUNNER_* variables" },
		{ "ACTIONS_", "GitHub sets ACTIONS_* variables" },
		{ "CI_", "GitLab sets CI_* variables" },
		{ "GITLAB_", "GitLab sets GITLAB_* variables" },
		{ "BASH_FUNC_", "bash imports functions from them" },
	};
	static const char *const names[] = { "CI", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS",
		"PATH", "HOME", "LD_PRELOAD", "LD_AUDIT", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONPATH" };
	for (size_t i = 0; i < WM_ARRAY_SIZE(prefixes); i++)
		if (strncmp(name, prefixes[i][0], strlen(prefixes[i][0])) == 0)
			return prefixes[i][1];
	for (size_t i = 0; i < WM_ARRAY_SIZE(names); i++)
		if (strcmp(name, names[i]) == 0)
			return "it changes what the build's shell, linker or Python runs";
	return NULL;
}

static void load_env(struct loader *l, const struct wm_node *n, struct wm_env **out, size_t *nout)
{
	struct wm_env *env;
	*out = NULL;
	*nout = 0;
	if (n->type != WM_NODE_MAP) {
		wm_schema_error(&l->c, n, "'env' must be a mapping of variable names to strings, not %s", wm_yaml_kind(n));
		return;
	}
	env = wm_arena_array(l->c.arena, n->n + 1, sizeof(*env));
	if (oom(l, env))
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *k = n->pairs[i].key, *v = n->pairs[i].value;
		const char *value;
		if (!wm_name_env(k->text)) {
			wm_schema_error(&l->c, k, "invalid environment variable name '%s': letters, digits and '_', "
				"not starting with a digit", k->text);
			continue;
		}
		{
			const char *why = env_reserved(k->text);
			if (why) {
				wm_schema_error(&l->c, k, "environment variable '%s' is reserved: %s", k->text, why);
				continue;
			}
		}
		if (!wm_schema_string(&l->c, v, "an environment value", &value))
			continue;
		{
			static const char *const allowed[] = { "secrets.*", "vars.*" };
			struct wm_expr_fault f;
			const char *bad;
			size_t blen;
			if (!wm_expr_check(value, allowed, WM_ARRAY_SIZE(allowed), &f))
				expr_error(l, v, &f, "an environment value", "the build environment takes fixed values, "
					"${{ secrets.NAME }} and ${{ vars.NAME }}");
			else if ((bad = env_expression(value, &blen)) != NULL)
				wm_schema_error(&l->c, v, "unsupported expression '%.*s' in an environment value: only "
					"${{ secrets.NAME }} and ${{ vars.NAME }} may appear there", (int)blen, bad);
		}
		env[*nout].name = k->text;
		env[(*nout)++].value = value;
	}
	*out = env;
}

/*
 * Refuses, anywhere in a setup subtree except a GitHub step's `env:` values,
 * an expression that reads anything but the contexts of wm_expr_setup_allowed.
 */
static void check_untrusted(struct loader *l, const struct wm_node *n, bool github_step)
{
	struct wm_expr_fault f;
	if (n->type == WM_NODE_SCALAR) {
		if (!wm_expr_check(n->text, wm_expr_setup_allowed, wm_expr_setup_nallowed, &f))
			expr_error(l, n, &f, "a setup step", "set the value in the step's 'env:' and use the variable");
		return;
	}
	if (n->type == WM_NODE_SEQ) {
		for (size_t i = 0; i < n->n; i++)
			check_untrusted(l, n->items[i], false);
		return;
	}
	for (size_t i = 0; i < n->n; i++) {
		if (github_step && strcmp(n->pairs[i].key->text, "env") == 0)
			continue;
		check_untrusted(l, n->pairs[i].key, false);
		check_untrusted(l, n->pairs[i].value, false);
	}
}

static void load_setup(struct loader *l, struct wm_backend *b, const struct wm_node *n)
{
	static const char *const providers[] = { "github", "gitlab" };
	static const char *const oses[] = { "linux", "macos", "windows" };
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
				const struct wm_node *step = steps->items[k];
				if (github && step->type != WM_NODE_MAP)
					wm_schema_error(&l->c, step, "a GitHub setup step must be a mapping such as "
						"{run: ...} or {uses: ...}, not %s", wm_yaml_kind(step));
				else if (!github && (step->type != WM_NODE_SCALAR || wm_yaml_is_null(step)))
					wm_schema_error(&l->c, step, "a GitLab setup step must be a script line (a string), not %s",
						wm_yaml_kind(step));
				else
					check_untrusted(l, step, github);
			}
		}
	}
	b->setup = n;
}

static void load_dependencies(struct loader *l, struct wm_backend *b, const struct wm_node *n)
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

static const char *const backend_keys[] = { "features", "platforms", "toolkit", "dist", "default", "env",
	"setup", "before-script-linux", "dependencies", "smoke" };

static void load_backend(struct loader *l, size_t i, const struct wm_pair *pair)
{
	struct wm_backend *b = wm_arena_alloc(l->c.arena, sizeof(*b));
	const struct wm_node *n = pair->value, *v;
	const char *id = pair->key->text;

	if (oom(l, b))
		return;
	l->m->backends[i] = b;
	l->backend_nodes[i] = pair->key;
	b->id = id;
	b->index = i;
	b->loc = loc_of(l, pair->key);
	if (!wm_name_backend_id(id)) {
		char fixed[64];
		size_t k = 0;
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
	if (n && (v = wm_yaml_find(n, "features")))
		load_features(l, b, v);
	if (n && (v = wm_yaml_find(n, "platforms"))) {
		l->platforms_nodes[i] = v;
		load_backend_platforms(l, b, v);
	}
	load_toolkits(l, b, n ? wm_yaml_find(n, "toolkit") : NULL);
	if (n && (v = wm_yaml_find(n, "dist")) && wm_schema_string(&l->c, v, "'dist'", &b->dist)) {
		l->dist_nodes[i] = v;
		b->dist_explicit = true;
		if (!wm_name_distribution(b->dist)) {
			wm_schema_error(&l->c, v, "invalid distribution name '%s': PEP 508 names are letters, digits, "
				"'.', '-' and '_', beginning and ending with a letter or digit", b->dist);
			b->dist = NULL;
		}
	}
	if (n && (v = wm_yaml_find(n, "default")))
		wm_schema_bool(&l->c, v, "'default'", &b->is_default);
	if (n && (v = wm_yaml_find(n, "env")))
		load_env(l, v, &b->env, &b->nenv);
	if (n && (v = wm_yaml_find(n, "setup")))
		load_setup(l, b, v);
	if (n && (v = wm_yaml_find(n, "before-script-linux")) &&
			wm_schema_string(&l->c, v, "'before-script-linux'", &b->before_script_linux)) {
		struct wm_expr_fault f;
		if (!wm_expr_check(v->text, wm_expr_setup_allowed, wm_expr_setup_nallowed, &f))
			expr_error(l, v, &f, "'before-script-linux'", "set the value in the backend's 'env:' and use "
				"the variable");
	}
	if (n && (v = wm_yaml_find(n, "dependencies")))
		load_dependencies(l, b, v);
	b->smoke = true;
	for (size_t t = 0; t < b->ntoolkits; t++)
		b->smoke = b->smoke && b->toolkits[t].toolkit->smoke;
	if (n && (v = wm_yaml_find(n, "smoke")))
		wm_schema_bool(&l->c, v, "'smoke'", &b->smoke);
	if (bindings_bin(l)) {
		/* a program, not a module: nothing to import */
		if (b->smoke && n && (v = wm_yaml_find(n, "smoke")))
			wm_schema_error(&l->c, v, "a bindings = \"bin\" project has no module to import: 'smoke' must be false");
		b->smoke = false;
	}
}

static void load_backends(struct loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	size_t count = n && n->type == WM_NODE_MAP ? n->n : 1;

	l->backends_ok = true;
	m->backends = wm_arena_array(l->c.arena, count, sizeof(*m->backends));
	l->backend_nodes = wm_arena_array(l->c.arena, count, sizeof(*l->backend_nodes));
	l->dist_nodes = wm_arena_array(l->c.arena, count, sizeof(*l->dist_nodes));
	l->platforms_nodes = wm_arena_array(l->c.arena, count, sizeof(*l->platforms_nodes));
	if (oom(l, m->backends) || oom(l, l->backend_nodes) || oom(l, l->dist_nodes) || oom(l, l->platforms_nodes))
		return;
	if (!n || wm_yaml_is_null(n)) {
		/* no backends: one plain build under the base name */
		struct wm_backend *b = wm_arena_alloc(l->c.arena, sizeof(*b));
		if (oom(l, b))
			return;
		b->id = "cpu";
		b->is_default = true;
		b->smoke = !bindings_bin(l);
		b->loc = loc_of(l, l->root);
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

static bool backend_builds_on(const struct wm_backend *b, const char *platform)
{
	if (b->platforms.n == 0)
		return true;
	for (size_t i = 0; i < b->platforms.n; i++)
		if (wm_text_glob_match(b->platforms.items[i], platform))
			return true;
	return false;
}

/* Reports each toolkit of `b` that cannot be built on `p`; `at` is where the job is asked for. */
static bool check_toolkit_platform(struct loader *l, const struct wm_backend *b, const struct wm_platform *p,
	struct wm_loc at)
{
	bool ok = true;
	for (size_t t = 0; t < b->ntoolkits; t++) {
		const struct wm_toolkit_use *u = &b->toolkits[t];
		const struct wm_toolkit *tk = u->toolkit;
		bool found = false;
		char implied[96] = "";
		for (size_t k = 0; k < tk->platforms.n && !found; k++)
			found = strcmp(tk->platforms.items[k], p->id) == 0;
		if (found)
			continue;
		if (u->implied)
			for (size_t f = 0; f < b->features.n; f++)
				for (size_t k = 0; k < tk->features.n; k++)
					if (!implied[0] && strcmp(wm_name_feature_leaf(b->features.items[f]), tk->features.items[k]) == 0)
						snprintf(implied, sizeof(implied), " (feature '%s')", b->features.items[f]);
		wm_schema_error_at(&l->c, at.line, at.column, 1, "backend '%s' uses %s%s, which cannot be built on %s: "
			"%s builds on %s only", b->id, tk->title, implied, p->id, tk->title, tk->platforms_text);
		ok = false;
	}
	return ok;
}

static void check_backend_toolkits(struct loader *l)
{
	const struct wm_matrix *m = l->m;
	for (size_t i = 0; i < m->nbackends; i++) {
		const struct wm_backend *b = m->backends[i];
		for (size_t p = 0; p < m->nplatforms; p++)
			if (backend_builds_on(b, m->platforms[p]->id))
				check_toolkit_platform(l, b, m->platforms[p], backend_platform_loc(b, m->platforms[p]->id));
	}
}

static void check_defaults(struct loader *l)
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

/* Fills in default distribution names and reports names that collide after PEP 503 normalisation. */
static void check_distributions(struct loader *l)
{
	struct wm_matrix *m = l->m;
	struct wm_map seen;
	char *base_norm = NULL;

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
		oom(l, b->dist);
	}
	if (m->strategy == WM_STRATEGY_META && m->name) {
		base_norm = wm_arena_alloc(l->c.arena, strlen(m->name) + 1);
		if (oom(l, base_norm))
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
			oom(l, NULL);
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
			oom(l, NULL);
	}
	wm_map_release(&seen);
}

/* ---- rules -------------------------------------------------------------------- */

static const struct wm_backend *find_backend(const struct wm_matrix *m, const char *id)
{
	for (size_t i = 0; i < m->nbackends; i++)
		if (strcmp(m->backends[i]->id, id) == 0)
			return m->backends[i];
	return NULL;
}

static void unknown_backend(struct loader *l, const struct wm_node *n)
{
	const struct wm_matrix *m = l->m;
	const char **ids = malloc((m->nbackends + 1) * sizeof(*ids));
	const char *hint = NULL;
	if (ids) {
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

static bool rule_backend(struct loader *l, const struct wm_node *n, bool glob_ok)
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

static bool rule_python(struct loader *l, const struct wm_node *n)
{
	const struct wm_matrix *m = l->m;
	unsigned minor;
	bool ft;
	for (size_t i = 0; i < m->npythons; i++)
		if (wm_text_glob_match(n->text, m->pythons[i]->version))
			return true;
	if (wm_text_is_glob(n->text)) {
		wm_schema_error(&l->c, n, "Python pattern '%s' matches none of the matrix's versions", n->text);
		return false;
	}
	if (strcmp(n->text, "abi3") == 0)
		wm_schema_error(&l->c, n, "this matrix has no abi3 build: set 'python.abi3' first");
	else if (parse_version(l, n, "versions", WM_PYTHON_MIN, true, &minor, &ft))
		wm_schema_error(&l->c, n, "Python %s is not one of the matrix's versions", n->text);
	return false;
}

static const char *const rule_keys[] = { "backend", "platform", "python" };

static bool rule_field(struct loader *l, const struct wm_node *rule, const char *key, const char **out,
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

static void load_excludes(struct loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	if (n->type != WM_NODE_SEQ) {
		wm_schema_error(&l->c, n, "'exclude' must be a list of rules such as {backend: cuda, python: \"3.13t\"}, "
			"not %s", wm_yaml_kind(n));
		return;
	}
	m->excludes = wm_arena_array(l->c.arena, n->n + 1, sizeof(*m->excludes));
	if (oom(l, m->excludes))
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
		if (rule->platform && l->platforms_ok && !platform_pattern(l, pn, "platform pattern"))
			ok = false;
		if (rule->python && l->python_ok && !rule_python(l, yn))
			ok = false;
		if (!ok)
			continue;
		rule->index = m->nexcludes++;
		rule->loc = loc_of(l, r);
	}
}

static struct wm_python *include_python(struct loader *l, const struct wm_node *n)
{
	const struct wm_matrix *m = l->m;
	struct wm_python *py;
	unsigned minor;
	bool ft;
	for (size_t i = 0; i < m->npythons; i++)
		if (strcmp(n->text, m->pythons[i]->version) == 0)
			return (struct wm_python *)m->pythons[i];
	if (strcmp(n->text, "abi3") == 0) {
		wm_schema_error(&l->c, n, "this matrix has no abi3 build: set 'python.abi3' first");
		return NULL;
	}
	if (!parse_version(l, n, "versions", WM_PYTHON_MIN, true, &minor, &ft))
		return NULL;
	if ((py = make_python(l, n->text, minor, ft)) != NULL)
		py->loc = loc_of(l, n);
	return py;
}

static void load_include(struct loader *l, const struct wm_node *r)
{
	static const char *const keys[] = { "backend", "platform", "python", "env", "runner", "image", "tags",
		"manylinux", "container", "cross", "target" };
	struct wm_matrix *m = l->m;
	struct wm_rule *rule = &m->includes[m->nincludes];
	const struct wm_node *bn, *pn, *yn, *v;
	const struct wm_platform *base = NULL;
	bool ok = true;

	memset(rule, 0, sizeof(*rule));
	if (!wm_schema_map(&l->c, r, "an include rule", keys, WM_ARRAY_SIZE(keys)))
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
	else if ((base = wm_catalog_platform(l->cat, rule->platform)) == NULL)
		unknown_platform(l, pn, rule->platform);
	for (size_t i = 0; base && i < m->nplatforms; i++)
		if (strcmp(m->platforms[i]->id, base->id) == 0)
			base = m->platforms[i];  /* the matrix's overrides first */
	if (base)
		rule->include_platform = apply_overrides(l, base, r);
	if (wm_text_is_glob(rule->python))
		wm_schema_error(&l->c, yn, "an include names one job: write a Python version, not a pattern");
	else
		rule->include_python = include_python(l, yn);
	if ((v = wm_yaml_find(r, "env")))
		load_env(l, v, &rule->env, &rule->nenv);
	if (!rule->include_backend || !rule->include_platform || !rule->include_python)
		return;
	rule->loc = loc_of(l, r);
	if (!check_toolkit_platform(l, rule->include_backend, rule->include_platform, rule->loc))
		return;
	rule->index = m->nincludes++;
}

static void load_includes(struct loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	if (n->type != WM_NODE_SEQ) {
		wm_schema_error(&l->c, n, "'include' must be a list of jobs such as {backend: cpu, platform: linux-x86_64, "
			"python: \"3.8\"}, not %s", wm_yaml_kind(n));
		return;
	}
	m->includes = wm_arena_array(l->c.arena, n->n + 1, sizeof(*m->includes));
	if (oom(l, m->includes))
		return;
	for (size_t i = 0; i < n->n; i++)
		load_include(l, n->items[i]);
}

/* ---- the rest of the file ------------------------------------------------------ */

static void load_version(struct loader *l)
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

static void load_path(struct loader *l, const struct wm_node *n, const char *what, const char **out)
{
	const char *s, *why;
	if (!wm_schema_string(&l->c, n, what, &s))
		return;
	if (!wm_name_repo_path(s, &why)) {
		wm_schema_error(&l->c, n, "invalid path '%s': %s", s, why);
		return;
	}
	*out = s;
}

/*
 * The maturin the CI pins: tools.maturin when [build-system].requires admits
 * it, else the newest known release it admits; none is an error at the
 * requirement.
 */
static void resolve_maturin(struct loader *l, const struct wm_project *p)
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
static void read_project(struct loader *l, const struct wm_node *n, bool manifest_given)
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
			wm_error_add(l->c.err, WM_EINVALID, WM_SEV_ERROR, p->py_path, NULL, 0, 0, 0, 0,
				"no [project].name, and no 'project.name' in the matrix file");
	} else if (!m->name && !name) {
		if (wm_name_distribution(p->name))
			m->name = p->name;
		else
			wm_error_add(l->c.err, WM_EINVALID, WM_SEV_ERROR, p->py_path, NULL, 0, 0, 0, 0,
				"invalid distribution name '%s' in [project].name", p->name);
	} else if (m->name && strcmp(m->name, p->name) != 0) {
		char *a = wm_arena_alloc(l->c.arena, strlen(m->name) + 1), *b = wm_arena_alloc(l->c.arena, strlen(p->name) + 1);
		if (a && b) {
			wm_name_normalize(a, m->name);
			wm_name_normalize(b, p->name);
			if (strcmp(a, b) != 0)
				wm_schema_error(&l->c, name, "'project.name' is '%s' but %s names the project '%s': the variants "
					"are renamed from the name pyproject.toml has", m->name, p->py_path, p->name);
		}
	}
	if (!m->module)
		m->module = wm_project_module(l->c.arena, p->module_name, p->lib_name, m->name);
}

static void load_project(struct loader *l, const struct wm_node *n)
{
	static const char *const keys[] = { "name", "pyproject", "manifest", "module" };
	struct wm_matrix *m = l->m;
	const struct wm_node *v;
	const char *s;

	m->pyproject = "pyproject.toml";
	m->manifest = "Cargo.toml";
	m->maturin = wm_catalog_tool(l->cat, "maturin");
	if (n && !wm_schema_map(&l->c, n, "'project'", keys, WM_ARRAY_SIZE(keys)))
		return;
	if ((v = wm_yaml_find(n, "name")) && wm_schema_string(&l->c, v, "'project.name'", &s)) {
		if (wm_name_distribution(s))
			m->name = s;
		else
			wm_schema_error(&l->c, v, "invalid distribution name '%s': PEP 508 names are letters, digits, "
				"'.', '-' and '_', beginning and ending with a letter or digit", s);
	}
	if ((v = wm_yaml_find(n, "pyproject")))
		load_path(l, v, "'project.pyproject'", &m->pyproject);
	if ((v = wm_yaml_find(n, "manifest")))
		load_path(l, v, "'project.manifest'", &m->manifest);
	if ((v = wm_yaml_find(n, "module")) && wm_schema_string(&l->c, v, "'project.module'", &s)) {
		if (wm_name_module(s))
			m->module = s;
		else
			wm_schema_error(&l->c, v, "invalid module name '%s': Python identifiers separated by '.'", s);
	}
	read_project(l, n, wm_yaml_find(n, "manifest") != NULL);
	if (!m->module && m->name)
		m->module = wm_project_module(l->c.arena, NULL, NULL, m->name);
}

static void load_distribution(struct loader *l, const struct wm_node *n)
{
	static const char *const keys[] = { "strategy" };
	static const char *const strategies[] = { "rename", "meta", "index" };
	const struct wm_node *v;
	const char *s;
	if (!wm_schema_map(&l->c, n, "'distribution'", keys, WM_ARRAY_SIZE(keys)))
		return;
	if (!(v = wm_yaml_find(n, "strategy")) || !wm_schema_string(&l->c, v, "'distribution.strategy'", &s))
		return;
	if (strcmp(s, "rename") == 0) {
		l->m->strategy = WM_STRATEGY_RENAME;
	} else if (strcmp(s, "meta") == 0) {
		l->m->strategy = WM_STRATEGY_META;
		if (bindings_bin(l))
			wm_schema_error(&l->c, v, "strategy 'meta' dispatches between backends' modules at import, and %s "
				"sets bindings = \"bin\" (a program, no module): use 'rename'", l->project->py_path);
	} else if (strcmp(s, "index") == 0) {
		wm_schema_error(&l->c, v, "distribution strategy 'index' is not supported yet: use 'rename' or 'meta'");
	} else {
		const char *hint = wm_text_suggest(s, strategies, 2);
		if (hint)
			wm_schema_error(&l->c, v, "unknown distribution strategy '%s' (did you mean '%s'?)", s, hint);
		else
			wm_schema_error(&l->c, v, "unknown distribution strategy '%s': use 'rename' or 'meta'", s);
	}
}

static void load_output(struct loader *l, const struct wm_node *n, const char *provider, struct wm_output *out)
{
	static const char *const keys[] = { "path" };
	const struct wm_node *v;
	char what[32];
	out->enabled = true;
	out->loc = loc_of(l, n);
	if (wm_yaml_is_null(n))
		return;
	snprintf(what, sizeof(what), "'ci.%s'", provider);
	if (!wm_schema_map(&l->c, n, what, keys, WM_ARRAY_SIZE(keys)))
		return;
	if ((v = wm_yaml_find(n, "path"))) {
		snprintf(what, sizeof(what), "'ci.%s.path'", provider);
		load_path(l, v, what, &out->path);
	}
}

static void load_ci(struct loader *l, const struct wm_node *n)
{
	static const char *const keys[] = { "github", "gitlab" };
	struct wm_matrix *m = l->m;
	const struct wm_node *v;
	m->github.path = ".github/workflows/wheels.yml";
	m->gitlab.path = ".gitlab-ci.yml";
	if (!n) {
		m->github.enabled = m->gitlab.enabled = true;
		return;
	}
	if (!wm_schema_map(&l->c, n, "'ci'", keys, WM_ARRAY_SIZE(keys)))
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
		if (!(ident_char(*p) || *p == '.' || *p == '/'))
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

static void load_actions(struct loader *l, const struct wm_node *n)
{
	struct wm_matrix *m = l->m;
	if (n->type != WM_NODE_MAP) {
		wm_schema_error(&l->c, n, "'actions' must be a mapping of actions to references, such as "
			"{actions/checkout: <commit sha>}, not %s", wm_yaml_kind(n));
		return;
	}
	m->actions = wm_arena_array(l->c.arena, n->n + 1, sizeof(*m->actions));
	if (oom(l, m->actions))
		return;
	for (size_t i = 0; i < n->n; i++) {
		const struct wm_node *k = n->pairs[i].key, *v = n->pairs[i].value;
		const char *ref;
		if (!action_name_valid(k->text)) {
			wm_schema_error(&l->c, k, "invalid action '%s': write owner/name, such as actions/checkout", k->text);
			continue;
		}
		if (!wm_catalog_action(l->cat, k->text)) {
			const char *hint = wm_catalog_suggest_action(l->cat, k->text);
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
		m->actions[m->nactions++].loc = loc_of(l, k);
	}
}

static bool environment_valid(const char *s)
{
	size_t n = 0;
	for (; *s; s++, n++)
		if (!(ident_char(*s) || *s == '.' || *s == ' '))
			return false;
	return n <= 255;
}

static void load_publish(struct loader *l, const struct wm_node *n)
{
	static const char *const keys[] = { "pypi" };
	static const char *const pypi_keys[] = { "trusted", "environment" };
	struct wm_matrix *m = l->m;
	const struct wm_node *p, *v;
	m->trusted = true;
	m->environment = "pypi";
	if (!n || !wm_schema_map(&l->c, n, "'publish'", keys, WM_ARRAY_SIZE(keys)))
		return;
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
		else if (expression_free(l, v, "'publish.pypi.environment'") && !environment_valid(m->environment))
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
static void warn_gitlab_env(struct loader *l, const struct wm_node *owner)
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

static void check_gitlab_env(struct loader *l)
{
	const struct wm_node *backends = wm_yaml_find(l->root, "backends"), *includes = present(l->root, "include");
	if (!l->m->gitlab.enabled)
		return;
	if (backends && backends->type == WM_NODE_MAP)
		for (size_t i = 0; i < backends->n; i++)
			warn_gitlab_env(l, backends->pairs[i].value);
	if (includes && includes->type == WM_NODE_SEQ)
		for (size_t i = 0; i < includes->n; i++)
			warn_gitlab_env(l, includes->items[i]);
}

static const char *const top_keys[] = { "wheelmatrix", "project", "python", "platforms", "backends",
	"exclude", "include", "distribution", "ci", "actions", "publish" };

static void load_root(struct loader *l)
{
	const struct wm_node *r = l->root, *v;
	size_t errors;

	if (!wm_schema_map(&l->c, r, "the matrix", top_keys, WM_ARRAY_SIZE(top_keys)))
		return;
	load_version(l);
	load_project(l, present(r, "project"));
	errors = l->c.err->nerrors;
	load_python(l, wm_yaml_find(r, "python"));
	l->python_ok = l->c.err->nerrors == errors;
	load_platforms(l, wm_yaml_find(r, "platforms"));
	if ((v = present(r, "distribution")))
		load_distribution(l, v);
	load_backends(l, wm_yaml_find(r, "backends"));
	if ((v = present(r, "exclude")))
		load_excludes(l, v);
	if ((v = present(r, "include")))
		load_includes(l, v);
	load_ci(l, present(r, "ci"));
	check_gitlab_env(l);
	if ((v = present(r, "actions")))
		load_actions(l, v);
	load_publish(l, present(r, "publish"));
	if (l->platforms_ok && l->backends_ok)
		check_backend_toolkits(l);
	check_defaults(l);
	if (l->m->name)
		check_distributions(l);
}

int wm_matrix_load(struct wm_matrix **out, const struct wm_catalog *cat,
	const char *name, const char *text, size_t len, struct wm_error *err)
{
	return wm_matrix_load_project(out, cat, name, text, len, NULL, err);
}

int wm_matrix_load_project(struct wm_matrix **out, const struct wm_catalog *cat,
	const char *name, const char *text, size_t len, const struct wm_reader *r, struct wm_error *err)
{
	static const struct wm_yaml_limits limits = { WM_MATRIX_MAX_BYTES, WM_MATRIX_MAX_DEPTH, WM_MATRIX_MAX_NODES };
	struct matrix_state *st = calloc(1, sizeof(*st));
	struct loader l;
	int ret;

	*out = NULL;
	if (!st) {
		wm_error_code(err, WM_ENOMEM);
		return WM_ENOMEM;
	}
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
		wm_error_add(err, WM_EINVALID, WM_SEV_ERROR, name, NULL, 0, 0, 0, 0,
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
		wm_expand_prepare(&st->pub, &l.c);
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
			wm_error_code(err, WM_ENOMEM);
			return WM_ENOMEM;
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
