/* init_matrix.c — what the workflows init replaces build (maturin-action's targets, levels, runners, interpreters), as the matrix that builds the same wheels, and what it cannot. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "util/arena.h"
#include "util/buf.h"
#include "util/error.h"
#include "formats/yaml.h"
#include "model/catalog.h"
#include "model/platforms.h"
#include "model/project.h"
#include "model/python.h"
#include "emit/init_matrix.h"

#define MAX_ROWS 64   /* combinations of one job's strategy.matrix read: more is no starting point */
#define MAX_KEYS 16   /* keys of one combination */
#define MAX_INCLUDES 256  /* include entries of one job read */
#define MAX_BUILDS 1024   /* builds (step x combination) read in all: each costs a copy of its arguments */

/*
 * maturin-action's short targets, per platform family: PyO3/maturin-action@v1.51.0 src/index.ts,
 * TARGET_ALIASES.  A full triple is taken as it is.
 */
static const struct alias {
	const char *family, *name, *triple;
} aliases[] = {
	{ "macosx", "x64", "x86_64-apple-darwin" },
	{ "macosx", "x86_64", "x86_64-apple-darwin" },
	{ "macosx", "aarch64", "aarch64-apple-darwin" },
	{ "macosx", "arm64", "aarch64-apple-darwin" },
	{ "macosx", "universal2", "universal2-apple-darwin" },
	{ "manylinux", "x64", "x86_64-unknown-linux-gnu" },
	{ "manylinux", "x86_64", "x86_64-unknown-linux-gnu" },
	{ "manylinux", "i686", "i686-unknown-linux-gnu" },
	{ "manylinux", "x86", "i686-unknown-linux-gnu" },
	{ "manylinux", "aarch64", "aarch64-unknown-linux-gnu" },
	{ "manylinux", "armv7", "armv7-unknown-linux-gnueabihf" },
	{ "manylinux", "armv7l", "armv7-unknown-linux-gnueabihf" },
	{ "manylinux", "ppc64le", "powerpc64le-unknown-linux-gnu" },
	{ "manylinux", "s390x", "s390x-unknown-linux-gnu" },
	{ "musllinux", "x64", "x86_64-unknown-linux-musl" },
	{ "musllinux", "x86_64", "x86_64-unknown-linux-musl" },
	{ "musllinux", "i686", "i686-unknown-linux-musl" },
	{ "musllinux", "x86", "i686-unknown-linux-musl" },
	{ "musllinux", "aarch64", "aarch64-unknown-linux-musl" },
	{ "musllinux", "armv7", "armv7-unknown-linux-musleabihf" },
	{ "musllinux", "armv7l", "armv7-unknown-linux-musleabihf" },
	{ "win", "x64", "x86_64-pc-windows-msvc" },
	{ "win", "x86_64", "x86_64-pc-windows-msvc" },
	{ "win", "i686", "i686-pc-windows-msvc" },
	{ "win", "x86", "i686-pc-windows-msvc" },
	{ "win", "aarch64", "aarch64-pc-windows-msvc" },
	{ "win", "arm64", "aarch64-pc-windows-msvc" },
};

/* One combination of a job's strategy.matrix: its keys and their values. */
struct row {
	const char *keys[MAX_KEYS];
	const struct wm_node *values[MAX_KEYS];
	size_t n;
};

/* A word fit to be quoted in a note and in a comment of the matrix file: nothing a terminal or YAML reads. */
static bool plain_word(const char *s)
{
	size_t n = 0;
	for (; s && *s; s++, n++)
		if (!isalnum((unsigned char)*s) && !strchr("._-+/:", *s))
			return false;
	return n > 0 && n <= 64;
}

static const char *shown(const char *s)
{
	return plain_word(s) ? s : "(a value not shown)";
}

static void drop(struct wm_takeover *t, const char *file, const char *what)
{
	for (size_t i = 0; i < t->ndrops; i++)
		if (what && strcmp(t->drops[i].what, what) == 0)
			return;
	if (t->ndrops == WM_TAKEOVER_MAX) {
		t->more_drops = true;
		return;
	}
	if (what) {  /* copied, as a workflow's text is released before the drops are said */
		t->drops[t->ndrops].file = file ? wm_arena_strdup(t->arena, file) : NULL;
		t->drops[t->ndrops++].what = wm_arena_strdup(t->arena, what);
	}
}

static const struct wm_node *row_get(const struct row *r, const char *key, size_t len)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (strlen(r->keys[i]) == len && strncmp(r->keys[i], key, len) == 0)
			return r->values[i];
	return NULL;
}

/*
 * The value of `${{ matrix.a }}` or `${{ matrix.a.b }}` (the whole text, spaces allowed) in the
 * combination `r`; `v` itself when it is no such expression; NULL for another expression.
 */
