/*
 * jsonschema.c — the JSON Schema of wheelmatrix.yaml (docs/wheelmatrix.schema.json), which editors
 * read to complete and check the file as it is typed.
 *
 * The keys of every mapping are the loader's own tables (loader.h), and the enumerations come
 * from them and from the catalogs, so that the schema cannot drift from what the loader reads:
 * each key has its description in a table here, and a key of the loader without one, or a
 * description of a key the loader does not have, fails the build of the schema
 * (tests/t-schema.sh checks that the checked-in file is what this writes).  The loader stays the
 * authority: the schema states the keys, types, enumerations and grammars, not the checks across
 * keys (a toolkit's platforms, the one default backend, a backend's features against Cargo.toml).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "util/buf.h"
#include "util/error.h"
#include "formats/json.h"
#include "model/backends.h"
#include "model/catalog.h"
#include "model/jsonschema.h"
#include "model/loader.h"
#include "model/python.h"
#include "model/settings.h"

struct cx {
	const struct wm_catalog *cat;
	struct wm_error *err;
	int ret;  /* the first failure */
	const struct wm_toolkit *toolkit;  /* the one being described */
};

/* Fills the schema `s` of a value; returns it. */
typedef struct wm_json *build_fn(struct cx *x, struct wm_json *s);

/* A key of a mapping, or a value of an enumeration: how its schema is built and what it means. */
struct field {
	const char *key;
	build_fn *build;      /* NULL for a value of an enumeration */
	const char *description;
};

#define FIELDS(a) (a), WM_ARRAY_SIZE(a)

/* The grammars of docs/matrix.md, as ECMA-262 patterns. */
#define DIST_PATTERN "^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$"
#define GLOB_PATTERN "[*?\\[]"
#define NO_BLANK_PATTERN "^[^\\s]+$"

static void fail(struct cx *x, int code)
{
	if (!x->ret)
		x->ret = code;
}

static void internal(struct cx *x, const char *fmt, ...) WM_PRINTF(2, 3);
static void internal(struct cx *x, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	wm_error_nopos(x->err, WM_EINTERNAL, WM_SEV_ERROR, "lib/model/jsonschema.c", "%s", msg);
	fail(x, WM_EINTERNAL);
}

/* Sets `key` of `obj` to `v` (taking its reference); returns `obj`. */
static struct wm_json *put(struct cx *x, struct wm_json *obj, const char *key, struct wm_json *v)
{
	if (!obj) {
		wm_json_free(v);
		fail(x, WM_ENOMEM);
	} else if (wm_json_set(obj, key, v) < 0) {
		fail(x, WM_ENOMEM);
	}
	return obj;
}

static void push(struct cx *x, struct wm_json *array, struct wm_json *v)
{
	if (!array)
		wm_json_free(v);
	if (!array || wm_json_push(array, v) < 0)
		fail(x, WM_ENOMEM);
}

/* Our own text and the catalog's: UTF-8 already. */
static struct wm_json *text(const char *s)
{
	return wm_json_string_trusted(s, strlen(s));
}

static struct wm_json *put_text(struct cx *x, struct wm_json *obj, const char *key, const char *s)
{
	return put(x, obj, key, text(s));
}

static struct wm_json *texts(struct cx *x, const char *const *items, size_t n)
{
	struct wm_json *a = wm_json_array();
	for (size_t i = 0; i < n; i++)
		push(x, a, text(items[i]));
	return a;
}

/* "type": `type`, or [`type`, "null"] when an empty value (`key:` and nothing) takes the default. */
static struct wm_json *typed(struct cx *x, struct wm_json *s, const char *type, bool nullable)
{
	struct wm_json *t;
	if (!nullable)
		return put_text(x, s, "type", type);
	t = wm_json_array();
	push(x, t, text(type));
	push(x, t, text("null"));
	return put(x, s, "type", t);
}

static struct wm_json *ref(struct cx *x, struct wm_json *s, const char *def)
{
	char path[64];
	snprintf(path, sizeof(path), "#/$defs/%s", def);
	return put_text(x, s, "$ref", path);
}

static struct wm_json *new_ref(struct cx *x, const char *def)
{
	return ref(x, wm_json_object(), def);
}

static const struct field *find_field(const struct field *fields, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(fields[i].key, key) == 0)
			return &fields[i];
	return NULL;
}

static bool has_name(const struct wm_names *names, const char *name)
{
	for (size_t i = 0; i < names->n; i++)
		if (strcmp(names->names[i], name) == 0)
			return true;
	return false;
}

/* Every field names one of `names`, and every one of `names` has its field (here or in `more`). */
static void check_fields(struct cx *x, const char *what, const struct wm_names *names,
	const struct field *fields, size_t n, const struct field *more, size_t nmore)
{
	for (size_t i = 0; i < names->n; i++)
		if (!find_field(fields, n, names->names[i]) && !find_field(more, nmore, names->names[i]))
			internal(x, "'%s' of %s has no description in the JSON Schema", names->names[i], what);
	for (size_t i = 0; i < n; i++)
		if (!has_name(names, fields[i].key))
			internal(x, "the JSON Schema describes '%s' of %s, which the loader does not read", fields[i].key, what);
	for (size_t i = 0; i < nmore; i++)
		if (!has_name(names, more[i].key))
			internal(x, "the JSON Schema describes '%s' of %s, which the loader does not read", more[i].key, what);
}

static struct wm_json *field_schema(struct cx *x, const struct field *f)
{
	struct wm_json *s = put_text(x, wm_json_object(), "description", f->description);
	return f->build(x, s);
}

/*
 * A mapping of the loader's `keys`, in their order, each described by its field
 * (of `fields`, else of `more`); no other key.
 */
static struct wm_json *object_of(struct cx *x, struct wm_json *s, bool nullable, const char *what,
	const struct wm_names *keys, const struct field *fields, size_t n, const struct field *more, size_t nmore)
{
	struct wm_json *props = wm_json_object();
	check_fields(x, what, keys, fields, n, more, nmore);
	typed(x, s, "object", nullable);
	for (size_t i = 0; i < keys->n; i++) {
		const struct field *f = find_field(fields, n, keys->names[i]);
		if (!f)
			f = find_field(more, nmore, keys->names[i]);
		if (f)
			put(x, props, f->key, field_schema(x, f));
	}
	put(x, s, "properties", props);
	return put(x, s, "additionalProperties", wm_json_bool(false));
}

/* "enum": the loader's `values`, with "enumDescriptions" (the editors' hover text) from `descs`. */
static struct wm_json *enum_of(struct cx *x, struct wm_json *s, const char *what, const struct wm_names *values,
	const struct field *descs, size_t n)
{
	struct wm_json *d = wm_json_array();
	check_fields(x, what, values, descs, n, NULL, 0);
	put_text(x, s, "type", "string");
	put(x, s, "enum", texts(x, values->names, values->n));
	for (size_t i = 0; i < values->n; i++) {
		const struct field *f = find_field(descs, n, values->names[i]);
		push(x, d, text(f ? f->description : ""));
	}
	return put(x, s, "enumDescriptions", d);
}

