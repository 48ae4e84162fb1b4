/*
 * maturin.c — maturin's command line read as maturin reads it, and maturin-action's `args`.
 *
 * The options are maturin 1.16's (`maturin build --help`, the version tests/tools pins), read as
 * clap reads them, with the few older ones real workflows still pass (`--universal2`,
 * `--cargo-extra-args`, `--manylinux`); one maturin does not have is named, not skipped, so that
 * a line init cannot read is never taken for one it can.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "workflow/maturin.h"

#define MAX_VALUES 256   /* of one list (-i, --features, ...) */

enum arity { NONE, ONE, OPTIONAL, MANY };
enum effect {
	E_NONE, E_INTERPRETER, E_FIND, E_COMPAT, E_ZIG, E_COMPILER, E_RELEASE, E_PROFILE, E_TARGET, E_FEATURES,
	E_ALL_FEATURES, E_NO_DEFAULT, E_MANIFEST, E_SDIST, E_UNIVERSAL2, E_PGO,
};

static const struct option {
	char short_name;
	const char *long_name;
	enum arity arity;
	enum effect effect;
} options[] = {
	{ 'i', "interpreter", MANY, E_INTERPRETER },
	{ 'f', "find-interpreter", NONE, E_FIND },
	{ 'b', "bindings", ONE, E_NONE },
	{ 0, "compatibility", MANY, E_COMPAT },
	{ 0, "manylinux", MANY, E_COMPAT },          /* the older name of --compatibility */
	{ 0, "auditwheel", ONE, E_NONE },
	{ 0, "skip-auditwheel", NONE, E_NONE },
	{ 0, "zig", NONE, E_ZIG },
	{ 'o', "out", ONE, E_NONE },
	{ 0, "include-debuginfo", NONE, E_NONE },
	{ 0, "sbom-include", MANY, E_NONE },
	{ 'q', "quiet", NONE, E_NONE },
	{ 0, "ignore-rust-version", NONE, E_NONE },
	{ 'v', "verbose", NONE, E_NONE },
	{ 0, "color", ONE, E_NONE },
	{ 0, "config", ONE, E_COMPILER },
	{ 'Z', NULL, ONE, E_COMPILER },
	{ 0, "future-incompat-report", NONE, E_NONE },
	{ 0, "compression-method", ONE, E_NONE },
	{ 0, "compression-level", ONE, E_NONE },
	{ 0, "compression-enable-large-file-support", NONE, E_NONE },
	{ 0, "generate-stubs", NONE, E_NONE },
	{ 'h', "help", NONE, E_NONE },
	{ 'r', "release", NONE, E_RELEASE },
	{ 'j', "jobs", ONE, E_NONE },
	{ 0, "profile", ONE, E_PROFILE },
	{ 0, "target", ONE, E_TARGET },
	{ 0, "target-dir", ONE, E_NONE },
	{ 0, "timings", NONE, E_NONE },
	{ 'F', "features", ONE, E_FEATURES },
	{ 0, "all-features", NONE, E_ALL_FEATURES },
	{ 0, "no-default-features", NONE, E_NO_DEFAULT },
	{ 'm', "manifest-path", ONE, E_MANIFEST },
	{ 0, "frozen", NONE, E_NONE },
	{ 0, "locked", NONE, E_NONE },
	{ 0, "offline", NONE, E_NONE },
	{ 0, "strip", OPTIONAL, E_NONE },
	{ 0, "sdist", NONE, E_SDIST },
	{ 0, "no-sdist", NONE, E_NONE },
	{ 0, "pgo", NONE, E_PGO },
	{ 0, "universal2", NONE, E_UNIVERSAL2 },
	{ 0, "cargo-extra-args", ONE, E_COMPILER },
	{ 0, "rustc-extra-args", ONE, E_COMPILER },
	/* publish's own */
	{ 0, "repository", ONE, E_NONE },
	{ 0, "repository-url", ONE, E_NONE },
	{ 'u', "username", ONE, E_NONE },
	{ 'p', "password", ONE, E_NONE },
	{ 0, "skip-existing", NONE, E_NONE },
	{ 0, "non-interactive", NONE, E_NONE },
	{ 0, "debug", NONE, E_NONE },
	{ 0, "no-strip", NONE, E_NONE },
};

struct parse {
	struct wm_maturin *out;
	struct wm_arena *a;
	const struct wm_word *words;
	size_t n, i;
	bool oom;
	bool interpreters;   /* reading -i's values */
};