static const struct wm_node *resolve(const struct wm_node *v, const struct row *r)
{
	const char *s, *e, *dot;
	const struct wm_node *n;
	if (!v || v->type != WM_NODE_SCALAR || !strstr(v->text, "${{"))
		return v;
	s = v->text;
	while (isspace((unsigned char)*s))
		s++;
	if (strncmp(s, "${{", 3) != 0)
		return NULL;
	for (s += 3; isspace((unsigned char)*s); s++)
		;
	if (strncmp(s, "matrix.", 7) != 0)
		return NULL;
	s += 7;
	if (!(e = strstr(s, "}}")))
		return NULL;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	for (const char *c = e + 2; *c; c++)
		if (!isspace((unsigned char)*c) && *c != '}')
			return NULL;
	dot = memchr(s, '.', (size_t)(e - s));
	if (!(n = row_get(r, s, (size_t)((dot ? dot : e) - s))))
		return NULL;
	while (dot && n) {
		const char *next = memchr(dot + 1, '.', (size_t)(e - dot - 1));
		char key[64];
		size_t len = (size_t)((next ? next : e) - dot - 1);
		if (n->type != WM_NODE_MAP || len >= sizeof(key))
			return NULL;
		memcpy(key, dot + 1, len);
		key[len] = '\0';
		n = wm_yaml_find(n, key);
		dot = next;
	}
	return n;
}

static const char *scalar(const struct wm_node *n)
{
	return n && n->type == WM_NODE_SCALAR ? n->text : NULL;
}

/* `${{ matrix.x }}` inside a longer text (args): each replaced by its scalar; NULL when one cannot be. */
static const char *expand(struct wm_arena *a, const char *text, const struct row *r)
{
	struct wm_node tmp;
	char *out = wm_arena_strdup(a, text);
	const char *s;
	while (out && (s = strstr(out, "${{")) != NULL) {
		const char *e = strstr(s, "}}");
		const char *v;
		if (!e)
			return NULL;
		memset(&tmp, 0, sizeof(tmp));
		tmp.type = WM_NODE_SCALAR;
		tmp.text = wm_arena_strndup(a, s, (size_t)(e + 2 - s));
		if (!tmp.text || !(v = scalar(resolve(&tmp, r))) || strstr(v, "${{"))
			return NULL;
		out = wm_arena_printf(a, "%.*s%s%s", (int)(s - out), out, v, e + 2);
	}
	return out;
}

/*
 * Whether a value of a combination is an exclude entry's: scalars by their text, a mapping
 * by its keys (an exclude entry may name some of them), a list item by item.
 */
static bool same_value(const struct wm_node *have, const struct wm_node *want)
{
	if (have->type != want->type)
		return false;
	if (have->type == WM_NODE_SCALAR)
		return strcmp(have->text, want->text) == 0;
	if (have->type == WM_NODE_SEQ) {
		if (have->n != want->n)
			return false;
		for (size_t i = 0; i < have->n; i++)
			if (!same_value(have->items[i], want->items[i]))
				return false;
		return true;
	}
	for (size_t k = 0; k < want->n; k++) {
		const struct wm_node *v = wm_yaml_find(have, want->pairs[k].key->text);
		if (!v || !same_value(v, want->pairs[k].value))
			return false;
	}
	return true;
}

/* The combinations of strategy.matrix: the product of its lists less its exclude entries, then its include entries; at most MAX_ROWS. */
static size_t rows_of(struct row *rows, const struct wm_node *matrix)
{
	size_t n = 1;
	memset(&rows[0], 0, sizeof(rows[0]));
	if (!matrix || matrix->type != WM_NODE_MAP)
		return 1;
	for (size_t k = 0; k < matrix->n; k++) {
		const struct wm_node *key = matrix->pairs[k].key, *list = matrix->pairs[k].value;
		size_t was = n;
		if (key->type != WM_NODE_SCALAR || !strcmp(key->text, "include") || !strcmp(key->text, "exclude") ||
				list->type != WM_NODE_SEQ || !list->n)
			continue;
		for (size_t i = 0; i < was; i++) {
			struct row base = rows[i];
			for (size_t v = 0; v < list->n; v++) {
				struct row *dst = v == 0 ? &rows[i] : n < MAX_ROWS ? &rows[n++] : NULL;
				if (!dst)
					break;
				*dst = base;
				if (dst->n < MAX_KEYS) {
					dst->keys[dst->n] = key->text;
					dst->values[dst->n++] = list->items[v];
				}
			}
		}
	}
	/* exclude entries drop the combinations they match, before include (GitHub's rule) */
	const struct wm_node *exc = wm_yaml_find(matrix, "exclude");
	bool axes = rows[0].n > 0;
	for (size_t i = 0; exc && exc->type == WM_NODE_SEQ && i < exc->n && axes; i++) {
		const struct wm_node *e = exc->items[i];
		size_t kept = 0;
		if (e->type != WM_NODE_MAP || !e->n)
			continue;
		for (size_t r = 0; r < n; r++) {
			bool match = true;
			for (size_t k = 0; k < e->n && match; k++) {
				const struct wm_node *have = row_get(&rows[r], e->pairs[k].key->text, strlen(e->pairs[k].key->text));
				match = have && same_value(have, e->pairs[k].value);
			}
			if (!match)
				rows[kept++] = rows[r];
		}
		n = kept;
	}
	const struct wm_node *inc = wm_yaml_find(matrix, "include");
	for (size_t i = 0; inc && inc->type == WM_NODE_SEQ && i < inc->n && i < MAX_INCLUDES; i++) {
		const struct wm_node *e = inc->items[i];
		bool matched = false;
		if (e->type != WM_NODE_MAP)
			continue;
		/* an entry whose axis values match combinations adds its other keys to them (GitHub's rule) */
		for (size_t r = 0; axes && r < n; r++) {
			bool fits = true;
			for (size_t k = 0; k < e->n && fits; k++) {
				const struct wm_node *have = row_get(&rows[r], e->pairs[k].key->text, strlen(e->pairs[k].key->text));
				fits = !have || (have->type == WM_NODE_SCALAR && e->pairs[k].value->type == WM_NODE_SCALAR &&
					strcmp(have->text, e->pairs[k].value->text) == 0);
			}
			if (!fits)
				continue;
			matched = true;
			for (size_t k = 0; k < e->n && rows[r].n < MAX_KEYS; k++)
				if (!row_get(&rows[r], e->pairs[k].key->text, strlen(e->pairs[k].key->text))) {
					rows[r].keys[rows[r].n] = e->pairs[k].key->text;
					rows[r].values[rows[r].n++] = e->pairs[k].value;
				}
		}
		if (matched)
			continue;
		if (!axes) {
			n = 0;
			axes = true;  /* include alone: its entries are the combinations */
		}
		if (n == MAX_ROWS)
			break;
		memset(&rows[n], 0, sizeof(rows[n]));
		for (size_t k = 0; k < e->n && rows[n].n < MAX_KEYS; k++) {
			rows[n].keys[rows[n].n] = e->pairs[k].key->text;
			rows[n].values[rows[n].n++] = e->pairs[k].value;
		}
		n++;
	}
	return n;
}