static struct wm_json *string_matching(struct cx *x, struct wm_json *s, const char *pattern)
{
	put_text(x, s, "type", "string");
	return put_text(x, s, "pattern", pattern);
}

static struct wm_json *list_of(struct cx *x, struct wm_json *s, struct wm_json *items)
{
	put_text(x, s, "type", "array");
	return put(x, s, "items", items);
}

static struct wm_json *strings_matching(struct cx *x, struct wm_json *s, const char *pattern)
{
	return list_of(x, s, string_matching(x, wm_json_object(), pattern));
}

/* ---- values --------------------------------------------------------------------- */

static struct wm_json *a_string(struct cx *x, struct wm_json *s)
{
	return put_text(x, s, "type", "string");
}

static struct wm_json *a_bool(struct cx *x, struct wm_json *s)
{
	return put_text(x, s, "type", "boolean");
}

/* `key:` with no value takes the default */
static struct wm_json *a_bool_or_null(struct cx *x, struct wm_json *s)
{
	return typed(x, s, "boolean", true);
}

static struct wm_json *strings(struct cx *x, struct wm_json *s)
{
	return list_of(x, s, put_text(x, wm_json_object(), "type", "string"));
}

static struct wm_json *dist_name(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, DIST_PATTERN);
}

static struct wm_json *module_name(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$");
}

static struct wm_json *no_blank(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, NO_BLANK_PATTERN);
}

static struct wm_json *env(struct cx *x, struct wm_json *s)
{
	return ref(x, s, "env");
}

static struct wm_json *platform_id(struct cx *x, struct wm_json *s)
{
	return ref(x, s, "platform");
}

static struct wm_json *platform_glob(struct cx *x, struct wm_json *s)
{
	return ref(x, s, "platform-pattern");
}

static struct wm_json *platform_globs(struct cx *x, struct wm_json *s)
{
	return list_of(x, s, new_ref(x, "platform-pattern"));
}

static struct wm_json *platform_patterns(struct cx *x, struct wm_json *s)
{
	platform_globs(x, s);
	return put(x, s, "minItems", wm_json_int(1));
}

static struct wm_json *runner(struct cx *x, struct wm_json *s)
{
	const char *seen[64];
	size_t n = 0;
	struct wm_json *examples = wm_json_array();
	/* the catalog's labels, once each, what an editor offers first; then the other labels with no
	 * retirement announced (a label retiring is not one to offer) */
	for (size_t i = 0; i < wm_catalog_platform_count(x->cat) + wm_catalog_runner_count(x->cat) &&
			n < WM_ARRAY_SIZE(seen); i++) {
		size_t np = wm_catalog_platform_count(x->cat);
		const struct wm_runner *known = i < np ? NULL : wm_catalog_runner_at(x->cat, i - np);
		const char *r = known ? known->label : wm_catalog_platform_at(x->cat, i)->runner;
		size_t j;
		if (known && known->retires_text)
			continue;
		for (j = 0; j < n && strcmp(seen[j], r) != 0; j++)
			;
		if (j == n) {
			seen[n++] = r;
			push(x, examples, text(r));
		}
	}
	no_blank(x, s);
	return put(x, s, "examples", examples);
}

static struct wm_json *runner_tags(struct cx *x, struct wm_json *s)
{
	struct wm_json *item = put_text(x, wm_json_object(), "type", "string");
	return list_of(x, s, put(x, item, "minLength", wm_json_int(1)));
}

/*
 * A manylinux or musllinux level: 2014 is often written unquoted, a number to
 * YAML; which levels a platform takes is the loader's to say.
 */
static struct wm_json *manylinux(struct cx *x, struct wm_json *s)
{
	struct wm_json *t = wm_json_array();
	push(x, t, text("string"));
	push(x, t, text("integer"));
	put(x, s, "type", t);
	put_text(x, s, "pattern", "^[0-9]+(_[0-9]+)?$");
	return put(x, s, "examples", texts(x, (const char *const[]){ "2_28", "2_17", "2014", "1_2" }, 4));
}

static struct wm_json *macos_version(struct cx *x, struct wm_json *s)
{
	put_text(x, s, "type", "string");
	put_text(x, s, "pattern", "^[1-9][0-9]\\.[0-9]{1,2}$");
	return put(x, s, "examples", texts(x, (const char *const[]){ "10.15", "11.0", "15.0" }, 3));
}

static struct wm_json *target(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "^[a-z0-9_.-]+$");
}

static struct wm_json *features(struct cx *x, struct wm_json *s);

/* The build settings (model/settings.c), which every place of the file takes. */
static struct wm_json *profile(struct cx *x, struct wm_json *s)
{
	string_matching(x, s, "^[A-Za-z0-9_][A-Za-z0-9_-]*$");
	return put(x, s, "examples", texts(x, (const char *const[]){ "release", "dist" }, 2));
}

static struct wm_json *rust_toolchain(struct cx *x, struct wm_json *s)
{
	string_matching(x, s, "^(stable|beta|nightly|[0-9]+\\.[0-9]+(\\.[0-9]+)?)(-[0-9]{4}-[0-9]{2}-[0-9]{2})?"
		"(-[a-z0-9_.]+(-[a-z0-9_.]+)*)?$");
	return put(x, s, "examples", texts(x, (const char *const[]){ "stable", "nightly", "nightly-2026-01-15", "1.85.0" },
		4));
}

static struct wm_json *rustup_components(struct cx *x, struct wm_json *s)
{
	return strings_matching(x, s, "^[a-z0-9][a-z0-9_.-]*$");
}

static struct wm_json *unstable_flags(struct cx *x, struct wm_json *s)
{
	return strings_matching(x, s, "^[a-z0-9][a-z0-9-]*(=[A-Za-z0-9_,.+-]+)?$");
}

static struct wm_json *docker_options(struct cx *x, struct wm_json *s)
{
	return strings_matching(x, s, "^[A-Za-z0-9_=:,./@+-]+$");
}

static const struct field settings_fields[] = {
	{ "features", features, "Cargo features the build turns on, beside [tool.maturin].features and the other places' "
		"(docs/matrix.md, \"Build settings\")" },
	{ "no-default-features", a_bool, "build without the crate's default features (maturin's --no-default-features)" },
	{ "profile", profile, "the Cargo profile to build with instead of release (maturin's --profile)" },
	{ "rust-toolchain", rust_toolchain, "the Rust toolchain, as rustup names it (default: stable, or the repository's "
		"rust-toolchain file)" },
	{ "rustup-components", rustup_components, "rustup components to install with the toolchain (rust-src, ...)" },
	{ "unstable-flags", unstable_flags, "Cargo's -Z flags, without '-Z' (build-std=std,panic_abort); they need a "
		"nightly toolchain" },
	{ "zig", a_bool, "link with zig (maturin's --zig), on the runner: Linux builds only" },
	{ "docker-options", docker_options, "options of the GitHub Linux build container's docker run, one word each "
		"(--shm-size=2g)" },
	{ "env", env, "environment of the build (a later place's value replaces an earlier one's)" },
};