static void add(struct parse *p, struct wm_strs *list, const char *s, size_t len)
{
	if (list->n == MAX_VALUES || !len)
		return;
	/* room for 8, then doubled when full: most lists hold one or two values */
	if (!list->n || (list->n >= 8 && !(list->n & (list->n - 1)))) {
		const char **more = wm_arena_array(p->a, list->n ? 2 * list->n : 8, sizeof(*more));
		if (!more) {
			p->oom = true;
			return;
		}
		if (list->n)
			memcpy(more, list->items, list->n * sizeof(*more));
		list->items = more;
	}
	if (!(list->items[list->n] = wm_arena_strndup(p->a, s, len)))
		p->oom = true;
	else
		list->n++;
}

/* A features list: words at commas and blanks. */
static void add_features(struct parse *p, const char *s)
{
	while (*s) {
		size_t n = strcspn(s, ", \t");
		add(p, &p->out->features, s, n);
		s += n;
		while (*s == ',' || *s == ' ' || *s == '\t')
			s++;
	}
}

static void apply(struct parse *p, const struct option *o, const char *value)
{
	struct wm_maturin *m = p->out;
	switch (o->effect) {
	case E_INTERPRETER:
		m->interpreter = true;
		if (value)
			add(p, &m->interpreters, value, strlen(value));
		break;
	case E_FIND: m->find_interpreter = true; break;
	case E_COMPAT:
		if (value)
			add(p, &m->compatibility, value, strlen(value));
		break;
	case E_ZIG: m->zig = true; break;
	case E_COMPILER:
		add(p, &m->compiler, value ? value : o->long_name, strlen(value ? value : o->long_name));
		break;
	case E_RELEASE: m->release = true; break;
	case E_PROFILE: m->profile = value; break;
	case E_TARGET: m->target = value; break;
	case E_FEATURES:
		if (value)
			add_features(p, value);
		break;
	case E_ALL_FEATURES: m->all_features = true; break;
	case E_NO_DEFAULT: m->no_default_features = true; break;
	case E_MANIFEST: m->manifest = value; break;
	case E_SDIST: m->sdist = true; break;
	case E_UNIVERSAL2: m->universal2 = true; break;
	case E_PGO: m->pgo = true; break;
	case E_NONE: break;
	}
}

static const struct option *find_long(const char *s, size_t n)
{
	for (size_t i = 0; i < WM_ARRAY_SIZE(options); i++)
		if (options[i].long_name && strlen(options[i].long_name) == n && !strncmp(options[i].long_name, s, n))
			return &options[i];
	return NULL;
}

static const struct option *find_short(char c, const char *command)
{
	/* publish's -r is its repository, not build's --release */
	if (c == 'r' && command && !strcmp(command, "publish"))
		return find_long("repository", 10);
	for (size_t i = 0; i < WM_ARRAY_SIZE(options); i++)
		if (options[i].short_name == c)
			return &options[i];
	return NULL;
}

/* The next word as an option's value, or NULL (none left, or the next is an option). */
static const char *next_value(struct parse *p, bool any)
{
	const struct wm_word *w;
	if (p->i >= p->n)
		return NULL;
	w = &p->words[p->i];
	if (w->unknown) {
		if (!p->out->unknown)
			p->out->unknown = w->unknown;
		if (p->interpreters && !p->out->interpreters_unknown)
			p->out->interpreters_unknown = w->unknown;
		else if (!p->interpreters)
			p->out->other_unknown = true;
		p->i++;
		return NULL;
	}
	if (!any && w->text[0] == '-')
		return NULL;
	p->i++;
	return w->text;
}

/* The values an option takes after it (`value` the one written with it, or NULL). */
static void values(struct parse *p, const struct option *o, const char *value)
{
	if (o->arity == NONE) {
		if (value && !p->out->bad)
			p->out->bad = wm_arena_printf(p->a, "--%s takes no value", o->long_name ? o->long_name : "");
		apply(p, o, NULL);
		return;
	}
	if (value) {
		apply(p, o, value);
		return;
	}
	if (o->arity == OPTIONAL) {
		const char *v = p->i < p->n && p->words[p->i].text && (!strcmp(p->words[p->i].text, "true") ||
			!strcmp(p->words[p->i].text, "false")) ? p->words[p->i++].text : NULL;
		apply(p, o, v);
		return;
	}
	if (o->arity == ONE) {
		const char *before = p->out->unknown;
		const char *v = next_value(p, true);
		if (!v && o->effect == E_MANIFEST && p->out->unknown && p->out->unknown != before)
			p->out->manifest_unknown = p->out->unknown;
		else if (!v && o->effect == E_MANIFEST && p->i > 0 && p->words[p->i - 1].unknown)
			p->out->manifest_unknown = p->words[p->i - 1].unknown;
		if (!v && !p->out->unknown && !p->out->bad)
			p->out->bad = o->long_name ? wm_arena_printf(p->a, "--%s without its value", o->long_name) :
				wm_arena_printf(p->a, "-%c without its value", o->short_name);
		apply(p, o, v);
		return;
	}
	apply(p, o, NULL);
	p->interpreters = o->effect == E_INTERPRETER;
	for (const char *v; (v = next_value(p, false)) != NULL;)
		apply(p, o, v);
	p->interpreters = false;
}