/* The OS a runner label is of, or WM_OS_COUNT when it does not say. */
static enum wm_os label_os(const char *label)
{
	if (!label)
		return WM_OS_COUNT;
	if (!strncasecmp(label, "ubuntu", 6) || !strncasecmp(label, "linux", 5))
		return WM_OS_LINUX;
	if (!strncasecmp(label, "macos", 5))
		return WM_OS_MACOS;
	if (!strncasecmp(label, "windows", 7))
		return WM_OS_WINDOWS;
	return WM_OS_COUNT;
}

/* The architecture a GitHub-hosted runner runs, for a build that names no target. */
static const char *label_arch(const char *label)
{
	if (strstr(label, "arm"))
		return "aarch64";
	if (label_os(label) == WM_OS_MACOS && !strstr(label, "intel") && !strstr(label, "macos-13") &&
			!strstr(label, "macos-12"))
		return "aarch64";
	return "x86_64";
}

static const struct wm_platform *platform_of(const struct wm_catalog *cat, const char *family, const char *target)
{
	const char *triple = target;
	if (!strchr(target, '-')) {
		triple = NULL;
		for (size_t i = 0; i < WM_ARRAY_SIZE(aliases) && !triple; i++)
			if (!strcmp(aliases[i].family, family) && !strcmp(aliases[i].name, target))
				triple = aliases[i].triple;
		if (!triple)
			return NULL;
	}
	for (size_t i = 0; i < wm_catalog_platform_count(cat); i++) {
		const struct wm_platform *p = wm_catalog_platform_at(cat, i);
		if (!strcmp(p->target, triple))
			return p;
	}
	return NULL;
}

/* Levels 2014 and 2_17 are one (PEP 600). */
static bool same_level(const char *a, const char *b)
{
	if (!strcmp(a, "2_17"))
		a = "2014";
	if (!strcmp(b, "2_17"))
		b = "2014";
	return !strcmp(a, b);
}

/* Python 3.N (free-threaded "3.Nt"), python3.N or pypy3.N: 1 CPython, 2 PyPy, 0 another word. */
static int interpreter(const char *s, unsigned *minor, bool *ft)
{
	char *end;
	int kind = 1;
	unsigned long m;
	if (!strncmp(s, "python", 6))
		s += 6;
	else if (!strncmp(s, "pypy", 4))
		s += 4, kind = 2;
	if (strncmp(s, "3.", 2) != 0 || !isdigit((unsigned char)s[2]))
		return 0;
	m = strtoul(s + 2, &end, 10);
	*ft = *end == 't';
	if (*ft)
		end++;
	if (*end || m > 31 || (kind == 2 && *ft))
		return 0;
	*minor = (unsigned)m;
	return kind;
}

static void add_interpreter(struct wm_takeover *t, const char *file, const char *word)
{
	unsigned minor;
	bool ft;
	switch (interpreter(word, &minor, &ft)) {
	case 1:
		t->cpython[ft] |= 1u << minor;
		break;
	case 2:
		t->pypy |= 1u << minor;
		break;
	default:
		drop(t, file, wm_arena_printf(t->arena, "the interpreter %s: not a CPython or PyPy version the matrix "
			"can name", shown(word)));
	}
}