static const struct field override_fields[] = {
	{ "runner", runner, "GitHub Actions runner label (default: the catalog's)" },
	{ "image", no_blank, "GitLab image (default: the catalog's)" },
	{ "tags", runner_tags, "GitLab runner tags (default: the catalog's; needed where GitLab.com has no hosted "
		"runner)" },
	{ "manylinux", manylinux, "manylinux level (2014, 2_28, ... : 2_17 or later) or musllinux level (1_1, 1_2); "
		"Linux only" },
	{ "deployment-target", macos_version, "macOS deployment target, MACOSX_DEPLOYMENT_TARGET of the build "
		"(\"10.15\", \"11.0\", \"15.0\"; macOS only; default: rustc's, 10.12 on x86_64 and 11.0 on arm64); the "
		"wheel's tag names it when it is above rustc's" },
	{ "container", no_blank, "GitHub build container image, or off to build on the runner (Linux only; default: "
		"maturin-action's)" },
	{ "cross", a_bool, "built on another architecture than the wheel's" },
	{ "target", target, "Rust target triple" },
};

static struct wm_json *overrides(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "a platform's overrides", &wm_platforms_override_keys, FIELDS(override_fields),
		FIELDS(settings_fields));
}

/* ---- project, python, platforms ------------------------------------------------- */

static const struct field project_fields[] = {
	{ "name", dist_name, "the base distribution name (PEP 508; default: [project].name of pyproject.toml)" },
	{ "pyproject", a_string, "the path of the project's pyproject.toml (default: pyproject.toml)" },
	{ "manifest", a_string, "the path of the crate's Cargo.toml (default: maturin's: "
		"[tool.maturin].manifest-path, else Cargo.toml beside pyproject.toml)" },
	{ "module", module_name, "the import name (default: [tool.maturin].module-name, else [lib].name, else the "
		"project name with '-' and '.' as '_')" },
};

static struct wm_json *project(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'project'", &wm_matrix_project_keys, FIELDS(project_fields), NULL, 0);
}

static struct wm_json *python_versions(struct cx *x, struct wm_json *s)
{
	list_of(x, s, new_ref(x, "python-version"));
	put(x, s, "uniqueItems", wm_json_bool(true));
	return put(x, s, "default", texts(x, wm_python_defaults.names, wm_python_defaults.n));
}

static struct wm_json *abi3(struct cx *x, struct wm_json *s)
{
	return ref(x, s, "abi3-version");
}

static struct wm_json *abi3t(struct cx *x, struct wm_json *s)
{
	return ref(x, s, "abi3t-version");
}

static const struct field python_fields[] = {
	{ "versions", python_versions, "Python versions, one wheel each: CPython 3.N, or 3.Nt for a free-threaded "
		"build, PyPy pp3.N or GraalPy graalpy3.N (default: 3.10, or requires-python's lowest, to 3.14)" },
	{ "abi3", abi3, "the minimum version of one stable-ABI wheel per platform (default: pyo3's abi3-py3X "
		"feature of the crate)" },
	{ "abi3t", abi3t, "the minimum version of one free-threaded stable-ABI wheel per platform (PEP 803, "
		"cp315-abi3.abi3t; the crate's pyo3 needs its abi3t-py315 feature; default: none, or 3.15 when the crate "
		"enables it)" },
};

static struct wm_json *python(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'python'", &wm_python_keys, FIELDS(python_fields), NULL, 0);
}

static struct wm_json *platforms(struct cx *x, struct wm_json *s)
{
	struct wm_json *any = wm_json_array(), *list = wm_json_object(), *map = wm_json_object();
	push(x, any, put_text(x, wm_json_object(), "type", "null"));
	list_of(x, list, new_ref(x, "platform"));
	put(x, list, "minItems", wm_json_int(1));
	put(x, list, "uniqueItems", wm_json_bool(true));
	push(x, any, list);
	put_text(x, map, "type", "object");
	put(x, map, "minProperties", wm_json_int(1));
	put(x, map, "propertyNames", new_ref(x, "platform"));
	put(x, map, "additionalProperties", new_ref(x, "overrides"));
	push(x, any, map);
	put(x, s, "anyOf", any);
	return put(x, s, "default", texts(x, wm_platforms_defaults.names, wm_platforms_defaults.n));
}

/* ---- backends ------------------------------------------------------------------- */

static struct wm_json *features(struct cx *x, struct wm_json *s)
{
	/* a feature, dep/feature (dep?/feature), or dep:name */
	return strings_matching(x, s, "^(dep:[A-Za-z_][A-Za-z0-9_-]*|([A-Za-z_][A-Za-z0-9_-]*[?]?/)?"
		"[A-Za-z0-9_][A-Za-z0-9_+.-]*)$");
}

static struct wm_json *toolkit_version(struct cx *x, struct wm_json *s)
{
	const struct wm_toolkit *t = x->toolkit;
	put_text(x, s, "type", "string");
	return put(x, s, "enum", texts(x, t->versions.items, t->versions.n));
}

/* CUDA's `archs`: compute capabilities as the loader reads them ("8.6", 86, sm_86); none for the others. */
static struct wm_json *toolkit_archs(struct cx *x, struct wm_json *s)
{
	struct wm_json *items, *types;
	if (!wm_yaml_find(x->toolkit->recipe, "archs")) {
		put_text(x, s, "description", "GPU architectures: CUDA only");
		return put(x, s, "not", wm_json_object());
	}
	items = wm_json_object();
	types = wm_json_array();
	push(x, types, text("string"));
	push(x, types, text("number"));
	put(x, items, "type", types);
	put_text(x, items, "pattern", "^(sm_)?([1-9][0-9]?[.][0-9]|[1-9][0-9]{1,2})$");
	list_of(x, s, items);
	put(x, s, "minItems", wm_json_int(1));
	return put(x, s, "uniqueItems", wm_json_bool(true));
}

static const struct field toolkit_fields[] = {
	{ "version", toolkit_version, "the toolkit's version" },
	{ "archs", toolkit_archs, "the GPU architectures (compute capabilities) to build for, such as \"8.6\" "
		"(default: the version's list in the catalog)" },
};

/* A toolkit of the catalog: its version, as a string or {version: ...}; nothing ({}) for one without versions. */
static struct wm_json *toolkit(struct cx *x, const struct wm_toolkit *t)
{
	struct wm_json *s = wm_json_object(), *any;
	struct wm_buf d = WM_BUF_INIT;