/* One word: an option (long, short, a cluster of shorts), `--`, or a positional word. */
static void word(struct parse *p)
{
	struct wm_maturin *m = p->out;
	const struct wm_word *w = &p->words[p->i++];
	const char *s = w->text;
	if (w->unknown) {
		if (!m->unknown)
			m->unknown = w->unknown;
		m->other_unknown = true;
		return;
	}
	if (!strcmp(s, "--")) {
		/* the rest: flags for rustc */
		while (p->i < p->n) {
			const struct wm_word *r = &p->words[p->i++];
			m->other_unknown |= r->unknown != NULL;
			if (r->unknown && !m->unknown)
				m->unknown = r->unknown;
			else if (!r->unknown)
				add(p, &m->compiler, r->text, strlen(r->text));
		}
		return;
	}
	if (s[0] == '-' && s[1] == '-') {
		const char *eq = strchr(s + 2, '=');
		size_t n = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
		const struct option *o = find_long(s + 2, n);
		if (!o) {
			if (!m->bad)
				m->bad = wm_arena_printf(p->a, "maturin has no option --%.*s", (int)n, s + 2);
			return;
		}
		values(p, o, eq ? eq + 1 : NULL);
		return;
	}
	if (s[0] == '-' && s[1]) {
		for (const char *c = s + 1; *c; c++) {
			const struct option *o = find_short(*c, m->command);
			if (!o) {
				if (!m->bad)
					m->bad = wm_arena_printf(p->a, "maturin has no option -%c", *c);
				return;
			}
			if (o->arity != NONE) {
				values(p, o, c[1] ? c + 1 + (c[1] == '=') : NULL);
				return;
			}
			apply(p, o, NULL);
		}
		return;
	}
	if (!m->command) {
		m->command = s;
		return;
	}
	/* build's positional words are flags for rustc */
	add(p, &m->compiler, s, strlen(s));
}

int wm_maturin_read(struct wm_maturin *out, struct wm_arena *a, const char *command, const struct wm_word *words,
	size_t n)
{
	struct parse p = { out, a, words, n, 0, false, false };
	memset(out, 0, sizeof(*out));
	out->command = command;
	while (p.i < p.n && !p.oom)
		word(&p);
	return p.oom ? WM_ENOMEM : 0;
}

int wm_maturin_action_words(struct wm_word **out, size_t *n, struct wm_arena *a, const char *args)
{
	size_t cap = 0, k = 0;
	const char *s;
	for (s = args; *s; s++)
		cap += !isspace((unsigned char)*s) && (s == args || isspace((unsigned char)s[-1]));
	*n = 0;
	if (!(*out = wm_arena_array(a, cap ? cap : 1, sizeof(**out))))
		return WM_ENOMEM;
	for (s = args; *s && k < cap;) {
		char *w;
		size_t len = 0;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (!(w = wm_arena_alloc(a, strcspn(s, " \t\r\n") + 1)))
			return WM_ENOMEM;
		for (; *s && !isspace((unsigned char)*s); s++)
			if (*s != '"' && *s != '\'')
				w[len++] = *s;
		w[len] = '\0';
		if (len)
			(*out)[k++] = (struct wm_word){ w, NULL };
	}
	*n = k;
	return 0;
}

/* The program's name: its last path part, lower case, without ".exe". */
static void program(char *out, size_t size, const char *word)
{
	const char *base = word;
	size_t n;
	for (const char *c = word; *c; c++)
		if (*c == '/' || *c == '\\')
			base = c + 1;
	n = strlen(base);
	if (n > 4 && !strcasecmp(base + n - 4, ".exe"))
		n -= 4;
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)base[i]);
	out[n] = '\0';
}

static bool is_python(const char *name)
{
	if (!strcmp(name, "py") || !strcmp(name, "pythonw"))
		return true;
	if (strncmp(name, "python", 6) != 0)
		return false;
	for (const char *c = name + 6; *c; c++)
		if (!isdigit((unsigned char)*c) && *c != '.' && *c != 't')
			return false;
	return true;
}