/* maturin's arguments: -i/--interpreter lists, --find-interpreter; whether they name interpreters. */
static bool read_args(struct wm_takeover *t, const char *file, const char *args, const char **level, bool *listed)
{
	bool named = false, in_list = false, find = false;
	char *copy = wm_arena_strdup(t->arena, args), *save = NULL;
	for (char *w = copy ? strtok_r(copy, " \t\r\n", &save) : NULL; w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (w[0] == '-') {
			in_list = false;
			if (!strcmp(w, "-i") || !strcmp(w, "--interpreter")) {
				in_list = named = true;
			} else if (!strncmp(w, "--interpreter=", 14)) {
				named = true;
				for (char *v = w + 14, *s2 = NULL, *x = strtok_r(v, ",", &s2); x; x = strtok_r(NULL, ",", &s2))
					add_interpreter(t, file, x);
			} else if (!strcmp(w, "--find-interpreter")) {
				t->find_interpreter = named = find = true;
			} else if (!strncmp(w, "--compatibility=", 16) || !strncmp(w, "--manylinux=", 12)) {
				*level = strchr(w, '=') + 1;
			} else if (!strcmp(w, "--compatibility") || !strcmp(w, "--manylinux")) {
				char *v = strtok_r(NULL, " \t\r\n", &save);
				if (v)
					*level = v;
			}
		} else if (in_list) {
			add_interpreter(t, file, w);
		}
	}
	*listed = named;
	return find;
}

static void add_platform(struct wm_takeover *t, const char *file, const struct wm_platform *p, const char *level,
	const char *runner, const char *container, unsigned pypy, const unsigned *cpython, bool find)
{
	struct wm_takeover_platform *tp = NULL;
	for (size_t i = 0; i < t->nplatforms && !tp; i++)
		if (t->platforms[i].p == p)
			tp = &t->platforms[i];
	if (!tp) {
		if (t->nplatforms == WM_TAKEOVER_MAX)
			return;
		tp = &t->platforms[t->nplatforms++];
		memset(tp, 0, sizeof(*tp));
		tp->p = p;
		/* copied: the workflow they were read from is released before the matrix is written */
		tp->level = level ? wm_arena_strdup(t->arena, level) : NULL;
		tp->runner = runner ? wm_arena_strdup(t->arena, runner) : NULL;
		tp->container = container ? wm_arena_strdup(t->arena, container) : NULL;
		tp->pypy = pypy;
		tp->cpython[0] = cpython[0];
		tp->cpython[1] = cpython[1];
		tp->find = find;
		return;
	}
	tp->pypy |= pypy;
	tp->cpython[0] |= cpython[0];
	tp->cpython[1] |= cpython[1];
	tp->find |= find;
	/* the same platform built twice: one level per platform in the matrix */
	if ((level ? level : p->manylinux ? p->manylinux : "") != NULL &&
			!same_level(tp->level ? tp->level : p->manylinux ? p->manylinux : "",
				level ? level : p->manylinux ? p->manylinux : ""))
		drop(t, file, wm_arena_printf(t->arena, "%s at level %s as well: the matrix builds one level per platform "
			"(%s)", p->id, shown(level ? level : p->manylinux), tp->level ? tp->level : p->manylinux));
}

/*
 * The manylinux level maturin-action's `manylinux` means on a glibc platform: `auto` is the
 * manylinux2014 image of each target the catalogue has (PyO3/maturin-action@v1.51.0 src/index.ts,
 * DEFAULT_CONTAINERS, `auto`), where maturin tags the wheel 2_17, that is 2014.  NULL, with a
 * drop, for a level the platform cannot take.
 */
static const char *glibc_level(struct wm_takeover *t, const char *file, const struct wm_platform *p, const char *v)
{
	const char *why;
	if (!strcmp(v, "auto") || !strcmp(v, "true"))
		return "2014";
	if (!strncmp(v, "manylinux", 9))
		v += 9;
	if (*v == '_')
		v++;
	if (!strcmp(v, "off") || !strcmp(v, "false") || !*v) {
		drop(t, file, wm_arena_printf(t->arena, "%s built on the runner, off a manylinux container (manylinux: "
			"off): its wheel's level follows the runner's glibc; the matrix builds at the catalogue's level", p->id));
		return NULL;
	}
	if (!wm_catalog_level_valid(p, v, &why)) {
		drop(t, file, wm_arena_printf(t->arena, "%s at manylinux level %s: %s", p->id, shown(v), why));
		return NULL;
	}
	return v;
}