	x->toolkit = t;
	wm_buf_printf(&d, "%s: builds on %s", t->title, t->platforms_text);
	if (t->default_version)
		wm_buf_printf(&d, "; version %s unless given", t->default_version);
	for (size_t i = 0; i < t->features.n; i++)
		wm_buf_printf(&d, "%s%s", i ? ", " : "; implied by the features ", t->features.items[i]);
	if (d.oom)
		fail(x, WM_ENOMEM);
	put_text(x, s, "description", d.ptr ? d.ptr : "");
	wm_buf_release(&d);
	if (!t->versions.n) {
		typed(x, s, "object", true);
		return put(x, s, "maxProperties", wm_json_int(0));
	}
	any = wm_json_array();
	push(x, any, put_text(x, wm_json_object(), "type", "null"));
	push(x, any, toolkit_version(x, wm_json_object()));
	push(x, any, object_of(x, wm_json_object(), false, "toolkit options", &wm_backends_toolkit_keys,
		FIELDS(toolkit_fields), NULL, 0));
	put(x, s, "anyOf", any);
	return put_text(x, s, "default", t->default_version);
}

static struct wm_json *toolkits(struct cx *x, struct wm_json *s)
{
	struct wm_json *props = wm_json_object();
	typed(x, s, "object", true);
	for (size_t i = 0; i < wm_catalog_toolkit_count(x->cat); i++) {
		const struct wm_toolkit *t = wm_catalog_toolkit_at(x->cat, i);
		put(x, props, t->id, toolkit(x, t));
	}
	put(x, s, "properties", props);
	return put(x, s, "additionalProperties", wm_json_bool(false));
}

/* One value read as text: a string, or a number or boolean (86 and true are "86" and "true"). */
static struct wm_json *scalar_value(struct cx *x, struct wm_json *s)
{
	struct wm_json *t = wm_json_array();
	push(x, t, text("string"));
	push(x, t, text("number"));
	push(x, t, text("boolean"));
	return put(x, s, "type", t);
}

/* A step's env: or with:: a mapping written out, of names in `pattern` to single values. */
static struct wm_json *step_mapping(struct cx *x, struct wm_json *s, const char *pattern)
{
	put_text(x, s, "type", "object");
	put(x, s, "propertyNames", string_matching(x, wm_json_object(), pattern));
	return put(x, s, "additionalProperties", scalar_value(x, wm_json_object()));
}

static struct wm_json *step_env(struct cx *x, struct wm_json *s)
{
	return step_mapping(x, s, "^[A-Za-z_][A-Za-z0-9_]*$");
}

static struct wm_json *step_with(struct cx *x, struct wm_json *s)
{
	return step_mapping(x, s, "^[A-Za-z_][A-Za-z0-9_-]*$");
}

static const struct field step_fields[] = {
	{ "name", scalar_value, "the step's name" },
	{ "id", scalar_value, "the step's id" },
	{ "if", scalar_value, "the condition the step runs on" },
	{ "uses", scalar_value, "the action the step runs: owner/name@ref" },
	{ "with", step_with, "the action's inputs, written out: NAME: value (expressions in values only)" },
	{ "run", scalar_value, "the script the step runs" },
	{ "shell", scalar_value, "the shell that runs the script" },
	{ "working-directory", scalar_value, "where the script runs" },
	{ "env", step_env, "the step's environment, written out: NAME: value (expressions in values only)" },
	{ "continue-on-error", scalar_value, "true: a failure of the step does not fail the job" },
	{ "timeout-minutes", scalar_value, "the step's time limit" },
};

static struct wm_json *github_step(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, false, "a GitHub setup step", &wm_untrusted_step_keys, FIELDS(step_fields), NULL, 0);
}

static struct wm_json *github_steps(struct cx *x, struct wm_json *s)
{
	return list_of(x, s, new_ref(x, "github-step"));
}

static struct wm_json *gitlab_steps(struct cx *x, struct wm_json *s)
{
	return list_of(x, s, put_text(x, wm_json_object(), "type", "string"));
}

static const struct field github_os_fields[] = {
	{ "linux", github_steps, "GitHub steps ({run: ...} or {uses: ...}) before the build on Linux" },
	{ "macos", github_steps, "GitHub steps ({run: ...} or {uses: ...}) before the build on macOS" },
	{ "windows", github_steps, "GitHub steps ({run: ...} or {uses: ...}) before the build on Windows" },
};

static const struct field gitlab_os_fields[] = {
	{ "linux", gitlab_steps, "GitLab script lines before the build on Linux" },
	{ "macos", gitlab_steps, "GitLab script lines before the build on macOS" },
	{ "windows", gitlab_steps, "GitLab script lines before the build on Windows" },
};

static struct wm_json *github_setup(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, false, "'setup.github'", &wm_backends_setup_os_keys, FIELDS(github_os_fields), NULL, 0);
}

static struct wm_json *gitlab_setup(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, false, "'setup.gitlab'", &wm_backends_setup_os_keys, FIELDS(gitlab_os_fields), NULL, 0);
}

static const struct field setup_fields[] = {
	{ "github", github_setup, "steps of the GitHub workflow, per OS" },
	{ "gitlab", gitlab_setup, "script lines of the GitLab jobs, per OS" },
};

static struct wm_json *setup(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, false, "'setup'", &wm_backends_setup_keys, FIELDS(setup_fields), NULL, 0);
}

static struct wm_json *variant_properties(struct cx *x, struct wm_json *s)
{
	strings_matching(x, s, "^ *[a-z0-9_]+ *:: *[a-z0-9_]+ *:: *[a-z0-9_.]+ *$");
	return put(x, s, "uniqueItems", wm_json_bool(true));
}

static struct wm_json *variant_label(struct cx *x, struct wm_json *s)
{
	put(x, s, "not", put_text(x, wm_json_object(), "const", "null"));
	return string_matching(x, s, "^[a-z0-9_.]+$");
}

static const struct field variant_fields[] = {
	{ "properties", variant_properties, "the wheel variant's properties, 'namespace :: feature :: value' "
		"(PEP 825)" },
	{ "label", variant_label, "the variant label in the wheels' names (default: the backend id)" },
};

static struct wm_json *variant(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, false, "'variant'", &wm_variants_keys, FIELDS(variant_fields), NULL, 0);
}

/* ---- test ------------------------------------------------------------------------- */

/* One runner label or a list of them, as `runs-on` takes it. */
static struct wm_json *test_runner(struct cx *x, struct wm_json *s)
{
	struct wm_json *any = wm_json_array();
	push(x, any, no_blank(x, wm_json_object()));
	push(x, any, list_of(x, wm_json_object(), no_blank(x, wm_json_object())));
	return put(x, s, "anyOf", any);
}

static struct wm_json *test_command(struct cx *x, struct wm_json *s)
{
	put_text(x, s, "type", "string");
	return put(x, s, "minLength", wm_json_int(1));
}