static const char *text_at(const struct wm_command *c, size_t i)
{
	return i < c->n && !c->words[i].unknown ? c->words[i].text : NULL;
}

/* Past the options of uvx, `uv run`, `uv tool run` and `pipx run` (those that take a value skipped with it). */
static size_t past_runner_options(const struct wm_command *c, size_t i)
{
	static const char *const valued[] = { "--from", "--with", "-w", "--python", "-p", "--spec", "--index", "--index-url",
		"--extra-index-url", "--directory", "--project", "--package", "--group", "--extra", "--env-file" };
	for (const char *s; (s = text_at(c, i)) != NULL && s[0] == '-'; i++) {
		for (size_t k = 0; k < WM_ARRAY_SIZE(valued); k++)
			if (!strcmp(s, valued[k])) {
				i++;
				break;
			}
	}
	return i;
}

static enum wm_builder module_builder(const struct wm_command *c, size_t i, size_t *args)
{
	const char *mod;
	/* the interpreter's own options, then -m MODULE */
	for (const char *s; (s = text_at(c, i)) != NULL && s[0] == '-' && strcmp(s, "-m") != 0; i++)
		if (!strcmp(s, "-X") || !strcmp(s, "-W"))
			i++;
	if (!text_at(c, i) || strcmp(text_at(c, i), "-m") != 0 || !(mod = text_at(c, i + 1)))
		return WM_BUILDER_NONE;
	if (!strcmp(mod, "maturin")) {
		*args = i + 2;
		return WM_BUILDER_MATURIN;
	}
	if (!strcmp(mod, "pip") && text_at(c, i + 2) && !strcmp(text_at(c, i + 2), "wheel")) {
		*args = i + 3;
		return WM_BUILDER_PIP;
	}
	if (!strcmp(mod, "build")) {
		*args = i + 2;
		return WM_BUILDER_BUILD;
	}
	return WM_BUILDER_NONE;
}

enum wm_builder wm_maturin_builder(const struct wm_command *c, size_t *args)
{
	size_t i = 0;
	char name[64];
	for (;;) {
		const char *s = text_at(c, i);
		if (!s)
			return WM_BUILDER_NONE;
		program(name, sizeof(name), s);
		if (!strcmp(name, "sudo") || !strcmp(name, "time") || !strcmp(name, "env") || !strcmp(name, "exec")) {
			/* their options and env's NAME=value */
			for (i++; text_at(c, i) && (text_at(c, i)[0] == '-' || strchr(text_at(c, i), '=')); i++)
				;
			continue;
		}
		break;
	}
	if (!strcmp(name, "maturin")) {
		*args = i + 1;
		return WM_BUILDER_MATURIN;
	}
	if (!strcmp(name, "pyodide") && text_at(c, i + 1) && !strcmp(text_at(c, i + 1), "build")) {
		*args = i + 2;
		return WM_BUILDER_PYODIDE;
	}
	if (is_python(name))
		return module_builder(c, i + 1, args);
	if ((!strcmp(name, "pip") || !strcmp(name, "pip3")) && text_at(c, i + 1) && !strcmp(text_at(c, i + 1), "wheel")) {
		*args = i + 2;
		return WM_BUILDER_PIP;
	}
	if (!strcmp(name, "uvx") || !strcmp(name, "pipx") || !strcmp(name, "uv")) {
		const char *sub = text_at(c, i + 1);
		size_t k = i + 1;
		if (!strcmp(name, "uv") && sub && !strcmp(sub, "build")) {
			*args = i + 2;
			return WM_BUILDER_UV;
		}
		if (!strcmp(name, "uv") && sub && !strcmp(sub, "tool"))
			k++;
		if (strcmp(name, "uvx") != 0) {
			if (!text_at(c, k) || strcmp(text_at(c, k), "run") != 0)
				return WM_BUILDER_NONE;
			k++;
		}
		k = past_runner_options(c, k);
		if (!text_at(c, k))
			return WM_BUILDER_NONE;
		program(name, sizeof(name), text_at(c, k));
		if (!strcmp(name, "maturin") || !strncmp(name, "maturin@", 8) || !strncmp(name, "maturin==", 9)) {
			*args = k + 1;
			return WM_BUILDER_MATURIN;
		}
		if (!strcmp(name, "pyodide") && text_at(c, k + 1) && !strcmp(text_at(c, k + 1), "build")) {
			*args = k + 2;
			return WM_BUILDER_PYODIDE;
		}
		if (is_python(name))
			return module_builder(c, k + 1, args);
	}
	return WM_BUILDER_NONE;
}