/* One maturin-action step of a job, for each combination of its matrix. */
static void read_step(struct wm_takeover *t, const char *file, const char *job, const struct wm_node *jn,
	const struct wm_node *step, const struct row *rows, size_t nrows, const struct wm_node *setup_python)
{
	const struct wm_node *with = wm_yaml_find(step, "with");
	const char *command = scalar(wm_yaml_find(with, "command"));
	if (command && strcmp(command, "build") != 0 && strcmp(command, "publish") != 0)
		return;  /* sdist, upload, a cargo command: no wheel */
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		const struct wm_node *on = resolve(wm_yaml_find(jn, "runs-on"), r);
		const char *label = scalar(on), *target = scalar(resolve(wm_yaml_find(with, "target"), r));
		const char *many = scalar(resolve(wm_yaml_find(with, "manylinux"), r));
		const char *args_raw = scalar(wm_yaml_find(with, "args"));
		const char *container = scalar(resolve(wm_yaml_find(with, "container"), r));
		const char *bs = scalar(resolve(wm_yaml_find(with, "before-script-linux"), r));
		const char *args = args_raw ? expand(t->arena, args_raw, r) : "", *level = NULL, *family, *runner = NULL;
		enum wm_os os = label_os(label);
		const struct wm_platform *p;
		unsigned pypy, saved[2], named_here[2];
		bool find, named;

		if (t->jobs == MAX_BUILDS) {
			drop(t, file, "the builds past the first 1024 combinations of steps and matrices: not read");
			return;
		}
		t->jobs++;
		if (!t->file)
			t->file = wm_arena_strdup(t->arena, file);
		if (os == WM_OS_COUNT)
			os = target && strstr(target, "windows") ? WM_OS_WINDOWS : target && strstr(target, "darwin") ?
				WM_OS_MACOS : strstr(job, "windows") ? WM_OS_WINDOWS : strstr(job, "mac") ? WM_OS_MACOS :
				WM_OS_LINUX;
		if (!target)
			target = wm_yaml_find(with, "target") ? NULL : label ? label_arch(label) : "x86_64";
		if (!target) {
			drop(t, file, wm_arena_printf(t->arena, "job %s's target: an expression the matrix cannot read",
				shown(job)));
			continue;
		}
		if (os == WM_OS_LINUX)
			family = (many && !strncmp(many, "musllinux", 9)) || strstr(target, "musl") ? "musllinux" : "manylinux";
		else
			family = os == WM_OS_MACOS ? "macosx" : "win";
		if (!(p = platform_of(t->cat, family, target)) || p->os != os) {
			drop(t, file, wm_arena_printf(t->arena, "target %s on %s (job %s): no platform of the catalogue builds it",
				shown(target), family, shown(job)));
			continue;
		}
		if (!args) {
			drop(t, file, wm_arena_printf(t->arena, "job %s's maturin arguments: an expression the matrix cannot "
				"read", shown(job)));
			args = "";
		}
		/* what this combination names, beside what the others named */
		saved[0] = t->cpython[0];
		saved[1] = t->cpython[1];
		t->cpython[0] = t->cpython[1] = 0;
		t->pypy = 0;
		find = read_args(t, file, args, &level, &named);
		if (!named) {
			/* no -i, no --find-interpreter: maturin builds for the interpreter on the PATH */
			const struct wm_node *v = resolve(setup_python, r);
			if (v && v->type == WM_NODE_SCALAR) {
				char *copy = wm_arena_strdup(t->arena, v->text), *save = NULL;
				for (char *w = copy ? strtok_r(copy, " \t\r\n", &save) : NULL; w; w = strtok_r(NULL, " \t\r\n", &save))
					add_interpreter(t, file, w);
			} else if (v && v->type == WM_NODE_SEQ) {
				for (size_t k = 0; k < v->n; k++)
					if (scalar(v->items[k]))
						add_interpreter(t, file, v->items[k]->text);
			} else if (os != WM_OS_LINUX || setup_python) {
				drop(t, file, wm_arena_printf(t->arena, "job %s's interpreter: neither -i, --find-interpreter nor "
					"a python-version the matrix can read", shown(job)));
			}
		}
		pypy = t->pypy;
		named_here[0] = t->cpython[0];
		named_here[1] = t->cpython[1];
		t->cpython[0] |= saved[0];
		t->cpython[1] |= saved[1];
		/*
		 * --find-interpreter on Linux builds for PyPy too.  A native build runs in the pypa
		 * manylinux image of the runner's architecture (i686's on x86_64: maturin-action's
		 * DEFAULT_CONTAINERS), and the x86_64 and aarch64 images carry pypy3.11, the i686 one
		 * none (pypa/manylinux docker/build_scripts/finalize-one.sh); a cross build (the other
		 * targets, and every musllinux one, in rust-cross images without Python) takes maturin's
		 * own sysconfig data, PyPy 3.8 to 3.12 (`maturin list-python --target ...`, maturin
		 * 1.16).  On macOS and Windows it finds the interpreters on the runner's PATH, where no
		 * PyPy is.
		 */
		if (find && os == WM_OS_LINUX) {
			const char *host = label ? label_arch(label) : "x86_64";
			bool native = !strcmp(family, "manylinux") && (!strcmp(p->arch, host) ||
				(!strcmp(p->arch, "i686") && !strcmp(host, "x86_64")));
			pypy |= !native ? 0x1fu << 8 : strcmp(p->arch, "i686") != 0 ? 1u << 11 : 0;
		}
		if (os == WM_OS_LINUX) {
			if (!level)
				level = many;
			if (!strcmp(family, "musllinux")) {
				level = level && !strncmp(level, "musllinux_", 10) ? level + 10 : p->manylinux;
			} else if (!level) {
				drop(t, file, wm_arena_printf(t->arena, "%s built on the runner, off a manylinux container (no "
					"`manylinux`): its wheel's level follows the runner's glibc; the matrix builds at the "
					"catalogue's level", p->id));
				level = p->manylinux;
			} else if (!(level = glibc_level(t, file, p, level))) {
				level = p->manylinux;
			}
			if (same_level(level, p->manylinux))
				level = NULL;
			if (bs && !t->before_script)
				t->before_script = wm_arena_strdup(t->arena, bs);
			else if (bs && strcmp(bs, t->before_script) != 0)
				t->before_script_differs = true;
		}
		/* a hosted label the catalogue does not keep is only another of GitHub's images: the catalogue's is newer */
		if (label && !wm_catalog_runner(t->cat, label) && !strstr(label, "-latest") &&
				!(label_os(label) != WM_OS_COUNT && strchr(label, '-') && isdigit((unsigned char)strchr(label, '-')[1]))) {
			if (plain_word(label) && !strchr(label, '$'))
				runner = label;
			else
				drop(t, file, wm_arena_printf(t->arena, "job %s's runner: a label the matrix cannot name", shown(job)));
		} else if (on && on->type != WM_NODE_SCALAR) {
			drop(t, file, wm_arena_printf(t->arena, "job %s's runner: a list of labels (a self-hosted runner); "
				"set platforms.%s.runner to one label", shown(job), p->id));
		}
		if (container && (!strcmp(container, "off") || !plain_word(container))) {
			if (strcmp(container, "off") != 0)
				drop(t, file, wm_arena_printf(t->arena, "job %s's container: an image the matrix cannot name", shown(job)));
			container = NULL;
		}
		add_platform(t, file, p, level, runner, os == WM_OS_LINUX ? container : NULL, pypy, named_here, find);
	}
}