static const struct field test_fields[] = {
	{ "command", test_command, "the shell line that runs the tests, in a directory holding only 'sources'; "
		"{project} is the checkout, {wheel} the wheel's path" },
	{ "requires", strings, "PEP 508 requirements installed beside the wheel" },
	{ "extras", strings, "extras of the wheel installed with it" },
	{ "sources", strings, "paths of the checkout copied into the tests' directory" },
	{ "skip", strings, "job ids or globs whose tests do not run" },
	{ "runner", test_runner, "the GitHub runs-on label (or list) of the backend's test jobs, for wheels that "
		"need hardware the build runner lacks (default: the tests run in the build job)" },
	{ "tags", runner_tags, "the GitLab runner tags of the backend's test jobs (default: the build's)" },
};

static struct wm_json *test(struct cx *x, struct wm_json *s)
{
	object_of(x, s, false, "'test'", &wm_backends_test_keys, test_fields, 5, NULL, 0);
	return put(x, s, "required", texts(x, (const char *const[]){ "command" }, 1));
}

static struct wm_json *backend_test(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "a backend's 'test'", &wm_backends_backend_test_keys, FIELDS(test_fields), NULL, 0);
}

static const struct field runs_on_fields[] = {
	{ "runner", runner, "GitHub Actions runner label of the backend's build jobs there (default: the platform's)" },
	{ "tags", runner_tags, "GitLab runner tags of the backend's build jobs there (default: the platform's)" },
};

static struct wm_json *build_settings(struct cx *x, struct wm_json *s)
{
	object_of(x, s, false, "a per-platform entry", wm_backends_per_platform_keys(), FIELDS(settings_fields),
		FIELDS(runs_on_fields));
	return put(x, s, "minProperties", wm_json_int(1));
}

static struct wm_json *per_platform(struct cx *x, struct wm_json *s)
{
	put_text(x, s, "type", "object");
	put(x, s, "propertyNames", new_ref(x, "platform-pattern"));
	return put(x, s, "additionalProperties", build_settings(x, wm_json_object()));
}

static const struct field backend_fields[] = {
	{ "features", features, "Cargo features of the build" },
	{ "platforms", platform_patterns, "where the backend is built: platform ids or globs (default: every "
		"platform of the matrix)" },
	{ "toolkit", toolkits, "toolkits to install, by name: a version, or {} (default: those the features imply)" },
	{ "dist", dist_name, "the distribution name (default: <project>-<backend>, the project's own for the "
		"default backend under strategy rename)" },
	{ "default", a_bool, "the base build: keeps the project's name (at most one backend)" },
	{ "env", env, "environment of the backend's build steps" },
	{ "setup", setup, "raw CI setup steps before the build" },
	{ "before-script-linux", a_string, "shell lines run in the Linux build container before the build" },
	{ "dependencies", strings, "PEP 508 runtime dependencies the variant adds" },
	{ "smoke", a_bool, "run the import smoke test (default: true where every toolkit imports without the hardware; CUDA on Linux)" },
	{ "variant", variant, "the wheel variant (strategy variants; not on the default backend)" },
	{ "test", backend_test, "the backend's tests over the top-level 'test' (the same keys, and 'runner' and "
		"'tags')" },
	{ "per-platform", per_platform, "the backend's build settings on some of its platforms, by platform id or glob "
		"(applied after the backend's own, in file order), and its runner and tags there" },
	{ "runner", runner, "GitHub Actions runner label of the backend's build jobs on every platform it builds on, "
		"all of one OS (default: the platforms'; per-platform's win)" },
	{ "tags", runner_tags, "GitLab runner tags of the backend's build jobs on every platform it builds on "
		"(default: the platforms'; per-platform's win)" },
};

static struct wm_json *backend(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "a backend", &wm_backends_keys, FIELDS(backend_fields), FIELDS(settings_fields));
}

static struct wm_json *backends(struct cx *x, struct wm_json *s)
{
	typed(x, s, "object", true);
	put(x, s, "minProperties", wm_json_int(1));
	put(x, s, "propertyNames", string_matching(x, wm_json_object(), "^[a-z][a-z0-9_]{0,31}$"));
	return put(x, s, "additionalProperties", new_ref(x, "backend"));
}

/* ---- exclude, include ----------------------------------------------------------- */

static struct wm_json *backend_pattern(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "^([a-z][a-z0-9_]{0,31}|.*" GLOB_PATTERN ".*)$");
}

static struct wm_json *python_pattern(struct cx *x, struct wm_json *s)
{
	struct wm_json *any = wm_json_array();
	push(x, any, new_ref(x, "python-entry"));
	push(x, any, string_matching(x, wm_json_object(), GLOB_PATTERN));
	return put(x, s, "anyOf", any);
}

static const struct field exclude_fields[] = {
	{ "backend", backend_pattern, "a backend id or a glob" },
	{ "platform", platform_glob, "a platform id or a glob" },
	{ "python", python_pattern, "a Python version, 'abi3', or a glob" },
};

static struct wm_json *exclude_rule(struct cx *x, struct wm_json *s)
{
	object_of(x, s, false, "an exclude rule", &wm_rules_exclude_keys, FIELDS(exclude_fields), NULL, 0);
	return put(x, s, "minProperties", wm_json_int(1));
}

static struct wm_json *excludes(struct cx *x, struct wm_json *s)
{
	typed(x, s, "array", true);
	return put(x, s, "items", exclude_rule(x, wm_json_object()));
}

static struct wm_json *backend_id(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "^[a-z][a-z0-9_]{0,31}$");
}

static struct wm_json *python_entry(struct cx *x, struct wm_json *s)
{
	return ref(x, s, "python-entry");
}

static const struct field include_fields[] = {
	{ "backend", backend_id, "the job's backend id" },
	{ "platform", platform_id, "the job's platform id" },
	{ "python", python_entry, "the job's Python version, or 'abi3'" },
	{ "env", env, "environment of the job's build steps" },
};

static struct wm_json *include_job(struct cx *x, struct wm_json *s)
{
	struct field more[WM_ARRAY_SIZE(override_fields) + WM_ARRAY_SIZE(settings_fields)];
	memcpy(more, override_fields, sizeof(override_fields));
	memcpy(more + WM_ARRAY_SIZE(override_fields), settings_fields, sizeof(settings_fields));
	object_of(x, s, false, "an include rule", &wm_rules_include_keys, FIELDS(include_fields), FIELDS(more));
	return put(x, s, "required", texts(x, (const char *const[]){ "backend", "platform", "python" }, 3));
}

static struct wm_json *includes(struct cx *x, struct wm_json *s)
{
	typed(x, s, "array", true);
	return put(x, s, "items", include_job(x, wm_json_object()));
}

/* ---- dropped ------------------------------------------------------------------------ */

/* The Python entries a dropped wheel may have had (rules.c), or a glob. */
static struct wm_json *drop_python(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "^(3\\.[0-9]{1,2}t?|pp3\\.[0-9]{1,2}|abi3|py3)$|" GLOB_PATTERN);
}

/* A catalog platform id (pattern), or a wheel platform tag (pattern): lower case, digits, '_', '.'. */
static struct wm_json *drop_platform(struct cx *x, struct wm_json *s)
{
	struct wm_json *any = wm_json_array();
	push(x, any, new_ref(x, "platform-pattern"));
	push(x, any, string_matching(x, wm_json_object(), "^[a-z0-9_.*?\\[\\]!]+$"));
	return put(x, s, "anyOf", any);
}

static struct wm_json *reason(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "\\S");
}

static const struct field drop_fields[] = {
	{ "python", drop_python, "the Python of the wheels dropped: a version (\"3.8\", \"3.13t\", \"pp3.10\"), "
		"'abi3', 'py3', or a glob" },
	{ "platform", drop_platform, "their platform: a platform id of the catalog or a wheel's platform tag "
		"(manylinux_2_17_i686), or a glob of either" },
	{ "backend", backend_pattern, "their backend: an id or a glob" },
	{ "reason", reason, "why they are dropped: plan prints it beside each" },
};

static struct wm_json *drop_rule(struct cx *x, struct wm_json *s)
{
	struct wm_json *any = wm_json_array();
	object_of(x, s, false, "a planned drop", &wm_rules_drop_keys, FIELDS(drop_fields), NULL, 0);
	put(x, s, "required", texts(x, (const char *const[]){ "reason" }, 1));
	for (size_t i = 0; i < 3; i++)
		push(x, any, put(x, wm_json_object(), "required", texts(x, &drop_fields[i].key, 1)));
	return put(x, s, "anyOf", any);
}

static struct wm_json *drops(struct cx *x, struct wm_json *s)
{
	typed(x, s, "array", true);
	return put(x, s, "items", drop_rule(x, wm_json_object()));
}

/* ---- distribution, ci, actions, publish ----------------------------------------- */

static const struct field strategy_values[] = {
	{ "rename", NULL, "one distribution per backend: the default keeps the project's name, the others are "
		"<project>-<backend>" },
	{ "meta", NULL, "one distribution per backend, and a meta package under the project's name that picks "
		"one at import" },
	{ "index", NULL, "every backend keeps the project's name, each served from its own index "
		"(<url>/<backend>/)" },
	{ "variants", NULL, "wheel variants (PEP 817/825): one name and version, told apart by their variant "
		"properties, from one index" },
};

static struct wm_json *strategy(struct cx *x, struct wm_json *s)
{
	enum_of(x, s, "'distribution.strategy'", &wm_matrix_strategies, FIELDS(strategy_values));
	return put_text(x, s, "default", "rename");
}

static struct wm_json *index_url(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "^https?://");
}

static const struct field index_fields[] = {
	{ "url", index_url, "index: the backends' indexes are <url>/<backend>/; variants: the variant index "
		"(https://, http:// only for localhost)" },
	{ "local", a_bool, "each backend but the default gets the version label +<backend> (strategy index; "
		"default: true)" },
};

static struct wm_json *index_(struct cx *x, struct wm_json *s)
{
	object_of(x, s, false, "'distribution.index'", &wm_matrix_index_keys, FIELDS(index_fields), NULL, 0);
	return put(x, s, "required", texts(x, (const char *const[]){ "url" }, 1));
}

static struct wm_json *requirements(struct cx *x, struct wm_json *s)
{
	strings(x, s);
	return put(x, s, "minItems", wm_json_int(1));
}

static struct wm_json *plugin_api(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "^[A-Za-z0-9_.]+(:[A-Za-z0-9_.]+)?$");
}

static const struct field provider_fields[] = {
	{ "requires", requirements, "the PEP 508 requirements that install the provider plugin" },
	{ "plugin-api", plugin_api, "the plugin: module or module:attribute (default: the first requirement's "
		"name as a module)" },
	{ "optional", a_bool, "an optional provider (default: false)" },
};

static struct wm_json *provider(struct cx *x, struct wm_json *s)
{
	object_of(x, s, false, "a provider", &wm_variants_provider_keys, FIELDS(provider_fields), NULL, 0);
	return put(x, s, "required", texts(x, (const char *const[]){ "requires" }, 1));
}

static struct wm_json *providers(struct cx *x, struct wm_json *s)
{
	put_text(x, s, "type", "object");
	put(x, s, "minProperties", wm_json_int(1));
	put(x, s, "propertyNames", string_matching(x, wm_json_object(), "^[a-z0-9_]+$"));
	return put(x, s, "additionalProperties", provider(x, wm_json_object()));
}

static const struct field distribution_fields[] = {
	{ "strategy", strategy, "how backends become distributions" },
	{ "index", index_, "the index of strategies index and variants" },
	{ "providers", providers, "the variant namespaces' provider plugins, in priority order (strategy "
		"variants)" },
};

static struct wm_json *distribution(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'distribution'", &wm_matrix_distribution_keys, FIELDS(distribution_fields), NULL, 0);
}

static struct wm_json *ref_filters(struct cx *x, struct wm_json *s)
{
	return strings_matching(x, s, "^[A-Za-z0-9._/*?+!\\[\\]-]{1,255}$");
}

static struct wm_json *tag_filters(struct cx *x, struct wm_json *s)
{
	ref_filters(x, s);
	return put(x, s, "minItems", wm_json_int(1));
}

static struct wm_json *pull_requests(struct cx *x, struct wm_json *s)
{
	struct wm_json *any = wm_json_array();
	push(x, any, put_text(x, wm_json_object(), "type", "boolean"));
	push(x, any, ref_filters(x, wm_json_object()));
	return put(x, s, "anyOf", any);
}

static const struct field trigger_fields[] = {
	{ "branches", ref_filters, "pushes to these branches run the workflow (GitHub filter patterns; default: main "
		"and master; [] none)" },
	{ "tags", tag_filters, "pushes of these tags run it, and publish (default: every tag)" },
	{ "pull-requests", pull_requests, "pull requests run it: true (default), false, or the base branches they go "
		"into" },
};

static struct wm_json *triggers(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'ci.github.triggers'", &wm_matrix_trigger_keys, FIELDS(trigger_fields), NULL, 0);
}

static const struct field github_output_fields[] = {
	{ "path", a_string, "the workflow's path (default: .github/workflows/wheels.yml)" },
	{ "triggers", triggers, "which branches, tags and pull requests run the workflow" },
	{ "check", a_bool_or_null, "the job wheelmatrix-check: 'wheelmatrix check' on each commit, which the publish "
		"jobs need (default: true)" },
};

static const struct field gitlab_output_fields[] = {
	{ "path", a_string, "the GitLab CI file's path (default: .gitlab-ci.yml)" },
	{ "exclude-platforms", platform_globs, "platforms of the matrix GitLab does not build (ids or globs); "
		"GitHub's workflow keeps them" },
	{ "check", a_bool_or_null, "the job wheelmatrix-check: 'wheelmatrix check' on each commit, which the publish "
		"jobs need (default: true)" },
};