void wm_init_matrix_read(struct wm_takeover *t, const char *path, const struct wm_node *root)
{
	const struct wm_node *jobs = wm_yaml_find(root, "jobs");
	struct row *rows = calloc(MAX_ROWS, sizeof(*rows));
	size_t before = t->jobs;
	bool runs = false;
	if (!rows || !jobs || jobs->type != WM_NODE_MAP) {
		free(rows);
		return;
	}
	for (size_t j = 0; j < jobs->n; j++) {
		const struct wm_node *job = jobs->pairs[j].value, *steps = wm_yaml_find(job, "steps"), *setup_python = NULL;
		const char *id = scalar(jobs->pairs[j].key);
		size_t nrows;
		if (!id || job->type != WM_NODE_MAP || !steps || steps->type != WM_NODE_SEQ)
			continue;
		nrows = rows_of(rows, wm_yaml_find(wm_yaml_find(job, "strategy"), "matrix"));
		for (size_t s = 0; s < steps->n; s++) {
			const char *uses = scalar(wm_yaml_find(steps->items[s], "uses"));
			const char *run = scalar(wm_yaml_find(steps->items[s], "run"));
			runs |= run && (strstr(run, "maturin build") || strstr(run, "maturin publish"));
			if (!uses)
				continue;
			if (!strncasecmp(uses, "actions/setup-python@", 21))
				setup_python = wm_yaml_find(wm_yaml_find(steps->items[s], "with"), "python-version");
			else if (!strncasecmp(uses, "PyO3/maturin-action@", 20) || !strncasecmp(uses, "messense/maturin-action@", 24))
				read_step(t, path, id, job, steps->items[s], rows, nrows, setup_python);
		}
	}
	free(rows);
	/* a build in a script is the project's own: its targets and interpreters are not read */
	if (runs && t->jobs == before)
		drop(t, path, "the wheels its `run:` steps build with maturin: init reads maturin-action's builds only");
}