static struct wm_json *github_output(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'ci.github'", &wm_matrix_github_keys, FIELDS(github_output_fields), NULL, 0);
}

static struct wm_json *gitlab_output(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'ci.gitlab'", &wm_matrix_gitlab_keys, FIELDS(gitlab_output_fields), NULL, 0);
}

static const struct field ci_fields[] = {
	{ "github", github_output, "write the GitHub Actions workflow" },
	{ "gitlab", gitlab_output, "write the GitLab CI file" },
};

static struct wm_json *ci(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'ci'", &wm_matrix_ci_keys, FIELDS(ci_fields), NULL, 0);
}

/* The actions of templates/actions.yaml, each with its default reference. */
static struct wm_json *actions(struct cx *x, struct wm_json *s)
{
	struct wm_json *props = wm_json_object();
	char d[160];
	typed(x, s, "object", true);
	for (size_t i = 0; i < wm_catalog_action_count(x->cat); i++) {
		const char *name = wm_catalog_action_name(x->cat, i);
		snprintf(d, sizeof(d), "the reference of %s (default: %s)", name, wm_catalog_action(x->cat, name));
		put(x, props, name, ref(x, put_text(x, wm_json_object(), "description", d), "action-ref"));
	}
	put(x, s, "properties", props);
	return put(x, s, "additionalProperties", wm_json_bool(false));
}

static struct wm_json *environment(struct cx *x, struct wm_json *s)
{
	return string_matching(x, s, "^[A-Za-z0-9_. -]{1,255}$");
}

static const struct field pypi_fields[] = {
	{ "trusted", a_bool, "PyPI trusted publishing (default: true); false publishes with PYPI_API_TOKEN" },
	{ "environment", environment, "the deployment environment of the publish jobs (default: pypi)" },
};

static struct wm_json *pypi(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'publish.pypi'", &wm_matrix_pypi_keys, FIELDS(pypi_fields), NULL, 0);
}

static const struct field publish_fields[] = {
	{ "pypi", pypi, "publishing to PyPI" },
	{ "github-release", a_bool_or_null, "a GitHub release per tag with every file (default: false)" },
};

static struct wm_json *publish(struct cx *x, struct wm_json *s)
{
	return object_of(x, s, true, "'publish'", &wm_matrix_publish_keys, FIELDS(publish_fields), NULL, 0);
}

static struct wm_json *format_version(struct cx *x, struct wm_json *s)
{
	put_text(x, s, "type", "integer");
	return put(x, s, "const", wm_json_int(1));
}

static const struct field top_fields[] = {
	{ "wheelmatrix", format_version, "the format version: 1" },
	{ "project", project, "the project: its name, files and module" },
	{ "python", python, "the Python versions, or the abi3 wheel" },
	{ "platforms", platforms, "where wheels are built: platform ids, or a mapping of ids to overrides" },
	{ "backends", backends, "the compute backends to build, by id ([a-z][a-z0-9_]*; default: one backend "
		"cpu)" },
	{ "exclude", excludes, "combinations to leave out" },
	{ "include", includes, "jobs to add" },
	{ "distribution", distribution, "how backends become distributions" },
	{ "ci", ci, "which CI files generate writes, and where (default: both)" },
	{ "actions", actions, "the references of the generated workflow's actions" },
	{ "publish", publish, "how releases are published" },
	{ "test", test, "the project's tests, run against every wheel" },
	{ "dropped", drops, "wheels the last release had that this one no longer builds, on purpose, each with "
		"its reason (plan)" },
};

/* ---- the shared definitions ------------------------------------------------------ */

static struct wm_json *platform_enum(struct cx *x, struct wm_json *s)
{
	struct wm_json *ids = wm_json_array(), *descs = wm_json_array();
	char d[256];
	for (size_t i = 0; i < wm_catalog_platform_count(x->cat); i++) {
		const struct wm_platform *p = wm_catalog_platform_at(x->cat, i);
		push(x, ids, text(p->id));
		if (p->os == WM_OS_EMSCRIPTEN)
			snprintf(d, sizeof(d), "%s %s (Pyodide %s: CPython 3.%u alone, Emscripten %s): wheels tagged %s, "
				"Rust target %s, GitHub runner %s%s", wm_catalog_os_name(p->os), p->arch, p->pyodide,
				p->pyodide_minor, p->emscripten, p->platform_tag, p->target, p->runner, p->cross ? " (cross-built)" : "");
		else
			snprintf(d, sizeof(d), "%s %s: wheels tagged %s, Rust target %s, GitHub runner %s%s", wm_catalog_os_name(p->os),
				p->arch, p->platform_tag, p->target, p->runner, p->cross ? " (cross-built)" : "");
		push(x, descs, text(d));
	}
	{
		/* <Linux catalog id>-<level>: that platform at another manylinux or musllinux level */
		struct wm_buf re = WM_BUF_INIT;
		struct wm_json *any = wm_json_array(), *cat = wm_json_object(), *derived = wm_json_object();
		size_t n = 0;
		wm_buf_puts(&re, "^(");
		for (size_t i = 0; i < wm_catalog_platform_count(x->cat); i++) {
			const struct wm_platform *p = wm_catalog_platform_at(x->cat, i);
			if (p->os == WM_OS_LINUX)
				wm_buf_printf(&re, "%s%s", n++ ? "|" : "", p->id);
		}
		wm_buf_puts(&re, ")-([0-9]+_[0-9]+|2014)$");
		put_text(x, cat, "type", "string");
		put(x, cat, "enum", ids);
		put(x, cat, "enumDescriptions", descs);
		put_text(x, derived, "description", "a Linux platform of the catalog at another manylinux or musllinux "
			"level: linux-x86_64-2_17, musllinux-x86_64-1_1");
		put_text(x, derived, "type", "string");
		if (!re.oom)
			put_text(x, derived, "pattern", re.ptr);
		wm_buf_release(&re);
		put_text(x, s, "description", "a platform of the catalog, or a Linux one at another level");
		push(x, any, cat);
		push(x, any, derived);
		return put(x, s, "anyOf", any);
	}
}

static struct wm_json *platform_pattern(struct cx *x, struct wm_json *s)
{
	struct wm_json *any = wm_json_array();
	put_text(x, s, "description", "a platform id, or a glob over them ('linux-*')");
	push(x, any, new_ref(x, "platform"));
	push(x, any, string_matching(x, wm_json_object(), GLOB_PATTERN));
	return put(x, s, "anyOf", any);
}

/*
 * The versions the loader takes (python.c), in the axis' order: 3.13, 3.13t, 3.14, ...,
 * then PyPy's pp3.11 where free-threaded ones are taken (a version list, not abi3).
 */
static void python_values(struct cx *x, struct wm_json *values, struct wm_json *descs, unsigned from, bool ft)
{
	char v[16], d[128];
	for (unsigned minor = from; minor <= WM_PYTHON_MAX; minor++) {
		snprintf(v, sizeof(v), "3.%u", minor);
		snprintf(d, sizeof(d), "CPython 3.%u", minor);
		push(x, values, text(v));
		push(x, descs, text(d));
		if (!ft || minor < WM_FT_MIN)
			continue;
		snprintf(v, sizeof(v), "3.%ut", minor);
		snprintf(d, sizeof(d), "free-threaded CPython 3.%u", minor);
		push(x, values, text(v));
		push(x, descs, text(d));
	}
	for (unsigned minor = WM_PYPY_MIN; ft && minor <= WM_PYPY_MAX; minor++) {
		snprintf(v, sizeof(v), "pp3.%u", minor);
		const char *linux = wm_catalog_pypy_api(x->cat, minor, WM_OS_LINUX);
		const char *other = wm_catalog_pypy_api(x->cat, minor, WM_OS_MACOS);
		if (linux && other && strcmp(linux, other) != 0)
			snprintf(d, sizeof(d), "PyPy 3.%u (pp3%u-pypy3%u_pp%s on Linux, pp3%u-pypy3%u_pp%s on macOS and Windows)",
				minor, minor, minor, linux, minor, minor, other);
		else
			snprintf(d, sizeof(d), "PyPy 3.%u (pp3%u-pypy3%u_pp%s)", minor, minor, minor, linux ? linux : "73");
		push(x, values, text(v));
		push(x, descs, text(d));
	}
	for (unsigned minor = WM_PYTHON_MIN; ft && minor <= WM_PYTHON_MAX; minor++) {
		const char *release = wm_catalog_graalpy(x->cat, minor);
		if (!release)
			continue;
		/* the catalogue's platforms the loader builds it on (wm_catalog_graalpy_refused) */
		size_t at = (size_t)snprintf(d, sizeof(d), "GraalPy %s of Python 3.%u (", release, minor);
		for (size_t i = 0, n = 0; i < wm_catalog_platform_count(x->cat) && at < sizeof(d); i++) {
			const struct wm_platform *p = wm_catalog_platform_at(x->cat, i);
			if (!wm_catalog_graalpy_refused(x->cat, p, minor))
				at += (size_t)snprintf(d + at, sizeof(d) - at, "%s%s", n++ ? ", " : "", p->id);
		}
		if (at < sizeof(d))
			snprintf(d + at, sizeof(d) - at, ")");
		snprintf(v, sizeof(v), "graalpy3.%u", minor);
		push(x, values, text(v));
		push(x, descs, text(d));
	}
}

static struct wm_json *python_enum(struct cx *x, struct wm_json *s, const char *description, unsigned from, bool ft,
	bool entries)
{
	struct wm_json *values = wm_json_array(), *descs = wm_json_array();
	put_text(x, s, "description", description);
	put_text(x, s, "type", "string");
	if (entries) {
		push(x, values, text("abi3"));
		push(x, descs, text("the abi3 wheel (python.abi3)"));
		push(x, values, text("abi3t"));
		push(x, descs, text("the abi3t wheel (python.abi3t)"));
		push(x, values, text("py3"));
		push(x, descs, text("the one wheel of a bindings = \"bin\" project"));
	}
	python_values(x, values, descs, from, ft);
	put(x, s, "enum", values);
	return put(x, s, "enumDescriptions", descs);
}

static struct wm_json *env_map(struct cx *x, struct wm_json *s)
{
	put_text(x, s, "description", "environment variables: NAME: value (${{ secrets.NAME }} and ${{ vars.NAME }} "
		"allowed in values)");
	put_text(x, s, "type", "object");
	put(x, s, "propertyNames", string_matching(x, wm_json_object(), "^[A-Za-z_][A-Za-z0-9_]*$"));
	return put(x, s, "additionalProperties", scalar_value(x, wm_json_object()));
}

static struct wm_json *action_ref(struct cx *x, struct wm_json *s)
{
	put_text(x, s, "description", "a tag, branch or full commit SHA: letters, digits, '.', '_', '-', '+' and '/', "
		"starting with a letter or digit; no '..', '//' or '/.'; not ending in '/', '.' or '.lock'");
	return string_matching(x, s, "^(?!.*(\\.\\.|//|/\\.))(?!.*(/|\\.|\\.lock)$)[A-Za-z0-9][A-Za-z0-9._+/-]{0,254}$");
}

static struct wm_json *defs(struct cx *x)
{
	struct wm_json *d = wm_json_object();
	put(x, d, "platform", platform_enum(x, wm_json_object()));
	put(x, d, "platform-pattern", platform_pattern(x, wm_json_object()));
	put(x, d, "overrides", overrides(x, put_text(x, wm_json_object(), "description",
		"the platform's settings that differ from the catalog's")));
	put(x, d, "python-version", python_enum(x, wm_json_object(), "a Python version: CPython 3.N, or 3.Nt "
		"for a free-threaded build, PyPy pp3.N or GraalPy graalpy3.N", WM_PYTHON_MIN, true, false));
	put(x, d, "abi3-version", python_enum(x, wm_json_object(), "the abi3 minimum: 3.N", WM_ABI3_MIN, false, false));
	put(x, d, "abi3t-version", python_enum(x, wm_json_object(), "the abi3t minimum: 3.N", WM_ABI3T_MIN, false,
		false));
	put(x, d, "python-entry", python_enum(x, wm_json_object(), "an entry of the Python axis: a version, 'abi3', "
		"'abi3t' or 'py3'", WM_PYTHON_MIN, true, true));
	put(x, d, "backend", backend(x, put_text(x, wm_json_object(), "description", "a backend: a build of the "
		"crate with its features, platforms and toolkits")));
	put(x, d, "env", env_map(x, wm_json_object()));
	put(x, d, "github-step", github_step(x, put_text(x, wm_json_object(), "description",
		"a GitHub step ({run: ...} or {uses: ...}), copied into the workflow as it is")));
	put(x, d, "action-ref", action_ref(x, wm_json_object()));
	return d;
}

int wm_jsonschema_build(struct wm_json **out, const struct wm_catalog *cat, struct wm_error *err)
{
	struct cx x = { cat, err, 0, NULL };
	struct wm_json *s = wm_json_object();

	*out = NULL;
	put_text(&x, s, "$schema", "https://json-schema.org/draft/2020-12/schema");
	put_text(&x, s, "title", "wheelmatrix.yaml");
	put_text(&x, s, "description", "The build matrix of a native Python package: platforms, backends and "
		"Python versions (docs/matrix.md). Generated by wheelmatrix from its loader's tables and catalogs.");
	object_of(&x, s, false, "the matrix", &wm_matrix_keys, FIELDS(top_fields), NULL, 0);
	put(&x, s, "required", texts(&x, (const char *const[]){ "wheelmatrix" }, 1));
	put(&x, s, "$defs", defs(&x));
	if (x.ret) {
		wm_json_free(s);
		wm_error_code(err, x.ret);
		return x.ret;
	}
	*out = s;
	return 0;
}