/* The PyO3 series the crate builds with, as the loader reads it (Cargo.lock, else one series). */
static const struct wm_pyo3 *crate_pyo3(const struct wm_takeover *t)
{
	const struct wm_project *p = t->project;
	const char *s = p ? (p->pyo3_locked ? p->pyo3_locked : p->pyo3_req) : NULL;
	unsigned long major, minor;
	char *end;
	if (!s || (p->pyo3_source && !p->pyo3_locked))
		return NULL;
	while (*s == '^' || *s == '~' || *s == '=' || *s == ' ')
		s++;
	major = strtoul(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return NULL;
	minor = strtoul(end + 1, &end, 10);
	return major == 0 ? wm_catalog_pyo3(t->cat, (unsigned)major, (unsigned)minor) : NULL;
}

/* Where the matrix builds PyPy, as the loader allows it (model/platforms.c). */
static bool pypy_builds(const struct wm_platform *p)
{
	return wm_platforms_pypy_missing(p) == NULL;
}

/*
 * The PyPy versions python.versions names: those built somewhere that the matrix builds and the
 * crate's PyO3 admits; every other PyPy build is a drop, by version and platform.
 */
static unsigned pypy_written(struct wm_takeover *t, const struct wm_pyo3 *pyo3)
{
	unsigned lo = WM_PYPY_MIN, hi = WM_PYPY_MAX, out = 0;
	const char *file = t->file;
	if (pyo3 && pyo3->pypy_min > lo)
		lo = pyo3->pypy_min;
	if (pyo3 && pyo3->pypy_max < hi)
		hi = pyo3->pypy_max;
	for (unsigned m = 0; m < 32; m++) {
		struct wm_buf where = WM_BUF_INIT;
		bool admitted = !(pyo3 && (m < pyo3->pypy_min || m > pyo3->pypy_max)) && (!t->project || m >= t->project->min_minor);
		for (size_t i = 0; i < t->nplatforms; i++) {
			const struct wm_takeover_platform *tp = &t->platforms[i];
			if (!(tp->pypy >> m & 1) || !admitted)
				continue;
			if (m >= lo && m <= hi && pypy_builds(tp->p))
				out |= 1u << m;
			else
				wm_buf_printf(&where, "%s%s", where.len ? ", " : "", tp->p->id);
		}
		if (where.len && !where.oom)
			drop(t, file, wm_arena_printf(t->arena, "PyPy 3.%u on %s: %s", m, where.ptr, m < lo || m > hi ?
				wm_arena_printf(t->arena, "the matrix builds PyPy 3.%u to 3.%u", WM_PYPY_MIN, WM_PYPY_MAX) :
				"PyPy ships for Linux, macOS x86_64 and arm64 and Windows x86_64 only"));
		wm_buf_release(&where);
	}
	return out;
}

/*
 * The backends' platforms narrowed to the matrix's, the platforms the replaced workflows build: a
 * GPU backend's platforms come from its feature's table, which may name others.  A backend left
 * with none is not written, and is a drop.
 */
static void fit_backends(struct wm_takeover *t, struct wm_y *root)
{
	struct wm_y *platforms = wm_yaml_get(root, "platforms"), *backends = wm_yaml_get(root, "backends");
	size_t step;

	if (!platforms || !backends || backends->type != WM_NODE_MAP)
		return;
	step = platforms->type == WM_NODE_MAP ? 2 : 1;  /* ids, or ids with their overrides */
	for (size_t i = 0; i + 1 < backends->n;) {
		struct wm_y *list = wm_yaml_get(backends->items[i + 1], "platforms");
		struct wm_buf was = WM_BUF_INIT;
		size_t kept = 0;
		if (!list || list->type != WM_NODE_SEQ) {
			i += 2;
			continue;
		}
		for (size_t k = 0; k < list->n; k++) {
			bool built = false;
			for (size_t j = 0; j < platforms->n && !built; j += step)
				built = fnmatch(list->items[k]->text, platforms->items[j]->text, 0) == 0;
			wm_buf_printf(&was, "%s%s", k ? ", " : "", list->items[k]->text);
			if (built)
				list->items[kept++] = list->items[k];
		}
		list->n = kept;
		if (kept) {
			wm_buf_release(&was);
			i += 2;
			continue;
		}
		drop(t, t->file, wm_arena_printf(t->arena, "backend '%s': its platforms (%s) are none of those the "
			"workflows build", backends->items[i]->text, was.ptr ? was.ptr : ""));
		wm_buf_release(&was);
		memmove(&backends->items[i], &backends->items[i + 2], (backends->n - i - 2) * sizeof(*backends->items));
		backends->n -= 2;
	}
}

/* Adds {platform: ID, python: VERSION} to the matrix's `exclude` (made on first use); false when it cannot be made. */
static bool add_exclude(struct wm_yb *b, struct wm_y *root, struct wm_y **exclude, const char *platform,
	struct wm_y *python)
{
	struct wm_y *e;
	if (!*exclude && (*exclude = wm_yaml_set(b, root, "exclude", wm_yaml_seq(b))) == NULL)
		return false;
	if ((e = wm_yaml_push(b, *exclude, wm_yaml_map(b))) != NULL)
		e->style = WM_Y_FLOW;
	wm_yaml_set(b, e, "platform", wm_yaml_str(b, platform));
	wm_yaml_set(b, e, "python", python);
	return true;
}

void wm_init_matrix_write(struct wm_takeover *t, struct wm_yb *b, struct wm_y *root)
{
	const struct wm_project *p = t->project;
	const struct wm_pyo3 *pyo3 = crate_pyo3(t);
	unsigned lo = WM_PYTHON_MIN, hi = pyo3 ? pyo3->py_max : 14, cp = t->cpython[0], ft = t->cpython[1], pp;
	bool overrides = false, abi3 = p && p->abi3;
	struct wm_y *list, *python, *versions, *exclude = NULL;
	const char *file = t->file;

	if (!t->nplatforms)
		return;
	for (size_t i = 0; i < t->nplatforms; i++)
		overrides |= t->platforms[i].level || t->platforms[i].runner || t->platforms[i].container;
	list = wm_yaml_set(b, root, "platforms", overrides ? wm_yaml_map(b) : wm_yaml_seq(b));
	if (list && !overrides)
		list->style = WM_Y_FLOW;
	for (size_t i = 0; i < t->nplatforms; i++) {
		const struct wm_takeover_platform *tp = &t->platforms[i];
		struct wm_y *o;
		if (!overrides) {
			wm_yaml_push(b, list, wm_yaml_str(b, tp->p->id));
			continue;
		}
		o = wm_yaml_set(b, list, tp->p->id, wm_yaml_map(b));
		if (o)
			o->style = WM_Y_FLOW;
		if (tp->runner)
			wm_yaml_set(b, o, "runner", wm_yaml_str(b, tp->runner));
		if (tp->container)
			wm_yaml_set(b, o, "container", wm_yaml_str(b, tp->container));
		if (tp->level)
			wm_yaml_set(b, o, "manylinux", wm_yaml_str(b, tp->level));
	}
	fit_backends(t, root);

	/* --find-interpreter: every CPython the image or runner has that requires-python and PyO3 admit */
	if (pyo3 && pyo3->py_min > lo)
		lo = pyo3->py_min;
	if (p && p->min_minor > lo)
		lo = p->min_minor;
	if (t->find_interpreter)
		for (unsigned m = lo; m <= hi; m++)
			cp |= 1u << m;
	for (unsigned m = 0; m < 32; m++) {
		if ((cp >> m & 1) && (m < WM_PYTHON_MIN || m > WM_PYTHON_MAX || (pyo3 && (m < pyo3->py_min || m > pyo3->py_max)))) {
			drop(t, file, wm_arena_printf(t->arena, "CPython 3.%u: %s", m, pyo3 ? wm_arena_printf(t->arena,
				"PyO3 %s builds for 3.%u to 3.%u", pyo3->series, pyo3->py_min, pyo3->py_max) :
				"the matrix builds 3.8 to 3.15"));
			cp &= ~(1u << m);
		}
		if ((ft >> m & 1) && (m < WM_FT_MIN || m > WM_PYTHON_MAX || (pyo3 && (!pyo3->ft_min || m < pyo3->ft_min)))) {
			drop(t, file, wm_arena_printf(t->arena, "free-threaded CPython 3.%ut: the crate's PyO3 does not build it", m));
			ft &= ~(1u << m);
		}
	}
	pp = pypy_written(t, pyo3);
	if (abi3)
		cp = 0;  /* the abi3 wheel stands for every CPython */
	if (cp || ft || pp) {
		python = wm_yaml_get(root, "python");
		if (!python)
			python = wm_yaml_set_before(b, root, "platforms", "python", wm_yaml_map(b));
		versions = wm_yaml_set(b, python, "versions", wm_yaml_seq(b));
		if (versions)
			versions->style = WM_Y_FLOW;
		for (unsigned m = 0; m < 32; m++) {
			if (cp >> m & 1)
				wm_yaml_push(b, versions, wm_yaml_strf(b, "3.%u", m));
			if (ft >> m & 1)
				wm_yaml_push(b, versions, wm_yaml_strf(b, "3.%ut", m));
		}
		for (unsigned m = 0; m < 32; m++)
			if (pp >> m & 1)
				wm_yaml_push(b, versions, wm_yaml_strf(b, "pp3.%u", m));
		/* a runner without the older interpreters (windows-arm64 from 3.11) builds without them */
		for (size_t i = 0; i < t->nplatforms; i++)
			for (unsigned m = 0; m < t->platforms[i].p->python_min; m++)
				for (int f = 0; f < 2; f++) {
					if (((f ? ft : cp) >> m & 1) && !add_exclude(b, root, &exclude, t->platforms[i].p->id,
							wm_yaml_strf(b, "3.%u%s", m, f ? "t" : "")))
						return;
				}
		/* a CPython the workflows did not build on a platform (the versions are one axis) */
		for (size_t i = 0; i < t->nplatforms; i++) {
			const struct wm_takeover_platform *tp = &t->platforms[i];
			unsigned here[2] = { tp->cpython[0], tp->cpython[1] };
			if (tp->find)
				for (unsigned m = lo; m <= hi; m++)
					here[0] |= 1u << m;
			for (unsigned m = tp->p->python_min; m < 32; m++)
				for (int f = 0; f < 2; f++) {
					if (((f ? ft : cp) >> m & 1) && !(here[f] >> m & 1) && !add_exclude(b, root, &exclude,
							tp->p->id, wm_yaml_strf(b, "3.%u%s", m, f ? "t" : "")))
						return;
				}
		}
		/* PyPy where the workflows did not build it, or the matrix cannot (a drop, above) */
		for (size_t i = 0; i < t->nplatforms; i++)
			for (unsigned m = 0; m < 32; m++) {
				if (!(pp >> m & 1) || (t->platforms[i].pypy >> m & 1 && pypy_builds(t->platforms[i].p)))
					continue;
				if (!add_exclude(b, root, &exclude, t->platforms[i].p->id, wm_yaml_strf(b, "pp3.%u", m)))
					return;
			}
	}
	if (t->before_script_differs) {
		drop(t, file, "before-script-linux, which differs between jobs: a backend runs one script in each Linux build");
	} else if (t->before_script) {
		struct wm_y *backends = wm_yaml_get(root, "backends"), *def = NULL;
		for (size_t i = 0; backends && i + 1 < backends->n; i += 2) {
			struct wm_y *d = wm_yaml_get(backends->items[i + 1], "default");
			if (d && d->text && !strcmp(d->text, "true"))
				def = backends->items[i + 1];
		}
		if (def) {
			def->style = WM_Y_AUTO;
			wm_yaml_set_before(b, def, "default", "before-script-linux", wm_yaml_literal(b, t->before_script));
		}
	}
}
